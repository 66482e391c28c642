"""Saved-tensor pack hooks see only tensors an op saves from its inputs and outputs, never
the library's internal constants (issue 16, item 4: during a ``create_graph=True``
backward, pow's scalars 2.0 and 3.0 were packed, so a value-changing hook changed the
math)."""

import ferrograd as fg
import numpy as np


def packed_shapes(fn):
    seen = []

    def pack(v):
        seen.append((tuple(v.shape), v.numpy().copy()))
        return v

    with fg.autograd.saved_tensors_hooks(pack, lambda v: v):
        fn()
    return seen


def test_no_constant_is_packed_in_double_backward():
    a = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)

    def run():
        s = (a**3).sum()
        (g,) = fg.grad(s, a, create_graph=True)
        g.sum().backward()

    seen = packed_shapes(run)
    assert seen, "the forward saves a"
    assert all(shape == (2,) for shape, _ in seen), [s for s, _ in seen]
    np.testing.assert_allclose(a.grad.numpy(), [6.0, 12.0])  # d/da sum(3 a^2)


def test_python_number_operands_are_not_packed():
    a = fg.tensor([1.0, 2.0], dtype="complex128", requires_grad=True)

    def run():
        ((a * (2 + 1j)) ** 2).abs().sum().backward()

    assert all(shape == (2,) for shape, _ in packed_shapes(run))


def test_value_changing_hook_scales_only_saved_inputs():
    """The doubling hook reaches exactly the tensors ops save from their inputs/outputs.

    Forward: pow saves ``a`` (packed as 2a), so ``g = 3 (2a)^2 = 12 a^2`` (before the fix
    the constants 3 and 2 were doubled as well). The create_graph backward records
    ``seed * (3 * u.pow(2))`` with ``u`` the unpacked 2a: pow saves ``u`` (packed as 4a)
    and the multiplication saves the seed of ones (packed as 2) for the other factor's
    gradient — both are op inputs, as PyTorch packs them. So
    ``d sum(g) / da = 2 * 3 * 2 * 4a = 48 a``; the exponent constants stay 3 and 2.
    """
    a = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    with fg.autograd.saved_tensors_hooks(lambda v: 2 * v, lambda v: v):
        s = (a**3).sum()
        (g,) = fg.grad(s, a, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 12 * a.detach().numpy() ** 2)
    g.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 48 * a.detach().numpy())
