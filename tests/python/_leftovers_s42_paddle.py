"""Paddle code for tests/python/test_leftovers_s42.py: the calls here follow Paddle's
dialect (this module imports ferrograd as ``paddle`` only, docs/dialects.md)."""

import ferrograd as paddle
import numpy as np


def where_keywords():
    """``paddle.where(condition, x=None, y=None, name=None)`` (python/paddle/tensor/search.py)."""
    c = paddle.to_tensor([True, False, True])
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    y = paddle.to_tensor([-1.0, -2.0, -3.0])
    a = paddle.where(c, x=x, y=y)
    b = paddle.where(condition=c, x=x, y=y, name="w")
    return a.numpy(), b.numpy()


def nanmedian_all_nan(mode, axis):
    """``paddle.nanmedian`` of ``[[nan, nan, nan], [1, nan, 3]]`` with its gradient, as
    ``(value, index or None, grad)``."""
    nan = float("nan")
    x = paddle.to_tensor([[nan, nan, nan], [1.0, nan, 3.0]], stop_gradient=False)
    out = paddle.nanmedian(x, axis=axis, mode=mode)
    value, index = out if isinstance(out, tuple) else (out, None)
    value.sum().backward()
    idx = None if index is None else index.numpy()
    return value.numpy(), idx, x.grad.numpy()


def nanmedian_only_nans_whole(mode):
    """``paddle.nanmedian`` of ``[nan, nan, nan, nan]`` over all elements and its gradient."""
    x = paddle.to_tensor([float("nan")] * 4, stop_gradient=False)
    v = paddle.nanmedian(x, mode=mode)
    v.backward()
    return v.numpy(), x.grad.numpy()


def nanmedian_several_axes_all_nan():
    """``paddle.nanmedian(x, axis=[1, 2])`` where one ``[2, 2]`` block holds only NaNs."""
    a = np.full([2, 2, 2], np.nan, dtype="float32")
    a[1] = [[1.0, 2.0], [3.0, np.nan]]
    x = paddle.to_tensor(a, stop_gradient=False)
    v = paddle.nanmedian(x, axis=[1, 2])
    v.sum().backward()
    return v.numpy(), x.grad.numpy()
