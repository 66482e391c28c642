"""ferrograd.distributions.transforms, TransformedDistribution, and the distributions
PyTorch builds on them (Gumbel, Weibull, Pareto, HalfNormal, HalfCauchy): round trips
and log-determinants against finite differences, densities / CDFs / quantiles /
moments / entropies against scipy.stats, sample moments with a fixed seed, gradients
(gradcheck), reparameterised sampling, KL pairs against numerical integration, and
Paddle's ``paddle.distribution.transform`` spellings."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

stats = pytest.importorskip("scipy.stats")
integrate = pytest.importorskip("scipy.integrate")
D = fg.distributions
T = D.transforms


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


SCALAR_TRANSFORMS = [
    (T.ExpTransform(), [-1.5, 0.2, 2.0]),
    (T.AffineTransform(1.0, -2.5), [-1.5, 0.2, 2.0]),
    (T.AffineTransform(t64([0.5, 1.0, -1.0]), t64([2.0, 0.3, 1.5])), [-1.5, 0.2, 2.0]),
    (T.SigmoidTransform(), [-3.0, 0.2, 2.0]),
    (T.TanhTransform(), [-1.5, 0.2, 2.0]),
    (T.PowerTransform(2.5), [0.3, 1.2, 2.0]),
    (T.PowerTransform(t64([0.5, -1.0, 3.0])), [0.3, 1.2, 2.0]),
    (T.ExpTransform().inv, [0.3, 1.2, 2.0]),
    (T.SoftplusTransform(), [-30.0, 0.2, 40.0]),
    (T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.5, 2.0)]), [-1.5, 0.2, 2.0]),
]


@pytest.mark.parametrize("t, xs", SCALAR_TRANSFORMS, ids=lambda v: repr(v)[:30])
def test_scalar_transform_roundtrip_and_jacobian(t, xs):
    x = t64(xs)
    y = t(x)
    np.testing.assert_allclose(t.inv(y).numpy(), xs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t.inverse(y).numpy(), xs, rtol=1e-10, atol=1e-12)
    h = 1e-6
    dy = (t(t64(np.array(xs) + h)).numpy() - t(t64(np.array(xs) - h)).numpy()) / (2 * h)
    lad = t.log_abs_det_jacobian(x, y).numpy()
    np.testing.assert_allclose(lad, np.log(np.abs(dy)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(), lad, rtol=1e-12)
    np.testing.assert_allclose(t.inverse_log_det_jacobian(y).numpy(), -lad, rtol=1e-12)
    assert t.forward(x).shape == x.shape


def test_stick_breaking_and_softmax():
    t = T.StickBreakingTransform()
    x = t64([[0.3, -1.0, 2.0], [0.0, 0.0, 0.0]])
    y = t(x)
    assert y.shape == (2, 4) and t.forward_shape((2, 3)) == (2, 4)
    np.testing.assert_allclose(y.numpy().sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(y.numpy()[1], 0.25, rtol=1e-12)  # zero maps to the centre
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), atol=1e-10)
    # the Jacobian of x -> y[:-1] (triangular) against finite differences
    x0 = np.array([0.3, -1.0, 2.0])
    jac = np.zeros((3, 3))
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1e-6
        jac[:, j] = (t(t64(x0 + e)).numpy()[:3] - t(t64(x0 - e)).numpy()[:3]) / 2e-6
    lad = t.log_abs_det_jacobian(t64(x0), t(t64(x0))).item()
    assert lad == pytest.approx(np.log(abs(np.linalg.det(jac))), rel=1e-6)
    s = T.SoftmaxTransform()
    np.testing.assert_allclose(s(x).numpy().sum(-1), 1.0, rtol=1e-12)
    assert s.domain.event_dim == 1 and s.codomain is D.constraints.simplex


def test_transformed_lognormal_matches_lognormal():
    loc, scale = t64([0.2, -1.0], grad=True), t64([0.7, 1.5], grad=True)
    td = D.TransformedDistribution(D.Normal(loc, scale), [T.ExpTransform()])
    ln = D.LogNormal(loc, scale)
    x = t64([0.5, 2.5])
    np.testing.assert_allclose(td.log_prob(x).numpy(), ln.log_prob(x).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(td.cdf(x).numpy(), ln.cdf(x).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        td.icdf(t64([0.3, 0.9])).detach().numpy(),
        stats.lognorm(s=[0.7, 1.5], scale=np.exp([0.2, -1.0])).ppf([0.3, 0.9]),
        rtol=1e-6,
    )
    assert td.has_rsample and td.batch_shape == (2,) and td.event_shape == ()
    fg.manual_seed(0)
    s = td.rsample((4000,))
    assert bool((s > 0).all())
    s.mean().backward()
    # d E[X] / d loc = E[X] = exp(loc + scale^2 / 2)
    np.testing.assert_allclose(loc.grad.numpy(), np.exp([0.2 + 0.245, -1 + 1.125]) / 2, rtol=0.1)
    e = td.expand([3, 2])
    assert e.batch_shape == (3, 2) and e.sample().shape == (3, 2)
    assert D.TransformedDistribution(D.Normal(0.0, 1.0), T.ExpTransform()).support is not None


def test_transformed_event_dims():
    base = D.Normal(t64(np.zeros((2, 3))), t64(np.ones((2, 3))))
    td = D.TransformedDistribution(base, [T.StickBreakingTransform()])
    assert td.batch_shape == (2,) and td.event_shape == (4,)
    y = td.sample((5,))
    assert y.shape == (5, 2, 4)
    assert td.log_prob(y).shape == (5, 2)
    ind = D.TransformedDistribution(D.Independent(base, 1), [T.ExpTransform()])
    assert ind.batch_shape == (2,) and ind.event_shape == (3,)
    v = t64(np.full((2, 3), 2.0))
    expect = stats.lognorm(s=1.0).logpdf(2.0) * 3
    np.testing.assert_allclose(ind.log_prob(v).numpy(), [expect, expect], rtol=1e-12)
    with pytest.raises(TypeError):
        D.TransformedDistribution(base, ["exp"])
    with pytest.raises(TypeError):
        D.TransformedDistribution(1.0, [T.ExpTransform()])


def _check_scalar(d, ref, xs, qs=(0.1, 0.5, 0.93), entropy=True, icdf=True):
    x = t64(xs)
    np.testing.assert_allclose(d.log_prob(x).numpy(), ref.logpdf(xs), rtol=1e-10)
    np.testing.assert_allclose(d.cdf(x).numpy(), ref.cdf(xs), rtol=1e-10)
    if icdf:
        q = np.array(qs)[: len(xs)]
        np.testing.assert_allclose(d.icdf(t64(q)).numpy(), ref.ppf(q), rtol=1e-8)
    if entropy:
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)


def test_gumbel_matches_scipy():
    loc, scale = np.array([0.5, -1.0, 2.0]), np.array([2.0, 0.7, 1.0])
    d = D.Gumbel(t64(loc), t64(scale))
    ref = stats.gumbel_r(loc, scale)
    _check_scalar(d, ref, [0.3, 1.5, -0.4])
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-12)
    np.testing.assert_allclose(d.stddev.numpy(), ref.std(), rtol=1e-12)
    np.testing.assert_allclose(d.mode.numpy(), loc)
    assert isinstance(d, D.TransformedDistribution) and d.support is D.constraints.real


def test_weibull_matches_scipy():
    scale, k = np.array([1.5, 0.7, 2.0]), np.array([2.0, 0.6, 1.0])
    d = D.Weibull(t64(scale), t64(k))
    ref = stats.weibull_min(k, scale=scale)
    _check_scalar(d, ref, [0.3, 1.5, 2.4])
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    np.testing.assert_allclose(d.mode.numpy()[0], 1.5 * math.sqrt(0.5), rtol=1e-12)
    assert d.concentration is not None and d.scale is not None


def test_pareto_matches_scipy():
    scale, alpha = np.array([1.0, 0.5, 2.0]), np.array([2.5, 0.8, 4.5])
    d = D.Pareto(t64(scale), t64(alpha))
    ref = stats.pareto(alpha, scale=scale)
    _check_scalar(d, ref, [1.3, 2.5, 2.1])
    np.testing.assert_allclose(d.mean.numpy(), [2.5 / 1.5, np.inf, 4.5 * 2 / 3.5], rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy()[[0, 2]], ref.var()[[0, 2]], rtol=1e-12)
    assert np.isinf(d.variance.numpy()[1])
    with pytest.raises(ValueError, match="support"):
        d.log_prob(t64([0.5, 1.0, 3.0]))


def test_half_normal_and_cauchy_match_scipy():
    scale = np.array([1.5, 0.7])
    hn = D.HalfNormal(t64(scale))
    _check_scalar(hn, stats.halfnorm(scale=scale), [0.3, 1.5])
    np.testing.assert_allclose(hn.mean.numpy(), stats.halfnorm(scale=scale).mean(), rtol=1e-12)
    np.testing.assert_allclose(hn.variance.numpy(), stats.halfnorm(scale=scale).var(), rtol=1e-12)
    hc = D.HalfCauchy(t64(scale))
    _check_scalar(hc, stats.halfcauchy(scale=scale), [0.3, 1.5])
    assert np.isinf(hc.mean.numpy()).all() and (hc.mode.numpy() == 0).all()
    off = D.HalfNormal(t64(1.0), validate_args=False).log_prob(t64(-1.0))
    assert off.item() == -math.inf
    with pytest.raises(ValueError):
        hn.log_prob(t64([-1.0, 1.0]))


@pytest.mark.parametrize(
    "make, ref",
    [
        (lambda: D.Gumbel(t64(1.0), t64(2.0)), stats.gumbel_r(1.0, 2.0)),
        (lambda: D.Weibull(t64(1.5), t64(2.0)), stats.weibull_min(2.0, scale=1.5)),
        (lambda: D.Pareto(t64(1.0), t64(5.0)), stats.pareto(5.0)),
        (lambda: D.HalfNormal(t64(1.5)), stats.halfnorm(scale=1.5)),
    ],
    ids=["gumbel", "weibull", "pareto", "halfnormal"],
)
def test_sample_moments(make, ref):
    fg.manual_seed(1)
    s = make().sample((20000,)).numpy()
    assert s.shape == (20000,)
    assert abs(s.mean() - ref.mean()) < 5 * ref.std() / math.sqrt(20000)
    assert stats.kstest(s, ref.cdf).pvalue > 1e-3


def test_log_prob_gradcheck():
    x = t64([0.4, 1.7])
    p1, p2 = t64([0.5, 1.0], grad=True), t64([1.2, 2.0], grad=True)
    assert gradcheck(lambda a, b: D.Gumbel(a, b).log_prob(x), (p1, p2))
    assert gradcheck(lambda a, b: D.Weibull(b, a + 0.5).log_prob(x), (p1, p2))
    assert gradcheck(lambda a, b: D.Pareto(a * 0.5, b).log_prob(x + 1), (p1, p2))
    assert gradcheck(lambda b: D.HalfNormal(b).log_prob(x), (p2,))
    assert gradcheck(lambda b: D.HalfCauchy(b).entropy(), (p2,))
    assert gradcheck(lambda a, b: D.Gumbel(a, b).entropy(), (p1, p2))


def test_rsample_gradients():
    # d E[X] / d scale for Gumbel(0, s): euler_gamma; Weibull(s, 2): Gamma(1.5)
    fg.manual_seed(2)
    scale = t64(2.0, grad=True)
    D.Gumbel(t64(0.0), scale).rsample((40000,)).mean().backward()
    assert scale.grad.item() == pytest.approx(0.5772156649, rel=0.05)
    scale = t64(1.5, grad=True)
    D.Weibull(scale, t64(2.0)).rsample((40000,)).mean().backward()
    assert scale.grad.item() == pytest.approx(math.gamma(1.5), rel=0.03)
    scale = t64(1.5, grad=True)
    D.HalfNormal(scale).rsample((40000,)).mean().backward()
    assert scale.grad.item() == pytest.approx(math.sqrt(2 / math.pi), rel=0.03)


def test_expand_keeps_the_family():
    for d in (D.Gumbel(0.0, 1.0), D.Weibull(1.0, 2.0), D.Pareto(1.0, 2.0), D.HalfNormal(1.0)):
        e = d.expand([3])
        assert type(e) is type(d) and e.batch_shape == (3,) and e.sample((2,)).shape == (2, 3)


def _kl_numeric(p, q, lo, hi):
    f = lambda x: math.exp(p(x)) * (p(x) - q(x))  # noqa: E731
    return integrate.quad(f, lo, hi, limit=200)[0]


def test_kl_pairs_match_integration():
    lp = lambda d: lambda x: d.log_prob(t64(x)).item()  # noqa: E731
    p, q = D.Gumbel(t64(0.3), t64(1.2)), D.Gumbel(t64(-0.5), t64(2.0))
    assert D.kl_divergence(p, q).item() == pytest.approx(
        _kl_numeric(lp(p), lp(q), -15, 40), rel=1e-6
    )
    p, q = D.HalfNormal(t64(1.2)), D.HalfNormal(t64(0.7))
    assert D.kl_divergence(p, q).item() == pytest.approx(_kl_numeric(lp(p), lp(q), 0, 20), rel=1e-6)
    p, q = D.Pareto(t64(2.0), t64(3.0)), D.Pareto(t64(1.5), t64(2.0))
    assert D.kl_divergence(p, q).item() == pytest.approx(
        _kl_numeric(lp(p), lp(q), 2.0, np.inf), rel=1e-6
    )
    assert math.isinf(D.kl_divergence(q, p).item())
    a = D.TransformedDistribution(D.Normal(t64(0.0), t64(1.0)), [T.ExpTransform()])
    b = D.TransformedDistribution(D.Normal(t64(1.0), t64(2.0)), [T.ExpTransform()])
    assert D.kl_divergence(a, b).item() == pytest.approx(
        D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)).item(), rel=1e-7
    )
    c = D.TransformedDistribution(D.Normal(t64(0.0), t64(1.0)), [T.SigmoidTransform()])
    with pytest.raises(NotImplementedError):
        D.kl_divergence(a, c)


def test_validation():
    with pytest.raises(ValueError, match="scale"):
        D.Gumbel(0.0, -1.0)
    with pytest.raises(ValueError, match="concentration"):
        D.Weibull(1.0, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        D.Pareto(1.0, -2.0)
    with pytest.raises(ValueError, match="scale"):
        D.HalfCauchy(-1.0)
    with pytest.raises(ValueError):
        T.ExpTransform(cache_size=2)
    for d in (D.Gumbel(0.0, 1.0), D.Gamma(2.0, 1.0), D.VonMises(0.0, 1.0), D.Kumaraswamy(1.0, 2.0)):
        for shape in ((2**40, 2**40), (2**63 - 1,)):
            with pytest.raises((ValueError, MemoryError)):
                d.sample(shape)


def test_paddle_spellings():
    P = fg.distribution
    g = P.Gumbel(fg.to_tensor([0.5]), fg.to_tensor([2.0]))
    assert isinstance(g, P.TransformedDistribution)
    np.testing.assert_allclose(
        g.prob(fg.to_tensor([1.0])).numpy(), stats.gumbel_r(0.5, 2).pdf(1.0), rtol=1e-6
    )
    t = P.transform.AffineTransform(fg.to_tensor(1.0), fg.to_tensor(2.0))
    x = fg.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(t.forward(x).numpy(), [3.0, 5.0])
    np.testing.assert_allclose(t.inverse(fg.to_tensor([3.0])).numpy(), [1.0])
    np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(), [math.log(2)] * 2, rtol=1e-6)
    chain = P.ChainTransform([P.ExpTransform(), P.PowerTransform(fg.to_tensor(2.0))])
    np.testing.assert_allclose(chain.forward(fg.to_tensor([0.5])).numpy(), [math.e], rtol=1e-6)
    td = P.TransformedDistribution(P.Normal(0.0, 1.0), [P.ExpTransform()])
    assert td.log_prob(fg.to_tensor(1.0)).item() == pytest.approx(
        stats.lognorm(1.0).logpdf(1.0), rel=1e-6
    )
    assert P.IndependentTransform(P.ExpTransform(), 1).domain.event_dim == 1
    ind = P.IndependentTransform(P.ExpTransform(), reinterpreted_batch_rank=1)
    lad = ind.forward_log_det_jacobian(fg.to_tensor([[1.0, 2.0]]))
    np.testing.assert_allclose(lad.numpy(), [3.0])
    r = P.ReshapeTransform(in_event_shape=[2, 2], out_event_shape=[4])
    assert list(r.forward(fg.ones([3, 2, 2])).shape) == [3, 4]


def test_reshape_transform():
    t = T.ReshapeTransform((2, 3), (6,))
    x = t64(np.arange(12.0).reshape(2, 2, 3))
    y = t(x)
    assert y.shape == (2, 6) and t.inv(y).shape == (2, 2, 3)
    assert t.log_abs_det_jacobian(x, y).shape == (2,)
    assert t.forward_shape((5, 2, 3)) == (5, 6) and t.inverse_shape((6,)) == (2, 3)
    assert fg.distribution.ReshapeTransform([2, 3], [3, 2]).out_event_shape == (3, 2)
    with pytest.raises(ValueError, match="elements"):
        T.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ValueError):
        t(t64(np.zeros((2, 4))))


def test_biject_to_and_transform_to():
    C = D.constraints
    fg.manual_seed(0)
    x = fg.randn(4, 3, dtype=fg.float64) * 3
    cases = [
        C.real, C.positive, C.nonnegative, C.greater_than(2.0), C.unit_interval,
        C.interval(-1.0, 3.0), C.half_open_interval(0.0, 2.0), C.simplex, C.real_vector,
        C.independent(C.positive, 1),
    ]  # fmt: skip
    for c in cases:
        for registry in (D.biject_to, D.transform_to):
            t = registry(c)
            y = t(x)
            assert bool(c.check(y).all()), (c, t)
            if registry is D.biject_to:
                np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), atol=1e-9)
    assert isinstance(D.transform_to(C.simplex), T.SoftmaxTransform)
    assert isinstance(D.biject_to(C.simplex), T.StickBreakingTransform)
    with pytest.raises(NotImplementedError):
        D.biject_to(C.nonnegative_integer)
    with pytest.raises(NotImplementedError):
        D.biject_to(C.lower_cholesky)
    with pytest.raises(TypeError):
        D.biject_to("positive")

    class Shifted(C.Constraint):
        def check(self, value):
            return value > 5

    D.transform_to.register(Shifted, lambda c: T.AffineTransform(6.0, 1.0))
    assert D.transform_to(Shifted())(fg.tensor(0.0)).item() == 6.0
