"""``ferrograd.optim``: optimizers whose ``step()`` updates every parameter of a group in
one Rust call, and learning-rate schedulers. ``ferrograd.optimizer`` is the same under
Paddle's name (with the schedulers in ``ferrograd.optimizer.lr``)."""

from __future__ import annotations

from . import lr_scheduler, swa_utils
from .adafactor import Adafactor
from .adam import Adam, AdamW
from .adaptive import Adadelta, Adagrad, Adamax
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import Optimizer
from .radam_nadam import NAdam, RAdam
from .rmsprop import RMSProp, RMSprop
from .rprop_asgd import ASGD, Rprop
from .sgd import SGD, Momentum
from .sparse_adam import SparseAdam

__all__ = [
    "Optimizer",
    "SGD",
    "Momentum",
    "Adam",
    "AdamW",
    "RMSprop",
    "RMSProp",
    "Adagrad",
    "Adadelta",
    "Adamax",
    "RAdam",
    "NAdam",
    "LBFGS",
    "Rprop",
    "ASGD",
    "SparseAdam",
    "Adafactor",
    "Muon",
    "lr_scheduler",
    "swa_utils",
]

# PyTorch / Paddle names ferrograd lacks raise an AttributeError that says so (reached only
# for names this module does not define; see ferrograd/_missing.py).
from .._missing import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute(__name__)
