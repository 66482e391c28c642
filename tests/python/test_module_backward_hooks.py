"""``Module.register_full_backward_hook`` / ``register_full_backward_pre_hook`` (PyTorch):
the gradients of one call's inputs and outputs, replacement of either, removal, modules
without inputs that need gradients; and the anomaly-mode switches."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def _lin():
    fg.manual_seed(0)
    return nn.Linear(3, 2).to(fg.float64)


def test_full_backward_hook_sees_this_calls_gradients():
    lin = _lin()
    seen = []
    h = lin.register_full_backward_hook(lambda m, gi, go: seen.append((m, gi, go)))
    x = fg.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    out = lin(x)
    (out * 3.0).sum().backward()
    ((m, gi, go),) = seen
    assert m is lin and len(gi) == 1 and len(go) == 1
    np.testing.assert_allclose(go[0].numpy(), np.full((4, 2), 3.0))
    np.testing.assert_allclose(gi[0].numpy(), np.full((4, 2), 3.0) @ lin.weight.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), gi[0].numpy())
    h.remove()
    lin(x).sum().backward()
    assert len(seen) == 1


def test_hook_result_replaces_grad_input_and_pre_hook_replaces_grad_output():
    lin = _lin()
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.0,))
    x = fg.tensor(np.ones((2, 3)), requires_grad=True)
    lin(x).sum().backward()
    assert np.all(x.grad.numpy() == 0.0)
    assert np.any(lin.weight.grad.numpy() != 0.0)  # parameters are not affected

    lin2 = _lin()
    lin2.register_full_backward_pre_hook(lambda m, go: (go[0] * 2.0,))
    x2 = fg.tensor(np.ones((2, 3)), requires_grad=True)
    lin2(x2).sum().backward()
    np.testing.assert_allclose(
        x2.grad.numpy(), 2.0 * np.ones((2, 2)) @ lin2.weight.detach().numpy()
    )
    np.testing.assert_allclose(lin2.weight.grad.numpy(), 2.0 * np.ones((2, 2)).T @ np.ones((2, 3)))


def test_input_not_requiring_grad_gives_none_and_hooks_still_run():
    lin = _lin()
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    lin(fg.ones(2, 3, dtype=fg.float64)).sum().backward()
    ((gi, go),) = seen
    assert gi == (None,) and go[0].shape == [2, 2]


def test_two_calls_of_one_module_are_kept_apart():
    lin = _lin()
    grads = []
    lin.register_full_backward_hook(lambda m, gi, go: grads.append(go[0].numpy().copy()))
    x = fg.tensor(np.ones((1, 3)), requires_grad=True)
    (lin(x).sum() * 2.0 + lin(x).sum() * 5.0).backward()
    assert sorted(g[0, 0] for g in grads) == [2.0, 5.0]


def test_multiple_inputs_and_outputs():
    class Two(nn.Module):
        def forward(self, a, b, scale):
            return a * b * scale, a + b

    mod = Two()
    seen = []
    mod.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    b = fg.tensor([3.0, 4.0])  # does not require grad
    p, q = mod(a, b, 2.0)
    p.sum().backward()  # q unused: its grad_output entry is None
    ((gi, go),) = seen  # one entry per positional argument, as PyTorch
    assert len(gi) == 3 and gi[2] is None and gi[0].tolist() == [6.0, 8.0]
    assert go[1] is None and go[0].tolist() == [1.0, 1.0]
    assert a.grad.tolist() == [6.0, 8.0]


def test_hooks_are_skipped_without_grad_and_errors_are_clear():
    lin = _lin()
    lin.register_full_backward_hook(lambda m, gi, go: ("too", "many"))
    with fg.no_grad():
        assert not lin(fg.ones(1, 3, dtype=fg.float64)).requires_grad
    x = fg.ones(1, 3, dtype=fg.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned 2"):
        lin(x).sum().backward()


def test_anomaly_mode_flags():
    assert not fg.autograd.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with fg.autograd.detect_anomaly():
            assert fg.autograd.is_anomaly_enabled()
        assert not fg.autograd.is_anomaly_enabled()
        with fg.autograd.set_detect_anomaly(True):
            assert fg.autograd.is_anomaly_enabled()
        assert not fg.autograd.is_anomaly_enabled()
