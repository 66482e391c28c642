"""``ferrograd.nn.init``: fills in place, seeded, with the documented bounds and spreads."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.nn import init


def big(*shape):
    return nn.Parameter(fg.zeros(*shape, dtype=fg.float64))


def test_uniform_and_normal_statistics():
    fg.seed(0)
    t = big(200, 100)
    assert init.uniform_(t, -2.0, 3.0) is t
    v = t.numpy()
    assert v.min() >= -2.0 and v.max() < 3.0
    assert abs(v.mean() - 0.5) < 0.05 and abs(v.var() - 25 / 12) < 0.05
    init.normal_(t, 1.0, 0.5)
    v = t.numpy()
    assert abs(v.mean() - 1.0) < 0.01 and abs(v.std() - 0.5) < 0.01
    assert t.requires_grad and t.is_leaf and t.grad_fn is None  # filled under no_grad


def test_constant_zeros_ones():
    t = big(2, 2)
    init.constant_(t, 0.25)
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2), 0.25))
    init.ones_(t)
    assert float(t.sum()) == 4
    init.zeros_(t)
    assert float(t.abs().sum()) == 0


def test_fans_and_gains():
    assert init._calculate_fan_in_and_fan_out(fg.zeros(3, 5)) == (5, 3)
    assert init._calculate_fan_in_and_fan_out(fg.zeros(4, 2, 3, 3)) == (18, 36)
    with pytest.raises(ValueError, match="at least 2 dims"):
        init.xavier_uniform_(fg.zeros(3))
    assert init.calculate_gain("relu") == math.sqrt(2)
    assert init.calculate_gain("tanh") == 5 / 3
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    with pytest.raises(ValueError, match="nonlinearity"):
        init.calculate_gain("swish")


@pytest.mark.parametrize(
    "fill,bound,std",
    [
        (lambda t: init.xavier_uniform_(t), math.sqrt(6 / 300), math.sqrt(2 / 300)),
        (lambda t: init.xavier_normal_(t), None, math.sqrt(2 / 300)),
        (
            lambda t: init.kaiming_uniform_(t, nonlinearity="relu"),
            math.sqrt(6 / 200),
            math.sqrt(2 / 200),
        ),
        (
            lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
            None,
            math.sqrt(2 / 100),
        ),
        (lambda t: nn.initializer.XavierUniform()(t), math.sqrt(6 / 300), math.sqrt(2 / 300)),
        (lambda t: nn.initializer.KaimingNormal()(t), None, math.sqrt(2 / 200)),
        (lambda t: nn.initializer.Uniform(-0.1, 0.1)(t), 0.1, 0.1 / math.sqrt(3)),
        (lambda t: nn.initializer.Normal(0.0, 0.3)(t), None, 0.3),
    ],
)
def test_scaled_initializers(fill, bound, std):
    fg.seed(1)
    t = big(100, 200)  # fan_in 200, fan_out 100
    fill(t)
    v = t.numpy()
    if bound is not None:
        assert np.abs(v).max() <= bound
    assert abs(v.std() - std) < 0.03 * std
    assert abs(v.mean()) < 0.05 * std


def test_paddle_constant_and_create_parameter_initializer():
    t = big(2)
    nn.initializer.Constant(2.0)(t)
    assert float(t.sum()) == 4.0
    p = nn.Layer().create_parameter([3], default_initializer=nn.initializer.Constant(1.5))
    np.testing.assert_array_equal(p.numpy(), [1.5] * 3)


def test_init_is_seeded():
    fg.seed(9)
    a = init.normal_(big(10)).numpy().copy()
    fg.seed(9)
    np.testing.assert_array_equal(init.normal_(big(10)).numpy(), a)


def test_init_rejects_bad_arguments():
    with pytest.raises(TypeError, match="floating"):
        init.uniform_(fg.zeros(2, dtype=fg.int64))
    with pytest.raises(TypeError, match="Tensor"):
        init.normal_(np.zeros(2))
    with pytest.raises(ValueError, match="a <= b"):
        init.uniform_(big(2), 1.0, 0.0)
    with pytest.raises(ValueError, match="fan_in"):
        init.kaiming_uniform_(big(2, 2), mode="fan")
