"""KL divergences between different families (PyTorch's ``torch/distributions/kl.py``
registrations), plus Binomial, Cauchy and the exponential-family Bregman divergence.

A pair whose ``p`` puts mass where ``q`` has none is ``inf`` (e.g. ``Normal`` against
``Exponential``); the closed forms are PyTorch's. Two deliberate differences, both where
PyTorch's own mask is wrong at the boundary: ``ContinuousBernoulli`` against ``Uniform``
(and back) is ``inf`` only when a support really sticks out (PyTorch's ``>=`` / ``<=``
also gives ``inf`` for ``Uniform(0, 1)``, whose KL is finite).
"""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from .bounded import ContinuousBernoulli
from .continuous import Cauchy, Exponential, Laplace, Normal, Uniform
from .counts import Binomial
from .discrete import Bernoulli, Poisson
from .exp_family import ExponentialFamily
from .extreme_value import Gumbel, Pareto
from .gamma_family import Beta, Gamma
from .kl import _inf_where, register_kl
from .transforms import _sum_rightmost

Tensor = _core.Tensor

__all__: list[str] = []

_EULER = 0.57721566490153286061
_LOG_2PI = math.log(2 * math.pi)


def _inf_like(x: Tensor) -> Tensor:
    return x.detach() * 0 + math.inf


def _x_log_x(x: Tensor) -> Tensor:
    return x * x.log()


# ---- same family ---------------------------------------------------------------------


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Any, q: Any) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _inf_where(p.total_count > q.total_count, kl)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Any, q: Any) -> Tensor:
    # https://arxiv.org/abs/1905.10965
    t1 = ((p.scale + q.scale).square() + (p.loc - q.loc).square()).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: Any, q: Any) -> Tensor:
    """The Bregman divergence of the log-normalizer (same family only)."""
    from .. import autograd

    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be "
            "computed using Bregman divergences"
        )
    p_nat = [t.detach().requires_grad_() for t in p._natural_params]
    q_nat = q._natural_params
    lg = p._log_normalizer(*p_nat)
    grads = autograd.grad(lg.sum(), p_nat, create_graph=True)
    result = q._log_normalizer(*q_nat) - lg
    for pn, qn, g in zip(p_nat, q_nat, grads):
        result = result - _sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result


# ---- p's support not inside q's: infinite --------------------------------------------


def _register_inf(p_type: type, q_types: tuple[type, ...], param: str) -> None:
    def fn(p: Any, q: Any) -> Tensor:
        return _inf_like(getattr(p, param))

    for q_type in q_types:
        register_kl(p_type, q_type)(fn)


_register_inf(Beta, (Pareto,), "concentration1")
_register_inf(ContinuousBernoulli, (Pareto,), "probs")
_register_inf(Exponential, (Beta, ContinuousBernoulli, Pareto, Uniform), "rate")
_register_inf(Gamma, (Beta, ContinuousBernoulli, Pareto, Uniform), "concentration")
_register_inf(Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc")
_register_inf(Laplace, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc")
_register_inf(Normal, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc")
_register_inf(Pareto, (Beta, ContinuousBernoulli, Uniform), "scale")
_register_inf(Poisson, (Bernoulli, Binomial), "rate")


# ---- p = Bernoulli, Beta, ContinuousBernoulli ------------------------------------------


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Any, q: Any) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _minus_cb_cross(p: Any, q: Any) -> Tensor:
    # E_p[-log q(x)] - H(p) for q = ContinuousBernoulli and p on [0, 1] with mean p.mean
    return -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_cb(p: Any, q: Any) -> Tensor:
    return _minus_cb_cross(p, q)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Any, q: Any) -> Tensor:
    c1, c0 = p.concentration1, p.concentration0
    return -p.entropy() - q.rate.log() + q.rate * (c1 / (c1 + c0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Any, q: Any) -> Tensor:
    c1, c0 = p.concentration1, p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (c1.digamma() - (c1 + c0).digamma())
    return -p.entropy() + t2 - t3 + q.rate * c1 / (c1 + c0)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Any, q: Any) -> Tensor:
    c1, c0 = p.concentration1, p.concentration0
    e = c1 / (c1 + c0)
    var = q.scale.square()
    t2 = 0.5 * (var * 2 * math.pi).log()
    t3 = (e * (1 - e) / (c1 + c0 + 1) + e.square()) * 0.5
    return -p.entropy() + t2 + (t3 - q.loc * e + q.loc.square() * 0.5) / var


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Any, q: Any) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _inf_where((q.low > 0) | (q.high < 1), result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p: Any, q: Any) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p: Any, q: Any) -> Tensor:
    t2 = 0.5 * (_LOG_2PI + (q.loc / q.scale).square()) + q.scale.log()
    t3 = (p.variance + p.mean.square() - 2.0 * q.loc * p.mean) / (2.0 * q.scale.square())
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p: Any, q: Any) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return _inf_where((q.low > 0) | (q.high < 1), result)


# ---- p = Exponential, Gamma, Gumbel, Laplace, Normal ------------------------------------


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Any, q: Any) -> Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER - (1 + _EULER)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Any, q: Any) -> Tensor:
    prod = p.rate * q.scale
    ratio = q.loc / q.scale
    t2 = ratio.exp() * prod / (prod + 1)
    return prod.log() - 1 - ratio + t2 + prod.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Any, q: Any) -> Tensor:
    var = q.scale.square()
    rate2 = p.rate.square()
    t1 = 0.5 * (rate2 * var * 2 * math.pi).log()
    return t1 - 1 + (rate2.reciprocal() - q.loc / p.rate + q.loc.square() * 0.5) / var


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Any, q: Any) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Any, q: Any) -> Tensor:
    a = p.concentration
    prod = p.rate * q.scale
    ratio = q.loc / q.scale
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = prod.log() + a / prod
    t3 = ratio.exp() * (1 + prod.reciprocal()).pow(-a) - ratio
    return t1 + t2 + t3


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Any, q: Any) -> Tensor:
    a = p.concentration
    var = q.scale.square()
    b2 = p.rate.square()
    t1 = 0.5 * (b2 * var * 2 * math.pi).log() - a - a.lgamma()
    t2 = 0.5 * (a.square() + a) / b2
    t3 = q.loc * a / p.rate
    return t1 + (a - 1) * a.digamma() + (t2 - t3 + 0.5 * q.loc.square()) / var


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Any, q: Any) -> Tensor:
    r = p.scale / q.scale
    t1 = (r / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * r * 0.5).square() / 3
    t3 = ((p.loc + p.scale * _EULER - q.loc) / q.scale).square() * 0.5
    return -t1 + t2 + t3 - (_EULER + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Any, q: Any) -> Tensor:
    var = q.scale.square()
    r = p.scale.square() / var
    t1 = 0.5 * (2 * r / math.pi).log()
    t234 = 0.5 * p.loc.square() - p.loc * q.loc + 0.5 * q.loc.square()
    return -t1 + r + t234 / var - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Any, q: Any) -> Tensor:
    m = p.loc / q.scale
    v = (p.scale / q.scale).square()
    ratio = q.loc / q.scale
    t3 = (-m + 0.5 * v + ratio).exp()
    return -0.5 * v.log() + (m - ratio) + t3 - 0.5 * (1 + _LOG_2PI)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Any, q: Any) -> Tensor:
    diff = p.loc - q.loc
    r = p.scale / q.scale
    z = diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * z.square()).exp()
    t3 = diff * (math.sqrt(0.5) * z).erf()
    return -r.log() + (t2 + t3) / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


# ---- p = Pareto -----------------------------------------------------------------------


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Any, q: Any) -> Tensor:
    prod = p.scale * q.rate
    result = (p.alpha / prod).log() - p.alpha.reciprocal() + p.alpha * prod / (p.alpha - 1) - 1
    return _inf_where(p.alpha <= 1, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Any, q: Any) -> Tensor:
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _inf_where(p.alpha <= 1, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Any, q: Any) -> Tensor:
    var2 = 2 * q.scale.square()
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.square() / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).square()
    return _inf_where(p.alpha <= 2, t1 - p.alpha.reciprocal() + (t3 + t4) / var2 - 1)


# ---- p = Uniform ----------------------------------------------------------------------


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Any, q: Any) -> Tensor:
    w = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - w) / w
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + w) / w
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    return _inf_where((p.high > 1) | (p.low < 0), t3 + t4 - w.log() - t2)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p: Any, q: Any) -> Tensor:
    return _inf_where((p.high > 1) | (p.low < 0), _minus_cb_cross(p, q))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Any, q: Any) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _inf_where(p.low < 0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Any, q: Any) -> Tensor:
    w = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - w) / w
    t4 = q.rate * (p.high + p.low) / 2
    return _inf_where(p.low < 0, -w.log() + t2 + t3 + t4)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Any, q: Any) -> Tensor:
    common = q.scale / (p.high - p.low)
    hi = (p.high - q.loc) / q.scale
    lo = (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (hi + lo)
    return t1 - common * ((-hi).exp() - (-lo).exp())


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Any, q: Any) -> Tensor:
    w = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / w).log()
    t3 = ((p.high + p.low - 2 * q.loc) / 2).square()
    return t1 + 0.5 * (w.square() / 12 + t3) / q.scale.square()


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Any, q: Any) -> Tensor:
    w = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * w).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - w) / w
    return _inf_where(p.low < q.scale, t2 * (q.alpha + 1) - t1)
