"""``ferrograd.utils`` (``torch.utils``): ``data`` (data loading) and ``checkpoint``
(activation checkpointing)."""

from __future__ import annotations

from . import checkpoint as checkpoint
from . import data as data

__all__ = ["checkpoint", "data"]
