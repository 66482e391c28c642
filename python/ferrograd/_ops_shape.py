"""Shape and layout ops in both dialects, composed from differentiable view / index ops
(slices, permute, reshape, expand, concat, where, index_select), so first and higher
derivatives come for free: ``flip``, ``roll``, ``rot90``, ``tile``, PyTorch's
``Tensor.repeat``, ``repeat_interleave``, ``tril`` / ``triu``, ``diag``, ``diag_embed``,
``diagonal``, ``trace``, ``narrow``, ``movedim`` / ``moveaxis``, ``swapaxes`` /
``swapdims``, ``unflatten``, ``unstack``, ``meshgrid`` and ``broadcast_tensors``.

Both peers' keywords are taken (``dims=`` / ``axis=``, ``dim1=`` / ``axis1=``, ...).
Results that PyTorch returns as copies (``flip``, ``roll``, ``diagonal``...) are new
tensors here too; ``narrow``, ``movedim``, ``swapaxes``, ``meshgrid`` and
``broadcast_tensors`` are views, as in PyTorch.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from . import _core
from ._errors import AxisError

Tensor = _core.Tensor


def _norm(d: Any, ndim: int, op: str) -> int:
    n = max(ndim, 1)
    d = operator.index(d)
    if not -n <= d < n:
        raise AxisError(
            f"{op}: dimension {d} is out of range for a tensor with {ndim} dimension(s) "
            f"(expected a value in [{-n}, {n - 1}])"
        )
    return d % n


def _int_list(v: Any) -> list[int]:
    if isinstance(v, Tensor):
        return [int(i) for i in v.reshape([-1]).tolist()]
    if isinstance(v, (list, tuple)):
        return [operator.index(i) if not isinstance(i, Tensor) else int(i.item()) for i in v]
    return [operator.index(v)]


def _dims_arg(args: tuple, kwargs: dict, names: Sequence[str], op: str) -> list[int]:
    """Dims given positionally (one list or several ints) or by one of ``names``."""
    for n in names:
        if n in kwargs:
            if args:
                raise TypeError(f"{op}() got the dims both positionally and as {n}=")
            return _int_list(kwargs.pop(n))
    if len(args) == 1:
        return _int_list(args[0])
    return [operator.index(a) for a in args]


def _unique_dims(dims: list[int], ndim: int, op: str) -> list[int]:
    ds = [_norm(d, ndim, op) for d in dims]
    if len(set(ds)) != len(ds):
        raise ValueError(f"{op}: dims {dims} name a dimension more than once")
    return ds


def flip(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """A copy of ``x`` reversed along ``dims`` (torch) / ``axis`` (Paddle)."""
    kwargs.pop("name", None)
    dims = _unique_dims(_dims_arg(args, kwargs, ("dims", "axis"), "flip"), x.ndim, "flip")
    if x.ndim == 0:
        return x.clone()
    key = tuple(slice(None, None, -1) if d in dims else slice(None) for d in range(x.ndim))
    return x[key].clone()


def _roll_dim(x: Tensor, shift: int, d: int) -> Tensor:
    n = x.shape[d]
    if n == 0 or shift % n == 0:
        return x
    s = shift % n
    head = tuple([slice(None)] * d + [slice(n - s, None)])
    tail = tuple([slice(None)] * d + [slice(0, n - s)])
    return _core.concat([x[head], x[tail]], d)


def roll(x: Tensor, shifts: Any, dims: Any = None, *, axis: Any = None, name: Any = None) -> Tensor:
    """Elements shifted by ``shifts`` along ``dims`` / ``axis`` (wrapping around); without
    dims, over the flattened tensor (shape kept)."""
    dims = axis if dims is None else dims
    sh = _int_list(shifts)
    if dims is None:
        if len(sh) != 1:
            raise ValueError(f"roll: {len(sh)} shifts need as many dims")
        return _roll_dim(x.reshape([-1]), sh[0], 0).reshape(list(x.shape)).clone()
    ds = _int_list(dims)
    if len(ds) != len(sh):
        raise ValueError(f"roll: {len(sh)} shift(s) for {len(ds)} dim(s); give one shift per dim")
    out = x
    for s, d in zip(sh, ds):
        out = _roll_dim(out, s, _norm(d, x.ndim, "roll"))
    return out.clone() if out is x else out


def rot90(x: Tensor, k: int = 1, dims: Any = None, *, axes: Any = None, name: Any = None) -> Tensor:
    """Rotation by ``k`` quarter turns in the plane of ``dims`` / ``axes`` (default
    ``[0, 1]``), from the first axis towards the second."""
    plane = _int_list(
        axes if dims is None and axes is not None else dims if dims is not None else [0, 1]
    )
    if len(plane) != 2:
        raise ValueError(f"rot90: dims must name two dimensions, got {plane}")
    if x.ndim < 2:
        raise ValueError(f"rot90: needs a tensor of at least 2 dimensions, got {x.ndim}")
    a, b = _unique_dims(plane, x.ndim, "rot90")
    k = operator.index(k) % 4
    if k == 0:
        return x.clone()
    if k == 2:
        return flip(x, [a, b])
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return flip(x, [b]).permute(perm)
    return flip(x, [a]).permute(perm)


def _tile(x: Tensor, reps: list[int], op: str) -> Tensor:
    if any(r < 0 for r in reps):
        raise ValueError(f"{op}: repeat counts must be non-negative, got {reps}")
    nd = max(len(reps), x.ndim)
    reps = [1] * (nd - len(reps)) + reps
    shape = [1] * (nd - x.ndim) + list(x.shape)
    inter = [v for s in shape for v in (1, s)]
    big = [v for r, s in zip(reps, shape) for v in (r, s)]
    return x.reshape(inter).expand(big).reshape([r * s for r, s in zip(reps, shape)])


def tile(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x`` repeated ``reps`` times along each dimension (torch ``tile(dims)``, Paddle
    ``tile(repeat_times)``); fewer counts than dimensions repeat the trailing ones."""
    kwargs.pop("name", None)
    reps = _dims_arg(args, kwargs, ("dims", "repeat_times"), "tile")
    return _tile(x, reps, "tile")


def repeat(x: Tensor, *sizes: Any, **kwargs: Any) -> Tensor:
    """PyTorch's ``Tensor.repeat(*sizes)``: ``tile`` that needs at least one count per
    dimension (Paddle has no ``Tensor.repeat``; it spells this ``tile``)."""
    reps = _dims_arg(sizes, kwargs, ("repeats", "sizes"), "repeat")
    if len(reps) < x.ndim:
        raise ValueError(
            f"repeat: {len(reps)} count(s) for a tensor of {x.ndim} dimensions; give at least "
            "one per dimension (or use tile)"
        )
    return _tile(x, reps, "repeat")


def repeat_interleave(
    x: Tensor,
    repeats: Any = None,
    dim: Any = None,
    *,
    axis: Any = None,
    output_size: Any = None,
    name: Any = None,
) -> Tensor:
    """Each element (or slice along ``dim`` / ``axis``) repeated ``repeats`` times in
    place; ``repeats`` is an int or a 1-D tensor of per-element counts. Without a dim the
    tensor is flattened first. ``repeat_interleave(counts)`` alone gives the index
    ``[0]*counts[0] + [1]*counts[1] + ...`` (PyTorch)."""
    if repeats is None:
        counts = np.asarray(_int_list(x), dtype=np.int64)
        if (counts < 0).any():
            raise ValueError("repeat_interleave: repeats must be non-negative")
        return _core.tensor(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    dim = axis if dim is None else dim
    if dim is None:
        x, d = x.reshape([-1]), 0
    else:
        d = _norm(dim, x.ndim, "repeat_interleave")
        if x.ndim == 0:
            x = x.reshape([1])
    n = x.shape[d]
    if isinstance(repeats, Tensor) and repeats.numel() != 1 or isinstance(repeats, (list, tuple)):
        counts = np.asarray(_int_list(repeats), dtype=np.int64)
        if counts.size != n:
            raise ValueError(
                f"repeat_interleave: {counts.size} repeat counts for a dimension of size {n}"
            )
        if (counts < 0).any():
            raise ValueError("repeat_interleave: repeats must be non-negative")
        idx = np.repeat(np.arange(n, dtype=np.int64), counts)
        return x.index_select(d, _core.tensor(idx))
    r = int(repeats.item()) if isinstance(repeats, Tensor) else operator.index(repeats)
    if r < 0:
        raise ValueError(f"repeat_interleave: repeats must be non-negative, got {r}")
    shape = list(x.shape)
    big = shape[: d + 1] + [r] + shape[d + 1 :]
    merged = shape[:d] + [n * r] + shape[d + 1 :]
    return x.unsqueeze(d + 1).expand(big).reshape(merged)


def _tri_diagonal(diagonal: Any, ndim: int, op: str) -> int:
    """The checked ``diagonal`` of ``tril``/``triu``: a Python int (Paddle's
    ``_tril_triu_op`` TypeError / ValueError texts, which its tests match)."""
    if ndim < 2:
        raise ValueError(
            f"x shape in {op} must be at least 2-D: {op} needs at least 2 dimensions, got {ndim}"
        )
    try:
        return operator.index(diagonal)
    except TypeError:
        raise TypeError(
            f"diagonal in {op} must be a python Int, got {type(diagonal).__name__}"
        ) from None


def _tri(x: Tensor, diagonal: int, lower: bool, op: str) -> Tensor:
    k = _tri_diagonal(diagonal, x.ndim, op)
    r, c = x.shape[-2], x.shape[-1]
    mask = np.tri(r, c, k, dtype=bool) if lower else ~np.tri(r, c, k - 1, dtype=bool)
    return _core.where(_core.tensor(mask), x, _core.zeros([], dtype=x.dtype))


def tril(x: Tensor, diagonal: int = 0, name: Any = None) -> Tensor:
    """The lower triangle of the last two dimensions (elements with ``col - row <=
    diagonal``); zeros elsewhere."""
    return _tri(x, diagonal, True, "tril")


def triu(x: Tensor, diagonal: int = 0, name: Any = None) -> Tensor:
    """The upper triangle of the last two dimensions (elements with ``col - row >=
    diagonal``); zeros elsewhere."""
    return _tri(x, diagonal, False, "triu")


def _diag_positions(rows: int, cols: int, offset: int) -> np.ndarray:
    """Row-major positions of diagonal ``offset`` in a ``rows x cols`` matrix."""
    if offset >= 0:
        n = max(0, min(rows, cols - offset))
        i = np.arange(n, dtype=np.int64)
        return i * cols + i + offset
    n = max(0, min(rows + offset, cols))
    i = np.arange(n, dtype=np.int64)
    return (i - offset) * cols + i


def movedim(x: Tensor, source: Any, destination: Any, name: Any = None) -> Tensor:
    """Dimensions ``source`` moved to positions ``destination`` (the others keep their
    order); a view. Paddle's ``moveaxis`` is the same."""
    src = _unique_dims(_int_list(source), x.ndim, "movedim")
    dst = _unique_dims(_int_list(destination), x.ndim, "movedim")
    if len(src) != len(dst):
        raise ValueError(f"movedim: {len(src)} source dim(s) but {len(dst)} destination(s)")
    if x.ndim == 0:  # dims 0 / -1 of a 0-d tensor: a no-op view (PyTorch's movedim)
        return x.view([])
    rest = [d for d in range(x.ndim) if d not in src]
    perm = [-1] * x.ndim
    for s, t in zip(src, dst):
        perm[t] = s
    it = iter(rest)
    perm = [p if p >= 0 else next(it) for p in perm]
    return x.permute(perm) if x.ndim else x


def diagonal(
    x: Tensor,
    offset: int = 0,
    dim1: Any = None,
    dim2: Any = None,
    *,
    axis1: Any = None,
    axis2: Any = None,
    name: Any = None,
) -> Tensor:
    """The diagonal ``offset`` of the planes of ``dim1`` / ``axis1`` (default 0) and
    ``dim2`` / ``axis2`` (default 1), as the last dimension of the result: a view of
    ``x``, as PyTorch's (``x.diagonal().fill_(0)`` writes into ``x``); a copy only where
    ``x`` has a negative stride (a reversed view, which PyTorch has no form of)."""
    d1 = 0 if dim1 is None and axis1 is None else dim1 if dim1 is not None else axis1
    d2 = 1 if dim2 is None and axis2 is None else dim2 if dim2 is not None else axis2
    return _diagonal(x, offset, d1, d2, view=True)


def _diagonal(x: Tensor, offset: int, d1: Any, d2: Any, view: bool = False) -> Tensor:
    """The diagonal as the last dim: a view of ``x`` with ``view`` (where its strides
    allow), else a copy (``diag`` and ``trace`` take one, as PyTorch's ``diag``)."""
    if x.ndim < 2:
        raise ValueError(f"diagonal: needs a tensor of at least 2 dimensions, got {x.ndim}")
    a, b = _unique_dims([d1, d2], x.ndim, "diagonal")
    k = operator.index(offset)
    m = movedim(x, [a, b], [x.ndim - 2, x.ndim - 1])
    r, c = m.shape[-2], m.shape[-1]
    if view:
        lead = list(m.shape[:-2])
        n = max(0, min(r, c - k)) if k >= 0 else max(0, min(r + k, c))
        st = m.stride()
        if st[-1] == st[-2] * r and st[-2] != st[-1] * c:
            # a transposed plane: diagonal k of m is diagonal -k of m's transpose, in the
            # same order, and that plane merges
            m, r, c, k = m.transpose(-2, -1), c, r, -k
            st = m.stride()
        if st[-2] == st[-1] * c:
            # the plane's two dims merge into one (a view): the diagonal is a strided
            # slice of it, whose backward is a strided write (as_strided's goes through
            # the memory with index vectors: 4x slower on a 2048^2 matrix, 40x transposed)
            start = (k if k >= 0 else -k * c) if n else 0
            flat = m.reshape(lead + [r * c])
            return flat[..., start : start + (n - 1) * (c + 1) + 1 : c + 1] if n else flat[..., :0]
        if all(v >= 0 for v in st):
            # (an empty diagonal starts at x's own first element: past the plane is past
            # the memory)
            start = (k * st[-1] if k >= 0 else -k * st[-2]) if n else 0
            return x._as_strided(
                lead + [n], list(st[:-2]) + [st[-2] + st[-1]], x.storage_offset() + start
            )
    pos = _diag_positions(r, c, k)
    flat = m.reshape(list(m.shape[:-2]) + [r * c])
    return flat.index_select(flat.ndim - 1, _core.tensor(pos))


def diag_embed(
    x: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1, name: Any = None
) -> Tensor:
    """Matrices whose diagonal ``offset`` (in the planes of ``dim1``, ``dim2`` of the
    result) holds the last dimension of ``x``; zeros elsewhere."""
    if x.ndim == 0:
        raise ValueError("diag_embed: needs a tensor of at least 1 dimension")
    n = x.shape[-1]
    k = operator.index(offset)
    m = n + abs(k)
    out_nd = x.ndim + 1
    a, b = _unique_dims([dim1, dim2], out_nd, "diag_embed")
    pos = _diag_positions(m, m, k)
    src = np.full(m * m, n, dtype=np.int64)
    src[pos] = np.arange(n, dtype=np.int64)
    padded = _core.concat([x, _core.zeros(list(x.shape[:-1]) + [1], dtype=x.dtype)], x.ndim - 1)
    mats = padded.index_select(x.ndim - 1, _core.tensor(src))
    mats = mats.reshape(list(x.shape[:-1]) + [m, m])
    return movedim(mats, [out_nd - 2, out_nd - 1], [a, b])


def diag(
    x: Tensor, diagonal: int = 0, padding_value: Any = 0, name: Any = None, *, offset: Any = None
) -> Tensor:
    """A 1-D ``x`` placed on diagonal ``diagonal`` / ``offset`` of a square matrix (the
    rest ``padding_value``, Paddle), or the diagonal of a 2-D ``x`` as a 1-D tensor."""
    k = operator.index(diagonal if offset is None else offset)
    if x.ndim == 1:
        n = x.shape[0]
        m = n + abs(k)
        src = np.full(m * m, n, dtype=np.int64)
        src[_diag_positions(m, m, k)] = np.arange(n, dtype=np.int64)
        fill = _core.full([1], padding_value, dtype=x.dtype)
        padded = _core.concat([x, fill], 0)
        return padded.index_select(0, _core.tensor(src)).reshape([m, m])
    if x.ndim == 2:
        return _diagonal(x, k, 0, 1)
    raise ValueError(f"diag: takes a 1-D or 2-D tensor, got {x.ndim} dimensions")


def trace(x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: Any = None) -> Tensor:
    """Sum of diagonal ``offset`` of the planes ``axis1``, ``axis2`` (Paddle); for a
    matrix, PyTorch's ``trace``."""
    if x.ndim < 2:
        raise ValueError(f"trace: needs a tensor of at least 2 dimensions, got {x.ndim}")
    return _diagonal(x, offset, axis1, axis2).sum(-1)


def narrow(x: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """The view ``x[..., start:start+length, ...]`` along ``dim`` (``start`` may be
    negative or a 0-d tensor); IndexError if it leaves the dimension."""
    if x.ndim == 0:
        raise IndexError("narrow: a 0-d tensor has no dimension to narrow")
    d = _norm(dim, x.ndim, "narrow")
    n = x.shape[d]
    s = int(start.item()) if isinstance(start, Tensor) else operator.index(start)
    length = operator.index(length)
    if s < 0:
        s += n
    if not 0 <= s <= n or length < 0 or s + length > n:
        raise IndexError(
            f"narrow: start {start} and length {length} leave dimension {d} of size {n}"
        )
    return x[tuple([slice(None)] * d + [slice(s, s + length)])]


def ravel(x: Tensor) -> Tensor:
    """``x`` flattened to one contiguous dimension, a copy only where needed (PyTorch's
    ``torch.ravel``: ``contiguous().view(-1)``)."""
    return x.contiguous().reshape([-1])


def swapaxes(x: Tensor, axis0: int, axis1: int) -> Tensor:
    """Dimensions ``axis0`` and ``axis1`` exchanged (a view); PyTorch's ``swapdims``."""
    if x.ndim == 0:
        _norm(axis0, 0, "swapaxes")  # only validates: a 0-d tensor takes 0 / -1
        _norm(axis1, 0, "swapaxes")
        return x
    a, b = _norm(axis0, x.ndim, "swapaxes"), _norm(axis1, x.ndim, "swapaxes")
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return x.permute(perm)


def unflatten(
    x: Tensor,
    dim: Any = None,
    sizes: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    shape: Any = None,
) -> Tensor:
    """Dimension ``dim`` / ``axis`` split into ``sizes`` / ``shape`` (one may be -1)."""
    dim = axis if dim is None else dim
    sizes = shape if sizes is None else sizes
    if dim is None or sizes is None:
        raise TypeError("unflatten() needs a dimension and the sizes to split it into")
    d = _norm(dim, x.ndim, "unflatten")
    sizes = _int_list(sizes)
    if not sizes:
        raise ValueError("unflatten: sizes must not be empty")
    if x.ndim == 0:  # PyTorch: "Dimension specified as 0 but tensor has no dimensions"
        raise ValueError("unflatten: a 0-d tensor has no dimension to unflatten")
    shape = list(x.shape)
    n = shape[d]
    # a -1 is inferred from the size of dim alone (PyTorch's infer_size), not from the
    # whole tensor, which may have no elements while dim has some
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise ValueError(f"unflatten: invalid sizes {sizes}: sizes >= 0 and at most one -1")
    known = math.prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or n % known:
            raise ValueError(
                f"unflatten: cannot infer the -1 in {sizes} for a dimension of size {n}"
            )
        sizes = [n // known if s == -1 else s for s in sizes]
    elif known != n:
        raise ValueError(f"unflatten: sizes {sizes} do not multiply to the dimension's size {n}")
    return x.reshape(shape[:d] + sizes + shape[d + 1 :])


def unstack(x: Tensor, axis: int = 0, num: Any = None, name: Any = None) -> list[Tensor]:
    """Paddle's ``unstack``: the slices along ``axis`` as a list (``num`` must match)."""
    if x.ndim == 0:
        raise ValueError("unstack: needs a tensor of at least 1 dimension")
    d = _norm(axis, x.ndim, "unstack")
    if num is not None and num != x.shape[d]:
        raise ValueError(f"unstack: num={num} but dimension {d} has size {x.shape[d]}")
    return list(x.unbind(d))


def _tensor_list(args: tuple) -> list[Tensor]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return [a if isinstance(a, Tensor) else _core.tensor(a) for a in args]


def meshgrid(*tensors: Any, indexing: str | None = None, name: Any = None) -> list[Tensor]:
    """Coordinate grids from 0-d / 1-D tensors (given as arguments or as one list):
    ``indexing='ij'`` (default, matrix) or ``'xy'`` (Cartesian: the first two swapped)."""
    ts = _tensor_list(tensors)
    indexing = indexing or "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    for t in ts:
        if t.ndim > 1:
            raise ValueError(f"meshgrid: expects 0-d or 1-D tensors, got shape {list(t.shape)}")
    sizes = [t.numel() for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(ts):
        pos = (1 - i if i < 2 else i) if swap else i
        shape = [1] * len(ts)
        shape[pos] = -1
        out.append(t.reshape(shape).expand(sizes))
    return out


def broadcast_tensors(*tensors: Any, input: Any = None, name: Any = None) -> list[Tensor]:
    """The tensors (as arguments, or one list: Paddle's ``input``) broadcast to one shape
    (views)."""
    if input is not None:
        if tensors:
            raise TypeError("broadcast_tensors() got the tensors both positionally and as input=")
        tensors = (input,)
    ts = _tensor_list(tensors)
    try:
        shape = list(np.broadcast_shapes(*[tuple(t.shape) for t in ts]))
    except ValueError:
        shapes = [list(t.shape) for t in ts]
        raise ValueError(f"broadcast_tensors: shapes {shapes} do not broadcast together") from None
    return [t.expand(shape) for t in ts]


#: Tensor methods: name -> function (dialect aliases share one function).
# the core's unsqueeze: a list of axes is NumPy's (positions in the result)
_UNSQUEEZE = Tensor.unsqueeze


def _insert_positions(axes: list[int], ndim: int) -> list[int]:
    """Paddle's ``GetUnsqueezeShape``: each axis inserted in turn into the shape built so
    far (a negative one counts from that shape's end); the final positions of the new
    dims, sorted (the core's list form)."""
    cur = ndim
    marks: list[int] = []
    for a in axes:
        p = a + cur + 1 if a < 0 else a
        if not 0 <= p <= cur:
            raise IndexError(
                f"unsqueeze: axis {a} is out of range for inserting into a shape of {cur} "
                f"dimension(s) (expected a value in [{-cur - 1}, {cur}])"
            )
        marks = [m + 1 if m >= p else m for m in marks] + [p]
        cur += 1
    return sorted(marks)


def unsqueeze(self: Tensor, axis: Any = None, name: Any = None, *, dim: Any = None) -> Tensor:
    """Inserts size-1 dims at ``axis``/``dim``: an int (both peers), or Paddle's list of
    axes, inserted one by one into the shape built so far (``[5]`` with ``[1, 0]`` gives
    ``[1, 5, 1]``, as Paddle's ``GetUnsqueezeShape``). (The first parameter is named as
    the method's: this one function is both ``Tensor.unsqueeze`` and the module function.)"""
    if axis.__class__ is int and dim is None and name is None:  # (the common call, cheap)
        return _UNSQUEEZE(self, axis)
    ax = axis if dim is None else dim
    if isinstance(ax, (list, tuple, Tensor)) and isinstance(self, Tensor):
        axes = _int_list(ax)
        if len(axes) > 1:
            return _UNSQUEEZE(self, _insert_positions(axes, self.ndim))
    return _UNSQUEEZE(self, axis, name, dim=dim)


_TENSOR_METHODS = {
    "unsqueeze": unsqueeze,
    "flip": flip,
    "roll": roll,
    "rot90": rot90,
    "tile": tile,
    "repeat": repeat,
    "repeat_interleave": repeat_interleave,
    "tril": tril,
    "triu": triu,
    "diag": diag,
    "diag_embed": diag_embed,
    "diagonal": diagonal,
    "trace": trace,
    "narrow": narrow,
    "movedim": movedim,
    "moveaxis": movedim,
    "swapaxes": swapaxes,
    "swapdims": swapaxes,
    "unflatten": unflatten,
    "unstack": unstack,
}


def _tri_inplace(fn: Any, name: str) -> Any:
    def method(self: Tensor, diagonal: int = 0) -> Tensor:
        src = self.clone() if self.requires_grad else self
        self.copy_(fn(src, diagonal))
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method


def install() -> None:
    """Attaches the shape ops as ``Tensor`` methods."""
    for name, fn in _TENSOR_METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.tril_ = _tri_inplace(tril, "tril_")  # type: ignore[method-assign]
    Tensor.triu_ = _tri_inplace(triu, "triu_")  # type: ignore[method-assign]
