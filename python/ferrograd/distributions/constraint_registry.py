"""``biject_to`` and ``transform_to`` (``torch.distributions.constraint_registry``): the
transform that maps unconstrained reals into a constraint's set, for optimising a
constrained parameter through an unconstrained one.

``biject_to(c)`` is a bijection (``simplex`` through ``StickBreakingTransform``);
``transform_to(c)`` need only land in the set (``simplex`` through ``SoftmaxTransform``).
Both look the constraint's class up along its MRO, so subclasses reuse a registration;
``register`` adds one.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from . import constraints, constraints_more
from .transforms import (
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    Transform,
    identity_transform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint classes to factories ``f(constraint) -> Transform``."""

    def __init__(self) -> None:
        self._registry: dict[type, Callable[[Any], Transform]] = {}

    def register(
        self, constraint: Any, factory: Optional[Callable[[Any], Transform]] = None
    ) -> Any:
        """Registers ``factory`` for ``constraint`` (a Constraint class or instance; usable
        as a decorator when ``factory`` is omitted)."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        key = constraint if isinstance(constraint, type) else type(constraint)
        if not (isinstance(key, type) and issubclass(key, constraints.Constraint)):
            raise TypeError(f"register expects a Constraint class or instance, got {constraint!r}")
        self._registry[key] = factory
        return factory

    def __call__(self, constraint: Any) -> Transform:
        """The transform registered for ``constraint``'s class (or its nearest base)."""
        if not isinstance(constraint, constraints.Constraint):
            raise TypeError(f"expected a Constraint, got {type(constraint).__name__}")
        if constraint.is_discrete:
            raise NotImplementedError(
                f"{constraint!r} is discrete: no transform from the reals maps onto it"
            )
        for cls in type(constraint).__mro__:
            factory = self._registry.get(cls)
            if factory is not None:
                return factory(constraint)
        raise NotImplementedError(
            f"no transform is registered for {type(constraint).__name__.lstrip('_')}"
        )


#: bijections onto each constraint's set
biject_to = ConstraintRegistry()
#: transforms into each constraint's set (not necessarily one-to-one)
transform_to = ConstraintRegistry()


def _real(c: Any) -> Transform:
    return identity_transform


def _greater_than(c: Any) -> Transform:
    if isinstance(c.lower_bound, (int, float)) and c.lower_bound == 0:
        return ExpTransform()
    return ComposeTransform([ExpTransform(), AffineTransform(c.lower_bound, 1)])


def _less_than(c: Any) -> Transform:
    return ComposeTransform([ExpTransform(), AffineTransform(c.upper_bound, -1)])


def _interval(c: Any) -> Transform:
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and (lo, hi) == (0, 1):
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(lo, hi - lo)])


def _independent(registry: ConstraintRegistry) -> Callable[[Any], Transform]:
    def factory(c: Any) -> Transform:
        """The base constraint's transform, over ``reinterpreted_batch_ndims`` more dims."""
        return IndependentTransform(registry(c.base_constraint), c.reinterpreted_batch_ndims)

    return factory


def _cat(registry: ConstraintRegistry) -> Callable[[Any], Transform]:
    def factory(c: Any) -> Transform:
        """One transform per block of the ``cat`` constraint."""
        return CatTransform([registry(b) for b in c.cseq], c.dim, c.lengths)

    return factory


def _stack(registry: ConstraintRegistry) -> Callable[[Any], Transform]:
    def factory(c: Any) -> Transform:
        """One transform per slice of the ``stack`` constraint."""
        return StackTransform([registry(b) for b in c.cseq], c.dim)

    return factory


for _registry in (biject_to, transform_to):
    _registry.register(constraints._Real, _real)
    _registry.register(constraints._GreaterThan, _greater_than)
    _registry.register(constraints._Interval, _interval)
    _registry.register(constraints._Independent, _independent(_registry))
    _registry.register(constraints_more._LessThan, _less_than)
    _registry.register(constraints._CorrCholesky, lambda c: CorrCholeskyTransform())
    _registry.register(constraints_more._Cat, _cat(_registry))
    _registry.register(constraints_more._Stack, _stack(_registry))
biject_to.register(constraints._Simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints._Simplex, lambda c: SoftmaxTransform())
# PyTorch registers these with transform_to only (the maps are not one-to-one)
transform_to.register(constraints._LowerCholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints._PositiveDefinite, lambda c: PositiveDefiniteTransform())
transform_to.register(constraints_more._PositiveSemidefinite, lambda c: PositiveDefiniteTransform())
