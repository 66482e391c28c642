"""Session 42's Paddle names (_names_s42_paddle.py): Tensor methods of Paddle 3's
``python/paddle/tensor/__init__.py`` ``tensor_method_func`` (Paddle binds each function
itself to Tensor in ``base/dygraph/math_op_patch.py``, so ``x.f(*a)`` is
``paddle.f(x, *a)``), ``paddle.bitwise_invert`` / ``bitwise_invert_`` and the top-level
``paddle.layer_norm`` / ``group_norm`` / ``adaptive_avg_pool1d`` of Paddle 3's
``__init__.py`` ``__all__``."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
from ferrograd._names_s42_paddle import METHOD_NAMES

rng = np.random.default_rng(7)


def _run(code: str) -> dict:
    ns = {"paddle": fg}
    exec(compile(code, "<paddle code>", "exec"), ns)
    return ns


def test_every_method_is_the_function_with_self_first():
    for name in METHOD_NAMES:
        assert callable(getattr(fg.Tensor, name)), name
    x = fg.to_tensor([5.0, -3.0, 7.0])
    np.testing.assert_allclose(x.floor_mod(fg.to_tensor([3.0])).numpy(), [2.0, 0.0, 1.0])
    assert x.isin(fg.to_tensor([7.0])).tolist() == [False, False, True]
    assert bool(x.equal_all(x)) and bool(x.is_tensor())
    assert int(x.rank()) == 1 and not bool(x.is_empty())
    assert x.atleast_2d().shape == [1, 3] and x.atleast_3d().shape == [1, 3, 1]
    np.testing.assert_allclose(x.vander().numpy(), np.vander([5.0, -3.0, 7.0]))
    np.testing.assert_allclose(x.trapezoid().numpy(), np.trapezoid([5.0, -3.0, 7.0]))
    assert x.combinations().shape == [3, 2]


def test_methods_run_in_paddle_code_and_differentiate():
    ns = _run(
        "x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype='float64', stop_gradient=False)\n"
        "y = x.tensordot(x, axes=2)\n"
        "y.backward()\n"
        "r = x.cumulative_trapezoid(axis=1)\n"
    )
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(float(ns["y"]), (x * x).sum())
    np.testing.assert_allclose(ns["x"].grad.numpy(), 2 * x)
    np.testing.assert_allclose(ns["r"].numpy(), [[1.5], [3.5]])
    a = rng.standard_normal((3, 2))
    b = rng.standard_normal((4, 2))
    d = fg.to_tensor(a).cdist(fg.to_tensor(b)).numpy()
    np.testing.assert_allclose(d, np.linalg.norm(a[:, None] - b[None], axis=-1), rtol=1e-6)


def test_bitwise_invert_aliases():
    x = fg.to_tensor([0, 5, -2], dtype="int32")
    assert fg.bitwise_invert(x).tolist() == [-1, -6, 1]
    y = fg.bitwise_invert_(x)
    assert y is x and x.tolist() == [-1, -6, 1]
    assert x.bitwise_invert_() is x and x.tolist() == [0, 5, -2]


def test_paddle_top_level_norms_and_pool():
    x = rng.standard_normal((2, 4, 3))
    ns = _run(
        "import numpy as np\n"
        "x = paddle.to_tensor(X)\n"
        "ln = paddle.layer_norm(x, [3], None, None, 1e-5)\n"
        "gn = paddle.group_norm(x, 2, 1e-5)\n"
        "ap = paddle.adaptive_avg_pool1d(x, 1)\n".replace("X", repr(x.tolist()))
    )
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ns["ln"].numpy(), ref, rtol=1e-5, atol=1e-5)
    g = x.reshape(2, 2, 6)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(
        x.shape
    )
    np.testing.assert_allclose(ns["gn"].numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ns["ap"].numpy(), x.mean(-1, keepdims=True), rtol=1e-6)
