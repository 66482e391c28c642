"""The ``memory_format=`` keyword of PyTorch's API (``x.contiguous``, ``x.is_contiguous``,
``x.clone``, ``x.to`` and the casts ``float`` / ``double`` / ..., ``torch.empty``, the
``*_like`` factories, ``torch.clone``) and PyTorch's default ``preserve_format`` for
``clone`` / ``to`` / ``*_like``: a copy of a non-contiguous tensor keeps its dim order.

Each wrapper takes the native path unchanged when no format is asked for and the input
is contiguous; the stride rules are in ``_memory_format.py``. ``install`` runs once at
import (from ``_tensor_extras.install_tensor_methods``) and sets the module-level names.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from . import _core
from . import _memory_format as M
from .grad_mode import no_grad

Tensor = _core.Tensor
_native: dict[str, Any] = {}  # the methods / functions the wrappers replace

#: the casts that take PyTorch's ``memory_format=`` (``Tensor.float(memory_format=...)``)
_CASTS = (
    "to",
    "float",
    "double",
    "half",
    "bfloat16",
    "int",
    "long",
    "short",
    "char",
    "byte",
    "bool",
    "cfloat",
    "cdouble",
    "cpu",
)
#: the factories whose first argument is the tensor to imitate
_LIKES = (
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "randint_like",
)


def _is_preserve(fmt: Any) -> bool:
    return fmt is None or fmt is M.preserve_format


def contiguous(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """Itself if it is contiguous in ``memory_format`` (default ``torch.contiguous_format``),
    else a copy that is (differentiable). ``torch.channels_last`` needs a 4-D tensor,
    ``channels_last_3d`` a 5-D one; ``preserve_format`` is refused unless already
    contiguous, as in PyTorch."""
    if memory_format is None or memory_format is M.contiguous_format:
        return _native["contiguous"](self)
    fmt = M.check_format(memory_format, "contiguous")
    if fmt is M.preserve_format:
        if _native["is_contiguous"](self):
            return self
        raise RuntimeError(
            "preserve memory format is unsupported by the contiguous operator; use "
            "x.contiguous() or x.clone() (which preserves the layout)"
        )
    shape = tuple(self.shape)
    if M.is_contiguous_as(shape, self.stride(), fmt):
        return self
    return M.restrided(self, M.format_strides(shape, fmt), _native["clone"])


def is_contiguous(self: Tensor, *, memory_format: Any = None) -> bool:
    """True when the elements lie in memory without gaps in the order of
    ``memory_format`` (default row-major; ``torch.channels_last``: ``N, H, W, C`` order of
    a 4-D tensor, dims of size 1 ignored; False for another rank)."""
    if memory_format is None or memory_format is M.contiguous_format:
        return bool(_native["is_contiguous"](self))
    fmt = M.check_format(memory_format, "is_contiguous")
    if fmt is M.preserve_format:  # PyTorch answers the row-major question
        return bool(_native["is_contiguous"](self))
    return M.is_contiguous_as(tuple(self.shape), self.stride(), fmt)


def clone(self: Tensor, *, memory_format: Any = None) -> Tensor:
    """A copy with its own memory (differentiable). By default (``preserve_format``) a
    dense tensor's copy has its strides and a sparse view's copy is dense in the view's
    dim order, as PyTorch's; ``torch.contiguous_format`` / ``channels_last`` /
    ``channels_last_3d`` ask for that layout."""
    if _is_preserve(memory_format):
        if _native["is_contiguous"](self):
            return _native["clone"](self)
        shape = tuple(self.shape)
        strides = M.preserve_strides(shape, self.stride())
    elif memory_format is M.contiguous_format:
        return _native["clone"](self)
    else:
        shape = tuple(self.shape)
        strides = M.format_strides(shape, M.check_format(memory_format, "clone"))
    if strides == M.contiguous_strides(shape):
        return _native["clone"](self)
    return M.restrided(self, strides, _native["clone"])


def _cast_method(name: str, native: Callable[..., Any]) -> Callable[..., Any]:
    """``native`` (a cast such as ``to`` or ``float``) with PyTorch's ``memory_format=``:
    the result has the asked layout (default: the input's, ``preserve_format``); an
    unchanged tensor is returned as it is when its layout already fits."""

    @functools.wraps(native)
    def method(self: Tensor, *args: Any, memory_format: Any = None, **kwargs: Any) -> Any:
        if _is_preserve(memory_format):
            if not isinstance(self, Tensor) or _native["is_contiguous"](self):
                return native(self, *args, **kwargs)
            shape = tuple(self.shape)
            strides = M.preserve_strides(shape, self.stride())
        else:
            fmt = M.check_format(memory_format, name)
            shape = tuple(self.shape)
            strides = M.format_strides(shape, fmt)
        perm = M.order_for(shape, strides)
        moved = self.permute(perm)
        out = native(moved, *args, **kwargs)
        if out is moved:  # nothing to convert: PyTorch's `to` returns self ...
            if _is_preserve(memory_format) or M.suggest_format(shape, self.stride()) is fmt:
                return self
            return M.restrided(self, strides, _native["clone"])  # ... unless re-laid out
        out = out.permute(M.inverse(perm))
        return out if out.stride() == strides else M.restrided(out, strides, _native["clone"])

    method.__doc__ = (native.__doc__ or "").rstrip() + (
        " ``memory_format=``: the result's layout (default ``torch.preserve_format``)."
    )
    return method


def _like_function(name: str, native: Callable[..., Any]) -> Callable[..., Any]:
    """``native`` (``zeros_like`` ...) with PyTorch's ``memory_format=`` (default
    ``preserve_format``: the layout of the input)."""

    @functools.wraps(native)
    def fn(x: Any, *args: Any, memory_format: Any = None, **kwargs: Any) -> Any:
        if not isinstance(x, Tensor) or (
            _is_preserve(memory_format) and _native["is_contiguous"](x)
        ):
            return native(x, *args, **kwargs)
        shape = tuple(x.shape)
        strides = M.target_strides(x, memory_format, name)
        if strides == M.contiguous_strides(shape):
            return native(x, *args, **kwargs)
        # made in the layout's dim order and permuted back, as a new leaf
        grad = bool(kwargs.pop("requires_grad", False))
        stop = kwargs.pop("stop_gradient", None)
        grad = grad or stop is False
        perm = M.order_for(shape, strides)
        with no_grad():
            out = native(x.permute(perm), *args, **kwargs).permute(M.inverse(perm))
            if out.stride() != strides:
                out = M.restrided(out, strides, _native["clone"])
        return out.requires_grad_() if grad else out

    fn.__doc__ = (native.__doc__ or "").rstrip() + (
        " ``memory_format=``: the result's layout (default ``torch.preserve_format``)."
    )
    return fn


def _factory_layout(op: str, out: Tensor, like: Any, memory_format: Any) -> Tensor:
    """``out`` (a new factory result) in the layout ``memory_format`` asks for: called by
    the Rust bindings of the table-declared factories (``empty`` / ``zeros`` / ``ones``
    with a format; ``empty_like`` / ``zeros_like`` / ``ones_like`` with a format or a
    non-contiguous ``like``, whose layout ``None`` = ``preserve_format`` keeps). The
    result is a new tensor with ``out``'s values and grad flag."""
    shape = tuple(out.shape)
    if like is None:
        if memory_format is M.contiguous_format:
            return out
        strides = M.format_strides(shape, M.check_format(memory_format, op))
    else:
        strides = M.target_strides(like, memory_format, op)
    if strides == tuple(out.stride()):
        return out
    grad = out.requires_grad
    with no_grad():
        res = M.restrided(out.detach(), strides, _native["clone"])
    return res.requires_grad_() if grad else res


def _empty_function(native: Callable[..., Any]) -> Callable[..., Any]:
    """``torch.empty`` with PyTorch's ``memory_format=`` (default ``contiguous_format``)."""

    @functools.wraps(native)
    def empty(*args: Any, memory_format: Any = None, **kwargs: Any) -> Any:
        out = native(*args, **kwargs)
        if memory_format is None or memory_format is M.contiguous_format:
            return out
        shape = tuple(out.shape)
        strides = M.format_strides(shape, M.check_format(memory_format, "empty"))
        if strides == out.stride():
            return out
        from ._torch_more_creation import empty_strided

        return empty_strided(shape, strides, dtype=out.dtype, requires_grad=out.requires_grad)

    empty.__doc__ = (native.__doc__ or "").rstrip() + (
        " ``memory_format=``: ``torch.contiguous_format`` (default), ``channels_last`` "
        "(4-D) or ``channels_last_3d`` (5-D)."
    )
    return empty


def _clone_function(native: Callable[..., Any]) -> Callable[..., Any]:
    """``torch.clone(input, *, memory_format=None)`` / ``paddle.clone(x, name=None)``."""

    @functools.wraps(native)
    def clone_fn(*args: Any, memory_format: Any = None, **kwargs: Any) -> Any:
        rest = dict(kwargs)
        rest.pop("name", None)
        x = args[0] if args else rest.pop("input", rest.pop("x", None))
        if isinstance(x, Tensor) and len(args) <= 1 and not rest:
            return clone(x, memory_format=memory_format)
        return native(*args, **kwargs)

    return clone_fn


def install() -> None:
    """Puts the format objects on the package and the ``memory_format=`` wrappers on
    ``Tensor`` and the package (once)."""
    import sys

    if "contiguous" in _native:
        return
    pkg = vars(sys.modules[__package__])
    for n in ("memory_format", "contiguous_format", "channels_last", "channels_last_3d"):
        pkg[n] = getattr(M, n)
    pkg["preserve_format"] = M.preserve_format
    for n in ("contiguous", "is_contiguous", "clone"):
        _native[n] = getattr(Tensor, n)
    Tensor.contiguous = contiguous  # type: ignore[method-assign,assignment]
    Tensor.is_contiguous = is_contiguous  # type: ignore[method-assign,assignment]
    Tensor.clone = clone  # type: ignore[method-assign,assignment]
    for n in _CASTS:
        setattr(Tensor, n, _cast_method(n, getattr(Tensor, n)))
    # the table-declared factories (``empty``, ``zeros_like`` ...) stay the native
    # functions behind the static-graph dispatcher, with no Python frame: their Rust
    # bindings take ``memory_format=`` and call ``_factory_layout`` when it matters
    table = {row[0] for row in _core._creation_op_table()}
    for n in _LIKES:
        if n in pkg and n not in table:
            pkg[n] = _like_function(n, pkg[n])
    if "empty" not in table:
        pkg["empty"] = _empty_function(pkg["empty"])
    pkg["clone"] = _clone_function(pkg["clone"])
