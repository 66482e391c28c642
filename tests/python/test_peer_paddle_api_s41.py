"""Session 41: Paddle's own API tests (test/legacy_test) on ferrograd — the fixes they
led to, checked directly (docs/peer-tests.md lists the upstream files).

Each test cites the upstream test it stands for and, where the behaviour is Paddle's
choice, the Paddle 3.3.1 source that makes it.
"""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd import static


@pytest.fixture(autouse=True)
def _dynamic_mode():
    yield
    paddle.disable_static()


# --- paddle.disable_static(place) ------------------------------------------------------


def test_disable_static_takes_a_place_regression():
    # test_nanmedian.py: paddle.disable_static(self.place) / disable_static(place=...)
    # (python/paddle/fluid/framework.py at 3.3.1: disable_static(place=None))
    for place in (paddle.CPUPlace(), "cpu", None):
        paddle.enable_static()
        paddle.disable_static(place)
        assert paddle.in_dynamic_mode()
    paddle.disable_static(place=paddle.CPUPlace())
    with pytest.raises(ValueError, match="CPU"):
        paddle.disable_static("gpu:0")


# --- paddle.tensor.<submodule> ---------------------------------------------------------


def test_paddle_tensor_submodules_regression():
    # test_nanmedian.py: paddle.tensor.stat.nanmedian; test_zeros_like_op.py:
    # paddle.tensor.creation.zeros_like (Paddle's python/paddle/tensor/{stat,creation}.py)
    import importlib

    assert paddle.tensor.stat.nanmedian is paddle.nanmedian
    assert paddle.tensor.creation.zeros_like is paddle.zeros_like
    assert paddle.tensor.manipulation.reshape is paddle.reshape
    assert importlib.import_module("ferrograd.tensor.stat") is paddle.tensor.stat
    assert callable(paddle.tensor.einsum)  # the function, as in Paddle's package
    with pytest.raises(AttributeError, match="paddle.tensor.stat"):
        paddle.tensor.stat.no_such_function  # noqa: B018


# --- quantile / nanquantile ------------------------------------------------------------


def test_quantile_several_axes_regression():
    # test_quantile_and_nanquantile.py TestMuitlpleQ / test_with_multi_axis: Paddle's
    # axis list (tensor/stat.py _compute_quantile: moveaxis + flatten)
    rng = np.random.default_rng(0)
    d = rng.random((5, 3, 4))
    d[0, 1, 2] = np.nan
    x = paddle.to_tensor(d)
    for op, ref in ((paddle.quantile, np.quantile), (paddle.nanquantile, np.nanquantile)):
        got = op(x, q=[0.2, 0.67], axis=[1, -1]).numpy()
        np.testing.assert_allclose(got, ref(d, [0.2, 0.67], axis=(1, 2)), equal_nan=True)
        got = op(x, q=0.3, axis=[0, 2], keepdim=True).numpy()
        want = ref(d, 0.3, axis=(0, 2), keepdims=True)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, equal_nan=True)


def test_quantile_zero_dim_tensor_q_is_a_scalar_q_regression():
    # test_quantile_with_zero_dim_tensor_input: "If q is a 0-D Tensor, it will be treated
    # as an integer or float" (Paddle's quantile docstring; PyTorch squeezes it too)
    d = np.random.default_rng(1).random((5, 3, 4))
    got = paddle.quantile(paddle.to_tensor(d), q=paddle.to_tensor(0.1), axis=[1, 2], keepdim=True)
    assert got.shape == [5, 1, 1]
    np.testing.assert_allclose(got.numpy(), np.quantile(d, 0.1, axis=(1, 2), keepdims=True))


def test_quantile_argument_errors_regression():
    # test_quantile_and_nanquantile.py TestError.test_errors (Paddle's _compute_quantile)
    x = paddle.randn((2, 3, 4))
    with pytest.raises(ValueError, match="empty"):
        paddle.quantile(x, q=[])
    with pytest.raises(TypeError):
        paddle.quantile([1, 3, 4], q=0.9)
    with pytest.raises(ValueError):  # Paddle: ValueError; PyTorch: TypeError (both hold)
        paddle.quantile(x, q=0.4, axis=0.4)
    with pytest.raises(TypeError):
        paddle.quantile(x, q=0.4, axis=[1, 0.4])
    with pytest.raises(ValueError):  # Paddle: ValueError; PyTorch: IndexError (both hold)
        paddle.quantile(x, q=0.4, axis=[1, -10])
    with pytest.raises(IndexError):
        paddle.quantile(x, q=0.4, axis=10)
    # q's type is checked before the interpolation (Paddle's order)
    with pytest.raises(TypeError, match="q must be"):
        paddle.quantile(x, q={1}, axis=[1, -10], interpolation=" ")


def test_quantile_and_inner_in_static_programs_regression():
    # TestQuantileRuntime.test_static_tensor / test_static_0d_tensor, test_inner.py
    # test_multiply_static_case*: the functions record into a static program
    rng = np.random.default_rng(2)
    xd = rng.random((4, 7)).astype("float32")
    yd = rng.random((3, 7)).astype("float32")
    paddle.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [4, 7], "float32")
        y = static.data("y", [3, 7], "float32")
        q = static.data("q", [3], "float32")
        outs = [paddle.quantile(x, q=q, axis=1), paddle.nanquantile(x, 0.3, axis=1)]
        outs.append(paddle.inner(x, y))
        exe = static.Executor(paddle.CPUPlace())
        qd = np.array([0.1, 0.5, 0.9], "float32")
        a, b, c = exe.run(main, feed={"x": xd, "y": yd, "q": qd}, fetch_list=outs)
    np.testing.assert_allclose(a, np.quantile(xd, qd, axis=1), rtol=1e-5)
    np.testing.assert_allclose(b, np.nanquantile(xd, 0.3, axis=1), rtol=1e-5)
    np.testing.assert_allclose(c, np.inner(xd, yd), rtol=1e-5)


# --- nanmedian -------------------------------------------------------------------------


def test_nanmedian_several_axes_regression():
    # test_nanmedian.py test_api_dygraph: axis lists and tuples reduce over all their
    # elements, values only (python/paddle/tensor/stat.py nanmedian: need_index only for
    # an int axis)
    rng = np.random.default_rng(3)
    d = rng.uniform(-10, 10, (2, 3, 4, 5)).astype("float32")
    d[:, :, 0, :2] = np.nan
    d[:, :, 1, :3] = np.nan
    x = paddle.to_tensor(d)
    for axis in ((1, 2), [0, -1], [0, 1, 3], [0, 2, 1, 3]):
        got = paddle.nanmedian(x, axis=axis)
        np.testing.assert_allclose(got.numpy(), np.nanmedian(d, axis=tuple(axis)), rtol=1e-5)
        got = paddle.nanmedian(x, axis=axis, keepdim=True, mode="min")
        assert isinstance(got, paddle.Tensor)
        assert got.shape == list(np.nanmedian(d, axis=tuple(axis), keepdims=True).shape)


def test_nanmedian_argument_errors_regression():
    # test_nanmedian.py test_errors: bool input TypeError; empty axis, axis out of range,
    # repeated axis ValueError
    x = paddle.randn([10, 12])
    with pytest.raises(TypeError):
        paddle.nanmedian(paddle.to_tensor([True, False]))
    with pytest.raises(ValueError):
        paddle.nanmedian(x, axis=[], keepdim=True)
    with pytest.raises(ValueError):
        paddle.nanmedian(x, axis=3, keepdim=True)
    with pytest.raises(IndexError):  # PyTorch's kind of the same error
        paddle.nanmedian(x, axis=3)
    with pytest.raises(ValueError):
        paddle.nanmedian(x, axis=[1, -1], keepdim=True)


def test_nanmedian_of_an_empty_tensor_is_nan_regression():
    # test_nanmedian.py TestNanmedianZeroSize: all of a [100, 0] tensor gives NaN
    out = paddle.nanmedian(paddle.randn([100, 0]))
    assert out.shape == [] and np.isnan(out.item())
    assert out.dtype == paddle.float32


# --- inner / outer operands ------------------------------------------------------------


def test_inner_outer_refuse_numpy_operands_regression():
    # test_outer.py TestMultiplyError / test_inner.py test_errors_dynamic_case2-4: both
    # peers refuse a NumPy array (Paddle: ValueError "multiply(): argument 'x'
    # (position 0) must be Tensor, but got numpy.ndarray"; PyTorch: TypeError)
    a = np.ones(3, "float32")
    t = paddle.to_tensor(a)
    for op in (paddle.outer, paddle.inner):
        with pytest.raises(ValueError, match=r"argument 'x' \(position 0\) must be Tensor"):
            op(a, t)
        with pytest.raises(TypeError, match=r"argument 'y' \(position 1\) must be Tensor"):
            op(t, a)
    # a Python number still multiplies (test_inner.py test_multiply_dynamic_case3)
    np.testing.assert_allclose(paddle.inner(t, 2.0).numpy(), a * 2.0)
