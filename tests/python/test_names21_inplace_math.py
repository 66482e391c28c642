"""In-place elementwise math (`x.sqrt_()`, `x.pow_(2)`, `x.lt_(y)`, ...; _inplace_math.py):
each equals its out-of-place op written back, with autograd through the write, views
updated, PyTorch's dtype rules (checked on torch 2.15: a bool result written into a float
tensor as 1.0 / 0.0, float into int refused) and Paddle's (a comparison gives a bool x)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd._inplace_math import INPLACE, UNARY

X = np.array([[0.3, 0.6], [0.45, 0.9]])


def test_every_unary_equals_its_out_of_place_op():
    x = fg.tensor(X, dtype=fg.float64)
    ints = fg.tensor([[3, -5], [0, 7]])
    for base in UNARY:
        src = ints if base == "bitwise_not" else x
        y = src.clone()
        version = y._version
        assert getattr(y, base + "_")() is y
        assert y._version > version
        np.testing.assert_allclose(
            y.numpy(), getattr(src, base)().numpy(), rtol=1e-15, err_msg=base
        )
    y = fg.tensor([0.0, 2.0])
    assert y.logical_not_().tolist() == [1.0, 0.0]  # PyTorch: x keeps its dtype


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "want"),
    [
        ("pow_", (2,), {}, X**2),
        ("clamp_min_", (0.5,), {}, np.maximum(X, 0.5)),
        ("clamp_max_", (0.5,), {}, np.minimum(X, 0.5)),
        ("lerp_", (np.zeros((2, 2)), 0.25), {}, 0.75 * X),
        ("cumsum_", (1,), {}, np.cumsum(X, 1)),
        ("cumprod_", (0,), {}, np.cumprod(X, 0)),
        ("round_", (), {"decimals": 1}, np.round(X, 1)),
        ("remainder_", (0.4,), {}, np.mod(X, 0.4)),
        ("fmod_", (0.4,), {}, np.fmod(X, 0.4)),
        ("atan2_", (np.full((2, 2), 0.5),), {}, np.arctan2(X, 0.5)),
        ("hypot_", (np.full((2, 2), 0.5),), {}, np.hypot(X, 0.5)),
        ("xlogy_", (np.full((2, 2), 2.0),), {}, X * np.log(2.0)),
        ("logit_", (), {}, np.log(X / (1 - X))),
        ("true_divide_", (4.0,), {}, X / 4),
        ("subtract_", (1.0,), {}, X - 1),
        ("addmm_", (np.eye(2), np.ones((2, 2))), {"beta": 2.0, "alpha": 0.5}, 2 * X + 0.5),
        ("lt_", (np.full((2, 2), 0.5),), {}, (X < 0.5).astype(float)),
        ("ge_", (0.45,), {}, (X >= 0.45).astype(float)),
        ("not_equal_", (0.3,), {}, (X != 0.3).astype(float)),
        ("logical_and_", (np.array([[True, False], [True, True]]),), {}, [[1, 0], [1, 1]]),
    ],
)
def test_with_arguments_matches_numpy(name, args, kwargs, want):
    x = fg.tensor(X, dtype=fg.float64)
    args = tuple(fg.tensor(a, dtype=fg.float64) if isinstance(a, np.ndarray) and a.dtype != bool else fg.tensor(a) if isinstance(a, np.ndarray) else a for a in args)  # fmt: skip
    assert getattr(x, name)(*args, **kwargs) is x
    assert x.dtype == fg.float64
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-14, atol=1e-15)


def test_integer_ops_and_casts():
    assert fg.tensor([5, 7]).gcd_(fg.tensor([10, 21])).tolist() == [5, 7]
    assert fg.tensor([4, 6]).lcm_(fg.tensor([6, 4])).tolist() == [12, 12]
    assert fg.tensor([6, 3]).bitwise_and_(fg.tensor([3, 1])).tolist() == [2, 1]
    x = fg.tensor([1.0, 2.0])  # float32 takes a float64 result, cast down (PyTorch)
    x.mul_(fg.tensor([2.0], dtype=fg.float64))
    x.pow_(fg.tensor([2.0], dtype=fg.float64))
    assert x.dtype == fg.float32 and x.tolist() == [4.0, 16.0]
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        fg.tensor([1, 4]).sqrt_()
    with pytest.raises(RuntimeError, match="can't be cast"):
        fg.tensor([1.0, 2.0]).float_power_(2)  # PyTorch: only a float64 x
    assert fg.tensor([1.0, 2.0], dtype=fg.float64).float_power_(2).tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match="broadcast shape"):
        fg.ones([2]).pow_(fg.ones([2, 2]))
    with pytest.raises(TypeError):
        fg.Tensor.sqrt_([1.0])


def test_autograd_through_the_writes_views_and_leaves():
    def f(x):
        y = x * 1.0
        y.sigmoid_()
        y.pow_(y)  # an operand that is the tensor written: read before the write
        y.clamp_min_(0.7)
        return y.log1p_()

    x = fg.tensor([0.3, -0.4, 1.2], dtype=fg.float64, requires_grad=True)
    assert fg.autograd.gradcheck(f, (x,))
    s = 1 / (1 + np.exp(-x.detach().numpy()))
    np.testing.assert_allclose(f(x).detach().numpy(), np.log1p(np.maximum(s**s, 0.7)), rtol=1e-14)
    base = fg.tensor([1.0, 4.0, 9.0])
    base[1:].sqrt_()
    assert base.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="leaf"):
        x.sqrt_()
    with fg.no_grad():
        leaf = fg.tensor([4.0], requires_grad=True)
        leaf.sqrt_()
    assert leaf.tolist() == [2.0]


def test_paddle_comparisons_give_a_bool_tensor():
    code = """
x = paddle.to_tensor([1.0, 2.0])
r = x.equal_(paddle.to_tensor([1.0, 3.0]))
y = paddle.to_tensor([0.0, 1.0])
y.logical_not_()
z = paddle.to_tensor([1.0, 5.0])
z.greater_than_(paddle.to_tensor([2.0, 2.0]))
"""
    ns = {"paddle": fg}
    exec(compile(code, "<paddle code>", "exec"), ns)
    assert ns["r"] is ns["x"] and ns["x"].dtype == fg.bool and ns["x"].tolist() == [True, False]
    assert ns["y"].dtype == fg.bool and ns["y"].tolist() == [True, False]
    assert ns["z"].tolist() == [False, True]
    ns = {"torch": fg}
    exec(compile("x = torch.tensor([0.0, 1.0])\nx.logical_not_()", "<torch code>", "exec"), ns)
    assert ns["x"].dtype == fg.float32 and ns["x"].tolist() == [1.0, 0.0]


def test_names_cover_both_peers():
    for name in ("sqrt_", "sigmoid_", "tanh_", "relu_", "neg_", "floor_", "mod_", "floor_mod_",
                 "greater_equal_", "less_than_", "multigammaln_", "nan_to_num_"):  # fmt: skip
        assert name in INPLACE and hasattr(fg.Tensor, name)
