"""Differential fuzzer for ``einsum`` and the contraction ops, against float64 NumPy.

``torch.einsum`` runs RANDOM equations built from random shapes: repeated labels within
one operand (diagonals), labels summed away, the implicit output, explicit outputs in any
order, ``...`` (in some operands only, broadcast, size-1 dims, omitted from the output),
one to four operands, spaces, upper-case labels, size-0 / size-1 dims, 0-d operands, the
list form ``einsum(eq, [a, b])``, PyTorch's sublist form ``einsum(a, [0, 1], b, [1, 2],
[0, 2])``; int64 / int32 / float32 / float64 / complex128 operands and mixtures of them
(ferrograd promotes them by PyTorch's rule for dimensioned tensors); gradients with
``gradcheck`` / ``gradgradcheck``; malformed equations must raise a Python exception.
``paddle.einsum`` is the same function under Paddle's name.

The contraction family: ``tensordot`` (int, pair-of-lists and 0 dims), ``bmm``, ``mm``,
``mv``, ``addmm`` / ``addmv`` / ``addr`` / ``baddbmm`` / ``addbmm`` with ``alpha`` /
``beta`` (``beta=0`` ignores NaN / inf in ``input``, as PyTorch documents), ``matmul`` of
every rank combination, ``dot`` / ``vdot`` / ``inner`` / ``outer`` / ``ger`` / ``kron``,
``cross`` / ``linalg.cross``, ``cdist`` (p = 0, 1, 2, 3.5, inf; ``compute_mode``),
``dist``, ``chain_matmul`` / ``linalg.multi_dot``, ``trace``, ``block_diag``,
``cartesian_prod``, and the Paddle spellings (``tensordot(axes=)``,
``matmul(transpose_x=, transpose_y=)``, ``bmm``, ``mm``, ``addmm``, ``outer`` (flattens),
``inner``, ``kron``, ``cross(axis=)``, ``dist``) — values and dtypes against NumPy written
from the peers' documented formulas, operands seen through random views
(``fuzz_support.viewed``), gradients with ``gradcheck`` on small float64 inputs.

This module is PyTorch code (``torch = fg`` below, docs/dialects.md); the Paddle calls run
in functions compiled with a ``paddle`` global only (``PADDLE`` below), so the dialect rule
reads them as Paddle code. Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import itertools
import math

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ, viewed
from hypothesis import given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`), so
# ferrograd answers them as Paddle (docs/dialects.md).
_PADDLE_SRC = """
def call(name, *args, **kw):
    return getattr(paddle, name)(*args, **kw)
"""
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_paddle_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)
pcall = PADDLE["call"]

DTYPES = ["int32", "int64", "float32", "float64", "complex128"]
CAT = {"int32": 1, "int64": 1, "float32": 2, "float64": 2, "complex128": 3}
WIDTH = {"int32": 4, "int64": 8, "float32": 4, "float64": 8, "complex128": 16}
#: tolerance (rtol, atol relative to the magnitude `scale` of the products summed)
TOL = {"float32": (2e-5, 5e-6), "float64": (1e-12, 1e-13), "complex128": (1e-12, 1e-13)}


def promote(dtypes) -> str:
    """PyTorch's promotion of dimensioned tensors: the higher category wins, then width."""
    out = dtypes[0]
    for d in dtypes[1:]:
        if CAT[d] > CAT[out] or (CAT[d] == CAT[out] and WIDTH[d] > WIDTH[out]):
            out = d
    return out


def close(got, want, dtype: str, what: str, scale=None) -> None:
    """`got` (tensor) equals `want` (NumPy, computed wide): shape, dtype, NaN / inf positions,
    exact ints, finite floats within TOL scaled by `scale` (the magnitudes summed)."""
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    g = got.numpy()
    w = np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != NumPy's {w.shape}"
    if CAT[dtype] == 1:
        np.testing.assert_array_equal(g, w.astype(dtype), err_msg=what)
        return
    if dtype == "complex128":
        close(got.real, w.real, "float64", what + " (real)", scale)
        close(got.imag, w.imag, "float64", what + " (imag)", scale)
        return
    g = g.astype(np.float64)
    with np.errstate(over="ignore"):
        w = w.astype(dtype).astype(np.float64)
    assert (np.isnan(g) == np.isnan(w)).all(), f"{what}: NaN positions\n{g}\n{w}"
    inf = np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf], err_msg=f"{what}: infinities")
    fin = np.isfinite(w)
    rtol, atol = TOL[dtype]
    sc = np.abs(w) if scale is None else np.broadcast_to(np.asarray(scale, np.float64), w.shape)
    bound = atol * (1 + sc[fin]) + rtol * np.abs(w[fin])
    bad = np.abs(g[fin] - w[fin]) > bound
    assert not bad.any(), f"{what}: got {g[fin][bad]}, expected {w[fin][bad]}"


def operand(data, dtype: str, shape, lo=-4.0, hi=4.0):
    """(NumPy array, tensor seen through a random view) of `dtype` without specials."""
    if dtype != "complex128":
        return data.draw(viewed(dtype, shape=shape, special=False, lo=lo, hi=hi))
    re = data.draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))
    im = data.draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))
    a = re + 1j * im
    if len(shape) >= 2 and data.draw(st.booleans()):  # a transposed view
        return a, fg.tensor(np.ascontiguousarray(a.swapaxes(-1, -2))).mT
    return a, fg.tensor(a)


def grad_ok(fn, *arrays, second: bool = False) -> None:
    """gradcheck (and with `second`, gradgradcheck) of `fn` at float64 leaves of `arrays`
    (fuzz_support's leaf() goes through np.ascontiguousarray, which makes 0-d arrays 1-d)."""
    from ferrograd.autograd import gradcheck, gradgradcheck

    inputs = []
    for a in arrays:
        t = fg.tensor(np.array(a, dtype=np.float64), dtype="float64")
        t.requires_grad = True
        inputs.append(t)
    CALLS["gradcheck"] += 1
    assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-6, rtol=1e-4)
    if second:
        CALLS["gradgradcheck"] += 1
        assert gradgradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-5, rtol=1e-3)


def small(data, shape, lo=-2.0, hi=2.0):
    return data.draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


# ---------------------------------------------------------------- einsum equations
LETTERS = "abcdefABCDEF"
SPECIAL = [np.nan, np.inf, -np.inf, 0.0]


@st.composite
def einsum_case(draw, max_ops=4):
    """A random valid equation: (terms, output or None for implicit, shapes, nice string).

    Each term is a list of tokens (labels, or '...'); a label's dims share one size except
    that any of them may be 1 (broadcast), except where the label repeats in one term."""
    labels = draw(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=5, unique=True))
    size = {c: draw(st.sampled_from([0, 1, 2, 2, 3, 3])) for c in labels}
    nops = draw(st.integers(1, max_ops))
    eshape = draw(st.lists(st.sampled_from([0, 1, 2, 3, 3]), max_size=2))
    use_ell = draw(st.booleans())
    terms, shapes = [], []
    for _ in range(nops):
        term = draw(st.lists(st.sampled_from(labels), max_size=4))
        shape = []
        for c in term:
            # a size-1 dim broadcasts against the label's size, 0 included
            bc = term.count(c) == 1 and draw(st.integers(0, 5)) == 0
            shape.append(1 if bc else size[c])
        if use_ell and draw(st.booleans()):
            es = eshape[draw(st.integers(0, len(eshape))) :]  # fewer dims broadcast
            es = [1 if s and draw(st.integers(0, 3)) == 0 else s for s in es]
            pos = draw(st.integers(0, len(term)))
            term = term[:pos] + ["..."] + term[pos:]
            shape = shape[:pos] + es + shape[pos:]
        terms.append(term)
        shapes.append(tuple(shape))
    used = sorted({c for t in terms for c in t if c != "..."})
    has_ell = any("..." in t for t in terms)
    if draw(st.integers(0, 3)) == 0:
        out = None  # implicit
    else:
        out = list(draw(st.permutations(used)))[: draw(st.integers(0, len(used)))]
        if has_ell and draw(st.integers(0, 4)) > 0:  # else: summed away
            out.insert(draw(st.integers(0, len(out))), "...")
    return terms, out, shapes


def spell(draw, terms, out) -> str:
    """The equation as a string, with random spaces between the tokens."""

    def sp():
        return draw(st.sampled_from(["", "", "", " ", "  "]))

    def word(t):
        return sp() + sp().join(t) + sp()

    eq = ",".join(word(t) for t in terms)
    if out is not None:
        eq += "->" + word(out)
    return eq


def sublist_args(terms, out, tensors) -> list:
    """The arguments of PyTorch's sublist form: each operand followed by its labels as ints
    (``A``-``Z`` are 0-25, ``a``-``z`` 26-51, ``...`` is ``Ellipsis``), then the output's."""

    def ints(t):
        return [
            Ellipsis if c == "..." else (ord(c) - 65 if c.isupper() else ord(c) - 71) for c in t
        ]

    args: list = []
    for t, x in zip(terms, tensors):
        args += [x, ints(t)]
    return args if out is None else [*args, ints(out)]


def numpy_einsum(terms, out, arrays):
    """np.einsum, which refuses an output without the '...' of the inputs: then keep the
    broadcast dims in front and sum them away."""
    lhs = ",".join("".join(t) for t in terms)
    has_ell = any("..." in t for t in terms)
    if out is None:
        return np.einsum(lhs, *arrays)
    if has_ell and "..." not in out:
        full = np.einsum(lhs + "->..." + "".join(out), *arrays)
        nb = full.ndim - len(out)
        return full.sum(axis=tuple(range(nb)))
    return np.einsum(lhs + "->" + "".join(out), *arrays)


@FUZZ
@given(st.data())
def test_einsum_random_equations(data):
    terms, out, shapes = data.draw(einsum_case())
    eq = spell(data.draw, terms, out)
    kind = data.draw(st.sampled_from(["float64", "float64", "float32", "int64", "complex", "mix"]))
    if kind == "mix":
        dts = [data.draw(st.sampled_from(DTYPES)) for _ in shapes]
    else:
        dts = [{"complex": "complex128"}.get(kind, kind)] * len(shapes)
    pairs = [operand(data, d, s) for d, s in zip(dts, shapes)]
    arrays = [p[0] for p in pairs]
    tensors = [p[1] for p in pairs]
    # NaN / inf in float operands (their positions do not depend on the contraction order
    # for these magnitudes; a diagonal leaves those off it alone); not with a size-0 dim:
    # NaN * (an empty sum) is NaN in PyTorch (and ferrograd), 0 in np.einsum
    empty = any(0 in sh for sh in shapes)
    if kind in ("float64", "float32") and not empty and data.draw(st.booleans()):
        for i, a in enumerate(arrays):
            a = np.array(a)
            mask = data.draw(hnp.arrays(bool, a.shape))
            a[mask] = data.draw(hnp.arrays(a.dtype, a.shape, elements=st.sampled_from(SPECIAL)))[
                mask
            ]
            arrays[i], tensors[i] = a, fg.tensor(a)
    rdt = promote(dts)
    wide = "complex128" if rdt == "complex128" else ("int64" if CAT[rdt] == 1 else "float64")
    with np.errstate(all="ignore"):
        want = numpy_einsum(terms, out, [a.astype(wide) for a in arrays])
        scale = numpy_einsum(terms, out, [np.abs(a).astype(np.float64) for a in arrays])
    form = data.draw(st.sampled_from(["args", "list", "tuple", "sublist"]))
    CALLS["einsum"] += 1
    if form == "args":
        got = torch.einsum(eq, *tensors)
    elif form == "sublist":  # PyTorch's einsum(a, [0, 1], b, [1, 2], [0, 2])
        got = torch.einsum(*sublist_args(terms, out, tensors))
    else:
        got = torch.einsum(eq, tensors if form == "list" else tuple(tensors))
    if rdt == "int32":  # PyTorch's own einsum sums a label out of one operand with `sum`
        # (int32 -> int64) and contracts a shared one with `bmm` (int32): not modelled
        assert got.dtype.name in ("int32", "int64"), f"einsum {eq!r}: {got.dtype.name}"
        rdt = got.dtype.name
    close(got, want, rdt, f"einsum {eq!r} {dts} ({form})", scale)
    if data.draw(st.booleans()):  # Paddle's spelling: the same function
        CALLS["paddle.einsum"] += 1
        close(pcall("einsum", eq, *tensors), want, rdt, f"paddle.einsum {eq!r}", scale)
    # gradients of the same equation at small float64 operands
    if sum(math.prod(s) for s in shapes) <= 24:
        grads = [small(data, s) for s in shapes]
        second = data.draw(st.integers(0, 3)) == 0
        grad_ok(lambda *ts: torch.einsum(eq, *ts), *grads, second=second)


@FUZZ
@given(st.data())
def test_einsum_classic_patterns(data):
    """Named patterns with fixed meaning: diagonals, traces, transposes, batched products,
    bilinear forms, '...' in some operands only."""
    n, m, k, b = (data.draw(st.integers(0, 3)) for _ in range(4))
    cases = {
        "ii->i": [(n, n)],
        "ii": [(n, n)],
        "ii->": [(n, n)],
        "iij->j": [(n, n, m)],
        "iji->j": [(n, m, n)],
        "iii->i": [(n, n, n)],
        "ij->ji": [(n, m)],
        "ij->": [(n, m)],
        "ij": [(n, m)],
        "ji": [(n, m)],
        "i,i->": [(n,), (n,)],
        "i,j->ij": [(n,), (m,)],
        "ij,jk->ik": [(n, m), (m, k)],
        "ij,kj->ik": [(n, m), (k, m)],
        "bij,bjk->bik": [(b, n, m), (b, m, k)],
        "bn,anm,bm->ba": [(b, n), (k, n, m), (b, m)],
        "...ij,...jk->...ik": [(b, 1, n, m), (k, m, k)],  # (1 then k in the broadcast dims)
        "...ij,jk": [(b, n, m), (m, k)],
        "i...->...": [(n, b, m)],
        "...ii->...i": [(b, n, n)],
        "ij,ij,ij->i": [(n, m), (n, m), (n, m)],
        ",ij->ij": [(), (n, m)],
        ",->": [(), ()],
        "Ab,bA->": [(n, m), (m, n)],
        "aA->Aa": [(n, m)],
    }
    eq = data.draw(st.sampled_from(sorted(cases)))
    shapes = cases[eq]
    dtype = data.draw(st.sampled_from(["float64", "float32", "int64"]))
    pairs = [operand(data, dtype, s) for s in shapes]
    wide = "int64" if dtype == "int64" else "float64"
    want = np.einsum(eq, *[p[0].astype(wide) for p in pairs])
    scale = np.einsum(eq, *[np.abs(p[0]).astype(np.float64) for p in pairs])
    CALLS["einsum"] += 1
    close(torch.einsum(eq, *[p[1] for p in pairs]), want, dtype, eq, scale)
    if all(math.prod(s) <= 12 for s in shapes):
        grad_ok(lambda *ts: torch.einsum(eq, *ts), *[small(data, s) for s in shapes])


def _bad_equation(data):
    """(equation, shapes) that PyTorch refuses, and why."""
    why = data.draw(st.sampled_from(["ndim", "missing", "repeated", "size", "diag", "count"]))
    n, m = data.draw(st.integers(2, 3)), data.draw(st.integers(2, 3))
    if why == "ndim":  # a term with more or fewer letters than the operand has dims
        eq = data.draw(st.sampled_from(["ij,jk->ik", "ijk,jk->i", "i,jk->k", "ij->j"]))
        shapes = {
            "ij,jk->ik": [(n, m, 2), (m, n)],
            "ijk,jk->i": [(n, m), (m, n)],
            "i,jk->k": [(n,), (m,)],
            "ij->j": [(n, m, 1)],
        }[eq]
    elif why == "missing":  # an output letter in no input
        eq, shapes = data.draw(st.sampled_from(["ij->iz", "ij,jk->iK", "...i->...j"])), None
        shapes = [(n, m), (m, n)] if "," in eq else [(n, m)]
    elif why == "repeated":  # an output letter twice
        eq = data.draw(st.sampled_from(["ij->ii", "ij,jk->iki", "i->ii"]))
        shapes = [(n, m), (m, n)] if "," in eq else ([(n, m)] if "j" in eq else [(n,)])
    elif why == "size":  # one letter, two sizes (neither 1)
        eq = data.draw(st.sampled_from(["ij,jk->ik", "i,i->", "bij,bjk->bik"]))
        shapes = {
            "ij,jk->ik": [(n, m), (m + 1, n)],
            "i,i->": [(n,), (n + 1,)],
            "bij,bjk->bik": [(n, 2, 2), (n + 1, 2, 2)],
        }[eq]
    elif why == "diag":  # a diagonal of a non-square pair of dims
        eq, shapes = "ii->i", [(n, n + 1)]
    else:  # more terms than operands, or more operands than terms
        eq, shapes = data.draw(st.sampled_from([("i,i->", [(n,)]), ("i->", [(n,), (n,)])]))
    return eq, shapes


@FUZZ
@given(st.data())
def test_einsum_bad_equations_raise(data):
    eq, shapes = _bad_equation(data)
    ops = [fg.ones(*s, dtype=fg.float64) for s in shapes]
    CALLS["einsum refusal"] += 1
    with pytest.raises(Exception) as info:  # a Rust panic is a BaseException: not caught
        torch.einsum(eq, *ops)
    assert str(info.value), f"einsum {eq!r}: an exception without a message"


# ---------------------------------------------------------------- the contraction family
NUM = ["float64", "float64", "float32", "int64", "complex128"]
dims3 = st.integers(0, 3)


def batch_shape(data, max_dims=2):
    return tuple(data.draw(st.lists(dims3, max_size=max_dims)))


def wide_of(dtype):
    return {"float32": np.float64, "int32": np.int64}.get(dtype, dtype)


def ops_of(data, dtype, *shapes):
    pairs = [operand(data, dtype, s) for s in shapes]
    return [p[0].astype(wide_of(dtype)) for p in pairs], [p[1] for p in pairs]


def mag(fn, *arrays):
    """The magnitude of the products summed in fn(*arrays): fn of the absolute values."""
    return fn(*[np.abs(a).astype(np.float64) for a in arrays])


def bcast_batch(data, batch):
    """A batch shape broadcasting to `batch`: leading dims dropped, some dims made 1."""
    b = batch[data.draw(st.integers(0, len(batch))) :]
    return tuple(1 if data.draw(st.integers(0, 3)) == 0 else d for d in b)


@FUZZ
@given(st.sampled_from(NUM), st.data())
def test_matmul_every_rank(dtype, data):
    """matmul / @ of 1-D x 1-D, 1-D x N-D, N-D x 1-D and batch broadcasting; mm, mv, bmm,
    dot, inner, outer, ger and the Paddle spellings with transpose_x / transpose_y."""
    n, k, m = data.draw(dims3), data.draw(dims3), data.draw(dims3)
    batch = batch_shape(data)
    ra, rb = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))

    def lead(r):  # at most r - 2 trailing dims of a batch shape broadcasting to `batch`
        b = bcast_batch(data, batch)
        return b[max(0, len(b) - (r - 2)) :]

    sa = (k,) if ra == 1 else lead(ra) + (n, k)
    sb = (k,) if rb == 1 else lead(rb) + (k, m)
    (a, b), (ta, tb) = ops_of(data, dtype, sa, sb)
    CALLS["matmul"] += 1
    want = np.matmul(a, b)
    got = torch.matmul(ta, tb) if data.draw(st.booleans()) else ta @ tb
    close(got, want, dtype, f"matmul {sa} {sb}", mag(np.matmul, a, b))
    # Paddle: matmul(x, y, transpose_x, transpose_y) transposes the last two dims of an
    # operand of 2+ dims (a 1-D one is used as it is)
    tx, ty = data.draw(st.booleans()), data.draw(st.booleans())
    px = ta.mT.contiguous() if tx and ra >= 2 else ta
    py = tb.mT.contiguous() if ty and rb >= 2 else tb
    CALLS["paddle.matmul"] += 1
    got = pcall("matmul", px, py, transpose_x=tx, transpose_y=ty)
    close(got, want, dtype, f"paddle.matmul {sa} {sb} {tx} {ty}", mag(np.matmul, a, b))
    # the fixed-rank spellings
    (x, y, v, w), (tx_, ty_, tv, tw) = ops_of(data, dtype, (n, k), (k, m), (k,), (k,))
    CALLS["mm/mv/dot"] += 4
    close(torch.mm(tx_, ty_), x @ y, dtype, "mm", mag(np.matmul, x, y))
    close(pcall("mm", tx_, ty_), x @ y, dtype, "paddle.mm", mag(np.matmul, x, y))
    close(torch.mv(tx_, tv), x @ v, dtype, "mv", mag(np.matmul, x, v))
    close(torch.dot(tv, tw), np.dot(v, w), dtype, "dot", mag(np.dot, v, w))
    CALLS["vdot"] += 1
    close(
        torch.vdot(tv, tw), np.vdot(v, w), dtype, "vdot (conjugates the first)", mag(np.dot, v, w)
    )
    nb = data.draw(dims3)
    (p, q), (tp, tq) = ops_of(data, dtype, (nb, n, k), (nb, k, m))
    CALLS["bmm"] += 2
    close(torch.bmm(tp, tq), p @ q, dtype, "bmm", mag(np.matmul, p, q))
    close(pcall("bmm", tp, tq), p @ q, dtype, "paddle.bmm", mag(np.matmul, p, q))
    # inner over the last dims of any ranks (a 0-d operand scales), outer / ger
    si = batch_shape(data) + (k,)
    sj = batch_shape(data) + (k,)
    (c, d), (tc, td) = ops_of(data, dtype, si, sj)
    CALLS["inner"] += 2
    close(torch.inner(tc, td), np.inner(c, d), dtype, "inner", mag(np.inner, c, d))
    close(pcall("inner", tc, td), np.inner(c, d), dtype, "paddle.inner", mag(np.inner, c, d))
    (e, f), (te, tf) = ops_of(data, dtype, (n,), (m,))
    CALLS["outer"] += 2
    close(torch.outer(te, tf), np.outer(e, f), dtype, "outer")
    close(torch.ger(te, tf), np.outer(e, f), dtype, "ger")
    # Paddle's outer flattens operands of any rank; ferrograd refuses all but 1-D ones
    # today (test_paddle_outer_flattens_regression), so 1-D here
    (g, h), (tg, th) = ops_of(data, dtype, (n,), (data.draw(dims3),))
    CALLS["paddle.outer"] += 1
    close(pcall("outer", tg, th), np.outer(g.ravel(), h.ravel()), dtype, "paddle.outer")
    if dtype == "float64" and n * k * m <= 12:
        xs = [small(data, s) for s in (sa, sb)]
        grad_ok(lambda u, z: torch.matmul(u, z), *xs, second=data.draw(st.booleans()))


# name: (call, reference of the product, operand shapes (n, k, m, b), output shape)
ADD = {
    "addmm": (torch.addmm, lambda p, q: p @ q, lambda n, k, m, b: [(n, k), (k, m)], "nm"),
    "addmv": (torch.addmv, lambda p, q: p @ q, lambda n, k, m, b: [(n, k), (k,)], "n"),
    "addr": (torch.addr, np.outer, lambda n, k, m, b: [(n,), (m,)], "nm"),
    "baddbmm": (
        torch.baddbmm,
        lambda p, q: p @ q,
        lambda n, k, m, b: [(b, n, k), (b, k, m)],
        "bnm",
    ),
    "addbmm": (
        torch.addbmm,
        lambda p, q: (p @ q).sum(0),
        lambda n, k, m, b: [(b, n, k), (b, k, m)],
        "nm",
    ),
}


@FUZZ
@given(st.sampled_from(sorted(ADD)), st.sampled_from(["float64", "float32", "int64"]), st.data())
def test_add_products(name, dtype, data):
    """beta * input + alpha * (product), input broadcast; beta = 0 ignores NaN / inf in
    input (PyTorch's documented rule); ints take int alpha / beta."""
    fn, prod, shapes_of, out = ADD[name]
    n, k, m, b = (data.draw(dims3) for _ in range(4))
    oshape = tuple({"n": n, "m": m, "b": b}[c] for c in out)
    ishape = bcast_batch(data, oshape)  # broadcastable to the output
    (p, q), (tp, tq) = ops_of(data, dtype, *shapes_of(n, k, m, b))
    (c,), (tc,) = ops_of(data, dtype, ishape)
    scalars = [0, 1, -1, 2] if dtype == "int64" else [0, 0.0, 1, -0.5, 2.0]
    beta, alpha = data.draw(st.sampled_from(scalars)), data.draw(st.sampled_from(scalars))
    if beta == 0 and dtype != "int64" and data.draw(st.booleans()):
        # NaN / inf in input must not propagate
        c = np.array(c)
        c[data.draw(hnp.arrays(bool, c.shape))] = data.draw(st.sampled_from([np.nan, np.inf]))
        tc = fg.tensor(c, dtype=dtype)
    with np.errstate(all="ignore"):
        pr = prod(p, q)
        want = alpha * pr if beta == 0 else beta * c + alpha * pr
        want = np.broadcast_to(want, oshape)
        scale = abs(alpha) * prod(np.abs(p), np.abs(q)) + abs(beta) * np.abs(np.nan_to_num(c))
    CALLS[name] += 1
    kw = (
        dict(beta=beta, alpha=alpha)
        if data.draw(st.booleans()) or name in ("addr", "addbmm")
        else {}
    )
    if not kw:
        want, scale = np.broadcast_to(c + pr, oshape), np.abs(c) + prod(np.abs(p), np.abs(q))
    got = fn(tc, tp, tq, **kw)
    close(got, want, dtype, f"{name} beta={beta} alpha={alpha} {ishape}", scale)
    if name == "addmm" and dtype != "int64" and not np.isnan(c).any() and not np.isinf(c).any():
        CALLS["paddle.addmm"] += 1  # Paddle: addmm(input, x, y, beta, alpha)
        got = pcall("addmm", tc, tp, tq, beta=float(beta), alpha=float(alpha))
        want = beta * c + alpha * pr
        close(got, np.broadcast_to(want, oshape), dtype, "paddle.addmm", scale)
    if dtype == "float64" and n * k * m * max(b, 1) <= 12:
        arrays = [small(data, s) for s in [ishape, *shapes_of(n, k, m, b)]]
        grad_ok(lambda u, v, w: fn(u, v, w, beta=beta, alpha=alpha), *arrays)


@FUZZ
@given(st.sampled_from(NUM), st.data())
def test_tensordot(dtype, data):
    """tensordot with int dims (0 = outer), a pair of lists (any order, negative axes), and
    Paddle's axes= spellings."""
    ra = data.draw(st.integers(0, 4))
    sa = tuple(data.draw(st.lists(dims3, min_size=ra, max_size=ra)))
    form = data.draw(st.sampled_from(["int", "lists"]))
    if form == "int":
        nd = data.draw(st.integers(0, ra))
        sb = sa[ra - nd :] + tuple(data.draw(st.lists(dims3, max_size=2)))
        dims = nd
        np_axes = nd
    else:
        nd = data.draw(st.integers(0, ra))
        xa = data.draw(st.permutations(range(ra)))[:nd]
        rest = tuple(data.draw(st.lists(dims3, max_size=2)))
        rb = nd + len(rest)
        ya = data.draw(st.permutations(range(rb)))[:nd]
        sb = [0] * rb
        for i, d in zip(ya, xa):
            sb[i] = sa[d]
        free = [i for i in range(rb) if i not in ya]
        for i, s in zip(free, rest):
            sb[i] = s
        sb = tuple(sb)
        neg = data.draw(st.booleans())
        xa = [d - ra if neg else d for d in xa]
        ya = [d - rb if neg and data.draw(st.booleans()) else d for d in ya]
        dims = (list(xa), list(ya)) if data.draw(st.booleans()) else [list(xa), list(ya)]
        np_axes = (list(xa), list(ya))
    (a, b), (ta, tb) = ops_of(data, dtype, sa, sb)
    want = np.tensordot(a, b, axes=np_axes)
    CALLS["tensordot"] += 1
    sc = mag(lambda u, v: np.tensordot(u, v, axes=np_axes), a, b)
    close(torch.tensordot(ta, tb, dims=dims), want, dtype, f"tensordot {sa} {sb} {dims}", sc)
    # Paddle's axes=: an int, or a pair of lists ([[x axes], [y axes]]); its other forms
    # below (test_paddle_tensordot_same_axes)
    axes = dims if form == "int" else [list(d) for d in dims]
    CALLS["paddle.tensordot"] += 1
    got = pcall("tensordot", ta, tb, axes=axes)
    if want.ndim == 0 and got.ndim == 1:  # older Paddle answers [1] for a full contraction
        got = got.reshape([])
    close(got, want, dtype, f"paddle.tensordot {sa} {sb} {axes}", sc)
    if dtype == "float64" and a.size + b.size <= 24:
        xs = [small(data, sa), small(data, sb)]
        grad_ok(lambda u, v: torch.tensordot(u, v, dims=dims), *xs)


@FUZZ
@given(st.sampled_from(["float64", "float32", "int64"]), st.data())
def test_paddle_tensordot_same_axes(dtype, data):
    """Paddle's own axes forms (Paddle code): a 1-D list names the same axes of x and y,
    ``[ax]`` too, ``[ax, ay]`` with the shorter list extended from the longer; a size-1
    axis against another size is summed first (python/paddle/tensor/manipulation.py)."""
    r = data.draw(st.integers(0, 4))
    sa = list(data.draw(st.lists(dims3, min_size=r, max_size=r)))
    ax = list(data.draw(st.permutations(range(r))))[: data.draw(st.integers(0, r))]
    sb = [s if d in ax else data.draw(dims3) for d, s in enumerate(sa)]
    sb += data.draw(st.lists(dims3, max_size=1))  # y may have more dims
    for d in ax:  # broadcast: a size 1 on one side
        if data.draw(st.integers(0, 3)) == 0:
            if data.draw(st.booleans()):
                sa[d] = 1
            else:
                sb[d] = 1
    (a, b), (ta, tb) = ops_of(data, dtype, tuple(sa), tuple(sb))
    ea, eb = a, b
    for d in ax:  # Paddle sums the size-1 side's partner first
        if sa[d] == 1 and sb[d] != 1:
            eb = eb.sum(d, keepdims=True)
        elif sb[d] == 1 and sa[d] != 1:
            ea = ea.sum(d, keepdims=True)
    want = np.tensordot(ea, eb, axes=(ax, ax))
    k = data.draw(st.integers(0, len(ax)))
    axes = data.draw(
        st.sampled_from([list(ax), tuple(ax), [list(ax)], [list(ax), ax[:k]], [ax[:k], list(ax)]])
    )
    if not ax and isinstance(axes, list) and axes and data.draw(st.booleans()):
        axes = [[], []]
    CALLS["paddle.tensordot"] += 1
    got = pcall("tensordot", ta, tb, axes=axes)
    sc = mag(lambda u, v: np.tensordot(u, v, axes=(ax, ax)), ea, eb)
    close(got, want, dtype, f"paddle.tensordot {sa} {sb} axes={axes}", sc)
    if ax:  # the third argument positionally, in Paddle code
        close(pcall("tensordot", ta, tb, list(ax)), want, dtype, "paddle.tensordot (pos)", sc)


@FUZZ
@given(st.sampled_from(NUM), st.data())
def test_kron_cross(dtype, data):
    """kron of any two ranks (the smaller one padded with leading 1s), cross along a dim of
    size 3 with batch broadcasting (linalg.cross: last dim by default; cross with no dim:
    the first dim of size 3; Paddle's cross(axis=) the same, its default axis=9)."""
    sa, sb = batch_shape(data, 3), batch_shape(data, 3)
    (a, b), (ta, tb) = ops_of(data, dtype, sa, sb)
    CALLS["kron"] += 2
    close(torch.kron(ta, tb), np.kron(a, b), dtype, f"kron {sa} {sb}")
    close(pcall("kron", ta, tb), np.kron(a, b), dtype, f"paddle.kron {sa} {sb}")
    batch = batch_shape(data)
    d = data.draw(st.integers(0, len(batch)))
    shape = batch[:d] + (3,) + batch[d:]
    other = tuple(
        1 if data.draw(st.integers(0, 3)) == 0 and i != d else s for i, s in enumerate(shape)
    )
    (x, y), (tx, ty) = ops_of(data, dtype, shape, other)
    want = np.cross(x, y, axis=d)
    sc = 2 * np.abs(x).max(initial=0) * np.abs(y).max(initial=0)
    CALLS["cross"] += 4
    close(torch.linalg.cross(tx, ty, dim=d), want, dtype, f"linalg.cross dim={d}", sc)
    close(torch.cross(tx, ty, dim=d - len(shape)), want, dtype, "cross dim<0", sc)
    close(pcall("cross", tx, ty, axis=d), want, dtype, "paddle.cross axis", sc)
    first3 = shape.index(3) if other == shape else None
    if first3 is not None:  # no dim: the first dim of size 3 (same shapes)
        want3 = np.cross(x, y, axis=first3)
        close(torch.cross(tx, ty), want3, dtype, "cross (no dim)", sc)
        close(pcall("cross", tx, ty), want3, dtype, "paddle.cross (axis=9)", sc)
    if d == len(batch):
        close(torch.linalg.cross(tx, ty), want, dtype, "linalg.cross (last dim)", sc)
    if dtype == "float64":
        grad_ok(lambda u, v: torch.linalg.cross(u, v), small(data, (2, 3)), small(data, (1, 3)))
        grad_ok(lambda u, v: torch.kron(u, v), small(data, (2, 1)), small(data, (2,)))


def _pdist(x1, x2, p):
    """||x1[..., i, :] - x2[..., j, :]||_p, batch broadcast (PyTorch's cdist formula)."""
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(np.float64)
    if p == np.inf:
        return diff.max(-1, initial=0.0)
    return (diff**p).sum(-1) ** (1 / p)


MODES = [
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
]


@FUZZ
@given(st.sampled_from(["float64", "float32"]), st.sampled_from([0, 1, 2, 3.5, np.inf]), st.data())
def test_cdist_dist(dtype, p, data):
    batch = batch_shape(data)
    r1, r2, c = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4)), data.draw(dims3)
    if data.draw(st.integers(0, 5)) == 0:  # more than 25 rows: the matmul route for p = 2
        r1 = 26
    (x1, x2), (t1, t2) = ops_of(data, dtype, batch + (r1, c), bcast_batch(data, batch) + (r2, c))
    mode = data.draw(st.sampled_from(MODES))
    want = _pdist(x1, x2, p)
    CALLS["cdist"] += 1
    got = torch.cdist(t1, t2, p=p, compute_mode=mode)
    # the matmul route (p = 2) loses digits to cancellation: relative to the norms
    mm = p == 2 and (mode == "use_mm_for_euclid_dist" or (mode != MODES[2] and max(r1, r2) > 25))
    sc = 1 + np.abs(x1).max(initial=0) * np.abs(x2).max(initial=0) * (10 if mm else 1)
    if mm and dtype == "float64":
        sc = sc * 1e4  # sqrt of a cancelled sum of squares: ~sqrt(eps) absolute error
    close(got, want, dtype, f"cdist p={p} {mode}", sc if mm else None)
    # dist(x, y, p): the p-norm of x - y (broadcast); p = 0 counts non-zeros
    sx, sy = batch_shape(data, 3), batch_shape(data, 3)
    try:
        sh = np.broadcast_shapes(sx, sy)
    except ValueError:
        sy = sx
        sh = sx
    (u, v), (tu, tv) = ops_of(data, dtype, sx, sy)
    dlt = np.abs(np.broadcast_to(u, sh) - np.broadcast_to(v, sh)).ravel()
    pp = data.draw(st.sampled_from([p, -np.inf, 0.5]))
    CALLS["dist"] += 2
    if np.isinf(pp) and dlt.size == 0:  # max / min of nothing: PyTorch raises
        for call in (lambda: torch.dist(tu, tv, pp), lambda: pcall("dist", tu, tv, p=pp)):
            with pytest.raises(Exception, match="."):  # not a Rust panic (BaseException)
                call()
    else:
        if pp == 0:
            dw = float((dlt != 0).sum())
        elif np.isinf(pp):
            dw = dlt.max() if pp > 0 else dlt.min()
        else:
            dw = (dlt**pp).sum() ** (1 / pp)
        close(torch.dist(tu, tv, pp), np.float64(dw), dtype, f"dist p={pp} {sx} {sy}")
        close(pcall("dist", tu, tv, p=pp), np.float64(dw), dtype, f"paddle.dist p={pp}")
    if dtype == "float64" and p != 0:
        # distinct coordinates: away from the kinks of |.| and max
        g1 = np.arange(6.0).reshape(2, 3) * 0.37 + 0.5 + small(data, (2, 3), 0, 0.1)
        g2 = -np.arange(9.0).reshape(3, 3) * 0.29 - 0.5 - small(data, (3, 3), 0, 0.1)
        grad_ok(lambda a, b: torch.cdist(a, b, p=p, compute_mode=mode), g1, g2)
        grad_ok(lambda a, b: torch.dist(a, b, p), g1, g2[:1])


@FUZZ
@given(st.sampled_from(NUM), st.data())
def test_chains_trace_blocks(dtype, data):
    """chain_matmul / linalg.multi_dot (first / last may be vectors), trace of any 2-D
    shape (ints sum in int64), block_diag of 0-d / 1-d / 2-d blocks, cartesian_prod."""
    sizes = data.draw(st.lists(dims3, min_size=2, max_size=5))  # 1 to 4 matrices
    mats_np, mats = ops_of(data, dtype, *zip(sizes, sizes[1:]))
    CALLS["chain_matmul"] += 1
    want = np.linalg.multi_dot(mats_np) if len(mats_np) > 1 else mats_np[0]
    sc = np.linalg.multi_dot([np.abs(x) for x in mats_np]) if len(mats_np) > 1 else None
    close(torch.chain_matmul(*mats), want, dtype, "chain_matmul", sc)
    if len(mats) >= 2:  # multi_dot takes two or more; the first / last may be vectors
        vs_np, vs = list(mats_np), list(mats)
        if sizes[0] and data.draw(st.booleans()):  # a row of the first matrix
            vs_np[0], vs[0] = vs_np[0][0], vs[0][0]
        if sizes[-1] and data.draw(st.booleans()):  # a column of the last
            vs_np[-1], vs[-1] = vs_np[-1][:, 0], vs[-1][:, 0]
        CALLS["multi_dot"] += 1
        want = np.linalg.multi_dot(vs_np)
        sc = np.linalg.multi_dot([np.abs(x) for x in vs_np])
        close(torch.linalg.multi_dot(vs), want, dtype, f"multi_dot {sizes}", sc)
    # trace
    (t,), (tt_,) = ops_of(data, dtype, (data.draw(dims3), data.draw(dims3)))
    tdt = "int64" if dtype in ("int32", "int64") else dtype
    CALLS["trace"] += 1
    close(torch.trace(tt_), np.trace(t), tdt, "trace", np.trace(np.abs(t)))
    # block_diag: 0-d -> 1x1, 1-d -> a row, 2-d as it is; one dtype
    shapes = data.draw(
        st.lists(
            st.sampled_from([(), (0,), (2,), (1, 3), (2, 0), (0, 2), (2, 2)]),
            min_size=1,
            max_size=4,
        )
    )
    bl_np, bl = ops_of(data, dtype, *shapes)
    blocks = [np.atleast_2d(x) for x in bl_np]
    rows, cols = sum(x.shape[0] for x in blocks), sum(x.shape[1] for x in blocks)
    want = np.zeros((rows, cols), dtype=blocks[0].dtype)
    r = c = 0
    for x in blocks:
        want[r : r + x.shape[0], c : c + x.shape[1]] = x
        r, c = r + x.shape[0], c + x.shape[1]
    CALLS["block_diag"] += 1
    close(torch.block_diag(*bl), want, dtype, f"block_diag {shapes}")
    # cartesian_prod: the rows of itertools.product; one input is returned as it is
    lens = data.draw(st.lists(dims3, min_size=1, max_size=3))
    cp_np, cp = ops_of(data, dtype, *[(n,) for n in lens])
    if len(lens) == 1:
        want = cp_np[0]
    else:
        want = np.array(list(itertools.product(*cp_np)), dtype=cp_np[0].dtype)
        want = want.reshape(math.prod(lens), len(lens))
    CALLS["cartesian_prod"] += 1
    close(torch.cartesian_prod(*cp), want, dtype, f"cartesian_prod {lens}")
    if dtype == "float64":
        grad_ok(
            lambda a, b, c: torch.linalg.multi_dot([a, b, c]),
            small(data, (2,)),
            small(data, (2, 3)),
            small(data, (3, 2)),
        )
        grad_ok(lambda a, b: torch.block_diag(a, b), small(data, (1, 2)), small(data, ()))
        grad_ok(lambda a: torch.trace(a), small(data, (2, 3)))
        grad_ok(lambda a, b: torch.cartesian_prod(a, b), small(data, (2,)), small(data, (3,)))


# ---------------------------------------------------------------- regressions (open bugs)
def test_einsum_sublist_form_regression():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    got = torch.einsum(fg.tensor(a), [0, 1], fg.tensor(b), [1, 2], [0, 2])
    close(got, a @ b, "float64", "sublist einsum")
    got = torch.einsum(fg.tensor(a), [Ellipsis, 1], fg.tensor(b), [1, 2])
    close(got, a @ b, "float64", "sublist einsum, implicit output")


def test_einsum_diagonal_of_inf_regression():
    x = fg.tensor([[1.0, np.inf], [np.nan, 3.0]], dtype="float64")
    close(torch.einsum("ii->i", x), np.array([1.0, 3.0]), "float64", "ii->i")
    close(torch.einsum("ii", x), np.float64(4.0), "float64", "ii")
    # and a diagonal sums nothing: int32 stays int32 (PyTorch's dtype)
    assert torch.einsum("ii->i", fg.ones(2, 2, dtype=fg.int32)).dtype.name == "int32"


def test_einsum_one_then_zero_regression():
    got = torch.einsum("i,i->i", fg.ones(1, dtype=fg.float64), fg.ones(0, dtype=fg.float64))
    close(got, np.ones(0), "float64", "i,i->i (1 then 0)")
    got = torch.einsum("ij,j->i", fg.ones(2, 1, dtype=fg.float64), fg.ones(0, dtype=fg.float64))
    close(got, np.zeros(2), "float64", "ij,j->i (1 then 0)")
    got = torch.einsum("...ij,...jk->...ik", fg.ones(0, 1, 2, 2), fg.ones(0, 2, 2))
    assert tuple(got.shape) == (0, 0, 2, 2)  # ferrograd: (0, 1, 2, 2)


def test_addr_addbmm_beta_zero_nan_regression():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    t = fg.tensor(a, dtype="float64")
    nan = fg.tensor([[np.nan, np.inf]], dtype="float64")
    close(torch.addr(nan, t[0], t[1], beta=0), np.outer(a[0], a[1]), "float64", "addr")
    close(torch.addbmm(nan, t[None], t[None], beta=0), a @ a, "float64", "addbmm")


def test_addr_bool_regression():
    m = fg.tensor([[True, False]])
    got = torch.addr(m, fg.tensor([True, False]), fg.tensor([True, True]))
    assert got.dtype.name == "bool"
    assert got.tolist() == [[True, True], [True, False]]


def test_block_diag_zero_dim_dtype_regression():
    # PyTorch's result_type: a 0-d tensor of the same category does not widen
    got = torch.block_diag(fg.tensor(2.0, dtype=fg.float64), fg.ones(2, dtype=fg.float32))
    assert got.dtype.name == "float32"
    got = torch.block_diag(fg.tensor(2), fg.ones(2, dtype=fg.int32))
    assert got.dtype.name == "int32"


def test_cdist_inf_no_columns_regression():
    got = torch.cdist(fg.ones(2, 0, dtype=fg.float64), fg.ones(3, 0, dtype=fg.float64), p=np.inf)
    close(got, np.zeros((2, 3)), "float64", "cdist p=inf, no columns")


def test_paddle_outer_flattens_regression():
    a, b = np.arange(4.0).reshape(2, 2), np.arange(3.0)
    got = pcall("outer", fg.tensor(a, dtype="float64"), fg.tensor(b, dtype="float64"))
    close(got, np.outer(a.ravel(), b), "float64", "paddle.outer 2-D x 1-D")
    got = pcall("outer", fg.tensor(2.0, dtype="float64"), fg.tensor(b, dtype="float64"))
    close(got, np.outer([2.0], b), "float64", "paddle.outer 0-d x 1-D")


def test_paddle_tensordot_axes_regression():
    # Paddle: a 1-D list names the same axes of x and y; [[...]] one list for both;
    # a shorter list is extended from the longer; size-1 axes broadcast (summed first)
    x = np.arange(9.0).reshape(3, 3)
    y = np.arange(9.0).reshape(3, 3) + 1
    tx, ty = fg.tensor(x, dtype="float64"), fg.tensor(y, dtype="float64")
    close(pcall("tensordot", tx, ty, axes=[0, 1]), np.sum(x * y), "float64", "axes=[0, 1]")
    close(pcall("tensordot", tx, ty, axes=[[0]]), x.T @ y, "float64", "axes=[[0]]")
    a = np.arange(24.0).reshape(2, 3, 4)
    b = np.arange(60.0).reshape(5, 3, 4)
    got = pcall("tensordot", fg.tensor(a), fg.tensor(b), axes=[[1, 2], [1]])
    close(got, np.tensordot(a, b, axes=([1, 2], [1, 2])), "float64", "axes=[[1, 2], [1]]")
