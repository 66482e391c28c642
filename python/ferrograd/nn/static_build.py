"""Layers built in static mode: which modules are under construction, and when their
eager parameters and buffers become static ones.

A layer's ``__init__`` (and its parents' and sub-layers') creates eager ``Parameter``s
and fills them with its initialisers, sometimes after registering them, sometimes
re-initialising a sub-layer's weights (``MultiHeadAttention``). So while
``enable_static()`` is in effect nothing is converted during construction: every module
constructed or changed meanwhile is noted, and when the outermost ``__init__`` returns
they are handed to ``ferrograd/static/layer_state.py``, which replaces their eager
parameters and buffers by static parameters of the default main program initialised to
those values. A registration after construction is converted at once. In dynamic mode
this costs one thread-local counter per ``__init__``.
"""

from __future__ import annotations

import functools
import sys
import threading
from typing import Any, Callable

_state = threading.local()


def _static_mode() -> bool:
    mode = sys.modules.get("ferrograd.static.mode_switch")
    return mode is not None and bool(mode._static[0])


def _layer_state() -> Any:
    from ..static import layer_state

    return layer_state


def converter(module: Any) -> Any:
    """``static/layer_state.py`` when a parameter or buffer registered on ``module`` now
    must be made static at once (static mode, no construction under way), else None
    (a construction under way notes ``module`` and converts it when it ends)."""
    if not _static_mode():
        return None
    if getattr(_state, "depth", 0):
        _state.pending.append(module)
        return None
    return _layer_state()


def tracking_construction(init: Callable[..., None]) -> Callable[..., None]:
    """``init`` counted as a construction: when the outermost one returns in static mode,
    every module built meanwhile gets static parameters and buffers."""

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        depth = getattr(_state, "depth", 0)
        if depth == 0:
            _state.pending = []
        _state.depth = depth + 1
        try:
            init(self, *args, **kwargs)
        finally:
            _state.depth = depth
        if depth == 0 and _static_mode():
            pending, _state.pending = _state.pending + [self], []
            layer_state, seen = _layer_state(), set()
            for m in pending:
                if id(m) not in seen:
                    seen.add(id(m))
                    layer_state.make_static(m)
        elif depth:
            _state.pending.append(self)

    __init__._fg_tracks_construction = True  # type: ignore[attr-defined]
    return __init__


def set_value(target: Any, value: Any) -> None:
    """Loads ``value`` into a static layer's parameter or buffer (its value in the
    global scope)."""
    _layer_state().set_value(target, value)


def recording(name: str) -> Any:
    """``ferrograd.nn.functional.<name>``: the dispatching function, which records a
    static op when given a Variable (layers call the module-level implementations
    directly in dynamic mode)."""
    return getattr(sys.modules["ferrograd.nn.functional"], name)


def unsupported(layer: Any, why: str, instead: str) -> NotImplementedError:
    """The error for a layer (or a setting of one) that static programs do not run."""
    return NotImplementedError(
        f"{type(layer).__name__} in a static program: {why}. Instead: {instead}"
    )


__all__ = ["converter", "recording", "set_value", "tracking_construction", "unsupported"]
