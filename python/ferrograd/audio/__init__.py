"""``paddle.audio`` (Paddle 3.3.1): ``functional`` (mel scale, filter banks, ``power_to_db``,
DCT, windows), ``features`` (``Spectrogram``, ``MelSpectrogram``, ``LogMelSpectrogram``,
``MFCC`` layers), ``backends`` with ``load`` / ``save`` / ``info`` (16-bit PCM WAV through
the standard library's ``wave``) and ``datasets`` (``ESC50`` / ``TESS`` need downloads:
not available). See docs/audio.md."""

from __future__ import annotations

from . import backends as backends
from . import datasets as datasets
from . import features as features
from . import functional as functional
from .backends.wave_backend import info as info
from .backends.wave_backend import load as load
from .backends.wave_backend import save as save

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]
