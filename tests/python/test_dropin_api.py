"""Small public names the peers' code uses: constants, device queries, ``equal_all``,
``ParamAttr``, ``F.leaky_relu``/``F.one_hot``, ``paddle.tensor.random.gaussian``,
``shape=`` keywords, ``Tensor.gradient()``, ``torch.autograd.function``, ``Variable``."""

import math

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd.gradcheck import gradcheck, gradgradcheck


def test_constants():
    assert fg.inf == math.inf and math.isnan(fg.nan) and fg.pi == math.pi


def test_equal_all():
    a = fg.tensor([1.0, 2.0])
    assert bool(fg.equal_all(a, fg.tensor([1.0, 2.0])))
    assert not bool(fg.equal_all(a, fg.tensor([1.0, 3.0])))
    assert not bool(fg.equal_all(a, fg.tensor([[1.0, 2.0]])))  # shapes differ
    with pytest.raises(TypeError):
        fg.equal_all(a, [1.0, 2.0])


def test_devices_are_cpu_only():
    assert fg.is_compiled_with_cuda() is False and fg.cuda.is_available() is False
    assert fg.set_device("cpu") == "cpu" and fg.get_device() == "cpu"
    assert str(fg.device("cpu")) == "cpu" and fg.device("cpu") == fg.device("cpu:0")
    with pytest.raises(ValueError, match="CPU only"):
        fg.set_device("gpu")
    with pytest.raises(ValueError, match="CPU only"):
        fg.device("cuda")


def test_param_attr_initializer_name_trainable():
    layer = fg.nn.Linear(
        3,
        2,
        weight_attr=fg.ParamAttr(name="w", initializer=fg.nn.initializer.Constant(value=2.0)),
        bias_attr=fg.ParamAttr(trainable=False, learning_rate=0.5),
    )
    np.testing.assert_array_equal(layer.weight.numpy(), np.full((2, 3), 2.0, np.float32))
    assert layer.weight.name == "w"
    assert layer.bias.stop_gradient and layer.bias.optimize_attr == {"learning_rate": 0.5}
    assert fg.nn.ParamAttr is fg.ParamAttr
    with pytest.raises(TypeError):
        fg.ParamAttr(initializer=3)
    emb = fg.nn.Embedding(
        4, 2, weight_attr=fg.ParamAttr(initializer=fg.nn.initializer.Constant(1.0))
    )
    np.testing.assert_array_equal(emb.weight.numpy(), np.ones((4, 2), np.float32))


def test_leaky_relu_values_and_gradients():
    x = np.array([-2.0, -0.5, 0.5, 3.0])
    y = F.leaky_relu(fg.tensor(x), 0.2)
    np.testing.assert_allclose(y.numpy(), np.where(x > 0, x, 0.2 * x))
    t = fg.tensor(x, requires_grad=True)
    assert gradcheck(lambda v: F.leaky_relu(v, 0.1), (t,))
    assert gradgradcheck(lambda v: F.leaky_relu(v) * v, (t,))
    with pytest.raises(TypeError):
        F.leaky_relu(t, "0.1")


def test_one_hot():
    out = F.one_hot(fg.tensor([[0, 2], [1, 1]]), 3)
    expected = np.eye(3, dtype=np.float32)[[[0, 2], [1, 1]]]
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.dtype == fg.float32 and list(out.shape) == [2, 2, 3]
    assert list(F.one_hot(fg.tensor([0, 4])).shape) == [2, 5]  # num_classes=-1: max + 1
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        F.one_hot(fg.tensor([3]), 3)
    with pytest.raises(TypeError):
        F.one_hot(fg.tensor([0.5]), 3)


def test_paddle_tensor_random_gaussian():
    from ferrograd.tensor import random

    fg.seed(3)
    a = random.gaussian(shape=[2000], mean=1.0, std=2.0)
    assert list(a.shape) == [2000] and a.dtype == fg.float32
    assert abs(float(a.mean()) - 1.0) < 0.2 and abs(float(a.std()) - 2.0) < 0.2
    # the creation function keeps its name
    assert callable(fg.tensor) and fg.tensor([1]).shape == [1]
    with pytest.raises(ValueError):
        random.gaussian([2], seed=1)


def test_shape_keyword_on_creation_functions():
    assert list(fg.ones(shape=[2, 3]).shape) == [2, 3]
    assert list(fg.zeros(shape=[1], dtype="float64").shape) == [1]
    assert list(fg.randn(shape=[4]).shape) == [4]
    assert fg.ones(2, 3).shape == [2, 3]  # positional forms unchanged
    with pytest.raises(TypeError):
        fg.ones([2], shape=[2])


def test_tensor_gradient_returns_numpy_or_none():
    x = fg.tensor([1.0, 2.0], stop_gradient=False)
    assert x.gradient() is None
    (x * x).sum().backward()
    g = x.gradient()
    assert isinstance(g, np.ndarray)
    np.testing.assert_array_equal(g, [2.0, 4.0])
    assert x._grad_ivar() is not None


def test_torch_autograd_function_module_and_variable():
    from ferrograd.autograd.function import Function, FunctionCtx, once_differentiable

    assert Function is fg.autograd.Function and FunctionCtx is fg.autograd.FunctionCtx
    assert callable(once_differentiable)
    base = fg.ones(2)
    v = fg.autograd.Variable(base, requires_grad=True)
    assert v.requires_grad and not base.requires_grad and isinstance(v, fg.autograd.Variable)
    assert isinstance(fg.ones(1), fg.autograd.Variable)


def test_inference_mode_query():
    assert fg.is_inference_mode_enabled() is False
    with fg.inference_mode():
        assert fg.is_inference_mode_enabled() is True
    assert fg.is_inference_mode_enabled() is False


def test_retain_grads_is_a_noop_on_stop_gradient_tensors_but_retain_grad_raises():
    x = fg.tensor([1.0, 2.0])  # stop_gradient=True
    x.retain_grads()  # Paddle: nothing to retain, no error
    with pytest.raises(ValueError):
        x.retain_grad()  # PyTorch raises here
    w = fg.tensor([1.0, 2.0], stop_gradient=False)
    h = w * 2
    h.retain_grads()
    h.sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [1.0, 1.0])


def test_masked_fill():
    x = fg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.masked_fill(x < 0, 0.0)
    np.testing.assert_array_equal(y.numpy(), [1.0, 0.0, 3.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 1.0])


def test_requires_grad_off_on_a_non_leaf_raises_but_stop_gradient_is_allowed():
    x = fg.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)
    assert y.requires_grad_() is y
    y.stop_gradient = True  # Paddle allows cutting the graph here
    assert not y.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad


def test_legacy_function_call_is_a_clear_error():
    class Legacy(fg.autograd.Function):
        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="non-static forward method is deprecated"):
        Legacy()(fg.ones(1))


def test_paddle_scatter_takes_an_n_by_1_index():
    x = fg.zeros([3, 2])
    x.stop_gradient = False
    updates = fg.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    updates.stop_gradient = False
    flat = fg.scatter(x, fg.to_tensor([2, 0]), updates)
    column = fg.scatter(x, fg.to_tensor([[2], [0]]), updates)
    np.testing.assert_array_equal(column.numpy(), flat.numpy())
    np.testing.assert_array_equal(column.numpy(), [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]])
    column.sum().backward()
    np.testing.assert_array_equal(updates.grad.numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"\[N\] or \[N, 1\]"):
        fg.scatter(x, fg.to_tensor([[2, 0]]), updates)


def test_parameter_trainable_takes_only_a_bool():
    linear = fg.nn.Linear(2, 2)
    linear.weight.trainable = False
    assert linear.weight.stop_gradient and not linear.weight.trainable
    linear.weight.trainable = np.bool_(True)
    assert linear.weight.trainable
    for bad in ("1", 1, None):
        with pytest.raises(ValueError, match="trainable must be a bool"):
            linear.weight.trainable = bad
    assert linear.weight.trainable
