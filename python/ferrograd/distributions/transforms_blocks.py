"""Transform functors and the CDF transform (re-exported by
:mod:`ferrograd.distributions.transforms`): ``CatTransform`` and ``StackTransform`` apply
one transform per block / slice of a dim (PyTorch's; Paddle has
``StackTransform(transforms, axis)``), and ``CumulativeDistributionTransform`` maps through
a distribution's ``cdf`` (PyTorch's probability-integral transform, e.g. for copulas).

Semantics follow ``torch/distributions/transforms.py``: the blocks are joined with
``cat`` / ``stack``, and ``log_abs_det_jacobian`` is concatenated / stacked the same way
(or summed, for a ``CatTransform`` whose ``dim`` falls inside the event dims).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from .. import _core
from . import constraints
from .transforms import Transform, _sum_rightmost

Tensor = _core.Tensor

__all__ = ["CatTransform", "StackTransform", "CumulativeDistributionTransform"]


def _check_transforms(tseq: Sequence[Any], who: str) -> list[Transform]:
    tseq = list(tseq)
    if not tseq or not all(isinstance(t, Transform) for t in tseq):
        raise TypeError(f"{who} expects a non-empty sequence of Transform objects, got {tseq!r}")
    return tseq


def _check_dim(x: Tensor, dim: int, size: int, who: str) -> None:
    if not -x.ndim <= dim < x.ndim:
        raise ValueError(f"{who}: dim {dim} is out of range for a {x.ndim}-dim input")
    if int(x.shape[dim]) != size:
        raise ValueError(
            f"{who}: expected size {size} along dim {dim} (the transforms' total length), "
            f"got {int(x.shape[dim])}"
        )


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the ``i``-th block of ``lengths[i]`` entries along ``dim``
    and joins the results with ``cat`` (``lengths`` defaults to all ones)."""

    def __init__(
        self,
        tseq: Sequence[Transform],
        dim: int = 0,
        lengths: Optional[Sequence[int]] = None,
        cache_size: int = 0,
    ) -> None:
        super().__init__(cache_size)
        self.transforms = _check_transforms(tseq, "CatTransform")
        self.lengths = [1] * len(self.transforms) if lengths is None else [int(n) for n in lengths]
        if len(self.lengths) != len(self.transforms):
            raise ValueError(
                f"CatTransform: {len(self.transforms)} transforms but {len(self.lengths)} lengths"
            )
        self.dim = int(dim)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The total size along ``dim`` (the sum of ``lengths``)."""
        return sum(self.lengths)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _map(self, z: Any, inverse: bool) -> Tensor:
        _check_dim(z, self.dim, self.length, "CatTransform")
        out, start = [], 0
        for t, n in zip(self.transforms, self.lengths):
            block = z.narrow(self.dim, start, n)
            out.append(t.inv(block) if inverse else t(block))
            start += n
        return _core.concat(out, self.dim)

    def _call(self, x: Any) -> Tensor:
        return self._map(x, inverse=False)

    def _inverse(self, y: Any) -> Tensor:
        return self._map(y, inverse=True)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        _check_dim(x, self.dim, self.length, "CatTransform")
        _check_dim(y, self.dim, self.length, "CatTransform")
        terms, start = [], 0
        for t, n in zip(self.transforms, self.lengths):
            term = t.log_abs_det_jacobian(
                x.narrow(self.dim, start, n), y.narrow(self.dim, start, n)
            )
            terms.append(_sum_rightmost(term, self.event_dim - t.event_dim))
            start += n
        # a dim left of the event dims survives in the result (concatenate along it); one
        # inside them was reduced away (add the blocks' terms)
        dim = (self.dim - x.ndim if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return _core.concat(terms, dim)
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, CatTransform)
            and self.transforms == other.transforms
            and self.lengths == other.lengths
            and self.dim == other.dim
        )

    __hash__ = Transform.__hash__


class StackTransform(Transform):
    """Applies ``tseq[i]`` to ``x.select(dim, i)`` and joins the results with ``stack``.
    Paddle: ``StackTransform(transforms, axis=0)``."""

    def __init__(
        self,
        tseq: Optional[Sequence[Transform]] = None,
        dim: int = 0,
        cache_size: int = 0,
        *,
        transforms: Optional[Sequence[Transform]] = None,
        axis: Optional[int] = None,
    ) -> None:
        super().__init__(cache_size)
        if tseq is None:
            tseq = transforms
        elif transforms is not None:
            raise TypeError("StackTransform: pass the transforms once (tseq or transforms=)")
        if tseq is None:
            raise TypeError("StackTransform: missing the sequence of transforms")
        self.transforms = _check_transforms(tseq, "StackTransform")
        self.dim = int(dim if axis is None else axis)

    @property
    def axis(self) -> int:
        """Paddle's name for ``dim``."""
        return self.dim

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def _slices(self, z: Any) -> list[Tensor]:
        _check_dim(z, self.dim, len(self.transforms), "StackTransform")
        return [z.select(self.dim, i) for i in range(len(self.transforms))]

    def _call(self, x: Any) -> Tensor:
        return _core.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y: Any) -> Tensor:
        return _core.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        terms = [
            t.log_abs_det_jacobian(xs, ys)
            for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y))
        ]
        return _core.stack(terms, self.dim)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, StackTransform)
            and self.transforms == other.transforms
            and self.dim == other.dim
        )

    __hash__ = Transform.__hash__


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``, onto the unit interval; the inverse is
    ``distribution.icdf`` and ``log |dy/dx|`` is ``distribution.log_prob(x)``."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size)
        from .distribution import Distribution

        if not isinstance(distribution, Distribution):
            raise TypeError(
                "CumulativeDistributionTransform expects a Distribution, got "
                f"{type(distribution).__name__}"
            )
        self.distribution = distribution

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Any) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        return self.distribution.log_prob(x)

    def __repr__(self) -> str:
        return f"CumulativeDistributionTransform({self.distribution!r})"
