"""Complex division, tanh and tan use scaled algorithms, as NumPy and the C library do
(issue 16, item 7: tanh(200+0.5j) was NaN and b / b overflowed in |b|^2)."""

import ferrograd as fg
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_division_by_large_complex(dtype):
    v = np.array([3e19 + 3e19j, 1e30 - 2e30j, 1e-30 + 1e-30j], dtype=dtype)
    if dtype == "complex128":
        v = v * 1e200
    b = fg.tensor(v, dtype=dtype)
    np.testing.assert_allclose((b / b).numpy(), np.ones(3), rtol=1e-6)
    np.testing.assert_allclose((1 / b).numpy(), 1 / v, rtol=1e-6)
    np.testing.assert_allclose(b.reciprocal().numpy(), 1 / v, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_tanh_and_tan_of_large_arguments(dtype):
    z = np.array([200 + 0.5j, -300 - 1j, 30 + 2j, 0.3 - 1.2j, 5 + 100j], dtype=dtype)
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(fg.tanh(fg.tensor(z)).numpy(), np.tanh(z), rtol=rtol, atol=1e-30)
    w = z * 1j
    np.testing.assert_allclose(fg.tan(fg.tensor(w)).numpy(), np.tan(w), rtol=rtol, atol=1e-30)


def test_tanh_gradient_is_finite_for_large_arguments():
    x = fg.tensor([200 + 0.5j, 1 + 1j], dtype="complex128", requires_grad=True)
    fg.tanh(x).abs().sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
