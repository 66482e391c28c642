"""saved_tensors_hooks: when pack/unpack run, nesting, threads, errors, the ready-made
hooks, and that identity-like hooks never change a gradient."""

from __future__ import annotations

import gc
import os
import threading

import ferrograd as paddle  # the saved_tensors_hooks guide's examples run with only this import changed
import numpy as np
import pytest
from ferrograd.autograd import PyLayer
from ferrograd.autograd.graph import (
    disable_saved_tensors_hooks,
    save_on_cpu,
    save_on_disk,
    saved_tensors_hooks,
)
from hypothesis import given, settings
from hypothesis import strategies as st


class Counter:
    def __init__(self):
        self.packed, self.unpacked = [], []

    def pack(self, t):
        self.packed.append(tuple(t.shape))
        return t.numpy()

    def unpack(self, a):
        self.unpacked.append(a.shape)
        return paddle.to_tensor(a)


def test_seed_example_1_builtin_multiply():
    c = Counter()
    a = paddle.ones([3, 3])
    b = paddle.ones([3, 3]) * 2
    a.stop_gradient = False
    b.stop_gradient = False
    with paddle.autograd.saved_tensors_hooks(c.pack, c.unpack):
        y = paddle.multiply(a, b)
    assert len(c.packed) == 2 and c.unpacked == []  # pack eager, unpack lazy
    y.sum().backward()
    assert len(c.unpacked) == 2
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 3), 2.0))
    np.testing.assert_array_equal(b.grad.numpy(), np.ones((3, 3)))


def test_seed_example_2_pylayer_save_for_backward_packs():
    c = Counter()

    class cus_multiply(PyLayer):
        @staticmethod
        def forward(ctx, a, b):
            y = paddle.multiply(a, b)
            ctx.save_for_backward(a, b)
            assert len(c.packed) == 2  # packed inside save_for_backward
            return y

        @staticmethod
        def backward(ctx, dy):
            a, b = ctx.saved_tensor()
            return dy * a, dy * b

    a = paddle.ones([3, 3])
    b = paddle.ones([3, 3]) * 2
    a.stop_gradient = False
    b.stop_gradient = False
    with paddle.autograd.saved_tensors_hooks(c.pack, c.unpack):
        y = cus_multiply.apply(a, b)
    y.sum().backward()
    assert len(c.unpacked) == 2
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((3, 3)))
    np.testing.assert_array_equal(b.grad.numpy(), np.full((3, 3), 2.0))


def test_nothing_packed_without_a_graph_or_for_unneeded_tensors():
    c = Counter()
    a = paddle.tensor([1.0, 2.0], requires_grad=True)
    b = paddle.tensor([3.0, 4.0])
    with saved_tensors_hooks(c.pack, c.unpack):
        with paddle.no_grad():
            a * b
        b * b  # no input requires grad
        assert c.packed == []
        a * b  # only b is needed (for a's gradient)
    assert len(c.packed) == 1


def test_retain_graph_unpacks_on_every_pass():
    c = Counter()
    a = paddle.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(c.pack, c.unpack):
        y = (a * a).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert len(c.packed) == 2 and len(c.unpacked) == 4
    np.testing.assert_allclose(a.grad.numpy(), [4.0, 8.0])


def test_nesting_innermost_wins_and_outer_is_restored_after_an_exception():
    outer, inner = Counter(), Counter()
    a = paddle.tensor([1.0], requires_grad=True)
    with saved_tensors_hooks(outer.pack, outer.unpack):
        with pytest.raises(ZeroDivisionError):
            with saved_tensors_hooks(inner.pack, inner.unpack):
                a.exp()
                raise ZeroDivisionError
        a.exp()
    assert len(inner.packed) == 1 and len(outer.packed) == 1


def test_hooks_are_thread_local():
    c = Counter()
    seen = {}

    def worker():
        a = paddle.tensor([1.0], requires_grad=True)
        a.exp()
        seen["worker"] = len(c.packed)

    with saved_tensors_hooks(c.pack, c.unpack):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen["worker"] == 0 and c.packed == []


def test_grad_mode_is_off_inside_hooks():
    modes = []

    def pack(t):
        modes.append(paddle.is_grad_enabled())
        return t

    def unpack(t):
        modes.append(paddle.is_grad_enabled())
        return t

    a = paddle.tensor([1.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = a.exp()
    y.backward()
    assert modes == [False, False]


def test_bad_unpack_results_are_errors():
    a = paddle.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t.numpy()):
        y = a.exp().sum()
    with pytest.raises(TypeError, match="must return a Tensor"):
        y.backward()
    with saved_tensors_hooks(lambda t: t, lambda t: paddle.ones([3])):
        y = a.exp().sum()
    with pytest.raises(RuntimeError, match="shape"):
        y.backward()
    with saved_tensors_hooks(lambda t: t, lambda t: t.astype("float64")):
        y = a.exp().sum()
    with pytest.raises(RuntimeError, match="float64"):
        y.backward()


def test_hook_exceptions_come_out_unchanged_and_hooks_keep_working():
    class Boom(Exception):
        pass

    def pack(t):
        raise Boom("pack")

    a = paddle.tensor([1.0], requires_grad=True)
    with pytest.raises(Boom):
        with saved_tensors_hooks(pack, lambda x: x):
            a.exp()
    c = Counter()
    with saved_tensors_hooks(c.pack, c.unpack):
        y = a.exp()
    y.backward()
    assert len(c.packed) == 1


def test_pack_hook_modifying_its_input_is_an_error():
    def pack(t):
        t.add_(1.0)
        return t

    h = paddle.tensor([1.0], requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="pack hook"):
        with saved_tensors_hooks(pack, lambda t: t):
            h.exp()


def test_same_memory_hook_still_catches_inplace_changes():
    h = paddle.tensor([1.0, 2.0], requires_grad=True) * 1
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (h * h).sum()
    with paddle.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("hooks are off here"):
        with pytest.raises(RuntimeError, match="hooks are off here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        pass  # enabled again


def test_save_on_cpu_and_save_on_disk_give_the_same_gradients_and_clean_up():
    x = paddle.randn(4, 5, dtype="float64", requires_grad=True)

    def loss():
        return (x.tanh() * x).exp().sum()

    ref = paddle.grad(loss(), x)[0].numpy()
    with save_on_cpu():
        y = loss()
    np.testing.assert_array_equal(paddle.grad(y, x)[0].numpy(), ref)
    hook = save_on_disk()
    with hook:
        y = loss()
    assert len(os.listdir(hook.directory)) > 0
    np.testing.assert_array_equal(paddle.grad(y, x)[0].numpy(), ref)
    del y
    gc.collect()
    assert os.listdir(hook.directory) == []


@settings(max_examples=20, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    via=st.sampled_from(["numpy", "clone", "cpu"]),
)
def test_round_tripping_hooks_leave_gradients_bit_identical(shape, via):
    rng = np.random.default_rng(0)
    a0 = rng.standard_normal(shape)
    b0 = rng.standard_normal(shape)

    def grads(hooks):
        a = paddle.tensor(a0, requires_grad=True)
        b = paddle.tensor(b0, requires_grad=True)
        if hooks is None:
            out = ((a * b).tanh() @ b.T if len(shape) == 2 else (a * b).tanh() * b).sum()
        else:
            with hooks:
                out = ((a * b).tanh() @ b.T if len(shape) == 2 else (a * b).tanh() * b).sum()
        out.backward()
        return a.grad.numpy(), b.grad.numpy()

    if via == "numpy":
        hooks = saved_tensors_hooks(lambda t: t.numpy(), paddle.to_tensor)
    elif via == "clone":
        hooks = saved_tensors_hooks(lambda t: t.clone(), lambda t: t)
    else:
        hooks = save_on_cpu()
    for got, want in zip(grads(hooks), grads(None)):
        np.testing.assert_array_equal(got, want)
