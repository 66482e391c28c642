"""ContinuousBernoulli, Kumaraswamy, FisherSnedecor, NegativeBinomial, VonMises, the
relaxed Bernoulli / one-hot categorical, LowRankMultivariateNormal and MixtureSameFamily:
densities and moments against scipy.stats or float64 formulas / numerical integration
written here, sample moments with a fixed seed, gradcheck of log_prob, reparameterised
gradients, validation, and the names _missing no longer lists."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

stats = pytest.importorskip("scipy.stats")
integrate = pytest.importorskip("scipy.integrate")
D = fg.distributions


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def quad(f, lo, hi):
    return integrate.quad(f, lo, hi, limit=200, epsabs=1e-13, epsrel=1e-11)[0]


# ---- ContinuousBernoulli --------------------------------------------------------------


def cb_logpdf(p, x):
    norm = 2.0 if abs(p - 0.5) < 1e-12 else 2 * math.atanh(1 - 2 * p) / (1 - 2 * p)
    return math.log(norm) + x * math.log(p) + (1 - x) * math.log(1 - p)


@pytest.mark.parametrize("p", [0.05, 0.3, 0.4995, 0.5, 0.5008, 0.9])
def test_continuous_bernoulli_against_integration(p):
    d = D.ContinuousBernoulli(t64(p))
    xs = [0.1, 0.6, 0.95]
    lp = d.log_prob(t64(xs)).numpy()
    np.testing.assert_allclose(lp, [cb_logpdf(p, x) for x in xs], rtol=1e-6, atol=1e-9)
    dens = lambda x: math.exp(cb_logpdf(p, x))  # noqa: E731
    mean = quad(lambda x: x * dens(x), 0, 1)
    var = quad(lambda x: (x - mean) ** 2 * dens(x), 0, 1)
    ent = -quad(lambda x: dens(x) * cb_logpdf(p, x), 0, 1)
    assert d.mean.item() == pytest.approx(mean, rel=1e-6)
    assert d.variance.item() == pytest.approx(var, rel=1e-5)
    assert d.entropy().item() == pytest.approx(ent, abs=1e-6)
    if 0.499 < p <= 0.501:
        # PyTorch's approximation inside its Taylor window: the uniform CDF
        assert d.cdf(t64(0.6)).item() == 0.6
    else:
        assert d.cdf(t64(0.6)).item() == pytest.approx(quad(dens, 0, 0.6), rel=1e-6)
    q = d.icdf(t64([0.2, 0.7])).numpy()
    np.testing.assert_allclose(d.cdf(t64(q)).numpy(), [0.2, 0.7], rtol=1e-6)


def test_continuous_bernoulli_logits_samples_and_grad():
    d = D.ContinuousBernoulli(logits=t64([-1.0, 2.0]))
    np.testing.assert_allclose(d.probs.numpy(), 1 / (1 + np.exp([1.0, -2.0])), rtol=1e-12)
    fg.manual_seed(0)
    s = d.sample((20000,)).numpy()
    assert ((s >= 0) & (s <= 1)).all()
    np.testing.assert_allclose(s.mean(0), d.mean.numpy(), atol=0.01)
    p = t64([0.2, 0.7], grad=True)
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).log_prob(t64([0.3, 0.9])), (p,))
    assert gradcheck(lambda p: D.ContinuousBernoulli(p).entropy(), (p,))
    # rsample: d E[X] / d p matches the derivative of the mean
    fg.manual_seed(1)
    p = t64(0.3, grad=True)
    D.ContinuousBernoulli(p).rsample((40000,)).mean().backward()
    h = 1e-6
    m = lambda p: D.ContinuousBernoulli(t64(p)).mean.item()  # noqa: E731
    slope = (m(0.3 + h) - m(0.3 - h)) / (2 * h)
    assert p.grad.item() == pytest.approx(slope, rel=0.03)
    # Paddle's spelling, with its wider Taylor window
    pd = fg.distribution.ContinuousBernoulli(fg.to_tensor([0.3, 0.49]))
    assert pd._lims == (0.48, 0.52)
    assert pd.log_prob(fg.to_tensor([0.5, 0.5])).shape == (2,)


# ---- Kumaraswamy ----------------------------------------------------------------------


@pytest.mark.parametrize("a, b", [(0.5, 3.0), (2.0, 0.7), (1.5, 3.0), (4.0, 2.0)])
def test_kumaraswamy_against_integration(a, b):
    d = D.Kumaraswamy(t64(a), t64(b))
    logpdf = lambda x: math.log(a * b) + (a - 1) * math.log(x) + (b - 1) * math.log1p(-(x**a))  # noqa: E731
    xs = [0.1, 0.5, 0.9]
    np.testing.assert_allclose(d.log_prob(t64(xs)).numpy(), [logpdf(x) for x in xs], rtol=1e-10)
    dens = lambda x: math.exp(logpdf(x))  # noqa: E731
    mean = quad(lambda x: x * dens(x), 0, 1)
    var = quad(lambda x: (x - mean) ** 2 * dens(x), 0, 1)
    ent = -quad(lambda x: dens(x) * logpdf(x), 0, 1)
    assert d.mean.item() == pytest.approx(mean, rel=1e-7)
    assert d.variance.item() == pytest.approx(var, rel=1e-6)
    assert d.entropy().item() == pytest.approx(ent, abs=1e-7)
    assert d.cdf(t64(0.5)).item() == pytest.approx(quad(dens, 0, 0.5), rel=1e-7)
    assert d.icdf(d.cdf(t64(0.4))).item() == pytest.approx(0.4, rel=1e-9)
    if a >= 1 and b >= 1:
        assert d.mode.item() == pytest.approx(((a - 1) / (a * b - 1)) ** (1 / a), rel=1e-12)
    else:
        assert math.isnan(d.mode.item())
    fg.manual_seed(2)
    s = d.sample((20000,)).numpy()
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / 20000)
    assert isinstance(d, D.TransformedDistribution) and d.has_rsample


def test_kumaraswamy_gradients():
    a, b = t64([0.7, 2.0], grad=True), t64([1.5, 3.0], grad=True)
    assert gradcheck(lambda a, b: D.Kumaraswamy(a, b).log_prob(t64([0.3, 0.8])), (a, b))
    assert gradcheck(lambda a, b: D.Kumaraswamy(a, b).entropy(), (a, b))
    fg.manual_seed(3)
    a, b = t64(2.0, grad=True), t64(3.0, grad=True)
    D.Kumaraswamy(a, b).rsample((40000,)).mean().backward()
    h = 1e-6
    m = lambda a, b: D.Kumaraswamy(t64(a), t64(b)).mean.item()  # noqa: E731
    da = (m(2 + h, 3.0) - m(2 - h, 3.0)) / (2 * h)
    db = (m(2.0, 3 + h) - m(2.0, 3 - h)) / (2 * h)
    assert a.grad.item() == pytest.approx(da, rel=0.05)
    assert b.grad.item() == pytest.approx(db, rel=0.05)


# ---- FisherSnedecor -------------------------------------------------------------------


def test_fisher_snedecor_matches_scipy():
    d1, d2 = np.array([1.5, 5.0, 9.0]), np.array([3.0, 6.0, 10.0])
    d = D.FisherSnedecor(t64(d1), t64(d2))
    ref = stats.f(d1, d2)
    xs = np.array([0.3, 0.8, 2.0])
    np.testing.assert_allclose(d.log_prob(t64(xs)).numpy(), ref.logpdf(xs), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy()[1:], ref.var()[1:], rtol=1e-12)
    assert math.isnan(d.variance.numpy()[0]) and math.isnan(d.mode.numpy()[0])
    np.testing.assert_allclose(d.mode.numpy()[1:], ((d1 - 2) / d1 * d2 / (d2 + 2))[1:], rtol=1e-12)
    fg.manual_seed(4)
    s = D.FisherSnedecor(t64(6.0), t64(12.0)).sample((20000,)).numpy()
    assert stats.kstest(s, stats.f(6.0, 12.0).cdf).pvalue > 1e-3
    a, b = t64([1.5, 6.0], grad=True), t64([3.0, 7.0], grad=True)
    assert gradcheck(lambda a, b: D.FisherSnedecor(a, b).log_prob(t64([0.4, 1.3])), (a, b))
    # rsample: E[X] = d2 / (d2 - 2) does not depend on d1, and d/d d2 = -2 / (d2 - 2)^2
    fg.manual_seed(5)
    a, b = t64(8.0, grad=True), t64(12.0, grad=True)
    D.FisherSnedecor(a, b).rsample((60000,)).mean().backward()
    assert abs(a.grad.item()) < 0.01
    assert b.grad.item() == pytest.approx(-2 / 100, rel=0.15)


# ---- NegativeBinomial -----------------------------------------------------------------


def test_negative_binomial_matches_scipy():
    n, p = np.array([3.0, 5.5, 1.0]), np.array([0.3, 0.8, 0.5])
    d = D.NegativeBinomial(t64(n), probs=t64(p))
    # PyTorch counts successes (probability p) before n failures: scipy's nbinom(n, 1 - p)
    ref = stats.nbinom(n, 1 - p)
    ks = np.array([0.0, 4.0, 2.0])
    np.testing.assert_allclose(d.log_prob(t64(ks)).numpy(), ref.logpmf(ks), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    np.testing.assert_allclose(d.mode.numpy(), np.floor(np.maximum((n - 1) * p / (1 - p), 0)))
    dl = D.NegativeBinomial(t64(n), logits=t64(np.log(p / (1 - p))))
    np.testing.assert_allclose(dl.log_prob(t64(ks)).numpy(), ref.logpmf(ks), rtol=1e-9)
    fg.manual_seed(6)
    s = D.NegativeBinomial(t64(4.0), probs=t64(0.4)).sample((20000,)).numpy()
    assert (s == np.floor(s)).all() and (s >= 0).all()
    ref = stats.nbinom(4.0, 0.6)
    assert abs(s.mean() - ref.mean()) < 5 * ref.std() / math.sqrt(20000)
    assert abs(s.var() / ref.var() - 1) < 0.06
    tc, pr = t64([3.0, 2.5], grad=True), t64([0.3, 0.6], grad=True)
    assert gradcheck(
        lambda tc, pr: D.NegativeBinomial(tc, probs=pr).log_prob(t64([2.0, 5.0])), (tc, pr)
    )
    assert not d.has_rsample
    with pytest.raises(ValueError):
        d.log_prob(t64([0.5, 1.0, 1.0]))
    with pytest.raises(ValueError, match="total_count"):
        D.NegativeBinomial(t64(-1.0), probs=t64(0.5))
    with pytest.raises(ValueError):
        D.NegativeBinomial(t64(1.0), probs=t64(0.5), logits=t64(0.0))


# ---- VonMises -------------------------------------------------------------------------


def test_von_mises_matches_scipy():
    loc, k = np.array([0.3, -1.0, 2.0, 0.0]), np.array([0.5, 3.0, 40.0, 1e-3])
    d = D.VonMises(t64(loc), t64(k))
    xs = np.array([0.1, -0.5, 3.0, 1.0])
    ref = stats.vonmises(k, loc=loc)
    np.testing.assert_allclose(d.log_prob(t64(xs)).numpy(), ref.logpdf(xs), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-9)
    from scipy import special

    np.testing.assert_allclose(d.variance.numpy(), 1 - special.i1e(k) / special.i0e(k), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), loc)
    for kappa in (0.05, 1.0, 8.0, 200.0):
        fg.manual_seed(7)
        s = D.VonMises(t64(0.5), t64(kappa)).sample((20000,)).numpy()
        assert ((s >= -math.pi) & (s < math.pi)).all()
        # scipy's von Mises lives on [loc - pi, loc + pi): unwrap the draws around loc
        centred = np.mod(s - 0.5 + math.pi, 2 * math.pi) - math.pi
        assert stats.kstest(centred, stats.vonmises(kappa).cdf).pvalue > 1e-3
    kk = t64([0.5, 3.0, 10.0], grad=True)
    ll = t64([0.1, 0.2, 0.3], grad=True)
    assert gradcheck(lambda lc, k: D.VonMises(lc, k).log_prob(t64([0.0, 1.0, -1.0])), (ll, kk))
    assert not d.has_rsample


# ---- relaxed distributions ------------------------------------------------------------


def test_relaxed_bernoulli():
    temp, p = 0.7, 0.3
    d = D.RelaxedBernoulli(t64(temp), probs=t64(p))
    lp = lambda x: d.log_prob(t64(x)).item()  # noqa: E731
    # the density integrates to 1; its log agrees with the change of variables by hand
    assert quad(lambda x: math.exp(lp(x)), 0, 1) == pytest.approx(1.0, rel=1e-6)
    logit = math.log(p / (1 - p))
    x = 0.8
    y = math.log(x / (1 - x))
    diff = logit - y * temp
    base = math.log(temp) + diff - 2 * math.log1p(math.exp(diff))
    assert lp(x) == pytest.approx(base - math.log(x * (1 - x)), rel=1e-10)
    fg.manual_seed(8)
    s = d.sample((20000,)).numpy()
    assert ((s > 0) & (s < 1)).all()
    cold = D.RelaxedBernoulli(t64(0.05), probs=t64(p)).sample((20000,)).numpy()
    assert abs((cold > 0.5).mean() - p) < 0.02
    pr = t64(0.4, grad=True)
    D.RelaxedBernoulli(t64(0.5), probs=pr).rsample((100,)).sum().backward()
    assert pr.grad is not None and pr.grad.item() > 0
    assert gradcheck(
        lambda pr: D.RelaxedBernoulli(t64(0.6), probs=pr).log_prob(t64(0.3)), (t64(0.4, grad=True),)
    )
    assert d.temperature.item() == temp and d.probs.item() == pytest.approx(p)
    with pytest.raises(ValueError, match="temperature"):
        D.RelaxedBernoulli(t64(-1.0), probs=t64(0.5))


def test_relaxed_one_hot_categorical():
    probs = np.array([0.2, 0.5, 0.3])
    d = D.RelaxedOneHotCategorical(t64(0.5), probs=t64(probs))
    assert d.event_shape == (3,) and d.batch_shape == ()
    fg.manual_seed(9)
    s = d.sample((5000,)).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-10)
    cold = D.RelaxedOneHotCategorical(t64(0.02), probs=t64(probs)).sample((20000,)).numpy()
    np.testing.assert_allclose(np.bincount(cold.argmax(-1), minlength=3) / 20000, probs, atol=0.02)
    # the Concrete density (Maddison et al. eq. 8) written out in float64
    t, x = 0.5, np.array([0.1, 0.6, 0.3])
    k = 3
    ref = (
        math.lgamma(k)
        + (k - 1) * math.log(t)
        + np.sum(np.log(probs) - (t + 1) * np.log(x))
        - k * np.log(np.sum(probs * x ** (-t)))
    )
    assert d.log_prob(t64(x)).item() == pytest.approx(ref, rel=1e-9)
    logits = t64([0.1, -0.3, 0.5], grad=True)
    D.RelaxedOneHotCategorical(t64(0.5), logits=logits).rsample((10,))[:, 0].sum().backward()
    assert logits.grad is not None
    e = d.expand([4])
    assert e.batch_shape == (4,) and e.sample().shape == (4, 3)


# ---- LowRankMultivariateNormal --------------------------------------------------------


def test_low_rank_mvn_matches_full_covariance():
    rng = np.random.RandomState(0)
    w, diag, loc = rng.randn(2, 4, 2), rng.rand(2, 4) + 0.5, rng.randn(4)
    d = D.LowRankMultivariateNormal(t64(loc), t64(w), t64(diag))
    assert d.batch_shape == (2,) and d.event_shape == (4,)
    x = rng.randn(3, 2, 4)
    lp = d.log_prob(t64(x)).numpy()
    for b in range(2):
        cov = w[b] @ w[b].T + np.diag(diag[b])
        ref = stats.multivariate_normal(loc, cov)
        np.testing.assert_allclose(lp[:, b], ref.logpdf(x[:, b]), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy()[b], ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy()[b], cov, rtol=1e-12)
        np.testing.assert_allclose(d.precision_matrix.numpy()[b], np.linalg.inv(cov), rtol=1e-9)
        np.testing.assert_allclose(d.scale_tril.numpy()[b], np.linalg.cholesky(cov), rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy()[b], np.diag(cov), rtol=1e-12)
    fg.manual_seed(10)
    s = d.sample((20000,)).numpy()
    np.testing.assert_allclose(np.cov(s[:, 0].T), w[0] @ w[0].T + np.diag(diag[0]), atol=0.12)
    ww, dd = t64(w[0], grad=True), t64(diag[0], grad=True)
    assert gradcheck(
        lambda ww, dd: D.LowRankMultivariateNormal(t64(loc), ww, dd).log_prob(t64(x[0, 0])),
        (ww, dd),
    )
    # rsample: d E[|X|^2] / d diag = 1 for each coordinate
    fg.manual_seed(11)
    dd = t64(diag[0], grad=True)
    D.LowRankMultivariateNormal(t64(loc), t64(w[0]), dd).rsample((20000,)).square().sum(
        -1
    ).mean().backward()
    np.testing.assert_allclose(dd.grad.numpy(), 1.0, atol=0.05)
    with pytest.raises(ValueError, match="cov_diag"):
        D.LowRankMultivariateNormal(t64(loc), t64(w[0]), t64(-diag[0]))
    with pytest.raises(ValueError, match="event size"):
        D.LowRankMultivariateNormal(t64(loc[:3]), t64(w[0]), t64(diag[0]))


# ---- MixtureSameFamily ----------------------------------------------------------------


def test_mixture_same_family_normal():
    w, mu, sd = np.array([0.2, 0.5, 0.3]), np.array([-1.0, 0.5, 2.0]), np.array([0.5, 1.0, 2.0])
    d = D.MixtureSameFamily(D.Categorical(t64(w)), D.Normal(t64(mu), t64(sd)))
    assert d.batch_shape == () and d.event_shape == ()
    xs = np.array([0.3, -2.0, 4.0])
    ref = np.log(np.sum(w * stats.norm(mu, sd).pdf(xs[:, None]), -1))
    np.testing.assert_allclose(d.log_prob(t64(xs)).numpy(), ref, rtol=1e-10)
    np.testing.assert_allclose(
        d.cdf(t64(xs)).numpy(), np.sum(w * stats.norm(mu, sd).cdf(xs[:, None]), -1), rtol=1e-10
    )
    mean = np.sum(w * mu)
    var = np.sum(w * (sd**2 + mu**2)) - mean**2
    assert d.mean.item() == pytest.approx(mean, rel=1e-12)
    assert d.variance.item() == pytest.approx(var, rel=1e-12)
    fg.manual_seed(12)
    s = d.sample((20000,)).numpy()
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / 20000)
    assert abs(s.var() / var - 1) < 0.05
    logits = t64([0.1, 0.3, -0.2], grad=True)
    locs = t64(mu, grad=True)
    assert gradcheck(
        lambda lg, lc: D.MixtureSameFamily(
            D.Categorical(logits=lg), D.Normal(lc, t64(sd))
        ).log_prob(t64(xs)),
        (logits, locs),
    )
    assert not d.has_rsample


def test_mixture_same_family_vector_events_and_errors():
    comp = D.Independent(
        D.Normal(t64(np.arange(12.0).reshape(2, 2, 3)), t64(np.ones((2, 2, 3)))), 1
    )
    d = D.MixtureSameFamily(D.Categorical(t64([[0.25, 0.75], [0.5, 0.5]])), comp)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    assert d.sample((4,)).shape == (4, 2, 3)
    assert d.log_prob(t64(np.zeros((5, 2, 3)))).shape == (5, 2)
    np.testing.assert_allclose(
        d.mean.numpy()[0], 0.25 * np.arange(3.0) + 0.75 * np.arange(3.0, 6.0)
    )
    e = d.expand([4, 2])
    assert e.batch_shape == (4, 2)
    with pytest.raises(ValueError, match="Categorical"):
        D.MixtureSameFamily(D.Normal(0.0, 1.0), comp)
    with pytest.raises(ValueError, match="categories"):
        D.MixtureSameFamily(D.Categorical(t64([[0.2, 0.3, 0.5]] * 2)), comp)


# ---- LogisticNormal -------------------------------------------------------------------


def np_stick_break(x):
    """PyTorch's stick-breaking map R^(K-1) -> K-simplex, in NumPy float64."""
    k = x.shape[-1]
    z = 1 / (1 + np.exp(-(x - np.log(np.arange(k, 0, -1.0)))))
    rest = np.cumprod(1 - z)
    return np.concatenate([z, [1.0]]) * np.concatenate([[1.0], rest])


def test_logistic_normal_change_of_variables():
    loc, scale = np.array([0.3, -0.5, 1.0]), np.array([1.0, 0.5, 2.0])
    d = D.LogisticNormal(t64(loc), t64(scale))
    assert d.batch_shape == () and d.event_shape == (4,)
    x = np.array([0.2, -0.1, 0.7])
    y = np_stick_break(x)
    jac = np.zeros((3, 3))
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1e-6
        jac[:, j] = (np_stick_break(x + e)[:3] - np_stick_break(x - e)[:3]) / 2e-6
    ref = stats.norm(loc, scale).logpdf(x).sum() - np.log(abs(np.linalg.det(jac)))
    assert d.log_prob(t64(y)).item() == pytest.approx(ref, rel=1e-7)
    fg.manual_seed(13)
    s = d.sample((2000,)).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-10)
    assert (s > 0).all()
    lc = t64(loc, grad=True)
    D.LogisticNormal(lc, t64(scale)).rsample((10,))[..., 0].sum().backward()
    assert lc.grad is not None and lc.grad.numpy()[0] > 0
    b = D.LogisticNormal(t64(np.zeros((2, 3))), t64(np.ones((2, 3))))
    assert b.batch_shape == (2,) and b.expand([5, 2]).sample().shape == (5, 2, 4)


def test_low_rank_kl_matches_dense():
    rng = np.random.RandomState(1)
    w, diag, loc = rng.randn(3, 2), rng.rand(3) + 0.5, rng.randn(3)
    w2, diag2 = rng.randn(3, 1), rng.rand(3) + 0.3
    p = D.LowRankMultivariateNormal(t64(loc), t64(w), t64(diag))
    q = D.LowRankMultivariateNormal(t64(np.zeros(3)), t64(w2), t64(diag2))
    c1, c2 = w @ w.T + np.diag(diag), w2 @ w2.T + np.diag(diag2)
    inv2 = np.linalg.inv(c2)
    ref = 0.5 * (
        np.trace(inv2 @ c1) + loc @ inv2 @ loc - 3 + np.log(np.linalg.det(c2) / np.linalg.det(c1))
    )
    assert D.kl_divergence(p, q).item() == pytest.approx(ref, rel=1e-10)
    full = D.MultivariateNormal(t64(loc), covariance_matrix=t64(c1))
    assert D.kl_divergence(full, q).item() == pytest.approx(ref, rel=1e-10)
    assert D.kl_divergence(q, full).item() > 0


# ---- KL, validation, names ------------------------------------------------------------


def test_continuous_bernoulli_kl_matches_integration():
    p, q = D.ContinuousBernoulli(t64(0.2)), D.ContinuousBernoulli(t64(0.7))
    f = lambda x: math.exp(cb_logpdf(0.2, x)) * (cb_logpdf(0.2, x) - cb_logpdf(0.7, x))  # noqa: E731
    assert D.kl_divergence(p, q).item() == pytest.approx(quad(f, 0, 1), rel=1e-6)


def test_validation_of_new_families():
    with pytest.raises(ValueError, match="probs"):
        D.ContinuousBernoulli(t64(1.5))
    with pytest.raises(ValueError, match="concentration"):
        D.Kumaraswamy(t64(-1.0), t64(1.0))
    with pytest.raises(ValueError, match="df2"):
        D.FisherSnedecor(t64(1.0), t64(0.0))
    with pytest.raises(ValueError, match="concentration"):
        D.VonMises(t64(0.0), t64(-2.0))
    with pytest.raises(ValueError):
        D.Kumaraswamy(t64(1.0), t64(1.0)).log_prob(t64(1.5))


NEW = [
    "Gumbel", "HalfNormal", "HalfCauchy", "Weibull", "Pareto", "NegativeBinomial",
    "ContinuousBernoulli", "FisherSnedecor", "Kumaraswamy", "RelaxedBernoulli",
    "RelaxedOneHotCategorical", "VonMises", "LowRankMultivariateNormal",
    "MixtureSameFamily", "TransformedDistribution", "transforms", "LogisticNormal",
    "ExponentialFamily",
]  # fmt: skip


def test_missing_lists_no_longer_name_the_new_families():
    from ferrograd import _missing

    for name in NEW:
        assert name not in _missing.peer_names("ferrograd.distributions")
        assert hasattr(D, name)
    for name in ("Gumbel", "ContinuousBernoulli", "TransformedDistribution", "transform"):
        assert name not in _missing.peer_names("ferrograd.distribution")
        assert hasattr(fg.distribution, name)


def test_exponential_family_bregman_entropy():
    EF = D.ExponentialFamily
    ds = [
        D.Normal(t64([0.3, 1.0]), t64([0.5, 2.0])),
        D.Exponential(t64([0.5, 3.0])),
        D.Gamma(t64([0.5, 3.0]), t64([2.0, 0.7])),
        D.Chi2(t64([3.0, 1.5])),
        D.Beta(t64([0.5, 3.0]), t64([2.0, 0.7])),
        D.Dirichlet(t64([[0.5, 3.0, 1.0], [2.0, 2.0, 2.0]])),
        D.Bernoulli(t64([0.2, 0.7])),
        D.ContinuousBernoulli(t64([0.2, 0.7, 0.5001])),
    ]
    for d in ds:
        assert isinstance(d, EF)
        np.testing.assert_allclose(
            EF.entropy(d).numpy(), d.entropy().numpy(), rtol=1e-9, atol=1e-12
        )
    assert not isinstance(D.Laplace(0.0, 1.0), EF)
    assert fg.distribution.ExponentialFamily is EF
    # the Bregman entropy is differentiable in the parameters
    scale = t64([0.5, 2.0], grad=True)
    EF.entropy(D.Normal(t64([0.0, 0.0]), scale)).sum().backward()
    np.testing.assert_allclose(scale.grad.numpy(), 1 / np.array([0.5, 2.0]), rtol=1e-9)

    class Rayleighish(EF):
        """Exponential(rate) written only through its natural parameter."""

        def __init__(self, rate):
            self.rate = rate
            super().__init__(rate.shape)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -(-x).log()

        _mean_carrier_measure = 0

    np.testing.assert_allclose(
        Rayleighish(t64([2.0])).entropy().numpy(), 1 - np.log(2.0), rtol=1e-12
    )
    with pytest.raises(NotImplementedError):
        EF().entropy()
