"""``nn.RMSNorm`` (PyTorch's; Paddle code spells ``epsilon``): the root-mean-square
normalisation over the trailing ``normalized_shape`` dims, with an optional ``weight``."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .. import _core
from . import fn_norm
from .module import Module
from .parameter import Parameter
from .static_build import recording

Tensor = _core.Tensor


def _dt(dtype: Any) -> Any:
    return dtype if dtype is not None else _core._get_default_dtype()


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims
    (torch's ``nn.RMSNorm``; ``eps=None`` is the dtype's machine epsilon); ``weight`` starts
    at ones."""

    def __init__(
        self,
        normalized_shape: Union[int, Sequence[int]],
        eps: Optional[float] = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        epsilon: Optional[float] = None,
    ) -> None:
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps if epsilon is None else epsilon
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_core.ones(shape, dtype=_dt(dtype)))
        else:
            self.register_parameter("weight", None)

    def forward(self, x: Tensor) -> Tensor:
        """RMS-normalised ``x``."""
        fn = fn_norm.rms_norm if isinstance(x, Tensor) else recording("rms_norm")
        return fn(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


__all__ = ["RMSNorm"]
