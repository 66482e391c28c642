"""``torch.func.vjp`` / ``jvp`` / ``linearize`` / ``hessian`` (python/ferrograd/_func_linear.py)
against closed forms and finite differences, their composition with ``grad``, their
refusals, and ``vmap`` over an empty batch (PyTorch's result shapes)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

torch = fg
func = fg.func
f64 = torch.float64


def x3():
    return torch.tensor([0.5, -1.0, 2.0], dtype=f64)


def test_vjp_of_a_tuple_output_and_several_primals():
    x, y = x3(), torch.tensor([1.0, 2.0, 3.0], dtype=f64)
    out, vjp_fn = func.vjp(lambda a, b: (a.sin() * b, (a * b).sum()), x, y)
    np.testing.assert_allclose(out[0].numpy(), np.sin(x.numpy()) * y.numpy())
    u = torch.tensor([1.0, -2.0, 0.5], dtype=f64)
    gx, gy = vjp_fn((u, torch.tensor(3.0, dtype=f64)))
    np.testing.assert_allclose(
        gx.numpy(), u.numpy() * np.cos(x.numpy()) * y.numpy() + 3 * y.numpy()
    )
    np.testing.assert_allclose(gy.numpy(), u.numpy() * np.sin(x.numpy()) + 3 * x.numpy())
    again = vjp_fn((u, torch.tensor(3.0, dtype=f64)))  # callable twice
    np.testing.assert_allclose(again[0].numpy(), gx.numpy())
    assert not gx.requires_grad and not out[0].requires_grad


def test_vjp_has_aux_unused_primal_and_shape_errors():
    x = x3()
    out, vjp_fn, aux = func.vjp(lambda a, b: ((a * a).sum(), {"n": 3}), x, x3(), has_aux=True)
    assert aux == {"n": 3}
    g, gb = vjp_fn(torch.tensor(1.0, dtype=f64))
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())
    assert gb.tolist() == [0.0, 0.0, 0.0]  # unused: zeros, as torch.func
    with pytest.raises(RuntimeError, match="output's shape"):
        vjp_fn(torch.ones(2, dtype=f64))


def test_jvp_and_linearize_match_finite_differences():
    x, t = x3(), torch.tensor([0.3, 0.1, -0.2], dtype=f64)

    def f(a):
        return (a.exp() * a).cumsum(0)

    out, jv = func.jvp(f, (x,), (t,))
    h = 1e-6
    fd = (f(x + h * t).numpy() - f(x - h * t).numpy()) / (2 * h)
    np.testing.assert_allclose(jv.numpy(), fd, rtol=1e-7)
    np.testing.assert_allclose(out.numpy(), f(x).numpy())
    value, jvp_fn = func.linearize(f, x)
    np.testing.assert_allclose(jvp_fn(t).numpy(), fd, rtol=1e-7)
    np.testing.assert_allclose(value.numpy(), f(x).numpy())
    _, _, aux = func.jvp(lambda a: (a.sin(), "aux"), (x,), (t,), has_aux=True)
    assert aux == "aux"
    with pytest.raises(RuntimeError, match="primals to be a tuple"):
        func.jvp(f, x, (t,))
    with pytest.raises(RuntimeError, match="1 primals but 2 tangents"):
        func.jvp(f, (x,), (t, t))


def test_hessian_and_its_argnums():
    x = x3()
    h = func.hessian(lambda a: (a**3).sum() + (a[0] * a[1]))(x)
    want = np.diag(6 * x.numpy())
    want[0, 1] = want[1, 0] = 1.0
    np.testing.assert_allclose(h.numpy(), want)
    y = torch.tensor([1.0, 2.0], dtype=f64)
    hy = func.hessian(lambda a, b: (a.sum() * b**2).sum(), argnums=1)(x, y)
    np.testing.assert_allclose(hy.numpy(), 2 * x.numpy().sum() * np.eye(2))


def test_vjp_composes_with_grad():
    # d/dx of the vjp with u = 1 of sin: d/dx cos(x) = -sin(x)
    def g(a):
        _, fn = func.vjp(torch.sin, a)
        return fn(torch.ones_like(a))[0].sum()

    x = x3()
    np.testing.assert_allclose(func.grad(g)(x).numpy(), -np.sin(x.numpy()))


def test_vmap_over_an_empty_batch_gives_empty_results():
    xs = torch.zeros(0, 3, dtype=f64)
    assert func.vmap(lambda t: t.sin().sum())(xs).shape == (0,)
    a, b = func.vmap(lambda t: (t, t.sum()), in_dims=1)(torch.zeros(2, 0))
    assert a.shape == (0, 2) and b.shape == (0,)
    r = func.vmap(lambda t: t * 2, out_dims=1)(torch.zeros(0, 4, 5))
    assert r.shape == (4, 0, 5)
    assert func.vmap(torch.dot, in_dims=(0, None))(torch.zeros(0, 3), torch.ones(3)).shape == (0,)
