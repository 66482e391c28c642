"""Stacking and splitting helpers both peers have (``hstack``, ``vstack``, ``dstack``,
``column_stack``, ``tensor_split``, ``hsplit``/``vsplit``/``dsplit``, ``atleast_Nd``,
``block_diag``, ``cartesian_prod``, ``flipud``/``fliplr``, ``take_along_dim``), composed
of differentiable ops (reshape, cat, narrow, pad, gather), so gradients of any order come
from those ops."""

from __future__ import annotations

import operator
from typing import Any, Sequence

from . import _core
from ._dialect import caller_dialect
from ._index_sign import see_through

Tensor = _core.Tensor

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block_diag",
    "cartesian_prod",
    "column_stack",
    "concatenate",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "row_stack",
    "take_along_dim",
    "tensor_split",
    "vsplit",
    "vstack",
]


def _tensors(op: str, tensors: Any) -> list[Tensor]:
    items = list(tensors)
    if not items:
        raise ValueError(f"{op}: expects a non-empty sequence of tensors")
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: item {i} is a {type(t).__name__}, not a Tensor")
    return items


def _atleast(nd: int, shape_of: Any, tensors: tuple[Any, ...]) -> Any:
    items = (
        list(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple))
        else list(tensors)
    )
    out = tuple(t if t.ndim >= nd else t.reshape(shape_of(list(t.shape))) for t in items)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


def _as_list_in_paddle(out: Any) -> Any:
    # Paddle's atleast_Nd returns a list for several inputs, PyTorch's a tuple
    return list(out) if isinstance(out, tuple) and caller_dialect(3) == "paddle" else out


def atleast_1d(*tensors: Any, name: Any = None) -> Any:
    """Each tensor with at least 1 dimension (a 0-d tensor becomes shape ``[1]``); one
    tensor in gives one out, several (or a sequence) give a tuple (a list in Paddle
    code, as Paddle)."""
    return _as_list_in_paddle(_atleast(1, lambda s: [1], tensors))


def atleast_2d(*tensors: Any, name: Any = None) -> Any:
    """Each tensor with at least 2 dimensions: ``[] -> [1, 1]``, ``[n] -> [1, n]``
    (several: a tuple, a list in Paddle code)."""
    return _as_list_in_paddle(_atleast(2, lambda s: [1, *s] if s else [1, 1], tensors))


def atleast_3d(*tensors: Any, name: Any = None) -> Any:
    """Each tensor with at least 3 dimensions: ``[] -> [1, 1, 1]``, ``[n] -> [1, n, 1]``,
    ``[m, n] -> [m, n, 1]`` (several: a tuple, a list in Paddle code)."""
    return _as_list_in_paddle(
        _atleast(3, lambda s: [*s, 1] if len(s) == 2 else [1, *s, 1] if s else [1, 1, 1], tensors)
    )


def hstack(tensors: Sequence[Tensor], name: Any = None) -> Tensor:
    """Concatenation along dimension 1 (along 0 when every tensor is 1-d)."""
    items = [atleast_1d(t) for t in _tensors("hstack", tensors)]
    return _core.concat(items, 0 if all(t.ndim == 1 for t in items) else 1)


def vstack(tensors: Sequence[Tensor], name: Any = None) -> Tensor:
    """Concatenation along dimension 0 after making each tensor at least 2-d (``row_stack``)."""
    return _core.concat([atleast_2d(t) for t in _tensors("vstack", tensors)], 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor], name: Any = None) -> Tensor:
    """Concatenation along dimension 2 after making each tensor at least 3-d."""
    return _core.concat([atleast_3d(t) for t in _tensors("dstack", tensors)], 2)


def column_stack(tensors: Sequence[Tensor], name: Any = None) -> Tensor:
    """Columns side by side: 0-d and 1-d tensors become columns ``[n, 1]``, then all are
    concatenated along dimension 1."""
    items = [
        t.reshape([t.numel(), 1]) if t.ndim <= 1 else t for t in _tensors("column_stack", tensors)
    ]
    return _core.concat(items, 1)


def concatenate(
    tensors: Sequence[Tensor], axis: int = 0, out: Any = None, *, dim: Any = None
) -> Tensor:
    """NumPy's spelling of ``cat`` / ``concat`` (``axis`` or ``dim``)."""
    if out is not None:
        raise TypeError("concatenate: out= is not supported; assign the result instead")
    return _core.concat(_tensors("concatenate", tensors), axis if dim is None else dim)


# More sections than elements give empty pieces (as in PyTorch); beyond this many the
# request is refused rather than building a list of that many tensors.
_MAX_EMPTY_PIECES = 1 << 16


def _dim(x: Tensor, dim: Any, op: str) -> int:
    d = operator.index(dim)
    n = max(x.ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"{op}: dim {d} is out of range for a tensor with {x.ndim} dimension(s)")
    return d % n


def _sections(op: str, indices_or_sections: Any, num_or_indices: Any) -> Any:
    """The sections argument under PyTorch's name or Paddle's ``num_or_indices``."""
    if (indices_or_sections is None) == (num_or_indices is None):
        raise TypeError(
            f"{op}() needs the sections once: indices_or_sections (PyTorch) or "
            "num_or_indices (Paddle)"
        )
    return indices_or_sections if num_or_indices is None else num_or_indices


def tensor_split(
    x: Tensor,
    indices_or_sections: Any = None,
    dim: int = 0,
    *,
    axis: Any = None,
    num_or_indices: Any = None,
    name: Any = None,
) -> tuple[Tensor, ...]:
    """Views of ``x`` split along ``dim`` (Paddle: ``axis``): into ``n`` nearly equal parts
    (an int: the first ``size % n`` parts are one longer), or at the given indices (a
    list); the sections are ``indices_or_sections`` or Paddle's ``num_or_indices``."""
    indices_or_sections = _sections("tensor_split", indices_or_sections, num_or_indices)
    if x.ndim == 0:
        raise ValueError("tensor_split: expects a tensor with at least 1 dimension")
    d = _dim(x, dim if axis is None else axis, "tensor_split")
    size = x.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        n = indices_or_sections
        if n <= 0:
            raise ValueError(f"tensor_split: the number of sections must be positive, got {n}")
        if n > max(size, _MAX_EMPTY_PIECES):
            raise ValueError(
                f"tensor_split: {n} sections of a dimension of size {size} would return {n} "
                f"tensors, nearly all empty; ask for at most max(size, {_MAX_EMPTY_PIECES})"
            )
        q, r = divmod(size, n)
        bounds, at = [], 0
        for i in range(n - 1):
            at += q + (1 if i < r else 0)
            bounds.append(at)
    else:
        bounds = [operator.index(i) for i in indices_or_sections]
    # piece i is x[bounds[i-1]:bounds[i]] with Python's slicing rule (PyTorch's slice):
    # a bound below an earlier one gives an empty piece, and the next piece starts there
    out, start = [], 0
    for b in [*bounds, size]:
        b = min(max(b + size if b < 0 else b, 0), size)
        out.append(x.narrow(d, start, max(b - start, 0)))
        start = b
    return tuple(out)


def _split_exact(x: Tensor, sections: Any, d: int, op: str) -> tuple[Tensor, ...]:
    if isinstance(sections, int) and not isinstance(sections, bool) and x.shape[d] % sections:
        raise ValueError(
            f"{op}: dimension {d} of size {x.shape[d]} does not split into {sections} equal "
            "parts; use tensor_split for unequal parts"
        )
    return tensor_split(x, sections, d)


def hsplit(
    x: Tensor, indices_or_sections: Any = None, *, num_or_indices: Any = None, name: Any = None
) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 1 (0 for a 1-d tensor); an int must divide evenly
    (Paddle's keyword: ``num_or_indices``)."""
    indices_or_sections = _sections("hsplit", indices_or_sections, num_or_indices)
    if x.ndim == 0:
        raise ValueError("hsplit: expects a tensor with at least 1 dimension")
    return _split_exact(x, indices_or_sections, 0 if x.ndim == 1 else 1, "hsplit")


def vsplit(
    x: Tensor, indices_or_sections: Any = None, *, num_or_indices: Any = None, name: Any = None
) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 0 of a tensor with at least 2 dimensions (Paddle's
    keyword: ``num_or_indices``)."""
    indices_or_sections = _sections("vsplit", indices_or_sections, num_or_indices)
    if x.ndim < 2:
        raise ValueError(f"vsplit: expects a tensor with at least 2 dimensions, got {x.ndim}")
    return _split_exact(x, indices_or_sections, 0, "vsplit")


def dsplit(
    x: Tensor, indices_or_sections: Any = None, *, num_or_indices: Any = None, name: Any = None
) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 2 of a tensor with at least 3 dimensions (Paddle's
    keyword: ``num_or_indices``)."""
    indices_or_sections = _sections("dsplit", indices_or_sections, num_or_indices)
    if x.ndim < 3:
        raise ValueError(f"dsplit: expects a tensor with at least 3 dimensions, got {x.ndim}")
    return _split_exact(x, indices_or_sections, 2, "dsplit")


def _promote(a: Any, b: Any) -> Any:
    """The promoted dtype of two dtypes (``a`` None: ``b``), bool with bool staying bool."""
    if a is None or a == b:
        return b
    if a == _core.bool or b == _core.bool:  # bool promotes to the other dtype
        return b if a == _core.bool else a
    return (_core.zeros([0], dtype=a) + _core.zeros([0], dtype=b)).dtype


def _result_type(tensors: list[Tensor]) -> Any:
    """PyTorch's ``result_type`` of a list of tensors: the dimensioned ones promote among
    themselves, so do the 0-d ones, and a 0-d dtype counts only when its category (bool <
    integer < floating < complex) is higher (``float64[]`` beside ``float32[2]``:
    float32; ``int64[]`` beside ``int32[2]``: int32; ``float64[]`` beside ``int32[2]``:
    float64)."""
    dims = zero = None
    for t in tensors:
        if t.ndim:
            dims = _promote(dims, t.dtype)
        else:
            zero = _promote(zero, t.dtype)
    if dims is None or zero is None or dims == zero:
        return dims if zero is None else zero
    # ferrograd's arithmetic applies PyTorch's 0-d rule (its own code has no dialect)
    if dims == _core.bool:
        return zero
    return (_core.zeros([0], dtype=dims) + _core.zeros([], dtype=zero)).dtype


def _one_list(tensors: tuple[Any, ...]) -> tuple[Any, ...]:
    """Paddle passes one list of tensors (``block_diag(inputs)``, ``cartesian_prod(x)``),
    PyTorch the tensors themselves."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tensors


def block_diag(*tensors: Any, name: Any = None) -> Tensor:
    """A block-diagonal matrix of the inputs (0-d -> ``[1, 1]``, 1-d ``[n]`` -> ``[1, n]``,
    2-d as they are), zeros elsewhere; the dtype is PyTorch's ``result_type`` of the
    inputs, where a 0-d block of the same category does not widen it (``float64[]`` beside
    ``float32[2]`` gives float32). Paddle's one list of tensors is accepted too."""
    tensors = _one_list(tensors)
    items = [
        t.reshape([1, 1]) if t.ndim == 0 else t.reshape([1, t.shape[0]]) if t.ndim == 1 else t
        for t in _tensors("block_diag", tensors)
    ]
    for i, t in enumerate(items):
        if t.ndim != 2:
            raise ValueError(
                f"block_diag: input {i} has {t.ndim} dimensions; at most 2 are allowed"
            )
    dtype = _result_type(list(tensors))
    cols = sum(t.shape[1] for t in items)
    rows, left = [], 0
    for t in items:
        r, c = t.shape
        parts = [
            _core.zeros([r, left], dtype=dtype),
            t.astype(dtype) if t.dtype != dtype else t,
            _core.zeros([r, cols - left - c], dtype=dtype),
        ]
        rows.append(_core.concat(parts, 1))
        left += c
    return _core.concat(rows, 0)


def cartesian_prod(*tensors: Any, name: Any = None) -> Tensor:
    """All combinations of the elements of 1-d tensors, one per row (``[n1 * n2 ..., k]``);
    a single tensor is returned as it is. Paddle's one list of tensors is accepted too."""
    items = _tensors("cartesian_prod", _one_list(tensors))
    for i, t in enumerate(items):
        if t.ndim != 1:
            raise ValueError(f"cartesian_prod: input {i} must be 1-d, got {t.ndim} dimensions")
    if len(items) == 1:
        return items[0]
    from ._ops_shape import meshgrid

    grids = meshgrid(*items, indexing="ij")
    return _core.stack([g.reshape([-1]) for g in grids], 1)


def flipud(x: Tensor) -> Tensor:
    """``x`` reversed along dimension 0."""
    if x.ndim < 1:
        raise ValueError("flipud: expects a tensor with at least 1 dimension")
    return x.flip([0])


def fliplr(x: Tensor) -> Tensor:
    """``x`` reversed along dimension 1."""
    if x.ndim < 2:
        raise ValueError(f"fliplr: expects a tensor with at least 2 dimensions, got {x.ndim}")
    return x.flip([1])


def take_along_dim(x: Tensor, indices: Tensor, dim: Any = None) -> Tensor:
    """Values of ``x`` at ``indices`` along ``dim`` (both broadcast against each other in
    the other dimensions); without ``dim``, indices into the flattened ``x``."""
    if dim is None:
        return x.reshape([-1]).gather(0, indices.reshape([-1]))
    d = _dim(x, dim, "take_along_dim")
    if indices.ndim != x.ndim:
        raise ValueError(
            f"take_along_dim: indices have {indices.ndim} dimensions but the tensor has {x.ndim}"
        )
    xs, js = list(x.shape), list(indices.shape)
    for i in range(x.ndim):
        if i != d and xs[i] != js[i] and 1 not in (xs[i], js[i]):
            raise ValueError(
                f"take_along_dim: shapes {xs} and {js} do not broadcast outside dimension {d}"
            )
    bx = [max(a, b) if i != d else xs[i] for i, (a, b) in enumerate(zip(xs, js))]
    bj = [max(a, b) if i != d else js[i] for i, (a, b) in enumerate(zip(xs, js))]
    return x.expand(bx).gather(d, indices.expand(bj))


see_through(take_along_dim)  # (gather's PyTorch index rule names take_along_dim)
