"""PyTorch's ``out=`` keyword on the module functions (``torch.add(a, b, out=c)``).

Every module function that dispatches through ``_core.OpFunction`` (``ferrograd.add``,
``ferrograd.matmul``, ``ferrograd.cat``, ``ferrograd.max``, ...) accepts ``out=``: the
native dispatcher sees the keyword (a dictionary lookup only when keywords are passed)
and hands the call to :func:`call_with_out`, which computes the result as usual and
writes it into ``out`` with PyTorch's rules:

- under grad mode, no argument (nor ``out``) may require grad: functions with ``out=``
  are not differentiable (PyTorch's RuntimeError and wording);
- the result's dtype must cast to ``out``'s without lowering its kind (float into an
  integer ``out`` is refused: "result type Float can't be cast to the desired output
  type Long");
- an ``out`` of another shape is resized, silently when it is empty and with PyTorch's
  deprecation ``UserWarning`` otherwise;
- ``out`` is written in place (its version counter moves, views of it see the values) and
  returned; a function with several results takes and returns a tuple of tensors.

``out=None`` is the same as no ``out``. Methods (``x.add(y)``) take no ``out=``, as in
PyTorch. The Python functions that declare an ``out`` parameter (``linalg.inv``,
``ferrograd.det``, ``addmm``, ``randperm``, ...) get the same handling from
:func:`wrap_out_functions`, applied once to each public module's names at import.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from . import _core
from ._dtype_info import can_cast
from ._legacy_types import LEGACY_NAMES

Tensor = _core.Tensor


def _type_name(dtype: Any) -> str:
    """PyTorch's name of ``dtype`` in its messages (``Float``, ``Long``): the legacy
    tensor type's name without ``Tensor``."""
    name = str(dtype).split(".")[-1]
    return LEGACY_NAMES.get(name, name).removesuffix("Tensor")


def _tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Tensor]:
    """The tensors among the arguments, the items of list/tuple arguments included."""
    found: list[Tensor] = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(x for x in a if isinstance(x, Tensor))
    return found


def _check_out(name: str, out: Any, multiple: bool) -> tuple[Tensor, ...]:
    outs = tuple(out) if isinstance(out, (tuple, list)) and multiple else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            kind = "tuple of Tensors" if multiple else "Tensor"
            raise TypeError(f"{name}(): argument 'out' must be {kind}, not {type(o).__name__}")
    return outs


def _write(name: str, result: Tensor, out: Tensor) -> None:
    if not can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {_type_name(result.dtype)} can't be cast to the desired output "
            f"type {_type_name(out.dtype)}"
        )
    shape = list(result.shape)
    if list(out.shape) != shape:
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape {shape}. "
                "This behavior is deprecated, and in a future PyTorch release outputs will "
                "not be resized unless they have zero elements. You can explicitly reuse an "
                "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out.resize_(shape)
    out.copy_(result)


def call_with_out(
    fn: Callable[..., Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> Any:
    """``fn(*args, **kwargs)`` written into ``out`` (see the module docstring); called by
    ``_core.OpFunction`` when a call passes ``out=``."""
    if _core.is_grad_enabled() and any(
        t.requires_grad for t in (*_tensors(args, kwargs), *_tensors((out,), {}))
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    result = fn(*args, **kwargs)
    if isinstance(result, Tensor):
        (target,) = _check_out(name, out, multiple=False)
        _write(name, result, target)
        return target
    if isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result):
        targets = _check_out(name, out, multiple=True)
        if len(targets) != len(result):
            raise TypeError(
                f"{name}(): out= must hold {len(result)} tensors (one per result), "
                f"got {len(targets)}"
            )
        for r, t in zip(result, targets):
            _write(name, r, t)
        fields = getattr(type(result), "_fields", None)
        return type(result)(*targets) if fields is not None else targets
    raise TypeError(f"{name}() does not take out=: it returns {type(result).__name__}")


def _declares_out(fn: Any) -> bool:
    # (through any functools.wraps layer: a wrapper taking **kwargs passes out= on)
    try:
        fn = inspect.unwrap(fn)
    except ValueError:  # a cycle of __wrapped__
        return False
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    return "out" in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]


def with_out(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` taking ``out=`` with PyTorch's rules (``fn`` itself is called without it)."""

    @functools.wraps(fn)
    def call(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        return call_with_out(fn, name, args, kwargs, out)

    return call


def wrap_out_functions(namespace: dict[str, Any], names: Iterable[str]) -> None:
    """Gives every Python function among ``names`` that declares an ``out`` parameter
    PyTorch's ``out=`` handling (once, at import; a function declaring ``out`` never
    receives one but None, so none can ignore it)."""
    for n in names:
        fn = namespace.get(n)
        native = isinstance(fn, (type, _core.OpFunction))  # (OpFunction handles out= itself)
        if fn is not None and not native and _declares_out(fn):
            namespace[n] = with_out(fn, n)


__all__ = ["call_with_out", "with_out", "wrap_out_functions"]
