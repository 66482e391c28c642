"""Two answers PyTorch code gets from PyTorch (issue 17): a gradient that does not
depend on the graph is a constant under ``create_graph=True`` too (``requires_grad``
False; ferrograd's default and Paddle code keep ``stop_gradient=False``, see
test_dropin_autograd.py), and ``clamp`` of an integer tensor with a 0-d tensor bound
beside a number bound takes PyTorch's number rule."""

import ferrograd as torch
import numpy as np
import pytest

X = np.array([1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "f, want, const",
    [
        (lambda x: x + 1.0, np.ones(3), True),
        (lambda x: x * 2, np.full(3, 2.0), True),
        (lambda x: x, np.ones(3), True),
        (lambda x: x * x, 2 * X, False),
    ],
)
def test_a_constant_gradient_does_not_require_grad_under_create_graph(f, want, const):
    x = torch.tensor(X, requires_grad=True)
    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    assert g.requires_grad is not const
    assert (g.grad_fn is None) is const
    np.testing.assert_allclose(g.detach().numpy(), want)


def test_materialized_zeros_still_require_grad_under_create_graph():
    x = torch.ones(3, requires_grad=True)
    y = torch.ones(3, requires_grad=True)
    gx, gy = torch.autograd.grad((x * 2).sum(), [x, y], create_graph=True, materialize_grads=True)
    assert not gx.requires_grad
    assert gy.requires_grad and gy.grad_fn is None
    np.testing.assert_array_equal(gy.detach().numpy(), np.zeros(3))


def T(v, dtype):
    return torch.tensor(v, dtype=dtype)


@pytest.mark.parametrize(
    "lo, hi, want",
    [
        # beside a number, a 0-d tensor bound counts as a number of its kind
        (lambda: T(0.5, torch.float64), lambda: 2, torch.float32),
        (lambda: T(0.5, torch.float64), lambda: 2.5, torch.float32),
        (lambda: 1, lambda: T(2.5, torch.float64), torch.float32),
        (lambda: T(0.5, torch.float16), lambda: 2, torch.float32),
        (lambda: T(1, torch.int64), lambda: 2, torch.int32),
        # tensors alone: result_type, a 0-d tensor of a higher category gives its dtype
        (lambda: T(0.5, torch.float64), lambda: None, torch.float64),
        (lambda: T(1.0, torch.float64), lambda: T(2, torch.int64), torch.float64),
        (lambda: T([0.5], torch.float64), lambda: None, torch.float64),
        (lambda: 0.5, lambda: None, torch.float32),
    ],
)
def test_clamp_dtype_of_an_int_tensor_with_tensor_bounds(lo, hi, want):
    a = torch.tensor([0, 1, 3], dtype=torch.int32)
    for r in (torch.clamp(a, min=lo(), max=hi()), a.clamp(lo(), hi())):
        assert r.dtype == want
        hi_v = hi()
        top = (
            3
            if hi_v is None
            else float(hi_v if not isinstance(hi_v, torch.Tensor) else hi_v.item())
        )
        lo_v = lo()
        bot = float(lo_v if not isinstance(lo_v, torch.Tensor) else lo_v.reshape([-1])[0].item())
        np.testing.assert_allclose(
            r.numpy().astype(np.float64),
            np.clip(np.array([0, 1, 3.0]), bot, top).astype(want_np(want)),
        )


def want_np(dtype):
    return {torch.float32: np.float32, torch.float64: np.float64, torch.int32: np.int32}[dtype]


def test_a_float_tensor_keeps_its_dtype_beside_a_number_bound():
    f = torch.ones(3)
    assert torch.clamp(f, min=T(0.5, torch.float64), max=2).dtype == torch.float32
