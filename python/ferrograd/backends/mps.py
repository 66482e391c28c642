"""``torch.backends.mps``: Apple's Metal backend, which ferrograd does not have."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: ferrograd has no MPS backend."""
    return False


def is_built() -> bool:
    """False: ferrograd was not built with MPS."""
    return False
