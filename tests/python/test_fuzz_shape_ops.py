"""Differential fuzzer for the shape and manipulation ops against NumPy: reshaping
(``reshape`` / ``view`` / ``flatten(start, end)`` / ``unflatten`` / ``squeeze(dims)`` /
``unsqueeze``), dim orders (``permute`` / ``movedim`` / ``moveaxis`` / ``swapaxes`` /
``transpose``), broadcasting and repeating (``expand`` / ``expand_as`` / ``broadcast_to`` /
``broadcast_tensors`` / ``repeat`` / ``tile`` / ``repeat_interleave``), reordering (``roll``
/ ``flip`` / ``fliplr`` / ``flipud`` / ``rot90`` / ``narrow``), splitting (``chunk`` /
``split`` / ``tensor_split`` / ``hsplit`` / ``vsplit`` / ``dsplit`` / ``unbind``), joining
with dtype promotion and PyTorch's legacy 1-D empty rule of ``cat`` (``cat`` / ``concat``
/ ``stack`` / ``hstack`` / ``vstack`` / ``dstack`` / ``column_stack`` / ``row_stack``),
triangles and diagonals (``tril`` / ``triu`` / ``diag`` / ``diagflat`` / ``diag_embed`` /
``diagonal``), ``meshgrid`` and ``atleast_1d/2d/3d`` — on bool, int32, int64, float32,
float64 and complex128 operands (0-d and size-0 shapes included) seen through random
views, plus a few of Paddle's spellings called as Paddle code (``tile``, ``expand``,
``roll``, ``flip``, ``split`` with a -1 section, ``unstack``, ``concat``, ``stack``).

These ops move values, so results are compared exactly (NaN where NaN, the sign of every
zero). Gradients are checked exactly too: the op applied in NumPy to an array of (1-based)
input positions says where each output element came from (0: a fill value), so the
gradient of integer-valued upstream gradients is their scatter-add to those positions
(``np.bincount``); one example in three also checks the double backward (the gradient of
the gradient with respect to the upstream gradient is the gather of the same positions).

Index ops (take, take_along_dim, masked_select, gather, ...) are fuzzed in
test_fuzz_indexing.py and test_fuzz_scatter_index.py. This module is PyTorch code
(``torch = fg`` below, docs/dialects.md); the Paddle calls run in functions compiled with
a ``paddle`` global only (``PADDLE`` below). Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see
fuzz_support.py)."""

from __future__ import annotations

import math

import ferrograd as fg
import hypothesis.extra.numpy as hnp
import numpy as np
from fuzz_support import FUZZ
from hypothesis import given
from hypothesis import strategies as st
from shape_fuzz_support import (
    ALL,
    broadcast_target,
    diag_embed_ref,
    dim_of,
    either,
    exact,
    operand,
    promote,
    refused,
    reshape_target,
    run,
    shapes,
    some_dims,
    torch_chunk,
    torch_split_size,
)

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

# Paddle code: these functions' globals name ferrograd `paddle` (and not `torch`), so
# ferrograd answers them as Paddle (docs/dialects.md).
_PADDLE_SRC = """
def call(name, *args, **kw):
    return getattr(paddle, name)(*args, **kw)

def method(t, name, *args, **kw):
    return getattr(t, name)(*args, **kw)
"""
PADDLE: dict = {"paddle": fg, "__name__": "fuzz_paddle_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)
pcall, pmethod = PADDLE["call"], PADDLE["method"]

# --- reshaping --------------------------------------------------------------------------

RESHAPE = ["reshape", "view", "flatten", "unflatten", "squeeze", "unsqueeze", "ravel"]


@FUZZ
@given(st.sampled_from(RESHAPE), st.data())
def test_reshape_family(name, data):
    dtype, shape = data.draw(st.sampled_from(ALL)), data.draw(shapes)
    nd, method = len(shape), data.draw(st.booleans())
    if name in ("reshape", "view"):
        target = reshape_target(data, shape)
        if name == "view":

            def f(ts):  # PyTorch's view refuses only strides it cannot keep: never here
                if ts[0].is_contiguous():
                    return ts[0].view(*target)
                try:
                    return ts[0].view(*target)
                except Exception:  # a layout view cannot express: reshape's copy then
                    return ts[0].reshape(target)

        else:
            f = either(method, "reshape", target)
        n = lambda xs: xs[0].reshape(target)  # noqa: E731
        what = f"{name}({target})"
    elif name == "flatten":
        s = dim_of(data, nd)
        e = data.draw(st.integers(s % max(nd, 1), max(nd, 1) - 1)) - (
            nd if data.draw(st.booleans()) and nd else 0
        )
        s0, e0 = s % max(nd, 1), e % max(nd, 1)
        f = either(method, "flatten", s, e)

        def n(xs):
            x = xs[0]
            if x.ndim == 0:
                return x.reshape(1)  # PyTorch: a 0-d tensor flattens to one element
            return x.reshape(x.shape[:s0] + (math.prod(x.shape[s0 : e0 + 1]),) + x.shape[e0 + 1 :])

        what = f"flatten({s}, {e})"
    elif name == "ravel":
        f = (lambda ts: ts[0].ravel()) if method else (lambda ts: fg.ravel(ts[0]))
        n, what = (lambda xs: xs[0].reshape(-1)), "ravel"
    elif name == "unflatten":
        if nd == 0:
            shape, nd = (data.draw(st.integers(0, 4)),), 1
        d = dim_of(data, nd)
        size = shape[d]
        sizes = reshape_target(data, (size,)) if size else [0, data.draw(st.integers(1, 3))]
        f = either(method, "unflatten", d, sizes)

        def n(xs):
            x = xs[0]
            return x.reshape(
                x.shape[: d % nd]
                + tuple(
                    x.shape[d % nd : d % nd + 1]
                    and np.empty(x.shape[d], np.int8).reshape(sizes).shape
                )
                + x.shape[d % nd + 1 :]
            )

        what = f"unflatten({d}, {sizes})"
    elif name == "squeeze":
        dims = some_dims(data, nd) if nd else data.draw(st.sampled_from([[], [0], [-1]]))
        form = data.draw(st.sampled_from(["all", "int", "tuple"]))
        if form == "int" and not dims:
            form = "all"
        arg = () if form == "all" else (dims[0],) if form == "int" else (tuple(dims),)
        f = either(method, "squeeze", *arg)
        drop = (
            None
            if form == "all"
            else [d % max(nd, 1) for d in (dims[:1] if form == "int" else dims)]
        )

        def n(xs):
            x = xs[0]
            if drop is None or x.ndim == 0:
                return np.squeeze(x)
            return np.squeeze(x, tuple(d for d in drop if x.shape[d] == 1))

        what = f"squeeze{arg}"
    else:  # unsqueeze
        d = data.draw(st.integers(-nd - 1, nd))
        f = either(method, "unsqueeze", d)
        n, what = (lambda xs: np.expand_dims(xs[0], d)), f"unsqueeze({d})"
    run(data, [dtype], [shape], f, n, what)


# --- dim orders -------------------------------------------------------------------------

ORDERS = ["permute", "movedim", "moveaxis", "swapaxes", "transpose", "T", "mT", "adjoint"]


@FUZZ
@given(st.sampled_from(ORDERS), st.data())
def test_dim_orders(name, data):
    dtype = data.draw(st.sampled_from(ALL))
    low = 2 if name in ("mT", "adjoint") else 0
    shape = data.draw(hnp.array_shapes(min_dims=low, max_dims=4, min_side=0, max_side=4))
    nd, method = len(shape), data.draw(st.booleans())
    if name == "permute":
        perm = [
            p - nd * data.draw(st.integers(0, 1)) for p in data.draw(st.permutations(range(nd)))
        ]
        f = (lambda ts: ts[0].permute(*perm)) if method else (lambda ts: fg.permute(ts[0], perm))
        n = lambda xs: np.transpose(xs[0], [p % nd for p in perm])  # noqa: E731
        what = f"permute({perm})"
    elif name in ("movedim", "moveaxis"):
        src = some_dims(data, nd, min_size=1) if nd else [0]
        dst = some_dims(data, nd, min_size=len(src))[: len(src)] if nd else [-1]
        if len(src) == 1 and data.draw(st.booleans()):
            src, dst = src[0], dst[0]
        if nd == 0:  # PyTorch takes dim 0 / -1 of a 0-d tensor
            n = lambda xs: xs[0]  # noqa: E731
        else:
            n = lambda xs: np.moveaxis(xs[0], src, dst)  # noqa: E731
        f = either(method, name, src, dst)
        what = f"{name}({src}, {dst})"
    elif name in ("swapaxes", "transpose"):
        i, j = dim_of(data, nd), dim_of(data, nd)
        f = either(method, name, i, j)
        n = (lambda xs: np.swapaxes(xs[0], i, j)) if nd else (lambda xs: xs[0])
        what = f"{name}({i}, {j})"
    elif name == "T":
        if nd not in (0, 2):
            shape, nd = shape[:2] + (1,) * (2 - len(shape[:2])), 2  # x.T: 0-d / 2-d only
        f, n, what = (lambda ts: ts[0].T), (lambda xs: xs[0].T), "x.T"
    else:  # the last two dims swapped (adjoint: conjugated)
        f = (lambda ts: getattr(ts[0], name)) if name == "mT" else (lambda ts: ts[0].adjoint())
        conj = name == "adjoint" and dtype == "complex128"
        n = (
            (lambda xs: np.conj(np.swapaxes(xs[0], -1, -2)))
            if conj
            else (lambda xs: np.swapaxes(xs[0], -1, -2))
        )
        what = name
    run(data, [dtype], [shape], f, n, what)


# --- broadcasting and repeating ---------------------------------------------------------

REPEATS = ["expand", "expand_as", "broadcast_to", "broadcast_tensors", "repeat", "tile"]
REPEATS += ["repeat_interleave"]


@FUZZ
@given(st.sampled_from(REPEATS), st.data())
def test_broadcast_and_repeat(name, data):
    dtype, shape = data.draw(st.sampled_from(ALL)), data.draw(shapes)
    nd, method = len(shape), data.draw(st.booleans())
    shapes_in = [shape]
    if name in ("expand", "broadcast_to"):
        target = broadcast_target(data, shape)
        # expand's -1 keeps a size (not in a new leading dim)
        lead = len(target) - nd
        keep = [
            i >= lead and s == shape[i - lead] and data.draw(st.booleans())
            for i, s in enumerate(target)
        ]
        arg = [-1 if k else s for k, s in zip(keep, target)]
        if name == "expand":
            f = (lambda ts: ts[0].expand(*arg)) if method else (lambda ts: ts[0].expand(arg))
        else:
            f = either(method, "broadcast_to", arg)
        n, what = (lambda xs: np.broadcast_to(xs[0], target)), f"{name}({arg})"
    elif name == "expand_as":
        target = broadcast_target(data, shape)
        f = lambda ts: ts[0].expand_as(fg.zeros(target, dtype="int32"))  # noqa: E731
        n, what = (lambda xs: np.broadcast_to(xs[0], target)), f"expand_as({target})"
    elif name == "broadcast_tensors":
        target = broadcast_target(data, shape)
        # the others: `target` with some leading dims dropped and some dims set to 1
        for _ in range(data.draw(st.integers(0, 2))):
            cut = data.draw(st.integers(0, len(target)))
            shapes_in.append(tuple(1 if data.draw(st.booleans()) else s for s in target[cut:]))
        f = lambda ts: fg.broadcast_tensors(*ts)  # noqa: E731
        n, what = (lambda xs: np.broadcast_arrays(*xs)), "broadcast_tensors"
        dtypes = [dtype] * len(shapes_in)  # one dtype: broadcast_tensors promotes nothing
        return run(data, dtypes, shapes_in, f, n, what, res=dtype)
    elif name in ("repeat", "tile"):
        lo = nd if name == "repeat" else 0  # Tensor.repeat: a count for every dim
        reps = data.draw(st.lists(st.integers(0, 3), min_size=max(lo, 1), max_size=max(lo, 1) + 2))
        if name == "repeat":
            f = lambda ts: ts[0].repeat(*reps) if method else ts[0].repeat(reps)  # noqa: E731
        else:
            f = either(method, "tile", reps)
        n, what = (lambda xs: np.tile(xs[0], reps)), f"{name}({reps})"
        if name == "repeat" and len(reps) < nd:
            return refused(lambda: data.draw(operand(dtype, shape))[1].repeat(*reps), what)
    else:  # repeat_interleave: an int, a one-element tensor, or a count per element
        d = None if nd == 0 or data.draw(st.booleans()) else dim_of(data, nd)
        size = math.prod(shape) if d is None else shape[d]
        kind = data.draw(st.sampled_from(["int", "one", "each"]))
        counts = [data.draw(st.integers(0, 3)) for _ in range(size if kind == "each" else 1)]
        reps = counts[0] if kind == "int" else np.array(counts, np.int64)
        total = int(np.sum(np.broadcast_to(reps, (size,))))
        out = total if data.draw(st.booleans()) else None
        kw = {"dim": d} | ({} if out is None else {"output_size": out})

        def f(ts):
            r = reps if kind == "int" else fg.tensor(reps)
            return (
                ts[0].repeat_interleave(r, **kw) if method else fg.repeat_interleave(ts[0], r, **kw)
            )

        n, what = (lambda xs: np.repeat(xs[0], reps, axis=d)), f"repeat_interleave({reps!r}, {kw})"
    run(data, [dtype], shapes_in, f, n, what)


def test_repeat_interleave_of_counts_alone():
    # torch.repeat_interleave(repeats): each index i repeated repeats[i] times
    # (aten/src/ATen/native/Repeat.cpp, repeat_interleave_cpu)
    counts = np.array([2, 0, 3, 1])
    got = fg.repeat_interleave(fg.tensor(counts))
    exact(got, np.repeat(np.arange(4), counts), "int64", "repeat_interleave(counts)")


# --- reordering -------------------------------------------------------------------------

REORDERS = ["roll", "roll_flat", "flip", "fliplr", "flipud", "rot90", "narrow"]


@FUZZ
@given(st.sampled_from(REORDERS), st.data())
def test_reorder(name, data):
    dtype = data.draw(st.sampled_from(ALL))
    low = {"fliplr": 2, "rot90": 2, "flipud": 1, "narrow": 1, "roll": 1}.get(name, 0)
    shape = data.draw(hnp.array_shapes(min_dims=low, max_dims=4, min_side=0, max_side=4))
    nd, method = len(shape), data.draw(st.booleans())
    if name == "roll":  # shifts and dims: tuples, negative, larger than the size
        dims = [dim_of(data, nd) for _ in range(data.draw(st.integers(1, 3)))]
        shifts = [data.draw(st.integers(-11, 11)) for _ in dims]
        if len(dims) == 1 and data.draw(st.booleans()):
            dims, shifts = dims[0], shifts[0]
        f = either(method, "roll", shifts, dims)
        n, what = (lambda xs: np.roll(xs[0], shifts, dims)), f"roll({shifts}, {dims})"
    elif name == "roll_flat":  # no dims: the flattened tensor rolls, the shape is kept
        s = data.draw(st.integers(-11, 11))
        f = either(method, "roll", s)
        n, what = (lambda xs: np.roll(xs[0], s)), f"roll({s})"
    elif name == "flip":
        dims = some_dims(data, nd)
        f = either(method, "flip", dims)
        n, what = (lambda xs: np.flip(xs[0], tuple(d % nd for d in dims))), f"flip({dims})"
    elif name in ("fliplr", "flipud"):
        f = either(method, name)
        n, what = (lambda xs: getattr(np, name)(xs[0])), name
    elif name == "rot90":
        k = data.draw(st.integers(-9, 9))
        i, j = data.draw(st.permutations(range(nd)))[:2]
        dims = [i - nd * data.draw(st.integers(0, 1)), j - nd * data.draw(st.integers(0, 1))]
        f = either(method, "rot90", k, dims)
        n, what = (lambda xs: np.rot90(xs[0], k, (i, j))), f"rot90({k}, {dims})"
    else:  # narrow: a negative start counts from the end; a 0-d tensor start too
        d = dim_of(data, nd)
        size = shape[d]
        start = data.draw(st.integers(-size, size)) if size else 0
        length = data.draw(
            st.integers(0, size - start % max(size, 1) if start < 0 or start < size else 0)
        )
        s0 = start + size if start < 0 else start
        arg = fg.tensor(start) if data.draw(st.integers(0, 3)) == 0 else start
        f = either(method, "narrow", d, arg, length)

        def n(xs):
            return xs[0][(slice(None),) * (d % nd) + (slice(s0, s0 + length),)]

        what = f"narrow({d}, {start}, {length})"
    run(data, [dtype], [shape], f, n, what)


# --- splitting --------------------------------------------------------------------------

SPLITS = ["chunk", "split_size", "split_sections", "tensor_split_n", "tensor_split_idx"]
SPLITS += ["tensor_split_tensor", "hsplit", "vsplit", "dsplit", "unbind"]


@FUZZ
@given(st.sampled_from(SPLITS), st.data())
def test_split_family(name, data):
    dtype = data.draw(st.sampled_from(ALL))
    low = {"vsplit": 2, "dsplit": 3}.get(name, 1)
    shape = data.draw(hnp.array_shapes(min_dims=low, max_dims=4, min_side=0, max_side=5))
    nd, method = len(shape), data.draw(st.booleans())
    d = dim_of(data, nd)
    size, ints = shape[d], lambda lo, hi: data.draw(st.integers(lo, hi))
    if name == "chunk":
        k = ints(1, 6)
        f = either(method, "chunk", k, d)
        n, what = (lambda xs: torch_chunk(xs[0], k, d)), f"chunk({k}, {d})"
    elif name == "split_size":
        s = ints(1 if size else 0, 6)
        f = either(method, "split", s, d)
        n, what = (lambda xs: torch_split_size(xs[0], s, d)), f"split({s}, {d})"
    elif name == "split_sections":
        cuts = sorted(ints(0, size) for _ in range(ints(0, 3)))
        secs = list(np.diff([0] + cuts + [size]))
        f = (
            (lambda ts: ts[0].split(secs, d))
            if method
            else (lambda ts: fg.split(ts[0], secs, dim=d))
        )
        n, what = (lambda xs: np.split(xs[0], cuts, axis=d)), f"split({secs}, {d})"
    elif name == "tensor_split_n":  # np.array_split's rule: the first size % n pieces longer
        k = ints(1, 6)
        f = (
            (lambda ts: ts[0].tensor_split(k, d))
            if method
            else (lambda ts: fg.tensor_split(ts[0], k, dim=d))
        )
        n, what = (lambda xs: np.array_split(xs[0], k, axis=d)), f"tensor_split({k}, {d})"
    elif name in ("tensor_split_idx", "tensor_split_tensor"):
        # indices: any order, out of range, negative (Python slicing between them)
        idx = [ints(-size - 2, size + 2) for _ in range(ints(0, 3))]
        sections = name == "tensor_split_tensor" and data.draw(st.booleans())
        if sections:  # a 0-d tensor: the number of sections
            k = ints(1, 5)
            arg, n = fg.tensor(k), (lambda xs: np.array_split(xs[0], k, axis=d))
        else:
            arg = fg.tensor(np.array(idx, np.int64)) if name == "tensor_split_tensor" else idx

            def n(xs):  # Python's slicing between consecutive indices
                at = (slice(None),) * (d % nd)
                return [xs[0][at + (slice(a, b),)] for a, b in zip([0] + idx, idx + [None])]

        f = (
            (lambda ts: ts[0].tensor_split(arg, d))
            if method
            else (lambda ts: fg.tensor_split(ts[0], arg, dim=d))
        )
        what = f"tensor_split({arg!r}, {d})"
    elif name in ("hsplit", "vsplit", "dsplit"):
        ax = {"hsplit": 0 if nd == 1 else 1, "vsplit": 0, "dsplit": 2}[name]
        size = shape[ax]
        if data.draw(st.booleans()):  # a number of equal sections: must divide the size
            arg = data.draw(st.sampled_from([k for k in range(1, 6) if size % k == 0]))
        else:
            arg = sorted(ints(0, size) for _ in range(ints(0, 3)))
        f = either(method, name, arg)
        n, what = (lambda xs: getattr(np, name)(xs[0], arg)), f"{name}({arg})"
    else:  # unbind
        f = either(method, "unbind", d)
        n = lambda xs: [np.take(xs[0], i, axis=d) for i in range(xs[0].shape[d])]  # noqa: E731
        what = f"unbind({d})"
    run(data, [dtype], [shape], f, n, what)


def test_split_refusals():
    # PyTorch refuses hsplit into sections that do not divide the size, split sections
    # that do not add up to it, chunk(0), split(0) of a non-empty dim, split of a 0-d
    # tensor (TensorShape.cpp: tensor_split, split_with_sizes, chunk, split)
    x = fg.ones(2, 5)
    for call in [
        lambda: x.hsplit(2),
        lambda: x.split([1, 2], 1),
        lambda: x.chunk(0),
        lambda: x.split(0, 1),
        lambda: fg.tensor(1.0).split(1),
        lambda: fg.ones(3).vsplit(1),
        lambda: x.dsplit(1),
        lambda: x.tensor_split(0, 1),
        lambda: x.tensor_split(fg.ones(2, 2, dtype="int64")),  # a 2-D tensor of indices
    ]:
        refused(call, "split")


# --- joining ----------------------------------------------------------------------------

JOINS = ["cat", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"]


@FUZZ
@given(st.sampled_from(JOINS), st.data())
def test_join_family(name, data):
    k = data.draw(st.integers(1, 3))
    mixed = data.draw(st.booleans())
    one = data.draw(st.sampled_from(ALL))
    dtypes = [data.draw(st.sampled_from(ALL)) if mixed else one for _ in range(k)]
    low = 1 if name in ("cat", "concat") else 0
    base = data.draw(hnp.array_shapes(min_dims=low, max_dims=3, min_side=0, max_side=3))
    nd = len(base)
    if name in ("cat", "concat"):
        d = dim_of(data, nd)
        ins = [
            tuple(data.draw(st.integers(0, 3)) if i == d % nd else s for i, s in enumerate(base))
            for _ in dtypes
        ]
        # PyTorch's legacy rule: a 1-D tensor of size 0 is left out (its dtype still counts)
        legacy = [i for i in range(k) if data.draw(st.integers(0, 3)) == 0]
        ins = [(0,) if i in legacy else s for i, s in enumerate(ins)]
        kw = (
            {"dim": d} if name == "cat" else {"axis": d} if data.draw(st.booleans()) else {"dim": d}
        )
        f = lambda ts: getattr(fg, name)(ts, **kw)  # noqa: E731

        def n(xs):
            kept = [x for x, s in zip(xs, ins) if s != (0,)]
            if not kept:
                return np.zeros((0,), xs[0].dtype)
            return np.concatenate(kept, axis=d % kept[0].ndim)

        what = f"{name}({kw})"
    elif name == "stack":
        d = data.draw(st.integers(-nd - 1, nd))
        ins = [base] * k
        f, n, what = (lambda ts: fg.stack(ts, d)), (lambda xs: np.stack(xs, d)), f"stack({d})"
    else:
        # the sizes along the joined dim differ; 0-d and 1-d tensors where NumPy and
        # PyTorch (atleast_1d/2d/3d first) take them
        ax = {"hstack": 0 if nd <= 1 else 1, "column_stack": 1}.get(
            name, 2 if name == "dstack" else 0
        )
        low = {"column_stack": 2, "dstack": 3}.get(name, 1 if name == "hstack" else 2)
        full = list(base) + [1] * (low - nd) if nd < low else list(base)
        ins = []
        for _ in dtypes:
            if nd >= low or name == "column_stack" and nd == 2:
                s = list(base)
                if nd > ax:
                    s[ax] = data.draw(st.integers(0, 3))
                ins.append(tuple(s))
            else:
                ins.append(tuple(base))  # promoted to `full` alike
        del full
        f = lambda ts: getattr(fg, name)(ts)  # noqa: E731
        n = lambda xs: getattr(np, "vstack" if name == "row_stack" else name)(xs)  # noqa: E731
        what = name
    res = promote(*dtypes)
    run(data, dtypes, ins, f, n, what, res=res)


def test_cat_refusals():
    # PyTorch refuses a 0-d tensor, an empty list, mismatched sizes outside dim (other
    # than the legacy [0]), an out-of-range dim (TensorShape.cpp, cat meta function)
    x = fg.ones(2, 3)
    for call in [
        lambda: fg.cat([x, fg.tensor(1.0)]),
        lambda: fg.cat([]),
        lambda: fg.cat([x, fg.ones(2, 4)], 0),
        lambda: fg.cat([x, fg.ones(0, 2)], 0),
        lambda: fg.cat([x, x], 2),
        lambda: fg.stack([x, fg.ones(3, 2)]),
        lambda: fg.stack([x, x], 3),
    ]:
        refused(call, "cat")


# --- triangles and diagonals ------------------------------------------------------------

DIAGS = ["tril", "triu", "diag", "diagflat", "diag_embed", "diagonal"]


@FUZZ
@given(st.sampled_from(DIAGS), st.data())
def test_triangles_and_diagonals(name, data):
    dtype = data.draw(st.sampled_from(ALL))
    lo, hi = {"tril": (2, 4), "triu": (2, 4), "diag": (1, 2), "diag_embed": (1, 3)}.get(
        name, (0, 4)
    )
    lo = 2 if name == "diagonal" else lo
    shape = data.draw(hnp.array_shapes(min_dims=lo, max_dims=hi, min_side=0, max_side=4))
    nd, method = len(shape), data.draw(st.booleans())
    k = data.draw(st.integers(-6, 6))  # beyond the matrix too
    if name in ("tril", "triu"):
        f = either(method, name, k)
        n, what = (lambda xs: getattr(np, name)(xs[0], k)), f"{name}({k})"
    elif name in ("diag", "diagflat"):
        f = either(method, name, k)
        n, what = (lambda xs: getattr(np, name)(xs[0], k)), f"{name}({k})"
    elif name == "diag_embed":
        i, j = data.draw(st.permutations(range(nd + 1)))[:2]
        d1, d2 = (
            i - (nd + 1) * data.draw(st.integers(0, 1)),
            j - (nd + 1) * data.draw(st.integers(0, 1)),
        )
        f = (
            (lambda ts: ts[0].diag_embed(k, d1, d2))
            if method
            else (lambda ts: fg.diag_embed(ts[0], offset=k, dim1=d1, dim2=d2))
        )
        n, what = (lambda xs: diag_embed_ref(xs[0], k, i, j)), f"diag_embed({k}, {d1}, {d2})"
    else:
        i, j = data.draw(st.permutations(range(nd)))[:2]
        d1, d2 = i - nd * data.draw(st.integers(0, 1)), j - nd * data.draw(st.integers(0, 1))
        f = (
            (lambda ts: ts[0].diagonal(k, d1, d2))
            if method
            else (lambda ts: fg.diagonal(ts[0], offset=k, dim1=d1, dim2=d2))
        )
        n, what = (lambda xs: np.diagonal(xs[0], k, i, j)), f"diagonal({k}, {d1}, {d2})"
    run(data, [dtype], [shape], f, n, what)


# --- meshgrid and atleast_nd ------------------------------------------------------------

GRIDS = ["meshgrid", "atleast_1d", "atleast_2d", "atleast_3d"]


@FUZZ
@given(st.sampled_from(GRIDS), st.data())
def test_meshgrid_and_atleast(name, data):
    dtype, k = data.draw(st.sampled_from(ALL)), data.draw(st.integers(1, 3))
    if name == "meshgrid":  # 1-D tensors (0-d ones count as one element), one dtype
        ins = [
            tuple(data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(0, 1))))
            for _ in range(k)
        ]
        how = data.draw(st.sampled_from(["ij", "xy"]))
        listed = data.draw(st.booleans())
        f = (
            (lambda ts: fg.meshgrid(ts, indexing=how))
            if listed
            else (lambda ts: fg.meshgrid(*ts, indexing=how))
        )
        n, what = (lambda xs: np.meshgrid(*xs, indexing=how)), f"meshgrid(indexing={how})"
        return run(data, [dtype] * k, ins, f, n, what)
    ins = [
        data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=3))
        for _ in range(k)
    ]
    form = data.draw(st.sampled_from(["one", "args", "list"])) if k > 1 else "one"
    ins = ins[:1] if form == "one" else ins
    f = {
        "one": lambda ts: getattr(fg, name)(ts[0]),
        "args": lambda ts: getattr(fg, name)(*ts),
        "list": lambda ts: getattr(fg, name)(ts),
    }[form]
    n = lambda xs: getattr(np, name)(*xs)  # noqa: E731
    run(data, [dtype] * len(ins), ins, f, n, f"{name}({form})")


# --- Paddle's spellings -----------------------------------------------------------------

PADDLE_OPS = ["tile", "expand", "roll", "flip", "split", "unstack", "concat", "stack", "chunk"]


@FUZZ
@given(st.sampled_from(PADDLE_OPS), st.data())
def test_paddle_spellings(name, data):
    """Paddle code's calls where Paddle's meaning differs from NumPy's spelling: tile with
    fewer reps than dims, expand with -1, roll with axis=None (flattened) or lists, flip
    with an axis list, split into a number of sections or with a -1 section, unstack,
    concat / stack with axis=, chunk into equal sections."""
    dtype = data.draw(st.sampled_from(ALL))
    low = 1 if name in ("split", "unstack", "concat", "chunk") else 0
    shape = data.draw(hnp.array_shapes(min_dims=low, max_dims=4, min_side=0, max_side=4))
    nd, ints, method = (
        len(shape),
        lambda a, b: data.draw(st.integers(a, b)),
        data.draw(st.booleans()),
    )
    ins, dts = [shape], [dtype]
    if name == "tile":
        reps = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=5))
        f = lambda ts: pcall("tile", ts[0], repeat_times=reps)  # noqa: E731
        n, what = (lambda xs: np.tile(xs[0], reps)), f"paddle.tile({reps})"
    elif name == "expand":
        target = broadcast_target(data, shape)
        lead = len(target) - nd
        arg = [
            -1 if i >= lead and s == shape[i - lead] and ints(0, 1) else s
            for i, s in enumerate(target)
        ]
        f = lambda ts: pcall("expand", ts[0], shape=arg)  # noqa: E731
        n, what = (lambda xs: np.broadcast_to(xs[0], target)), f"paddle.expand({arg})"
    elif name == "roll":
        if nd == 0 or ints(0, 1):
            s = ints(-9, 9)
            f = lambda ts: pcall("roll", ts[0], shifts=s)  # noqa: E731
            n, what = (lambda xs: np.roll(xs[0], s)), f"paddle.roll({s})"
        else:
            axes = some_dims(data, nd, min_size=1)
            sh = [ints(-9, 9) for _ in axes]
            f = lambda ts: pcall("roll", ts[0], shifts=sh, axis=axes)  # noqa: E731
            n, what = (lambda xs: np.roll(xs[0], sh, axes)), f"paddle.roll({sh}, {axes})"
    elif name == "flip":
        axes = some_dims(data, nd, min_size=min(nd, 1))
        f = lambda ts: pcall("flip", ts[0], axis=axes)  # noqa: E731
        n, what = (
            (lambda xs: np.flip(xs[0], tuple(a % max(nd, 1) for a in axes))),
            f"paddle.flip({axes})",
        )
    elif name in ("split", "chunk"):
        d = dim_of(data, nd)
        size = shape[d]
        if name == "chunk" or ints(0, 1):  # a number of equal sections
            k = data.draw(st.sampled_from([j for j in range(1, 5) if size % j == 0]))
            cuts = [size // k * j for j in range(1, k)]
            arg = k
        else:  # sizes, one of them maybe -1 (the rest)
            cuts = sorted(ints(0, size) for _ in range(ints(0, 3)))
            arg = [int(v) for v in np.diff([0] + cuts + [size])]
            if ints(0, 1):
                arg[ints(0, len(arg) - 1)] = -1
        if name == "chunk":
            f = lambda ts: pcall("chunk", ts[0], chunks=arg, axis=d)  # noqa: E731
        elif method:
            f = lambda ts: pmethod(ts[0], "split", arg, d)  # noqa: E731
        else:
            f = lambda ts: pcall("split", ts[0], num_or_sections=arg, axis=d)  # noqa: E731
        n, what = (lambda xs: np.split(xs[0], cuts, axis=d)), f"paddle.{name}({arg}, axis={d})"
    elif name == "unstack":
        d = dim_of(data, nd)
        f = lambda ts: pcall("unstack", ts[0], axis=d)  # noqa: E731
        n = lambda xs: [np.take(xs[0], i, axis=d) for i in range(xs[0].shape[d])]  # noqa: E731
        what = f"paddle.unstack(axis={d})"
    else:  # concat / stack: Paddle's axis=, dtypes promoted as PyTorch's
        k = ints(1, 3)
        dts = [data.draw(st.sampled_from(ALL)) for _ in range(k)]
        if name == "concat":
            d = dim_of(data, nd)
            ins = [
                tuple(ints(0, 3) if i == d % nd else s for i, s in enumerate(shape)) for _ in dts
            ]
            n = lambda xs: np.concatenate(xs, axis=d)  # noqa: E731
        else:
            d = ints(-nd - 1, nd)
            ins = [shape] * k
            n = lambda xs: np.stack(xs, axis=d)  # noqa: E731
        f = lambda ts: pcall(name, ts, axis=d)  # noqa: E731
        what = f"paddle.{name}(axis={d})"
    run(data, dts, ins, f, n, what)


# --- regression tests of the bugs this fuzzer found -------------------------------------


def test_movedim_of_0d_tensor_regression():
    # PyTorch's movedim takes dims 0 / -1 of a 0-d tensor and returns it as it is
    # (TensorShape.cpp, movedim: "handle the case of scalar tensor as a no-op"); it
    # raised an IndexError from inside ferrograd's permutation code
    x = fg.tensor(2.5, requires_grad=True)
    for y in (fg.movedim(x, 0, -1), x.moveaxis([0], [-1]), fg.moveaxis(x, -1, 0)):
        assert y.shape == () and y.item() == 2.5
    fg.movedim(x, 0, 0).backward()
    assert x.grad.item() == 1.0


def test_ravel_function_regression():
    # torch.ravel(x) exists beside x.ravel(): a contiguous flattened tensor
    # (TensorShape.cpp, ravel: contiguous().view(-1)); the function was missing
    x = fg.arange(12.0).reshape(3, 4).T
    y = fg.ravel(x)
    assert y.shape == (12,) and y.is_contiguous()
    assert y.tolist() == np.arange(12.0).reshape(3, 4).T.reshape(-1).tolist()


def test_tensor_split_index_below_an_earlier_one_regression():
    # PyTorch's _tensor_split_indices (TensorShape.cpp): piece i is slice(start, end)
    # with start = the previous index as given, so after an index that goes back the
    # next piece starts there (np.array_split agrees); the last piece was cut short
    x = fg.arange(5)
    got = [p.tolist() for p in x.tensor_split([1, 4, 2, 9, -1])]
    assert got == [[0], [1, 2, 3], [], [2, 3, 4], [], [4]]
    assert [p.tolist() for p in fg.tensor_split(fg.arange(1), [1, 0])] == [[0], [], [0]]


def test_split_size_0_of_a_size_0_dim_regression():
    # PyTorch's split(0) of a dim of size 0 gives one empty piece (TensorShape.cpp,
    # split / get_num_splits: "if split_size is 0 and dimension size is 0, there is 1
    # split"); ferrograd refused it. split(0) of a non-empty dim stays refused.
    pieces = fg.zeros(0, 2).split(0)
    assert len(pieces) == 1 and pieces[0].shape == (0, 2)
    assert [p.shape for p in torch.split(fg.zeros(3, 0), 0, 1)] == [(3, 0)]
    refused(lambda: fg.zeros(2).split(0), "split(0) of size 2")


def test_cat_leaves_out_legacy_1d_empty_tensors_regression():
    # PyTorch's cat skips 1-D tensors of size 0 in the shape checks and the result, while
    # their dtype still takes part in the promotion (TensorShape.cpp, cat meta function
    # and cat_should_skip_tensor); ferrograd refused them beside tensors of other ranks
    x = fg.tensor([[1, 2, 3], [4, 5, 6]], dtype="int32")
    e = fg.zeros(0, dtype="float64")
    got = fg.cat([e, x, e], 1)
    assert got.dtype.name == "float64" and got.tolist() == x.tolist()
    assert fg.cat([x, e], 0).shape == (2, 3)
    assert fg.concat([e, e], axis=0).shape == (0,)
    # gradients: the slices for the kept tensors, an empty one for the left-out one
    w = fg.ones(2, 2, dtype="float64", requires_grad=True)
    e2 = fg.zeros(0, dtype="float64", requires_grad=True)
    (fg.cat([w, e2], 0) * fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")).sum().backward()
    assert w.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert e2.grad is None or e2.grad.shape == (0,)
    refused(lambda: fg.cat([x, fg.zeros(0, 3)], 1), "cat of a [0, 3]")  # only [0] is skipped


def test_unflatten_infers_from_the_dim_not_the_tensor_regression():
    # PyTorch's unflatten infers a -1 from the size of dim alone (TensorShape.cpp,
    # unflatten_impl: infer_size_dv(sizes, self.sym_size(dim))); ferrograd reshaped the
    # whole tensor and refused a -1 whenever another dim was 0
    assert fg.zeros(1, 0).unflatten(0, [-1]).shape == (1, 0)
    assert fg.unflatten(fg.zeros(6, 0, 2), 0, (2, -1)).shape == (2, 3, 0, 2)
    refused(lambda: fg.zeros(0, 2).unflatten(0, [0, -1]), "unflatten ambiguous -1")
    refused(lambda: fg.zeros(6).unflatten(0, [4, 2]), "unflatten sizes not multiplying")
    refused(lambda: fg.tensor(1.0).unflatten(0, [1]), "unflatten of 0-d")
