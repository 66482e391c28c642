"""ferrograd.distributions Binomial and Multinomial: log_prob / entropy / mean / variance
against scipy.stats, gradients of log_prob and entropy in the probabilities (gradcheck),
samples (reproducible, frequencies against the mass function), Paddle's spellings."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

stats = pytest.importorskip("scipy.stats")
D = fg.distributions


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


N = np.array([1.0, 5.0, 10.0, 10.0])
P = np.array([0.3, 0.5, 0.05, 0.9])


def test_binomial_matches_scipy():
    d = D.Binomial(t64(N), t64(P))
    ref = stats.binom(N, P)
    k = np.array([1.0, 2.0, 0.0, 10.0])
    np.testing.assert_allclose(d.log_prob(t64(k)).numpy(), ref.logpmf(k), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-14)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-14)
    logit = np.log(P / (1 - P))
    dl = D.Binomial(t64(N), logits=t64(logit))
    np.testing.assert_allclose(dl.log_prob(t64(k)).numpy(), ref.logpmf(k), rtol=1e-12)
    assert D.Binomial(10, t64(0.3)).enumerate_support().shape == (11,)


def test_multinomial_matches_scipy():
    p = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    d = D.Multinomial(6, t64(p))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = np.array([[1.0, 2.0, 3.0], [6.0, 0.0, 0.0]])
    lp = d.log_prob(t64(x)).numpy()
    ent = d.entropy().numpy()
    for i in range(2):
        ref = stats.multinomial(6, p[i])
        np.testing.assert_allclose(lp[i], ref.logpmf(x[i]), rtol=1e-12)
        np.testing.assert_allclose(ent[i], ref.entropy(), rtol=1e-12)
        np.testing.assert_allclose(d.mean.numpy()[i], 6 * p[i], rtol=1e-14)
        np.testing.assert_allclose(d.variance.numpy()[i], 6 * p[i] * (1 - p[i]), rtol=1e-14)
    # a zero probability with a zero count contributes nothing
    z = D.Multinomial(3, t64([0.0, 0.4, 0.6]))
    np.testing.assert_allclose(
        z.log_prob(t64([0.0, 1.0, 2.0])).item(),
        stats.multinomial(3, [0, 0.4, 0.6]).logpmf([0, 1, 2]),
    )
    np.testing.assert_allclose(
        z.entropy().item(), stats.multinomial(3, [0, 0.4, 0.6]).entropy(), rtol=1e-6
    )


def test_gradcheck_in_the_probabilities():
    p = t64([0.3, 0.7], True)
    k = t64([2.0, 5.0])
    assert gradcheck(lambda p: D.Binomial(t64([4.0, 6.0]), p).log_prob(k), (p,))
    assert gradcheck(lambda p: D.Binomial(t64([4.0, 6.0]), p).entropy(), (p,))
    w = t64([[0.2, 0.3, 0.5]], True)
    x = t64([[1.0, 2.0, 3.0]])
    assert gradcheck(lambda w: D.Multinomial(6, w).log_prob(x), (w,))
    lg = t64([[0.1, -0.4, 0.9]], True)
    assert gradcheck(lambda lg: D.Multinomial(4, logits=lg).entropy(), (lg,))


def test_samples_reproduce_and_follow_the_mass_function():
    d = D.Binomial(t64(8.0), t64(0.35))
    fg.manual_seed(11)
    s = d.sample((20000,)).numpy()
    fg.manual_seed(11)
    np.testing.assert_array_equal(s, d.sample((20000,)).numpy())
    freq = np.bincount(s.astype(int), minlength=9) / s.size
    np.testing.assert_allclose(freq, stats.binom(8, 0.35).pmf(np.arange(9)), atol=0.012)
    b = D.Binomial(t64([0.0, 3.0, 5.0]), t64([0.5, 1.0, 0.0])).sample((50,)).numpy()
    assert (
        b.shape == (50, 3)
        and (b[:, 0] == 0).all()
        and (b[:, 1] == 3).all()
        and (b[:, 2] == 0).all()
    )
    m = D.Multinomial(5, t64([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]))
    fg.manual_seed(2)
    ms = m.sample((20000,)).numpy()
    assert ms.shape == (20000, 2, 3)
    assert (ms.sum(-1) == 5).all() and (ms[:, 1] == [5, 0, 0]).all()
    np.testing.assert_allclose(ms[:, 0].mean(0), [1.0, 1.5, 2.5], atol=0.03)


def test_validation():
    with pytest.raises(ValueError, match="total_count"):
        D.Binomial(t64(2.5), t64(0.5))
    with pytest.raises(ValueError, match="probs"):
        D.Binomial(3, t64(1.5))
    with pytest.raises(ValueError, match="exactly one"):
        D.Binomial(3)
    with pytest.raises(ValueError, match="support"):
        D.Binomial(3, t64(0.5)).log_prob(t64(4.0))
    with pytest.raises(ValueError, match="sum to total_count"):
        D.Multinomial(3, t64([0.5, 0.5])).log_prob(t64([1.0, 1.0]))
    with pytest.raises(ValueError, match="total_count"):
        D.Multinomial(-1, t64([0.5, 0.5]))


def test_paddle_spellings():
    Pd = fg.distribution
    b = Pd.Binomial(10, t64([0.2, 0.6]))
    np.testing.assert_allclose(
        b.prob(t64([3.0, 6.0])).numpy(), stats.binom(10, [0.2, 0.6]).pmf([3, 6])
    )
    m = Pd.Multinomial(4, t64([0.25, 0.75]))
    np.testing.assert_allclose(
        m.log_prob(t64([1.0, 3.0])).item(), stats.multinomial(4, [0.25, 0.75]).logpmf([1, 3])
    )
    assert list(m.sample([2]).shape) == [2, 2]
