"""The static/dynamic mode flag: ``enable_static()``, ``disable_static()``,
``in_dynamic_mode()``.

The switch changes nothing in the ``ferrograd`` namespace: module functions dispatch on
their arguments' type instead (a static ``Variable`` records, a ``Tensor`` runs; see
``static/dispatch.py`` and ``src/python/static_graph/dispatch.rs``). The flag tells the
layers and optimizers that build parameters (``nn.Linear`` in static mode creates
static parameters) which kind to make.
"""

from __future__ import annotations

from typing import Any

from .variable import Variable as Variable  # (read by optim.optimizer through this module)

_static = [False]


def enable_static() -> None:
    """Static mode: layers and optimizers build static programs; ``ferrograd``
    functions given static Variables record ops into the Variable's program (they do
    in either mode: the functions dispatch on the argument type)."""
    _static[0] = True


def disable_static(place: Any = None) -> None:
    """Back to dynamic (eager) mode. ``place``: Paddle's device for eager work
    (``paddle.CPUPlace()``, ``"cpu"``; ``None``: unchanged); only the CPU exists here, so
    any other place is a ValueError (Paddle's own answer when built without it)."""
    if place is not None and str(place).lower() != "place(cpu)":
        from .._dropin import _check_cpu

        _check_cpu("disable_static", place)
    _static[0] = False


def in_dynamic_mode() -> bool:
    """True unless ``enable_static()`` is in effect."""
    return not _static[0]


__all__ = ["disable_static", "enable_static", "in_dynamic_mode"]
