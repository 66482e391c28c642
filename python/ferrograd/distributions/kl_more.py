"""Closed-form KL divergences for the distributions added with the transforms:
ContinuousBernoulli, Gumbel, HalfNormal and Pareto pairs, TransformedDistribution pairs
with equal transforms (the base distributions' KL), and the low-rank normal against
itself and MultivariateNormal (through the dense covariance)."""

from __future__ import annotations

from typing import Any

from .. import _core
from .bounded import ContinuousBernoulli
from .extreme_value import Gumbel, HalfNormal, Pareto
from .kl import kl_divergence, register_kl
from .lowrank_mixture import LowRankMultivariateNormal
from .multivariate import MultivariateNormal
from .transformed import TransformedDistribution
from .transforms import _sum_rightmost

Tensor = _core.Tensor

__all__: list[str] = []

_EULER_GAMMA = 0.57721566490153286061


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ratio = p.scale / q.scale
    q_loc = q.loc / q.scale
    p_loc = p.loc / q.scale
    t1 = -ratio.log() - q_loc + p_loc
    t2 = ratio * _EULER_GAMMA
    t3 = (q_loc + (1 + ratio).lgamma() - p_loc).exp()
    return t1 + t2 + t3 - (1 + _EULER_GAMMA)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    var_ratio = (p.scale / q.scale).square()
    return 0.5 * (var_ratio - 1 - var_ratio.log())


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    kl = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    # p puts mass below q's support when its scale is smaller
    return _core.where(p.scale < q.scale, kl * 0 + float("inf"), kl)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if len(p.transforms) != len(q.transforms) or any(
        a != b for a, b in zip(p.transforms, q.transforms)
    ):
        raise NotImplementedError(
            "kl_divergence: TransformedDistributions with different transforms have no closed form"
        )
    if p.event_shape != q.event_shape:
        raise NotImplementedError(
            "kl_divergence: TransformedDistributions with different event shapes"
        )
    kl = kl_divergence(p.base_dist, q.base_dist)
    extra = len(p.event_shape) - len(p.base_dist.event_shape)
    return _sum_rightmost(kl, extra)


def _as_mvn(d: Any) -> MultivariateNormal:
    return MultivariateNormal(d.loc, covariance_matrix=d.covariance_matrix, validate_args=False)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    return kl_divergence(_as_mvn(p), _as_mvn(q))


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    return kl_divergence(p, _as_mvn(q))


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    return kl_divergence(_as_mvn(p), q)
