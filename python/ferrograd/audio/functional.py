"""``paddle.audio.functional``: ``get_window`` (the scipy-style window functions)."""

from __future__ import annotations

from .._windows import get_window as get_window

__all__ = ["get_window"]
