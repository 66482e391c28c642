"""``torch.backends.mkldnn``: ferrograd does not use oneDNN (its CPU kernels are its own)."""

from __future__ import annotations

enabled: bool = False

__all__ = ["is_available", "enabled"]


def is_available() -> bool:
    """False: ferrograd does not use oneDNN."""
    return False
