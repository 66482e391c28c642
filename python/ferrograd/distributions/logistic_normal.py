"""``LogisticNormal``: a normal vector pushed onto the simplex by the stick-breaking
transform (PyTorch's ``LogisticNormal(loc, scale)``, a ``TransformedDistribution``)."""

from __future__ import annotations

from typing import Any, ClassVar

from .. import _core
from . import constraints
from ._utils import broadcast_all, size_tuple
from .continuous import Normal, _validate_flag
from .transformed import TransformedDistribution
from .transforms import StickBreakingTransform

Tensor = _core.Tensor

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform()(X)`` for ``X ~ Normal(loc, scale)``: the last dim of
    ``loc`` / ``scale`` (``K - 1`` values) becomes an event on the ``K``-simplex."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.simplex

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        loc_t, scale_t = broadcast_all(loc, scale)
        base = Normal(loc_t, scale_t, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])  # type: ignore[assignment]
        super().__init__(
            base, StickBreakingTransform(), validate_args=_validate_flag(validate_args)
        )

    @property
    def loc(self) -> Tensor:
        """The normal's mean (``[..., K - 1]``)."""
        return self.base_dist.loc  # type: ignore[attr-defined,no-any-return]

    @property
    def scale(self) -> Tensor:
        """The normal's standard deviation (``[..., K - 1]``)."""
        return self.base_dist.scale  # type: ignore[attr-defined,no-any-return]

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogisticNormal:
        """This distribution with its parameters broadcast to ``batch_shape``."""
        shape = list(size_tuple(batch_shape, "batch_shape")) + [int(self.loc.shape[-1])]
        new = LogisticNormal(self.loc.broadcast_to(shape), self.scale.broadcast_to(shape), False)
        new._validate = self._validate
        return new
