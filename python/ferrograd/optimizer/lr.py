"""``ferrograd.optimizer.lr``: Paddle's name for the learning-rate schedulers."""

from __future__ import annotations

from ..optim.lr_scheduler import (
    CosineAnnealingDecay,
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    CyclicLR,
    ExponentialDecay,
    InverseTimeDecay,
    LambdaDecay,
    LinearLR,
    LinearWarmup,
    LRScheduler,
    MultiplicativeDecay,
    MultiStepDecay,
    NaturalExpDecay,
    NoamDecay,
    OneCycleLR,
    PiecewiseDecay,
    PolynomialDecay,
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
    "LinearLR",
    "PolynomialDecay",
    "MultiplicativeDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
]
