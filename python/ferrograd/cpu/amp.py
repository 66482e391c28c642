"""``torch.cpu.amp``: ``autocast(dtype=torch.bfloat16, enabled=True)`` and
``GradScaler``, ferrograd.amp's on the CPU."""

from __future__ import annotations

from typing import Any

from ..amp import GradScaler as GradScaler
from ..amp import autocast as _autocast

__all__ = ["GradScaler", "autocast"]


def autocast(enabled: bool = True, dtype: Any = None, cache_enabled: Any = None) -> Any:
    """``torch.cpu.amp.autocast``: ``ferrograd.amp.autocast("cpu", ...)``."""
    return _autocast("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
