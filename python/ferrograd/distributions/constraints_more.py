"""More constraints (re-exported by :mod:`ferrograd.distributions.constraints`):
``less_than``, ``positive_integer``, ``multinomial``, the matrix sets ``lower_triangular`` /
``square`` / ``symmetric`` / ``positive_semidefinite``, the ``cat`` / ``stack`` functors
that apply one constraint per slice, and ``dependent_property`` / ``is_dependent``.

Semantics follow PyTorch's ``torch/distributions/constraints.py`` (the classes of the same
names); every check is built from comparisons, so it never enters the autograd graph.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from .. import _core
from .constraints import Constraint, _Dependent, _IntegerGreaterThanEq

Tensor = _core.Tensor

__all__ = [
    "cat",
    "dependent_property",
    "is_dependent",
    "less_than",
    "lower_triangular",
    "multinomial",
    "positive_integer",
    "positive_semidefinite",
    "square",
    "stack",
    "symmetric",
]


class _LessThan(Constraint):
    """Numbers strictly below ``upper_bound``."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _Multinomial(Constraint):
    """Non-negative count vectors whose sum is at most ``upper_bound`` (PyTorch checks
    the sum with ``<=``, not ``==``)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


def _matrix_event(value: Tensor, what: str) -> None:
    if value.ndim < 2:
        raise ValueError(
            f"{what} expects a value with at least 2 dims, got shape {list(value.shape)}"
        )


class _LowerTriangular(Constraint):
    """Square matrices with zeros above the diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        _matrix_event(value, "lower_triangular")
        return (value.tril() == value).all(-1).all(-1)


class _Square(Constraint):
    """Matrices with as many rows as columns."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        _matrix_event(value, "square")
        ok = int(value.shape[-2]) == int(value.shape[-1])
        return _core.full(list(value.shape[:-2]), ok, dtype=_core.bool)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (``isclose`` with ``atol=1e-6``)."""

    def check(self, value: Tensor) -> Tensor:
        square = super().check(value)
        if not bool(square.all()):
            return square
        v = value.detach()
        close = (v - v.mT).abs() <= 1e-6 + 1e-5 * v.mT.abs()  # torch.isclose's defaults
        return close.all(-1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with no negative eigenvalue."""

    def check(self, value: Tensor) -> Tensor:
        from .. import linalg

        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return (linalg.eigvalsh(value.detach()) >= 0).all(-1)


class _Cat(Constraint):
    """Applies ``cseq[i]`` to the ``i``-th block of ``lengths[i]`` entries along ``dim``
    (the blocks ``torch.cat`` would join)."""

    def __init__(
        self, cseq: Sequence[Constraint], dim: int = 0, lengths: Optional[Sequence[int]] = None
    ) -> None:
        self.cseq = list(cseq)
        if not all(isinstance(c, Constraint) for c in self.cseq):
            raise TypeError("constraints.cat expects a sequence of Constraint objects")
        self.lengths = [1] * len(self.cseq) if lengths is None else [int(n) for n in lengths]
        if len(self.lengths) != len(self.cseq):
            raise ValueError(
                f"constraints.cat: {len(self.cseq)} constraints but {len(self.lengths)} lengths"
            )
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        if not -value.ndim <= self.dim < value.ndim:
            raise ValueError(
                f"constraints.cat: dim {self.dim} is out of range for {value.ndim} dims"
            )
        checks, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            checks.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return _core.concat(checks, self.dim)


class _Stack(Constraint):
    """Applies ``cseq[i]`` to ``value.select(dim, i)`` (the slices ``torch.stack``
    would join)."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0) -> None:
        self.cseq = list(cseq)
        if not all(isinstance(c, Constraint) for c in self.cseq):
            raise TypeError("constraints.stack expects a sequence of Constraint objects")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Tensor) -> Tensor:
        if not -value.ndim <= self.dim < value.ndim:
            raise ValueError(
                f"constraints.stack: dim {self.dim} is out of range for {value.ndim} dims"
            )
        n = int(value.shape[self.dim])
        if n != len(self.cseq):
            raise ValueError(
                f"constraints.stack: {len(self.cseq)} constraints for {n} slices along dim {self.dim}"
            )
        return _core.stack(
            [c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim
        )


class _DependentProperty(property, _Dependent):
    """``@constraints.dependent_property``: a property on instances, a dependent constraint
    (with optional static ``is_discrete`` / ``event_dim``) when read from the class."""

    def __init__(
        self,
        fn: Optional[Callable[..., Any]] = None,
        *,
        is_discrete: Any = NotImplemented,
        event_dim: Any = NotImplemented,
    ) -> None:
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn: Callable[..., Any]) -> _DependentProperty:
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)


def is_dependent(constraint: Any) -> bool:
    """True when ``constraint`` is a dependent constraint (``dependent`` or a
    ``dependent_property``): its set depends on other parameters and cannot be checked."""
    return isinstance(constraint, _Dependent)


dependent_property = _DependentProperty
less_than = _LessThan
multinomial = _Multinomial
positive_integer = _IntegerGreaterThanEq(1)
lower_triangular = _LowerTriangular()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
cat = _Cat
stack = _Stack
