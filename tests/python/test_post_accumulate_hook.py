"""Tensor.register_post_accumulate_grad_hook (PyTorch's API) and the end-of-backward
callback queue the engine runs hooks and DDP on."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core


def test_hook_runs_after_grad_is_accumulated_once_per_pass():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    b = fg.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    a.register_post_accumulate_grad_hook(lambda t: seen.append(("a", t.grad.numpy().tolist())))
    h = b.register_post_accumulate_grad_hook(lambda t: seen.append(("b", t.grad.numpy().tolist())))
    y = (a * b).sum() + (a * a).sum()  # a gets two contributions: the hook still runs once
    y.backward(retain_graph=True)
    assert sorted(seen) == [("a", [5.0, 8.0]), ("b", [1.0, 2.0])]
    h.remove()
    y.backward()
    assert seen[2:] == [("a", [10.0, 16.0])]  # accumulated; b's hook is gone


def test_hook_may_edit_grad_in_place_and_errors_come_out_unchanged():
    w = fg.tensor([1.0, 1.0], requires_grad=True)

    def halve(t):
        with fg.no_grad():
            t.grad.mul_(0.5)

    w.register_post_accumulate_grad_hook(halve)
    (w * 4).sum().backward()
    assert np.array_equal(w.grad.numpy(), [2.0, 2.0])

    class Boom(Exception):
        pass

    def boom(t):
        raise Boom("from hook")

    v = fg.tensor([1.0], requires_grad=True)
    v.register_post_accumulate_grad_hook(boom)
    with pytest.raises(Boom, match="from hook"):
        (v * 2).sum().backward()
    u = fg.tensor([1.0], requires_grad=True)
    u.register_post_accumulate_grad_hook(lambda t: 1)
    with pytest.raises(RuntimeError, match="should return None"):
        (u * 2).sum().backward()


def test_hook_only_on_leaves_that_require_grad_and_not_for_autograd_grad():
    x = fg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="require grad"):
        fg.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None)
    calls = []
    x.register_post_accumulate_grad_hook(calls.append)
    fg.grad((x * 3).sum(), [x])  # .grad is not touched, so the hook does not run
    assert calls == [] and x.grad is None


def test_queue_callback_runs_after_all_leaves_once_per_pass():
    a = fg.tensor([1.0], requires_grad=True)
    b = fg.tensor([2.0], requires_grad=True)
    log = []

    def hook(t):
        log.append("hook")
        if log.count("hook") == 1:
            _core._queue_callback(lambda: log.append(("end", a.grad.item(), b.grad.item())))

    a.register_post_accumulate_grad_hook(hook)
    b.register_post_accumulate_grad_hook(hook)
    (a * b).sum().backward()
    assert log == ["hook", "hook", ("end", 2.0, 1.0)]
    with pytest.raises(RuntimeError, match="backward"):
        _core._queue_callback(lambda: None)  # outside a backward pass
