"""``ferrograd.optimizer.lr``: Paddle's name for the learning-rate schedulers."""

from __future__ import annotations

from ..optim.lr_scheduler import (
    CosineAnnealingDecay,
    CosineAnnealingLR,
    ExponentialDecay,
    LambdaDecay,
    LinearWarmup,
    LRScheduler,
    MultiStepDecay,
    NoamDecay,
    OneCycleLR,
    PiecewiseDecay,
    ReduceOnPlateau,
    StepDecay,
    StepLR,
)

__all__ = [
    "LRScheduler",
    "StepDecay",
    "CosineAnnealingDecay",
    "StepLR",
    "CosineAnnealingLR",
    "LambdaDecay",
    "MultiStepDecay",
    "ExponentialDecay",
    "PiecewiseDecay",
    "NoamDecay",
    "LinearWarmup",
    "ReduceOnPlateau",
    "OneCycleLR",
]
