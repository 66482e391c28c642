"""Discrete distributions: Bernoulli, Categorical, OneHotCategorical, Geometric, Poisson.

Samples are integer-valued and so never reparameterisable (no ``rsample``); ``log_prob``
and ``entropy`` are differentiable in the parameters. Each distribution keeps both
``probs`` and ``logits`` (computed from whichever was given).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from . import constraints
from ._utils import (
    as_float_tensor,
    broadcast_all,
    log_factorial,
    logits_to_probs,
    min_of,
    numel,
    open_uniform,
    probs_to_logits,
)
from .continuous import _validate_flag
from .distribution import Distribution
from .exp_family import ExponentialFamily

# rates (Poisson) and counts (Binomial) above this are drawn by NumPy's O(1) samplers
_CDF_LOOP_MAX = 1e5


def numpy_rng(generator: Any) -> np.random.Generator:
    """A NumPy generator seeded from ``generator`` (or the default one), so
    ``manual_seed`` reproduces what it draws."""
    u = _core._uniform([4], 0.0, 1.0, _core.float64, generator).numpy()
    return np.random.Generator(np.random.PCG64([int(v * 2**52) for v in u]))


Tensor = _core.Tensor

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "Geometric", "Poisson"]


def _one_of(cls: str, probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError(f"{cls}: give exactly one of probs or logits")


def _counts(d: Distribution, value: Any, like: Tensor) -> Tensor:
    """A value of a discrete distribution as a float tensor of the parameters' dtype."""
    if not isinstance(value, Tensor):
        value = _core.tensor(value, dtype=like.dtype)
    d._validate_sample(value)
    return value if value.dtype == like.dtype else value.astype(like.dtype)


class Bernoulli(ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _params = ("probs", "logits")
    #: the probability of a success (1)
    probs: Tensor
    #: its log-odds
    logits: Tensor

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: Any = None, name: Any = None
    ) -> None:
        if isinstance(logits, str):  # Paddle's Bernoulli(probs, name)
            logits = None
        _one_of("Bernoulli", probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self.logits = probs_to_logits(self.probs, is_binary=True)
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = logits_to_probs(self.logits, is_binary=True)
        super().__init__(self.probs.shape, (), _validate_flag(validate_args))
        if probs is not None:
            self._check_params(probs=self.probs)
        else:
            self._check_params(logits=self.logits)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.softplus()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        # no single mode at 1/2: NaN there, as PyTorch's
        p = self.probs
        return _core.where(p == 0.5, float("nan"), (p >= 0.5).astype(p.dtype))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self.probs.shape

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        p = self.probs.detach().broadcast_to(list(shape)).contiguous()
        return _core._bernoulli(p, generator)

    def log_prob(self, value: Any) -> Tensor:
        v = _counts(self, value, self.logits)
        # -binary_cross_entropy_with_logits, stable for large |logits|
        return v * self.logits - self.logits.softplus()

    def cdf(self, value: Any) -> Tensor:
        v = _counts(self, value, self.probs)
        zero = self.probs * 0
        return _core.where(v < 0, zero, _core.where(v < 1, 1 - self.probs, zero + 1))

    def entropy(self) -> Tensor:
        return self.logits.softplus() - self.logits * self.probs

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = _core.tensor([0.0, 1.0], dtype=self.probs.dtype)
        values = values.reshape([2] + [1] * len(self.batch_shape))
        return values.broadcast_to([2, *self.batch_shape]) if expand else values


class Categorical(Distribution):
    """One of ``K`` categories, with probabilities ``probs`` (normalised over the last dim)
    or ``softmax(logits)``. The batch shape is the parameter's shape without its last dim."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True
    _params = ("_probs", "_logits")

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: Any = None, name: Any = None
    ) -> None:
        _one_of("Categorical", probs, logits)
        given = probs if probs is not None else logits
        raw = as_float_tensor(given, _float_of(given))
        if raw.ndim < 1:
            raise ValueError("Categorical: probs / logits need at least one dim (the categories)")
        flag = _validate_flag(validate_args)
        super().__init__(raw.shape[:-1], (), flag)
        if probs is not None:
            if self._validate and not bool((raw.detach() >= 0).all()):
                raise ValueError(f"Categorical: probs must be non-negative, got {raw.tolist()}")
            self._probs = raw / raw.sum(-1, keepdim=True)
            self._check_params(probs=self._probs)
            self._logits = probs_to_logits(self._probs)
        else:
            self._check_params(logits=raw)
            self._logits = raw - raw.logsumexp(-1, keepdim=True)
            self._probs = logits_to_probs(self._logits)
        self._num_events = int(raw.shape[-1])

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities (last dim: the categories)."""
        return self._probs

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities (``logsumexp`` over the last dim is 0)."""
        return self._logits

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self._probs.shape

    @property
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self) -> Tensor:
        return _core.full(list(self.batch_shape), float("nan"), dtype=self._probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self.mean

    @property
    def mode(self) -> Tensor:
        return self._probs.argmax(-1)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        nb = len(self.batch_shape)
        sample_shape = shape[: len(shape) - nb - len(self.event_shape)]
        n = numel(sample_shape)
        rows = numel(self.batch_shape)
        if n == 0 or rows == 0:
            return _core.zeros(list(sample_shape) + list(self.batch_shape), dtype=_core.int64)
        weights = self._probs.detach().reshape([rows, self._num_events])
        idx = _core._multinomial(weights, n, True, generator)  # (rows, n)
        return idx.T.reshape(list(sample_shape) + list(self.batch_shape))

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=_core.int64)
        self._validate_sample(value)
        v = value.astype(_core.int64).unsqueeze(-1)
        shape = np.broadcast_shapes(tuple(v.shape), tuple(self._logits.shape))
        v = v.broadcast_to(list(shape[:-1]) + [1])
        lp = self._logits.broadcast_to(list(shape))
        return lp.gather(-1, v).squeeze(-1)

    def entropy(self) -> Tensor:
        # a zero probability contributes 0 (not 0 * -inf)
        logits = self._logits.clamp(min=min_of(self._logits.dtype))
        return -(self._probs * logits).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = _core.arange(self._num_events, dtype=_core.int64)
        values = values.reshape([self._num_events] + [1] * len(self.batch_shape))
        return values.broadcast_to([self._num_events, *self.batch_shape]) if expand else values


def _float_of(value: Any) -> Any:
    if isinstance(value, Tensor) and value.dtype.is_floating_point:
        return value.dtype
    return _core._get_default_dtype()


class OneHotCategorical(Distribution):
    """A :class:`Categorical` whose samples are one-hot vectors (event shape ``[K]``)."""

    arg_constraints = Categorical.arg_constraints
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: Any = None, name: Any = None
    ) -> None:
        self._categorical = Categorical(probs, logits, validate_args)
        n = self._categorical._num_events
        super().__init__(self._categorical.batch_shape, (n,), _validate_flag(validate_args))

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = object.__new__(OneHotCategorical)
        new.__dict__.update(self.__dict__)
        new._categorical = self._categorical.expand(batch_shape)  # type: ignore[assignment]
        new._batch_shape = new._categorical.batch_shape
        return new

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        n = self._categorical._num_events
        idx = self.probs.argmax(-1).unsqueeze(-1)
        return (idx == _core.arange(n, dtype=_core.int64)).astype(self.probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        idx = self._categorical._draw(shape[:-1], generator).unsqueeze(-1)
        n = self._categorical._num_events
        return (idx == _core.arange(n, dtype=_core.int64)).astype(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.probs.dtype)
        self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._categorical._num_events
        values = _core.eye(n, dtype=self.probs.dtype)
        values = values.reshape([n] + [1] * len(self.batch_shape) + [n])
        return values.broadcast_to([n, *self.batch_shape, n]) if expand else values


class Geometric(Distribution):
    """The number of failures before the first success in Bernoulli trials of success
    probability ``probs`` (or ``sigmoid(logits)``); support ``{0, 1, 2, ...}``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer
    _params = ("probs", "logits")
    #: the probability of a success (1)
    probs: Tensor
    #: its log-odds
    logits: Tensor

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: Any = None, name: Any = None
    ) -> None:
        if isinstance(logits, str):  # Paddle's Geometric(probs, name)
            logits = None
        _one_of("Geometric", probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self.logits = probs_to_logits(self.probs, is_binary=True)
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = logits_to_probs(self.logits, is_binary=True)
        super().__init__(self.probs.shape, (), _validate_flag(validate_args))
        self._check_params(probs=self.probs)
        if self._validate and not bool((self.probs.detach() > 0).all()):
            raise ValueError(f"Geometric: probs must be positive, got {self.probs.tolist()}")

    @property
    def mean(self) -> Tensor:
        return self.probs.reciprocal() - 1

    @property
    def mode(self) -> Tensor:
        return self.probs * 0

    @property
    def variance(self) -> Tensor:
        return (self.probs.reciprocal() - 1) / self.probs

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        u = open_uniform(shape, self.probs.dtype, generator)
        return (u.log() / (-self.probs.detach()).log1p()).floor()

    def log_prob(self, value: Any) -> Tensor:
        k = _counts(self, value, self.probs)
        # k = 0 at p = 1 has probability 1: keep 0 * log(0) out of the value and gradient
        certain = (self.probs == 1) & (k == 0)
        p = _core.where(certain, self.probs * 0, self.probs)
        return k * (-p).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return (self.logits.softplus() - self.logits * self.probs) / self.probs


class Poisson(ExponentialFamily):
    """Counts with mean ``rate``. ``sample`` inverts the CDF in float64 with vectorised
    steps, one per count up to the largest drawn (so it costs O(max rate) tensor ops)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    _params = ("rate",)

    def __init__(self, rate: Any, validate_args: Any = None, name: Any = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, (), _validate_flag(validate_args))
        self._check_params(rate=self.rate)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.exp()

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        rate = self.rate.detach().astype(_core.float64).broadcast_to(list(shape))
        top = float(rate.max().item()) if rate.numel() else 0.0
        if top > _CDF_LOOP_MAX:
            # the loop below costs O(rate) steps (a rate of 1e9 never returned): NumPy's
            # exact PTRS sampler, seeded from ferrograd's generator
            draw = numpy_rng(generator).poisson(rate.numpy())
            return _core.tensor(draw.astype(np.float64)).astype(self.rate.dtype)
        u = _core._uniform(list(shape), 0.0, 1.0, _core.float64, generator)
        log_rate = rate.log()
        k = rate * 0
        term = (-rate).exp()  # P(X = 0)
        cdf = term
        lgam = 0.0
        for i in range(int(top + 20 * math.sqrt(top) + 50)):
            more = u > cdf
            if not bool(more.any()):
                break
            k = k + more.astype(_core.float64)
            lgam += math.log(i + 1)
            # P(X = i + 1) from its log, so a large rate cannot underflow the running term
            term = (-rate + (i + 1) * log_rate - lgam).exp()
            cdf = cdf + term
        return k.astype(self.rate.dtype)

    def log_prob(self, value: Any) -> Tensor:
        k = _counts(self, value, self.rate)
        return k.xlogy(self.rate) - self.rate - log_factorial(k)
