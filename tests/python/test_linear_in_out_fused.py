"""Paddle's weight layout ``[in, out]`` runs through the fused one-node linear op
(``_core._linear(..., in_out=True)``): values, gradients of every operand, double
backward and the fallbacks agree with ``x @ W + b`` composed of separate ops."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core
from ferrograd.nn import functional as F


def _leaves(shape_x, k, n, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    x = fg.to_tensor(rng.standard_normal(shape_x + (k,)), dtype=dtype, stop_gradient=False)
    w = fg.to_tensor(rng.standard_normal((k, n)), dtype=dtype, stop_gradient=False)
    b = fg.to_tensor(rng.standard_normal(n), dtype=dtype, stop_gradient=False)
    return x, w, b


@pytest.mark.parametrize("shape_x", [(5,), (2, 3)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_values_and_gradients_match_numpy(shape_x, with_bias):
    x, w, b = _leaves(shape_x, 4, 3)
    y = _core._linear(x, w, b if with_bias else None, True)
    assert y.grad_fn is not None and type(y.grad_fn).__name__ == "AddmmBackward0"
    xn, wn, bn = x.numpy(), w.numpy(), b.numpy()
    want = xn @ wn + (bn if with_bias else 0.0)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(want.shape)
    y.backward(fg.to_tensor(g))
    g2 = g.reshape(-1, 3)
    np.testing.assert_allclose(x.grad.numpy(), g @ wn.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), xn.reshape(-1, 4).T @ g2, rtol=1e-12, atol=1e-12)
    if with_bias:
        np.testing.assert_allclose(b.grad.numpy(), g2.sum(0), rtol=1e-12, atol=1e-12)
    else:
        assert b.grad is None


def test_float32_is_bitwise_the_composed_ops():
    x, w, b = _leaves((8,), 16, 5, dtype="float32")
    fused = _core._linear(x, w, b, True)
    composed = x.matmul(w) + b
    assert fused.dtype == composed.dtype
    np.testing.assert_array_equal(fused.numpy(), composed.numpy())


def test_gradcheck_and_gradgradcheck():
    x, w, b = _leaves((3,), 4, 2)
    fn = lambda x, w, b: _core._linear(x, w, b, True)  # noqa: E731
    assert fg.autograd.gradcheck(fn, (x, w, b))
    assert fg.autograd.gradgradcheck(fn, (x, w, b))


def test_only_some_operands_need_grad():
    x, w, b = _leaves((3,), 4, 2)
    x.stop_gradient = True
    y = _core._linear(x, w, b, True)
    y.sum().backward()
    assert x.grad is None
    np.testing.assert_allclose(w.grad.numpy(), np.tile(x.numpy().sum(0)[:, None], (1, 2)))


def test_shapes_outside_the_fused_path_fall_back():
    # a 1-D input and an integer dtype run as the separate ops, with the same values
    w = fg.to_tensor(np.arange(6.0).reshape(3, 2))
    x1 = fg.to_tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_core._linear(x1, w, None, True).numpy(), [16.0, 22.0])
    xi = fg.to_tensor([[1, 2, 3]], dtype="int64")
    wi = fg.to_tensor([[1, 0], [0, 1], [1, 1]], dtype="int64")
    assert _core._linear(xi, wi, None, True).numpy().tolist() == [[4, 5]]


def test_layout_mismatch_names_the_layout():
    x, w, b = _leaves((2,), 4, 3)
    with pytest.raises(ValueError, match=r"\[in_features, out_features\]"):
        F._linear_in_layout(x, w.t(), None, True)


def test_paddle_linear_layer_is_one_node():
    import ferrograd as paddle  # the layer reads its layout from the constructing module

    src = "layer = paddle.nn.Linear(4, 3)\n"
    scope = {"paddle": paddle}
    exec(compile(src, "<paddle code>", "exec"), scope)
    layer = scope["layer"]
    assert list(layer.weight.shape) == [4, 3]
    x = paddle.to_tensor(np.ones((2, 4), dtype="float32"))
    y = layer(x)
    assert type(y.grad_fn).__name__ == "AddmmBackward0"
    want = np.ones((2, 4), dtype="float32") @ layer.weight.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
