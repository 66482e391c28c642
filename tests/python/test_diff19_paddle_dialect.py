"""Session 19 differential run, Paddle side: calls whose Paddle answer differed
(expected values computed once with Paddle 3.3.1)."""

import ferrograd as paddle
import ferrograd.nn.functional as F
import numpy as np
import pytest

X = np.arange(-8.0, 8.0, dtype=np.float32).reshape(1, 1, 4, 4) / 3.0


def test_avg_pool2d_defaults_to_exclusive_in_paddle_code():
    """Paddle's ``exclusive`` defaults to True: padding is not counted in the divisor."""
    x = paddle.to_tensor(np.ones((1, 1, 3, 3), np.float32))
    out = F.avg_pool2d(x, 3, stride=2, padding=1)
    np.testing.assert_allclose(out.numpy(), np.ones((1, 1, 2, 2)))
    out = F.avg_pool2d(x, 3, stride=2, padding=1, exclusive=False)
    np.testing.assert_allclose(out.numpy(), np.full((1, 1, 2, 2), 4.0 / 9.0), rtol=1e-6)


def test_embedding_padding_idx_gives_zero_rows_in_paddle_code():
    """Paddle's ``F.embedding`` outputs zeros at ``padding_idx`` (the weight row is kept)."""
    w = paddle.to_tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2), stop_gradient=False)
    out = F.embedding(paddle.to_tensor([0, 2, 0]), w, padding_idx=0)
    np.testing.assert_allclose(out.numpy(), [[0, 0], [4, 5], [0, 0]])
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[0, 0], [0, 0], [1, 1]])


def test_full_with_int_fill_is_float32_in_paddle_code():
    """``paddle.full(shape, 3)`` is the default float dtype; bool stays bool."""
    assert paddle.full([2], 3).dtype == paddle.float32
    assert paddle.full([2], True).dtype == paddle.bool
    assert paddle.full([2], 3, dtype="int64").dtype == paddle.int64
    assert paddle.full([2], 3, "int32").dtype == paddle.int32
    assert paddle.full(shape=[2], fill_value=3).dtype == paddle.float32
    assert paddle.full([2], 3.5).dtype == paddle.float32


def test_argmax_dtype_keyword():
    """``paddle.argmax(..., dtype='int32')`` returns int32 indices."""
    x = paddle.to_tensor([[1.0, 3.0, 2.0]])
    out = paddle.argmax(x, axis=1, keepdim=True, dtype="int32")
    assert out.dtype == paddle.int32
    assert out.numpy().tolist() == [[1]]


def test_reshape_zero_copies_the_input_dim():
    """A 0 in Paddle's ``reshape`` shape copies the input's size at that position."""
    x = paddle.zeros([2, 3, 4, 4])
    assert paddle.reshape(x, [0, -1, 4]).shape == [2, 12, 4]
    assert paddle.reshape(paddle.zeros([4, 5]), [0, 0]).shape == [4, 5]


def test_index_sample():
    """``paddle.index_sample(x, index)`` picks per row: out[i, j] = x[i, index[i, j]]."""
    x = paddle.to_tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), stop_gradient=False)
    out = paddle.index_sample(x, paddle.to_tensor([[0, 3], [1, 1], [2, 0]]))
    np.testing.assert_allclose(out.numpy(), [[0, 3], [5, 5], [10, 8]])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, 0, 0, 1], [0, 2, 0, 0], [1, 0, 1, 0]])


def test_unfold_paddle_keywords():
    """Paddle's ``F.unfold(x, kernel_sizes, strides, paddings, dilations)``."""
    x = paddle.to_tensor(X)
    a = F.unfold(x, kernel_sizes=2, strides=2, paddings=1)
    b = F.unfold(x, 2, 1, 1, 2)
    assert a.shape == [1, 4, 9]
    c = F.unfold(x, kernel_sizes=[2, 2], strides=[2, 2], paddings=[1, 1], dilations=[1, 1])
    np.testing.assert_allclose(a.numpy(), c.numpy())
    assert b.shape == [1, 4, 16]


@pytest.mark.parametrize("shape", [[2], [3, 1]])
def test_full_float_fill_keeps_float32(shape):
    """A float fill stays float32 (unchanged behaviour)."""
    assert paddle.full(shape, 2.5).dtype == paddle.float32


def test_mean_of_int_tensor_stays_int_in_paddle_code():
    """Paddle 3.3's ``mean`` of an integer tensor keeps the dtype (rounded toward zero)."""
    out = paddle.mean(paddle.to_tensor([-1, -2]))
    assert out.dtype == paddle.int64 and out.item() == -1
    out = paddle.to_tensor([[1, 2], [3, 6]], dtype="int32").mean(axis=0)
    assert out.dtype == paddle.int32 and out.numpy().tolist() == [2, 4]
    assert paddle.mean(paddle.to_tensor([1.0, 2.0])).item() == 1.5


def test_pad_full_length_constant_list_reads_from_the_first_axis_in_paddle_code():
    """Paddle's constant ``pad`` with ``2 * ndim`` values starts at the first axis."""
    out = F.pad(paddle.ones([2, 3]), [1, 0, 0, 2])
    assert out.shape == [3, 5]
    np.testing.assert_allclose(out.numpy()[0], np.zeros(5))
    np.testing.assert_allclose(out.numpy()[1], [1, 1, 1, 0, 0])
