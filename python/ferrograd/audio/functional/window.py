"""``paddle.audio.functional.window``: ``get_window`` (scipy's windows by name or by a
``(name, *parameters)`` tuple; see ``ferrograd/_windows.py``)."""

from __future__ import annotations

from ..._windows import get_window as get_window

__all__ = ["get_window"]
