"""``nn.utils.parametrize`` and ``nn.utils.parametrizations`` (weight_norm, spectral_norm,
orthogonal), checked against NumPy float64 and PyTorch 2.15's rules (state_dict keys,
class names, errors; the session-20 differential run compared values and gradients)."""

import ferrograd as torch
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from ferrograd.nn.utils import parametrize as P
from ferrograd.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm

nn = torch.nn


def _linear(out_f, in_f, seed=0):
    m = nn.Linear(in_f, out_f).double()
    w = np.random.default_rng(seed).standard_normal((out_f, in_f))
    m.load_state_dict({"weight": torch.tensor(w), "bias": torch.tensor(np.zeros(out_f))})
    return m, w


class Sym(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(-1, -2)


class Scale(nn.Module):
    def forward(self, x):
        return x * 2.0

    def right_inverse(self, x):
        return x / 2.0


def test_register_and_remove_parametrization():
    m, w = _linear(3, 3)
    original = m.weight
    P.register_parametrization(m, "weight", Sym())
    P.register_parametrization(m, "weight", Scale())
    assert type(m).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(m) is nn.Linear
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert m.parametrizations.weight.original is original  # kept: optimizers still hold it
    sym = np.triu(w) + np.triu(w, 1).T
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * sym)
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
    assert not P.is_parametrized(m, "bias")
    with P.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    with pytest.raises(RuntimeError, match="Sym does not implement right_inverse"):
        m.weight = torch.tensor(np.ones((3, 3)))
    x = torch.tensor(np.ones((1, 3)))
    m(x).sum().backward()
    g = original.grad.numpy()
    # d/dW of sum(x @ (2 sym(W)).T): 2 on and above the diagonal... counted twice above it
    np.testing.assert_allclose(g, 2 * (np.triu(np.ones((3, 3))) + np.triu(np.ones((3, 3)), 1)))
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * sym)


def test_assign_through_right_inverse_and_leave_unparametrized():
    m, w = _linear(2, 2)
    P.register_parametrization(m, "weight", Scale())
    m.weight = torch.tensor(np.arange(4.0).reshape(2, 2))
    np.testing.assert_allclose(
        m.parametrizations.weight.original.detach().numpy(), np.arange(4.0).reshape(2, 2) / 2
    )
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_allclose(m.weight.detach().numpy(), np.arange(4.0).reshape(2, 2) / 2)
    with pytest.raises(ValueError, match="no parametrization|does not have"):
        P.remove_parametrizations(m, "weight")
    with pytest.raises(ValueError, match="shape or dtype"):
        P.register_parametrization(m, "weight", nn.Flatten(0))


def test_weight_norm():
    m, w = _linear(4, 3)
    weight_norm(m)
    assert list(m.state_dict()) == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1",
    ]  # fmt: skip
    g = m.parametrizations.weight.original0
    np.testing.assert_allclose(g.detach().numpy(), np.linalg.norm(w, axis=1, keepdims=True))
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-12)
    with torch.no_grad():
        g.mul_(2.0)
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * w, rtol=1e-12)
    c = nn.Conv2d(2, 3, 3).double()
    weight_norm(c, dim=None)
    assert list(c.parametrizations.weight.original0.shape) == []
    c2 = weight_norm(nn.Conv2d(2, 3, 3).double(), dim=1)
    assert list(c2.parametrizations.weight.original0.shape) == [1, 2, 1, 1]
    v = torch.tensor(np.random.default_rng(1).standard_normal((4, 3)), requires_grad=True)
    gg = torch.tensor(np.random.default_rng(2).standard_normal((4, 1)), requires_grad=True)
    fn = m.parametrizations.weight[0]
    assert gradcheck(lambda a, b: fn(a, b), (gg, v))


def test_spectral_norm():
    m, w = _linear(4, 3, seed=3)
    spectral_norm(m)
    assert list(m.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]  # fmt: skip
    m.eval()
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-6)
    u_before = m.parametrizations.weight[0]._u.numpy().copy()
    m.train()
    m(torch.tensor(np.ones((1, 3))))
    assert np.allclose(m.parametrizations.weight[0]._u.numpy(), u_before, atol=1e-6)
    ct = spectral_norm(nn.ConvTranspose2d(2, 3, 3).double())
    assert list(ct.parametrizations.weight[0]._u.shape) == [3]  # dim 1 for transposed
    with pytest.raises(ValueError, match="n_power_iterations"):
        spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("omap", [None, "matrix_exp", "cayley", "householder"])
def test_orthogonal(shape, omap):
    m, w = _linear(*shape)
    orthogonal(m, orthogonal_map=omap)
    assert list(m.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0.base",
    ]  # fmt: skip
    k = min(shape)

    def check_orthonormal(q):
        gram = q.T @ q if shape[0] >= shape[1] else q @ q.T
        np.testing.assert_allclose(gram, np.eye(k), atol=1e-12)

    check_orthonormal(m.weight.detach().numpy())
    if shape[0] == shape[1]:  # torch 2.15: the QR factor with a positive diagonal of R
        q, r = np.linalg.qr(w)
        np.testing.assert_allclose(m.weight.detach().numpy(), q * np.sign(np.diag(r)), atol=1e-12)
    orig = m.parametrizations.weight.original
    noise = np.random.default_rng(7).standard_normal(shape) * 0.3
    householder = omap == "householder" or (omap is None and shape[0] != shape[1])
    if householder:  # its diagonal holds the column signs (+-1): move the rest only
        tall = shape[0] >= shape[1]
        noise = orig.detach().numpy() + (np.tril(noise, -1) if tall else np.triu(noise, 1))
    with torch.no_grad():
        orig.copy_(torch.tensor(noise))
    check_orthonormal(m.weight.detach().numpy())
    f = m.parametrizations.weight[0]
    x = torch.tensor(orig.detach().numpy(), requires_grad=True)
    if householder:
        # the diagonal is read as signs (a step function): differentiate the rest only
        ones = np.ones(shape)
        mask = torch.tensor(np.tril(ones, -1) if tall else np.triu(ones, 1))
        fixed = torch.tensor(orig.detach().numpy() * (1 - mask.numpy()))
        assert gradcheck(lambda t: f(t * mask + fixed), (x,))
    else:
        assert gradcheck(lambda t: f(t), (x,))


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="matrix"):
        orthogonal(nn.BatchNorm1d(3))
    with pytest.raises(ValueError, match="orthogonal_map"):
        orthogonal(nn.Linear(2, 2), orthogonal_map="qr")


def test_hook_weight_norm_torch():
    m, w = _linear(4, 3)
    nn.utils.weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]  # torch 2.15
    np.testing.assert_allclose(m.weight_g.detach().numpy(), np.linalg.norm(w, axis=1)[:, None])
    with torch.no_grad():
        m.weight_g.mul_(3.0)
    y = m(torch.tensor(np.ones((1, 3))))
    np.testing.assert_allclose(y.detach().numpy(), (3 * w).sum(1)[None], rtol=1e-12)
    y.sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), 3 * w, rtol=1e-12)
    with pytest.raises(ValueError, match="not found"):
        nn.utils.remove_weight_norm(m)
    whole = nn.utils.weight_norm(_linear(4, 3)[0], dim=None)
    assert list(whole.weight_g.shape) == []


def test_hook_spectral_norm_torch():
    m, w = _linear(4, 3, seed=3)
    nn.utils.spectral_norm(m, n_power_iterations=30)
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    np.testing.assert_allclose(m.weight.numpy(), w)  # raw until the first forward (torch)
    m(torch.tensor(np.ones((1, 3))))
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-6)
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-6)
