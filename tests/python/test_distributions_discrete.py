"""ferrograd.distributions, discrete families (Bernoulli, Categorical, OneHotCategorical,
Geometric, Poisson): masses, entropies and moments against scipy.stats / NumPy in
float64, sample frequencies under a fixed seed, log_prob gradients, validation."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
D = fg.distributions

P = [0.1, 0.5, 0.83]
K = [0.0, 1.0, 1.0]


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_bernoulli_matches_scipy_from_probs_and_logits():
    ref = stats.bernoulli(P)
    logits = np.log(P) - np.log1p(-np.array(P))
    for d in (D.Bernoulli(t64(P)), D.Bernoulli(logits=t64(logits))):
        np.testing.assert_allclose(d.log_prob(t64(K)).numpy(), ref.logpmf(K), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
        np.testing.assert_allclose(d.probs.numpy(), P, rtol=1e-12)
        np.testing.assert_allclose(d.logits.numpy(), logits, rtol=1e-10)


def test_bernoulli_extreme_logits_stay_finite():
    d = D.Bernoulli(logits=t64([-200.0, 200.0]))
    np.testing.assert_allclose(d.log_prob(t64([1.0, 1.0])).numpy(), [-200.0, 0.0], atol=1e-12)


def test_geometric_and_poisson_match_scipy():
    g = D.Geometric(t64(P))
    ref = stats.geom(P, loc=-1)  # scipy counts trials; torch / Paddle count failures
    k = [0.0, 3.0, 2.0]
    np.testing.assert_allclose(g.log_prob(t64(k)).numpy(), ref.logpmf(k), rtol=1e-10)
    np.testing.assert_allclose(g.entropy().numpy(), ref.entropy(), rtol=1e-9)
    np.testing.assert_allclose(g.mean.numpy(), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(g.variance.numpy(), ref.var(), rtol=1e-10)
    rates = [0.3, 4.0, 250.0]
    p = D.Poisson(t64(rates))
    k = [0.0, 7.0, 260.0]
    np.testing.assert_allclose(
        p.log_prob(t64(k)).numpy(), stats.poisson(rates).logpmf(k), rtol=1e-10
    )
    np.testing.assert_allclose(p.mean.numpy(), rates)
    np.testing.assert_allclose(p.variance.numpy(), rates)
    assert D.Poisson(t64(0.0)).log_prob(t64(0.0)).item() == 0.0


PROBS = np.array([[0.2, 0.3, 0.5], [0.05, 0.15, 0.8]])


def test_categorical_matches_numpy():
    logits = np.log(PROBS) + 1.7  # unnormalised logits
    for d in (D.Categorical(t64(PROBS * 3)), D.Categorical(logits=t64(logits))):
        assert d.batch_shape == (2,) and d.event_shape == ()
        np.testing.assert_allclose(d.probs.numpy(), PROBS, rtol=1e-12)
        np.testing.assert_allclose(d.logits.numpy(), np.log(PROBS), rtol=1e-12)
        v = np.array([[2, 0], [1, 2]])
        expect = np.log(PROBS)[[0, 1], v]
        np.testing.assert_allclose(d.log_prob(fg.tensor(v)).numpy(), expect, rtol=1e-12)
        ent = -(PROBS * np.log(PROBS)).sum(-1)
        np.testing.assert_allclose(d.entropy().numpy(), ent, rtol=1e-12)
        assert d.enumerate_support().tolist() == [[0, 0], [1, 1], [2, 2]]


def test_categorical_zero_probability_entropy_is_finite():
    d = D.Categorical(t64([0.0, 0.25, 0.75]))
    expect = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert d.entropy().item() == pytest.approx(expect, rel=1e-12)


def test_one_hot_categorical():
    d = D.OneHotCategorical(t64(PROBS))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    fg.manual_seed(0)
    s = d.sample((5,))
    assert list(s.shape) == [5, 2, 3] and np.all(s.numpy().sum(-1) == 1)
    idx = s.numpy().argmax(-1)
    np.testing.assert_allclose(d.log_prob(s).numpy(), np.log(PROBS)[[0, 1], idx], rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), PROBS)
    np.testing.assert_allclose(d.variance.numpy(), PROBS * (1 - PROBS))


def test_sample_frequencies_with_a_fixed_seed():
    fg.manual_seed(42)
    n = 20000
    b = D.Bernoulli(t64(P)).sample((n,)).numpy()
    np.testing.assert_allclose(b.mean(0), P, atol=0.02)
    c = D.Categorical(t64(PROBS)).sample((n,))
    assert c.dtype == fg.int64 and list(c.shape) == [n, 2]
    freq = np.stack([np.bincount(c.numpy()[:, i], minlength=3) / n for i in range(2)])
    np.testing.assert_allclose(freq, PROBS, atol=0.02)
    g = D.Geometric(t64([0.3, 0.7])).sample((n,)).numpy()
    np.testing.assert_allclose(g.mean(0), [7 / 3, 3 / 7], rtol=0.05)
    np.testing.assert_allclose(g.var(0), [0.7 / 0.09, 0.3 / 0.49], rtol=0.1)
    # (Poisson sampling takes one vectorised step per count: fewer draws keep this fast)
    p = D.Poisson(t64([0.5, 6.0, 300.0])).sample((4000,)).numpy()
    np.testing.assert_allclose(p.mean(0), [0.5, 6.0, 300.0], rtol=0.06)
    np.testing.assert_allclose(p.var(0), [0.5, 6.0, 300.0], rtol=0.15)
    assert np.all(p == np.floor(p))


def test_samples_reproduce_under_manual_seed():
    d = D.Categorical(logits=t64([0.1, 2.0, -1.0]))
    fg.manual_seed(3)
    a = d.sample((50,)).numpy()
    fg.manual_seed(3)
    np.testing.assert_array_equal(d.sample((50,)).numpy(), a)


@pytest.mark.parametrize(
    "make, params, value",
    [
        (lambda p: D.Bernoulli(p), [P], K),
        (lambda lg: D.Bernoulli(logits=lg), [[0.3, -2.0, 4.0]], K),
        (lambda p: D.Categorical(p), [PROBS], [[2, 0], [1, 2]]),
        (lambda lg: D.Categorical(logits=lg), [np.log(PROBS)], [[2, 0], [1, 2]]),
        (lambda p: D.Geometric(p), [P], [0.0, 3.0, 2.0]),
        (lambda r: D.Poisson(r), [[0.3, 4.0, 25.0]], [0.0, 7.0, 26.0]),
    ],
)
def test_log_prob_and_entropy_gradients(make, params, value):
    ps = [t64(p, grad=True) for p in params]
    v = fg.tensor(value) if np.asarray(value).dtype.kind == "i" else t64(value)
    assert fg.autograd.gradcheck(lambda *a: make(*a).log_prob(v), ps)
    if not isinstance(make(*ps), D.Poisson):
        assert fg.autograd.gradcheck(lambda *a: make(*a).entropy(), ps)


@pytest.mark.parametrize(
    "make, what",
    [
        (lambda: D.Bernoulli(1.5), "probs"),
        (lambda: D.Bernoulli(-0.1), "probs"),
        (lambda: D.Bernoulli(), "exactly one of probs or logits"),
        (lambda: D.Bernoulli(0.5, 0.0), "exactly one of probs or logits"),
        (lambda: D.Categorical(t64([0.5, -0.1, 0.6])), "non-negative"),
        (lambda: D.Categorical(logits=t64([0.5, float("nan")])), "logits"),
        (lambda: D.Categorical(t64(1.0)), "at least one dim"),
        (lambda: D.Geometric(0.0), "positive"),
        (lambda: D.Poisson(-1.0), "rate"),
    ],
)
def test_bad_parameters_raise_a_clear_value_error(make, what):
    with pytest.raises(ValueError, match=what):
        make()


def test_values_outside_the_support_are_refused():
    with pytest.raises(ValueError, match="support"):
        D.Bernoulli(0.5).log_prob(fg.tensor(2.0))
    with pytest.raises(ValueError, match="support"):
        D.Categorical(t64([0.5, 0.5])).log_prob(fg.tensor(2))
    with pytest.raises(ValueError, match="support"):
        D.Poisson(1.0).log_prob(fg.tensor(1.5))


def test_masked_logits_give_finite_values_and_gradients():
    # RL code masks illegal actions with -inf logits
    raw = t64([0.5, 0.3, 1.0], grad=True)
    logits = raw.masked_fill(fg.tensor([False, True, False]), float("-inf"))
    d = D.Categorical(logits=logits)
    out = d.entropy() + d.log_prob(fg.tensor(2))
    out.backward()
    p = np.exp([0.5, 1.0]) / np.exp([0.5, 1.0]).sum()
    assert out.item() == pytest.approx(-(p * np.log(p)).sum() + np.log(p[1]), rel=1e-12)
    assert np.all(np.isfinite(raw.grad.numpy())) and raw.grad.numpy()[1] == 0.0


def test_expand_keeps_the_event_dims():
    c = D.Categorical(logits=t64([0.0, 1.0, 2.0])).expand([4])
    assert c.batch_shape == (4,) and list(c.sample((2,)).shape) == [2, 4]
    o = D.OneHotCategorical(t64([0.2, 0.8])).expand([5])
    assert o.batch_shape == (5,) and list(o.sample().shape) == [5, 2]
    b = D.Bernoulli(t64(0.3)).expand([2, 3])
    np.testing.assert_allclose(b.mean.numpy(), np.full((2, 3), 0.3))
