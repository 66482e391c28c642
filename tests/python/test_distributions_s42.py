"""Session 42: the torch.distributions names ferrograd lacked (the transforms CatTransform,
StackTransform, LowerCholeskyTransform, PositiveDefiniteTransform, CorrCholeskyTransform,
CumulativeDistributionTransform; the constraints cat/stack/less_than/...; biject_to /
transform_to registrations; GeneralizedPareto, InverseGamma,
OneHotCategoricalStraightThrough; the cross-family KL pairs) checked against SciPy, NumPy
finite differences and PyTorch's formulas (torch/distributions/transforms.py,
constraints.py, constraint_registry.py, kl.py, generalized_pareto.py, inverse_gamma.py).
"""

from __future__ import annotations

import math

import ferrograd as torch
import ferrograd.distribution as paddle_distribution
import numpy as np
import pytest
import scipy.integrate
import scipy.stats
from ferrograd.distributions import (
    Beta,
    Binomial,
    Cauchy,
    ContinuousBernoulli,
    Exponential,
    Gamma,
    GeneralizedPareto,
    Gumbel,
    InverseGamma,
    Laplace,
    Normal,
    OneHotCategoricalStraightThrough,
    Pareto,
    Poisson,
    TransformedDistribution,
    Uniform,
    biject_to,
    constraints,
    kl_divergence,
    transform_to,
)
from ferrograd.distributions import transforms as T

F64 = torch.float64


def t64(x):
    return torch.tensor(np.asarray(x, dtype=np.float64))


def num_jacobian(fn, x, eps=1e-6):
    """Central-difference Jacobian of fn: R^n -> R^m at the NumPy vector x."""
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in range(x.size):
        d = np.zeros_like(x)
        d[i] = eps
        cols.append((fn(x + d) - fn(x - d)) / (2 * eps))
    return np.stack(cols, -1)


# ---- names ---------------------------------------------------------------------------


def test_torch_names_exist():
    # torch/distributions/__init__.py __all__ (with transforms.__all__ extended into it)
    import ferrograd.distributions as D

    for name in [
        "GeneralizedPareto",
        "InverseGamma",
        "OneHotCategoricalStraightThrough",
        "CatTransform",
        "StackTransform",
        "LowerCholeskyTransform",
        "PositiveDefiniteTransform",
        "CorrCholeskyTransform",
        "CumulativeDistributionTransform",
        "ExpTransform",
        "identity_transform",
    ]:
        assert name in D.__all__ and hasattr(D, name), name
    for name in constraints.__all__:
        assert hasattr(constraints, name), name
    assert hasattr(paddle_distribution, "StackTransform")


# ---- constraints ---------------------------------------------------------------------


def test_new_constraints_check():
    assert constraints.less_than(2.0).check(t64([1.0, 2.0])).tolist() == [True, False]
    assert constraints.positive_integer.check(t64([0.0, 1.0, 2.5])).tolist() == [False, True, False]
    assert constraints.multinomial(3).check(t64([[1.0, 2.0], [2.0, 2.0]])).tolist() == [True, False]
    low = t64([[1.0, 0.0], [2.0, 3.0]])
    assert bool(constraints.lower_triangular.check(low))
    assert not bool(constraints.lower_triangular.check(low.mT))
    assert bool(constraints.square.check(low)) and not bool(
        constraints.square.check(t64(np.ones((2, 3))))
    )
    sym = t64([[2.0, 1.0], [1.0, 2.0]])
    assert bool(constraints.symmetric.check(sym)) and not bool(constraints.symmetric.check(low))
    assert bool(constraints.positive_semidefinite.check(t64([[1.0, 1.0], [1.0, 1.0]])))
    assert not bool(constraints.positive_semidefinite.check(t64([[1.0, 2.0], [2.0, 1.0]])))
    c = constraints.cat([constraints.positive, constraints.real], dim=0, lengths=[2, 1])
    assert c.check(t64([1.0, -1.0, -5.0])).tolist() == [True, False, True]
    s = constraints.stack([constraints.positive, constraints.unit_interval], dim=-1)
    assert s.check(t64([[1.0, 0.5], [1.0, 2.0]])).tolist() == [[True, True], [True, False]]
    assert constraints.is_dependent(constraints.dependent)
    assert not constraints.is_dependent(constraints.real)


def test_dependent_property():
    class Thing:
        @constraints.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return constraints.positive

    assert Thing().support is constraints.positive
    assert constraints.is_dependent(Thing.support)
    assert Thing.support.event_dim == 0 and Thing.support.is_discrete is False


# ---- transforms: round trips and log-dets ---------------------------------------------


def test_lower_cholesky_and_positive_definite():
    rng = np.random.default_rng(0)
    x = t64(rng.normal(size=(3, 4, 4)))
    t = T.LowerCholeskyTransform()
    y = t(x)
    assert bool(constraints.lower_cholesky.check(y).all())
    np.testing.assert_allclose(t.inv(y).numpy(), np.tril(x.numpy()), atol=1e-12)
    p = T.PositiveDefiniteTransform()
    m = p(x)
    assert bool(constraints.positive_definite.check(m).all())
    np.testing.assert_allclose(p(p.inv(m)).numpy(), m.numpy(), atol=1e-10)
    assert transform_to(constraints.lower_cholesky) == T.LowerCholeskyTransform()
    assert transform_to(constraints.positive_definite) == T.PositiveDefiniteTransform()
    assert transform_to(constraints.positive_semidefinite) == T.PositiveDefiniteTransform()
    with pytest.raises(NotImplementedError):
        biject_to(constraints.lower_cholesky)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_corr_cholesky_roundtrip_and_logdet(d):
    rng = np.random.default_rng(d)
    n = d * (d - 1) // 2
    x0 = rng.normal(size=n)
    t = T.CorrCholeskyTransform()
    y = t(t64(x0))
    assert tuple(y.shape) == (d, d) and bool(constraints.corr_cholesky.check(y))
    np.testing.assert_allclose(t.inv(y).numpy(), x0, atol=1e-9)
    assert t.forward_shape((5, n)) == (5, d, d) and t.inverse_shape((5, d, d)) == (5, n)
    # log|det| between x and the strict lower triangle of y (PyTorch's convention)
    rows, cols = np.tril_indices(d, -1)

    def f(v):
        return t(t64(v)).numpy()[rows, cols]

    expected = np.linalg.slogdet(num_jacobian(f, x0))[1]
    np.testing.assert_allclose(float(t.log_abs_det_jacobian(t64(x0), y)), expected, rtol=1e-6)
    assert biject_to(constraints.corr_cholesky) == T.CorrCholeskyTransform()


def test_corr_cholesky_batched_and_gradient():
    x = torch.randn(3, 6, dtype=F64, requires_grad=True)
    t = T.CorrCholeskyTransform()
    y = t(x)
    assert tuple(y.shape) == (3, 4, 4)
    assert tuple(t.log_abs_det_jacobian(x, y).shape) == (3,)
    assert torch.autograd.gradcheck(lambda v: t(v), (x,))


def test_cat_transform():
    x = t64(np.linspace(-1, 1, 10).reshape(2, 5))
    t = T.CatTransform(
        [T.ExpTransform(), T.identity_transform, T.AffineTransform(1.0, 3.0)],
        dim=1,
        lengths=[2, 2, 1],
    )
    y = t(x)
    xn = x.numpy()
    np.testing.assert_allclose(
        y.numpy(), np.concatenate([np.exp(xn[:, :2]), xn[:, 2:4], 1 + 3 * xn[:, 4:]], 1)
    )
    np.testing.assert_allclose(t.inv(y).numpy(), xn, atol=1e-12)
    ldj = t.log_abs_det_jacobian(x, y).numpy()
    expected = np.concatenate([xn[:, :2], np.zeros((2, 2)), np.full((2, 1), math.log(3.0))], 1)
    np.testing.assert_allclose(ldj, expected, atol=1e-12)
    assert t.bijective and t.event_dim == 0
    # dim inside the event dims (an IndependentTransform part): the blocks' terms add up
    ti = T.CatTransform(
        [
            T.IndependentTransform(T.ExpTransform(), 1),
            T.IndependentTransform(T.identity_transform, 1),
        ],
        dim=-1,
        lengths=[2, 3],
    )
    np.testing.assert_allclose(
        ti.log_abs_det_jacobian(x, ti(x)).numpy(), xn[:, :2].sum(-1), atol=1e-12
    )
    c = constraints.cat([constraints.positive, constraints.real], 0, [2, 3])
    assert isinstance(biject_to(c), T.CatTransform)
    with pytest.raises(ValueError, match="expected size 5"):
        t(t64(np.zeros((2, 4))))


def test_stack_transform_torch_and_paddle():
    x = t64(np.linspace(0.1, 2, 6).reshape(3, 2))
    t = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=1)
    y = t(x)
    xn = x.numpy()
    np.testing.assert_allclose(
        y.numpy(), np.stack([np.exp(xn[:, 0]), 1 / (1 + np.exp(-xn[:, 1]))], 1)
    )
    np.testing.assert_allclose(t.inv(y).numpy(), xn, atol=1e-12)
    s = 1 / (1 + np.exp(-xn[:, 1]))
    np.testing.assert_allclose(
        t.log_abs_det_jacobian(x, y).numpy(),
        np.stack([xn[:, 0], np.log(s * (1 - s))], 1),
        atol=1e-12,
    )
    # Paddle: StackTransform(transforms, axis) with forward / inverse / forward_log_det_jacobian
    pt = paddle_distribution.StackTransform([T.ExpTransform(), T.SigmoidTransform()], axis=1)
    np.testing.assert_allclose(pt.forward(x).numpy(), y.numpy())
    np.testing.assert_allclose(
        pt.forward_log_det_jacobian(x).numpy(), t.log_abs_det_jacobian(x, y).numpy()
    )
    assert isinstance(
        biject_to(constraints.stack([constraints.positive, constraints.real], 1)), T.StackTransform
    )


def test_cumulative_distribution_transform():
    base = Normal(t64(0.5), t64(2.0))
    t = T.CumulativeDistributionTransform(base)
    x = t64([-1.0, 0.0, 3.0])
    y = t(x)
    np.testing.assert_allclose(y.numpy(), scipy.stats.norm(0.5, 2.0).cdf(x.numpy()))
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), atol=1e-9)
    np.testing.assert_allclose(
        t.log_abs_det_jacobian(x, y).numpy(), scipy.stats.norm(0.5, 2.0).logpdf(x.numpy())
    )
    assert t.sign == 1 and t.bijective and t.codomain is constraints.unit_interval
    # a copula-style use: the transformed distribution is uniform on [0, 1]
    d = TransformedDistribution(base, [t])
    np.testing.assert_allclose(d.log_prob(t64([0.2, 0.7])).numpy(), [0.0, 0.0], atol=1e-9)
    with pytest.raises(TypeError, match="expects a Distribution"):
        T.CumulativeDistributionTransform(3.0)


def test_less_than_registry():
    t = biject_to(constraints.less_than(2.0))
    y = t(t64([-3.0, 0.0, 4.0]))
    assert bool((y < 2).all())
    np.testing.assert_allclose(t.inv(y).numpy(), [-3.0, 0.0, 4.0], atol=1e-12)


# ---- GeneralizedPareto ----------------------------------------------------------------


@pytest.mark.parametrize("xi", [0.3, 0.0, -0.4])
def test_generalized_pareto_against_scipy(xi):
    loc, scale = 1.5, 2.0
    d = GeneralizedPareto(t64(loc), t64(scale), t64(xi))
    ref = scipy.stats.genpareto(xi, loc=loc, scale=scale)
    x = np.array([1.6, 2.5, 4.0, 6.0]) if xi >= 0 else np.array([1.6, 2.5, 4.0, 6.4])
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.cdf(t64(x)).numpy(), ref.cdf(x), rtol=1e-10)
    q = np.array([0.01, 0.3, 0.9])
    np.testing.assert_allclose(d.icdf(t64(q)).numpy(), ref.ppf(q), rtol=1e-10)
    np.testing.assert_allclose(float(d.mean), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(float(d.variance), ref.var(), rtol=1e-10)
    np.testing.assert_allclose(float(d.entropy()), ref.entropy(), rtol=1e-10)


def test_generalized_pareto_sampling_and_support():
    torch.manual_seed(0)
    d = GeneralizedPareto(t64([0.0, 1.0]), t64([1.0, 2.0]), t64([0.1, -0.5]))
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000, 2)
    assert not d.has_rsample
    m = s.numpy().mean(0)
    ref = np.array([1 / 0.9, 1 + 2 / 1.5])
    assert np.all(np.abs(m - ref) < 5 * np.sqrt(d.variance.numpy() / 20000))
    assert float(s[:, 1].max()) <= 1 + 2 / 0.5
    assert float(d.mean[0]) == pytest.approx(1 / 0.9)
    assert math.isnan(float(GeneralizedPareto(0.0, 1.0, 1.5).mean))
    with pytest.raises(ValueError, match="scale"):
        GeneralizedPareto(0.0, -1.0, 0.1)
    with pytest.raises(ValueError, match="support"):
        GeneralizedPareto(t64(0.0), t64(1.0), t64(-0.5)).log_prob(t64(3.0))


def test_generalized_pareto_log_prob_gradient():
    loc = t64(0.5).requires_grad_()
    scale = t64(1.3).requires_grad_()
    xi = t64(0.2).requires_grad_()
    x = t64([1.0, 2.0, 3.5])
    assert torch.autograd.gradcheck(
        lambda a, b, c: GeneralizedPareto(a, b, c).log_prob(x), (loc, scale, xi)
    )


# ---- InverseGamma ---------------------------------------------------------------------


def test_inverse_gamma_against_scipy():
    a, b = t64([3.0, 4.5]), t64([2.0, 0.5])
    d = InverseGamma(a, b)
    ref = scipy.stats.invgamma(a.numpy(), scale=b.numpy())
    x = t64([0.7, 0.2])
    np.testing.assert_allclose(d.log_prob(x).numpy(), ref.logpdf(x.numpy()), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.mode.numpy(), b.numpy() / (a.numpy() + 1))
    # the TransformedDistribution path agrees with the closed form
    td = TransformedDistribution(Gamma(a, b), T.PowerTransform(-1.0))
    np.testing.assert_allclose(td.log_prob(x).numpy(), d.log_prob(x).numpy(), rtol=1e-10)
    assert math.isinf(float(InverseGamma(0.5, 1.0).mean))
    assert isinstance(d, TransformedDistribution)
    with pytest.raises(ValueError, match="concentration"):
        InverseGamma(-1.0, 1.0)


def test_inverse_gamma_rsample():
    torch.manual_seed(1)
    a = t64(5.0).requires_grad_()
    b = t64(2.0).requires_grad_()
    s = InverseGamma(a, b).rsample((40000,))
    mean, var = 2.0 / 4.0, 4.0 / (16.0 * 3.0)
    assert abs(float(s.mean()) - mean) < 5 * math.sqrt(var / 40000)
    s.mean().backward()
    # d E[X] / d rate = 1 / (a - 1); the sample mean's gradient estimates it
    assert abs(float(b.grad) - 0.25) < 0.02
    assert abs(float(a.grad) - (-2.0 / 16.0)) < 0.02


# ---- OneHotCategoricalStraightThrough ------------------------------------------------


def test_one_hot_straight_through():
    torch.manual_seed(2)
    logits = t64([0.1, 1.0, -0.5]).requires_grad_()
    d = OneHotCategoricalStraightThrough(logits=logits)
    s = d.rsample((4,))
    assert tuple(s.shape) == (4, 3) and d.has_rsample
    np.testing.assert_allclose(s.detach().numpy().sum(-1), 1.0)
    (s * t64([1.0, 2.0, 3.0])).sum().backward()
    p = np.exp(logits.detach().numpy()) / np.exp(logits.detach().numpy()).sum()
    w = np.array([1.0, 2.0, 3.0]) * 4
    expected = p * (w - (p * w).sum())  # d/dlogits of sum(probs * w)
    np.testing.assert_allclose(logits.grad.numpy(), expected, rtol=1e-10)
    e = d.expand((2, 3))
    assert isinstance(e, OneHotCategoricalStraightThrough) and tuple(e.batch_shape) == (2, 3)


# ---- KL pairs -------------------------------------------------------------------------


def _kl_numeric(p_logpdf, q_logpdf, lo, hi):
    """KL(p || q) by quadrature of p (log p - log q); 0 where p's density underflows."""

    def f(x):
        lp = float(p_logpdf(x))
        if lp < -700:
            return 0.0
        return math.exp(lp) * (lp - float(q_logpdf(x)))

    return scipy.integrate.quad(f, lo, hi, limit=200)[0]


# (ferrograd family, its args, scipy family, its args) for p and q, then p's support
_S = scipy.stats
_N = (Normal, (0.3, 0.7), _S.norm, (0.3, 0.7))
_N2 = (Normal, (1.0, 2.0), _S.norm, (1.0, 2.0))
_BE = (Beta, (2.0, 3.0), _S.beta, (2, 3))
_GA = (Gamma, (2.0, 3.0), _S.gamma, (2,), {"scale": 1 / 3})
_EX = (Exponential, (1.5,), _S.expon, (), {"scale": 1 / 1.5})
_GU = (Gumbel, (0.3, 1.2), _S.gumbel_r, (0.3, 1.2))
_UN = (Uniform, (0.2, 0.7), _S.uniform, (0.2, 0.5))
_PA = (Pareto, (1.0, 3.5), _S.pareto, (3.5,))
_KL_CASES = [
    (_BE, _N, 0, 1),
    (_BE, _GA, 0, 1),
    (_BE, _EX, 0, 1),
    (_BE, (Uniform, (-0.5, 1.5), _S.uniform, (-0.5, 2.0)), 0, 1),
    (_EX, _GA, 0, np.inf),
    (_EX, _N, 0, np.inf),
    (_EX, _GU, 0, np.inf),
    ((Gamma, (2.5, 1.5), _S.gamma, (2.5,), {"scale": 1 / 1.5}), _EX, 0, np.inf),
    ((Gamma, (2.5, 1.5), _S.gamma, (2.5,), {"scale": 1 / 1.5}), _N2, 0, np.inf),
    ((Gamma, (2.5, 1.5), _S.gamma, (2.5,), {"scale": 1 / 1.5}), _GU, 0, np.inf),
    ((Gumbel, (0.5, 1.5), _S.gumbel_r, (0.5, 1.5)), _N2, -40, 60),
    ((Laplace, (0.5, 1.5), _S.laplace, (0.5, 1.5)), _N2, -np.inf, np.inf),
    ((Normal, (0.5, 1.5), _S.norm, (0.5, 1.5)), _GU, -np.inf, np.inf),
    (
        (Normal, (0.5, 1.5), _S.norm, (0.5, 1.5)),
        (Laplace, (1.0, 2.0), _S.laplace, (1.0, 2.0)),
        -np.inf,
        np.inf,
    ),
    (_PA, _EX, 1, np.inf),
    (_PA, _GA, 1, np.inf),
    (_PA, (Normal, (2.0, 1.5), _S.norm, (2.0, 1.5)), 1, np.inf),
    (_UN, _BE, 0.2, 0.7),
    (_UN, _EX, 0.2, 0.7),
    (_UN, _GA, 0.2, 0.7),
    (_UN, _GU, 0.2, 0.7),
    (_UN, _N, 0.2, 0.7),
    (
        (Uniform, (1.2, 1.7), _S.uniform, (1.2, 0.5)),
        (Pareto, (1.0, 2.5), _S.pareto, (2.5,)),
        1.2,
        1.7,
    ),
    (
        (Cauchy, (0.5, 1.5), _S.cauchy, (0.5, 1.5)),
        (Cauchy, (-1.0, 0.7), _S.cauchy, (-1.0, 0.7)),
        -np.inf,
        np.inf,
    ),
]


def _build(spec):
    ours, args, ref, ref_args = spec[:4]
    kw = spec[4] if len(spec) > 4 else {}
    return ours(*[t64(a) for a in args]), ref(*ref_args, **kw)


@pytest.mark.parametrize("case", _KL_CASES, ids=lambda c: f"{c[0][0].__name__}-{c[1][0].__name__}")
def test_kl_cross_against_quadrature(case):
    # the closed forms are PyTorch's (torch/distributions/kl.py); checked by quadrature
    (p, sp), (q, sq) = _build(case[0]), _build(case[1])
    expected = _kl_numeric(sp.logpdf, sq.logpdf, case[2], case[3])
    np.testing.assert_allclose(float(kl_divergence(p, q)), expected, rtol=1e-5, atol=1e-7)


def test_kl_continuous_bernoulli_pairs():
    cb = ContinuousBernoulli(t64(0.3))

    def cb_logpdf(x):
        return float(cb.log_prob(t64(x)))

    pairs = [
        (cb, Exponential(t64(1.5)), scipy.stats.expon(scale=1 / 1.5).logpdf),
        (cb, Normal(t64(0.3), t64(0.7)), scipy.stats.norm(0.3, 0.7).logpdf),
        (cb, Uniform(t64(-0.5), t64(1.5)), scipy.stats.uniform(-0.5, 2.0).logpdf),
        (cb, Uniform(t64(0.0), t64(1.0)), scipy.stats.uniform(0.0, 1.0).logpdf),
    ]
    for p, q, qlog in pairs:
        np.testing.assert_allclose(
            float(kl_divergence(p, q)), _kl_numeric(cb_logpdf, qlog, 0, 1), rtol=1e-6
        )
    # the reverse pairs: q = ContinuousBernoulli
    beta = scipy.stats.beta(2, 3)
    np.testing.assert_allclose(
        float(kl_divergence(Beta(t64(2.0), t64(3.0)), cb)),
        _kl_numeric(beta.logpdf, cb_logpdf, 0, 1),
        rtol=1e-6,
    )
    u = scipy.stats.uniform(0.2, 0.5)
    np.testing.assert_allclose(
        float(kl_divergence(Uniform(t64(0.2), t64(0.7)), cb)),
        _kl_numeric(u.logpdf, cb_logpdf, 0.2, 0.7),
        rtol=1e-6,
    )
    # Uniform(0, 1) lies inside [0, 1]: finite (PyTorch's >= / <= mask would give inf)
    assert math.isfinite(float(kl_divergence(Uniform(t64(0.0), t64(1.0)), cb)))
    assert math.isinf(float(kl_divergence(Uniform(t64(-0.1), t64(1.0)), cb)))
    assert math.isinf(float(kl_divergence(cb, Uniform(t64(0.1), t64(1.0)))))


def test_kl_infinite_pairs_and_masks():
    n = Normal(t64([0.0, 1.0]), t64([1.0, 2.0]))
    for q in [
        Exponential(t64(1.0)),
        Gamma(t64(1.0), t64(1.0)),
        Uniform(t64(0.0), t64(1.0)),
        Beta(t64(1.0), t64(2.0)),
    ]:
        kl = kl_divergence(n, q)
        assert tuple(kl.shape) == (2,) and bool(torch.isinf(kl).all())
    assert math.isinf(float(kl_divergence(Poisson(t64(2.0)), Binomial(5, t64(0.3)))))
    assert math.isinf(float(kl_divergence(Pareto(t64(1.0), t64(0.9)), Exponential(t64(1.0)))))
    assert math.isinf(float(kl_divergence(Uniform(t64(-1.0), t64(1.0)), Exponential(t64(1.0)))))
    assert math.isinf(float(kl_divergence(Beta(t64(2.0), t64(2.0)), Uniform(t64(0.1), t64(1.0)))))


def test_kl_binomial_and_bernoulli_poisson():
    p, q = Binomial(6, t64(0.3)), Binomial(6, t64(0.6))
    k = np.arange(7)
    sp, sq = scipy.stats.binom(6, 0.3), scipy.stats.binom(6, 0.6)
    expected = (sp.pmf(k) * (sp.logpmf(k) - sq.logpmf(k))).sum()
    np.testing.assert_allclose(float(kl_divergence(p, q)), expected, rtol=1e-10)
    assert math.isinf(float(kl_divergence(Binomial(7, t64(0.3)), q)))
    with pytest.raises(NotImplementedError, match="total_count"):
        kl_divergence(Binomial(5, t64(0.3)), q)
    from ferrograd.distributions import Bernoulli

    b, po = Bernoulli(t64(0.3)), Poisson(t64(0.8))
    expected = 0.7 * (math.log(0.7) - scipy.stats.poisson(0.8).logpmf(0)) + 0.3 * (
        math.log(0.3) - scipy.stats.poisson(0.8).logpmf(1)
    )
    np.testing.assert_allclose(float(kl_divergence(b, po)), expected, rtol=1e-10)


def test_kl_cross_gradient():
    loc = t64(0.3).requires_grad_()
    scale = t64(0.9).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda a, b: kl_divergence(Gamma(t64(2.0), t64(1.5)), Normal(a, b)), (loc, scale)
    )
    assert torch.autograd.gradcheck(
        lambda a, b: kl_divergence(Normal(a, b), Laplace(t64(0.1), t64(1.1))), (loc, scale)
    )


def test_kl_exponential_family_bregman():
    # the Bregman divergence of the log-normalizer matches the closed form (same family),
    # and different families are refused as in PyTorch
    from ferrograd.distributions.kl_cross import _kl_expfamily_expfamily

    p, q = Gamma(t64(2.0), t64(3.0)), Gamma(t64(1.5), t64(0.5))
    np.testing.assert_allclose(
        float(_kl_expfamily_expfamily(p, q)), float(kl_divergence(p, q)), rtol=1e-10
    )
    from ferrograd.distributions import Bernoulli, Geometric

    with pytest.raises(NotImplementedError):
        kl_divergence(Bernoulli(t64(0.3)), Geometric(t64(0.3)))


def test_every_transform_is_exported_from_the_package():
    """``torch.distributions`` re-exports each transform; the package lists them by name
    (for type checkers), so a transform added to ``transforms.__all__`` must be listed too."""
    import ferrograd.distributions as D
    from ferrograd.distributions import transforms as T

    assert set(T.__all__) <= set(D.__all__)
    assert all(getattr(D, n) is getattr(T, n) for n in T.__all__)
