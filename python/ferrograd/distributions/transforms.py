"""Bijective transforms of random variables (``torch.distributions.transforms``; Paddle's
``paddle.distribution.transform``).

A :class:`Transform` maps ``x`` to ``y = t(x)`` with differentiable ferrograd ops, inverts
it (``t.inv(y)``, Paddle's ``t.inverse(y)``) and gives ``log |dy/dx|``
(``log_abs_det_jacobian(x, y)``; Paddle's ``forward_log_det_jacobian(x)`` /
``inverse_log_det_jacobian(y)``), summed over the transform's event dims. Each one states
its ``domain`` and ``codomain`` constraints; ``TransformedDistribution`` chains them.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .. import _core
from . import constraints
from ._utils import as_float_tensor, eps_of

Tensor = _core.Tensor

__all__ = [
    "Transform",
    "ComposeTransform",
    "ChainTransform",
    "IndependentTransform",
    "ExpTransform",
    "AbsTransform",
    "AffineTransform",
    "SigmoidTransform",
    "TanhTransform",
    "PowerTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
    "SoftplusTransform",
    "ReshapeTransform",
    "CatTransform",
    "StackTransform",
    "CumulativeDistributionTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "CorrCholeskyTransform",
    "identity_transform",
]


def _sum_rightmost(x: Tensor, n: int) -> Tensor:
    for _ in range(n):
        x = x.sum(-1)
    return x


def _as_tensor(value: Any, like: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return as_float_tensor(value, like.dtype if like.dtype.is_floating_point else _core.float32)


class Transform:
    """A transform ``y = t(x)``: call it (or Paddle's ``forward``) on ``x``, invert it with
    ``inv`` / ``inverse``, and take ``log_abs_det_jacobian(x, y)``."""

    #: whether the transform is one-to-one
    bijective = False
    #: +1 or -1 for monotone scalar transforms
    sign: Any = 1
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError(f"cache_size must be 0 or 1, got {cache_size!r}")
        self._cache_size = cache_size

    @property
    def event_dim(self) -> int:
        """The number of trailing dims one event spans (the domain's and codomain's)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("event_dim is ambiguous: the domain and codomain differ")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``inv(y)`` maps back to ``x``)."""
        return _InverseTransform(self)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform (ferrograd recomputes instead of caching; results are equal)."""
        return self

    def __call__(self, x: Any) -> Tensor:
        return self._call(x)

    def forward(self, x: Any) -> Tensor:
        """``t(x)`` (Paddle's spelling)."""
        return self._call(x)

    def inverse(self, y: Any) -> Tensor:
        """``t^-1(y)`` (Paddle's spelling)."""
        return self._inverse(y)

    def forward_log_det_jacobian(self, x: Any) -> Tensor:
        """``log |dy/dx|`` at ``x`` (Paddle)."""
        return self.log_abs_det_jacobian(x, self._call(x))

    def inverse_log_det_jacobian(self, y: Any) -> Tensor:
        """``log |dx/dy|`` at ``y`` (Paddle)."""
        return -self.log_abs_det_jacobian(self._inverse(y), y)

    def _call(self, x: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement the forward map")

    def _inverse(self, y: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} is not invertible")

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        """``log |dy/dx|``, reduced over the transform's event dims."""
        raise NotImplementedError(f"{type(self).__name__} has no log_abs_det_jacobian")

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        """The shape of ``t(x)`` for ``x`` of ``shape``."""
        return tuple(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        """The shape of ``t^-1(y)`` for ``y`` of ``shape``."""
        return tuple(shape)

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform (what ``t.inv`` returns)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__()
        self._inv = transform
        self.bijective = transform.bijective
        self.sign = transform.sign

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.codomain

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return self._inv.domain

    @property
    def inv(self) -> Transform:
        return self._inv

    def _call(self, x: Any) -> Tensor:
        return self._inv._inverse(x)

    def _inverse(self, y: Any) -> Tensor:
        return self._inv._call(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return self._inv.forward_shape(shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = Transform.__hash__

    def __repr__(self) -> str:
        return f"{self._inv!r}.inv"


class ComposeTransform(Transform):
    """``parts[-1](...parts[1](parts[0](x)))``; Paddle's ``ChainTransform(transforms)``."""

    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None:
        super().__init__(cache_size)
        parts = list(parts)
        for p in parts:
            if not isinstance(p, Transform):
                raise TypeError(f"ComposeTransform: expected Transforms, got {type(p).__name__}")
        self.parts = parts
        self.bijective = all(p.bijective for p in parts)

    @property
    def transforms(self) -> list[Transform]:
        """Paddle's name of ``parts``."""
        return self.parts

    @property
    def sign(self) -> Any:  # type: ignore[override]
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        dom = self.parts[0].domain
        need = self.parts[-1].codomain.event_dim
        for p in reversed(self.parts):
            need += p.domain.event_dim - p.codomain.event_dim
            need = max(need, p.domain.event_dim)
        if need > dom.event_dim:
            dom = constraints.independent(dom, need - dom.event_dim)
        return dom

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        if not self.parts:
            return constraints.real
        cod = self.parts[-1].codomain
        need = self.parts[0].domain.event_dim
        for p in self.parts:
            need += p.codomain.event_dim - p.domain.event_dim
            need = max(need, p.codomain.event_dim)
        if need > cod.event_dim:
            cod = constraints.independent(cod, need - cod.event_dim)
        return cod

    @property
    def inv(self) -> Transform:
        return ComposeTransform([p.inv for p in reversed(self.parts)])

    def _call(self, x: Any) -> Tensor:
        for p in self.parts:
            x = p(x)
        return x

    def _inverse(self, y: Any) -> Tensor:
        for p in reversed(self.parts):
            y = p._inverse(y)
        return y

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        if not self.parts:
            return x * 0
        event_dim = self.domain.event_dim
        total: Any = 0
        for p in self.parts:
            y_p = p(x)
            term = p.log_abs_det_jacobian(x, y_p)
            total = total + _sum_rightmost(term, event_dim - p.domain.event_dim)
            event_dim += p.codomain.event_dim - p.domain.event_dim
            x = y_p
        return total

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        for p in self.parts:
            shape = p.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        for p in reversed(self.parts):
            shape = p.inverse_shape(shape)
        return tuple(shape)

    def __repr__(self) -> str:
        return "ComposeTransform(" + ", ".join(repr(p) for p in self.parts) + ")"


class ChainTransform(ComposeTransform):
    """Paddle's ``ChainTransform(transforms)``: the same as :class:`ComposeTransform`."""


#: the identity map
identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more trailing dims treated as
    one event (its log-determinant is summed over them)."""

    def __init__(
        self,
        base_transform: Transform,
        reinterpreted_batch_ndims: Any = None,
        cache_size: int = 0,
        *,
        reinterpreted_batch_rank: Any = None,
    ) -> None:
        super().__init__(cache_size)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = reinterpreted_batch_rank  # Paddle's keyword
        if reinterpreted_batch_ndims is None:
            raise TypeError("IndependentTransform expects reinterpreted_batch_ndims")
        if not isinstance(base_transform, Transform):
            raise TypeError(
                f"IndependentTransform: expected a Transform, got {type(base_transform).__name__}"
            )
        n = int(reinterpreted_batch_ndims)
        if n < 0:
            raise ValueError(f"reinterpreted_batch_ndims must be >= 0, got {n}")
        self.base_transform = base_transform
        self.reinterpreted_batch_ndims = n
        self.bijective = base_transform.bijective
        self.sign = base_transform.sign

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    def _call(self, x: Any) -> Tensor:
        return self.base_transform(x)

    def _inverse(self, y: Any) -> Tensor:
        return self.base_transform._inverse(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        return _sum_rightmost(
            self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims
        )

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return self.base_transform.inverse_shape(shape)


class ExpTransform(Transform):
    """``y = exp(x)``."""

    bijective = True
    codomain = constraints.positive

    def _call(self, x: Any) -> Tensor:
        return x.exp()

    def _inverse(self, y: Any) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        return x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = Transform.__hash__


class AbsTransform(Transform):
    """``y = |x|`` (not injective: the inverse picks the non-negative root)."""

    codomain = constraints.positive

    def _call(self, x: Any) -> Tensor:
        return x.abs()

    def _inverse(self, y: Any) -> Tensor:
        return y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = Transform.__hash__


class AffineTransform(Transform):
    """``y = loc + scale * x`` (``event_dim`` trailing dims form one event)."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = int(event_dim)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self._event_dim

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return (
            constraints.independent(constraints.real, self._event_dim)
            if self._event_dim
            else constraints.real
        )

    codomain = domain  # type: ignore[assignment]

    @property
    def sign(self) -> Any:  # type: ignore[override]
        if isinstance(self.scale, Tensor):
            return self.scale.sign()
        return 1 if self.scale > 0 else (-1 if self.scale < 0 else 0)

    def _call(self, x: Any) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        scale = _as_tensor(self.scale, x)
        out = scale.abs().log()
        shape = _broadcast(tuple(x.shape), out)
        if tuple(out.shape) != shape:
            out = out.broadcast_to(list(shape))
        return _sum_rightmost(out, self._event_dim)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return _broadcast(shape, self.loc, self.scale)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return _broadcast(shape, self.loc, self.scale)

    def __repr__(self) -> str:
        return "AffineTransform()"


def _broadcast(shape: Any, *params: Any) -> tuple[int, ...]:
    import numpy as np

    shapes = [tuple(shape)] + [tuple(p.shape) for p in params if isinstance(p, Tensor)]
    return tuple(np.broadcast_shapes(*shapes))


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``."""

    bijective = True
    codomain = constraints.unit_interval

    def _call(self, x: Any) -> Tensor:
        eps = eps_of(x.dtype)
        return x.sigmoid().clamp(min=eps * 0.5**60, max=1.0 - eps)

    def _inverse(self, y: Any) -> Tensor:
        eps = eps_of(y.dtype)
        y = y.clamp(min=eps * 0.5**60, max=1.0 - eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        # log(sigmoid(x) (1 - sigmoid(x))) = -softplus(-x) - softplus(x)
        return -(-x).softplus() - x.softplus()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = Transform.__hash__


class TanhTransform(Transform):
    """``y = tanh(x)``."""

    bijective = True
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x: Any) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Any) -> Tensor:
        return 0.5 * (y.log1p() - (-y).log1p())

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - (-2.0 * x).softplus())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = Transform.__hash__


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive numbers (Paddle: ``PowerTransform(power)``)."""

    bijective = True
    domain = constraints.positive
    codomain = constraints.positive

    def __init__(self, exponent: Any = None, cache_size: int = 0, *, power: Any = None) -> None:
        super().__init__(cache_size)
        if exponent is None:
            exponent = power
        if exponent is None:
            raise TypeError("PowerTransform expects an exponent")
        self.exponent = exponent

    @property
    def power(self) -> Any:
        """Paddle's name of ``exponent``."""
        return self.exponent

    @property
    def sign(self) -> Any:  # type: ignore[override]
        if isinstance(self.exponent, Tensor):
            return self.exponent.sign()
        return 1 if self.exponent > 0 else -1

    def _call(self, x: Any) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Any) -> Tensor:
        e = self.exponent
        return y.pow(e.reciprocal() if isinstance(e, Tensor) else 1.0 / e)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        e = _as_tensor(self.exponent, x)
        return (e * y / x).abs().log()

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        return _broadcast(shape, self.exponent)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        return _broadcast(shape, self.exponent)


# the rest live in transforms_*.py (imported last: they subclass Transform)
from .transforms_blocks import CatTransform as CatTransform  # noqa: E402
from .transforms_blocks import CumulativeDistributionTransform as CumulativeDistributionTransform  # noqa: E402,E501
from .transforms_blocks import StackTransform as StackTransform  # noqa: E402
from .transforms_matrix import CorrCholeskyTransform as CorrCholeskyTransform  # noqa: E402
from .transforms_matrix import LowerCholeskyTransform as LowerCholeskyTransform  # noqa: E402
from .transforms_matrix import PositiveDefiniteTransform as PositiveDefiniteTransform  # noqa: E402
from .transforms_more import ReshapeTransform as ReshapeTransform  # noqa: E402
from .transforms_more import SoftplusTransform as SoftplusTransform  # noqa: E402
from .transforms_simplex import SoftmaxTransform as SoftmaxTransform  # noqa: E402
from .transforms_simplex import StickBreakingTransform as StickBreakingTransform  # noqa: E402
