"""``ferrograd.optimizer``: Paddle's name for :mod:`ferrograd.optim` (same classes);
schedulers live in :mod:`ferrograd.optimizer.lr`."""

from __future__ import annotations

from ..optim import (
    LBFGS,
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Momentum,
    NAdam,
    Optimizer,
    RAdam,
    RMSProp,
)
from . import lr
from .lamb import Lamb
from .rprop_asgd import ASGD, Rprop

__all__ = [
    "Optimizer",
    "SGD",
    "Momentum",
    "Adam",
    "AdamW",
    "RMSProp",
    "Adagrad",
    "Adadelta",
    "Adamax",
    "RAdam",
    "NAdam",
    "LBFGS",
    "Rprop",
    "ASGD",
    "Lamb",
    "lr",
]
