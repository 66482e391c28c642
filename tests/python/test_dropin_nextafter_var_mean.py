"""``nextafter`` (both peers; its backward raises ``NotImplementedError`` as PyTorch's) and
``var_mean`` as one graph node with two outputs (a pre-hook on it sees both gradients)."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def test_nextafter_values_and_dtype():
    x = torch.tensor([1.0, 2.0, -1.0])
    y = torch.tensor([2.0, 0.0, -1.0])
    got = torch.nextafter(x, y)
    assert got.dtype == torch.float32
    want = np.nextafter(x.numpy(), y.numpy())
    assert got.numpy().tobytes() == want.tobytes()
    x64 = torch.tensor([1.0], dtype=torch.float64)
    assert x64.nextafter(torch.tensor([0.0], dtype=torch.float64)).item() == np.nextafter(1.0, 0.0)
    with pytest.raises(TypeError, match="one dtype"):
        torch.nextafter(x, x64)


def test_nextafter_backward_is_not_implemented():
    a = torch.rand(2, requires_grad=True)
    y = torch.nextafter(a, a).sum()
    with pytest.raises(NotImplementedError, match="the derivative for .* is not implemented"):
        y.backward()


def test_var_mean_is_one_node_and_a_prehook_sees_both_gradients():
    b = torch.rand(3, 3, requires_grad=True)
    var, mean = torch.var_mean(b, dim=0)
    assert var.grad_fn is mean.grad_fn and (var.output_nr, mean.output_nr) == (0, 1)
    (var + mean).sum().backward()

    a = b.detach().requires_grad_()
    seen = []

    def prehook(grad_outputs):
        seen.append(len(grad_outputs))
        gvar, gmean = grad_outputs
        return (gvar * 2, gmean * 2)

    var, mean = torch.var_mean(a, dim=0)
    mean.grad_fn.register_prehook(prehook)
    (var + mean).sum().backward()
    assert seen == [2]
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy() * 2, rtol=1e-6)


@pytest.mark.parametrize(
    "kw",
    [
        {"dim": 0},
        {"dim": [0, 1], "keepdim": True},
        {},
        {"dim": 1, "unbiased": False},
        {"dim": 1, "correction": 2},
    ],
)
def test_var_mean_gradients_are_exact(kw):
    x = torch.rand(3, 4, dtype=torch.float64, requires_grad=True)

    def f(t):
        var, mean = torch.var_mean(t, **kw)
        return var.sum() + 3 * mean.sum()

    assert gradcheck(f, [x])
    assert gradgradcheck(f, [x])
    v, m = torch.var_mean(x.detach(), **kw)
    kv = {k: w for k, w in kw.items() if k != "dim"}
    np.testing.assert_allclose(v.numpy(), x.detach().var(kw.get("dim"), **kv).numpy())
