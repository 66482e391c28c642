"""Issue 17: ``F.ctc_loss`` / ``nn.CTCLoss`` against a brute-force NumPy reference that
enumerates every alignment of tiny cases (float64); reductions (``'mean'`` divides by the
target lengths), padded and concatenated targets, unbatched input, impossible samples and
``zero_infinity``, Paddle's logits / names / ``norm_by_times``, gradcheck and
gradgradcheck, bad input."""

from __future__ import annotations

import itertools

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def collapse(path, blank):
    out = []
    prev = None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_nll(lp, labels, blank):
    """``-log`` of the summed probability of every path over ``lp`` [T, C] that collapses
    to ``labels``."""
    t, c = lp.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t):
        if collapse(path, blank) == list(labels):
            total += np.exp(sum(lp[i, k] for i, k in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


CASE_T, CASE_B, CASE_C = 5, 3, 3
TARGETS = np.array([[1, 2, 0], [1, 1, 0], [2, 0, 0]])  # padded, blank=0
TARGET_LEN = np.array([2, 2, 1])
INPUT_LEN = np.array([5, 4, 3])


def case(seed=0):
    rng = np.random.default_rng(seed)
    return log_softmax(rng.standard_normal((CASE_T, CASE_B, CASE_C)))


def reference(lp, targets, target_len, input_len, blank=0):
    return np.array(
        [
            brute_nll(lp[: input_len[b], b], targets[b, : target_len[b]], blank)
            for b in range(lp.shape[1])
        ]
    )


def test_values_match_brute_force_for_each_reduction():
    lp = case()
    want = reference(lp, TARGETS, TARGET_LEN, INPUT_LEN)
    args = (fg.tensor(lp), fg.tensor(TARGETS), fg.tensor(INPUT_LEN), fg.tensor(TARGET_LEN))
    np.testing.assert_allclose(F.ctc_loss(*args, reduction="none").numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(F.ctc_loss(*args, reduction="sum").numpy(), want.sum(), rtol=1e-12)
    # torch's and Paddle's 'mean': each loss over its target length, then the batch mean
    mean = (want / TARGET_LEN).mean()
    np.testing.assert_allclose(F.ctc_loss(*args).numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(nn.CTCLoss()(*args).numpy(), mean, rtol=1e-12)


def test_concatenated_targets_lists_and_another_blank():
    lp = case(1)
    blank = 2
    targets = np.array([[0, 1, 2], [1, 1, 2], [0, 2, 2]])
    want = reference(lp, targets, TARGET_LEN, INPUT_LEN, blank)
    flat = np.concatenate([targets[b, : TARGET_LEN[b]] for b in range(3)])
    got = F.ctc_loss(
        fg.tensor(lp), fg.tensor(flat), INPUT_LEN.tolist(), tuple(TARGET_LEN), blank, "none"
    )
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_unbatched_input():
    lp = case(2)[:, 0]
    got = F.ctc_loss(fg.tensor(lp), fg.tensor([1, 2]), 5, 2, reduction="none")
    assert got.shape == []
    np.testing.assert_allclose(got.numpy(), brute_nll(lp, [1, 2], 0), rtol=1e-12)


def test_impossible_samples_and_zero_infinity():
    lp = case(3)
    targets = np.array([[1, 1, 1], [1, 2, 0], [2, 0, 0]])
    target_len = np.array([3, 2, 0])
    input_len = np.array([4, 2, 3])  # 1,1,1 needs 5 steps (two blanks between repeats)
    want = reference(lp, targets, target_len, input_len)
    assert np.isinf(want[0]) and np.isfinite(want[1:]).all()
    args = (fg.tensor(targets), input_len, target_len)
    x = fg.tensor(lp, requires_grad=True)
    got = F.ctc_loss(x, *args, reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    x = fg.tensor(lp, requires_grad=True)
    got = F.ctc_loss(x, *args, reduction="none", zero_infinity=True)
    np.testing.assert_allclose(got.numpy(), np.where(np.isinf(want), 0.0, want), rtol=1e-12)
    got.sum().backward()
    g = x.grad.numpy()
    assert np.isfinite(g).all() and np.all(g[:, 0] == 0.0)
    # 'mean' divides an empty target's loss by 1, not 0
    mean = F.ctc_loss(fg.tensor(lp), *args, zero_infinity=True).numpy()
    np.testing.assert_allclose(mean, (np.where(np.isinf(want), 0, want) / [3, 2, 1]).mean())


def test_gradcheck_and_gradgradcheck():
    lp = fg.tensor(case(4), requires_grad=True)

    def f(x):
        return F.ctc_loss(x, fg.tensor(TARGETS), INPUT_LEN, TARGET_LEN, reduction="sum")

    assert gradcheck(f, (lp,))
    small = fg.tensor(case(5)[:4, :2], requires_grad=True)

    def g(x):
        return F.ctc_loss(x, fg.tensor(TARGETS[:2]), [4, 3], [2, 2], reduction="mean")

    assert gradcheck(g, (small,))
    assert gradgradcheck(g, (small,))


def test_gradient_is_softmax_minus_posterior():
    # through the log_softmax the loss applies: exp(log_probs) - the state posteriors,
    # which sum to 1 per time step, so each valid step's gradient sums to 0 over classes
    lp = fg.tensor(case(6), requires_grad=True)
    F.ctc_loss(lp, fg.tensor(TARGETS), INPUT_LEN, TARGET_LEN, reduction="sum").backward()
    g = lp.grad.numpy()
    for b in range(CASE_B):
        np.testing.assert_allclose(g[: INPUT_LEN[b], b].sum(-1), 0.0, atol=1e-12)
        assert np.all(g[INPUT_LEN[b] :, b] == 0.0)


def test_paddle_takes_logits_and_its_names():
    # Paddle's documented example: unnormalised inputs, int32 labels
    logits = np.array(
        [
            [[4.17021990e-01, 7.20324516e-01, 1.14374816e-04], [3.02332580e-01, 1.46755889e-01, 9.23385918e-02]],
            [[1.86260208e-01, 3.45560730e-01, 3.96767467e-01], [5.38816750e-01, 4.19194520e-01, 6.85219526e-01]],
            [[2.04452246e-01, 8.78117442e-01, 2.73875929e-02], [6.70467496e-01, 4.17304814e-01, 5.58689833e-01]],
            [[1.40386939e-01, 1.98101491e-01, 8.00744593e-01], [9.68261600e-01, 3.13424170e-01, 6.92322612e-01]],
            [[8.76389146e-01, 8.94606650e-01, 8.50442126e-02], [3.90547849e-02, 1.69830427e-01, 8.78142476e-01]],
        ],
        dtype=np.float32,
    )  # fmt: skip
    labels = fg.to_tensor(np.array([[1, 2, 2], [1, 2, 2]], dtype=np.int32))
    in_len = fg.to_tensor(np.array([5, 5], dtype=np.int64))
    lab_len = fg.to_tensor(np.array([3, 3], dtype=np.int64))
    x = fg.to_tensor(logits)
    loss = F.ctc_loss(
        x, labels=labels, input_lengths=in_len, label_lengths=lab_len, reduction="none"
    )
    assert loss.dtype == fg.float32
    np.testing.assert_allclose(loss.numpy(), [3.9179852, 2.9076521], rtol=1e-6)
    mean = nn.CTCLoss(blank=0)(x, labels, in_len, lab_len)
    np.testing.assert_allclose(mean.numpy(), 1.1376063, rtol=1e-6)
    want = reference(
        log_softmax(logits.astype(np.float64)), np.array([[1, 2, 2]] * 2), [3, 3], [5, 5]
    )
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-6)


def test_norm_by_times_scales_the_gradient_only():
    lp = case(7)
    args = (fg.tensor(TARGETS), INPUT_LEN, TARGET_LEN)
    a = fg.tensor(lp, requires_grad=True)
    b = fg.tensor(lp, requires_grad=True)
    la = F.ctc_loss(a, *args, reduction="sum")
    lb = nn.CTCLoss(reduction="sum")(b, *args, True)  # Paddle's forward(..., norm_by_times)
    np.testing.assert_allclose(la.numpy(), lb.numpy(), rtol=1e-12)
    la.backward()
    lb.backward()
    np.testing.assert_allclose(
        b.grad.numpy(), a.grad.numpy() / INPUT_LEN[None, :, None], atol=1e-14
    )


def test_bad_input_is_refused_clearly():
    lp = fg.tensor(case())
    t = fg.tensor(TARGETS)
    with pytest.raises(ValueError, match="blank"):
        F.ctc_loss(lp, t, INPUT_LEN, TARGET_LEN, blank=3)
    with pytest.raises(ValueError, match="must not contain the blank"):
        F.ctc_loss(lp, t, INPUT_LEN, TARGET_LEN, blank=1)
    with pytest.raises(ValueError, match="exceeds log_probs"):
        F.ctc_loss(lp, t, [6, 1, 1], TARGET_LEN)
    with pytest.raises(ValueError, match="exceeds the padded"):
        F.ctc_loss(lp, t, INPUT_LEN, [4, 1, 1])
    with pytest.raises(ValueError, match="sum\\(target_lengths\\)"):
        F.ctc_loss(lp, fg.tensor([1, 2, 1]), INPUT_LEN, TARGET_LEN)
    with pytest.raises(ValueError, match="3 entries"):
        F.ctc_loss(lp, t, [5, 5], TARGET_LEN)
    with pytest.raises(ValueError, match="negative"):
        F.ctc_loss(lp, t, [5, -1, 5], TARGET_LEN)
    with pytest.raises(ValueError, match="lie in"):
        F.ctc_loss(lp, fg.tensor([[1, 5, 0], [1, 1, 0], [2, 0, 0]]), INPUT_LEN, TARGET_LEN)
    with pytest.raises(TypeError, match="integers"):
        F.ctc_loss(lp, t.astype("float32"), INPUT_LEN, TARGET_LEN)
    with pytest.raises(TypeError, match="float32 or float64"):
        F.ctc_loss(lp.astype("int64"), t, INPUT_LEN, TARGET_LEN)
    with pytest.raises(ValueError, match="reduction"):
        F.ctc_loss(lp, t, INPUT_LEN, TARGET_LEN, reduction="avg")
    with pytest.raises(ValueError, match="blank"):
        F.ctc_loss(lp, t, INPUT_LEN, TARGET_LEN, blank=2**62)
    with pytest.raises(ValueError, match="exceeds"):
        F.ctc_loss(lp, t, [2**40, 1, 1], TARGET_LEN)
