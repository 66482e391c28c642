"""Automatic mixed precision for both dialects: ``paddle.amp`` (``auto_cast`` /
``amp_guard``, ``GradScaler`` / ``AmpScaler``, ``decorate``) and ``torch.amp``
(``autocast``, ``GradScaler``); ``torch.autocast`` and ``torch.cpu.amp`` are the same
objects. See docs/amp.md: inside the context ``matmul`` / ``linear`` / convolutions run
in float16 or bfloat16, everything else in its inputs' dtype."""

from __future__ import annotations

from .auto_cast import amp_guard as amp_guard
from .auto_cast import auto_cast as auto_cast
from .auto_cast import autocast as autocast
from .auto_cast import get_autocast_dtype as get_autocast_dtype
from .auto_cast import is_autocast_enabled as is_autocast_enabled
from .decorate import decorate as decorate
from .grad_scaler import AmpScaler as AmpScaler
from .grad_scaler import GradScaler as GradScaler
from .grad_scaler import OptimizerState as OptimizerState

__all__ = [
    "AmpScaler",
    "GradScaler",
    "OptimizerState",
    "amp_guard",
    "auto_cast",
    "autocast",
    "decorate",
    "get_autocast_dtype",
    "is_autocast_enabled",
    "is_bfloat16_supported",
    "is_float16_supported",
]


def is_float16_supported(device: object = None) -> bool:
    """True: ferrograd's CPU kernels take float16 tensors (computing in float32)."""
    del device
    return True


def is_bfloat16_supported(device: object = None) -> bool:
    """True: ferrograd's CPU kernels take bfloat16 tensors (computing in float32)."""
    del device
    return True
