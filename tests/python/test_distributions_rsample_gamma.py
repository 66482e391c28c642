"""Reparameterised sampling of the gamma family: ferrograd._standard_gamma's implicit
gradient d x / d alpha against finite differences of the Gamma CDF (scipy's regularised
incomplete gamma), Monte-Carlo gradients of means against their closed forms, and
rsample of Gamma, Chi2, Beta, Dirichlet and StudentT reaching every parameter."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.distributions.standard_gamma import standard_gamma_grad

special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")
D = fg.distributions


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def cdf_implicit_grad(a, x):
    """-(dF/da) / (dF/dx) with dF/da by a fourth-order central difference in ``a``."""
    h = 1e-4 * a
    f = lambda s: special.gammainc(a + s, x)  # noqa: E731
    dfa = (8 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12 * h)
    pdf = np.exp((a - 1) * np.log(x) - x - special.gammaln(a))
    return -dfa / pdf


@pytest.mark.parametrize("alpha", [0.05, 0.3, 1.0, 2.5, 8.0, 40.0, 700.0, 5000.0, 3e4, 2e5])
def test_standard_gamma_grad_matches_cdf_differences(alpha):
    qs = np.array([1e-4, 0.02, 0.25, 0.5, 0.8, 0.99, 0.9999])
    x = stats.gamma(alpha).ppf(qs)
    keep = x > 1e-250  # the central difference needs a representable density
    x = x[keep]
    got = standard_gamma_grad(np.full_like(x, alpha), x)
    ref = cdf_implicit_grad(np.full_like(x, alpha), x)
    np.testing.assert_allclose(got, ref, rtol=2e-5)


def test_standard_gamma_grad_tensor_form_and_edges():
    a = t64([0.5, 2.0])
    x = t64([0.1, 3.0])
    g = fg._standard_gamma_grad(a, x)
    np.testing.assert_allclose(
        g.numpy(), cdf_implicit_grad(np.array([0.5, 2.0]), np.array([0.1, 3.0])), rtol=1e-5
    )
    # a draw of 0 (underflow) has a gradient of 0 in the limit, not nan
    assert standard_gamma_grad(0.01, 0.0) == pytest.approx(0.0, abs=1e-200)
    assert np.isnan(standard_gamma_grad(-1.0, 1.0))
    with pytest.raises(TypeError):
        fg._standard_gamma_grad([1.0], x)


def test_standard_gamma_draws_and_gradient_mean():
    fg.manual_seed(3)
    alpha = t64([0.2, 1.0, 3.0, 50.0], grad=True)
    n = 20000
    x = fg._standard_gamma(alpha.broadcast_to([n, 4]))
    assert x.shape == (n, 4) and x.requires_grad
    np.testing.assert_allclose(x.detach().numpy().mean(0), [0.2, 1.0, 3.0, 50.0], rtol=0.04)
    # E[x] = alpha, so the mean of d x / d alpha is 1
    x.sum().backward()
    np.testing.assert_allclose(alpha.grad.numpy() / n, 1.0, rtol=0.03)
    # a seed reproduces the draw; float32 stays float32; no grad without requires_grad
    fg.manual_seed(5)
    a1 = fg._standard_gamma(fg.tensor([1.5, 2.0]))
    fg.manual_seed(5)
    a2 = fg._standard_gamma(fg.tensor([1.5, 2.0]))
    assert a1.dtype == fg.float32 and not a1.requires_grad
    np.testing.assert_array_equal(a1.numpy(), a2.numpy())
    with pytest.raises(TypeError):
        fg._standard_gamma([1.0, 2.0])
    with pytest.raises(TypeError):
        fg._standard_gamma(fg.tensor([1, 2]))
    assert np.isnan(fg._standard_gamma(t64([-1.0])).item())


def test_second_moment_gradient():
    # E[x^2] = a (a + 1) for Gamma(a, 1): d/da = 2a + 1
    fg.manual_seed(11)
    alpha = t64(2.0, grad=True)
    n = 40000
    x = fg._standard_gamma(alpha.broadcast_to([n]))
    (x.square().mean()).backward()
    assert alpha.grad.item() == pytest.approx(5.0, rel=0.05)


def mc_grads(dist_fn, params, n, seed, stat=lambda s: s.mean()):
    fg.manual_seed(seed)
    ps = [t64(p, grad=True) for p in params]
    d = dist_fn(*ps)
    assert d.has_rsample
    s = d.rsample((n,))
    stat(s).backward()
    return [p.grad.numpy() for p in ps]


def test_gamma_rsample_gradients():
    ga, gr = mc_grads(D.Gamma, [2.0, 3.0], 40000, 0)
    assert ga == pytest.approx(1 / 3, rel=0.03)
    assert gr == pytest.approx(-2 / 9, rel=0.03)


def test_chi2_rsample_gradient():
    (gdf,) = mc_grads(D.Chi2, [3.0], 40000, 1)
    assert gdf == pytest.approx(1.0, rel=0.03)


def test_beta_rsample_gradients():
    a, b = 2.0, 0.5
    ga, gb = mc_grads(D.Beta, [a, b], 40000, 2)
    assert ga == pytest.approx(b / (a + b) ** 2, rel=0.05)
    assert gb == pytest.approx(-a / (a + b) ** 2, rel=0.05)
    s = D.Beta(t64(a), t64(b)).rsample((100,))
    assert bool(((s > 0) & (s < 1)).all())


def test_dirichlet_rsample_gradients():
    c = np.array([1.0, 2.0, 3.0])
    (gc,) = mc_grads(D.Dirichlet, [c], 30000, 4, stat=lambda s: s[:, 0].mean())
    total = c.sum()
    np.testing.assert_allclose(
        gc, [(total - 1) / total**2, -1 / total**2, -1 / total**2], atol=4e-3
    )


def test_studentt_rsample_gradients():
    # E[x] = loc (df > 1) and E[(x - loc)^2] = scale^2 df / (df - 2) (df > 2)
    gdf, gloc, gscale = mc_grads(D.StudentT, [5.0, 1.0, 2.0], 40000, 6)
    assert gloc == pytest.approx(1.0, rel=1e-9)
    assert abs(gdf) < 0.02 and abs(gscale) < 0.05
    gdf, gloc, gscale = mc_grads(
        D.StudentT, [7.0, 0.0, 1.5], 60000, 7, stat=lambda s: s.square().mean()
    )
    # d/d df of s^2 df/(df-2) = -2 s^2 / (df-2)^2; d/d s = 2 s df/(df-2)
    assert gdf == pytest.approx(-2 * 1.5**2 / 25, rel=0.15)
    assert gscale == pytest.approx(2 * 1.5 * 7 / 5, rel=0.05)


def test_sample_has_no_history_and_rsample_batch():
    c = t64([[1.0, 2.0], [0.5, 4.0]], grad=True)
    d = D.Gamma(c, t64(1.0))
    assert not d.sample((3,)).requires_grad
    s = d.rsample((3,))
    assert s.shape == (3, 2, 2) and s.requires_grad
    s.sum().backward()
    assert c.grad.shape == (2, 2) and bool((c.grad > 0).all())
