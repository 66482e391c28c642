"""The engine's fast paths (issue 23 item 4) give the same results as the general ones:
`.grad` summed in place, `Tensor.backward` native with PyTorch's `inputs=`, the engine's
gradient validation done in place, `saved_tensors_hooks` entered and left per step."""

import inspect
import threading

import ferrograd as fg
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_grad_accumulates_over_passes(dtype):
    x = fg.tensor(np.arange(12.0).reshape(3, 4).astype(dtype), requires_grad=True)
    for k in range(1, 4):
        (x * 2.0).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 4), 2.0 * k, dtype=dtype))
    assert x.grad.dtype == x.dtype


def test_grad_kept_as_same_object_and_buffer():
    x = fg.tensor(np.ones(5), requires_grad=True)
    (x * 3.0).sum().backward()
    g = x.grad
    (x * 4.0).sum().backward()
    # summed into the kept buffer: a reference taken earlier sees the sum
    np.testing.assert_array_equal(g.numpy(), np.full(5, 7.0))


def test_grad_non_contiguous_kept_grad():
    x = fg.tensor(np.zeros((3, 2)), requires_grad=True)
    start = np.arange(6.0).reshape(2, 3)
    x.grad = fg.tensor(start).t()  # a transposed (non-contiguous) gradient
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), start.T + 2.0)


def test_grad_broadcast_incoming_gradient():
    # sum().backward() hands expand-like gradients down; the kept grad must stay dense
    x = fg.tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    x.sum().backward()
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0, dtype=np.float32))
    x.grad.numpy()  # the buffer is readable and owned
    x.grad[0, 0] = 5.0
    np.testing.assert_array_equal(x.grad.numpy()[1], np.full(3, 2.0, dtype=np.float32))


def test_grad_accumulation_into_same_leaf_twice_in_one_pass():
    a = fg.tensor(np.array([1.5]), requires_grad=True)
    b = fg.tensor(np.array([-2.0]), requires_grad=True)
    for k in range(1, 3):
        (a * b + a).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), k * np.array([-1.0]))
        np.testing.assert_allclose(b.grad.numpy(), k * np.array([1.5]))


def test_backward_is_native_and_has_torch_signature():
    params = list(inspect.signature(fg.Tensor.backward).parameters)
    assert params == ["self", "gradient", "retain_graph", "create_graph", "inputs", "grad_tensor"]
    assert type(fg.Tensor.__dict__["backward"]).__name__ == "method_descriptor"


def test_backward_gradient_spellings():
    for call in (
        lambda y, g: y.backward(g),
        lambda y, g: y.backward(gradient=g),
        lambda y, g: y.backward(grad_tensor=g),
    ):
        x = fg.tensor(np.array([1.0, 2.0]), requires_grad=True)
        y = x * 3.0
        call(y, fg.tensor(np.array([1.0, 10.0])))
        np.testing.assert_array_equal(x.grad.numpy(), [3.0, 30.0])


def test_backward_inputs_keyword():
    a = fg.tensor(np.array([2.0]), requires_grad=True)
    b = fg.tensor(np.array([5.0]), requires_grad=True)
    y = (a * b).sum()
    y.backward(inputs=[a], retain_graph=True)
    np.testing.assert_array_equal(a.grad.numpy(), [5.0])
    assert b.grad is None
    y.backward(inputs=b)
    np.testing.assert_array_equal(b.grad.numpy(), [2.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (a * b).sum().backward(inputs=[])


def test_backward_on_constant_warns():
    with pytest.warns(UserWarning, match="does not require grad"):
        fg.tensor(np.ones(2)).sum().backward()


def test_custom_layer_gradient_summed_to_input_shape():
    class Broadcasting(fg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            return fg.ones((4, 3))  # broadcasts to x's (3,): summed over the rows

    x = fg.tensor(np.zeros(3), requires_grad=True)
    Broadcasting.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, 4.0))


def test_saved_tensors_hooks_per_step_and_threads():
    calls = []

    def pack(t):
        calls.append("pack")
        return t

    def unpack(t):
        calls.append("unpack")
        return t

    a = fg.tensor(np.array([3.0]), requires_grad=True)
    b = fg.tensor(np.array([4.0]), requires_grad=True)
    hooks = fg.autograd.saved_tensors_hooks(pack, unpack)
    for _ in range(2):
        with hooks:  # one object entered again and again
            y = (a * b + a).sum()
        y.backward()
    assert calls.count("pack") == 4 and calls.count("unpack") == 4
    np.testing.assert_array_equal(a.grad.numpy(), [10.0])

    h = fg.autograd.saved_tensors_hooks(pack, unpack)
    h.__enter__()
    errors = []

    def exit_elsewhere():
        try:
            h.__exit__(None, None, None)
        except RuntimeError as e:
            errors.append(str(e))

    t = threading.Thread(target=exit_elsewhere)
    t.start()
    t.join()
    h.__exit__(None, None, None)
    assert errors and "entered on thread" in errors[0]


def test_saved_tensors_hooks_native_context_subclasses_and_flags():
    from ferrograd.autograd.graph import disable_saved_tensors_hooks, saved_tensors_hooks

    # no Python frame per `with`: construction, __enter__ and __exit__ are native, and
    # the public class is the native one (no Python subclass in between)
    for name in ("__new__", "__init__", "__enter__", "__exit__"):
        assert not inspect.isfunction(inspect.getattr_static(saved_tensors_hooks, name))
    assert saved_tensors_hooks is fg._core.saved_tensors_hooks
    seen = []

    class Counting(saved_tensors_hooks):
        def __init__(self, tag):
            self.tag = tag
            super().__init__(lambda t: seen.append((tag, "pack")) or t, lambda t: t)

    x = fg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    with Counting("outer") as h:
        assert isinstance(h, Counting) and h.tag == "outer"
        with Counting("inner"):
            (x * x).sum()  # both operands: two saves
        (x * 2.0).sum()  # a Python number is never packed
        (x.exp()).sum()  # the output: one save
    assert seen == [("inner", "pack"), ("inner", "pack"), ("outer", "pack")]
    (x * x).sum()
    assert len(seen) == 3  # nothing installed after the blocks

    # the hooks are attributes, readable and replaceable before entering
    h = saved_tensors_hooks(lambda t: t, lambda t: t)
    h.pack_hook = lambda t: seen.append("replaced") or t
    with h:
        (x * x).sum()
    assert seen[-2:] == ["replaced", "replaced"]

    # class flags are read per __enter__, and an instance may set them (checkpoint does)
    h = saved_tensors_hooks(lambda t: seen.append("leaf") or t, lambda t: t)
    h._keep_leaves = True
    with h:
        (x * x).sum()  # x is a leaf requiring grad: saved as is
    assert "leaf" not in seen
    assert saved_tensors_hooks(lambda t: t, lambda t: t)._keep_leaves is False

    # a subclass overrides a flag as a class attribute; its instances may set it back
    class KeepLeaves(saved_tensors_hooks):
        _keep_leaves = True

    k = KeepLeaves(lambda t: seen.append("sub") or t, lambda t: t)
    with k:
        (x * x).sum()
    assert "sub" not in seen
    k._keep_leaves = False
    with k:
        (x * x).sum()
    assert seen.count("sub") == 2

    # entering while disabled raises the given message; nothing is left installed
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    assert fg._core._saved_tensors_hooks_depth() == 0


def test_saved_tensors_hooks_cycle_through_its_own_hooks_is_collected():
    import gc
    import weakref

    from ferrograd.autograd.graph import saved_tensors_hooks

    class SelfReferencing(saved_tensors_hooks):  # as memory_budget: hooks close over self
        def __init__(self):
            super().__init__(lambda t: (self, t)[1], lambda t: (self, t)[1])

    h = SelfReferencing()
    with h:
        (fg.tensor(np.ones(2), requires_grad=True) * 2.0).sum()
    ref = weakref.ref(h)
    del h
    gc.collect()
    assert ref() is None
