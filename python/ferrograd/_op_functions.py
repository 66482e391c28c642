"""Module functions that dispatch on their arguments' type.

``dispatching(fn, name)`` wraps an eager function (usually a ``Tensor`` method
descriptor) in a ``_core.OpFunction``: called with a Tensor first it runs ``fn`` at once
(one type check in Rust, no Python frame); called with, say, a static ``Variable`` it
hands the call to ``type(arg).__ferrograd_function__(name, args, kwargs)``. This is how
``ferrograd.tanh(var)`` records into a static program without ``enable_static()``
touching the package's namespace (see ``src/python/static_graph/dispatch.rs``).
"""

from __future__ import annotations

import copyreg
import importlib
import sys
from collections.abc import Iterable, Mapping
from typing import Any, Callable, TypeVar, cast

from . import _core

F = TypeVar("F", bound=Callable[..., Any])


def dispatching(fn: F, name: str | None = None) -> F:
    """``fn`` as an ``OpFunction`` named ``name`` (default: ``fn.__name__``); type
    checkers keep seeing ``fn``'s signature."""
    if isinstance(fn, _core.OpFunction):
        return fn
    op = _core._op_function(fn, name if name is not None else fn.__name__, fn.__doc__)
    return cast(F, op)


def _reduce(f: Any) -> tuple[Any, tuple[Any, ...]]:
    # (copy.deepcopy and pickle of a layer holding, say, ``self.act = F.relu``)
    wrapped = f.__wrapped__
    module, name = getattr(wrapped, "__module__", None), getattr(wrapped, "__name__", None)
    if isinstance(module, str) and getattr(sys.modules.get(module), str(name), None) is f:
        # a module's function (``F.relu`` wraps ``functional.relu``, which the module
        # no longer holds, so pickle cannot store the wrapped function by name): by name
        return _module_function, (module, name)
    return _core._op_function, (wrapped, f.__name__, f.__doc__)


def _module_function(module: str, name: str) -> Any:
    """Unpickles a module function by name (``ferrograd.nn.functional``, ``relu``)."""
    return getattr(importlib.import_module(module), name)


copyreg.pickle(_core.OpFunction, _reduce)


def wrap_names(
    namespace: dict[str, Any], names: Iterable[str], method_of: Mapping[str, str] | None = None
) -> None:
    """Makes each of ``names`` in ``namespace`` dispatching (once, at import time);
    ``method_of`` maps a function name to the op name handlers receive (``swish`` ->
    ``silu``)."""
    for n in names:
        namespace[n] = dispatching(namespace[n], (method_of or {}).get(n, n))


__all__ = ["dispatching", "wrap_names"]
