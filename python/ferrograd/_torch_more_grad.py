"""PyTorch's ``gradient`` (numerical derivative, as ``numpy.gradient``) and
``as_strided_scatter``, both composed of differentiable ops (slicing, arithmetic,
``concat``, ``scatter``), so gradients flow through them.

``gradient`` follows aten/src/ATen/native/ReduceOps.cpp (``pre_check_gradient``,
``gradient_helper`` for coordinate tensors, ``gradient_helper_float`` for scalar
spacing); ``as_strided_scatter`` follows aten/src/ATen/native/TensorShape.cpp
(``as_strided_scatter_symint``: a copy of the input's memory with the strided view of it
overwritten by ``src``).
"""

from __future__ import annotations

import numbers
import operator
from typing import Any, Optional

import numpy as np

from . import _core

Tensor = _core.Tensor

__all__ = ["as_strided_scatter", "gradient"]


def _dims(x: Tensor, dim: Any) -> list[int]:
    """The differentiated dims, wrapped, each once (PyTorch's messages)."""
    if dim is None:
        return list(range(x.ndim))
    raw = [dim] if not isinstance(dim, (list, tuple)) else list(dim)
    out: list[int] = []
    for d in raw:
        d = operator.index(d)
        if not -max(x.ndim, 1) <= d < max(x.ndim, 1):
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-x.ndim}, "
                f"{x.ndim - 1}], but got {d})"
            )
        d %= max(x.ndim, 1)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return out


def _spacings(x: Tensor, spacing: Any, dims: list[int], dim_given: bool) -> list[Any]:
    """One spacing per differentiated dim: a number or a 1-D coordinate tensor."""
    if isinstance(spacing, numbers.Number) and not isinstance(spacing, bool):
        return [spacing] * len(dims)
    if isinstance(spacing, Tensor) and spacing.ndim == 0:
        return [spacing.item()] * len(dims)
    if not isinstance(spacing, (list, tuple)):
        raise TypeError(
            "torch.gradient expected spacing to be a scalar, a list of scalars or a list of "
            f"1-D tensors, got {type(spacing).__name__}"
        )
    if not dim_given and len(spacing) != x.ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of "
            f"length equal to 'self.dim() = {x.ndim}', since dim argument was not given, "
            f"but got a list of length {len(spacing)}"
        )
    if dim_given and len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            f"dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}."
        )
    out = list(spacing)
    if any(isinstance(s, Tensor) for s in out) and not all(isinstance(s, Tensor) for s in out):
        raise TypeError("torch.gradient expected spacing to be all scalars or all tensors")
    for s, d in zip(out, dims):
        if isinstance(s, Tensor):
            if s.ndim != 1:
                raise RuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, "
                    f"but got an element with {s.ndim} dimensions!"
                )
            if s.shape[0] != x.shape[d]:
                # PyTorch fails inside its arithmetic here; name the mismatch instead
                raise RuntimeError(
                    f"torch.gradient expected the coordinates for dim {d} to have "
                    f"{x.shape[d]} elements (the size of that dim), got {s.shape[0]}"
                )
        elif not isinstance(s, numbers.Number) or isinstance(s, bool):
            raise TypeError(f"torch.gradient: spacing element {s!r} is not a number")
    return out


def _sl(x: Tensor, d: int, start: int, stop: Optional[int] = None) -> Tensor:
    """``x`` sliced ``start:stop`` along ``d`` (negative bounds count from the end)."""
    n = x.shape[d]
    a = start % n if start < 0 else start
    b = n if stop is None else (stop % n if stop < 0 else stop)
    return x.narrow(d, a, b - a)


def _uniform(x: Tensor, d: int, h: Any, edge: int) -> Tensor:
    """The derivative along ``d`` for a uniform spacing ``h``."""
    center = (_sl(x, d, 2) - _sl(x, d, 0, -2)) / h / 2
    if edge == 1:
        first = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / h
        last = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / h
    else:
        first = (-1.5 * _sl(x, d, 0, 1) + 2 * _sl(x, d, 1, 2) - 0.5 * _sl(x, d, 2, 3)) / h
        last = (0.5 * _sl(x, d, -3, -2) - 2 * _sl(x, d, -2, -1) + 1.5 * _sl(x, d, -1)) / h
    return _core.concat([first, center, last], d)


def _coordinates(x: Tensor, d: int, coords: Tensor, edge: int) -> Tensor:
    """The derivative along ``d`` at the (possibly uneven) ``coords``."""
    if not (coords.dtype.is_floating_point or coords.dtype.is_complex):
        coords = coords.to(_core._get_default_dtype())
    shape = [1] * x.ndim
    shape[d] = -1
    dx = coords[1:] - coords[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _sl(x, d, 0, -2) + b * _sl(x, d, 1, -1) + c * _sl(x, d, 2)
    h0, h1, hm1, hm2 = dx[0], dx[1] if dx.shape[0] > 1 else dx[0], dx[-1], dx[-2 % dx.shape[0]]
    if edge == 1:
        first = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / h0
        last = (_sl(x, d, -1) - _sl(x, d, -2, -1)) / hm1
    else:
        first = (
            -(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _sl(x, d, 0, 1)
            + (h0 + h1) / (h0 * h1) * _sl(x, d, 1, 2)
            - h0 / (h1 * (h0 + h1)) * _sl(x, d, 2, 3)
        )
        last = (
            hm1 / (hm2 * (hm1 + hm2)) * _sl(x, d, -3, -2)
            - (hm1 + hm2) / (hm1 * hm2) * _sl(x, d, -2, -1)
            + (2 * hm1 + hm2) / (hm1 * (hm1 + hm2)) * _sl(x, d, -1)
        )
    return _core.concat([first, center, last], d)


def gradient(
    input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1
) -> tuple[Tensor, ...]:
    """``torch.gradient(input, *, spacing=1, dim=None, edge_order=1)``: the derivative
    of ``input`` along each dim in ``dim`` (default: all), one tensor per dim, by
    second-order central differences inside and one-sided differences of order
    ``edge_order`` (1 or 2) at both ends, as ``numpy.gradient``. ``spacing`` is one
    number for every dim, a list of numbers (one per dim) or a list of 1-D coordinate
    tensors (one per dim, as long as that dim). Integer input gives the default
    floating dtype; each differentiated dim needs at least ``edge_order + 1`` elements.
    Differentiable in ``input`` and the coordinates."""
    if not isinstance(input, Tensor):
        raise TypeError(f"gradient(): argument 'input' must be Tensor, not {type(input).__name__}")
    edge = operator.index(edge_order)
    if edge not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if input.dtype == _core.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if input.dtype == _core.bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    dims = _dims(input, dim)
    steps = _spacings(input, spacing, dims, dim is not None)
    for d in dims:
        if input.shape[d] < edge + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    x = input
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(_core._get_default_dtype())  # PyTorch's true division does the same
    return tuple(
        _coordinates(x, d, h, edge) if isinstance(h, Tensor) else _uniform(x, d, h, edge)
        for d, h in zip(dims, steps)
    )


def _positions(shape: list[int], strides: list[int], offset: int) -> np.ndarray:
    """The memory position of each element (row-major order) of a strided view."""
    pos = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        view = [1] * len(shape)
        view[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape(view)
    return pos.reshape(-1)


def as_strided_scatter(
    input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: Optional[int] = None
) -> Tensor:
    """``torch.as_strided_scatter(input, src, size, stride, storage_offset=None)``: a
    copy of ``input`` in which the view ``input.as_strided(size, stride,
    storage_offset)`` is overwritten with ``src`` (shaped ``size``; cast to ``input``'s
    dtype). Positions count in the memory of PyTorch's copy of ``input``
    (``clone_preserve_strides``): ``input``'s own memory, with its strides and storage
    offset, except for an input whose elements overlap (expanded: a stride 0 over a size
    above 1), whose copy is a contiguous clone (offset 0). A view whose elements overlap is
    refused (PyTorch's ``copy_`` refuses it too). Differentiable in ``input`` and ``src``."""
    if not isinstance(input, Tensor) or not isinstance(src, Tensor):
        raise TypeError("as_strided_scatter(): input and src must be Tensors")
    if any(s == 0 and n > 1 for n, s in zip(input.shape, input.stride())):
        # aten clone_preserve_strides (TensorShape.cpp): at::has_internal_overlap is Yes,
        # so the copy is self.clone(), contiguous; size/stride/offset address that copy
        input = input.contiguous()
    view = input.as_strided(size, stride, storage_offset)  # checks the view fits the memory
    sizes = [int(n) for n in view.shape]
    if list(src.shape) != sizes:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {sizes}"
        )
    off = input.storage_offset() if storage_offset is None else operator.index(storage_offset)
    target = _positions(sizes, [operator.index(s) for s in stride], off)
    if np.unique(target).size != target.size:
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )
    mine = _positions(list(input.shape), list(input.stride()), input.storage_offset())
    # which src element (if any) lands on each of input's elements
    order = np.argsort(target)
    at = np.searchsorted(target[order], mine)
    at = np.minimum(at, max(target.size - 1, 0))
    hit = target.size > 0
    hits = np.nonzero(target[order][at] == mine)[0] if hit else np.zeros(0, np.int64)
    flat = input.reshape([-1])
    if hits.size == 0:
        return flat.clone().reshape(list(input.shape))
    picked = src.reshape([-1]).to(input.dtype)[_core.tensor(order[at[hits]])]
    out = flat.scatter(0, _core.tensor(hits.astype(np.int64)), picked)
    return out.reshape(list(input.shape))


def _as_strided_scatter_method(
    self: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: Optional[int] = None
) -> Tensor:
    """``x.as_strided_scatter(src, size, stride, storage_offset=None)``: see
    ``ferrograd.as_strided_scatter``."""
    return as_strided_scatter(self, src, size, stride, storage_offset)


_as_strided_scatter_method.__name__ = "as_strided_scatter"
_as_strided_scatter_method.__qualname__ = "as_strided_scatter"


def install_tensor_methods() -> None:
    """Adds ``Tensor.as_strided_scatter``."""
    Tensor.as_strided_scatter = _as_strided_scatter_method  # type: ignore[method-assign]


# installed on import (the package imports this module through _namespace_composed.py)
install_tensor_methods()
