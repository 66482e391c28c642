"""Issue 17: ``nn.AdaptiveLogSoftmaxWithLoss`` (PyTorch) against a NumPy float64 reference
of the head / cluster factorisation: ``forward``'s output and loss, ``log_prob``,
``predict``, gradients, bad input."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(11)


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def make(in_features=6, n_classes=15, cutoffs=(4, 9), div_value=2.0, head_bias=True):
    m = nn.AdaptiveLogSoftmaxWithLoss(
        in_features, n_classes, list(cutoffs), div_value=div_value, head_bias=head_bias
    ).double()
    return m


def ref_full(m, x):
    head = x @ m.head.weight.detach().numpy().T
    if m.head.bias is not None:
        head = head + m.head.bias.detach().numpy()
    hl = log_softmax(head)
    parts = [hl[:, : m.shortlist_size]]
    for i, seq in enumerate(m.tail):
        w1, w2 = seq[0].weight.detach().numpy(), seq[1].weight.detach().numpy()
        parts.append(log_softmax(x @ w1.T @ w2.T) + hl[:, m.shortlist_size + i][:, None])
    return np.concatenate(parts, 1), hl


def test_structure_matches_torch():
    m = make()
    assert m.cutoffs == [4, 9, 15] and m.shortlist_size == 4 and m.n_clusters == 2
    assert list(m.head.weight.shape) == [6, 6] and m.head.bias is not None
    assert [list(s[0].weight.shape) for s in m.tail] == [[3, 6], [1, 6]]
    assert [list(s[1].weight.shape) for s in m.tail] == [[5, 3], [6, 1]]
    assert make(head_bias=False).head.bias is None


def test_forward_log_prob_predict():
    m = make()
    x = RNG.standard_normal((9, 6))
    t = np.array([0, 3, 4, 8, 9, 14, 2, 10, 5])
    out, loss = m(fg.tensor(x), fg.tensor(t))
    full, hl = ref_full(m, x)
    want = full[np.arange(9), t]
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(loss.item(), -want.mean(), rtol=1e-12)
    np.testing.assert_allclose(m.log_prob(fg.tensor(x)).detach().numpy(), full, rtol=1e-12)
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0, rtol=1e-12)
    for scale in (1.0, 5.0):
        xs = x * scale
        full, hl = ref_full(m, xs)
        head_pick = hl.argmax(1)
        want = np.where(head_pick < m.shortlist_size, head_pick, full.argmax(1))
        got = m.predict(fg.tensor(xs)).numpy()
        np.testing.assert_array_equal(got, want)


def test_unbatched_and_gradients():
    m = make()
    x = RNG.standard_normal(6)
    out, loss = m(fg.tensor(x), fg.tensor(np.int64(11)))
    assert out.ndim == 0
    full, _ = ref_full(m, x[None])
    np.testing.assert_allclose(out.item(), full[0, 11], rtol=1e-12)
    t = fg.tensor([0, 5, 12, 7])
    xb = fg.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    assert gradcheck(lambda v: m(v, t).loss, (xb,))
    m(xb, t).loss.backward()
    for p in m.parameters():
        assert p.grad is not None


@pytest.mark.parametrize(
    "cutoffs", [[], [0, 4], [4, 4], [9, 4], [4, 15], [4.5], [True]]
)  # fmt: skip
def test_bad_cutoffs(cutoffs):
    with pytest.raises(ValueError, match="cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(6, 15, cutoffs)


def test_bad_input():
    m = make()
    with pytest.raises(RuntimeError, match=r"\[0, 14\]"):
        m(fg.rand([2, 6], dtype=fg.float64), fg.tensor([0, 15]))
    with pytest.raises(RuntimeError, match="batch dimension"):
        m(fg.rand([2, 6], dtype=fg.float64), fg.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="multi-target"):
        m(fg.rand([2, 6]), fg.tensor([[0], [1]]))
    with pytest.raises(TypeError, match="integer"):
        m(fg.rand([2, 6]), fg.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="in_features"):
        m.log_prob(fg.rand([6]))
    for n in (2**40, 2**63 - 1):
        with pytest.raises(ValueError):
            nn.AdaptiveLogSoftmaxWithLoss(8, n, [2])
        with pytest.raises(ValueError):
            nn.AdaptiveLogSoftmaxWithLoss(n, 10, [2])
    with pytest.raises(ValueError, match="div_value"):
        nn.AdaptiveLogSoftmaxWithLoss(6, 15, [4], div_value=0.0)


def test_reset_parameters_redraws_every_projection():
    m = make(in_features=16)
    before = [p.numpy().copy() for p in m.parameters()]
    m.reset_parameters()
    after = [p.numpy() for p in m.parameters()]
    assert all((a != b).any() for a, b in zip(after, before))
