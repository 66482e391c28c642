"""Paddle code keeps Paddle's rule for the pieces of ``split`` (checked on Paddle 3.3.1):
a write that requires grad into a piece of a tensor that needs none is taken, and the
gradient reaches the written value through the piece. PyTorch code refuses that write
(``test_peer25_torch.py``)."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest

SPLITS = {
    "function_sections": lambda t: paddle.split(t, 2),
    "function_list": lambda t: paddle.split(t, [1, 3], axis=0),
    "method_sections": lambda t: t.split(2),
    "method_keyword": lambda t: t.split(num_or_sections=2, axis=0),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_piece_takes_a_grad_requiring_write(name):
    a = paddle.zeros([4, 3], dtype="float64")
    pieces = SPLITS[name](a)
    w = paddle.ones([3], dtype="float64")
    w.stop_gradient = False
    pieces[0].add_(w)
    rows = pieces[0].shape[0]
    assert not pieces[0].stop_gradient
    np.testing.assert_array_equal(pieces[0].numpy(), np.ones((rows, 3)))
    pieces[0].sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full(3, float(rows)))
