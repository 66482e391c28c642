"""``paddle.audio``: only ``functional.get_window`` for now (windows for ``signal.stft``)."""

from __future__ import annotations

from . import functional as functional

__all__ = ["functional"]
