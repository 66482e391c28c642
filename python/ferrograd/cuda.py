"""``torch.cuda`` as seen on a machine without a GPU: ferrograd computes on the CPU.

What a CPU-only PyTorch answers, ferrograd answers: the queries say no GPU
(``is_available()``, ``device_count()``, ``is_bf16_supported()``), the calls scripts make
unguarded are no-ops (``manual_seed``, ``manual_seed_all``, ``empty_cache``) or report
zero bytes (``memory_allocated`` and friends), and the calls that need a device raise
``RuntimeError`` (``synchronize``, ``current_device``, ``get_device_name``, ...).
``torch.cuda.amp`` is :mod:`ferrograd.cuda_amp`: autocast and GradScaler that warn and
disable themselves, as PyTorch's do without CUDA.
"""

from __future__ import annotations

from typing import Any

from . import cuda_amp as amp

__all__ = [
    "amp",
    "is_available",
    "device_count",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "empty_cache",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "reset_peak_memory_stats",
    "synchronize",
    "current_device",
    "set_device",
    "get_device_name",
    "get_device_properties",
    "get_device_capability",
]


def is_available() -> bool:
    """False: ferrograd has no GPU backend."""
    return False


def device_count() -> int:
    """0: ferrograd has no GPU backend."""
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: there is no GPU."""
    return False


def is_initialized() -> bool:
    """False: there is no CUDA context."""
    return False


def manual_seed(seed: int) -> None:
    """Does nothing: there is no GPU generator (``ferrograd.manual_seed`` seeds the CPU)."""


def manual_seed_all(seed: int) -> None:
    """Does nothing: there is no GPU generator."""


def seed() -> None:
    """Does nothing: there is no GPU generator."""


def seed_all() -> None:
    """Does nothing: there is no GPU generator."""


def empty_cache() -> None:
    """Does nothing: no GPU memory is cached (``ferrograd.empty_buffer_cache`` empties the
    CPU buffer cache)."""


def memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def reset_peak_memory_stats(device: Any = None) -> None:
    """Does nothing: there are no GPU memory statistics."""


def _no_device(what: str) -> RuntimeError:
    return RuntimeError(
        f"torch.cuda.{what}(): ferrograd has no GPU backend (it computes on the CPU); guard "
        f"the call with `if torch.cuda.is_available():`"
    )


def synchronize(device: Any = None) -> None:
    """Raises ``RuntimeError``: there is no GPU to wait for (as PyTorch without CUDA)."""
    raise _no_device("synchronize")


def current_device() -> int:
    """Raises ``RuntimeError``: there is no GPU."""
    raise _no_device("current_device")


def set_device(device: Any) -> None:
    """Raises ``RuntimeError``: there is no GPU."""
    raise _no_device("set_device")


def get_device_name(device: Any = None) -> str:
    """Raises ``RuntimeError``: there is no GPU."""
    raise _no_device("get_device_name")


def get_device_properties(device: Any = None) -> Any:
    """Raises ``RuntimeError``: there is no GPU."""
    raise _no_device("get_device_properties")


def get_device_capability(device: Any = None) -> Any:
    """Raises ``RuntimeError``: there is no GPU."""
    raise _no_device("get_device_capability")
