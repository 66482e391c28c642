"""Second-order gradients through ``abs()`` of a complex tensor (found while checking
ferrograd.fft against PyTorch 2.15).

``Abs`` in src/op_defs/unary.rs passed back ``g * sign(x)``, and ``Sign`` has a zero
gradient: right for real x, wrong for complex x, where ``sgn(z) = z / |z|`` varies with z.
So ``grad(grad(|z|.sum(), create_graph=True))`` lost the term from ``d sgn(z) / dz``. Fixed
(``abs_grad`` in src/autograd/ops/complex.rs writes ``z / |z|`` with differentiable ops).
The expected values below are the analytic ones (they equal PyTorch's)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np


def test_second_order_through_complex_abs():
    z0 = np.array([1 + 2j, 3 - 1j])
    z = fg.tensor(z0, requires_grad=True)
    (g,) = fg.autograd.grad((z.abs() ** 2).sum(), z, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * z0)  # first order is right
    (h,) = fg.autograd.grad((g.real**2 + 3 * g.imag).sum(), z)
    # g = 2z, so d/dz of sum(Re(g)^2 + 3 Im(g)) in PyTorch's convention is 4 Re(z) * 2 + 6i
    np.testing.assert_allclose(h.numpy(), 8 * z0.real + 6j, rtol=1e-12)


def test_gradgradcheck_through_complex_abs_and_abs_at_zero():
    x = fg.tensor(np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j]), requires_grad=True)
    assert fg.autograd.gradgradcheck(lambda t: (t * t).abs(), (x,))
    z = fg.tensor(np.array([0j, 2 + 0j]), requires_grad=True)
    (g,) = fg.autograd.grad(z.abs().sum(), z)
    np.testing.assert_allclose(g.numpy(), [0, 1])  # sgn(0) = 0, as PyTorch
