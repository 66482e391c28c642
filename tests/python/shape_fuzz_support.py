"""Shared pieces of test_fuzz_shape_ops.py: operands of every dtype (complex128 too) seen
through random views, an exact comparison (NaN positions, signed zeros), the exact
gradient check of ops that move values (``grads_exact``: the op applied in NumPy to the
1-based positions of its inputs says where each output element came from; 0 marks a fill
value), the value-then-gradient runner ``run``, and NumPy references of PyTorch's rules
that NumPy spells differently (chunk, split, diag_embed)."""

from __future__ import annotations

import math

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
from fuzz_support import CALLS, REAL, elements, viewed
from hypothesis import strategies as st

# the dialect rule reads this global: calls made here (``either``) are PyTorch code
torch = fg

ALL = REAL + ["complex128"]
CAT = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2, "complex128": 3}
WIDTH = {"bool": 1, "int32": 4, "int64": 8, "float32": 4, "float64": 8, "complex128": 16}
shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


def promote(*dtypes: str) -> str:
    """PyTorch's result_type of tensors of the same dimensionedness: the highest category
    (bool < int < float < complex), then the widest."""
    return max(dtypes, key=lambda d: (CAT[d], WIDTH[d]))


# --- operands ---------------------------------------------------------------------------


@st.composite
def operand(draw, dtype, shape):
    """``(a, t)``: a NumPy array and an equal ferrograd tensor seen through a random view
    (fuzz_support.viewed; complex128: the same kinds of view built here)."""
    if dtype != "complex128":
        return draw(viewed(dtype, shape))
    shape, nd = tuple(shape), len(shape)
    kind = draw(st.sampled_from(["plain", "transposed", "sliced", "expanded"]))
    el = elements("float64")

    def arr(s):
        out = np.empty(s, np.complex128)  # parts set one by one: 1j * inf would be NaN
        out.real = draw(hnp.arrays("float64", s, elements=el))
        out.imag = draw(hnp.arrays("float64", s, elements=el))
        return out

    if kind == "transposed" and nd >= 2:
        big = arr(shape[::-1])
        return big.T, fg.tensor(big, dtype=dtype).permute(*range(nd - 1, -1, -1))
    if kind == "sliced" and nd >= 1:
        big = arr(tuple(max(2 * d - 1, 0) for d in shape))
        idx = tuple(slice(None, None, -2) for _ in shape)
        return big[idx], fg.tensor(big, dtype=dtype)[idx]
    if kind == "expanded" and nd >= 1 and 1 not in shape:
        d = draw(st.integers(0, nd - 1))
        base = arr(shape[:d] + (1,) + shape[d + 1 :])
        return np.broadcast_to(base, shape), fg.tensor(base, dtype=dtype).expand(list(shape))
    a = arr(shape)
    return a, fg.tensor(a, dtype=dtype)


def exact(got, want, dtype: str, what: str) -> None:
    """`got` equals `want` element for element: shape, dtype, NaN positions and the sign
    of every zero (complex numbers: of both parts)."""
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    g, w = got.detach().numpy(), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != NumPy's {w.shape}"
    if g.dtype.kind not in "fc":
        np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=what)
        return
    g = np.ascontiguousarray(g).astype(np.complex128 if g.dtype.kind == "c" else np.float64)
    w = np.ascontiguousarray(w).astype(g.dtype)
    g, w = g.view(np.float64), w.view(np.float64)  # complex: real and imaginary parts
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all(), f"{what}: NaN positions differ\n{g}\n{w}"
    np.testing.assert_array_equal(g[~nan], w[~nan], err_msg=what)
    assert (np.signbit(g) == np.signbit(w))[~nan].all(), f"{what}: zero signs\n{g}\n{w}"


def as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def refused(call, what: str) -> None:
    """PyTorch refuses: ferrograd must raise a Python exception (never a panic)."""
    CALLS["refused"] += 1
    try:
        call()
    except Exception as e:  # any Python exception (a Rust panic is not one), with a message
        assert str(e), f"{what}: an exception without a message"
        return
    raise AssertionError(f"{what}: PyTorch refuses this, ferrograd returned a value")


# --- exact gradients --------------------------------------------------------------------


@st.composite
def grad_input(draw, shape, offset):
    """``(leaf, view, pos)``: a float64 leaf with integer values, a view of it with
    `shape` (plain, transposed, a reversed stepped slice, or an expand of a size-1 dim),
    and the NumPy array of the view's 1-based positions in the leaf, plus `offset`."""
    shape, nd = tuple(shape), len(shape)
    kind = draw(st.sampled_from(["plain", "transposed", "sliced", "expanded"]))
    if kind == "transposed" and nd >= 2:
        base, view = shape[::-1], lambda x: x.permute(*range(nd - 1, -1, -1))
        npview = np.transpose
    elif kind == "sliced" and nd >= 1:
        base = tuple(max(2 * d - 1, 0) for d in shape)
        idx = tuple(slice(None, None, -2) for _ in shape)
        view, npview = (lambda x: x[idx]), (lambda p: p[idx])
    elif kind == "expanded" and nd >= 1:
        d = draw(st.integers(0, nd - 1))
        base = shape[:d] + (1,) + shape[d + 1 :]
        view, npview = (lambda x: x.expand(list(shape))), (lambda p: np.broadcast_to(p, shape))
    else:
        base, view, npview = shape, (lambda x: x), (lambda p: p)
    n = math.prod(base)
    vals = draw(hnp.arrays(np.int64, base, elements=st.integers(-9, 9))).astype(np.float64)
    leaf = fg.tensor(vals, dtype="float64")
    leaf.requires_grad = True
    pos = np.arange(offset + 1, offset + n + 1, dtype=np.int64).reshape(base)
    return leaf, view(leaf), npview(pos)


def grads_exact(data, fcall, ncall, in_shapes, what: str) -> None:
    """The gradient of ``fcall`` (float64 inputs seen through views) equals the
    scatter-add of integer upstream gradients to the positions ``ncall`` moved each
    output from (see the module docstring); one time in three the double backward too."""
    ins, off = [], 0
    for s in in_shapes:
        ins.append(data.draw(grad_input(s, off)))
        off += math.prod(ins[-1][0].shape)
    outs = as_list(fcall([v for _, v, _ in ins]))
    where = [np.asarray(p) for p in as_list(ncall([p for _, _, p in ins]))]
    assert len(outs) == len(where), f"{what}: {len(outs)} outputs, NumPy's {len(where)}"
    for o, p in zip(outs, where):
        assert tuple(o.shape) == p.shape, f"{what}: shape {list(o.shape)} != {p.shape}"
    ups = [data.draw(hnp.arrays(np.int64, p.shape, elements=st.integers(-4, 4))) for p in where]
    total = np.zeros(off + 1)
    for p, u in zip(where, ups):
        np.add.at(total, p.reshape(-1), u.reshape(-1).astype(np.float64))
    second = data.draw(st.integers(0, 2)) == 0
    gouts = [fg.tensor(u.astype(np.float64), dtype="float64") for u in ups]
    for g in gouts:
        g.requires_grad = second
    leaves = [leaf for leaf, _, _ in ins]
    live = [i for i, o in enumerate(outs) if o.requires_grad]
    CALLS["grad"] += 1
    if not live:  # nothing differentiable came out: no position may be reached
        assert not total[1:].any(), f"{what}: outputs need no grad, expected {total}"
        return
    got = fg.autograd.grad(
        [outs[i] for i in live],
        leaves,
        [gouts[i] for i in live],
        allow_unused=True,
        create_graph=second,
    )
    off = 0
    for leaf, g in zip(leaves, got):
        n = math.prod(leaf.shape)
        want = total[off + 1 : off + n + 1].reshape(tuple(leaf.shape))
        off += n
        if g is None:
            assert not want.any(), f"{what}: no gradient, expected {want}"
            continue
        exact(g, want, "float64", f"{what} gradient")
    if not second:
        return
    # d(grad . v)/d(upstream) = v gathered at the positions each output came from
    CALLS["double backward"] += 1
    pairs = [(g, leaf) for g, leaf in zip(got, leaves) if g is not None and g.requires_grad]
    if not pairs:
        return
    vs = [
        data.draw(hnp.arrays(np.int64, tuple(leaf.shape), elements=st.integers(-4, 4)))
        for _, leaf in pairs
    ]
    flat = np.zeros(off + 1)
    off = 0
    for leaf, _, _ in ins:
        n = math.prod(leaf.shape)
        for (_, lf), v in zip(pairs, vs):
            if lf is leaf:
                flat[off + 1 : off + n + 1] = v.reshape(-1)
        off += n
    gg = fg.autograd.grad(
        [g for g, _ in pairs],
        [gouts[i] for i in live],
        [fg.tensor(v.astype(np.float64), dtype="float64") for v in vs],
        allow_unused=True,
    )
    for i, g2 in zip(live, gg):
        want = flat[where[i]]
        if g2 is None:
            assert not want.any(), f"{what}: no double backward, expected {want}"
            continue
        exact(g2, want, "float64", f"{what} double backward")


def run(data, dtypes, in_shapes, fcall, ncall, what, grad=True, res=None):
    """Compares ``fcall`` on tensors of `dtypes` / `in_shapes` (random views) with
    ``ncall`` on the NumPy arrays cast to the result dtype `res` (default: the promoted
    one), output by output; then, with `grad`, the exact gradient check."""
    ops = [data.draw(operand(d, s)) for d, s in zip(dtypes, in_shapes)]
    res = res or promote(*dtypes)
    got = as_list(fcall([t for _, t in ops]))
    want = as_list(ncall([np.asarray(a).astype(res) for a, _ in ops]))
    what = f"{what} on {[f'{d}{list(s)}' for d, s in zip(dtypes, in_shapes)]}"
    CALLS["value"] += 1
    assert len(got) == len(want), f"{what}: {len(got)} outputs, NumPy gives {len(want)}"
    for g, w in zip(got, want):
        exact(g, w, res, what)
    if grad:
        grads_exact(data, fcall, ncall, in_shapes, what)


def either(method, name, *args):
    """The call ``x.name(*args)`` (`method`) or ``fg.name(x, *args)`` on the first tensor."""
    if method:
        return lambda ts: getattr(ts[0], name)(*args)
    return lambda ts: getattr(fg, name)(ts[0], *args)


def dim_of(data, nd):
    """A dim of an `nd`-dim tensor, negative ones too (0-d: 0 or -1)."""
    return data.draw(st.integers(-max(nd, 1), max(nd, 1) - 1))


def some_dims(data, nd, min_size=0):
    """Distinct dims of an `nd`-dim tensor, in random order, some negative."""
    if nd == 0:
        return []
    picked = data.draw(
        st.lists(st.integers(0, nd - 1), unique=True, min_size=min_size, max_size=nd)
    )
    return [d - nd if data.draw(st.booleans()) else d for d in picked]


def reshape_target(data, shape):
    """A new shape of as many elements as `shape`, one entry sometimes -1 (inferred)."""
    n = math.prod(shape)
    if n == 0:
        target = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
        target[data.draw(st.integers(0, len(target) - 1))] = 0
        return target  # no -1: PyTorch refuses an inferred size of nothing
    target, left = [], n
    for _ in range(data.draw(st.integers(0, 3))):
        f = data.draw(st.sampled_from([k for k in range(1, left + 1) if left % k == 0]))
        target.append(f)
        left //= f
    target.append(left)
    target = data.draw(st.permutations(target + [1] * data.draw(st.integers(0, 1))))
    if data.draw(st.booleans()):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    return list(target)


def broadcast_target(data, shape):
    """A shape `shape` broadcasts to: new leading dims, size-1 dims widened (to 0 too)."""
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    return lead + [data.draw(st.integers(0, 3)) if s == 1 else s for s in shape]


def torch_chunk(x, n, d):
    """PyTorch's chunk: pieces of ceil(size / n) (so maybe fewer than n); a size-0 dim
    gives n empty pieces (TensorShape.cpp, chunk)."""
    size = x.shape[d]
    if size == 0:
        return [x] * n
    s = -(-size // n)
    return np.split(x, range(s, size, s), axis=d)


def torch_split_size(x, s, d):
    """PyTorch's split(int): pieces of `s`, the last one shorter; one piece of a size-0
    dim (split_size 0 too: TensorShape.cpp, split)."""
    size = x.shape[d]
    return [x] if size == 0 else np.split(x, range(s, size, s), axis=d)


def diag_embed_ref(x, offset, d1, d2):
    """PyTorch's diag_embed: the last dim of `x` written on the `offset` diagonal of the
    planes (d1, d2) of a new tensor of one more dim, zeros elsewhere."""
    m = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (m, m), x.dtype)
    i = np.arange(x.shape[-1])
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = x
    return np.moveaxis(out, [-2, -1], [d1, d2])
