"""Transforms onto the probability simplex (re-exported by
:mod:`ferrograd.distributions.transforms`): ``SoftmaxTransform`` and the bijective
``StickBreakingTransform`` (both peers have them)."""

from __future__ import annotations

from typing import Any

from .. import _core
from . import constraints
from ._utils import eps_of
from .transforms import Transform

Tensor = _core.Tensor

__all__ = ["SoftmaxTransform", "StickBreakingTransform"]


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (not injective: the inverse is ``log y``, one
    of the preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Any) -> Tensor:
        return x.softmax(-1)

    def _inverse(self, y: Any) -> Tensor:
        return y.log()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = Transform.__hash__


class StickBreakingTransform(Transform):
    """Maps ``K - 1`` reals to a point of the ``K``-simplex by stick breaking (offset
    sigmoids, as PyTorch): a bijection with a tractable Jacobian."""

    bijective = True
    domain = constraints.real_vector
    codomain = constraints.simplex

    @staticmethod
    def _offset(x: Tensor) -> Tensor:
        k = int(x.shape[-1])
        # log(K - 1 - i) for i = 0 .. K-2, so that x = 0 maps to the simplex's centre
        return _core.arange(k, 0, -1, dtype=x.dtype).log()

    def _call(self, x: Any) -> Tensor:
        z = (x - self._offset(x)).sigmoid()
        rest = (1 - z).cumprod(-1)
        ones = _core.ones(list(x.shape[:-1]) + [1], dtype=x.dtype)
        return _core.concat([z, ones], -1) * _core.concat([ones, rest], -1)

    def _inverse(self, y: Any) -> Tensor:
        head = y[..., :-1]
        k = int(head.shape[-1])
        remaining = 1 - head.cumsum(-1)
        shifted = _core.concat(
            [_core.ones(list(head.shape[:-1]) + [1], dtype=y.dtype), remaining[..., :-1]], -1
        )
        eps = eps_of(y.dtype)
        z = (head / shifted.clamp(min=eps)).clamp(min=eps, max=1 - eps)
        offset = _core.arange(k, 0, -1, dtype=y.dtype).log()
        return z.log() - (-z).log1p() + offset

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        t = x - self._offset(x)
        # d y_i / d x_i = z_i (1 - z_i) * prod_{j<i} (1 - z_j) = y_i (1 - z_i)
        return (-t + t.sigmoid().log() + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape)
        if not shape:
            raise ValueError("StickBreakingTransform needs at least one dim")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape)
        if not shape:
            raise ValueError("StickBreakingTransform needs at least one dim")
        return shape[:-1] + (shape[-1] - 1,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = Transform.__hash__
