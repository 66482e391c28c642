"""``Variable`` methods for the reductions (sum, mean, max, var, logsumexp, ...).

The block below is generated from the reduction table (``src/op_defs/reduce.rs``) by
``scripts/gen_op_bindings.py`` and checked for freshness in the tests: edit the table,
not this file. Each method records one op with the eager method's signature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .variable import Variable


class VariableReductionsMixin:
    """The reduction methods mixed into ``Variable``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _op(self, op: str, inputs: Sequence[Any], **attrs: Any) -> Variable: ...

    # BEGIN generated: reduction Variable methods (scripts/gen_op_bindings.py from src/op_defs/reduce.rs)
    def sum(
        self,
        axis: Any = None,
        keepdim: Any = None,
        dtype: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Sum over ``axis``/``dim`` (all by default); torch's ``sum(dim, keepdim, dtype)`` or Paddle's ``sum(axis, dtype, keepdim)`` positionally."""
        return self._op(
            "sum",
            [self],
            axis=axis,
            keepdim=keepdim,
            dtype=dtype,
            dim=dim,
            keepdims=keepdims,
        )

    def mean(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
        dtype: Any = None,
    ) -> Variable:
        """Mean over ``axis``/``dim`` (all by default; integers give the default float)."""
        return self._op(
            "mean",
            [self],
            axis=axis,
            keepdim=keepdim,
            dim=dim,
            keepdims=keepdims,
            dtype=dtype,
        )

    def prod(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
        dtype: Any = None,
    ) -> Variable:
        """Product over ``axis``/``dim`` (all by default)."""
        return self._op(
            "prod",
            [self],
            axis=axis,
            keepdim=keepdim,
            dim=dim,
            keepdims=keepdims,
            dtype=dtype,
        )

    def max(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Maximum over ``axis``/``dim``: the values (Paddle); PyTorch's ``(values, indices)`` for one ``dim=``, or one dimension in code that imports ferrograd as ``torch`` (python/ferrograd/_shared_spellings.py)."""
        return self._op("max", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def min(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Minimum over ``axis``/``dim``: the values (Paddle); PyTorch's ``(values, indices)`` for one ``dim=``, or one dimension in code that imports ferrograd as ``torch`` (python/ferrograd/_shared_spellings.py)."""
        return self._op("min", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def amax(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Maximum over ``axis``/``dim`` (same as ``max``; ties share the gradient)."""
        return self._op("amax", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def amin(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Minimum over ``axis``/``dim`` (same as ``min``; ties share the gradient)."""
        return self._op("amin", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def argmax(
        self,
        axis: Any = None,
        keepdim: Any = None,
        dtype: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Index of the maximum along ``axis`` (flattened when None), int64."""
        return self._op(
            "argmax",
            [self],
            axis=axis,
            keepdim=keepdim,
            dtype=dtype,
            dim=dim,
            keepdims=keepdims,
        )

    def argmin(
        self,
        axis: Any = None,
        keepdim: Any = None,
        dtype: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Index of the minimum along ``axis`` (flattened when None), int64."""
        return self._op(
            "argmin",
            [self],
            axis=axis,
            keepdim=keepdim,
            dtype=dtype,
            dim=dim,
            keepdims=keepdims,
        )

    def var(
        self,
        axis: Any = None,
        unbiased: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
        correction: Any = None,
    ) -> Variable:
        """Variance over ``axis``/``dim`` (``unbiased=True`` divides by N-1; ``correction`` overrides)."""
        return self._op(
            "var",
            [self],
            axis=axis,
            unbiased=unbiased,
            keepdim=keepdim,
            dim=dim,
            keepdims=keepdims,
            correction=correction,
        )

    def std(
        self,
        axis: Any = None,
        unbiased: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
        correction: Any = None,
    ) -> Variable:
        """Standard deviation over ``axis``/``dim`` (same arguments as ``var``)."""
        return self._op(
            "std",
            [self],
            axis=axis,
            unbiased=unbiased,
            keepdim=keepdim,
            dim=dim,
            keepdims=keepdims,
            correction=correction,
        )

    def logsumexp(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """``log(sum(exp(x)))`` over ``axis``/``dim``, stable."""
        return self._op("logsumexp", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def all(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """True where all elements along ``axis`` are non-zero."""
        return self._op("all", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def any(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """True where any element along ``axis`` is non-zero."""
        return self._op("any", [self], axis=axis, keepdim=keepdim, dim=dim, keepdims=keepdims)

    def count_nonzero(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Number of non-zero elements (int64) over ``axis``/``dim`` (all by default)."""
        return self._op(
            "count_nonzero",
            [self],
            axis=axis,
            keepdim=keepdim,
            dim=dim,
            keepdims=keepdims,
        )

    def nansum(
        self,
        axis: Any = None,
        keepdim: Any = None,
        dtype: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
    ) -> Variable:
        """Sum over ``axis``/``dim`` treating NaN as zero (NaN positions get no gradient)."""
        return self._op(
            "nansum",
            [self],
            axis=axis,
            keepdim=keepdim,
            dtype=dtype,
            dim=dim,
            keepdims=keepdims,
        )

    def nanmean(
        self,
        axis: Any = None,
        keepdim: Any = None,
        name: Any = None,
        *,
        dim: Any = None,
        keepdims: Any = None,
        dtype: Any = None,
    ) -> Variable:
        """Mean over ``axis``/``dim`` of the non-NaN elements (NaN where all are NaN)."""
        return self._op(
            "nanmean",
            [self],
            axis=axis,
            keepdim=keepdim,
            dim=dim,
            keepdims=keepdims,
            dtype=dtype,
        )

    # END generated: reduction Variable methods
