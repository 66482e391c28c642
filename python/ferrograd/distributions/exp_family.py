"""``ExponentialFamily``: the base class of distributions with density
``p(x; theta) = h(x) exp(<t(x), theta> - F(theta))`` (PyTorch's and Paddle's
``ExponentialFamily``).

A subclass gives its natural parameters ``theta`` (``_natural_params``), the log
normaliser ``F`` (``_log_normalizer(*theta)``) and ``E[log h(X)]``
(``_mean_carrier_measure``); the base class then has an ``entropy`` from the Bregman
divergence of ``F``: ``H = F(theta) - <theta, grad F(theta)> - E[log h(X)]``, with
``grad F`` by ferrograd's autograd (``create_graph``, so the entropy stays
differentiable). Normal, Exponential, Gamma, Chi2, Beta, Dirichlet, Bernoulli, Poisson
and ContinuousBernoulli are ExponentialFamily subclasses, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .distribution import Distribution

Tensor = _core.Tensor

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family (see the module docstring)."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        """The natural parameters ``theta``, one tensor per sufficient statistic."""
        raise NotImplementedError(f"{type(self).__name__} does not define _natural_params")

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """The log normaliser ``F(theta)``, one value per distribution of the batch."""
        raise NotImplementedError(f"{type(self).__name__} does not define _log_normalizer")

    @property
    def _mean_carrier_measure(self) -> Any:
        """``E[log h(X)]``."""
        raise NotImplementedError(f"{type(self).__name__} does not define _mean_carrier_measure")

    def entropy(self) -> Tensor:
        """The entropy from the Bregman divergence of the log normaliser."""
        from ..autograd import grad
        from ..grad_mode import enable_grad

        with enable_grad():
            # parameters with history keep it (the entropy is then differentiable in
            # them); the others become leaves, so that grad F can be taken
            params = [
                p if p.requires_grad else p.detach().requires_grad_() for p in self._natural_params
            ]
            lognorm = self._log_normalizer(*params)
            grads = grad(lognorm.sum(), params, create_graph=True)
        out = lognorm - self._mean_carrier_measure
        batch = list(self.batch_shape)
        for p, g in zip(params, grads):
            out = out - (p * g).reshape(batch + [-1]).sum(-1)
        return out
