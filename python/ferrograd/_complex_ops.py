"""Complex helpers as module functions, under both dialects' names."""

from __future__ import annotations

from ._core import Tensor
from ._core import complex as complex  # noqa: A004  (torch.complex / paddle.complex)
from ._dialect import caller_dialect


def real(x: Tensor, name: str | None = None) -> Tensor:
    """Real part of ``x`` (``x`` itself for real dtypes); differentiable. For a complex
    ``x`` a view of its memory (PyTorch's ``torch.real``), a new tensor in Paddle code
    (``paddle.real`` "returns a new Tensor": python/paddle/tensor/attribute.py)."""
    return _copy_in_paddle(x, x.real)


def imag(x: Tensor, name: str | None = None) -> Tensor:
    """Imaginary part of ``x`` (zeros for real dtypes); differentiable. For a complex
    ``x`` a view of its memory (PyTorch's ``torch.imag``), a new tensor in Paddle code
    (``paddle.imag``)."""
    return _copy_in_paddle(x, x.imag)


def _copy_in_paddle(x: Tensor, part: Tensor) -> Tensor:
    """``part`` (a view of complex ``x``), or a copy of it when Paddle code asked."""
    if x.is_complex() and caller_dialect(3) == "paddle":  # (3: real/imag's caller)
        return part.clone()
    return part


def conj(x: Tensor, name: str | None = None) -> Tensor:
    """Complex conjugate of ``x`` (``x`` itself for real dtypes); differentiable."""
    return x.conj()


def angle(x: Tensor, name: str | None = None) -> Tensor:
    """Phase angle of ``x`` in radians; differentiable."""
    return x.angle()


def is_complex(x: Tensor) -> bool:
    """True when ``x`` has a complex dtype."""
    return x.is_complex()


__all__ = ["complex", "real", "imag", "conj", "angle", "is_complex"]
