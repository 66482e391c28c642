"""Session 19 differential run, PyTorch side: calls whose PyTorch answer differed
(expected values computed once with PyTorch 2.15)."""

import ferrograd as torch
import numpy as np
import pytest


def test_clamp_int_tensor_with_float_bound_promotes():
    """``torch.clamp(int_tensor, max=2.5)`` is float32 ``[1.0, 2.5]``, not int64."""
    out = torch.clamp(torch.tensor([1, 5]), max=2.5)
    assert out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), [1.0, 2.5])
    out = torch.clamp(torch.tensor([1, 5]), min=2)
    assert out.dtype == torch.int64
    assert out.tolist() == [2, 5]


def test_tensor_put_and_put_():
    """``Tensor.put`` / ``put_`` write at flat indices (``accumulate`` adds)."""
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = a.put(torch.tensor([0, 3]), torch.tensor([9.0, 8.0]))
    np.testing.assert_allclose(out.detach().numpy(), [[9, 2], [3, 8]])
    out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[0, 1], [1, 0]])
    z = torch.zeros(2, 2)
    z.put_(torch.tensor([1, 1, 3]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    np.testing.assert_allclose(z.numpy(), [[0, 3], [0, 3]])


def test_tensor_unfold_windows():
    """``Tensor.unfold(dim, size, step)`` slides windows along ``dim``."""
    a = torch.arange(6.0, requires_grad=True)
    out = a.unfold(0, 2, 2)
    np.testing.assert_allclose(out.detach().numpy(), [[0, 1], [2, 3], [4, 5]])
    b = torch.arange(10.0).reshape(2, 5).unfold(1, 3, 1)
    assert list(b.shape) == [2, 3, 3]
    np.testing.assert_allclose(b.numpy()[1, 2], [7, 8, 9])
    c = torch.arange(10.0, requires_grad=True).reshape(2, 5)
    c.unfold(-1, 2, 2).sum().backward()


def test_int_shift_operators():
    """``>>`` and ``<<`` on integer tensors are arithmetic shifts."""
    assert (torch.tensor([1, -8]) >> 1).tolist() == [0, -4]
    assert (torch.tensor([1, -8]) << 2).tolist() == [4, -32]


def test_clamp_gradient_is_zero_at_the_bounds_in_torch_code():
    """PyTorch 2.15's ``clamp`` with number bounds passes no gradient where ``x`` equals
    a bound (values from the peer: ``[0, 1, 0, 0, 0]``)."""
    a = torch.tensor([0.0, 0.5, 1.0, 2.0, -1.0], requires_grad=True)
    a.clamp(0.0, 1.0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0, 1, 0, 0, 0])
    a.grad = None
    torch.clamp(a, min=0.0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0, 1, 1, 1, 0])


def test_pad_full_length_constant_list_reads_from_the_last_dim_in_torch_code():
    """PyTorch's ``pad`` pairs start at the last dimension, also with ``2 * ndim`` values."""
    out = torch.nn.functional.pad(torch.ones(2, 3), (1, 0, 0, 2))
    assert list(out.shape) == [4, 4]
    np.testing.assert_allclose(out.numpy()[0], [0, 1, 1, 1])
    np.testing.assert_allclose(out.numpy()[3], np.zeros(4))


def test_clamp_gradient_at_one_element_tensor_bounds_is_halved_in_torch_code():
    """With one-element tensor bounds PyTorch 2.15 gives ``x`` half the gradient where it
    equals a bound (values from the peer: ``[0.5, 1, 0.5, 0, 0]``)."""
    a = torch.tensor([0.0, 0.5, 1.0, 2.0, -1.0], requires_grad=True)
    torch.clamp(a, min=torch.tensor(0.0), max=torch.tensor(1.0)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 1, 0.5, 0, 0])


def test_full_with_int_fill_is_int64_in_torch_code():
    """``torch.full((2,), 3)`` is int64 (Paddle code gets float32: the Paddle test)."""
    assert torch.full((2,), 3).dtype == torch.int64
    assert torch.full((2,), 3, dtype=torch.float64).dtype == torch.float64
    assert torch.full((2,), True).dtype == torch.bool


def test_clamp_int_tensor_with_bounds_beyond_its_range():
    """A bound past int32's range on the side that clamps nothing is ignored (converting
    it wrapped: ``clamp(int32, max=2**31)`` gave ``-2**31`` everywhere); one that would
    clamp everything to an unrepresentable value raises (PyTorch 2.15 answers the same)."""
    x = torch.tensor([1, 2, 3], dtype=torch.int32)
    for kw in ({"max": 2**40}, {"max": 2**31}, {"min": -(2**40)}, {"max": 2**31 - 1}):
        out = torch.clamp(x, **kw)
        assert out.dtype == torch.int32 and out.tolist() == [1, 2, 3]
    assert x.clip(max=2**40).tolist() == [1, 2, 3]
    assert torch.clamp(x, min=2, max=2**40).tolist() == [2, 2, 3]
    for kw in ({"max": -(2**40)}, {"min": 2**31}):
        with pytest.raises(ValueError, match="outside the representable range of int32"):
            torch.clamp(x, **kw)
    u8 = torch.tensor([1, 2, 3], dtype=torch.uint8)
    assert torch.clamp(u8, max=300).tolist() == [1, 2, 3]
    assert torch.clamp(u8, min=-5).tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="uint8"):
        torch.clamp(u8, max=-5)
    i64 = torch.tensor([1, -(2**62)])
    assert torch.clamp(i64, min=-(2**70), max=2**70).tolist() == [1, -(2**62)]
