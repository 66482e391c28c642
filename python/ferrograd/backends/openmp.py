"""``torch.backends.openmp``: ferrograd parallelises with rayon, not OpenMP
(``ferrograd.get_num_threads`` / ``set_num_threads`` size its pool)."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """False: ferrograd's threads are a rayon pool, not OpenMP."""
    return False
