"""``paddle.audio.features``: the ``Spectrogram``, ``MelSpectrogram``,
``LogMelSpectrogram`` and ``MFCC`` layers (see ``layers.py``)."""

from __future__ import annotations

from .layers import MFCC as MFCC
from .layers import LogMelSpectrogram as LogMelSpectrogram
from .layers import MelSpectrogram as MelSpectrogram
from .layers import Spectrogram as Spectrogram

__all__ = ["LogMelSpectrogram", "MelSpectrogram", "MFCC", "Spectrogram"]
