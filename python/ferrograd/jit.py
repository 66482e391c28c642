"""``paddle.jit``: ``to_static`` runs the function or layer EAGERLY.

Paddle's ``to_static`` translates a dygraph function into a static program. ferrograd does
not translate Python code: ``to_static`` returns the layer itself, or a function that
calls the original, so results, gradients and tensor hooks are exactly those of eager
mode (what Paddle does after ``paddle.jit.enable_to_static(False)``). ``input_spec=``,
``full_graph=``, ``build_strategy=`` and ``backend=`` are accepted and do not change what
runs. Static programs are built with ``ferrograd.static`` instead (see docs/static.md).
``save`` / ``load`` (Paddle's inference-model format) are not implemented: save the
``state_dict()`` with ``ferrograd.save``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NoReturn, Optional

from ._input_spec import InputSpec

__all__ = [
    "InputSpec",
    "enable_to_static",
    "ignore_module",
    "load",
    "not_to_static",
    "save",
    "to_static",
]

_enabled = True


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Paddle's switch for translating ``to_static`` functions. ferrograd always runs them
    eagerly, so the flag is only recorded."""
    global _enabled
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(
            f"enable_to_static: the argument must be a bool, got {type(enable_to_static_bool).__name__}"
        )
    _enabled = enable_to_static_bool


def _check_specs(input_spec: Any) -> None:
    if input_spec is None:
        return
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(
            f"to_static: input_spec must be a list or tuple of InputSpec, got {type(input_spec).__name__}"
        )


def to_static(
    function: Optional[Callable[..., Any]] = None,
    input_spec: Any = None,
    build_strategy: Any = None,
    backend: Any = None,
    full_graph: Optional[bool] = None,
    **kwargs: Any,
) -> Any:
    """``@to_static`` / ``@to_static(input_spec=...)`` / ``to_static(layer_or_fn, ...)``.

    Runs eagerly (see the module docs): a ``Layer`` comes back as the same layer, a
    function as a wrapper that calls it. The keyword arguments are accepted for Paddle
    compatibility and checked only for their type."""
    _check_specs(input_spec)
    del build_strategy, backend, full_graph, kwargs

    def decorate(fn: Callable[..., Any]) -> Any:
        from .nn import Module

        if isinstance(fn, Module):
            return fn
        if not callable(fn):
            raise TypeError(f"to_static: expected a function or a Layer, got {type(fn).__name__}")

        @functools.wraps(fn)
        def eager(*args: Any, **kw: Any) -> Any:
            return fn(*args, **kw)

        eager.__wrapped__ = fn  # type: ignore[attr-defined]
        return eager

    if function is None:
        return decorate
    return decorate(function)


def not_to_static(func: Optional[Callable[..., Any]] = None) -> Any:
    """Marks a function to stay dygraph inside ``to_static`` code: a no-op here."""
    if func is None:
        return lambda f: f
    return func


def ignore_module(modules: Any) -> None:
    """Modules ``to_static`` should not translate: a no-op here (nothing is translated)."""
    del modules


def save(layer: Any, path: str, input_spec: Any = None, **configs: Any) -> NoReturn:
    """Not implemented: Paddle's inference-model format needs a translated program."""
    raise NotImplementedError(
        "paddle.jit.save is not implemented in ferrograd (to_static runs eagerly, so there is "
        "no translated program to save); save the weights with "
        "ferrograd.save(layer.state_dict(), path) and rebuild the layer in Python"
    )


def load(path: str, **configs: Any) -> NoReturn:
    """Not implemented: see ``save``."""
    raise NotImplementedError(
        "paddle.jit.load is not implemented in ferrograd (there is no saved inference program); "
        "load weights saved with ferrograd.save and call layer.set_state_dict(...) / "
        "load_state_dict(...)"
    )


# names of the peers' jit that ferrograd lacks get a clear AttributeError (see _missing.py)
from ._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
