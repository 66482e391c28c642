"""Issue 17: ``distributions.LKJCholesky`` and ``distributions.Wishart``: log_prob against
float64 formulas (scipy's Wishart; the LKJ density integrated over 2x2 factors), samples
are valid correlation Cholesky factors, sample moments with a fixed seed, entropy, mean /
variance / mode, gradients, validation and size limits."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.distributions as D
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from scipy import integrate, special, stats

S = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])


def t64(x):
    return fg.tensor(np.asarray(x, dtype=np.float64))


def lkj_log_prob_ref(value, eta):
    """Torch's formula written out in float64 NumPy / SciPy."""
    n = value.shape[-1]
    diag = np.diagonal(value, axis1=-2, axis2=-1)[..., 1:]
    power = 2 * (eta - 1) + n - np.arange(2, n + 1)
    dm1 = n - 1
    alpha = eta + 0.5 * dm1
    norm = 0.5 * dm1 * math.log(math.pi) + special.multigammaln(alpha - 0.5, dm1)
    norm -= dm1 * special.gammaln(alpha)
    return (power * np.log(diag)).sum(-1) - norm


def test_lkj_samples_are_correlation_cholesky_factors():
    fg.manual_seed(0)
    d = D.LKJCholesky(5, t64([0.5, 1.0, 3.0]))
    s = d.sample((200,))
    assert list(s.shape) == [200, 3, 5, 5]
    v = s.numpy()
    assert np.all(np.triu(v, 1) == 0)
    assert np.all(np.diagonal(v, axis1=-2, axis2=-1) > 0)
    np.testing.assert_allclose((v**2).sum(-1), 1.0, atol=1e-12)
    assert bool(D.constraints.corr_cholesky.check(s).all())


def test_lkj_log_prob_matches_formula_and_normalises():
    fg.manual_seed(1)
    for eta in (0.5, 1.0, 2.5):
        d = D.LKJCholesky(4, t64(eta))
        s = d.sample((5,))
        want = lkj_log_prob_ref(s.numpy(), eta)
        np.testing.assert_allclose(d.log_prob(s).numpy(), want, rtol=1e-5)
    # dim 2: L = [[1, 0], [r, sqrt(1-r^2)]], the density over r integrates to 1
    for eta in (0.7, 2.0):
        d = D.LKJCholesky(2, t64(eta))

        def dens(r, d=d):
            lval = np.array([[1.0, 0.0], [r, math.sqrt(1 - r * r)]])
            lp = d.log_prob(t64(lval)).item()
            # change of variables from the factor's free entry r to the correlation r: 1
            return math.exp(lp)

        total, _ = integrate.quad(dens, -1 + 1e-12, 1 - 1e-12)
        # the LKJ density on the correlation r is (1 - r^2)^(eta - 1) / norm; L_22 =
        # sqrt(1 - r^2), so the factor's density carries an extra L_22^(n - 2) = 1 here
        assert abs(total - 1.0) < 1e-6


def test_lkj_sample_moments():
    # off-diagonal correlations of an LKJ(eta) draw have variance 1 / (2 eta + n - 1)
    fg.manual_seed(2)
    n, eta = 3, 2.0
    s = D.LKJCholesky(n, t64(eta)).sample((20000,)).numpy()
    corr = s @ np.swapaxes(s, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, atol=1e-12)
    off = corr[:, 1, 0], corr[:, 2, 0], corr[:, 2, 1]
    for r in off:
        assert abs(r.mean()) < 0.02
        assert abs(r.var() - 1.0 / (2 * eta + n - 1)) < 0.01


def test_lkj_gradcheck_and_validation():
    fg.manual_seed(3)
    value = D.LKJCholesky(3, t64(1.0)).sample()
    eta = t64([0.8, 1.7]).requires_grad_()
    assert gradcheck(lambda c: D.LKJCholesky(3, c).log_prob(value), (eta,))
    with pytest.raises(ValueError):
        D.LKJCholesky(3, 1.0).log_prob(t64(np.eye(3) * 2))
    for dim, exc in (
        (1, ValueError),
        (2**40, ValueError),
        (2**63 - 1, ValueError),
        (2.0, TypeError),
        (True, TypeError),
    ):
        with pytest.raises(exc):
            D.LKJCholesky(dim)
    with pytest.raises(ValueError):
        D.LKJCholesky(3, -1.0)
    with pytest.raises(ValueError):
        D.LKJCholesky(3, sample_method="bogus")
    assert D.LKJCholesky(3, sample_method="cvine").event_shape == (3, 3)
    assert not D.LKJCholesky(3).has_rsample


def test_wishart_log_prob_entropy_against_scipy():
    fg.manual_seed(4)
    for kw, df in (("covariance_matrix", 5.0), ("precision_matrix", 3.5), ("scale_tril", 7.0)):
        mat = {
            "covariance_matrix": S,
            "precision_matrix": np.linalg.inv(S),
            "scale_tril": np.linalg.cholesky(S),
        }[kw]
        d = D.Wishart(t64(df), **{kw: t64(mat)})
        x = d.sample((4,))
        ref = stats.wishart(df=df, scale=S)
        np.testing.assert_allclose(
            d.log_prob(x).numpy(), [ref.logpdf(xi) for xi in x.numpy()], rtol=1e-10
        )
        np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), S, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(S), rtol=1e-8)
    var = df * (S**2 + np.outer(np.diag(S), np.diag(S)))
    np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-12)
    np.testing.assert_allclose(d.mode.numpy(), (df - 4) * S, rtol=1e-12)
    assert np.isnan(D.Wishart(t64(3.5), covariance_matrix=t64(S)).mode.numpy()).all()


def test_wishart_batched_and_sample_moments():
    fg.manual_seed(5)
    d = D.Wishart(t64([4.0, 9.0]), covariance_matrix=t64(S))
    assert d.batch_shape == (2,) and d.event_shape == (3, 3)
    x = d.sample((20000,))
    assert list(x.shape) == [20000, 2, 3, 3]
    v = x.numpy()
    np.testing.assert_allclose(v, np.swapaxes(v, -1, -2), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(v) > 0)
    np.testing.assert_allclose(v.mean(0), d.mean.numpy(), rtol=0.05, atol=0.05)
    np.testing.assert_allclose(v.var(0), d.variance.numpy(), rtol=0.1, atol=0.1)
    lp = d.log_prob(x[:3])
    assert list(lp.shape) == [3, 2]
    ref = [
        [stats.wishart(df=df, scale=S).logpdf(v[i, j]) for j, df in enumerate((4.0, 9.0))]
        for i in range(3)
    ]
    np.testing.assert_allclose(lp.numpy(), ref, rtol=1e-10)


def test_wishart_gradients():
    fg.manual_seed(6)
    x = D.Wishart(t64(6.0), covariance_matrix=t64(S)).sample()
    df = t64(6.0).requires_grad_()
    tril = t64(np.linalg.cholesky(S)).requires_grad_()
    assert gradcheck(lambda a, b: D.Wishart(a, scale_tril=b.tril()).log_prob(x), (df, tril))
    assert gradcheck(lambda a, b: D.Wishart(a, scale_tril=b.tril()).entropy(), (df, tril))
    # rsample is differentiable in df and the scale (Bartlett with reparameterised chi2)
    y = D.Wishart(df, scale_tril=tril).rsample((3,))
    y.sum().backward()
    assert df.grad is not None and np.isfinite(df.grad.numpy()).all()
    assert tril.grad is not None and np.isfinite(tril.grad.numpy()).all()


def test_wishart_bad_input():
    with pytest.raises(ValueError):
        D.Wishart(t64(5.0))
    with pytest.raises(ValueError):
        D.Wishart(t64(5.0), covariance_matrix=t64(S), scale_tril=t64(np.eye(3)))
    with pytest.raises(ValueError):
        D.Wishart(t64(1.5), covariance_matrix=t64(S))  # df must exceed p - 1
    with pytest.raises(ValueError):
        D.Wishart(t64(5.0), covariance_matrix=t64(-np.eye(3)))
    with pytest.raises(ValueError):
        D.Wishart(t64(5.0), covariance_matrix=t64(np.ones(3)))
    with pytest.raises(ValueError):
        D.Wishart(t64([5.0, 6.0, 7.0]), covariance_matrix=t64(np.stack([S, S])))
    d = D.Wishart(t64(5.0), covariance_matrix=t64(S))
    with pytest.raises(ValueError):
        d.log_prob(t64(-np.eye(3)))
    with pytest.raises(ValueError):
        d.log_prob(t64(np.eye(2)))
