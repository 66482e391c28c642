"""Complex helpers as module functions, under both dialects' names."""

from __future__ import annotations

from ._core import Tensor
from ._core import complex as complex  # noqa: A004  (torch.complex / paddle.complex)


def real(x: Tensor, name: str | None = None) -> Tensor:
    """Real part of ``x`` (``x`` itself for real dtypes); differentiable."""
    return x.real


def imag(x: Tensor, name: str | None = None) -> Tensor:
    """Imaginary part of ``x`` (zeros for real dtypes); differentiable."""
    return x.imag


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
