"""``torch.cpu``: ``torch.cpu.amp`` (autocast and GradScaler on the CPU)."""

from __future__ import annotations

from . import amp as amp

__all__ = ["amp", "is_available", "device_count"]


def is_available() -> bool:
    """True: ferrograd computes on the CPU."""
    return True


def device_count() -> int:
    """1: the CPU."""
    return 1
