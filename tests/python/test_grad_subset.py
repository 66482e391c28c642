"""`autograd.grad` with respect to some of the leaves: nodes are told which input
gradients the pass wants (PyTorch's output mask) and skip the others. The values must be
those of a full backward, the other leaves must stay untouched (no `.grad`, no hook
call), and `backward(inputs=...)` behaves the same way (blocked inputs: the Rust test
`a_pass_asks_only_for_the_gradients_it_wants`)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np


def _leaves(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [fg.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]


def test_matmul_and_mul_subsets_match_the_full_backward():
    a, b, c = _leaves((3, 4), (4, 5), (3, 5))
    for wrt in ([a], [b], [c], [a, c], [b, c]):
        y = ((a @ b) * c).sum()
        got = fg.autograd.grad(y, wrt)
        y = ((a @ b) * c).sum()
        full = fg.autograd.grad(y, [a, b, c])
        idx = {id(a): 0, id(b): 1, id(c): 2}
        for t, g in zip(wrt, got):
            np.testing.assert_allclose(g.numpy(), full[idx[id(t)]].numpy(), rtol=1e-12)
    assert a.grad is None and b.grad is None and c.grad is None


def test_conv2d_input_gradient_alone():
    x, w = _leaves((2, 3, 6, 6), (4, 3, 3, 3), seed=1)
    f = fg.nn.functional.conv2d
    (gx,) = fg.autograd.grad(f(x, w, padding=1).sum(), x)
    gx_full, _ = fg.autograd.grad(f(x, w, padding=1).sum(), [x, w])
    np.testing.assert_allclose(gx.numpy(), gx_full.numpy(), rtol=1e-12)
    (gw,) = fg.autograd.grad(f(x, w, padding=1).sum(), w)
    _, gw_full = fg.autograd.grad(f(x, w, padding=1).sum(), [x, w])
    np.testing.assert_allclose(gw.numpy(), gw_full.numpy(), rtol=1e-12)


def test_other_leaves_see_no_gradient_and_no_hook():
    a, b = _leaves((4,), (4,), seed=2)
    calls = []
    b.register_hook(lambda g: calls.append("b"))
    (ga,) = fg.autograd.grad((a * b).sum(), a)
    np.testing.assert_allclose(ga.numpy(), b.detach().numpy())
    assert calls == [] and b.grad is None
    # backward(inputs=...) accumulates only into the inputs
    (a * b).sum().backward(inputs=[a])
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())
    assert b.grad is None and calls == []
    # a full backward still computes (and hooks) both
    a.grad = None
    (a * b).sum().backward()
    assert calls == ["b"] and a.grad is not None and b.grad is not None


def test_intermediate_input_and_create_graph():
    a, b = _leaves((3,), (3,), seed=3)
    h = a * b
    y = (h * h).sum()
    (gh,) = fg.autograd.grad(y, h, create_graph=True)
    np.testing.assert_allclose(gh.numpy(), 2 * (a * b).detach().numpy())
    # the gradient's graph still reaches both leaves
    ga, gb = fg.autograd.grad(gh.sum(), [a, b])
    np.testing.assert_allclose(ga.numpy(), 2 * b.detach().numpy())
    np.testing.assert_allclose(gb.numpy(), 2 * a.detach().numpy())
