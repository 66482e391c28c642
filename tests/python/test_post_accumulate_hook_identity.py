"""A post-accumulate-grad hook gets the tensor it was registered on, the very object
(found by PyTorch's ``test_post_accumulate_grad_hook_e2e``, which keys a dict of
optimizers by parameter and steps them from the hook)."""

from __future__ import annotations

import gc
import weakref

import ferrograd as fg
import numpy as np
import pytest


def test_the_hook_gets_the_parameter_itself():
    layer = fg.nn.Linear(3, 2)
    seen = []
    for p in layer.parameters():
        p.register_post_accumulate_grad_hook(seen.append)
    layer(fg.ones([4, 3])).sum().backward()
    params = list(layer.parameters())
    assert len(seen) == 2 and all(any(s is p for p in params) for s in seen)
    assert all(isinstance(s, fg.nn.Parameter) for s in seen)


def test_an_optimizer_step_per_parameter_from_the_hook():
    # the optimizer-in-backward pattern: one optimizer per parameter, looked up by key
    layer = fg.nn.Linear(3, 2)
    before = {id(p): p.detach().numpy().copy() for p in layer.parameters()}
    optims = {p: fg.optim.SGD([p], lr=0.5) for p in layer.parameters()}

    def step(param):
        optims[param].step()
        optims[param].zero_grad()

    for p in layer.parameters():
        p.register_post_accumulate_grad_hook(step)
    x = fg.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    layer(x).sum().backward()
    # d sum(x W^T + b) / dW = column sums of x per output row; / db = batch size
    np.testing.assert_allclose(
        layer.weight.detach().numpy(),
        before[id(layer.weight)] - 0.5 * np.tile(x.numpy().sum(0), (2, 1)),
        rtol=1e-6,
    )
    np.testing.assert_allclose(
        layer.bias.detach().numpy(), before[id(layer.bias)] - 0.5 * 2.0, rtol=1e-6
    )
    assert layer.weight.grad is None  # zero_grad() in the hook dropped it


def test_the_hook_does_not_keep_its_tensor_alive():
    t = fg.ones([3], requires_grad=True)
    t.register_post_accumulate_grad_hook(lambda x: None)
    ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None


def test_a_hook_must_be_callable_and_return_none():
    t = fg.ones([3], requires_grad=True)
    with pytest.raises(TypeError, match="must be callable"):
        t.register_post_accumulate_grad_hook(3)
    t.register_post_accumulate_grad_hook(lambda x: x.grad)
    with pytest.raises(RuntimeError, match="should return None"):
        t.sum().backward()
