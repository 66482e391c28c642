"""save_compressed / save_lossless keep the caller's input as it is (issue 22): a leaf
without grad that the caller holds when it is saved stays alive anyway, so packing it
would add a copy instead of saving memory. Intermediates are still compressed, user
``saved_tensors_hooks`` still see every saved tensor, and gradients match the plain run."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import PyLayer
from ferrograd.autograd.graph import save_compressed, save_lossless, saved_tensors_hooks

B, W, L = 8, 32, 5


class Keep(PyLayer):
    """Multiplies its inputs, saves both and records what backward unpacks."""

    seen: list = []

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensor()
        Keep.seen.append((x, y))
        return g * y, g * x


def mlp():
    fg.manual_seed(0)
    ws = [(fg.randn(W, W) * W**-0.5).requires_grad_() for _ in range(L)]
    bs = [fg.zeros(W).requires_grad_() for _ in range(L)]
    x = fg.randn(B, W)  # the input: a leaf without grad, held by the caller

    def loss():
        h = x
        for w, b in zip(ws, bs):
            h = (h @ w + b).tanh()
        return h.mean()

    return ws + bs, x, loss


@pytest.mark.parametrize("make", [lambda: save_compressed("bfloat16"), save_lossless])
def test_the_input_is_not_copied_so_held_bytes_halve(make):
    params, x, loss = mlp()
    hooks = make()
    with hooks:
        out = loss()
    s = hooks.stats()
    activation = B * W * 4  # float32
    # the L tanh outputs, each packed once (each is also the next matmul's input); the
    # input x and the parameters are kept as they are
    assert s["tensors"] == L
    assert s["bytes_in"] == L * activation
    if isinstance(hooks, save_compressed):
        assert s["bytes_out"] * 2 == s["bytes_in"]  # exactly half of what plain holds
    out.backward()
    assert all(p.grad is not None for p in params)

    # user hooks keep PyTorch's semantics: every saved tensor reaches pack_hook, x too
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        loss()
    assert any(t is x for t in packed)


def test_gradients_match_the_plain_run():
    params, x, loss = mlp()
    loss().backward()
    plain = [p.grad.numpy().copy() for p in params]
    for p in params:
        p.grad = None
    with save_compressed("bfloat16"):
        out = loss()
    out.backward()
    for p, ref in zip(params, plain):
        np.testing.assert_allclose(p.grad.numpy(), ref, rtol=0.05, atol=2e-3)

    # one layer: dW = x^T @ ones reads only the saved input, now exact (was rounded)
    w = params[0]
    w.grad = None
    (x @ w).sum().backward()
    exact = w.grad.numpy().copy()
    w.grad = None
    with save_compressed("bfloat16"):
        y = x @ w
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), exact)


def test_intermediates_are_still_compressed():
    x = fg.randn(64)  # no grad, held by the caller: kept
    t = fg.randn(64, requires_grad=True)
    Keep.seen.clear()
    with save_compressed("bfloat16") as hooks:
        mid = t * 1.1  # an intermediate with history: compressed
        out = Keep.apply(x, mid)
    assert hooks.stats()["tensors"] == 1
    out.sum().backward()
    ((kept, rounded),) = Keep.seen
    assert kept is x
    back, exact = rounded.numpy(), mid.numpy()
    assert not np.array_equal(back, exact)  # lossy: it was packed
    assert (np.abs(back - exact) <= np.abs(exact) * 2.0**-8).all()
    np.testing.assert_allclose(t.grad.numpy(), 1.1 * x.numpy(), rtol=1e-6)

    # a leaf whose memory NumPy can write is saved as a copy: nobody else holds the copy,
    # so it is compressed
    shared = fg.from_numpy(np.linspace(-1, 1, 64, dtype=np.float32))
    with save_compressed("bfloat16") as hooks:
        Keep.apply(shared, t * 1.1)
    assert hooks.stats()["tensors"] == 2
