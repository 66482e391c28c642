"""In-place view ops of both peers: ``x.transpose_(0, 1)``, ``x.t_()``, ``x.squeeze_()``,
``x.unsqueeze_(0)``, ``x.swapaxes_`` / ``swapdims_`` / ``as_strided_`` (PyTorch), ``x.reshape_(shape)`` /
``x.flatten_()`` (Paddle), ``x.resize_(*sizes)`` / ``resize_as_``, ``x.set_(source)``
(PyTorch), and Paddle's functions
``paddle.squeeze_(x, axis)`` and friends.

Each runs the out-of-place op and re-points ``x`` at its result (``Tensor._become_view``):
``x`` keeps its identity (``id(x)``, its place in a module or optimizer), ``.grad`` and
hooks; under grad mode a tensor with history gets the op's node as its ``grad_fn``
(the transpose's node after ``transpose_``), and a leaf that requires grad is refused as for any in-place op.
"""

from __future__ import annotations

import math
from typing import Any

from . import _ops_strided
from ._core import Tensor, zeros
from .grad_mode import is_grad_enabled, no_grad

# in-place name -> the out-of-place method it re-points to
_VIEW_OPS = {
    "transpose_": "transpose",
    "t_": "t",
    "swapaxes_": "swapaxes",
    "swapdims_": "swapdims",
    "squeeze_": "squeeze",
    "unsqueeze_": "unsqueeze",
    "reshape_": "reshape",
    "flatten_": "flatten",
    "as_strided_": "as_strided",
}

# (as_strided_ is exported through _namespace_composed)
__all__ = ["squeeze_", "unsqueeze_", "reshape_", "flatten_", "transpose_", "t_"]


def _view_method(name: str, base: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        self._become_view(getattr(self, base)(*args, **kwargs), name)
        return self

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"In-place ``{base}``: this tensor takes the new shape (same memory where "
        f"``{base}`` is a view) and stays the same object; returns it."
    )
    return method


def _sizes(args: tuple[Any, ...]) -> list[int]:
    if len(args) == 1 and not isinstance(args[0], int):
        return [int(s) for s in args[0]]
    return [int(s) for s in args]


def _resize_(
    self: Tensor, *sizes: Any, memory_format: Any = None, fill_zero: bool = False
) -> Tensor:
    """``x.resize_(*sizes)`` (PyTorch; Paddle's ``resize_(shape, fill_zero)``): ``x``
    takes the shape ``sizes``. Its elements in row-major order are kept as far as they
    reach; new elements are zero (PyTorch leaves them uninitialized). With the same number
    of elements and a contiguous ``x`` the memory is shared, as a view. Refused for a
    tensor that requires grad, as in PyTorch. ``memory_format=torch.channels_last`` (...)
    then gives it that format's strides over the same memory, as PyTorch's
    ``empty_tensor_restride``."""
    del fill_zero  # new elements are always zero
    from . import _memory_format as M

    fmt = M.check_format(memory_format, "resize_")
    shape = _sizes(sizes)
    if fmt is not None and fmt is not M.contiguous_format:
        strides = M.format_strides(shape, fmt)  # (errors before any change)
        _resize_(self, *shape)
        if self.stride() != strides:
            self.as_strided_(shape, strides)
        return self
    if any(s < 0 for s in shape):
        raise ValueError(f"resize_: sizes must be non-negative, got {shape}")
    if self.requires_grad:
        raise RuntimeError(
            "resize_: cannot resize a tensor that requires grad; resize a detached copy "
            "(y = x.detach().clone(); y.resize_(...))"
        )
    n = math.prod(shape)
    if n == self.numel() and self.is_contiguous():
        self._become_view(self.view(shape), "resize_")
        return self
    with no_grad():
        new = zeros([n], dtype=self.dtype)
        k = min(n, self.numel())
        if k:
            new[:k] = self.reshape([-1])[:k]
        self._repoint_data(new.reshape(shape))
    return self


def _resize_as_(self: Tensor, other: Tensor, memory_format: Any = None) -> Tensor:
    """``x.resize_as_(other)``: ``x.resize_(other.shape)``."""
    return _resize_(self, list(other.shape), memory_format=memory_format)


def _set_(self: Tensor, source: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    """``x.set_(source)`` (PyTorch): ``x`` shares ``source``'s memory, shape and strides
    from now on and stays the same object (its ``.grad``, hooks and requires_grad kept);
    ``x.set_()`` makes ``x`` an empty tensor. ``x`` keeps its version counter (PyTorch
    also bumps it); a leaf that requires grad is refused under grad mode. For autograd ``x`` is a new
    tensor afterwards (a graph recorded before reaches it only through its old gradient
    edge). Not differentiable: under grad mode a ``source`` that requires grad or an ``x``
    with history is refused (PyTorch fails later, in backward). ``set_(source,
    storage_offset, size, stride)`` is not supported."""
    if args or kwargs:
        raise TypeError(
            "set_: only set_() and set_(source) are supported; for another view of "
            "source's memory take it first (source.view(...)) and pass it"
        )
    if source is None:
        source = zeros([0], dtype=self.dtype)
    if not isinstance(source, Tensor):
        raise TypeError(f"set_: expects a Tensor source, got {type(source).__name__}")
    if source.dtype != self.dtype:
        raise RuntimeError(
            f"set_: could not set a tensor of type {self.dtype} to a tensor of type "
            f"{source.dtype}; convert the source first (source.to(x.dtype))"
        )
    if is_grad_enabled() and self.is_leaf and self.requires_grad:
        raise RuntimeError(
            "set_: a leaf tensor that requires grad cannot be modified in place; do it "
            "under no_grad() (with torch.no_grad(): x.set_(source))"
        )
    if is_grad_enabled() and (source.requires_grad or self.grad_fn is not None):
        raise RuntimeError(
            "set_: not differentiable; call it under no_grad() (with torch.no_grad(): "
            "x.set_(source))"
        )
    # x keeps its version counter (shared with its views taken before); unlike PyTorch
    # it is not bumped: values saved from x before stay valid (they keep the old memory).
    # A new gradient accumulator, as PyTorch's set_ (unlike `x.data = y`)
    self._repoint_data(source.detach(), keep_version=True, new_accumulator=True)
    return self


def _function(name: str) -> Any:
    def fn(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return getattr(x, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``x.{name}(...)`` as a function (Paddle's ``paddle.{name}(x, ...)``): in place, returns ``x``."
    return fn


squeeze_ = _function("squeeze_")
unsqueeze_ = _function("unsqueeze_")
reshape_ = _function("reshape_")
flatten_ = _function("flatten_")
transpose_ = _function("transpose_")
t_ = _function("t_")
as_strided_ = _function("as_strided_")  # torch.as_strided_(x, size, stride, storage_offset)


def install_tensor_methods() -> None:
    """Adds the in-place view ops and ``resize_`` / ``resize_as_`` to ``Tensor`` (and
    ``as_strided``, which ``as_strided_`` re-points to)."""
    _ops_strided.install()
    for name, base in _VIEW_OPS.items():
        setattr(Tensor, name, _view_method(name, base))
    Tensor.resize_ = _resize_  # type: ignore[method-assign]
    Tensor.resize_as_ = _resize_as_  # type: ignore[method-assign]
    Tensor.set_ = _set_  # type: ignore[method-assign]
