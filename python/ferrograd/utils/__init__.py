"""``ferrograd.utils`` (``torch.utils``): ``data`` (data loading) and ``checkpoint``
(activation checkpointing); Paddle's ``run_check()``."""

from __future__ import annotations

from . import _pytree as _pytree
from . import checkpoint as checkpoint
from . import data as data
from .run_check import run_check as run_check

__all__ = ["checkpoint", "data", "run_check"]
