"""Calls the session-19 differential run found missing or answering differently from the
peers (docs/user-scripts.md, "Session 19 differential run"): ``Tensor.put`` / ``put_``,
``Tensor.unfold`` (sliding windows), ``>>`` / ``<<`` on integer tensors,
``paddle.index_sample``, ``argmax`` / ``argmin``'s ``dtype=``, and in Paddle code
``full(shape, int)`` (the default float dtype), ``reshape`` with 0 (copy that size) and
``mean`` of an integer tensor (Paddle keeps the dtype)."""

from __future__ import annotations

import builtins
import inspect
import sys
from typing import Any

from . import _core
from ._dialect import caller_dialect

Tensor = _core.Tensor


def put(x: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``x`` with ``source`` written at the flat (row-major) positions ``index``
    (negative positions count from the end; ``accumulate`` adds instead). Gradients flow
    to ``x`` (not at overwritten positions) and to ``source``."""
    n = x.numel()
    idx = index.reshape(-1).long()
    idx = _core.where(idx < 0, idx + n, idx)
    flat = x.reshape(-1).index_put((idx,), source.reshape(-1), accumulate=accumulate)
    return flat.reshape(list(x.shape))


def put_(x: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place :func:`put`; returns ``x``."""
    x.copy_(put(x.detach() if not x.requires_grad else x, index, source, accumulate))
    return x


def unfold_windows(x: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold(dim, size, step)``: every window of ``size`` elements along ``dim``,
    ``step`` apart, as a new last dimension (``dim`` becomes the window count)."""
    nd = max(x.ndim, 1)
    d = dimension + nd if dimension < 0 else dimension
    if x.ndim == 0:
        x = x.reshape([1])
    length = x.shape[d]
    if size > length or step <= 0:
        raise RuntimeError(
            f"unfold: size {size} must be at most the dimension's length {length} and "
            f"step {step} positive"
        )
    count = (length - size) // step + 1
    ids = [i * step + j for i in range(count) for j in range(size)]
    picked = x.index_select(_core.tensor(ids, dtype=_core.int64), axis=d)
    shape = list(x.shape)
    picked = picked.reshape(shape[:d] + [count, size] + shape[d + 1 :])
    return picked.movedim(d + 1, -1)


def _shift_factor(x: Tensor, other: Any) -> Any:
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == _core.bool:
        raise TypeError(f"shift: expects an integer tensor, got {x.dtype}")
    if isinstance(other, Tensor):
        return _core.full(list(other.shape), 2, dtype=x.dtype) ** other.astype(x.dtype)
    return 2 ** int(other)


def _rshift(self: Tensor, other: Any) -> Tensor:
    """Arithmetic right shift (rounds toward minus infinity, as the peers)."""
    return self // _shift_factor(self, other)


def _lshift(self: Tensor, other: Any) -> Tensor:
    """Left shift (``x * 2**n``)."""
    return self * _shift_factor(self, other)


def index_sample(x: Tensor, index: Tensor, name: Any = None) -> Tensor:
    """Paddle's ``index_sample``: ``out[i, j] = x[i, index[i, j]]`` for a 2-D ``x`` and
    an integer ``index`` with as many rows (gradients add up at repeated picks)."""
    if x.ndim != 2 or index.ndim != 2 or index.shape[0] != x.shape[0]:
        raise ValueError(
            f"index_sample: x [N, M] and index [N, K] expected, got {list(x.shape)} and "
            f"{list(index.shape)}"
        )
    return x.take_along_axis(index.long(), 1)


def _method_caller_dialect() -> Any:
    """The dialect of the code calling a method wrapper below, looking past the package
    function that forwards to it (``paddle.mean(x)`` as well as ``x.mean()``)."""
    depth = 3  # 1: this helper, 2: the method wrapper, 3: its caller
    if sys._getframe(2).f_globals.get("__name__") == __name__:
        depth = 4
    return caller_dialect(depth)


def _cast_indices(orig: Any) -> Any:
    def reduce_index(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        dtype = kwargs.get("dtype")
        out = orig(self, *args, **kwargs)
        return out if dtype is None or out.dtype == dtype else out.astype(dtype)

    return reduce_index


def _paddle_reshape(orig: Any) -> Any:
    def reshape(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        shape = kwargs.get("shape", args[0] if len(args) == 1 else args)
        if (
            isinstance(shape, (list, tuple))
            and 0 in shape
            and self.numel() != 0
            and _method_caller_dialect() == "paddle"
        ):
            dims = list(self.shape)
            fixed = [dims[i] if s == 0 and i < len(dims) else s for i, s in enumerate(shape)]
            kwargs.pop("shape", None)
            return orig(self, fixed, **kwargs)
        return orig(self, *args, **kwargs)

    return reshape


def _paddle_int_mean(orig: Any) -> Any:
    def mean(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        dt = self.dtype
        if (
            dt.is_floating_point
            or dt.is_complex
            or dt == _core.bool
            or kwargs.get("dtype") is not None
            or _method_caller_dialect() != "paddle"
        ):
            return orig(self, *args, **kwargs)
        # Paddle keeps an integer dtype, rounding toward zero
        return orig(self.astype(_core.float64), *args, **kwargs).trunc().astype(dt)

    return mean


def _replace_method(pkg: Any, name: str, make: Any) -> None:
    """Replaces ``Tensor.<name>`` by ``make(original)`` (same name, docstring and
    signature) and the package function by one that sends tensors to it and anything else
    (a static ``Variable``) to the original dispatching function."""
    orig = getattr(Tensor, name)
    dispatch = getattr(pkg, name)
    method = make(orig)
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = orig.__doc__
    method.__signature__ = inspect.signature(orig)  # type: ignore[attr-defined]

    def function(x: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(x, Tensor):
            return method(x, *args, **kwargs)
        return dispatch(x, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = orig.__doc__
    function.__wrapped__ = method  # type: ignore[attr-defined]
    setattr(Tensor, name, method)
    setattr(pkg, name, function)
    setattr(pkg._dialect_aliases, name, function)


def _paddle_full(orig: Any) -> Any:
    def full(*args: Any, **kwargs: Any) -> Tensor:
        if caller_dialect() == "paddle" and kwargs.get("dtype") is None and len(args) < 3:
            value = args[1] if len(args) > 1 else kwargs.get("fill_value")
            if isinstance(value, int) and not isinstance(value, builtins.bool):
                kwargs["dtype"] = sys.modules[__package__].get_default_dtype()
        return orig(*args, **kwargs)

    full.__doc__ = (
        orig.__doc__ or ""
    ) + " In Paddle code an int fill without ``dtype`` gives the default float dtype."
    return full


def install() -> None:
    """Adds the methods to ``Tensor`` and rebinds the wrapped package functions (``put``
    and ``index_sample`` are re-exported by ``_namespace_composed``)."""
    pkg = sys.modules[__package__]
    Tensor.put = put  # type: ignore[attr-defined]
    Tensor.put_ = put_  # type: ignore[attr-defined]
    Tensor.unfold = unfold_windows  # type: ignore[method-assign]
    Tensor.__rshift__ = _rshift  # type: ignore[operator]
    Tensor.__lshift__ = _lshift  # type: ignore[operator]
    _replace_method(pkg, "argmax", _cast_indices)
    _replace_method(pkg, "argmin", _cast_indices)
    _replace_method(pkg, "reshape", _paddle_reshape)
    _replace_method(pkg, "mean", _paddle_int_mean)
    pkg.full = _paddle_full(pkg.full)
