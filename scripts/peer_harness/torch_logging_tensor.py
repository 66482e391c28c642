"""A stand-in for ``torch.testing._internal.logging_tensor``: its ``LoggingTensor`` is a
``__torch_dispatch__`` tensor subclass that logs every operator PyTorch's dispatcher runs,
machinery ferrograd does not have (an internal of PyTorch's C++ core). Building one skips
the calling test, so the tests parametrized over plain and logging tensors run their plain
variant and report the logging one as skipped.
"""

from __future__ import annotations

import unittest

__all__ = ["LoggingTensor"]

REASON = "LoggingTensor needs __torch_dispatch__ tensor subclasses (internal, not provided)"


class LoggingTensor:
    """Skips the test that builds one (see the module docstring)."""

    def __new__(cls, *args, **kwargs):
        raise unittest.SkipTest(REASON)
