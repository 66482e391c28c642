"""``paddle.text``: ``viterbi_decode`` and the ``ViterbiDecoder`` layer (Paddle 3.3.1's
signatures and values; see docs/user-scripts.md, "Session 42: a second round of Paddle
scripts"). Paddle's text data sets (``Conll05st``, ``Imdb``, ``WMT14``, ...) download
their data and are not provided."""

from __future__ import annotations

from .viterbi import ViterbiDecoder as ViterbiDecoder
from .viterbi import viterbi_decode as viterbi_decode

__all__ = ["viterbi_decode", "ViterbiDecoder"]
