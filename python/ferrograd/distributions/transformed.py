"""``TransformedDistribution``: a base distribution pushed through a chain of transforms
(``torch.distributions.TransformedDistribution``; Paddle's
``paddle.distribution.TransformedDistribution(base, transforms)``).

``log_prob(y)`` inverts the chain and subtracts each transform's log-determinant;
``rsample`` draws from the base and applies the chain, so it is reparameterised when the
base is. ``cdf`` / ``icdf`` go through monotone scalar transforms (flipped for a
decreasing one), as in PyTorch.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .. import _core
from . import constraints
from ._utils import size_tuple
from .continuous import _validate_flag
from .distribution import Distribution
from .transforms import ComposeTransform, Transform, _sum_rightmost

Tensor = _core.Tensor

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``Y = t_n(...t_1(X))`` for ``X ~ base_distribution`` and ``transforms = [t_1, ...,
    t_n]`` (a single transform is accepted too)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        transforms: Any,
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        if not isinstance(base_distribution, Distribution):
            raise TypeError(
                "TransformedDistribution: base_distribution must be a Distribution, got "
                f"{type(base_distribution).__name__}"
            )
        if isinstance(transforms, Transform):
            transforms = [transforms]
        if not isinstance(transforms, (list, tuple)) or not all(
            isinstance(t, Transform) for t in transforms
        ):
            raise TypeError(
                "TransformedDistribution: transforms must be a Transform or a list of them"
            )
        self.transforms: list[Transform] = list(transforms)
        self.base_dist = base_distribution
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(
                f"TransformedDistribution: the transforms need at least {chain.domain.event_dim} "
                f"dims, but the base distribution's shape is {list(base_shape)}"
            )
        shape = chain.forward_shape(base_shape)
        event_dim = max(
            chain.codomain.event_dim,
            len(base_distribution.event_shape) + chain.codomain.event_dim - chain.domain.event_dim,
        )
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], _validate_flag(validate_args))

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    @property
    def support(self) -> Any:
        """The last transform's codomain (the base's support when there are none)."""
        if not self.transforms:
            return self.base_dist.support
        cod = self.transforms[-1].codomain
        extra = len(self.event_shape) - cod.event_dim
        return constraints.independent(cod, extra) if extra > 0 else cod

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        """The same transforms over the base distribution expanded to ``batch_shape``."""
        new_batch = size_tuple(batch_shape, "batch_shape")
        shape = new_batch + tuple(self.event_shape)
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch = shape[: len(shape) - len(self.base_dist.event_shape)]
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.base_dist = self.base_dist.expand(base_batch)
        Distribution.__init__(new, new_batch, self.event_shape, self._validate)
        return new

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        n = len(shape) - len(self.batch_shape) - len(self.event_shape)
        base_full = (
            tuple(shape[:n]) + tuple(self.base_dist.batch_shape) + tuple(self.base_dist.event_shape)
        )
        x = self.base_dist._draw(base_full, generator)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            dtype = _param_dtype(self.base_dist)
            value = _core.tensor(value, dtype=dtype)
        self._validate_sample(value)
        event_dim = len(self.event_shape)
        lp: Any = 0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            lp = lp - _sum_rightmost(t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim)
            y = x
        base_lp = self.base_dist.log_prob(y)
        return lp + _sum_rightmost(base_lp, event_dim - len(self.base_dist.event_shape))

    def _monotone_sign(self) -> Any:
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        return sign

    def cdf(self, value: Any) -> Tensor:
        """The CDF through monotone scalar transforms (``1 - cdf`` for decreasing ones)."""
        y = value
        for t in reversed(self.transforms):
            y = t.inv(y)
        out = self.base_dist.cdf(y)
        sign = self._monotone_sign()
        if isinstance(sign, Tensor):
            return _core.where(sign > 0, out, 1 - out)
        return out if sign > 0 else 1 - out

    def icdf(self, value: Any) -> Tensor:
        """The inverse CDF through monotone scalar transforms."""
        sign = self._monotone_sign()
        if isinstance(sign, Tensor):
            value = _core.where(sign > 0, value, 1 - value)
        elif sign < 0:
            value = 1 - value
        x = self.base_dist.icdf(value)
        for t in self.transforms:
            x = t(x)
        return x

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist!r}, {self.transforms!r})"


def _param_dtype(d: Distribution) -> Any:
    for v in d.__dict__.values():
        if isinstance(v, Tensor) and v.dtype.is_floating_point:
            return v.dtype
    return _core._get_default_dtype()
