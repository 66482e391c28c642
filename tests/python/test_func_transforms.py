"""Issue 17: ``ferrograd.func`` (torch.func): ``vmap`` (a loop: in_dims / out_dims, nested
arguments, errors), ``grad`` / ``grad_and_value`` (argnums, has_aux, composition),
``jacrev`` / ``jacfwd`` against closed forms, ``functional_call`` (the module left as it
was, tied weights, strict) — values checked against NumPy in float64."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.func import functional_call, grad, grad_and_value, jacfwd, jacrev, vmap


def t(a):
    return fg.tensor(np.asarray(a, dtype=np.float64))


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))
A = RNG.standard_normal((3, 2))


def test_vmap_in_dims_and_out_dims():
    out = vmap(lambda x, a: x @ a, in_dims=(0, None))(t(X), t(A))
    np.testing.assert_allclose(out.numpy(), X @ A, rtol=1e-12)
    out = vmap(lambda x, a: x @ a, in_dims=(1, None), out_dims=1)(t(X.T), t(A))
    np.testing.assert_allclose(out.numpy(), (X @ A).T, rtol=1e-12)
    # several outputs, each with its out_dim; kwargs are passed unmapped
    s, p = vmap(lambda x, k=1.0: (x.sum() * k, x * k), out_dims=(0, 1))(t(X), k=2.0)
    np.testing.assert_allclose(s.numpy(), 2 * X.sum(1), rtol=1e-12)
    np.testing.assert_allclose(p.numpy(), 2 * X.T, rtol=1e-12)
    # nested arguments: a dict of tensors mapped as a whole, with negative dims
    out = vmap(lambda d: d["a"] + d["b"], in_dims=(-1,))({"a": t(X.T), "b": t(X.T)})
    np.testing.assert_allclose(out.numpy(), 2 * X, rtol=1e-12)
    assert fg.vmap is vmap


def test_vmap_of_grad_is_per_sample_gradients():
    w = t([0.5, -1.0, 2.0])

    def loss(w, x):
        return (x @ w).tanh() ** 2

    per_sample = vmap(grad(loss), in_dims=(None, 0))(w, t(X))
    z = np.tanh(X @ w.numpy())
    want = (2 * z * (1 - z**2))[:, None] * X
    np.testing.assert_allclose(per_sample.numpy(), want, rtol=1e-10)


def test_vmap_errors():
    with pytest.raises(ValueError, match="different sizes"):
        vmap(lambda a, b: a + b)(t(X), t(A))
    with pytest.raises(ValueError, match="no argument is mapped"):
        vmap(lambda a: a, in_dims=None)(t(X))
    with pytest.raises(IndexError, match="out of range"):
        vmap(lambda a: a, in_dims=2)(t(X))
    with pytest.raises(ValueError, match="2 positional"):
        vmap(lambda a, b: a, in_dims=(0,))(t(X), t(X))
    with pytest.raises(TypeError, match="not a Tensor"):
        vmap(lambda a: a)(3.0)
    with pytest.raises(ValueError, match="randomness"):
        vmap(lambda a: a, randomness="shared")
    with pytest.raises(IndexError, match="out_dims"):
        vmap(lambda a: a, out_dims=5)(t(X))


def test_grad_argnums_aux_and_value():
    x, y = t([0.3, -1.2, 2.0]), t([1.0, 2.0, 3.0])

    def f(x, y):
        return (x.sin() * y).sum()

    np.testing.assert_allclose(grad(f)(x, y).numpy(), np.cos(x.numpy()) * y.numpy(), rtol=1e-12)
    gx, gy = grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gy.numpy(), np.sin(x.numpy()), rtol=1e-12)
    g, aux = grad(lambda x: ((x * x).sum(), x.max()), has_aux=True)(x)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy())
    assert float(aux.item()) == 2.0
    g, value = grad_and_value(f, argnums=1)(x, y)
    np.testing.assert_allclose(value.numpy(), (np.sin(x.numpy()) * y.numpy()).sum(), rtol=1e-12)
    assert not g.requires_grad and not value.requires_grad and not x.requires_grad
    # an output that does not depend on the argument: a zero gradient
    np.testing.assert_array_equal(grad(lambda x, y: (y * y).sum())(x, y).numpy(), [0.0, 0.0, 0.0])


def test_grad_composes():
    x = t(0.7)
    # d^2/dx^2 sin(x) x^2 = (2 - x^2) sin x + 4 x cos x
    second = grad(grad(lambda x: x.sin() * x * x))(x)
    want = (2 - 0.49) * np.sin(0.7) + 4 * 0.7 * np.cos(0.7)
    np.testing.assert_allclose(second.numpy(), want, rtol=1e-12)
    third = grad(grad(grad(lambda x: x**4)))(x)
    np.testing.assert_allclose(third.numpy(), 24 * 0.7, rtol=1e-12)
    # the Hessian as jacrev(grad)
    v = t([0.5, -1.0, 2.0])
    h = jacrev(grad(lambda v: (v**3).sum()))(v)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * v.numpy()), rtol=1e-12)
    # an input that requires grad: the result stays differentiable for ordinary autograd
    w = t([1.0, 2.0]).requires_grad_()
    g = grad(lambda w: (w**3).sum())(w)
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [6.0, 12.0])


def test_grad_errors():
    with pytest.raises(RuntimeError, match="single-element"):
        grad(lambda x: x * 2)(t([1.0, 2.0]))
    with pytest.raises(ValueError, match="argnums"):
        grad(lambda x: x.sum(), argnums=1)(t([1.0]))
    with pytest.raises(TypeError, match="floating"):
        grad(lambda x: x.sum())(fg.tensor([1, 2]))
    with pytest.raises(TypeError, match="has_aux"):
        grad(lambda x: x.sum(), has_aux=True)(t([1.0]))


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobians(jac):
    x, y = t([0.3, -1.2, 2.0]), t([1.0, 2.0, 3.0])
    j = jac(lambda x: x.exp() * 2)(x)
    np.testing.assert_allclose(j.numpy(), np.diag(2 * np.exp(x.numpy())), rtol=1e-12)
    (jxx, jxy), (jex, jey) = jac(lambda x, y: (x * y, x.exp()), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(jxy.numpy(), np.diag(x.numpy()), rtol=1e-12)
    np.testing.assert_array_equal(jey.numpy(), np.zeros((3, 3)))
    j1, j2 = jac(lambda x, y: (x * y, x.sum()), argnums=1)(x, y)
    np.testing.assert_allclose(j1.numpy(), np.diag(x.numpy()), rtol=1e-12)
    assert j2.shape == [3]
    j, aux = jac(lambda m: (m @ m, "aux"), has_aux=True)(t(np.eye(2) * 3.0))
    assert aux == "aux" and j.shape == [2, 2, 2, 2]
    np.testing.assert_allclose(j.numpy()[0, 0], [[6.0, 0.0], [0.0, 0.0]], rtol=1e-12)


def test_functional_call_swaps_for_one_call():
    fg.manual_seed(0)
    net = fg.nn.Sequential(fg.nn.Linear(3, 2), fg.nn.ReLU(), fg.nn.Linear(2, 1))
    before = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    x = fg.tensor(X, dtype=fg.float32)
    w0 = fg.ones([2, 3])
    out = functional_call(net, {"0.weight": w0}, (x,))
    b0, w2, b2 = (net.state_dict()[k].numpy() for k in ("0.bias", "2.weight", "2.bias"))
    want = np.maximum(X @ np.ones((3, 2)) + b0, 0) @ w2.T + b2
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    assert isinstance(net[0].weight, fg.nn.Parameter)
    # gradients flow to the stand-ins, not to the module's parameters
    w = fg.ones([2, 3], requires_grad=True)
    functional_call(net, ({"0.weight": w}, {}), x).sum().backward()
    assert w.grad is not None and net[0].weight.grad is None
    with pytest.raises(KeyError, match="not a parameter"):
        functional_call(net, {"0.nope": w0}, (x,))
    with pytest.raises(RuntimeError, match="missing"):
        functional_call(net, {"0.weight": w0}, (x,), strict=True)
    np.testing.assert_array_equal(net[0].weight.numpy(), before["0.weight"])


def test_functional_call_buffers_and_tied_weights():
    bn = fg.nn.BatchNorm1d(3)
    bn.eval()
    mean = fg.tensor([1.0, 2.0, 3.0])
    out = functional_call(bn, {"running_mean": mean}, fg.tensor(X, dtype=fg.float32))
    np.testing.assert_allclose(out.numpy(), (X - [1, 2, 3]) / np.sqrt(1 + 1e-5), rtol=1e-5)
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0]

    class Tied(fg.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = fg.nn.Linear(2, 2, bias=False)
            self.b = fg.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m = Tied()
    x = fg.ones([1, 2])
    out = functional_call(m, {"a.weight": fg.eye(2) * 2.0}, (x,))
    np.testing.assert_allclose(out.numpy(), [[4.0, 4.0]])
    out = functional_call(m, {"a.weight": fg.eye(2) * 2.0}, (x,), tie_weights=False)
    w = m.a.weight.numpy()
    np.testing.assert_allclose(out.numpy(), (np.ones((1, 2)) * 2) @ w.T, rtol=1e-6)


def test_model_ensembling_with_vmap_and_functional_call():
    fg.manual_seed(1)
    net = fg.nn.Linear(3, 1)
    weights = fg.tensor(RNG.standard_normal((5, 1, 3)), dtype=fg.float32)
    x = fg.tensor(X, dtype=fg.float32)
    out = vmap(lambda w: functional_call(net, {"weight": w}, (x,)))(weights)
    b = net.bias.numpy()
    want = np.einsum("nc,kdc->knd", X, weights.numpy()) + b
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)
