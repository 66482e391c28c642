"""Differential fuzzer for in-place ops on views: random chains of views (``view``,
``reshape``, ``transpose``, ``t``, ``permute``, ``narrow``, stepped slices, ``select``,
``unsqueeze``, ``squeeze``, ``diagonal``, ``as_strided``, ``unfold``, ``split`` / ``chunk``
pieces, ``x.T``) written in place (``add_``, ``mul_``, ``copy_``, ``fill_``, ``clamp_``,
``index_fill_``, ``masked_fill_``, ``x[i] = v``, ``+=`` ...) must change the base exactly
as the same writes through NumPy's views change NumPy's base. Gradients through such
writes (the base a non-leaf that requires grad) are compared with central differences of
the NumPy replay; PyTorch's rules around them (leaf writes, saved tensors modified in
place, ``detach()`` / ``.data`` and the version counter, expanded views, ``no_grad``),
memory shared with NumPy, and Paddle's in-place methods, ``set_value`` and ``assign``
are checked against the peers' documented behaviour.
Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ, assert_same
from hypothesis import assume, given
from hypothesis import strategies as st

# code in PyTorch's and Paddle's dialect (docs/dialects.md: the import line decides)
_DIALECT_SRC = """
def numpy_of(t):
    return t.numpy()

def data_add_(t, v):
    t.data.add_(v)

def real_of(z):
    return z.real

def imag_of(z):
    return z.imag

def leaf_add_(t):
    t.add_(1.0)

def split_piece_mul_(t):
    t.split(2)[0].mul_(2.0)
"""
TORCH: dict = {"torch": fg, "__name__": "fuzz_inplace_torch_code"}
exec(compile(_DIALECT_SRC, "<torch code>", "exec"), TORCH)
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_inplace_paddle_code"}
exec(compile(_DIALECT_SRC, "<paddle code>", "exec"), PADDLE)

small = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
vals = st.floats(-4.0, 4.0, width=64)


def offset_of(nv: np.ndarray, root: np.ndarray) -> int:
    """Element offset of the NumPy view `nv` into the contiguous float64 `root`."""
    return (nv.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // 8


def as_strided_np(root: np.ndarray, size, stride, offset: int) -> np.ndarray:
    """A writable NumPy view of `root`'s memory (element strides and offset)."""
    flat = root.reshape(-1)
    return np.lib.stride_tricks.as_strided(
        flat[offset:], shape=tuple(size), strides=tuple(8 * s for s in stride)
    )


# -- view steps: (name, NumPy view of (root, nv), ferrograd view of tv) ------------------


@st.composite
def view_step(draw, shape, contiguous: bool, root_numel: int, multi: bool = True):
    """One view of an array of `shape` (C-contiguous or not), as a pair of functions;
    `multi` False: no split/chunk pieces (for the gradient test)."""
    nd = len(shape)
    # (as_strided of a view may reach outside it: test_as_strided_outside_view_grad_regression)
    kinds = ["slice", "unsqueeze", "as_strided"]
    if nd >= 1:
        kinds += ["transpose", "permute", "narrow", "select"]
        kinds += ["unfold"]  # a view (test_unfold_is_a_view_regression)
        kinds += ["split", "chunk"] if multi else []
    if nd <= 2:
        kinds.append("t")  # 0-d / 1-D: an alias view (test_t_of_1d_is_a_view_regression)
    if nd == 2:
        kinds.append("T")
    if nd >= 2:
        kinds.append("diagonal")
    if 1 in shape:
        kinds.append("squeeze")
    if contiguous:
        kinds += ["view", "reshape"]
    kind = draw(st.sampled_from(kinds))
    dim = draw(st.integers(0, nd - 1)) if nd else 0
    n = shape[dim] if nd else 0
    if kind in ("view", "reshape"):
        total = int(np.prod(shape))
        new: list[int] = []
        rest = total
        for _ in range(draw(st.integers(0, 3))):
            divs = [d for d in range(1, rest + 1) if rest % d == 0] if rest else [0, 1, 2]
            new.append(draw(st.sampled_from(divs)))
            rest = rest // new[-1] if new[-1] else rest
        if rest != 1 or total == 0:
            new.append(-1 if total and draw(st.booleans()) else (rest if total else 0))
        if total == 0 and -1 not in new and int(np.prod(new)) != 0:
            new = [0]
        return kind, lambda r, a: a.reshape(new), lambda t: getattr(t, kind)(new)
    if kind == "transpose":
        d1 = draw(st.integers(-nd, nd - 1))
        return kind, lambda r, a: np.swapaxes(a, dim, d1), lambda t: t.transpose(dim, d1)
    if kind == "permute":
        perm = draw(st.permutations(range(nd)))
        return kind, lambda r, a: np.transpose(a, perm), lambda t: t.permute(*perm)
    if kind in ("t", "T"):
        return kind, lambda r, a: a.T, (lambda t: t.t()) if kind == "t" else (lambda t: t.T)
    if kind == "narrow":
        start = draw(st.integers(0, n))
        length = draw(st.integers(0, n - start))
        key = (slice(None),) * dim + (slice(start, start + length),)
        return kind, lambda r, a: a[key], lambda t: t.narrow(dim, start, length)
    if kind == "slice":
        key = []
        for d in shape[: draw(st.integers(0, nd))]:
            lo = draw(st.one_of(st.none(), st.integers(-d - 1, d + 1)))
            hi = draw(st.one_of(st.none(), st.integers(-d - 1, d + 1)))
            key.append(slice(lo, hi, draw(st.sampled_from([None, 1, 2, 3]))))
        tkey = tuple(key)
        nkey = tkey + (Ellipsis,)  # NumPy: a view even when every dim is indexed
        return kind, lambda r, a: a[nkey], lambda t: t[tkey]
    if kind == "select":
        assume(n > 0)
        i = draw(st.integers(-n, n - 1))
        key = (slice(None),) * dim + (i, Ellipsis)
        return kind, lambda r, a: a[key], lambda t: t.select(dim, i)
    if kind == "unsqueeze":
        d = draw(st.integers(-nd - 1, nd))
        return kind, lambda r, a: np.expand_dims(a, d), lambda t: t.unsqueeze(d)
    if kind == "squeeze":
        d = draw(st.sampled_from([i for i, s in enumerate(shape) if s == 1] + [None]))
        if d is None:
            return kind, lambda r, a: np.squeeze(a), lambda t: t.squeeze()
        return kind, lambda r, a: np.squeeze(a, d), lambda t: t.squeeze(d)
    if kind == "diagonal":
        d1, d2 = draw(st.permutations(range(nd)))[:2]
        off = draw(st.integers(-3, 3))

        def diag_np(r, a):
            # NumPy's diagonal is read-only: the same elements as a writable strided view
            rows, cols = a.shape[d1], a.shape[d2]
            r0, c0 = max(0, -off), max(0, off)
            length = max(0, min(rows - r0, cols - c0))
            key = [slice(None)] * a.ndim
            key[d1], key[d2] = slice(min(r0, rows), None), slice(min(c0, cols), None)
            sub = a[tuple(key)]
            keep = [i for i in range(a.ndim) if i not in (d1, d2)]
            size = [a.shape[i] for i in keep] + [length]
            strides = [a.strides[i] for i in keep] + [a.strides[d1] + a.strides[d2]]
            return np.lib.stride_tricks.as_strided(sub, size, strides)

        return kind, diag_np, lambda t: t.diagonal(off, d1, d2)
    if kind == "unfold":
        size = draw(st.integers(0, n)) if n else 0
        step = draw(st.integers(max(size, 1), max(size, 1) + 2))  # no overlap: writable

        def unfold_np(r, a):
            count = (a.shape[dim] - size) // step + 1
            shp = a.shape[:dim] + (count,) + a.shape[dim + 1 :] + (size,)
            st_ = list(a.strides)
            st_[dim] *= step
            return np.lib.stride_tricks.as_strided(a, shp, tuple(st_) + (a.strides[dim],))

        return kind, unfold_np, lambda t: t.unfold(dim, size, step)
    if kind in ("split", "chunk"):
        assume(n > 0)
        k = draw(st.integers(1, n + 1))
        size = k if kind == "split" else -(-n // k)  # chunk: pieces of ceil(n / k)
        j = draw(st.integers(0, -(-n // size) - 1))
        key = (slice(None),) * dim + (slice(j * size, (j + 1) * size),)
        if kind == "split":
            return kind, lambda r, a: a[key], lambda t: t.split(size, dim)[j]
        return kind, lambda r, a: a[key], lambda t: t.chunk(k, dim)[j]
    # as_strided: an injective (writable) layout inside the root's memory
    assume(root_numel > 0)
    sizes = draw(st.lists(st.integers(1, 3), max_size=3))
    strides, inner = [], 1
    for s in sizes[::-1]:
        strides.append(inner * draw(st.integers(1, 2)))
        inner = strides[-1] * s
    strides = strides[::-1]
    order = draw(st.permutations(range(len(sizes))))
    sizes, strides = [sizes[i] for i in order], [strides[i] for i in order]
    extent = sum((s - 1) * d for s, d in zip(sizes, strides)) + 1
    assume(extent <= root_numel)
    off = draw(st.integers(0, root_numel - extent))
    return (
        kind,
        lambda r, a: as_strided_np(r, sizes, strides, off),
        lambda t: t.as_strided(sizes, strides, off),
    )


@st.composite
def view_chain(draw, shape, max_len: int = 3, multi: bool = True):
    """A chain of 1..max_len views of a contiguous array of `shape`, replayed on NumPy as
    it is drawn: ``[(name, np_fn, fg_fn)]``."""
    root = np.zeros(shape)
    nv, steps = root, []
    for _ in range(draw(st.integers(1, max_len))):
        contiguous = nv.flags.c_contiguous
        step = draw(view_step(nv.shape, contiguous, root.size, multi))
        steps.append(step)
        nv = step[1](root, nv)
    return steps


def apply_chain(steps, root_np, root_fg):
    """The chain's last view on both sides, checking shape, offset and strides per step."""
    nv, tv = root_np, root_fg
    for name, np_fn, fg_fn in steps:
        nv, tv = np_fn(root_np, nv), fg_fn(tv)
        assert tuple(tv.shape) == nv.shape, f"{name}: shape {tuple(tv.shape)} != {nv.shape}"
        if nv.size:
            assert tv.storage_offset() == offset_of(nv, root_np), f"{name}: storage offset"
            got = [s for s, d in zip(tv.stride(), tv.shape) if d > 1]
            want = [s // 8 for s, d in zip(nv.strides, nv.shape) if d > 1]
            assert got == want, f"{name}: strides {tv.stride()} vs NumPy {nv.strides}"
    return nv, tv


# -- in-place ops: (name, NumPy write, ferrograd write) ---------------------------------


@st.composite
def broadcastable(draw, shape, elements=vals):
    """An array that broadcasts to `shape` (trailing dims kept or set to 1)."""
    keep = draw(st.integers(0, len(shape)))
    shp = tuple(d if draw(st.booleans()) else 1 for d in shape[len(shape) - keep :])
    return draw(hnp.arrays(np.float64, shp, elements=elements))


@st.composite
def inplace_op(draw, shape, wrap=fg.tensor):
    """An in-place write into a view of `shape`: ``(name, np_fn(nv, w), fg_fn(tv, w), w)``
    with `w` the operand array (None when the op takes only numbers); `wrap` turns it into
    the ferrograd operand (a leaf that requires grad in the gradient test)."""
    nd = len(shape)
    kinds = ["add_", "sub_", "mul_", "div_", "copy_", "fill_", "zero_", "clamp_"]
    kinds += ["masked_fill_", "setitem", "iadd", "imul"]
    kinds += ["index_fill_"] if nd else []
    kind = draw(st.sampled_from(kinds))
    c = draw(vals)
    if kind in ("add_", "sub_", "mul_", "copy_", "iadd", "imul", "div_"):
        away = st.floats(0.5, 2.0).map(lambda v: v * draw(st.sampled_from([-1, 1])))
        w = draw(broadcastable(shape, away if kind == "div_" else vals))
        alpha = draw(st.sampled_from([1.0, -0.5, 2.0]))

        def np_fn(a, w):
            if kind in ("add_", "iadd"):
                a += (alpha if kind == "add_" else 1.0) * w
            elif kind == "sub_":
                a -= w
            elif kind in ("mul_", "imul"):
                a *= w
            elif kind == "div_":
                a /= w
            else:
                a[...] = w

        def fg_fn(t, w):
            if kind == "iadd":
                t2 = t
                t2 += wrap(w)
                assert t2 is t, "+= must return the same tensor"
            elif kind == "imul":
                t2 = t
                t2 *= wrap(w)
                assert t2 is t, "*= must return the same tensor"
            elif kind == "add_":
                t.add_(wrap(w), alpha=alpha)
            else:
                getattr(t, kind)(wrap(w))

        return kind, np_fn, fg_fn, w
    if kind == "fill_":
        return kind, lambda a, w: a.fill(c), lambda t, w: t.fill_(c), None
    if kind == "zero_":
        return kind, lambda a, w: a.fill(0.0), lambda t, w: t.zero_(), None
    if kind == "clamp_":
        lo, hi = sorted((c, draw(vals)))
        which = draw(st.sampled_from(["both", "min", "max"]))
        bounds = {"both": (lo, hi), "min": (lo, None), "max": (None, hi)}[which]

        def np_clamp(a, w):
            if bounds[0] is not None:
                np.maximum(a, bounds[0], out=a)
            if bounds[1] is not None:
                np.minimum(a, bounds[1], out=a)

        np_clamp.bounds = bounds  # type: ignore[attr-defined]
        return kind, np_clamp, lambda t, w: t.clamp_(*bounds), None
    if kind == "masked_fill_":
        keep = draw(st.integers(0, nd))
        mshape = tuple(d if draw(st.booleans()) else 1 for d in shape[nd - keep :])
        mask = draw(hnp.arrays(np.bool_, mshape))

        def np_mask(a, w):
            a[...] = np.where(np.broadcast_to(mask, a.shape), c, a)

        return kind, np_mask, lambda t, w: t.masked_fill_(fg.tensor(mask), c), None
    if kind == "index_fill_":
        dim = draw(st.integers(0, nd - 1))
        idx = draw(st.lists(st.integers(0, max(shape[dim] - 1, 0)), unique=True))
        idx = idx if shape[dim] else []
        key = (slice(None),) * dim + (idx,)

        def np_index(a, w):
            a[key] = c

        index = fg.tensor(np.array(idx, dtype=np.int64))
        return kind, np_index, lambda t, w: t.index_fill_(dim, index, c), None
    # setitem: an int or a slice of dim 0 (or `...` for a 0-d view), then a tensor value
    if nd and shape[0] and draw(st.booleans()):
        key: object = draw(st.integers(-shape[0], shape[0] - 1))
    elif nd:
        key = slice(draw(st.integers(0, shape[0])), None, draw(st.sampled_from([1, 2])))
    else:
        key = ...
    region = np.zeros(shape)[key].shape
    w = draw(broadcastable(region))

    def np_set(a, w):
        a[key] = w

    def fg_set(t, w):
        t[key] = wrap(w)

    return kind, np_set, fg_set, w


# -- 1. writes through views reach the base as NumPy's do ------------------------------


@FUZZ
@given(st.data())
def test_inplace_on_view_chain_matches_numpy(data):
    shape = data.draw(small)
    base = data.draw(hnp.arrays(np.float64, shape, elements=vals))
    steps = data.draw(view_chain(shape))
    root_np, root_fg = base.copy(), fg.tensor(base)
    nv, tv = apply_chain(steps, root_np, root_fg)
    name, np_fn, fg_fn, w = data.draw(inplace_op(nv.shape))
    before = root_fg._version
    np_fn(nv, w)
    fg_fn(tv, w)
    what = f"{[s[0] for s in steps]} then {name}"
    CALLS["inplace-view"] += 1
    assert_same(root_fg, root_np, "float64", what + ": base")
    assert_same(tv, nv, "float64", what + ": view")
    # one version counter for the family; every in-place write bumps it (PyTorch's rule)
    assert root_fg._version > before, what + ": version not bumped"
    assert tv._version == root_fg._version, what + ": view and base count apart"


@FUZZ
@given(st.data())
def test_base_writes_seen_by_views_and_expanded_views(data):
    """A write into the base shows through every view (an expanded one too); a write of
    several values into an expanded view is refused and leaves it unchanged (PyTorch's
    "more than one element of the written-to tensor refers to a single memory
    location", at::assert_no_internal_overlap), one value (fill_, zero_) is taken."""
    shape = data.draw(small)
    base = data.draw(hnp.arrays(np.float64, shape, elements=vals))
    steps = data.draw(view_chain(shape))
    root_np, root_fg = base.copy(), fg.tensor(base)
    nv, tv = apply_chain(steps, root_np, root_fg)
    c = data.draw(vals)
    root_np[...] = root_np * 2 + c
    root_fg.mul_(2).add_(c)
    CALLS["base-write"] += 1
    assert_same(tv, nv, "float64", f"{[s[0] for s in steps]}: view after a base write")
    # expand a size-1 dim (or a new leading one) of the view
    ex_shape = (data.draw(st.integers(2, 3)),) + nv.shape
    ev, en = tv.expand(*ex_shape), np.broadcast_to(nv, ex_shape)
    assert_same(ev, en, "float64", "expand")
    if nv.size == 0:
        return
    snapshot = root_fg.clone()
    op = data.draw(st.sampled_from(["add_", "mul_", "copy_", "clamp_", "iadd", "exp_"]))
    with pytest.raises(RuntimeError, match="single memory location"):
        if op == "copy_":
            ev.copy_(fg.tensor(np.arange(np.prod(ex_shape), dtype=np.float64)).reshape(ex_shape))
        elif op == "clamp_":
            ev.clamp_(-1.0, 1.0)
        elif op == "iadd":
            ev += 1.0
        elif op == "exp_":
            ev.exp_()
        else:
            getattr(ev, op)(fg.tensor(np.full(ex_shape, 1.5)))
    assert_same(root_fg, snapshot.numpy(), "float64", f"expanded {op} left a trace")
    ev.fill_(c)  # one value: every element sharing memory gets it
    nv[...] = c
    assert_same(root_fg, root_np, "float64", "fill_ through an expanded view")


# -- 2. gradients through in-place writes on views, vs central differences --------------


def numeric_grads(f, arrays, eps=1e-6):
    """Central differences of the scalar NumPy function `f(*arrays)`."""
    out = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi = [x.copy() for x in arrays]
            lo = [x.copy() for x in arrays]
            hi[i][idx] += eps
            lo[i][idx] -= eps
            g[idx] = (f(*hi) - f(*lo)) / (2 * eps)
        out.append(g)
    return out


@FUZZ
@given(st.data())
def test_grad_through_inplace_on_views(data):
    shape = data.draw(small)
    x = data.draw(hnp.arrays(np.float64, shape, elements=vals))
    k = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(0.5, 2.0)))
    # multiple-view pieces (split/chunk) refuse in-place writes with grad: tested below
    steps = data.draw(view_chain(shape, multi=False))
    vshape = apply_chain(steps, np.zeros(shape), fg.zeros(list(shape), dtype=fg.float64))[0].shape
    name, np_fn, fg_fn, w = data.draw(inplace_op(vshape, wrap=lambda a: a))
    c1 = data.draw(hnp.arrays(np.float64, shape, elements=vals))
    c2 = data.draw(hnp.arrays(np.float64, vshape, elements=vals))
    w0 = np.zeros(0) if w is None else w

    def forward_np(xa, wa):
        root = np.array(xa * k)  # (a 0-d product is a NumPy scalar)
        nv = root
        for _, step_np, _ in steps:
            nv = step_np(root, nv)
        if name == "clamp_" and nv.size:
            # no value at a kink of clamp (finite differences would straddle it)
            assume(all(np.abs(nv - b).min() > 1e-4 for b in np_fn.bounds if b is not None))
        np_fn(nv, wa if w is not None else None)
        return float((root * c1).sum() + (nv * c2).sum())

    want = forward_np(x, w0)
    xt = fg.tensor(x, requires_grad=True)
    wt = fg.tensor(w0, requires_grad=True)
    y = xt * fg.tensor(k)  # a non-leaf base that requires grad
    v = y
    for _, _, step_fg in steps:
        v = step_fg(v)
    fg_fn(v, wt if w is not None else None)
    loss = (y * fg.tensor(c1)).sum() + (v * fg.tensor(c2)).sum()
    what = f"{[s[0] for s in steps]} then {name}"
    assert abs(loss.item() - want) <= 1e-9 * (1 + abs(want)), what + ": forward"
    loss.backward()
    gx, gw = numeric_grads(forward_np, [x, w0])
    CALLS["inplace-grad"] += 1
    np.testing.assert_allclose(xt.grad.numpy(), gx, rtol=1e-6, atol=1e-6, err_msg=what + " dx")
    if w is not None:
        np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-6, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("code", [TORCH, PADDLE], ids=["torch", "paddle"])
def test_split_piece_written_with_grad_is_refused(code):
    """PyTorch refuses an in-place write into one of several views an op returned when it
    requires grad (CreationMeta::MULTI_OUTPUT_NODE, torch/csrc/autograd/variable.cpp
    handle_view_on_rebase): "...returns multiple views..."; the fuzz above leaves them out.
    ferrograd refuses it in both dialects when the base has history."""
    y = fg.ones(4, dtype=fg.float64, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="multiple views"):
        code["split_piece_mul_"](y)
    assert y.tolist() == [1.0] * 4


# -- 3. PyTorch's rules: leaves, saved tensors, detach / .data, no_grad -----------------

SAVING = {  # op -> whether its backward needs the (input or output) values
    "sin": (lambda y: y.sin(), np.cos, True),
    "exp": (lambda y: y.exp(), np.exp, True),
    "square": (lambda y: y * y, lambda a: 2 * a, True),
    "add": (lambda y: y + 3.0, np.ones_like, False),
    "scale": (lambda y: y * 2.5, lambda a: np.full_like(a, 2.5), False),
    "neg": (lambda y: -y, lambda a: -np.ones_like(a), False),
}


@FUZZ
@given(
    st.sampled_from(sorted(SAVING)),
    st.sampled_from(["base", "view", "detach", "data", "output"]),
    hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(-2, 2)),
)
def test_saved_tensor_modified_in_place(op, target, x):
    """A tensor an op saved for backward, modified in place (directly, through a view,
    through ``detach()`` or, outside PyTorch code, ``.data``: the same counter), makes
    backward raise "modified by an inplace operation" (PyTorch: SavedVariable::unpack's
    version check); an op that saved nothing computes the gradient from its own rule."""
    fn, dfn, saves = SAVING[op]
    xt = fg.tensor(x, requires_grad=True)
    y = xt * 1.0
    z = fn(y)
    before = y._version
    victim = {
        "base": lambda: y,
        "view": lambda: y[::2],
        "detach": lambda: y.detach(),
        "data": lambda: y.data,
        "output": lambda: z.detach(),
    }[target]()
    victim.add_(1.0)
    shared = target != "output"  # z's own memory, not y's
    assert (y._version > before) == shared, f"{target}: y's version {before} -> {y._version}"
    if target == "detach":
        np.testing.assert_allclose(y.numpy()[:], x + 1.0)  # same memory
    # exp saves its output; sin/square their input; the rest nothing
    stale = saves and (shared != (op == "exp"))
    CALLS["saved-version"] += 1
    if stale:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()
        return
    z.sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), dfn(x), rtol=1e-12, atol=1e-12)


def test_torch_data_is_out_of_autograds_sight():
    """PyTorch code: ``x.data`` has its own counter (torch's VariableHooks::tensor_data
    gives a shallow copy with a new version counter), so a write through it is not seen
    and backward uses the new values; Paddle code shares ``inplace_version``
    (docs/dialects.md)."""
    x = fg.tensor([0.5, 1.0], dtype=fg.float64, requires_grad=True)
    y = x * 1.0
    z = y.sin()
    TORCH["data_add_"](y, 1.0)
    assert y._version == 0
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.5, 2.0]), rtol=1e-12)
    y = x * 1.0
    z = y.sin()
    PADDLE["data_add_"](y, 1.0)
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


@pytest.mark.parametrize("how", ["add_", "setitem", "view", "copy_"])
def test_leaf_in_place_rules(how):
    """An in-place write into a leaf that requires grad (or a view of it) raises
    (PyTorch: check_inplace "a leaf Variable that requires grad is being used in an
    in-place operation"; Paddle: ValueError "Leaf Var ... can't use inplace strategy");
    under ``no_grad`` it is allowed, bumps the version and the leaf stays a leaf."""
    w = fg.tensor([1.0, 2.0, 3.0], dtype=fg.float64, requires_grad=True)
    write = {
        "add_": lambda t: t.add_(1.0),
        "setitem": lambda t: t.__setitem__(0, 5.0),
        "view": lambda t: t[1:].mul_(2.0),
        "copy_": lambda t: t.copy_(fg.zeros(3, dtype=fg.float64)),
    }[how]
    with pytest.raises(RuntimeError, match="leaf"):
        write(w)
    assert w.tolist() == [1.0, 2.0, 3.0] and w._version == 0
    with pytest.raises(ValueError):  # Paddle's class (AutogradUsageError is both)
        PADDLE["leaf_add_"](w)
    want = np.array([1.0, 2.0, 3.0])
    {"add_": lambda: want.__iadd__(1.0), "setitem": lambda: want.__setitem__(0, 5.0),
     "view": lambda: want[1:].__imul__(2.0), "copy_": lambda: want.fill(0.0)}[how]()  # fmt: skip
    with fg.no_grad():
        write(w)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None and w._version == 1
    np.testing.assert_array_equal(w.numpy(), want)
    (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * want)


# -- 4. memory shared with NumPy -------------------------------------------------------


@FUZZ
@given(st.data())
def test_numpy_aliasing_of_views(data):
    """``np.asarray(view)`` is the view's memory (writes through either side are seen,
    docs/interop.md); ``from_numpy`` shares, ``tensor`` copies; ``t.numpy()`` copies in
    code of no dialect (Paddle's rule) and shares in PyTorch code (torch's Tensor.numpy:
    "The returned tensor and ndarray share the same underlying storage")."""
    shape = data.draw(small)
    base = data.draw(hnp.arrays(np.float64, shape, elements=vals))
    steps = data.draw(view_chain(shape))
    root_np, root_fg = base.copy(), fg.tensor(base)
    nv, tv = apply_chain(steps, root_np, root_fg)
    arr = np.asarray(tv)
    np.testing.assert_array_equal(arr, nv)
    c = data.draw(vals)
    arr[...] = arr * 3 - c  # a NumPy-side write reaches the tensor and its base
    nv[...] = nv * 3 - c
    assert_same(root_fg, root_np, "float64", "write through np.asarray(view)")
    tv.add_(1.0)  # a tensor-side write is seen by the array
    nv += 1.0
    np.testing.assert_array_equal(arr, nv)
    copy, shared = tv.numpy(), TORCH["numpy_of"](tv)
    tv.mul_(2.0)
    nv *= 2.0
    np.testing.assert_array_equal(shared, nv)
    np.testing.assert_array_equal(copy, nv / 2.0)
    # from_numpy of the NumPy view shares its strided memory; tensor() copies
    shared_t, copied_t = fg.from_numpy(nv), fg.tensor(nv)
    shared_t.sub_(c)
    np.testing.assert_array_equal(shared_t.numpy(), nv)
    nv += 0.5
    np.testing.assert_array_equal(shared_t.numpy(), nv)
    np.testing.assert_array_equal(copied_t.numpy() - c + 0.5, nv)
    CALLS["numpy-alias"] += 1


# -- 5. Paddle code: add_, scale_, clip_, set_value, assign ----------------------------


@FUZZ
@given(st.data())
def test_paddle_inplace_methods_on_views(data):
    """Paddle's in-place methods through a view (``scale_``: ``scale * x + bias``, or
    ``scale * (x + bias)`` with ``bias_after_scale=False``, Paddle's scale op), checked
    against NumPy; the base's ``inplace_version`` counts each write."""
    shape = data.draw(small)
    base = data.draw(hnp.arrays(np.float64, shape, elements=vals))
    steps = data.draw(view_chain(shape))
    root_np, root_fg = base.copy(), fg.to_tensor(base, dtype="float64")
    nv, tv = apply_chain(steps, root_np, root_fg)
    op = data.draw(st.sampled_from(["add_", "scale_", "clip_"]))
    a, b = data.draw(vals), data.draw(vals)
    if op == "add_":
        w = data.draw(broadcastable(nv.shape))
        tv.add_(fg.to_tensor(w, dtype="float64"))
        nv += w
    elif op == "scale_":
        after = data.draw(st.booleans())
        tv.scale_(scale=a, bias=b, bias_after_scale=after)
        nv[...] = a * nv + b if after else a * (nv + b)
    else:
        lo, hi = sorted((a, b))
        tv.clip_(lo, hi)
        nv[...] = np.clip(nv, lo, hi)
    CALLS["paddle-inplace"] += 1
    assert_same(root_fg, root_np, "float64", f"{[s[0] for s in steps]} then {op}")
    if nv.size:
        assert root_fg.inplace_version == 1 == tv.inplace_version


def test_paddle_set_value_and_assign():
    """``set_value`` overwrites a parameter's values in place (allowed on a leaf that
    requires grad; Paddle's tensor_patch_methods.set_value asserts the shape matches);
    ``assign(x)`` is a copy that autograd records (writes to it leave ``x`` alone, the
    gradient reaches ``x``); ``assign(x, output)`` writes into ``output`` and returns it."""
    p = fg.to_tensor(np.zeros((2, 3)), dtype="float64", stop_gradient=False)
    row = p[1]
    value = np.arange(6.0).reshape(2, 3)
    p.set_value(value)
    np.testing.assert_array_equal(p.numpy(), value)
    np.testing.assert_array_equal(row.numpy(), value[1])  # the same memory
    assert p.is_leaf and not p.stop_gradient
    with pytest.raises(Exception, match="shape"):  # noqa: B017 - Paddle: AssertionError
        p.set_value(np.zeros((3, 2)))
    x = fg.to_tensor([1.0, -2.0, 3.0], dtype="float64", stop_gradient=False)
    y = fg.assign(x)
    assert y.data_ptr() != x.data_ptr()
    (y * fg.to_tensor([2.0, 3.0, 4.0], dtype="float64")).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 3.0, 4.0])
    with fg.no_grad():
        y.add_(10.0)
    assert x.tolist() == [1.0, -2.0, 3.0]
    out = fg.zeros([3], dtype="float64")
    assert fg.assign(x, out) is out
    assert out.tolist() == [1.0, -2.0, 3.0] and out.inplace_version == 1


# -- 6. real / imag of a complex tensor -------------------------------------------------


@FUZZ
@given(hnp.arrays(np.complex128, small, elements=st.complex_numbers(max_magnitude=4)))
def test_real_imag_values(z):
    """``z.real`` / ``z.imag`` read NumPy's values (writes through them: see
    test_real_imag_write_through_regression)."""
    t = fg.tensor(z)
    assert_same(TORCH["real_of"](t), z.real, "float64", "real")
    assert_same(TORCH["imag_of"](t), z.imag, "float64", "imag")


# -- findings, pinned ------------------------------------------------------------------


def test_unfold_is_a_view_regression():
    """PyTorch's unfold is a view (aten/src/ATen/native/TensorShape.cpp unfold:
    ``self.as_strided(new_size, new_stride)``; its docs: "Returns a view of the original
    tensor"), as NumPy's sliding windows are: a write through it reaches the base."""
    b = fg.arange(6.0, dtype=fg.float64)
    u = b.unfold(0, 2, 2)  # [[0, 1], [2, 3], [4, 5]]
    u[1].fill_(-1.0)
    assert b.tolist() == [0.0, 1.0, -1.0, -1.0, 4.0, 5.0]


def test_real_imag_write_through_regression():
    """PyTorch's ``real`` / ``imag`` of a complex tensor are views
    (aten/src/ATen/native/UnaryOps.cpp real: ``at::select(at::view_as_real(self), -1, 0)``;
    docs: "The returned tensor and self share the same underlying storage"), as NumPy's
    ``z.real`` is: ``z.real.mul_(10)`` changes ``z``. ferrograd used to drop the write
    (its ``real`` / ``imag`` were copies; more in test_complex_views.py)."""
    z = fg.tensor([1 + 2j, 3 - 1j], dtype=fg.complex128)
    TORCH["real_of"](z).mul_(10.0)
    TORCH["imag_of"](z).zero_()
    assert z.tolist() == [10 + 0j, 30 + 0j]


def test_t_of_1d_is_a_view_regression():
    """PyTorch's ``t()`` of a 0-d/1-D tensor is ``transpose(0, 0)``, a view (``alias``;
    ``_base`` is the input). Written whole (``copy_``), the base's history becomes
    CopySlices and the earlier input gets a zero gradient; ferrograd's ``t()`` shares the
    input's autograd identity, so ``x`` falls out of the graph (``x.grad`` None)."""
    x = fg.ones(3, dtype=fg.float64, requires_grad=True)
    y = x * 2
    v = y.t()
    assert v._base is y
    v.copy_(fg.tensor([5.0, 6.0, 7.0], dtype=fg.float64))
    (y * 3).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0, 0.0]


def test_as_strided_outside_view_grad_regression():
    """An in-place write through a view sends the gradient of the view's old value over
    the *base's* geometry: PyTorch's CopySlices takes the in-place node's edges "except
    for index 0 which goes to base instead of the view" (torch/csrc/autograd/functions/
    tensor.cpp, CopySlices::CopySlices), and the written view's grad_fn is regenerated
    over the base (variable.cpp VariableHooks::grad_fn: ``fn->self_geometry =
    at::TensorGeometry(view_info.base_)``). So an ``as_strided`` view of a view that
    reads base memory outside its input passes the gradient to that memory once written
    (d loss / d x[1] is 1 by finite differences); ferrograd used to send nothing."""
    x = fg.zeros(2, dtype=fg.float64, requires_grad=True)
    y = x * 1
    a = y[0:1].as_strided([], [], 1)  # the element y[1]
    a.add_(0.0)
    a.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


def test_as_strided_outside_view_read_only_keeps_pytorchs_gradient():
    """Read only (no write), the memory outside the input still gets no gradient: the
    gradient of PyTorch's as_strided is the input's (derivatives.yaml as_strided:
    ``as_strided_backward(grad, TensorGeometry(self), ...)``), as test_as_strided.py's
    test_memory_the_input_does_not_cover_gets_no_gradient pins."""
    x = fg.zeros(2, dtype=fg.float64, requires_grad=True)
    y = x * 1
    (y[0:1].as_strided([], [], 1) * 3).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


# as_strided views of ``y[2:5]`` (y of 8 elements) reaching before, after, and across it
_OUTSIDE = [
    ((3,), (1,), 0),  # y[0:3]: two before the window, one inside
    ((3,), (1,), 4),  # y[4:7]: one inside, two after
    ((2, 2), (3, 1), 1),  # y[1, 2, 4, 5]: rows straddling the window
    ((4,), (2,), 0),  # y[0, 2, 4, 6]: every other element, across it
    ((2, 2), (1, 4), 2),  # y[2, 6, 3, 7]: transposed, the second column after it
    ((), (), 7),  # y[7]: a 0-d view wholly outside it
]
_WRITES = {
    "mul_": lambda a, w: a.mul_(w),
    "add_": lambda a, w: a.add_(w, alpha=-2.0),
    "exp_": lambda a, w: a.exp_(),
    # (the writes below read the old value through a copy: a saved `a` would be stale)
    "copy_": lambda a, w: a.copy_(a.clone() * w),
    "clamp_": lambda a, w: a.clamp_(-0.5, 0.5),
    "setitem": lambda a, w: a.__setitem__(..., a.clone().sin() * w),
}


@pytest.mark.parametrize("size,stride,offset", _OUTSIDE)
@pytest.mark.parametrize("write", sorted(_WRITES))
def test_gradcheck_inplace_on_as_strided_of_view(size, stride, offset, write):
    """float64 gradients through an in-place write into an ``as_strided`` view of a view
    reaching memory outside it match finite differences, for the input and the written
    operand, and so do second derivatives."""
    from ferrograd.autograd import gradcheck, gradgradcheck

    rng = np.random.default_rng(sum(size) + offset)
    xs = fg.tensor(rng.uniform(-1.0, 1.0, 8), dtype=fg.float64, requires_grad=True)
    ws = fg.tensor(rng.uniform(0.5, 1.5, size), dtype=fg.float64, requires_grad=True)
    c = fg.tensor(rng.uniform(-1.0, 1.0, 8), dtype=fg.float64)

    def fn(x, w):
        y = x * 1.5
        a = y[2:5].as_strided(size, stride, offset)
        _WRITES[write](a, w)
        return (y * c).sum() + (a * a).sum()

    assert gradcheck(fn, (xs, ws))
    assert gradgradcheck(fn, (xs, ws))


def test_a_write_through_a_view_of_the_as_strided_view():
    """The write may go through a view of the ``as_strided`` view (or through a view of a
    view of the base): the memory outside the as_strided input still gets its gradient."""
    x = fg.arange(6.0, dtype=fg.float64).requires_grad_()
    y = x * 1
    a = y[1:3].as_strided((2, 2), (3, 1), 0)  # y[0, 1, 3, 4]
    a[1].mul_(10.0)  # y[3], y[4]: outside y[1:3]
    (y * fg.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=fg.float64)).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 40.0, 50.0, 6.0]


def test_view_of_empty_tensor_is_a_view_regression():
    """PyTorch's ``view`` always returns a view sharing the base's version counter
    (``_base`` is the base), empty tensors included; ferrograd gave a new tensor with
    its own counter (its reshape took a copy: the strides of a tensor with no elements
    never passed its contiguity test), so ``v.fill_`` left ``b._version`` at 0."""
    b = fg.zeros(0, 0, dtype=fg.float64)
    v = b.view(0)
    v.fill_(1.0)
    assert v._base is b and b._version == v._version == 1


# every view op on empty tensors: (base shape, op). PyTorch returns a view for each
# (aten/src/ATen/native/TensorShape.cpp: view / _reshape_alias / as_strided / select /
# narrow / diagonal / unfold / expand all alias the input; reshape and flatten of an
# empty tensor are views because computeStride (aten/src/ATen/TensorUtils.cpp) always
# finds strides for a tensor with no elements)
_EMPTY_VIEWS = {
    "view": ((0, 0), lambda t: t.view(0)),
    "view-3d": ((2, 0, 3), lambda t: t.view(3, 0, 2)),
    "view-minus-one": ((2, 0, 3), lambda t: t.view(-1)),
    "reshape": ((2, 0, 3), lambda t: t.reshape(6, 0)),
    "reshape-t": ((2, 0, 3), lambda t: t.transpose(0, 2).reshape(-1, 2)),
    "flatten": ((2, 0, 3), lambda t: t.flatten()),
    "flatten-part": ((2, 0, 3), lambda t: t.flatten(1)),
    "unsqueeze": ((0, 0), lambda t: t.unsqueeze(1)),
    "squeeze": ((1, 0), lambda t: t.squeeze(0)),
    "transpose": ((2, 0, 3), lambda t: t.transpose(0, 1)),
    "permute": ((2, 0, 3), lambda t: t.permute(2, 0, 1)),
    "t": ((0, 0), lambda t: t.t()),
    "t-1d": ((0,), lambda t: t.t()),
    "T": ((3, 0), lambda t: t.T),
    "expand": ((1, 0), lambda t: t.expand(4, 0)),
    "narrow": ((3, 0), lambda t: t.narrow(0, 1, 2)),
    "narrow-to-empty": ((3, 2), lambda t: t.narrow(0, 1, 0)),
    "slice": ((0, 0), lambda t: t[0:0]),
    "slice-to-empty": ((3, 2), lambda t: t[2:2]),
    "select": ((2, 0, 3), lambda t: t.select(0, 1)),
    "select-last": ((2, 0, 3), lambda t: t.select(2, -1)),
    "diagonal": ((0, 0), lambda t: t.diagonal()),
    "diagonal-3d": ((2, 0, 3), lambda t: t.diagonal(0, 0, 2)),
    "unfold": ((2, 0), lambda t: t.unfold(0, 1, 1)),
    "as_strided": ((0, 0), lambda t: t.as_strided((0, 3), (1, 1))),
    "split": ((4, 0), lambda t: t.split(2)[1]),
    "chunk": ((4, 0), lambda t: t.chunk(2)[0]),
    "movedim": ((2, 0, 3), lambda t: t.movedim(0, 2)),
    "unflatten": ((6, 0), lambda t: t.unflatten(0, (2, 3))),
    "view-of-view": ((2, 0, 3), lambda t: t.transpose(0, 1).view(0)),
}


@pytest.mark.parametrize("name", sorted(_EMPTY_VIEWS))
def test_views_of_empty_tensors_are_views(name):
    """Each view op on a tensor with no elements gives a view of the base: ``_base`` the
    base, one version counter (an in-place op on either bumps both), and shared memory
    (PyTorch's view ops alias their input, empty or not). ``view_as_real`` is left out:
    it needs a complex base (test_complex_views.py covers it)."""
    shape, op = _EMPTY_VIEWS[name]
    b = fg.zeros(shape, dtype=fg.float64)
    v = op(b)
    assert v.numel() == 0, name
    assert v._base is b, name
    v.fill_(1.0)
    assert b._version == v._version == 1, name
    b.zero_()
    assert b._version == v._version == 2, name


def test_views_of_empty_tensors_with_history_are_views():
    """With autograd: the view of an empty non-leaf carries a view node and an in-place
    write through it rebases the base (CopySlices), as for any view."""
    x = fg.zeros(2, 0, dtype=fg.float64, requires_grad=True)
    y = x * 2
    v = y.view(0)
    assert v._base is y and v.grad_fn is not None
    v.mul_(3.0)
    assert type(y.grad_fn).__name__ == "CopySlices"
    (y.sum() + v.sum()).backward()
    assert tuple(x.grad.shape) == (2, 0)
