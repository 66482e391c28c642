"""``ferrograd.utils`` (``torch.utils``): ``data`` holds the data-loading utilities."""

from __future__ import annotations

from . import data as data

__all__ = ["data"]
