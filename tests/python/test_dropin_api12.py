"""Peer-test fixes of session 12 outside indexing: ``Tensor.data``, PyTorch's legacy
``InplaceFunction``, Paddle's ``create_parameter`` for a 1-D weight."""

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.function import Function, InplaceFunction


def test_data_is_a_detached_alias():
    w = fg.ones([3], requires_grad=True)
    d = w.data
    assert not d.requires_grad and d.grad_fn is None
    d.mul_(2)  # writes w's memory, records nothing
    np.testing.assert_array_equal(w.detach().numpy(), [2.0, 2.0, 2.0])
    assert w.requires_grad and w.is_leaf


def test_data_assignment_keeps_the_object():
    w = fg.ones([2], requires_grad=True)
    ident = id(w)
    w.data = fg.tensor([5.0, 6.0])
    assert id(w) == ident and w.requires_grad
    np.testing.assert_array_equal(w.detach().numpy(), [5.0, 6.0])
    w.data = fg.zeros([3])  # any shape (tests/python/test_repoint.py)
    assert id(w) == ident and list(w.shape) == [3]
    with pytest.raises(TypeError, match="Tensor"):
        w.data = [1.0, 2.0]


def test_inplace_function_carries_its_flag_and_applies():
    class Scale(InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    assert issubclass(InplaceFunction, Function)
    assert Scale(True).inplace is True and Scale().inplace is False
    x = fg.ones([2], requires_grad=True)
    Scale.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("shape", [[1], [7], []])
def test_create_parameter_small_weight_uses_paddle_fans(shape):
    fg.seed(3)
    layer = fg.nn.Layer()
    p = layer.create_parameter(shape=shape, dtype="float32")
    bound = math.sqrt(3.0 / max(math.prod(shape), 1))
    values = p.numpy()
    assert list(p.shape) == shape
    assert np.all(np.abs(values) <= bound)


def test_view_as_takes_the_other_shape_and_shares_memory():
    x = fg.arange(6.0)
    other = fg.zeros([2, 3])
    v = x.view_as(other)
    assert list(v.shape) == [2, 3]
    v[0, 0] = 7.0
    assert x[0].item() == 7.0
    with pytest.raises(TypeError, match="Tensor"):
        x.view_as([2, 3])


class _AddNet(fg.nn.Layer):
    def forward(self, x, y):
        return x + y


def test_forward_hooks_with_kwargs():
    x, y = fg.ones([2]), fg.full([2], 3.0)
    net = _AddNet()

    def pre(layer, args, kwargs):
        kwargs["x"] = kwargs["x"] * 2
        return args, kwargs

    h = net.register_forward_pre_hook(pre, with_kwargs=True)
    np.testing.assert_array_equal(net(x=x, y=y).numpy(), [5.0, 5.0])
    h.remove()
    np.testing.assert_array_equal(net(x=x, y=y).numpy(), [4.0, 4.0])
    net.register_forward_post_hook(lambda m, a, kw, out: out + kw["x"], with_kwargs=True)
    np.testing.assert_array_equal(net(x=x, y=y).numpy(), [5.0, 5.0])
    net2 = _AddNet()
    net2.register_forward_pre_hook(lambda m, a, kw: 1, with_kwargs=True)
    with pytest.raises(RuntimeError, match="new_args, new_kwargs"):
        net2(x=x, y=y)


def test_forward_hooks_prepend_order():
    order = []
    net = _AddNet()
    net.register_forward_post_hook(lambda m, a, o: order.append("first"))
    net.register_forward_post_hook(lambda m, a, o: order.append("prepended"), prepend=True)
    net.register_forward_hook(lambda m, a, o: order.append("last"))
    net(fg.ones([1]), fg.ones([1]))
    assert order == ["prepended", "first", "last"]


class _Fails(fg.nn.Layer):
    def forward(self, x, fail=True):
        if fail:
            raise RuntimeError("failing in forward")
        return x


def test_always_call_hook_runs_when_the_call_fails():
    calls = []
    net = _Fails()
    h = net.register_forward_post_hook(lambda m, a, o: calls.append(o), always_call=True)
    with pytest.raises(RuntimeError, match="failing in forward"):
        net(fg.ones([1]))
    assert calls == [None]
    net(fg.ones([1]), fail=False)
    assert len(calls) == 2 and calls[1] is not None  # once, with the output
    h.remove()

    def boom(m, a, o):
        raise ValueError("hook error")

    net.register_forward_post_hook(boom, always_call=True)
    with (
        pytest.warns(UserWarning, match="always_call"),
        pytest.raises(RuntimeError, match="forward"),
    ):
        net(fg.ones([1]))


class _Scale(fg.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = fg.nn.Parameter(fg.ones([1]))

    def forward(self, x, y=None):
        return x * self.w


def test_full_backward_hooks_see_and_replace_gradients():
    layer, calls = _Scale(), []
    layer.register_full_backward_pre_hook(lambda m, go: calls.append(("pre", go[0].item())))
    layer.register_full_backward_hook(
        lambda m, gi, go: calls.append(("full", [g if g is None else g.item() for g in gi]))
    )
    x = fg.tensor([2.0], requires_grad=True)
    layer(x, fg.tensor([1.0])).backward()
    assert calls == [("pre", 1.0), ("full", [1.0, None])]  # y does not require grad
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])

    scaled = _Scale()
    scaled.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
    x = fg.tensor([2.0], requires_grad=True)
    scaled(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10.0])

    pre = _Scale()
    pre.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
    x = fg.tensor([2.0], requires_grad=True)
    pre(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10.0])
    np.testing.assert_array_equal(pre.w.grad.numpy(), [20.0])


def test_full_backward_hook_without_grad_inputs_fires_from_the_outputs():
    layer, calls = _Scale(), []
    handle = layer.register_full_backward_hook(lambda m, gi, go: calls.append((gi, go)))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        layer(fg.tensor([2.0])).backward()
    assert calls[0][0] == (None,) and calls[0][1][0].item() == 1.0
    np.testing.assert_array_equal(layer.w.grad.numpy(), [2.0])
    handle.remove()
    layer(fg.tensor([2.0])).backward()
    assert len(calls) == 1


def test_full_backward_hook_with_several_outputs_and_no_grad():
    class Two(fg.nn.Module):
        def forward(self, x):
            return x * 2, x * 3

    calls = []
    m = Two()
    m.register_full_backward_hook(lambda mm, gi, go: calls.append((gi[0].item(), go)))
    x = fg.tensor([1.0], requires_grad=True)
    a, _ = m(x)
    a.backward()
    assert calls[0][0] == 2.0 and calls[0][1][1] is None
    with fg.no_grad():
        assert not m(x)[0].requires_grad
