"""``autograd.grad(..., is_grads_batched=True)``: the first dimension of each grad_output
is a batch; each result stacks the per-sample vector-Jacobian products."""

import ferrograd as fg
import numpy as np
import pytest


def test_batched_vjps_are_stacked():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = x * x  # vjp(v) = 2 x v
    v = fg.tensor(np.arange(12, dtype=np.float32).reshape(3, 2, 2))
    (g,) = fg.autograd.grad(out, x, v, is_grads_batched=True)
    assert g.shape == [3, 2, 2]
    want = 2 * x.detach().numpy()[None] * v.numpy()
    np.testing.assert_allclose(g.numpy(), want)


def test_scalar_output_batch_and_several_inputs():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    w = fg.tensor([3.0, 4.0], requires_grad=True)
    out = (x * w).sum()
    gx, gw = fg.autograd.grad(out, (x, w), fg.tensor([1.0, 2.0, 3.0]), is_grads_batched=True)
    np.testing.assert_allclose(gx.numpy(), np.outer([1, 2, 3], [3, 4]))
    np.testing.assert_allclose(gw.numpy(), np.outer([1, 2, 3], [1, 2]))
    # the graph is freed after the last sample (retain_graph not asked for)
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        fg.autograd.grad(out, x)


def test_create_graph_makes_the_stack_differentiable():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    out = x * x * x
    v = fg.tensor([[1.0, 0.0], [0.0, 1.0]])
    (g,) = fg.autograd.grad(out, x, v, create_graph=True, is_grads_batched=True)
    np.testing.assert_allclose(g.numpy(), [[3.0, 0.0], [0.0, 12.0]])
    (gg,) = fg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [6.0, 12.0])


def test_shape_errors_use_torchs_words():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = x.clone()
    with pytest.raises(RuntimeError, match="If `is_grads_batched=True`, we interpret the first"):
        fg.autograd.grad(out, x, fg.ones(2, 2), is_grads_batched=True)
    s = x.sum()
    with pytest.raises(RuntimeError, match="If `is_grads_batched=True`, we interpret the first"):
        fg.autograd.grad(s, x, fg.ones(2).unsqueeze(1), is_grads_batched=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="same batch size"):
        fg.autograd.grad((out, y), x, (fg.ones(3, 2, 2), fg.ones(4, 2, 2)), is_grads_batched=True)


def test_unused_and_materialized_inputs():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    z = fg.tensor([5.0], requires_grad=True)
    out = x * 2
    gx, gz = fg.autograd.grad(
        out, (x, z), fg.ones(4, 2), allow_unused=True, is_grads_batched=True, retain_graph=True
    )
    assert gx.shape == [4, 2] and gz is None
    _, gz = fg.autograd.grad(
        out, (x, z), fg.ones(4, 2), materialize_grads=True, is_grads_batched=True
    )
    assert gz.shape == [4, 1] and gz.abs().sum().item() == 0
