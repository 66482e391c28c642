"""Paddle's ``nn.SpectralNorm(weight_shape, dim=0, power_iters=1, eps=1e-12,
dtype='float32')``: a layer whose forward takes a weight tensor and returns it divided by
its largest singular value, estimated by power iteration.

As Paddle's ``spectral_norm`` kernel (``paddle/phi/kernels/impl/spectral_norm_kernel_impl.h``,
``funcs/spectral_norm.h``): the weight is viewed as an ``[h, w]`` matrix (``dim`` moved to
the front), the stored ``weight_u`` ``[h]`` / ``weight_v`` ``[w]`` (drawn from N(0, 1),
never trained) are copied and iterated ``power_iters`` times (``v = W^T u / (|W^T u| +
eps)``, ``u = W v / (|W v| + eps)``) without being written back, so every call starts
from the same vectors; ``sigma = u . (W v)``. The gradient is Paddle's: ``u`` and ``v`` are
constants, the weight's gradient flows through ``W / sigma``. The weight-hook form is
``nn.utils.spectral_norm``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from .._core import Tensor
from ..grad_mode import no_grad
from .init import Normal
from .module import Module


class SpectralNorm(Module):
    """Paddle's ``nn.SpectralNorm`` layer: ``forward(weight)`` returns ``weight / sigma``
    (see the module doc); ``weight_shape`` fixes the sizes of ``weight_u`` and
    ``weight_v``."""

    def __init__(
        self,
        weight_shape: Sequence[int],
        dim: int = 0,
        power_iters: int = 1,
        eps: float = 1e-12,
        dtype: Any = "float32",
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        shape = [int(s) for s in weight_shape]
        if not 2 <= len(shape) <= 5:
            raise ValueError(f"SpectralNorm: weight_shape must have 2 to 5 dimensions, got {shape}")
        if int(np.prod(shape)) <= 0:
            raise ValueError(f"SpectralNorm: no dimension of weight_shape may be 0, got {shape}")
        if not 0 <= dim < len(shape):
            raise ValueError(
                f"SpectralNorm: dim must be in [0, {len(shape)}) for weight_shape {shape}, "
                f"got {dim}"
            )
        if int(power_iters) < 0:
            raise ValueError(f"SpectralNorm: power_iters must be >= 0, got {power_iters}")
        self._weight_shape, self._dim = shape, int(dim)
        self._power_iters, self._eps = int(power_iters), float(eps)
        h = shape[self._dim]
        w = int(np.prod(shape)) // h
        self.weight_u = self.create_parameter(
            [h], dtype=dtype, default_initializer=Normal(0.0, 1.0)
        )
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter(
            [w], dtype=dtype, default_initializer=Normal(0.0, 1.0)
        )
        self.weight_v.stop_gradient = True

    def forward(self, x: Tensor) -> Tensor:
        """``x / sigma(x)`` (``x`` of shape ``weight_shape``)."""
        if list(x.shape) != self._weight_shape:
            raise ValueError(
                f"SpectralNorm: the input's shape {list(x.shape)} differs from the "
                f"weight_shape {self._weight_shape} the layer was built for"
            )
        mat = x.movedim(self._dim, 0) if self._dim != 0 else x
        mat = mat.reshape([self._weight_shape[self._dim], -1])
        with no_grad():
            m = mat.detach()
            u, v = self.weight_u.detach().clone(), self.weight_v.detach().clone()
            for _ in range(self._power_iters):
                v = m.t() @ u
                v = v / (v.square().sum().sqrt() + self._eps)
                u = m @ v
                u = u / (u.square().sum().sqrt() + self._eps)
        sigma = (u * (mat @ v)).sum()
        return x / sigma

    def extra_repr(self) -> str:
        """The layer's settings, as printed."""
        return (
            f"weight_shape={self._weight_shape}, dim={self._dim}, "
            f"power_iters={self._power_iters}, eps={self._eps}"
        )
