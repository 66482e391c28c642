"""``torch.cuda.amp`` without a GPU: ``autocast`` and ``GradScaler`` warn and disable
themselves, as PyTorch's do when CUDA is not available, so a script written for a GPU
still trains on the CPU in full precision (``ferrograd.cpu.amp`` / ``ferrograd.amp``
give mixed precision on the CPU)."""

from __future__ import annotations

import warnings
from typing import Any

from .amp import GradScaler as _GradScaler
from .amp import autocast as _autocast

__all__ = ["GradScaler", "autocast"]


def _warn(what: str) -> None:
    warnings.warn(
        f"torch.cuda.amp.{what} is enabled, but ferrograd has no GPU backend: disabling it "
        f"(use torch.autocast('cpu') / torch.cpu.amp for mixed precision on the CPU)",
        UserWarning,
        stacklevel=3,
    )


def autocast(enabled: bool = True, dtype: Any = None, cache_enabled: Any = True) -> Any:
    """A disabled ``ferrograd.amp.autocast`` (a warning when ``enabled``)."""
    if enabled:
        _warn("autocast")
    return _autocast("cpu", dtype=dtype, enabled=False)


def GradScaler(  # noqa: N802  (PyTorch's class name; this returns ferrograd's scaler)
    init_scale: float = 65536.0,
    growth_factor: float = 2.0,
    backoff_factor: float = 0.5,
    growth_interval: int = 2000,
    enabled: bool = True,
) -> Any:
    """A disabled ``ferrograd.amp.GradScaler`` (a warning when ``enabled``): ``scale``
    returns the loss unchanged and ``step`` steps the optimizer."""
    if enabled:
        _warn("GradScaler")
    return _GradScaler(
        "cpu",
        init_scale=init_scale,
        growth_factor=growth_factor,
        backoff_factor=backoff_factor,
        growth_interval=growth_interval,
        enabled=False,
    )
