"""Static/dynamic mode switch and the dispatch of module functions to static variables.

Eager module functions (``ferrograd.tanh`` ...) are the Tensor methods themselves, so
they cost no Python frame. Rather than slowing every eager call with a type check,
``enable_static()`` replaces them in the ``ferrograd`` namespace with wrappers that
record when given a ``Variable`` and call the original otherwise;
``disable_static()`` puts the originals back. Dynamic mode therefore pays nothing.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from .. import _core
from .variable import Variable

_static = [False]
_originals: dict[tuple[str, str], Any] = {}

# functions of nn.functional that are plain elementwise/normalisation ops: the unary
# activations declared in the op table, and a few more
_FUNCTIONAL = tuple(f for _, names, *_ in _core._unary_op_table() for f in names) + (
    "softmax",
    "log_softmax",
    "gelu",
    "softplus",
)
# the Variable method each table-declared functional name records (swish -> silu)
_FUNCTIONAL_METHOD = {
    f: methods[0] for methods, names, *_ in _core._unary_op_table() for f in names
}


def _first_variable(args: tuple[Any, ...]) -> Variable | None:
    for a in args:
        if isinstance(a, Variable):
            return a
    return None


def _method_wrapper(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], Variable):
            return getattr(args[0], name)(*args[1:], **kwargs)
        var = _first_variable(args)
        if var is None:
            return original(*args, **kwargs)
        first = var.block._as_variable(args[0], like=var)
        return getattr(first, name)(*args[1:], **kwargs)

    return dispatch


def _concat_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def concat(x: Any, axis: int = 0, name: str | None = None, **kwargs: Any) -> Any:
        items = list(x) if isinstance(x, (list, tuple)) else None
        var = _first_variable(tuple(items)) if items else None
        if var is None:
            return original(x, axis, **kwargs) if "dim" not in kwargs else original(x, **kwargs)
        axis = kwargs.get("dim", axis)
        vs = [var.block._as_variable(v, like=var) for v in items or []]
        return var.block._append("concat", vs, {"axis": axis})

    return concat


def _function_wrapper(
    original: Callable[..., Any], static: Callable[..., Any]
) -> Callable[..., Any]:
    # records when a static Variable is among the arguments (or in the list of the first)
    @functools.wraps(original)
    def dispatch(*args: Any, **kwargs: Any) -> Any:
        first = args[0] if args else None
        scan = list(args) + list(kwargs.values())
        if isinstance(first, (list, tuple)):
            scan += list(first)
        if _first_variable(tuple(scan)) is not None:
            return static(*args, **kwargs)
        return original(*args, **kwargs)

    return dispatch


def _install() -> None:
    import ferrograd
    from ferrograd import _dialect_aliases

    targets: list[tuple[Any, str]] = [
        (ferrograd, n) for n in _dialect_aliases.__all__ if hasattr(Variable, n)
    ]
    functional = sys.modules.get("ferrograd.nn.functional")
    if functional is not None:
        targets += [(functional, n) for n in _FUNCTIONAL if hasattr(functional, n)]
    for module, name in targets:
        key = (module.__name__, name)
        if key in _originals:
            continue
        original = getattr(module, name)
        _originals[key] = original
        method = _FUNCTIONAL_METHOD.get(name, name) if module is functional else name
        setattr(module, name, _method_wrapper(method, original))
    for name in ("concat", "cat"):
        key = ("ferrograd", name)
        if key not in _originals and hasattr(ferrograd, name):
            _originals[key] = getattr(ferrograd, name)
            setattr(ferrograd, name, _concat_wrapper(_originals[key]))
    from .functions import FUNCTIONS

    for name, static in FUNCTIONS.items():
        key = ("ferrograd", name)
        if key not in _originals and hasattr(ferrograd, name):
            _originals[key] = getattr(ferrograd, name)
            setattr(ferrograd, name, _function_wrapper(_originals[key], static))


def _uninstall() -> None:
    for (module_name, name), original in _originals.items():
        module = sys.modules.get(module_name)
        if module is not None:
            setattr(module, name, original)
    _originals.clear()


def enable_static() -> None:
    """Static mode: ``ferrograd`` functions given static Variables record ops into the
    Variable's program (eager tensors keep working, through a thin wrapper)."""
    if not _static[0]:
        _install()
        _static[0] = True


def disable_static() -> None:
    """Back to dynamic (eager) mode; restores the original module functions."""
    if _static[0]:
        _uninstall()
        _static[0] = False


def in_dynamic_mode() -> bool:
    """True unless ``enable_static()`` is in effect."""
    return not _static[0]


__all__ = ["disable_static", "enable_static", "in_dynamic_mode"]
