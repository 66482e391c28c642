"""Paddle's eager training idiom ``loss.backward(); opt.minimize(loss)``: ``minimize``
applies the gradients that are already there (one backward pass in all) and returns the
``(parameter, gradient)`` pairs it applied."""

import ferrograd as fg
import numpy as np
import pytest


def _setup(seed=0):
    fg.seed(seed)
    used = fg.nn.Linear(3, 2)
    unused = fg.nn.Linear(3, 2)
    x = fg.tensor(np.arange(12.0).reshape(4, 3).astype("float32"))
    return used, unused, x


def test_backward_then_minimize_applies_existing_grads_once():
    used, unused, x = _setup()
    loss = used(x).mean()
    loss.backward()
    grads = {id(p): p.grad.numpy().copy() for p in used.parameters()}
    before = {id(p): p.numpy().copy() for p in used.parameters()}
    opt = fg.optimizer.SGD(learning_rate=0.5, parameters=used.parameters() + unused.parameters())
    ops, params_grads = opt.minimize(loss)  # used to raise "backward ... a second time"
    assert ops == []
    assert {id(p) for p, _ in params_grads} == {id(p) for p in used.parameters()}
    for p, g in params_grads:
        np.testing.assert_array_equal(g.numpy(), grads[id(p)])
        # plain SGD: exactly one step with the gradient of one backward pass
        np.testing.assert_allclose(p.numpy(), before[id(p)] - 0.5 * grads[id(p)], rtol=1e-6)
    # the gradients are kept (Paddle does not clear them in minimize)
    for p in used.parameters():
        np.testing.assert_array_equal(p.grad.numpy(), grads[id(p)])


def test_minimize_skips_parameters_without_grad_or_stopped():
    used, unused, x = _setup(1)
    used.bias.stop_gradient = True
    loss = used(x).sum()
    loss.backward()
    w_unused = unused.weight.numpy().copy()
    opt = fg.optimizer.Adam(parameters=used.parameters() + unused.parameters())
    _, params_grads = opt.minimize(loss)
    assert [p is used.weight for p, _ in params_grads] == [True]
    np.testing.assert_array_equal(unused.weight.numpy(), w_unused)


def test_minimize_parameters_argument_narrows_the_pairs():
    used, unused, x = _setup(2)
    loss = used(x).sum() + unused(x).sum()
    loss.backward()
    opt = fg.optimizer.SGD(learning_rate=0.1, parameters=used.parameters() + unused.parameters())
    _, params_grads = opt.minimize(loss, parameters=[used.weight])
    assert [p is used.weight for p, _ in params_grads] == [True]


def test_parameter_names_are_unique_and_settable():
    a, b = fg.nn.Linear(2, 2), fg.nn.Linear(2, 2)
    names = [p.name for p in a.parameters() + b.parameters()]
    assert len(set(names)) == 4
    a.weight.name = "w"
    assert a.weight.name == "w"
    with pytest.raises(TypeError):
        a.weight.name = 3


def test_minimize_leaves_stopped_or_unchosen_parameters_unchanged():
    used, unused, x = _setup(3)
    out = unused(used(x)[:, :1].expand([4, 3]))
    loss = out.sum()
    loss.backward()
    unused.weight.stop_gradient = True  # set after backward, as Paddle code does
    w_before = unused.weight.numpy().copy()
    b_before = used.bias.numpy().copy()
    opt = fg.optimizer.SGD(learning_rate=0.1, parameters=used.parameters() + unused.parameters())
    _, params_grads = opt.minimize(loss, parameters=[used.weight, unused.weight, unused.bias])
    np.testing.assert_array_equal(unused.weight.numpy(), w_before)  # stop_gradient
    np.testing.assert_array_equal(used.bias.numpy(), b_before)  # not among `parameters`
    assert used.bias.grad is not None and unused.weight.grad is not None  # grads kept
    assert {id(p) for p, _ in params_grads} == {id(used.weight), id(unused.bias)}
