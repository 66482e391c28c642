"""``paddle.audio.functional``: the mel scale (``hz_to_mel``, ``mel_to_hz``,
``mel_frequencies``), ``fft_frequencies``, the mel filter bank
(``compute_fbank_matrix``), ``power_to_db``, the DCT matrix (``create_dct``) and
``get_window``, with Paddle 3.3.1's signatures and defaults."""

from __future__ import annotations

from .functional import compute_fbank_matrix as compute_fbank_matrix
from .functional import create_dct as create_dct
from .functional import fft_frequencies as fft_frequencies
from .functional import hz_to_mel as hz_to_mel
from .functional import mel_frequencies as mel_frequencies
from .functional import mel_to_hz as mel_to_hz
from .functional import power_to_db as power_to_db
from .window import get_window as get_window

__all__ = [
    "compute_fbank_matrix",
    "create_dct",
    "fft_frequencies",
    "hz_to_mel",
    "mel_frequencies",
    "mel_to_hz",
    "power_to_db",
    "get_window",
]
