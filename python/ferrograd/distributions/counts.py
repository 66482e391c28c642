"""Count distributions whose mass needs ``lgamma``: Binomial and Multinomial.

Samples are integer-valued (no ``rsample``) and drawn from ferrograd's generator, so
``manual_seed`` reproduces them: a Binomial counts ``total_count`` Bernoulli trials (one
uniform per trial, so it costs O(max total_count) per element), a Multinomial draws
``total_count`` categories by inverting the cumulative probabilities and counts them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from . import constraints
from ._utils import as_float_tensor, broadcast_all, logits_to_probs, probs_to_logits
from .continuous import _validate_flag
from .discrete import _CDF_LOOP_MAX, _counts, _float_of, _one_of, numpy_rng
from .distribution import Distribution

Tensor = _core.Tensor

__all__ = ["Binomial", "Multinomial"]


def _count_param(cls: str, total_count: Any) -> None:
    t = total_count if isinstance(total_count, Tensor) else _core.tensor(total_count)
    t = t.detach().astype(_core.float64)
    if not bool(((t >= 0) & (t.floor() == t)).all()):
        raise ValueError(f"{cls}: total_count must be a non-negative integer, got {t.tolist()}")


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials of probability
    ``probs`` (or ``sigmoid(logits)``). PyTorch ``Binomial(total_count=1, probs=None,
    logits=None)``; Paddle ``Binomial(total_count, probs)``."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True
    _params = ("total_count", "probs", "logits")

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        if isinstance(logits, str):  # Paddle's Binomial(total_count, probs, name)
            logits = None
        _one_of("Binomial", probs, logits)
        flag = _validate_flag(validate_args)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.logits = probs_to_logits(self.probs, is_binary=True)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.probs = logits_to_probs(self.logits, is_binary=True)
        self.total_count = self.total_count.detach()
        super().__init__(self.probs.shape, (), flag)
        if self._validate:
            _count_param("Binomial", self.total_count)
        if probs is not None:
            self._check_params(probs=self.probs)
        else:
            self._check_params(logits=self.logits)

    @property
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self.probs.shape

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        n = np.broadcast_to(self.total_count.astype(_core.float64).numpy(), shape)
        p = np.broadcast_to(self.probs.detach().astype(_core.float64).numpy(), shape)
        top = int(n.max()) if n.size else 0
        if top == 0:
            return _core.tensor(np.zeros(shape)).astype(self.probs.dtype)
        if top > _CDF_LOOP_MAX:
            # one uniform per trial would need top * numel draws (a count of 1e9: 8 GB per
            # element): NumPy's exact BTPE sampler, seeded from ferrograd's generator
            if top >= 2**62:
                raise ValueError(f"Binomial: total_count {top} is too large to sample")
            hits = numpy_rng(generator).binomial(n.astype(np.int64), p).astype(np.float64)
            return _core.tensor(hits).astype(self.probs.dtype)
        u = _core._uniform([top, *shape], 0.0, 1.0, _core.float64, generator).numpy()
        trial = np.arange(top).reshape((top,) + (1,) * len(shape))
        hits = ((u < p) & (trial < n)).sum(0).astype(np.float64)
        return _core.tensor(hits).astype(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        k = _counts(self, value, self.logits)
        n = self.total_count
        lchoose = (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        # k * logit(p) - n * log(1 + exp(logit(p))) = k log p + (n - k) log(1 - p), stably
        return lchoose + k * self.logits - n * self.logits.softplus()

    def entropy(self) -> Tensor:
        top = int(self.total_count.max().item()) if self.total_count.numel() else 0
        ks = self.enumerate_support(expand=False, _top=top)
        lp = self.log_prob_unchecked(ks)
        inside = ks <= self.total_count
        terms = _core.where(inside, lp.exp() * lp, lp * 0)
        return -terms.sum(0)

    def log_prob_unchecked(self, k: Tensor) -> Tensor:
        """``log_prob`` without the support check (values above ``total_count`` give
        NaN or garbage: callers mask them)."""
        n = self.total_count
        kk = k.astype(self.logits.dtype)
        safe = _core.where(kk <= n, kk, n * 0)
        lchoose = (n + 1).lgamma() - (safe + 1).lgamma() - (n - safe + 1).lgamma()
        return lchoose + safe * self.logits - n * self.logits.softplus()

    def enumerate_support(self, expand: bool = True, _top: Any = None) -> Tensor:
        top = int(self.total_count.max().item()) if _top is None else _top
        if _top is None and not bool((self.total_count == top).all()):
            raise NotImplementedError(
                "Binomial.enumerate_support needs the same total_count in the whole batch"
            )
        values = _core.arange(top + 1, dtype=self.probs.dtype)
        values = values.reshape([top + 1] + [1] * len(self.batch_shape))
        return values.broadcast_to([top + 1, *self.batch_shape]) if expand else values


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from ``k`` categories with probabilities ``probs``
    (normalised over the last dim) or ``softmax(logits)``; the event shape is ``[k]``.
    PyTorch ``Multinomial(total_count=1, probs=None, logits=None)``; Paddle
    ``Multinomial(total_count, probs)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    _params = ("_probs", "_logits")

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        if isinstance(logits, str):  # Paddle's Multinomial(total_count, probs, name)
            logits = None
        _one_of("Multinomial", probs, logits)
        if isinstance(total_count, Tensor):
            total_count = total_count.item()
        if isinstance(total_count, bool) or int(total_count) != total_count or total_count < 0:
            raise ValueError(
                f"Multinomial: total_count must be a non-negative int, got {total_count!r}"
            )
        self.total_count = int(total_count)
        given = probs if probs is not None else logits
        raw = as_float_tensor(given, _float_of(given))
        if raw.ndim < 1:
            raise ValueError("Multinomial: probs / logits need at least one dim (the categories)")
        super().__init__(raw.shape[:-1], raw.shape[-1:], _validate_flag(validate_args))
        if probs is not None:
            if self._validate and not bool((raw.detach() >= 0).all()):
                raise ValueError(f"Multinomial: probs must be non-negative, got {raw.tolist()}")
            self._probs = raw / raw.sum(-1, keepdim=True)
            self._check_params(probs=self._probs)
            self._logits = probs_to_logits(self._probs)
        else:
            self._check_params(logits=raw)
            self._logits = raw - raw.logsumexp(-1, keepdim=True)
            self._probs = logits_to_probs(self._logits)

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities (last dim: the categories)."""
        return self._probs

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self._logits

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self._probs.shape

    @property
    def support(self) -> Any:
        return constraints.independent(constraints.integer_interval(0, self.total_count), 1)

    @property
    def mean(self) -> Tensor:
        return self._probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self._probs * (1 - self._probs)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        k = int(self._probs.shape[-1])
        outer = shape[:-1]
        n = self.total_count
        if n == 0 or int(np.prod(outer)) == 0:
            return _core.zeros(list(shape), dtype=self._probs.dtype)
        cdf = np.cumsum(self._probs.detach().astype(_core.float64).numpy(), axis=-1)
        cdf = np.broadcast_to(cdf, shape)
        u = _core._uniform([n, *outer], 0.0, 1.0, _core.float64, generator).numpy()
        # the category of each draw: how many cumulative probabilities lie below it
        # (capped at k - 1 in case rounding leaves the last cumulative sum below 1)
        cat = np.minimum((u[..., None] >= cdf[None]).sum(-1), k - 1)
        counts = (cat[..., None] == np.arange(k)).sum(0).astype(np.float64)
        return _core.tensor(counts).astype(self._probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        x = _counts(self, value, self._logits)
        if self._validate and not bool((x.sum(-1) == self.total_count).all()):
            raise ValueError(
                f"Multinomial: the counts of each value must sum to total_count "
                f"({self.total_count}); pass validate_args=False to skip this check"
            )
        # a category of probability 0 that was not drawn contributes 0, not 0 * -inf
        logits = _core.where((x == 0) & self._logits.isinf(), self._logits * 0, self._logits)
        n = float(self.total_count)
        return (
            _core.tensor(n + 1.0, dtype=x.dtype).lgamma()
            - (x + 1).lgamma().sum(-1)
            + (logits * x).sum(-1)
        )

    def entropy(self) -> Tensor:
        # H = n H(categorical) - lgamma(n + 1) + sum_i E[lgamma(X_i + 1)], X_i ~ Bin(n, p_i)
        n = self.total_count
        p = self._probs
        logits = self._logits.clamp(min=float(np.finfo(np.float64).min))
        cat_entropy = -(p * _core.where(p > 0, logits, logits * 0)).sum(-1)
        term1 = cat_entropy * n - float(np.log(np.arange(1, n + 1)).sum())
        if n == 0:
            return term1
        ks = _core.arange(1, n + 1, dtype=p.dtype).reshape([n] + [1] * p.ndim)
        binom = Binomial(n, probs=p, validate_args=False)
        pk = binom.log_prob_unchecked(ks).exp()
        term2 = (pk * (ks + 1).lgamma()).sum(0).sum(-1)
        return term1 + term2
