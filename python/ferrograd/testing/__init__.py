"""``torch.testing``: ``assert_close`` (PyTorch's tolerances and reports), the deprecated
``assert_allclose``, and ``make_tensor`` (random tensors for tests)."""

from __future__ import annotations

from ._comparison import assert_allclose as assert_allclose
from ._comparison import assert_close as assert_close
from ._creation import make_tensor as make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
