"""``ferrograd.tensor`` is PyTorch's ``torch.tensor`` creation function and Paddle's
``paddle.tensor`` package in one callable object, as Paddle 3.3.1's own ``paddle.tensor``
is: ``paddle.tensor.fill_constant(shape, dtype, value, force_cpu=False, out=None)`` (values
checked on Paddle 3.3.1) and ``paddle.tensor.random.gaussian`` are attributes, while
``torch.tensor(data)`` / ``paddle.tensor(data)`` still create tensors."""

from __future__ import annotations

import inspect

import ferrograd as paddle
import numpy as np
import pytest
from test_shared_spellings import _run


def test_tensor_is_still_the_creation_function():
    t = paddle.tensor([1.5, 2.5], dtype="float64", requires_grad=True)
    assert t.dtype == paddle.float64 and t.requires_grad and t.tolist() == [1.5, 2.5]
    assert "requires_grad" in inspect.signature(paddle.tensor).parameters
    g = _run("t = torch.tensor([[1, 2]]); s = torch.tensor(3.0)", "torch")
    assert g["t"].dtype == paddle.int64 and list(g["t"].shape) == [1, 2]
    assert g["s"].item() == 3.0
    import ferrograd.tensor as package

    assert package is paddle.tensor


def test_fill_constant_values_and_dtypes():
    fc = paddle.tensor.fill_constant
    a = fc([2, 3], "float32", 1.5)
    np.testing.assert_array_equal(a.numpy(), np.full((2, 3), 1.5, np.float32))
    assert a.dtype == paddle.float32 and a.stop_gradient
    b = fc(shape=[2], dtype="int64", value=3.7)  # Paddle truncates: [3, 3]
    assert b.dtype == paddle.int64 and b.tolist() == [3, 3]
    assert fc([2], "bool", 1).tolist() == [True, True]
    assert fc([2], paddle.float64, 2.0, force_cpu=True).dtype == paddle.float64
    assert fc([2], "float32", paddle.to_tensor(4.0)).tolist() == [4.0, 4.0]
    assert list(fc([], "float32", 2.0).shape) == []
    assert list(fc(2, "float32", 1.0).shape) == [2]
    assert list(fc(np.array([2, 1]), "float32", 1.0).shape) == [2, 1]
    assert list(fc([paddle.to_tensor(2), 3], "float32", 0.0).shape) == [2, 3]
    assert fc([2], "float32", float("inf")).tolist() == [float("inf")] * 2


def test_fill_constant_refuses_bad_arguments():
    fc = paddle.tensor.fill_constant
    with pytest.raises(ValueError, match="no less than 0"):
        fc([-1], "float32", 0.0)
    with pytest.raises(ValueError):
        fc([2], "float32", paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        fc([2.5], "float32", 0.0)


def test_fill_constant_out():
    fc = paddle.tensor.fill_constant
    out = paddle.zeros([2], dtype="float32")
    out.stop_gradient = False
    view = out[0:1]
    r = fc([2], "float32", 5.0, out=out)
    assert r is out and out.tolist() == [5.0, 5.0] and out.stop_gradient
    assert view.tolist() == [5.0]  # written in place
    out = paddle.zeros([3], dtype="float32")
    assert fc([2], "float32", 5.0, out=out) is out and out.tolist() == [5.0, 5.0]
    with pytest.raises(TypeError, match="dtype"):
        fc([2], "int64", 5.0, out=paddle.zeros([2], dtype="float32"))


def test_fill_constant_and_full_refuse_an_int_overflow():
    # Paddle 3.3.1 silently gives -2147483648; PyTorch refuses ("value cannot be
    # converted to type int without overflow")
    for v in (3e9, -3e9, 1e40, float("nan"), float("inf")):
        with pytest.raises((ValueError, OverflowError, RuntimeError)):
            paddle.tensor.fill_constant([2], "int32", v)
        with pytest.raises((ValueError, OverflowError, RuntimeError)):
            paddle.full([2], v, dtype="int32")
    assert paddle.full([1], 2147483647.0, dtype="int32").tolist() == [2147483647]
    assert paddle.full([1], -2.9, dtype="int8").tolist() == [-2]
    assert paddle.full([1], 255.5, dtype="uint8").tolist() == [255]
    with pytest.raises(ValueError, match="without overflow"):
        paddle.full([1], 1e19, dtype="int64")
    with pytest.raises(ValueError, match="without overflow"):
        paddle.full_like(paddle.zeros([2], dtype="int32"), 3e9)


def test_paddle_tensor_random_is_an_attribute():
    paddle.seed(1)
    a = paddle.tensor.random.gaussian([500], mean=2.0, std=0.5)
    assert list(a.shape) == [500] and abs(float(a.mean()) - 2.0) < 0.15
    g = _run("x = paddle.tensor.fill_constant([2, 2], 'float32', 0.5)", "paddle")
    assert g["x"].tolist() == [[0.5, 0.5], [0.5, 0.5]]
