"""Paddle arguments ferrograd refused with NotImplementedError until session 23 (issue
#17): the legacy ``UniformInitializer``'s diagonal (``diag_num``, ``diag_step``,
``diag_val``). Expected values follow Paddle's documented rule, checked on Paddle
3.3.1's static-graph ``uniform_random`` op."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest

UniformInitializer = paddle.nn.initializer.UniformInitializer


@pytest.mark.parametrize(
    "shape, num, step, where",
    [
        ([3, 4], 3, 4, [(0, 0), (1, 1), (2, 2)]),  # the diagonal of a [3, 4] matrix
        ([2, 3], 2, 1, [(0, 0), (0, 2)]),  # flat positions 0 and 2 (Paddle 3.3.1's)
        ([4], 2, 2, [(0,), (3,)]),
    ],
)
def test_uniform_initializer_diagonal(shape, num, step, where):
    init = UniformInitializer(-0.1, 0.1, 0, diag_num=num, diag_step=step, diag_val=5.0)
    w = paddle.create_parameter(shape, "float64", default_initializer=init)
    a = w.numpy()
    diag = np.zeros(shape, dtype=bool)
    for ix in where:
        diag[ix] = True
    assert (a[diag] == 5.0).all()
    assert (np.abs(a[~diag]) <= 0.1).all() and a[~diag].std() > 0
    assert not w.stop_gradient  # still a trainable parameter, with no recorded history


def test_uniform_initializer_diagonal_through_param_attr():
    init = UniformInitializer(-0.1, 0.1, diag_num=3, diag_step=3, diag_val=7.0)
    lin = paddle.nn.Linear(3, 3, weight_attr=paddle.ParamAttr(initializer=init))
    w = lin.weight.numpy()
    np.testing.assert_array_equal(np.diag(w), [7.0] * 3)
    assert np.abs(w[~np.eye(3, dtype=bool)]).max() <= 0.1


def test_uniform_initializer_argument_errors():
    with pytest.raises(ValueError, match="both be > 0"):
        UniformInitializer(diag_num=2)
    with pytest.raises(ValueError, match="both be > 0"):
        UniformInitializer(diag_step=2)
    with pytest.raises(ValueError, match="diag_num must be an int >= 0"):
        UniformInitializer(diag_num=-1, diag_step=2)
    with pytest.raises(ValueError, match="high \\(0\\) must be >= low \\(1\\)"):
        UniformInitializer(low=1, high=0)
    # Paddle's check: (diag_num - 1) * (diag_step + 1) must lie inside the parameter
    init = UniformInitializer(diag_num=3, diag_step=5)
    with pytest.raises(ValueError, match="position 12"):
        paddle.create_parameter([3, 4], "float32", default_initializer=init)
    # no diagonal: the plain uniform draw
    p = paddle.create_parameter([50], "float32", default_initializer=UniformInitializer(-2, 2))
    assert np.abs(p.numpy()).max() <= 2 and p.numpy().std() > 0.5
