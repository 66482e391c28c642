"""ferrograd.distributions, continuous scalar families: densities, entropies and moments
against scipy.stats in float64, sample statistics under a fixed seed, gradients of
log_prob / rsample by finite differences, and parameter validation."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
D = fg.distributions


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


LOC = [0.3, -1.2, 2.0]
SCALE = [0.5, 1.7, 3.0]
X = [0.1, -0.4, 5.0]

# (ferrograd constructor, scipy frozen distribution, values inside the support)
CASES = {
    "normal": (
        lambda: D.Normal(t64(LOC), t64(SCALE)),
        stats.norm(LOC, SCALE),
        X,
    ),
    "uniform": (
        lambda: D.Uniform(t64([-1.0, 0.0, 2.0]), t64([1.0, 0.5, 7.0])),
        stats.uniform([-1.0, 0.0, 2.0], [2.0, 0.5, 5.0]),
        [0.3, 0.1, 6.9],
    ),
    "exponential": (
        lambda: D.Exponential(t64(SCALE)),
        stats.expon(scale=1 / np.array(SCALE)),
        [0.1, 0.4, 5.0],
    ),
    "laplace": (
        lambda: D.Laplace(t64(LOC), t64(SCALE)),
        stats.laplace(LOC, SCALE),
        X,
    ),
    "lognormal": (
        lambda: D.LogNormal(t64(LOC), t64([0.5, 0.3, 0.8])),
        stats.lognorm(s=[0.5, 0.3, 0.8], scale=np.exp(LOC)),
        [0.5, 0.4, 5.0],
    ),
    "cauchy": (
        lambda: D.Cauchy(t64(LOC), t64(SCALE)),
        stats.cauchy(LOC, SCALE),
        X,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_entropy_cdf_match_scipy(name):
    make, ref, x = CASES[name]
    d = make()
    np.testing.assert_allclose(d.log_prob(t64(x)).numpy(), ref.logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.prob(t64(x)).numpy(), ref.pdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.cdf(t64(x)).numpy(), ref.cdf(x), rtol=1e-10)
    if hasattr(type(d), "icdf") and name in ("uniform", "exponential", "cauchy"):
        q = [0.1, 0.5, 0.9]
        np.testing.assert_allclose(d.icdf(t64(q)).numpy(), ref.ppf(q), rtol=1e-10)


@pytest.mark.parametrize("name", sorted(set(CASES) - {"cauchy"}))
def test_moments_match_scipy(name):
    make, ref, _ = CASES[name]
    d = make()
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    np.testing.assert_allclose(d.stddev.numpy(), ref.std(), rtol=1e-10)


def test_cauchy_moments_are_undefined():
    d = D.Cauchy(0.0, 1.0)
    assert math.isnan(d.mean.item()) and math.isinf(d.variance.item())


@pytest.mark.parametrize("name", sorted(set(CASES) - {"cauchy"}))
def test_sample_statistics_with_a_fixed_seed(name):
    make, ref, _ = CASES[name]
    d = make()
    fg.manual_seed(1234)
    s = d.sample((20000,))
    assert list(s.shape) == [20000, 3] and s.dtype == fg.float64
    assert s.grad_fn is None
    assert np.all(np.abs(s.numpy().mean(0) - ref.mean()) <= 0.05 * ref.std())
    np.testing.assert_allclose(s.numpy().var(0), ref.var(), rtol=0.15)


def test_cauchy_samples_have_its_quartiles():
    fg.manual_seed(5)
    s = D.Cauchy(1.0, 2.0).sample((20000,)).numpy()
    np.testing.assert_allclose(np.percentile(s, [25, 50, 75]), [-1.0, 1.0, 3.0], atol=0.15)


def test_seed_reproduces_samples_and_rsample_agrees_with_sample():
    d = D.Normal(t64(LOC), t64(SCALE))
    fg.manual_seed(7)
    a = d.sample((4,))
    fg.manual_seed(7)
    b = d.rsample((4,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    fg.seed(7)  # Paddle's spelling
    np.testing.assert_array_equal(d.sample([4]).numpy(), a.numpy())
    # Paddle's sample(shape, seed): a non-zero seed gives the same draw each call
    np.testing.assert_array_equal(d.sample([3], seed=9).numpy(), d.sample([3], seed=9).numpy())


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_gradients_match_finite_differences(name):
    make, _, x = CASES[name]
    d0 = make()
    params = [t64(p.detach().numpy(), grad=True) for p in (getattr(d0, n) for n in d0._params)]

    def f(*ps):
        return type(d0)(*ps).log_prob(t64(x))

    assert fg.autograd.gradcheck(f, params)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rsample_gradients_match_finite_differences(name):
    make, _, _ = CASES[name]
    d0 = make()
    params = [t64(p.detach().numpy(), grad=True) for p in (getattr(d0, n) for n in d0._params)]

    def f(*ps):
        # the same noise on every call: a generator seeded afresh
        return type(d0)(*ps).rsample((4,), generator=fg.Generator().manual_seed(11))

    assert fg.autograd.gradcheck(f, params)


def test_normal_rsample_gradient_is_the_noise():
    loc = t64([0.5], grad=True)
    scale = t64([2.0], grad=True)
    fg.manual_seed(3)
    s = D.Normal(loc, scale).rsample((5,))
    s.sum().backward()
    fg.manual_seed(3)
    eps = fg.randn([5, 1], dtype=fg.float64)
    np.testing.assert_allclose(loc.grad.numpy(), [5.0])
    np.testing.assert_allclose(scale.grad.numpy(), eps.numpy().sum(0), rtol=1e-12)


def test_shapes_broadcast_and_expand():
    d = D.Normal(t64([[0.0], [1.0]]), t64([1.0, 2.0, 3.0]))
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert list(d.sample((4, 5)).shape) == [4, 5, 2, 3]
    assert list(d.log_prob(t64(0.5)).shape) == [2, 3]
    e = D.Exponential(2.0).expand([3, 2])
    assert e.batch_shape == (3, 2) and list(e.sample().shape) == [3, 2]
    np.testing.assert_allclose(e.mean.numpy(), np.full((3, 2), 0.5))


def test_numbers_take_the_default_dtype_and_tensors_keep_theirs():
    assert D.Normal(0.0, 1.0).sample().dtype == fg.get_default_dtype()
    assert D.Normal(t64(0.0), 1.0).sample().dtype == fg.float64
    assert D.Uniform([0.0, 1.0], [1.0, 2.0]).batch_shape == (2,)


@pytest.mark.parametrize(
    "make, what",
    [
        (lambda: D.Normal(0.0, -1.0), "scale"),
        (lambda: D.Normal(0.0, 0.0), "scale"),
        (lambda: D.Laplace(0.0, [1.0, -2.0]), "scale"),
        (lambda: D.Exponential(-0.5), "rate"),
        (lambda: D.LogNormal(0.0, -1.0), "scale"),
        (lambda: D.Cauchy(0.0, -1.0), "scale"),
        (lambda: D.Uniform(1.0, 0.0), "low must be less than high"),
        (lambda: D.Normal(float("nan"), 1.0), "loc"),
    ],
)
def test_bad_parameters_raise_a_clear_value_error(make, what):
    with pytest.raises(ValueError, match=what):
        make()


def test_validation_can_be_turned_off_and_checks_the_support():
    d = D.Normal(0.0, -1.0, validate_args=False)
    assert math.isnan(d.log_prob(fg.tensor(0.0)).item())
    with pytest.raises(ValueError, match="support"):
        D.Exponential(1.0).log_prob(fg.tensor(-1.0))
    assert D.Exponential(1.0, validate_args=False).log_prob(
        fg.tensor(-1.0)
    ).item() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="support"):
        D.Uniform(0.0, 1.0).log_prob(fg.tensor(2.0))
    assert D.Uniform(0.0, 1.0, validate_args=False).log_prob(fg.tensor(2.0)).item() == -math.inf
    D.Distribution.set_default_validate_args(False)
    try:
        assert D.Normal(0.0, -1.0).scale.item() == -1.0
    finally:
        D.Distribution.set_default_validate_args(True)


def test_rsample_refused_where_not_reparameterisable_and_sample_has_no_grad():
    loc = t64([0.0], grad=True)
    assert D.Normal(loc, 1.0).sample().grad_fn is None
    with pytest.raises(NotImplementedError, match="rsample"):
        D.Bernoulli(0.5).rsample()


@pytest.mark.parametrize("name", ["normal", "laplace", "cauchy", "lognormal"])
def test_cdf_gradients_match_finite_differences(name):
    make, _, x = CASES[name]
    d0 = make()
    params = [t64(p.detach().numpy(), grad=True) for p in (getattr(d0, n) for n in d0._params)]
    assert fg.autograd.gradcheck(lambda *ps: type(d0)(*ps).cdf(t64(x)), params)
