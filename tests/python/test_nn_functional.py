"""``ferrograd.nn.functional``: every function against a NumPy formula (float64) and
its gradients against finite differences."""

from __future__ import annotations

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_check import check_grads, check_second_order

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
ERF = np.vectorize(math.erf)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


ACTIVATIONS = {
    "relu": (F.relu, lambda x: np.maximum(x, 0)),
    "tanh": (F.tanh, np.tanh),
    "sigmoid": (F.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + ERF(x / math.sqrt(2)))),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "gelu_paddle_true": (
        lambda x: F.gelu(x, True),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "softmax": (F.softmax, np_softmax),
    "softmax_dim0": (lambda x: F.softmax(x, 0), lambda x: np_softmax(x, 0)),
    "softmax_axis0": (lambda x: F.softmax(x, axis=0), lambda x: np_softmax(x, 0)),
    "log_softmax": (F.log_softmax, np_log_softmax),
    "log_softmax_dim0": (lambda x: F.log_softmax(x, dim=0), lambda x: np_log_softmax(x, 0)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_numpy(name):
    f, ref = ACTIVATIONS[name]
    np.testing.assert_allclose(f(fg.tensor(X)).numpy(), ref(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradients(name):
    f, _ = ACTIVATIONS[name]
    x = X + 0.05  # keep relu's kink away from the sample points
    check_grads(f, [x])


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "gelu", "gelu_tanh", "softmax", "log_softmax"])
def test_activation_second_order(name):
    check_second_order(ACTIVATIONS[name][0], X[:2, :3])


def test_gelu_rejects_unknown_approximation():
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(fg.tensor(X), approximate="fast")


def test_linear_matches_numpy_and_gradients():
    w = RNG.standard_normal((3, 5))
    b = RNG.standard_normal(3)
    out = F.linear(fg.tensor(X), fg.tensor(w), fg.tensor(b))
    np.testing.assert_allclose(out.numpy(), X @ w.T + b, rtol=1e-12)
    np.testing.assert_allclose(F.linear(fg.tensor(X), fg.tensor(w)).numpy(), X @ w.T, rtol=1e-12)
    check_grads(F.linear, [X, w, b])
    check_grads(lambda x, w: F.linear(x, w), [RNG.standard_normal((2, 3, 5)), w])


def np_layer_norm(x, n_axes, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def test_layer_norm_matches_numpy_and_gradients():
    w, b = RNG.standard_normal(5), RNG.standard_normal(5)
    out = F.layer_norm(fg.tensor(X), [5], fg.tensor(w), fg.tensor(b))
    np.testing.assert_allclose(out.numpy(), np_layer_norm(X, 1, w, b), rtol=1e-10)
    check_grads(lambda x, w, b: F.layer_norm(x, 5, w, b), [X, w, b])
    x3 = RNG.standard_normal((2, 3, 4))
    out = F.layer_norm(fg.tensor(x3), (3, 4), epsilon=1e-3)
    np.testing.assert_allclose(out.numpy(), np_layer_norm(x3, 2, eps=1e-3), rtol=1e-10)
    check_grads(lambda x: F.layer_norm(x, [3, 4]), [x3])
    check_second_order(lambda x: F.layer_norm(x, [4]), x3[0])


def test_layer_norm_shape_mismatch_is_clear():
    with pytest.raises(ValueError, match="normalized_shape"):
        F.layer_norm(fg.tensor(X), [4])


def test_embedding_matches_numpy_and_gradients():
    table = RNG.standard_normal((6, 3))
    ids = np.array([[0, 2, 5], [2, 2, 1]])
    out = F.embedding(fg.tensor(ids), fg.tensor(table))
    np.testing.assert_allclose(out.numpy(), table[ids])
    check_grads(lambda t: F.embedding(fg.tensor(ids), t), [table])


def test_embedding_padding_idx_keeps_value_and_cuts_gradient():
    table = RNG.standard_normal((4, 2))
    w = fg.tensor(table, requires_grad=True)
    ids = fg.tensor([1, 3, 1, 0])
    out = F.embedding(ids, w, padding_idx=1)
    np.testing.assert_allclose(out.numpy(), table[[1, 3, 1, 0]])
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[1, 1], [0, 0], [0, 0], [1, 1]])


def test_embedding_single_id_and_out_of_range():
    table = RNG.standard_normal((3, 2))
    np.testing.assert_array_equal(F.embedding(fg.tensor([1]), fg.tensor(table)).numpy(), table[[1]])
    np.testing.assert_array_equal(F.embedding(fg.tensor(2), fg.tensor(table)).numpy(), table[2])
    with pytest.raises(IndexError, match=r"embedding: ids must lie in \[0, 3\)"):
        F.embedding(fg.tensor([3]), fg.tensor(table))


def test_linear_feature_mismatch_is_explained():
    with pytest.raises(ValueError, match=r"input has 3 features.*\[2, 5\] expects 5"):
        F.linear(fg.ones(4, 3), fg.ones(2, 5))


def test_weighted_nll_with_one_sample():
    logp = np_log_softmax(LOGITS[:1])
    out = F.nll_loss(fg.tensor(logp), fg.tensor([2]), fg.tensor(CLASS_W), reduction="sum")
    np.testing.assert_allclose(out.numpy(), -logp[0, 2] * CLASS_W[2])


def test_embedding_rejects_float_ids():
    with pytest.raises(TypeError, match="integer"):
        F.embedding(fg.tensor([0.0]), fg.tensor(np.ones((2, 2))))


# ------------------------------------------------------------------------------- dropout


def test_dropout_zeroes_and_rescales_with_the_seeded_generator():
    x = fg.ones(2000, dtype=fg.float64)
    fg.seed(5)
    a = F.dropout(x, 0.25).numpy()
    fg.seed(5)
    b = F.dropout(x, 0.25).numpy()
    np.testing.assert_array_equal(a, b)  # same seed, same mask
    assert set(np.unique(a)) <= {0.0, 1 / 0.75}
    assert abs((a == 0).mean() - 0.25) < 0.04
    fg.seed(6)
    assert not np.array_equal(F.dropout(x, 0.25).numpy(), a)


def test_dropout_gradient_is_the_mask():
    x = fg.tensor(np.ones(100), requires_grad=True)
    fg.seed(1)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout_identity_cases():
    x = fg.tensor(X)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), np.zeros_like(X))
    np.testing.assert_allclose(
        F.dropout(x, 0.2, training=False, mode="downscale_in_infer").numpy(), X * 0.8
    )


@pytest.mark.parametrize("p", [-0.1, 1.5, "half"])
def test_dropout_rejects_bad_probability(p):
    with pytest.raises(ValueError, match="probability"):
        F.dropout(fg.tensor(X), p)


# -------------------------------------------------------------------------------- losses

LOGITS = RNG.standard_normal((6, 4))
LABELS = np.array([0, 3, 1, 1, 2, 0])
CLASS_W = np.array([0.5, 2.0, 1.0, 1.5])


def np_nll(logp, labels, weight=None, ignore_index=-100, reduction="mean"):
    valid = labels != ignore_index
    safe = np.where(valid, labels, 0)
    w = (np.ones(logp.shape[1]) if weight is None else weight)[safe] * valid
    loss = -logp[np.arange(len(labels)), safe] * w
    if reduction == "mean":
        return loss.sum() / w.sum()
    return loss.sum() if reduction == "sum" else loss


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll_match_numpy(reduction, weighted):
    w = CLASS_W if weighted else None
    wt = fg.tensor(w) if weighted else None
    ref = np_nll(np_log_softmax(LOGITS), LABELS, w, reduction=reduction)
    ce = F.cross_entropy(fg.tensor(LOGITS), fg.tensor(LABELS), weight=wt, reduction=reduction)
    np.testing.assert_allclose(ce.numpy(), ref, rtol=1e-12)
    nll = F.nll_loss(
        F.log_softmax(fg.tensor(LOGITS), 1), fg.tensor(LABELS), wt, reduction=reduction
    )
    np.testing.assert_allclose(nll.numpy(), ref, rtol=1e-12)
    check_grads(
        lambda x: F.cross_entropy(x, fg.tensor(LABELS), weight=wt, reduction=reduction), [LOGITS]
    )


def test_cross_entropy_ignore_index():
    labels = LABELS.copy()
    labels[[1, 4]] = -100
    ref = np_nll(np_log_softmax(LOGITS), labels)
    out = F.cross_entropy(fg.tensor(LOGITS), fg.tensor(labels))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    check_grads(lambda x: F.cross_entropy(x, fg.tensor(labels)), [LOGITS])
    out = F.cross_entropy(fg.tensor(LOGITS), fg.tensor(LABELS), ignore_index=1)
    np.testing.assert_allclose(out.numpy(), np_nll(np_log_softmax(LOGITS), LABELS, ignore_index=1))


def test_cross_entropy_label_smoothing_matches_numpy():
    eps = 0.1
    logp = np_log_softmax(LOGITS)
    c = LOGITS.shape[1]
    target = np.full_like(LOGITS, eps / c)
    target[np.arange(len(LABELS)), LABELS] += 1 - eps
    ref = -(target * logp).sum(1).mean()
    out = F.cross_entropy(fg.tensor(LOGITS), fg.tensor(LABELS), label_smoothing=eps)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    check_grads(lambda x: F.cross_entropy(x, fg.tensor(LABELS), label_smoothing=eps), [LOGITS])


def test_cross_entropy_soft_labels():
    probs = np_softmax(RNG.standard_normal(LOGITS.shape))
    ref = -(probs * np_log_softmax(LOGITS)).sum(1)
    out = F.cross_entropy(fg.tensor(LOGITS), fg.tensor(probs), reduction="none")
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    paddle = F.cross_entropy(fg.tensor(LOGITS), fg.tensor(probs), soft_label=True)
    np.testing.assert_allclose(paddle.numpy(), ref.mean(), rtol=1e-12)
    check_grads(lambda x, p: F.cross_entropy(x, p), [LOGITS, probs])


def test_cross_entropy_paddle_label_shape_and_axis():
    labels = fg.tensor(LABELS.reshape(-1, 1))  # Paddle's [N, 1]
    ref = np_nll(np_log_softmax(LOGITS), LABELS)
    np.testing.assert_allclose(F.cross_entropy(fg.tensor(LOGITS), labels).numpy(), ref)
    # class axis last on a 3-D input: [N, T, C]
    x3 = RNG.standard_normal((2, 3, 4))
    y3 = np.array([[0, 1, 3], [2, 2, 0]])
    out = F.cross_entropy(fg.tensor(x3), fg.tensor(y3), axis=-1, reduction="none")
    ref3 = -np.take_along_axis(np_log_softmax(x3, -1), y3[..., None], -1)[..., 0]
    np.testing.assert_allclose(out.numpy(), ref3, rtol=1e-12)
    # Paddle's [N, T, 1] labels with the class axis last: the loss keeps that size-1 dim
    out = F.cross_entropy(fg.tensor(x3), fg.tensor(y3[..., None]), axis=-1, reduction="none")
    np.testing.assert_allclose(out.numpy(), ref3[..., None], rtol=1e-12)
    # 4-D, classes last: the other dims keep their order
    x4 = RNG.standard_normal((2, 3, 2, 4))
    y4 = RNG.integers(0, 4, (2, 3, 2))
    out = F.cross_entropy(fg.tensor(x4), fg.tensor(y4), axis=3, reduction="none")
    ref4 = -np.take_along_axis(np_log_softmax(x4, -1), y4[..., None], -1)[..., 0]
    np.testing.assert_allclose(out.numpy(), ref4, rtol=1e-12)
    soft4 = np_softmax(RNG.standard_normal(x4.shape))
    out = F.cross_entropy(fg.tensor(x4), fg.tensor(soft4), axis=-1, reduction="none")
    np.testing.assert_allclose(out.numpy(), -(soft4 * np_log_softmax(x4, -1)).sum(-1), rtol=1e-12)
    # torch's [N, C, T]
    out = F.cross_entropy(fg.tensor(x3.transpose(0, 2, 1)), fg.tensor(y3), reduction="none")
    np.testing.assert_allclose(out.numpy(), ref3, rtol=1e-12)


def test_cross_entropy_second_order():
    check_second_order(
        lambda x: F.cross_entropy(x, fg.tensor(LABELS[:2]), reduction="none"), LOGITS[:2]
    )


def test_losses_reject_bad_input():
    x, y = fg.tensor(LOGITS), fg.tensor(LABELS)
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, y, reduction="avg")
    with pytest.raises(IndexError, match=r"\[0, 4\)"):
        F.cross_entropy(x, fg.tensor([0, 1, 2, 3, 4, 0]))
    with pytest.raises(ValueError, match="target shape"):
        F.nll_loss(x, fg.tensor([0, 1]))
    with pytest.raises(TypeError, match="integer"):
        F.nll_loss(x, fg.tensor(LABELS.astype(np.float64)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_numpy(reduction):
    y = RNG.standard_normal(X.shape)
    out = F.mse_loss(fg.tensor(X), fg.tensor(y), reduction=reduction)
    sq = (X - y) ** 2
    ref = {"mean": sq.mean(), "sum": sq.sum(), "none": sq}[reduction]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    check_grads(lambda a, b: F.mse_loss(a, b, reduction), [X, y])


def test_float32_training_dtype_is_kept():
    x = fg.tensor(LOGITS, dtype=fg.float32)
    assert F.cross_entropy(x, fg.tensor(LABELS)).dtype == fg.float32
    assert F.layer_norm(x, [4]).dtype == fg.float32


# ------------------------------------------------------------------- property tests


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 6),
    c=st.integers(2, 6),
    seed=st.integers(0, 2**16),
    smoothing=st.sampled_from([0.0, 0.2]),
)
def test_cross_entropy_property_matches_numpy(n, c, seed, smoothing):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((n, c)) * 3
    labels = rng.integers(0, c, n)
    logp = np_log_softmax(logits)
    target = np.full((n, c), smoothing / c)
    target[np.arange(n), labels] += 1 - smoothing
    ref = -(target * logp).sum(1).mean()
    out = F.cross_entropy(fg.tensor(logits), fg.tensor(labels), label_smoothing=smoothing)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    n_axes=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_layer_norm_property_matches_numpy(shape, n_axes, seed):
    n_axes = min(n_axes, len(shape))
    x = np.random.default_rng(seed).standard_normal(shape) * 2 + 1
    out = F.layer_norm(fg.tensor(x), shape[len(shape) - n_axes :])
    np.testing.assert_allclose(out.numpy(), np_layer_norm(x, n_axes), rtol=1e-9, atol=1e-9)
