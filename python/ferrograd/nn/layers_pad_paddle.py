"""Paddle 3's padding layers under their own names: ``ConstantPad1D/2D/3D``,
``ReflectionPad1D/2D/3D``, ``ReplicationPad1D/2D/3D``, ``CircularPad1D/2D/3D`` — each a
``Pad1D`` / ``Pad2D`` / ``Pad3D`` (their base class in Paddle too) with the mode fixed;
``padding`` is an int or ``[left, right(, top, bottom(, front, back))]``."""

from __future__ import annotations

from typing import Any, Optional

from .layers_pad import Pad1D, Pad2D, Pad3D


def _constant(base: Any, k: int) -> Any:
    def __init__(
        self: Any,
        padding: Any,
        value: float,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        base.__init__(self, padding, "constant", value, data_format)

    doc = (
        f"Paddle's ``ConstantPad{k}D(padding, value, data_format)``: pads the {k} spatial "
        f"dim(s) with ``value``."
    )
    return type(f"ConstantPad{k}D", (base,), {"__init__": __init__, "__doc__": doc})


def _fixed(mode: str, prefix: str, base: Any, k: int) -> Any:
    def __init__(
        self: Any, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
    ) -> None:
        base.__init__(self, padding, mode, 0.0, data_format)

    doc = f"Paddle's ``{prefix}Pad{k}D(padding, data_format)``: ``{mode}`` padding."
    return type(f"{prefix}Pad{k}D", (base,), {"__init__": __init__, "__doc__": doc})


ConstantPad1D = _constant(Pad1D, 1)
ConstantPad2D = _constant(Pad2D, 2)
ConstantPad3D = _constant(Pad3D, 3)
ReflectionPad1D = _fixed("reflect", "Reflection", Pad1D, 1)
ReflectionPad2D = _fixed("reflect", "Reflection", Pad2D, 2)
ReflectionPad3D = _fixed("reflect", "Reflection", Pad3D, 3)
ReplicationPad1D = _fixed("replicate", "Replication", Pad1D, 1)
ReplicationPad2D = _fixed("replicate", "Replication", Pad2D, 2)
ReplicationPad3D = _fixed("replicate", "Replication", Pad3D, 3)
CircularPad1D = _fixed("circular", "Circular", Pad1D, 1)
CircularPad2D = _fixed("circular", "Circular", Pad2D, 2)
CircularPad3D = _fixed("circular", "Circular", Pad3D, 3)
for _c in (
    ConstantPad1D, ConstantPad2D, ConstantPad3D, ReflectionPad1D, ReflectionPad2D,
    ReflectionPad3D, ReplicationPad1D, ReplicationPad2D, ReplicationPad3D, CircularPad1D,
    CircularPad2D, CircularPad3D,
):  # fmt: skip
    _c.__module__ = __name__

__all__ = [
    "ConstantPad1D", "ConstantPad2D", "ConstantPad3D", "ReflectionPad1D", "ReflectionPad2D",
    "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D",
    "CircularPad1D", "CircularPad2D", "CircularPad3D",
]  # fmt: skip
