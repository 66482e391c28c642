"""``ferrograd.optimizer``: Paddle's name for :mod:`ferrograd.optim` (same classes);
schedulers live in :mod:`ferrograd.optimizer.lr`."""

from __future__ import annotations

from ..optim import SGD, Adam, AdamW, Momentum, Optimizer
from . import lr

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "lr"]
