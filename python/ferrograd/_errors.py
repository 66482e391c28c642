"""Exception classes of ferrograd's own."""

from __future__ import annotations

__all__ = [
    "AutogradUsageError",
    "AutogradTypeError",
    "AutogradArgumentError",
    "AxisError",
    "ArgumentCheckError",
    "BackwardNotImplementedError",
]


class AutogradUsageError(ValueError, RuntimeError):
    """A misuse of autograd that the two peers report with different classes, e.g. a
    custom layer's backward returning the wrong number of gradients (Paddle:
    ``ValueError``, PyTorch: ``RuntimeError``) or a hook registered on a tensor that does
    not require grad. It subclasses both, so ``except ValueError`` (code written for
    Paddle) and ``except RuntimeError`` (code written for PyTorch) both catch it."""


class AutogradTypeError(TypeError, ValueError):
    """A value of the wrong type handed to autograd that the peers report with different
    classes, e.g. a custom layer's ``backward`` returning an ``int`` instead of a Tensor
    or None (Paddle: ``ValueError``; PyTorch and ferrograd's contract: ``TypeError``). It
    subclasses both, so ``except TypeError`` and ``except ValueError`` both catch it."""


class BackwardNotImplementedError(NotImplementedError, OSError):
    """Backward through a custom layer that defines no ``backward``: PyTorch raises
    ``NotImplementedError``, Paddle ``OSError`` (its C++ error class). It subclasses both,
    so code written for either peer catches it."""


class AutogradArgumentError(TypeError, ValueError, AssertionError):
    """A bad argument to ``grad()`` / ``backward()``: something that is not a Tensor where
    tensors are expected, or a number of ``grad_outputs`` that does not match the
    outputs. Paddle checks these with ``assert`` (``AssertionError``), PyTorch and
    ferrograd's contract report ``TypeError`` / ``ValueError``; this class subclasses all
    three, so code written for either peer catches it."""


class AxisError(IndexError, ValueError):
    """A dimension (axis) out of range: PyTorch raises ``IndexError``, Paddle
    ``ValueError`` (e.g. ``paddle.roll`` / ``unbind`` with ``axis=10`` on a 2-D tensor).
    It subclasses both, so code written for either peer catches it."""


class ArgumentCheckError(ValueError, RuntimeError):
    """A bad combination of argument values that PyTorch refuses with a ``RuntimeError``
    (a ``TORCH_CHECK`` in its C++), where Python's convention (and ferrograd's before) is
    a ``ValueError``, e.g. ``scaled_dot_product_attention`` with both ``attn_mask`` and
    ``is_causal=True``. It subclasses both, so either ``except`` catches it."""
