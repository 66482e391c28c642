"""Session-20 differential run, Paddle code: cross-entropy's soft-label / label-smoothing
weighting and shapes (Paddle 3.3.1) and ``paddle.load``'s plain dict."""

import os
import tempfile

import ferrograd as paddle
import numpy as np
import pytest

F = paddle.nn.functional
W4 = np.array([0.5, 2.0, 1.0, 1.5])
X = np.random.default_rng(0).standard_normal((5, 4))
TG = np.array([0, 3, 1, 3, 2])


def _logp(x):
    return x - np.log(np.exp(x).sum(1, keepdims=True))


def _paddle_soft(s, weight):
    # Paddle 3.3.1: loss_i = -sum(s * log p) * sum(s * w); mean = sum(loss) / sum(factors)
    per = -(s * _logp(X)).sum(1)
    wg = s @ weight
    return per * wg, (per * wg).sum() / wg.sum()


def test_label_smoothing_with_weight_is_paddles_soft_label():
    s = np.eye(4)[TG] * 0.9 + 0.1 / 4
    none, mean = _paddle_soft(s, W4)
    x = paddle.to_tensor(X)
    kw = {"weight": paddle.to_tensor(W4), "label_smoothing": 0.1}
    out = F.cross_entropy(x, paddle.to_tensor(TG), reduction="none", **kw)
    assert list(out.shape) == [5, 1]  # Paddle keeps the class dim here
    np.testing.assert_allclose(out.numpy().ravel(), none, rtol=1e-10)
    got = F.cross_entropy(x, paddle.to_tensor(TG), reduction="mean", **kw)
    np.testing.assert_allclose(got.numpy(), mean, rtol=1e-10)


def test_label_smoothing_without_weight_keeps_class_dim():
    out = F.cross_entropy(
        paddle.to_tensor(X), paddle.to_tensor(TG), reduction="none", label_smoothing=0.2
    )
    s = np.eye(4)[TG] * 0.8 + 0.2 / 4
    assert list(out.shape) == [5, 1]
    np.testing.assert_allclose(out.numpy().ravel(), -(s * _logp(X)).sum(1), rtol=1e-10)


def test_soft_label_with_weight():
    s = np.random.default_rng(1).dirichlet(np.ones(4), 5)
    none, mean = _paddle_soft(s, W4)
    x = paddle.to_tensor(X, stop_gradient=False)
    out = F.cross_entropy(
        x, paddle.to_tensor(s), weight=paddle.to_tensor(W4), soft_label=True, reduction="none"
    )
    np.testing.assert_allclose(out.numpy().ravel(), none, rtol=1e-10)
    m = F.cross_entropy(
        x, paddle.to_tensor(s), weight=paddle.to_tensor(W4), soft_label=True, reduction="mean"
    )
    np.testing.assert_allclose(m.numpy(), mean, rtol=1e-10)
    m.backward()
    # d mean / d x = factor_i * (softmax_i - s_i) / sum(factors)
    p = np.exp(_logp(X))
    wg = s @ W4
    np.testing.assert_allclose(
        x.grad.numpy(), wg[:, None] * (p - s) / wg.sum(), rtol=1e-9, atol=1e-12
    )


def test_label_smoothing_refuses_ignored_ids():
    with pytest.raises(ValueError, match="class id"):
        F.cross_entropy(
            paddle.to_tensor(X), paddle.to_tensor(np.array([0, -100, 1, 2, 3])), label_smoothing=0.1
        )


def test_paddle_load_gives_a_plain_dict():
    m = paddle.nn.Linear(3, 2)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.pdparams")
        paddle.save(m.state_dict(), path)
        sd = paddle.load(path)
    assert type(sd) is dict  # Paddle 3.3.1
    assert list(sd) == ["weight", "bias"]


def _lamb_run(**kw):
    paddle.set_default_dtype("float64")
    try:
        a = paddle.create_parameter([3], "float64")
        a.set_value(paddle.to_tensor(np.array([1.0, -2.0, 0.5])))
        b = paddle.create_parameter([2], "float64")
        b.set_value(paddle.to_tensor(np.array([0.3, 0.7])))
        o = paddle.optimizer.Lamb(learning_rate=0.1, lamb_weight_decay=0.2, parameters=[a, b], **kw)
        for _ in range(3):
            ((a * a * a).sum() + (a.sum() * b * b).sum()).backward()
            o.step()
            o.clear_grad()
        return a.numpy(), b.numpy(), b
    finally:
        paddle.set_default_dtype("float32")


def test_lamb_matches_paddle():
    holder = {}
    a, b, _ = _lamb_run(exclude_from_weight_decay_fn=lambda p: p is holder.get("b"))
    # without exclusion first, then the same with b excluded (no decay, trust ratio 1)
    a2, b2, bp = _lamb_run(exclude_from_weight_decay_fn=lambda p: p.shape == [2])
    # Paddle 3.3.1 (its beta powers are float32, hence rtol 1e-5)
    np.testing.assert_allclose(a2, [0.52916741, -2.23848363, 0.06547704], rtol=1e-5)
    np.testing.assert_allclose(b2, [0.58741072, 0.99143046], rtol=1e-5)
    assert not np.allclose(b, b2)  # the exclusion changes b's update
    with pytest.raises(ValueError, match="beta1"):
        paddle.optimizer.Lamb(beta1=1.0, parameters=[bp])


def test_layer_norm_multi_dim_parameters_are_flat():
    m = paddle.nn.LayerNorm([2, 3], epsilon=1e-4)
    assert list(m.weight.shape) == [6] and list(m.bias.shape) == [6]  # Paddle 3.3.1
    w, b = np.linspace(0.5, 1.5, 6), np.linspace(-1, 1, 6)
    m.set_state_dict({"weight": paddle.to_tensor(w), "bias": paddle.to_tensor(b)})
    x = np.random.default_rng(3).standard_normal((4, 2, 3))
    flat = x.reshape(4, 6)
    want = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-4)
    want = (want * w + b).reshape(4, 2, 3)
    got = m(paddle.to_tensor(x.astype(np.float32)))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def test_hook_weight_norm_paddle_layout():
    m = paddle.nn.utils.weight_norm(paddle.nn.Conv2D(2, 3, 3), dim=1)
    # Paddle 3.3.1: v first, then a 1-D g
    shapes = {k: list(v.shape) for k, v in m.state_dict().items()}
    assert list(shapes) == ["bias", "weight_v", "weight_g"]
    assert shapes["weight_g"] == [2]
    whole = paddle.nn.utils.weight_norm(paddle.nn.Conv2D(2, 3, 3), dim=None)
    assert list(whole.weight_g.shape) == []
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype("float32"))
    w = m.weight_v.numpy()
    g = m.weight_g.numpy()
    want = w * (g / np.sqrt((w * w).sum(axis=(0, 2, 3))))[None, :, None, None]
    m(x)
    np.testing.assert_allclose(m.weight.numpy(), want, rtol=1e-5)
    paddle.nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
