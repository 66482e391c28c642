"""The dynamic-graph ``PyLayer`` / ``PyLayerContext`` examples of Paddle's
``PyLayer`` and ``PyLayerContext`` reference pages and of its "custom Python operators"
guide, transcribed with only the import line changed.

After each sample come assertions of the mathematically right results: the values and
gradients that the layer's own ``forward`` and ``backward`` define. The static-graph
``py_func`` parts of that guide are out of scope here.
"""

from __future__ import annotations

import os

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import PyLayer


@pytest.fixture(autouse=True)
def _seeded():
    paddle.seed(2024)


@pytest.fixture
def restore_env(monkeypatch):
    """The samples set FLAGS_enable_eager_mode; undo it after the test."""
    monkeypatch.delenv("FLAGS_enable_eager_mode", raising=False)


def values(t):
    return np.asarray(t.numpy(), dtype=np.float64)


def tanh_grad(x):
    return 1.0 - np.tanh(values(x)) ** 2


# ---------------------------------------------------------------------------------------
# Seeds 000 / 001: PyLayerContext
# ---------------------------------------------------------------------------------------


def test_pylayercontext_class_example():
    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            # ctx is a object of PyLayerContext.
            y = paddle.tanh(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            # ctx is a object of PyLayerContext.
            (y,) = ctx.saved_tensor()
            grad = dy * (1 - paddle.square(y))
            return grad

    # the page defines the layer only; use it
    x = paddle.to_tensor([[-1.5, 0.0], [0.5, 2.0]])
    x.stop_gradient = False
    z = cus_tanh.apply(x)
    np.testing.assert_allclose(values(z), np.tanh(values(x)), rtol=1e-6)
    (z * 3).sum().backward()
    np.testing.assert_allclose(values(x.grad), 3 * tanh_grad(x), rtol=1e-5, atol=1e-6)


def test_save_for_backward_and_saved_tensor_examples():
    """The ``save_for_backward`` and ``saved_tensor`` sections show the same code."""

    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            # ctx is a context object that store some objects for backward.
            y = paddle.tanh(x)
            # Pass tensors to backward.
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            # Get the tensors passed by forward.
            (y,) = ctx.saved_tensor()
            grad = dy * (1 - paddle.square(y))
            return grad

    x = paddle.randn([3, 4], dtype="float64")
    x.stop_gradient = False
    z = cus_tanh.apply(x)
    assert z.stop_gradient is False
    z.sum().backward()
    np.testing.assert_allclose(values(x.grad), tanh_grad(x), rtol=1e-12)
    # and it is differentiable twice: d/dx (1 - tanh^2) = -2 tanh (1 - tanh^2)
    x2 = x.detach()
    x2.stop_gradient = False
    (g,) = paddle.grad(cus_tanh.apply(x2).sum(), x2, create_graph=True)
    (gg,) = paddle.grad(g.sum(), x2)
    t = np.tanh(values(x2))
    np.testing.assert_allclose(values(gg), -2 * t * (1 - t**2), rtol=1e-10, atol=1e-12)


def test_mark_not_inplace_example():
    class Exp(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, grad_output):
            out = grad_output.exp()
            return out

    x = paddle.randn((1, 1))
    x.stop_gradient = False
    attn_layers = []
    for idx in range(0, 2):  # noqa: B007
        attn_layers.append(Exp())

    for step in range(0, 2):  # noqa: B007
        a = x
        for j in range(0, 2):
            a = attn_layers[j].apply(x)
        a.backward()

    # Each step backpropagates through the second layer only (the loop rebinds a from x):
    # its backward turns the seed gradient 1 into exp(1). Paddle 3.3.1 loses this gradient
    # (x.grad stays None); ferrograd delivers it.
    assert a is not x
    assert x.is_leaf and x.grad_fn is None
    assert x.grad is not None
    np.testing.assert_allclose(values(x.grad), [[2 * np.e]], rtol=1e-6)


def test_mark_non_differentiable_example(restore_env):
    os.environ["FLAGS_enable_eager_mode"] = "1"

    class Tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a = x + x
            b = x + x + x
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            assert np.equal(grad_a.numpy(), paddle.zeros([1]).numpy())
            assert np.equal(grad_b.numpy(), paddle.ones([1], dtype="float64").numpy())
            return grad_b

    x = paddle.ones([1], dtype="float64")
    x.stop_gradient = False
    a, b = Tanh.apply(x)
    b.sum().backward()

    assert a.stop_gradient is True
    assert b.stop_gradient is False
    # the layer's backward passes grad_b through: d(sum b)/dx is declared to be 1
    assert x.grad is not None, "backward did not run"
    np.testing.assert_allclose(values(x.grad), [1.0])
    assert x.grad.dtype == paddle.float64


def test_set_materialize_grads_example(restore_env):
    os.environ["FLAGS_enable_eager_mode"] = "1"

    class Tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x + x + x, x + x

        @staticmethod
        def backward(ctx, grad, grad2):
            assert np.equal(grad2.numpy(), paddle.zeros([1]).numpy())
            return grad

    class Tanh2(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x + x + x, x + x

        @staticmethod
        def backward(ctx, grad, grad2):
            assert grad2 == None  # noqa: E711
            return grad

    x = paddle.ones([1], dtype="float64")
    x.stop_gradient = False
    Tanh.apply(x)[0].backward()

    x2 = paddle.ones([1], dtype="float64")
    x2.stop_gradient = False
    Tanh2.apply(x2)[0].backward()

    # both backwards ran (their asserts held) and passed the first gradient through
    assert x.grad is not None and x2.grad is not None
    np.testing.assert_allclose(values(x.grad), [1.0])
    np.testing.assert_allclose(values(x2.grad), [1.0])


# ---------------------------------------------------------------------------------------
# Seed 003: custom Python operators (dynamic graph)
# ---------------------------------------------------------------------------------------


def test_interface_overview():
    """The guide's outline of ``PyLayer`` and ``PyLayerContext``."""
    assert isinstance(PyLayer.__dict__["forward"], staticmethod)
    assert isinstance(PyLayer.__dict__["backward"], staticmethod)
    assert isinstance(PyLayer.__dict__["apply"], classmethod)
    assert callable(paddle.autograd.PyLayerContext.save_for_backward)
    assert callable(paddle.autograd.PyLayerContext.saved_tensor)


def test_writing_a_python_op_tanh():
    # 第一步: create the PyLayer subclass
    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = paddle.tanh(x)
            # ctx 为 PyLayerContext 对象,可以把 y 从 forward 传递到 backward。
            ctx.save_for_backward(y)
            return y

        @staticmethod
        # 因为 forward 只有一个输出,因此除了 ctx 外,backward 只有一个输入。
        def backward(ctx, dy):
            # ctx 为 PyLayerContext 对象,saved_tensor 获取在 forward 时暂存的 y。
            (y,) = ctx.saved_tensor()
            # 调用 Paddle API 自定义反向计算
            grad = dy * (1 - paddle.square(y))
            # forward 只有一个 Tensor 输入,因此,backward 只有一个输出。
            return grad

    # 第二步: build the network with apply
    data = paddle.randn([2, 3], dtype="float32")
    data.stop_gradient = False
    # 通过 apply 运行这个 Python 算子
    z = cus_tanh.apply(data)
    z.mean().backward()

    print(data.grad)

    assert list(data.grad.shape) == [2, 3]
    assert data.grad.dtype == paddle.float32
    np.testing.assert_allclose(values(data.grad), tanh_grad(data) / 6, rtol=1e-5, atol=1e-7)


def test_passing_non_tensors_through_ctx_attributes():
    class tanh(PyLayer):
        @staticmethod
        def forward(ctx, x1, func1, func2=paddle.square):
            # 添加临时属性的方式传递 func2
            ctx.func = func2
            y1 = func1(x1)
            # 使用 save_for_backward 传递 y1
            ctx.save_for_backward(y1)
            return y1

        @staticmethod
        def backward(ctx, dy1):
            (y1,) = ctx.saved_tensor()
            # 获取 func2
            re1 = dy1 * (1 - ctx.func(y1))
            return re1

    input1 = paddle.randn([2, 3]).astype("float64")
    input2 = input1.detach().clone()
    input1.stop_gradient = False
    input2.stop_gradient = False
    z = tanh.apply(x1=input1, func1=paddle.tanh)

    # the custom op matches the built-in tanh, in value and in gradient
    assert z.dtype == paddle.float64
    np.testing.assert_allclose(values(z), np.tanh(values(input2)), rtol=1e-12)
    z.mean().backward()
    paddle.tanh(input2).mean().backward()
    np.testing.assert_allclose(values(input1.grad), values(input2.grad), rtol=1e-12)
    np.testing.assert_allclose(values(input1.grad), tanh_grad(input2) / 6, rtol=1e-12)


def test_forward_must_output_a_tensor_wrong_example():
    # 错误示例
    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            y = x1 + x2
            # y.shape: 列表类型,非 Tensor,输出至少包含一个 Tensor
            return y.shape

        @staticmethod
        def backward(ctx, dy):
            return dy, dy

    data = paddle.randn([2, 3], dtype="float32")
    data.stop_gradient = False
    # 由于 forward 输出没有 Tensor 引发报错
    with pytest.raises(ValueError, match="cus_tanh"):
        z, y_shape = cus_tanh.apply(data, data)


def test_forward_must_output_a_tensor_right_example():
    # 正确示例
    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            y = x1 + x2
            # y.shape: 列表类型,非 Tensor
            return y, y.shape

        @staticmethod
        def backward(ctx, dy):
            # forward 两个 Tensor 输入,因此,backward 有两个输出。
            return dy, dy

    data = paddle.randn([2, 3], dtype="float32")
    data.stop_gradient = False
    z, y_shape = cus_tanh.apply(data, data)
    z.mean().backward()

    print(data.grad)

    assert list(y_shape) == [2, 3]
    # data is both inputs: each contributes d(mean)/dz = 1/6
    np.testing.assert_allclose(values(data.grad), np.full((2, 3), 2 / 6), rtol=1e-6)


def test_backward_returns_none_for_a_stop_gradient_input():
    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            y = x1 + x2
            return y

        @staticmethod
        def backward(ctx, dy):
            # x2.stop_gradient=True,其对应梯度需要返回 None
            return dy, None

    data1 = paddle.randn([2, 3], dtype="float32")
    data1.stop_gradient = False
    data2 = paddle.randn([2, 3], dtype="float32")
    z = cus_tanh.apply(data1, data2)
    fake_loss = z.mean()
    fake_loss.backward()
    print(data1.grad)

    np.testing.assert_allclose(values(data1.grad), np.full((2, 3), 1 / 6), rtol=1e-6)
    assert data2.grad is None


def test_backward_is_not_run_when_all_inputs_stop_gradient():
    class cus_tanh(PyLayer):
        @staticmethod
        def forward(ctx, x1, x2):
            y = x1 + x2
            return y

        @staticmethod
        def backward(ctx, dy):
            return dy, None

    data1 = paddle.randn([2, 3], dtype="float32")
    data2 = paddle.randn([2, 3], dtype="float32")
    z = cus_tanh.apply(data1, data2)
    fake_loss = z.mean()
    # the seed's own line; ferrograd warns that nothing needs a gradient (Paddle is silent)
    with pytest.warns(UserWarning, match="does not require grad"):
        fake_loss.backward()
    # 因为 data1.stop_gradient = True、data2.stop_gradient = True,所以 backward 不会被执行。
    print(data1.grad is None)

    assert data1.grad is None
    assert z.stop_gradient is True
