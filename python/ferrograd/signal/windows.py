"""``torch.signal.windows``: window functions of ``M`` points, symmetric by default
(``sym=False``: periodic), computed in float64 and converted to ``dtype``."""

from __future__ import annotations

from .._windows import bartlett as bartlett
from .._windows import blackman as blackman
from .._windows import cosine as cosine
from .._windows import exponential as exponential
from .._windows import gaussian as gaussian
from .._windows import general_cosine as general_cosine
from .._windows import general_hamming as general_hamming
from .._windows import hamming as hamming
from .._windows import hann as hann
from .._windows import kaiser as kaiser
from .._windows import nuttall as nuttall

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]
