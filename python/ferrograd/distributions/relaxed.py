"""Continuous relaxations of discrete distributions (Concrete / Gumbel-softmax; Maddison et
al. 2017, Jang et al. 2017): ``LogitRelaxedBernoulli``, ``RelaxedBernoulli``,
``ExpRelaxedCategorical``, ``RelaxedOneHotCategorical``, each reparameterised
(``rsample``) with a ``temperature``. The relaxed ones are ``TransformedDistribution``s of
the log-space ones (a sigmoid, an exp), as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from . import constraints
from ._utils import as_float_tensor, eps_of, size_tuple
from .continuous import _validate_flag, _value
from .discrete import Bernoulli, Categorical
from .distribution import Distribution
from .transformed import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform

Tensor = _core.Tensor

__all__ = [
    "LogitRelaxedBernoulli",
    "RelaxedBernoulli",
    "ExpRelaxedCategorical",
    "RelaxedOneHotCategorical",
]


def _tiny(dtype: Any) -> float:
    import numpy as np

    return float(np.finfo(np.float64 if dtype == _core.float64 else np.float32).tiny)


def _temperature(t: Any, like: Tensor) -> Tensor:
    out = as_float_tensor(t, like.dtype)
    if not bool((out.detach() > 0).all()):
        raise ValueError(f"temperature must be positive, got {out.tolist()}")
    return out


class LogitRelaxedBernoulli(Distribution):
    """The logit of a relaxed Bernoulli draw: ``(logit(U) + logits) / temperature``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True
    _params = ("probs", "logits")

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        self._bern = Bernoulli(probs, logits, validate_args=validate_args)
        self.probs, self.logits = self._bern.probs, self._bern.logits
        self.temperature = _temperature(temperature, self.logits)
        super().__init__(self.logits.shape, (), _validate_flag(validate_args))

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self.logits.shape

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        dtype = self.logits.dtype
        eps = eps_of(dtype)
        u = _core._uniform(list(shape), 0.0, 1.0, dtype, generator).clamp(min=eps, max=1 - eps)
        return (u.log() - (-u).log1p() + self.logits) / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.logits)
        diff = self.logits - v * self.temperature
        return self.temperature.log() + diff - 2 * diff.softplus()


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot categorical draw (the Concrete distribution in log
    space): ``log_softmax((logits + Gumbel noise) / temperature)``; event shape ``[K]``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        self.temperature = _temperature(temperature, self._categorical.logits)
        shape = tuple(self._categorical.logits.shape)
        super().__init__(shape[:-1], shape[-1:], _validate_flag(validate_args))

    @property
    def logits(self) -> Tensor:
        """Normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        """The category probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self.logits.shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        """This distribution with its logits broadcast to ``batch_shape + [K]``."""
        shape = list(size_tuple(batch_shape, "batch_shape")) + list(self.event_shape)
        new = ExpRelaxedCategorical(
            self.temperature, logits=self.logits.broadcast_to(shape), validate_args=False
        )
        new._validate = self._validate
        return new

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        dtype = self.logits.dtype
        u = _core._uniform(list(shape), 0.0, 1.0, dtype, generator)
        u = u.clamp(min=_tiny(dtype), max=1 - eps_of(dtype))
        gumbels = -(-u.log()).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.logits)
        k = int(self.event_shape[0])
        t = self.temperature
        log_scale = math.lgamma(k) + (k - 1) * t.log()
        score = self.logits - v * t
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class _Relaxed(TransformedDistribution):
    """A relaxed distribution as a fixed transform (``_transform``) of its log-space one
    (``_base``, built as ``_base(temperature, probs, logits, validate_args=...)``); the
    parameters are the base's."""

    _base: Any
    _transform: Any

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        base = type(self)._base(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, type(self)._transform(), validate_args=_validate_flag(validate_args))

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        """This distribution with its logits broadcast to ``batch_shape`` (then the event
        shape)."""
        shape = list(size_tuple(batch_shape, "batch_shape")) + list(self.event_shape)
        return type(self)(
            self.temperature, logits=self.logits.broadcast_to(shape), validate_args=False
        )

    @property
    def temperature(self) -> Tensor:
        """The relaxation temperature."""
        return self.base_dist.temperature  # type: ignore[attr-defined,no-any-return]

    @property
    def logits(self) -> Tensor:
        """The base's logits: log-odds (Bernoulli) or normalised log-probabilities."""
        return self.base_dist.logits  # type: ignore[attr-defined,no-any-return]

    @property
    def probs(self) -> Tensor:
        """The probabilities the draws tend to (as one-hot or 0/1) as the temperature
        goes to 0."""
        return self.base_dist.probs  # type: ignore[attr-defined,no-any-return]


class RelaxedBernoulli(_Relaxed):
    """A relaxed Bernoulli on ``(0, 1)``: ``sigmoid`` of a :class:`LogitRelaxedBernoulli`
    draw. PyTorch ``RelaxedBernoulli(temperature, probs=None, logits=None)``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _base = LogitRelaxedBernoulli
    _transform = SigmoidTransform


class RelaxedOneHotCategorical(_Relaxed):
    """A relaxed one-hot categorical on the simplex: ``exp`` of an
    :class:`ExpRelaxedCategorical` draw. PyTorch ``RelaxedOneHotCategorical(temperature,
    probs=None, logits=None)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    _base = ExpRelaxedCategorical
    _transform = ExpTransform
