"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL divergences, looked up by
the two distributions' types (the most specific registered pair wins, as in PyTorch)."""

from __future__ import annotations

from typing import Any, Callable

from .. import _core
from .continuous import Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, Geometric, OneHotCategorical, Poisson
from .distribution import Distribution
from .multivariate import Independent, MultivariateNormal, _half_log_det

Tensor = _core.Tensor

__all__ = ["kl_divergence", "register_kl"]

_KL: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}


def register_kl(
    type_p: type, type_q: type
) -> Callable[[Callable[..., Tensor]], Callable[..., Tensor]]:
    """Decorator registering ``fn(p, q)`` as KL(p || q) for ``p`` of ``type_p`` and ``q``
    of ``type_q`` (subclasses included)::

        @register_kl(MyDist, MyDist)
        def _kl_mine(p, q): ...
    """
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"register_kl expects Distribution subclasses, got {t!r}")

    def decorator(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
        _KL[(type_p, type_q)] = fn
        return fn

    return decorator


def _lookup(tp: type, tq: type) -> Callable[[Any, Any], Tensor] | None:
    best = None
    best_rank = None
    for (rp, rq), fn in _KL.items():
        if issubclass(tp, rp) and issubclass(tq, rq):
            rank = (tp.__mro__.index(rp), tq.__mro__.index(rq))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) = E_p[log p(x) - log q(x)], one value per distribution of the batch."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(
            f"kl_divergence: no closed form is registered for {type(p).__name__} and "
            f"{type(q).__name__}; register one with @register_kl"
        )
    return fn(p, q)


def _inf_where(mask: Tensor, x: Tensor) -> Tensor:
    return _core.where(mask, x * 0 + float("inf"), x)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).square()
    t1 = ((p.loc - q.loc) / q.scale).square()
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), kl)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return ratio - 1 - ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    ratio = p.scale / q.scale
    diff = (p.loc - q.loc).abs()
    return -ratio.log() + diff / q.scale + ratio * (-diff / p.scale).exp() - 1


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    # written with softplus of the logits so that p or q at 0 / 1 stays finite
    t1 = p.probs * ((-q.logits).softplus() - (-p.logits).softplus())
    t1 = _core.where(p.probs == 0, t1 * 0, t1)
    t2 = (1 - p.probs) * (q.logits.softplus() - p.logits.softplus())
    t2 = _core.where(p.probs == 1, t2 * 0, t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _inf_where(q.probs == 0, t)
    t = _core.where(p.probs == 0, t * 0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    from .. import linalg

    if p.event_shape != q.event_shape:
        raise ValueError(
            "kl_divergence: the two MultivariateNormals have different event shapes "
            f"{list(p.event_shape)} and {list(q.event_shape)}"
        )
    k = p.event_shape[0]
    lq, lp = q.scale_tril, p.scale_tril
    # tr(Sq^-1 Sp) = |Lq^-1 Lp|_F^2 and the Mahalanobis term |Lq^-1 (mu_q - mu_p)|^2
    trace = linalg.solve(lq, lp).square().sum(-1).sum(-1)
    maha = linalg.solve(lq, (q.loc - p.loc).unsqueeze(-1)).squeeze(-1).square().sum(-1)
    return _half_log_det(lq) - _half_log_det(lp) + 0.5 * (trace + maha - k)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "kl_divergence: Independent distributions with different "
            "reinterpreted_batch_ndims are not supported"
        )
    return p._sum_rightmost(kl_divergence(p.base_dist, q.base_dist))
