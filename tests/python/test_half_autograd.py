"""Backward through float16 / bfloat16 tensors: gradients come back in the input's
dtype and agree with float64 at the narrow type's precision."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

RNG = np.random.default_rng(3)
A = RNG.uniform(0.5, 1.5, (3, 4))
B = RNG.uniform(-1.0, 1.0, (3, 4))
M = RNG.uniform(-1.0, 1.0, (4, 2))
TOL = {"float16": 1e-2, "bfloat16": 6e-2}

OPS = {
    "add_mul": lambda a, b, m: (a + b) * a,
    "div": lambda a, b, m: b / a,
    "exp_tanh": lambda a, b, m: a.exp() * b.tanh(),
    "log_sqrt": lambda a, b, m: a.log() + a.sqrt(),
    "sigmoid_relu": lambda a, b, m: b.sigmoid() + b.relu(),
    "pow": lambda a, b, m: a**3 - b**2,
    "matmul": lambda a, b, m: (a * b) @ m,
    "reductions": lambda a, b, m: a.sum(0) * b.mean(0) + a.max(0),
    "shape": lambda a, b, m: a.reshape([4, 3]).T * b[:, 1:].sum(),
    "softmax": lambda a, b, m: fg.softmax(b, -1) * a if hasattr(fg, "softmax") else a * b,
}


def grads(fn, dtype):
    ts = [fg.tensor(x, dtype=dtype, requires_grad=True) for x in (A, B, M)]
    out = fn(*ts)
    out.sum().backward()
    return out, ts


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_half_backward_matches_float64(dtype, name):
    fn = OPS[name]
    out, ts = grads(fn, dtype)
    ref_out, refs = grads(fn, "float64")
    assert out.dtype == getattr(fg, dtype)
    np.testing.assert_allclose(
        out.astype("float64").numpy(), ref_out.numpy(), rtol=TOL[dtype], atol=TOL[dtype]
    )
    for t, r in zip(ts, refs):
        if r.grad is None:
            assert t.grad is None
            continue
        assert t.grad.dtype == t.dtype, f"grad of a {dtype} input is {t.grad.dtype}"
        np.testing.assert_allclose(
            t.grad.astype("float64").numpy(), r.grad.numpy(), rtol=TOL[dtype], atol=TOL[dtype] * 4
        )


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_mixed_with_float32_and_second_order(dtype):
    h = fg.tensor(A, dtype=dtype, requires_grad=True)
    f = fg.tensor(B, dtype="float32", requires_grad=True)
    (h * f).sum().backward()
    assert h.grad.dtype == getattr(fg, dtype) and f.grad.dtype == fg.float32
    np.testing.assert_allclose(
        h.grad.astype("float64").numpy(), B, rtol=TOL[dtype], atol=TOL[dtype]
    )
    x = fg.tensor(A, dtype=dtype, requires_grad=True)
    (g,) = fg.grad((x**3).sum(), [x], create_graph=True)
    (gg,) = fg.grad(g.sum(), [x])
    assert gg.dtype == x.dtype
    np.testing.assert_allclose(gg.astype("float64").numpy(), 6 * A, rtol=TOL[dtype] * 2)


def test_gradcheck_accepts_half_inputs_by_widening():
    x = fg.tensor(A, dtype="float16", requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: (t * t).tanh(), (x,))
