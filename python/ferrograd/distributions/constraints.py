"""Parameter and support constraints (``torch.distributions.constraints``).

A constraint's :meth:`Constraint.check` answers, element by element, whether a value lies
in the set it stands for; distributions use them to validate parameters (``validate_args``)
and the values given to ``log_prob``. Each check is built from plain comparisons, so it
never touches the autograd graph.
"""

from __future__ import annotations

from typing import Any

from .. import _core

Tensor = _core.Tensor

__all__ = [
    "Constraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """A set of values; ``check(value)`` is a bool tensor, True where ``value`` is in it
    (reduced over the constraint's ``event_dim`` trailing dims)."""

    #: whether the set holds integers only
    is_discrete = False
    #: how many trailing dims make one element of the set (1 for vectors, 2 for matrices)
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """True where ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """The support depends on other parameters (not checked)."""

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("a dependent constraint cannot be checked on its own")


class _Real(Constraint):
    """Every real number except NaN."""

    def check(self, value: Tensor) -> Tensor:
        return value == value  # NaN is the only value unequal to itself


class _Boolean(Constraint):
    """0 or 1."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    """Numbers strictly above ``lower_bound``."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return value > self.lower_bound

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """Numbers at or above ``lower_bound``."""

    def check(self, value: Tensor) -> Tensor:
        return value >= self.lower_bound

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    """Numbers in the closed interval ``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__.lstrip('_')}({self.lower_bound}, {self.upper_bound})"


class _HalfOpenInterval(_Interval):
    """Numbers in ``[lower_bound, upper_bound)``."""

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _IntegerInterval(_Interval):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value.floor() == value) & super().check(value)


class _IntegerGreaterThanEq(_GreaterThanEq):
    """Integers at or above ``lower_bound``."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value.floor() == value) & (value >= self.lower_bound)


class _Independent(Constraint):
    """``base`` with ``reinterpreted_batch_ndims`` more trailing dims reduced by ``all``."""

    def __init__(self, base: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base.is_discrete
        self.event_dim = base.event_dim + reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        ok = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return ok


class _Simplex(Constraint):
    """Vectors of non-negative numbers summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = (value.tril() == value).all(-1).all(-1)
        diag = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return lower & diag


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: lower triangular, positive
    diagonal, rows of unit Euclidean norm (up to ``10 * n * eps``)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        import numpy as np

        n = int(value.shape[-1]) if value.ndim else 1
        tol = (
            10.0
            * n
            * float(np.finfo(np.float32 if value.dtype == _core.float32 else np.float64).eps)
        )
        unit = ((value.square().sum(-1).sqrt() - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit


class _PositiveDefinite(Constraint):
    """Symmetric matrices whose eigenvalues are all positive."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        from .. import linalg

        v = value.detach()
        sym = ((v - v.mT).abs() <= 1e-6 * (1 + v.abs())).all(-1).all(-1)
        # eigvalsh reads one triangle; asymmetric matrices are already refused by ``sym``
        return sym & (linalg.eigvalsh(v) > 0).all(-1)


class _RealVector(_Independent):
    """Vectors of reals (no NaN)."""

    def __init__(self) -> None:
        super().__init__(_Real(), 1)


dependent = _Dependent()
real = _Real()
real_vector = _RealVector()
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
nonnegative_integer = _IntegerGreaterThanEq(0)
simplex = _Simplex()
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
positive_definite = _PositiveDefinite()
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
independent = _Independent

# the rest live in constraints_more.py (imported last: they subclass Constraint)
from .constraints_more import cat as cat  # noqa: E402
from .constraints_more import dependent_property as dependent_property  # noqa: E402
from .constraints_more import is_dependent as is_dependent  # noqa: E402
from .constraints_more import less_than as less_than  # noqa: E402
from .constraints_more import lower_triangular as lower_triangular  # noqa: E402
from .constraints_more import multinomial as multinomial  # noqa: E402
from .constraints_more import positive_integer as positive_integer  # noqa: E402
from .constraints_more import positive_semidefinite as positive_semidefinite  # noqa: E402
from .constraints_more import square as square  # noqa: E402
from .constraints_more import stack as stack  # noqa: E402
from .constraints_more import symmetric as symmetric  # noqa: E402
