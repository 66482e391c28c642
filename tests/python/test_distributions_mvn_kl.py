"""ferrograd.distributions: MultivariateNormal and Independent against scipy / NumPy,
kl_divergence against closed forms computed in NumPy (and register_kl dispatch), and the
Paddle spellings of ferrograd.distribution (Paddle's documented example values)."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
D = fg.distributions

MU = np.array([0.5, -1.0, 2.0])
A = np.array([[1.0, 0.2, 0.0], [0.3, 1.5, 0.1], [-0.2, 0.4, 0.8]])
COV = A @ A.T + 0.5 * np.eye(3)
X = np.array([[0.1, 0.2, 1.0], [1.0, -3.0, 2.5]])


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_matches_scipy_for_each_parameterisation(param):
    given = {
        "covariance_matrix": COV,
        "precision_matrix": np.linalg.inv(COV),
        "scale_tril": np.linalg.cholesky(COV),
    }[param]
    d = D.MultivariateNormal(t64(MU), **{param: t64(given)})
    ref = stats.multivariate_normal(MU, COV)
    assert d.batch_shape == () and d.event_shape == (3,)
    np.testing.assert_allclose(d.log_prob(t64(X)).numpy(), ref.logpdf(X), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.covariance_matrix.numpy(), COV, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        d.precision_matrix.numpy(), np.linalg.inv(COV), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        d.scale_tril.numpy(), np.linalg.cholesky(COV), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(d.mean.numpy(), MU)
    np.testing.assert_allclose(d.variance.numpy(), np.diag(COV), rtol=1e-12)


def test_mvn_batches_broadcast_and_samples_have_its_moments():
    covs = np.stack([COV, 2 * np.eye(3)])
    d = D.MultivariateNormal(t64(MU), covariance_matrix=t64(covs))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    lp = d.log_prob(t64(X[:, None, :]))
    assert list(lp.shape) == [2, 2]
    for j in range(2):
        np.testing.assert_allclose(
            lp.numpy()[:, j], stats.multivariate_normal(MU, covs[j]).logpdf(X), rtol=1e-10
        )
    fg.manual_seed(0)
    s = d.sample((20000,)).numpy()
    assert s.shape == (20000, 2, 3)
    for j in range(2):
        np.testing.assert_allclose(s[:, j].mean(0), MU, atol=0.06)
        np.testing.assert_allclose(np.cov(s[:, j].T), covs[j], atol=0.12)


def test_mvn_gradients_of_log_prob_and_rsample():
    tril = np.linalg.cholesky(COV)
    x = t64(X)

    def lp(mu, cov):
        return D.MultivariateNormal(mu, covariance_matrix=(cov + cov.mT) / 2).log_prob(x)

    assert fg.autograd.gradcheck(lp, [t64(MU, grad=True), t64(COV, grad=True)])

    def rs(mu, lt):
        g = fg.Generator().manual_seed(4)
        return D.MultivariateNormal(mu, scale_tril=lt.tril(), validate_args=False).rsample(
            (3,), generator=g
        )

    assert fg.autograd.gradcheck(rs, [t64(MU, grad=True), t64(tril, grad=True)])


@pytest.mark.parametrize(
    "kwargs, what",
    [
        ({"covariance_matrix": -np.eye(3)}, "covariance_matrix"),
        ({"covariance_matrix": A}, "covariance_matrix"),  # not symmetric
        ({"scale_tril": A}, "scale_tril"),  # not lower triangular
        ({"scale_tril": np.eye(3), "covariance_matrix": np.eye(3)}, "exactly one"),
        ({}, "exactly one"),
        ({"covariance_matrix": np.eye(2)}, "k = loc.shape"),
    ],
)
def test_mvn_bad_parameters(kwargs, what):
    with pytest.raises(ValueError, match=what):
        D.MultivariateNormal(t64(MU), **{k: t64(v) for k, v in kwargs.items()})


def test_independent_sums_over_reinterpreted_dims():
    loc = np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]])
    base = D.Normal(t64(loc), 2.0)
    d = D.Independent(base, 1)
    assert d.batch_shape == (3,) and d.event_shape == (2,) and d.has_rsample
    x = np.array([0.3, 0.1])
    np.testing.assert_allclose(
        d.log_prob(t64(x)).numpy(), stats.norm(loc, 2.0).logpdf(x).sum(-1), rtol=1e-12
    )
    np.testing.assert_allclose(d.entropy().numpy(), np.full(3, 2 * stats.norm(0, 2).entropy()))
    assert list(d.sample((4,)).shape) == [4, 3, 2]
    assert D.Independent(base, 2).batch_shape == ()
    assert d.expand([5, 3]).batch_shape == (5, 3)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(base, 3)


# ---- KL divergences ----------------------------------------------------------------------

p1, p2 = np.array([0.2, 0.6, 0.9]), np.array([0.5, 0.3, 0.95])
m1, s1, m2, s2 = (
    np.array([0.0, 1.0]),
    np.array([1.0, 0.5]),
    np.array([0.5, -1.0]),
    np.array([2.0, 0.7]),
)
r1, r2 = np.array([0.5, 3.0]), np.array([2.0, 1.0])
cat1 = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
cat2 = np.array([[0.4, 0.4, 0.2], [0.3, 0.3, 0.4]])


def _geom_kl(p, q):
    k = np.arange(4000)[:, None]
    lp = k * np.log1p(-p) + np.log(p)
    lq = k * np.log1p(-q) + np.log(q)
    return (np.exp(lp) * (lp - lq)).sum(0)


KL_CASES = {
    "normal": (
        lambda: (D.Normal(t64(m1), t64(s1)), D.Normal(t64(m2), t64(s2))),
        np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5,
    ),
    "bernoulli": (
        lambda: (D.Bernoulli(t64(p1)), D.Bernoulli(t64(p2))),
        p1 * np.log(p1 / p2) + (1 - p1) * np.log((1 - p1) / (1 - p2)),
    ),
    "categorical": (
        lambda: (D.Categorical(t64(cat1)), D.Categorical(t64(cat2))),
        (cat1 * np.log(cat1 / cat2)).sum(-1),
    ),
    "onehot": (
        lambda: (D.OneHotCategorical(t64(cat1)), D.OneHotCategorical(t64(cat2))),
        (cat1 * np.log(cat1 / cat2)).sum(-1),
    ),
    "uniform": (
        lambda: (
            D.Uniform(t64([0.0, 0.0]), t64([1.0, 2.0])),
            D.Uniform(t64([-1.0, 0.5]), t64([2.0, 3.0])),
        ),
        np.array([math.log(3.0), math.inf]),
    ),
    "exponential": (
        lambda: (D.Exponential(t64(r1)), D.Exponential(t64(r2))),
        np.log(r1 / r2) + r2 / r1 - 1,
    ),
    "laplace": (
        lambda: (D.Laplace(t64(m1), t64(s1)), D.Laplace(t64(m2), t64(s2))),
        np.log(s2 / s1) + np.abs(m1 - m2) / s2 + s1 / s2 * np.exp(-np.abs(m1 - m2) / s1) - 1,
    ),
    "geometric": (
        lambda: (D.Geometric(t64(p1)), D.Geometric(t64(p2))),
        _geom_kl(p1, p2),
    ),
    "poisson": (
        lambda: (D.Poisson(t64(r1)), D.Poisson(t64(r2))),
        r1 * np.log(r1 / r2) - r1 + r2,
    ),
    "independent": (
        lambda: (
            D.Independent(D.Normal(t64(m1), t64(s1)), 1),
            D.Independent(D.Normal(t64(m2), t64(s2)), 1),
        ),
        (np.log(s2 / s1) + (s1**2 + (m1 - m2) ** 2) / (2 * s2**2) - 0.5).sum(),
    ),
}


@pytest.mark.parametrize("name", sorted(KL_CASES))
def test_kl_divergence_matches_closed_forms(name):
    make, expect = KL_CASES[name]
    p, q = make()
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), expect, rtol=1e-9)
    np.testing.assert_allclose(p.kl_divergence(q).numpy(), expect, rtol=1e-9)  # Paddle's method
    np.testing.assert_allclose(D.kl_divergence(p, p).numpy(), np.zeros_like(expect), atol=1e-12)


def test_mvn_kl_matches_the_closed_form_and_has_gradients():
    cov2 = np.diag([1.0, 2.0, 0.5]) + 0.1
    mu2 = np.array([1.0, 0.0, -1.0])
    inv2 = np.linalg.inv(cov2)
    d = mu2 - MU
    expect = 0.5 * (
        np.trace(inv2 @ COV) + d @ inv2 @ d - 3 + np.log(np.linalg.det(cov2) / np.linalg.det(COV))
    )
    p = D.MultivariateNormal(t64(MU), covariance_matrix=t64(COV))
    q = D.MultivariateNormal(t64(mu2), covariance_matrix=t64(cov2))
    assert D.kl_divergence(p, q).item() == pytest.approx(expect, rel=1e-10)

    def kl(mu, l1):
        a = D.MultivariateNormal(mu, scale_tril=l1.tril(), validate_args=False)
        return D.kl_divergence(a, q)

    assert fg.autograd.gradcheck(kl, [t64(MU, grad=True), t64(np.linalg.cholesky(COV), grad=True)])


def test_normal_kl_gradient():
    def kl(a, b, c, e):
        return D.kl_divergence(D.Normal(a, b), D.Normal(c, e))

    assert fg.autograd.gradcheck(
        kl, [t64(m1, grad=True), t64(s1, grad=True), t64(m2, grad=True), t64(s2, grad=True)]
    )


def test_register_kl_picks_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)).item() == pytest.approx(0.5)

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return fg.tensor(-7.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)).item() == -7.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0)).item() == pytest.approx(0.5)
    # (Normal, Laplace) has a closed form since session 42 (PyTorch's kl.py
    # _kl_normal_laplace); (Normal, Cauchy) has none in PyTorch either
    with pytest.raises(NotImplementedError, match="register_kl"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Cauchy(0.0, 1.0))
    with pytest.raises(TypeError, match="Distribution subclasses"):
        D.register_kl(int, D.Normal)


# ---- Paddle's spellings ------------------------------------------------------------------


def test_paddle_normal_doc_example_values():
    import ferrograd.distribution as pdist

    a = pdist.Normal([0.0], [1.0])
    b = pdist.Normal([0.5], [2.0])
    v = fg.to_tensor([0.8], dtype="float32")
    np.testing.assert_allclose(a.entropy().numpy(), [1.41893852], rtol=1e-6)
    np.testing.assert_allclose(a.log_prob(v).numpy(), [-1.23893857], rtol=1e-6)
    np.testing.assert_allclose(a.probs(v).numpy(), [0.28969154], rtol=1e-6)
    np.testing.assert_allclose(a.kl_divergence(b).numpy(), [0.34939718], rtol=1e-6)
    assert list(a.sample([2]).shape) == [2, 1]


def test_paddle_categorical_reads_logits_as_paddle_does():
    x = fg.to_tensor([0.55355281, 0.20714243, 0.01162981, 0.51577556, 0.36369765, 0.26091650])
    y = fg.to_tensor([0.77663314, 0.90824795, 0.15685187, 0.04279523, 0.34468332, 0.79557180])
    cat = fg.distribution.Categorical(x)
    cat2 = fg.distribution.Categorical(y)
    value = fg.to_tensor([2, 1, 3])
    # the values printed in Paddle's documentation of paddle.distribution.Categorical
    np.testing.assert_allclose(cat.entropy().numpy(), 1.77528250, rtol=1e-6)
    np.testing.assert_allclose(cat.kl_divergence(cat2).numpy(), [0.07195196], rtol=1e-5)
    np.testing.assert_allclose(
        cat.probs(value).numpy(), [0.00608027, 0.10829761, 0.26965630], rtol=1e-5
    )
    np.testing.assert_allclose(
        cat.log_prob(value).numpy(), [-5.10270691, -2.22287226, -1.31060708], rtol=1e-6
    )
    assert list(cat.sample([2, 3]).shape) == [2, 3]
    assert fg.distribution.Categorical is not fg.distributions.Categorical
    batched = fg.distribution.Categorical(fg.to_tensor([[1.0, 3.0], [2.0, 2.0]]))
    np.testing.assert_allclose(
        batched.probs(fg.to_tensor([1, 0, 1])).numpy(), [[0.75, 0.25, 0.75], [0.5] * 3]
    )


def test_matrix_families_are_there():
    # LKJCholesky / Wishart were the last families listed missing (issue 17)
    assert fg.distribution.LKJCholesky is D.LKJCholesky
    assert D.Wishart.__module__.endswith("lkj_wishart")


def test_mvn_expand():
    d = D.MultivariateNormal(t64(MU), covariance_matrix=t64(COV)).expand([4])
    assert d.batch_shape == (4,) and list(d.sample((2,)).shape) == [2, 4, 3]
    lp = d.log_prob(t64(X[0]))
    np.testing.assert_allclose(
        lp.numpy(), np.full(4, stats.multivariate_normal(MU, COV).logpdf(X[0]))
    )
