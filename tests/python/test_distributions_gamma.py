"""ferrograd.distributions Gamma, Chi2, Beta, Dirichlet, StudentT: log_prob / entropy /
mean / variance against scipy.stats, gradients of log_prob and entropy (gradcheck),
samples (reproducible with manual_seed, Kolmogorov-Smirnov against scipy's CDF with a
fixed seed), KL divergences against numerical integration, and Paddle's spellings."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

stats = pytest.importorskip("scipy.stats")
integrate = pytest.importorskip("scipy.integrate")
D = fg.distributions


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


A = np.array([0.4, 1.0, 2.5, 7.0])
R = np.array([0.5, 2.0, 1.0, 3.0])


def test_gamma_matches_scipy():
    d = D.Gamma(t64(A), t64(R))
    ref = stats.gamma(A, scale=1 / R)
    x = np.array([0.3, 1.2, 2.0, 0.05])
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-14)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-14)
    np.testing.assert_allclose(d.mode.numpy(), np.maximum((A - 1) / R, 0), rtol=1e-14)


def test_chi2_matches_scipy():
    df = np.array([0.7, 1.0, 3.0, 12.0])
    d = D.Chi2(t64(df))
    ref = stats.chi2(df)
    x = np.array([0.2, 1.0, 2.5, 14.0])
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), df, rtol=1e-14)
    np.testing.assert_allclose(d.variance.numpy(), 2 * df, rtol=1e-14)
    np.testing.assert_allclose(d.df.numpy(), df)


def test_beta_matches_scipy():
    a, b = np.array([0.5, 2.0, 3.5]), np.array([0.7, 2.0, 1.2])
    d = D.Beta(t64(a), t64(b))
    ref = stats.beta(a, b)
    x = np.array([0.1, 0.5, 0.93])
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-11)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-14)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-13)


def test_dirichlet_matches_scipy():
    c = np.array([[0.8, 1.5, 3.0], [2.0, 2.0, 5.0]])
    d = D.Dirichlet(t64(c))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    lp = d.log_prob(t64(x)).numpy()
    for i in range(2):
        ref = stats.dirichlet(c[i])
        np.testing.assert_allclose(lp[i], ref.logpdf(x[i]), rtol=1e-12)
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy(), rtol=1e-12)
        np.testing.assert_allclose(d.mean.numpy()[i], ref.mean(), rtol=1e-14)
        np.testing.assert_allclose(d.variance.numpy()[i], ref.var(), rtol=1e-13)


def test_studentt_matches_scipy():
    df, loc, scale = (
        np.array([0.8, 1.5, 3.0, 30.0]),
        np.array([0.0, 1.0, -2.0, 0.5]),
        np.array([1.0, 0.5, 2.0, 3.0]),
    )
    d = D.StudentT(t64(df), t64(loc), t64(scale))
    ref = stats.t(df, loc, scale)
    x = np.array([0.3, -1.0, 4.0, 0.0])
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-11)
    mean = d.mean.numpy()
    assert np.isnan(mean[0]) and np.allclose(mean[1:], loc[1:])
    var = d.variance.numpy()
    assert np.isnan(var[0]) and var[1] == np.inf
    np.testing.assert_allclose(var[2:], ref.var()[2:], rtol=1e-14)
    np.testing.assert_allclose(D.StudentT(3.0).log_prob(t64(0.5)).item(), stats.t(3.0).logpdf(0.5))


def test_log_prob_and_entropy_gradcheck():
    a, r = t64([0.6, 2.5], True), t64([1.5, 0.7], True)
    x = t64([0.4, 2.2])
    assert gradcheck(lambda a, r: D.Gamma(a, r).log_prob(x), (a, r))
    assert gradcheck(lambda a, r: D.Gamma(a, r).entropy(), (a, r))
    assert gradcheck(lambda a: D.Chi2(a).log_prob(x), (a,))
    u = t64([0.3, 0.8])
    assert gradcheck(lambda a, b: D.Beta(a, b).log_prob(u), (a, r))
    assert gradcheck(lambda a, b: D.Beta(a, b).entropy(), (a, r))
    c = t64([[0.8, 1.5, 3.0]], True)
    v = t64([[0.2, 0.3, 0.5]])
    assert gradcheck(lambda c: D.Dirichlet(c).log_prob(v), (c,))
    assert gradcheck(lambda c: D.Dirichlet(c).entropy(), (c,))
    df, loc, sc = t64([1.5, 4.0], True), t64([0.2, -1.0], True), t64([0.8, 2.0], True)
    assert gradcheck(lambda df, m, s: D.StudentT(df, m, s).log_prob(x), (df, loc, sc))
    assert gradcheck(lambda df, m, s: D.StudentT(df, m, s).entropy(), (df, loc, sc))


def test_samples_follow_the_distribution_and_reproduce():
    cases = [
        (D.Gamma(t64(0.3), t64(2.0)), stats.gamma(0.3, scale=0.5).cdf),
        (D.Gamma(t64(4.5), t64(0.5)), stats.gamma(4.5, scale=2.0).cdf),
        (D.Chi2(t64(3.0)), stats.chi2(3.0).cdf),
        (D.Beta(t64(0.5), t64(2.5)), stats.beta(0.5, 2.5).cdf),
        (D.StudentT(t64(2.5), t64(1.0), t64(2.0)), stats.t(2.5, 1.0, 2.0).cdf),
    ]
    for d, cdf in cases:
        fg.manual_seed(7)
        s = d.sample((4000,))
        fg.manual_seed(7)
        again = d.sample((4000,))
        assert s.shape == (4000,) and s.dtype == fg.float64
        np.testing.assert_array_equal(s.numpy(), again.numpy())
        # a fixed seed: deterministic; a wrong sampler gives p-values far below this
        assert stats.kstest(s.numpy(), cdf).pvalue > 1e-3, type(d).__name__
    fg.manual_seed(3)
    ds = D.Dirichlet(t64([0.5, 1.0, 3.0])).sample((20000,)).numpy()
    assert ds.shape == (20000, 3)
    np.testing.assert_allclose(ds.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(ds.mean(0), np.array([0.5, 1.0, 3.0]) / 4.5, atol=0.005)
    np.testing.assert_allclose(ds.var(0), stats.dirichlet([0.5, 1.0, 3.0]).var(), rtol=0.05)


def test_sample_shapes_float32_and_rsample():
    d = D.Gamma(fg.tensor([1.0, 2.0]), fg.tensor(1.0))
    s = d.sample([3])
    assert s.shape == (3, 2) and s.dtype == fg.float32 and bool((s > 0).all())
    assert not s.requires_grad
    assert D.Dirichlet(fg.tensor([[1.0, 2.0]] * 4)).sample((5,)).shape == (5, 4, 2)
    for dist in (d, D.Beta(1.0, 2.0), D.Dirichlet(fg.tensor([1.0, 2.0])), D.StudentT(3.0)):
        assert dist.has_rsample
        assert dist.rsample((2,)).shape == (2,) + tuple(dist.batch_shape + dist.event_shape)


def test_validation_names_the_parameter():
    with pytest.raises(ValueError, match="concentration"):
        D.Gamma(t64(-1.0), t64(1.0))
    with pytest.raises(ValueError, match="rate"):
        D.Gamma(t64(1.0), t64(0.0))
    with pytest.raises(ValueError, match="df"):
        D.StudentT(t64(0.0))
    with pytest.raises(ValueError, match="support"):
        D.Beta(2.0, 2.0).log_prob(t64(1.5))
    with pytest.raises(ValueError, match="concentration"):
        D.Dirichlet(t64([1.0, -2.0]))


def _kl_quad(p, q, lo, hi):
    def f(x):
        return np.exp(p.logpdf(x)) * (p.logpdf(x) - q.logpdf(x))

    return integrate.quad(f, lo, hi, limit=200, epsabs=1e-13, epsrel=1e-11)[0]


def test_kl_divergences_match_numerical_integration():
    kl = D.kl_divergence(D.Gamma(t64(2.5), t64(1.5)), D.Gamma(t64(1.2), t64(0.8)))
    want = _kl_quad(stats.gamma(2.5, scale=1 / 1.5), stats.gamma(1.2, scale=1 / 0.8), 0, np.inf)
    np.testing.assert_allclose(kl.item(), want, rtol=1e-8)
    kl = D.kl_divergence(D.Beta(t64(2.5), t64(1.5)), D.Beta(t64(1.2), t64(3.0)))
    want = _kl_quad(stats.beta(2.5, 1.5), stats.beta(1.2, 3.0), 0, 1)
    np.testing.assert_allclose(kl.item(), want, rtol=1e-8)
    # a 2-category Dirichlet is a Beta over the first coordinate
    kl = D.kl_divergence(D.Dirichlet(t64([2.5, 1.5])), D.Dirichlet(t64([1.2, 3.0])))
    np.testing.assert_allclose(kl.item(), want, rtol=1e-8)
    p, q = t64([2.5, 0.7], True), t64([1.2, 3.0], True)
    assert gradcheck(lambda p, q: D.kl_divergence(D.Dirichlet(p), D.Dirichlet(q)), (p, q))
    assert gradcheck(lambda p, q: D.kl_divergence(D.Gamma(p, q), D.Gamma(q, p)), (p, q))


def test_paddle_spellings():
    P = fg.distribution
    b = P.Beta(alpha=t64(2.0), beta=t64(3.0))
    np.testing.assert_allclose(
        b.log_prob(t64(0.4)).item(), stats.beta(2, 3).logpdf(0.4), rtol=1e-12
    )
    assert b.alpha.item() == 2.0 and b.beta.item() == 3.0
    np.testing.assert_allclose(
        P.Gamma(t64(2.0), t64(3.0)).prob(t64(0.5)).item(), stats.gamma(2, scale=1 / 3).pdf(0.5)
    )
    np.testing.assert_allclose(P.Chi2(t64(4.0)).entropy().item(), stats.chi2(4).entropy())
    np.testing.assert_allclose(
        P.StudentT(t64(5.0), t64(0.0), t64(1.0)).log_prob(t64(1.0)).item(), stats.t(5).logpdf(1.0)
    )
    kl = P.Dirichlet(t64([1.0, 2.0])).kl_divergence(P.Dirichlet(t64([2.0, 2.0])))
    assert kl.shape == () and kl.item() > 0
    assert list(P.Gamma(t64([1.0, 2.0]), t64(1.0)).sample([3]).shape) == [3, 2]
