"""Paddle's high-level API (``paddle.Model`` and ``paddle.callbacks``): a model object that
runs the training loop, evaluation and prediction for a network, a loss, an optimizer and
metrics. See ``docs/hapi.md``."""

from __future__ import annotations

from . import callbacks as callbacks
from .model import Model as Model

__all__ = ["Model", "callbacks"]
