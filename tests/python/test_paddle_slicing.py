"""Paddle's `slice`, `strided_slice`, `crop` and `increment` against NumPy slicing."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest
from conftest import check_grad

A = np.arange(60.0).reshape(3, 4, 5)


def test_slice_follows_paddles_bounds():
    x = paddle.to_tensor(A)
    np.testing.assert_array_equal(
        paddle.slice(x, axes=[0, 2], starts=[1, -3], ends=[3, 2**31 - 1]).numpy(), A[1:3, :, -3:]
    )
    s = paddle.slice(x, [1], [paddle.to_tensor(1)], paddle.to_tensor([3]))
    np.testing.assert_array_equal(s.numpy(), A[:, 1:3])
    np.testing.assert_array_equal(paddle.slice(x, [2], [4], [2]).numpy(), A[:, :, 4:2])


def test_strided_slice_with_negative_strides():
    x = paddle.to_tensor(A)
    got = paddle.strided_slice(x, axes=[1, 2], starts=[0, -1], ends=[4, -10], strides=[2, -2])
    np.testing.assert_array_equal(got.numpy(), A[:, 0:4:2, ::-2])
    with pytest.raises(ValueError, match="stride must not be 0"):
        paddle.strided_slice(x, [0], [0], [2], [0])
    with pytest.raises(ValueError, match="one entry each per axis"):
        paddle.strided_slice(x, [0, 1], [0], [2], [1])


def test_crop_and_its_errors():
    x = paddle.to_tensor(A)
    np.testing.assert_array_equal(paddle.crop(x, [2, -1, 2], [1, 1, 3]).numpy(), A[1:3, 1:, 3:5])
    np.testing.assert_array_equal(paddle.crop(x, [1, 2, 3]).numpy(), A[:1, :2, :3])
    with pytest.raises(ValueError, match="does not fit dimension 2"):
        paddle.crop(x, [1, 1, 3], [0, 0, 3])


def test_slicing_is_differentiable():
    check_grad(lambda t: paddle.strided_slice(t, [0, 1], [2, 3], [0, 0], [-1, -2]) * 2.0, A)
    check_grad(lambda t: paddle.crop(t, [2, 2, 2], [1, 1, 1]).exp(), A / 60.0)


def test_increment_adds_in_place():
    step = paddle.to_tensor([3.0])
    assert paddle.increment(step) is step and step.item() == 4.0
    paddle.increment(step, value=2.5)
    assert step.item() == 6.5
    with pytest.raises(ValueError, match="exactly one element"):
        paddle.increment(paddle.ones([2]))


def test_rank_is_a_0d_int32_tensor():
    r = paddle.rank(paddle.ones([2, 3, 4]))
    assert r.dtype == paddle.int32 and r.shape == [] and r.item() == 3
    with pytest.raises(TypeError, match="expects a Tensor"):
        paddle.rank([1, 2])
