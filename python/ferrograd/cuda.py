"""``torch.cuda`` as seen on a machine without a GPU: ferrograd computes on the CPU."""

from __future__ import annotations

__all__ = ["is_available", "device_count"]


def is_available() -> bool:
    """False: ferrograd has no GPU backend."""
    return False


def device_count() -> int:
    """0: ferrograd has no GPU backend."""
    return 0
