"""Complex autograd under PyTorch's convention: for a real loss L of z = x + iy the
gradient is dL/dx + i dL/dy, so a holomorphic y = f(z) passes back grad * conj(f'(z)).
Expected values are derived by hand in NumPy; gradcheck checks every real partial."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(7)
Z = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
W = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
G = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))


def c(a, dtype="complex128", requires_grad=True):
    return fg.tensor(np.asarray(a), dtype=dtype, requires_grad=requires_grad)


def test_squared_modulus_gives_2z():
    z = c(Z)
    (z * z.conj()).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * Z)
    z2 = c(Z)
    (z2.abs() ** 2).sum().backward()
    np.testing.assert_allclose(z2.grad.numpy(), 2 * Z)


def test_product_and_quotient():
    z, w = c(Z), c(W)
    (z * w).backward(fg.tensor(G))
    np.testing.assert_allclose(z.grad.numpy(), G * np.conj(W))
    np.testing.assert_allclose(w.grad.numpy(), G * np.conj(Z))
    z, w = c(Z), c(W)
    (z / w).backward(fg.tensor(G))
    np.testing.assert_allclose(z.grad.numpy(), G / np.conj(W))
    np.testing.assert_allclose(w.grad.numpy(), -G * np.conj(Z / W**2))


HOLOMORPHIC = {
    "exp": (lambda t: t.exp(), np.exp),
    "log": (lambda t: t.log(), lambda a: 1 / a),
    "sin": (lambda t: t.sin(), np.cos),
    "cos": (lambda t: t.cos(), lambda a: -np.sin(a)),
    "tan": (lambda t: t.tan(), lambda a: 1 / np.cos(a) ** 2),
    "tanh": (lambda t: t.tanh(), lambda a: 1 - np.tanh(a) ** 2),
    "sqrt": (lambda t: t.sqrt(), lambda a: 0.5 / np.sqrt(a)),
    "rsqrt": (lambda t: t.rsqrt(), lambda a: -0.5 * a**-1.5),
    "square": (lambda t: t.square(), lambda a: 2 * a),
    "reciprocal": (lambda t: t.reciprocal(), lambda a: -1 / a**2),
    "sigmoid": (lambda t: t.sigmoid(), lambda a: np.exp(-a) / (1 + np.exp(-a)) ** 2),
    "log1p": (lambda t: t.log1p(), lambda a: 1 / (1 + a)),
    "expm1": (lambda t: t.expm1(), np.exp),
    "pow3": (lambda t: t**3, lambda a: 3 * a**2),
}


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC))
def test_holomorphic_unary_ops(name):
    f, df = HOLOMORPHIC[name]
    z = c(Z)
    f(z).backward(fg.tensor(G))
    np.testing.assert_allclose(z.grad.numpy(), G * np.conj(df(Z)), rtol=1e-10)
    assert gradcheck(f, (c(Z),))


def test_abs_real_imag_angle_conj():
    z = c(Z)
    z.abs().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), Z / np.abs(Z))
    z = c(Z)
    (z.real * 2 + z.imag * 3).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), np.full(Z.shape, 2 + 3j))
    z = c(Z)
    z.angle().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 1j * Z / np.abs(Z) ** 2)
    z = c(Z)
    z.conj().backward(fg.tensor(G))
    np.testing.assert_allclose(z.grad.numpy(), np.conj(G))
    for f in (
        lambda t: t.real,
        lambda t: t.imag,
        lambda t: t.angle(),
        lambda t: t.conj(),
        lambda t: fg.real(t) * fg.imag(t),
        lambda t: fg.conj(t) * t,
    ):
        assert gradcheck(f, (c(Z),))


def test_angle_is_zero_gradient_at_zero_and_for_reals():
    z = c([0j, 1 + 1j])
    z.angle().sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [0, 1j * (1 + 1j) / 2])
    x = fg.tensor([-1.0, 2.0], requires_grad=True)
    a = x.angle()
    np.testing.assert_allclose(a.numpy(), [np.pi, 0.0])
    a.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_complex_constructor():
    re = fg.tensor(Z.real, requires_grad=True)
    im = fg.tensor(Z.imag, requires_grad=True)
    z = fg.complex(re, im)
    assert z.dtype == fg.complex128
    np.testing.assert_allclose(z.numpy(), Z)
    z.backward(fg.tensor(G))
    np.testing.assert_allclose(re.grad.numpy(), G.real)
    np.testing.assert_allclose(im.grad.numpy(), G.imag)
    assert gradcheck(
        fg.complex, (fg.tensor(Z.real, requires_grad=True), fg.tensor(Z.imag, requires_grad=True))
    )
    with pytest.raises(TypeError, match="same dtype"):
        fg.complex(re, fg.tensor(Z.imag, dtype="float32"))


def test_real_input_mixed_with_complex_gets_the_real_part():
    x = fg.tensor(Z.real, requires_grad=True)
    w = c(W)
    (x * w).backward(fg.tensor(G))
    assert x.grad.dtype == fg.float64
    np.testing.assert_allclose(x.grad.numpy(), (G * np.conj(W)).real)
    np.testing.assert_allclose(w.grad.numpy(), G * Z.real)


def test_matmul_uses_the_conjugate_transpose():
    a = c(Z)
    b = c(W.T)
    g = RNG.standard_normal((2, 2)) + 1j * RNG.standard_normal((2, 2))
    (a @ b).backward(fg.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), g @ np.conj(W.T).T)
    np.testing.assert_allclose(b.grad.numpy(), np.conj(Z).T @ g)
    assert gradcheck(lambda p, q: p @ q, (c(Z), c(W.T)))
    v = c(Z[0])
    assert gradcheck(lambda p, q: p @ q, (v, c(W[1])))


@pytest.mark.parametrize(
    "fn",
    [
        lambda z: z.sum(),
        lambda z: z.mean(0),
        lambda z: z.prod(1),
        lambda z: z.reshape([3, 2]).T * 2,
        lambda z: z[1, 1:] + z[:, 0].sum(),
        lambda z: fg.concat([z, z * 1j], 0),
        lambda z: fg.stack([z.exp(), z], 0).sum(0),
        lambda z: z ** c(W, requires_grad=False),
        lambda z: c(W, requires_grad=False) ** z,
        lambda z: (z - 1) * (z + 2j),
    ],
)
def test_other_ops_pass_gradcheck(fn):
    assert gradcheck(fn, (c(Z),))


def test_complex64_gradients_and_second_order():
    z = c(Z, dtype="complex64")
    (z * z).backward(fg.tensor(G, dtype="complex64"))
    assert z.grad.dtype == fg.complex64
    np.testing.assert_allclose(z.grad.numpy(), G * np.conj(2 * Z), rtol=1e-5)
    z = c(Z)
    (g,) = fg.grad((z * z * z.conj()).real.sum(), [z], create_graph=True)
    # L = |z|^2 Re z ... checked against finite differences instead of by hand
    assert g.requires_grad
    assert fg.autograd.gradgradcheck(lambda t: (t * t * t.conj()).real.sum(), (c(Z),))


@pytest.mark.parametrize(
    ("fn", "deriv"),
    [
        (lambda t: t * (1 + 2j), lambda a: np.full(a.shape, 1 + 2j)),
        (lambda t: t / (2 - 1j), lambda a: np.full(a.shape, 1 / (2 - 1j))),
        (lambda t: (1 + 1j) / t, lambda a: -(1 + 1j) / a**2),
        (lambda t: t**3, lambda a: 3 * a**2),
        (lambda t: 2**t, lambda a: 2**a * np.log(2)),
        (lambda t: (1 + 1j) ** t, lambda a: (1 + 1j) ** a * np.log(1 + 1j)),
        (lambda t: t * 3.0 - 1j, lambda a: np.full(a.shape, 3.0)),
    ],
)
def test_python_scalar_operands(fn, deriv):
    z = c(Z)
    fn(z).backward(fg.tensor(G))
    np.testing.assert_allclose(z.grad.numpy(), G * np.conj(deriv(Z)), rtol=1e-10)
    assert gradcheck(fn, (c(Z),))
