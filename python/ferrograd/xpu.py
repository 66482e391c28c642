"""``torch.xpu`` (Intel GPUs) as a build without XPU answers: ferrograd computes on the CPU.

As PyTorch without XPU (``torch/xpu/__init__.py``): the queries say no device
(``is_available()``, ``device_count()``, ``is_initialized()``), seeding and
``empty_cache`` do nothing, and the calls that need a device raise ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "is_available",
    "device_count",
    "is_initialized",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "empty_cache",
    "synchronize",
    "current_device",
    "set_device",
    "get_device_name",
    "get_device_properties",
    "get_device_capability",
]


def is_available() -> bool:
    """False: ferrograd has no XPU backend."""
    return False


def device_count() -> int:
    """0: ferrograd has no XPU backend."""
    return 0


def is_initialized() -> bool:
    """False: there is no XPU context."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: there is no XPU device."""
    return False


def manual_seed(seed: int) -> None:
    """Does nothing: there is no XPU generator (``ferrograd.manual_seed`` seeds the CPU)."""


def manual_seed_all(seed: int) -> None:
    """Does nothing: there is no XPU generator."""


def seed() -> None:
    """Does nothing: there is no XPU generator."""


def seed_all() -> None:
    """Does nothing: there is no XPU generator."""


def empty_cache() -> None:
    """Does nothing: no XPU memory is cached."""


def _no_device(what: str) -> RuntimeError:
    return RuntimeError(
        f"torch.xpu.{what}(): ferrograd has no XPU backend (it computes on the CPU); guard "
        "the call with `if torch.xpu.is_available():`"
    )


def synchronize(device: Any = None) -> None:
    """Raises ``RuntimeError``: there is no XPU device to wait for."""
    raise _no_device("synchronize")


def current_device() -> int:
    """Raises ``RuntimeError``: there is no XPU device."""
    raise _no_device("current_device")


def set_device(device: Any) -> None:
    """Raises ``RuntimeError``: there is no XPU device."""
    raise _no_device("set_device")


def get_device_name(device: Any = None) -> str:
    """Raises ``RuntimeError``: there is no XPU device."""
    raise _no_device("get_device_name")


def get_device_properties(device: Any = None) -> Any:
    """Raises ``RuntimeError``: there is no XPU device."""
    raise _no_device("get_device_properties")


def get_device_capability(device: Any = None) -> Any:
    """Raises ``RuntimeError``: there is no XPU device."""
    raise _no_device("get_device_capability")
