"""Exception classes of ferrograd's own."""

from __future__ import annotations

__all__ = ["AutogradUsageError"]


class AutogradUsageError(ValueError, RuntimeError):
    """A misuse of autograd that the two peers report with different classes, e.g. a
    custom layer's backward returning the wrong number of gradients (Paddle:
    ``ValueError``, PyTorch: ``RuntimeError``) or a hook registered on a tensor that does
    not require grad. It subclasses both, so ``except ValueError`` (code written for
    Paddle) and ``except RuntimeError`` (code written for PyTorch) both catch it."""
