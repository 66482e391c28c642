"""Spellings and error classes the peers' own tests check: Paddle's ``reshape(x,
shape=...)``, an unused input of ``grad()`` (Paddle: ValueError, PyTorch: RuntimeError),
and Paddle's wording of a saved tensor changed in place."""

import ferrograd as fg
import numpy as np
import pytest


def test_reshape_takes_shape_keyword():
    x = fg.arange(6, dtype=fg.float32)
    np.testing.assert_array_equal(fg.reshape(x, shape=[2, 3]).numpy(), np.arange(6).reshape(2, 3))
    assert list(x.reshape(shape=(3, 2)).shape) == [3, 2]
    assert list(x.reshape(2, 3).shape) == [2, 3]
    assert list(x.reshape([-1, 2]).shape) == [3, 2]
    with pytest.raises(TypeError, match="not both"):
        x.reshape(2, 3, shape=[3, 2])


def test_unused_input_of_grad_is_both_peers_error():
    x = fg.tensor([1.0], requires_grad=True)
    unused = fg.tensor([2.0], requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(ValueError, match="appears to not have been used"):
        fg.grad([y], [x, unused], retain_graph=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        fg.grad([y], [x, unused])


def test_saved_tensor_changed_in_place_names_both_versions():
    x = fg.ones([2, 3], dtype=fg.float64, requires_grad=True)
    b = x * 2
    c = b * b  # saves b
    b.add_(1.0)
    with pytest.raises(RuntimeError, match=r"tensor_version:1 != wrapper_version_snapshot:0"):
        c.sum().backward()
