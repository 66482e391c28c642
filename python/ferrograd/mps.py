"""``torch.mps`` as a machine without Apple's Metal answers: ferrograd computes on the CPU.

PyTorch's ``torch.mps.is_available()`` is ``device_count() > 0`` (``torch/mps/__init__.py``),
and ``manual_seed`` returns quietly without MPS; the same here. The calls that need the
device raise ``RuntimeError``. (``torch.backends.mps`` is :mod:`ferrograd.backends.mps`.)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "is_available",
    "device_count",
    "manual_seed",
    "seed",
    "synchronize",
    "empty_cache",
    "current_allocated_memory",
    "driver_allocated_memory",
    "recommended_max_memory",
    "get_rng_state",
    "set_rng_state",
]


def is_available() -> bool:
    """False: ferrograd has no MPS backend."""
    return False


def device_count() -> int:
    """0: ferrograd has no MPS backend."""
    return 0


def manual_seed(seed: int) -> None:
    """Does nothing: there is no MPS generator (``ferrograd.manual_seed`` seeds the CPU)."""


def _no_device(what: str) -> RuntimeError:
    return RuntimeError(
        f"torch.mps.{what}(): MPS is not available (ferrograd computes on the CPU); guard the "
        "call with `if torch.mps.is_available():`"
    )


def seed() -> None:
    """Raises ``RuntimeError``: there is no MPS generator."""
    raise _no_device("seed")


def synchronize() -> None:
    """Raises ``RuntimeError``: there is no MPS device to wait for."""
    raise _no_device("synchronize")


def empty_cache() -> None:
    """Raises ``RuntimeError``: there is no MPS allocator."""
    raise _no_device("empty_cache")


def current_allocated_memory() -> int:
    """Raises ``RuntimeError``: there is no MPS allocator."""
    raise _no_device("current_allocated_memory")


def driver_allocated_memory() -> int:
    """Raises ``RuntimeError``: there is no MPS allocator."""
    raise _no_device("driver_allocated_memory")


def recommended_max_memory() -> int:
    """Raises ``RuntimeError``: there is no MPS device."""
    raise _no_device("recommended_max_memory")


def get_rng_state(device: Any = "mps") -> Any:
    """Raises ``RuntimeError``: there is no MPS generator."""
    raise _no_device("get_rng_state")


def set_rng_state(new_state: Any, device: Any = "mps") -> None:
    """Raises ``RuntimeError``: there is no MPS generator."""
    raise _no_device("set_rng_state")
