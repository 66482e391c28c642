"""Paddle behaviour that the session-24 peer tests (``docs/peer-tests.md``) found
different, checked in Paddle code (values checked on Paddle 3.3.1): an in-place op on a
leaf that requires grad raises ``ValueError`` (ferrograd's ``AutogradUsageError``, a
``RuntimeError`` too, PyTorch's class), and ``.grad`` of a non-leaf reads None without
PyTorch's warning."""

from __future__ import annotations

import warnings

import ferrograd as paddle
import pytest


def test_inplace_on_a_leaf_that_requires_grad_is_a_value_error():
    v = paddle.ones([3, 1])
    v.stop_gradient = False
    with pytest.raises(ValueError, match="leaf tensor that requires grad"):
        paddle.squeeze_(v)
    with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
        v.add_(v)
    assert v.inplace_version == 0
    assert v.shape == [3, 1]


def test_grad_of_a_non_leaf_does_not_warn_in_paddle_code():
    x = paddle.ones([2])
    x.stop_gradient = False
    y = x * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None
