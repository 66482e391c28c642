"""``ferrograd.optimizer.lr``: Paddle's name for the learning-rate schedulers."""

from __future__ import annotations

from ..optim.lr_scheduler import (
    CosineAnnealingDecay,
    CosineAnnealingLR,
    LRScheduler,
    StepDecay,
    StepLR,
)

__all__ = ["LRScheduler", "StepDecay", "CosineAnnealingDecay", "StepLR", "CosineAnnealingLR"]
