"""Bad input of every kind gives a clear exception, the process survives, and the next
operation works (complements test_errors.py, which covers shapes, dtypes, sizes and
memory). Every test here is followed by a sanity computation (the autouse fixture)."""

from __future__ import annotations

import math

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import PyLayer, saved_tensors_hooks


@pytest.fixture(autouse=True)
def next_operation_works():
    yield
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert fg.is_grad_enabled()


class NotATensor:
    pass


ODD_OBJECTS = [None, "abc", NotATensor(), object(), [1, "x"], {"a": 1}, b"\x00\x01", 1j + 1]


@pytest.mark.parametrize("obj", ODD_OBJECTS, ids=lambda o: type(o).__name__)
@pytest.mark.parametrize(
    "call",
    [
        lambda o: fg.ones(2) + o,
        lambda o: fg.ones(2).matmul(o),
        lambda o: fg.concat([fg.ones(2), o]),
        lambda o: fg.where(fg.ones(2) > 0, o, fg.ones(2)),
        lambda o: fg.ones(2).reshape(o),
        lambda o: fg.ones(2).sum(axis=o),
        lambda o: fg.ones(3)[o],
        lambda o: fg.grad(o, fg.ones(1, requires_grad=True)),
        lambda o: fg.ones(2, requires_grad=True).sum().backward(o),
    ],
    ids=["add", "matmul", "concat", "where", "reshape", "sum", "index", "grad", "backward"],
)
def test_non_tensors_where_tensors_go(call, obj):
    try:
        out = call(obj)
    except (TypeError, ValueError, IndexError, RuntimeError) as e:
        assert str(e), "an exception without a message"
        return
    # a few objects are legitimately accepted (None as an axis, complex scalars, ...)
    assert isinstance(out, (fg.Tensor, tuple, list, type(None)))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_inf_propagate_as_numpy_does(bad):
    a = np.array([1.0, bad, -2.0, 0.0])
    t = fg.tensor(a, requires_grad=True)
    with np.errstate(all="ignore"):
        for f, nf in [(fg.exp, np.exp), (fg.log, np.log), (fg.sqrt, np.sqrt), (fg.tanh, np.tanh)]:
            np.testing.assert_array_equal(f(t).detach().numpy(), nf(a))
        np.testing.assert_array_equal((t / 0.0).detach().numpy(), a / 0.0)
    (t * 2.0).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [2.0] * 4)


@pytest.mark.parametrize(
    "call, exc, fragment",
    [
        (lambda: fg.ones(3)[3], IndexError, "3"),
        (lambda: fg.ones(3)[-4], IndexError, "-4"),
        (lambda: fg.ones(2, 3)[:, 5], IndexError, "5"),
        (lambda: fg.ones(2, 3)[0, 0, 0], IndexError, "dim"),
        (lambda: fg.ones(3)[fg.tensor([0, 7])], IndexError, "7"),
        (lambda: fg.ones(3)[fg.tensor([-9])], IndexError, "-9"),
        (lambda: fg.ones(3).__setitem__(9, 1.0), IndexError, "9"),
        (lambda: fg.ones(3).size(4), IndexError, "4"),
    ],
)
def test_out_of_range_indices(call, exc, fragment):
    with pytest.raises(exc, match=fragment):
        call()


@pytest.mark.parametrize("dims", [(-1,), (2, -3), (1 << 62, 1 << 62), (1 << 40, 1 << 40, 8)])
def test_negative_or_huge_dimensions(dims):
    with pytest.raises((ValueError, MemoryError, OverflowError)) as info:
        fg.zeros(*dims)
    assert str(info.value)


def test_backward_through_a_freed_graph_then_a_new_one():
    x = fg.ones(2, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time|retain_graph|freed"):
        y.backward()
    (x.exp() * x).sum().backward()


# ---------------------------------------------------------------------------------------
# user callbacks: raise, return garbage, re-enter
# ---------------------------------------------------------------------------------------


class Boom(Exception):
    pass


def test_exceptions_from_hooks_come_out_unchanged():
    x = fg.ones(2, requires_grad=True)
    y = x * 2

    def hook(g):
        raise Boom("from the hook")

    y.register_hook(hook)
    with pytest.raises(Boom, match="from the hook") as info:
        y.sum().backward()
    assert any(f.name == "hook" for f in info.traceback)


@pytest.mark.parametrize("garbage", ["grad", 3, [1.0, 2.0], object()], ids=repr)
def test_hooks_returning_garbage(garbage):
    x = fg.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: garbage)
    with pytest.raises((TypeError, ValueError, RuntimeError)) as info:
        y.sum().backward()
    assert "hook" in str(info.value).lower() or "tensor" in str(info.value).lower()


def test_hook_returning_a_wrong_shape():
    x = fg.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: fg.ones(5))
    with pytest.raises((ValueError, RuntimeError), match="shape|size"):
        y.sum().backward()


def layer_returning(value):
    class Bad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return value(g) if callable(value) else value

    return Bad


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("not a tensor", "Tensor|tensor"),
        (lambda g: (g, g), "gradients|number|expected"),
        (lambda g: fg.ones(7), "shape"),
        (lambda g: fg.ones(2, dtype="int64"), "dtype|integer|int64"),
    ],
    ids=["str", "too_many", "shape", "int_dtype"],
)
def test_layer_backward_returning_garbage(value, fragment):
    x = fg.ones(2, requires_grad=True)
    y = layer_returning(value).apply(x)
    try:
        y.sum().backward()
    except (TypeError, ValueError, RuntimeError) as e:
        assert any(f.lower() in str(e).lower() for f in fragment.split("|")), str(e)
    else:
        # an int gradient may be cast like torch does; then it must be the right value
        np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])


def test_layer_forward_raising_leaves_grad_mode_alone():
    class Fails(PyLayer):
        @staticmethod
        def forward(ctx, x):
            raise Boom("forward failed")

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(Boom):
        Fails.apply(fg.ones(2, requires_grad=True))
    assert fg.is_grad_enabled()


@pytest.mark.parametrize("where", ["pack", "unpack"])
def test_saved_tensor_hooks_that_raise(where):
    def pack(t):
        if where == "pack":
            raise Boom("pack failed")
        return t

    def unpack(t):
        raise Boom("unpack failed")

    x = fg.ones(2, requires_grad=True)
    with pytest.raises(Boom, match=f"{where} failed"):
        with saved_tensors_hooks(pack, unpack):
            y = (x * x).sum()
        y.backward()


def test_unpack_hook_returning_garbage():
    x = fg.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: "garbage"):
        y = (x * x).sum()
    with pytest.raises((TypeError, RuntimeError), match="Tensor|tensor"):
        y.backward()


def test_hook_reentering_backward_on_another_graph():
    x = fg.ones(2, requires_grad=True)
    w = fg.ones(3, requires_grad=True)

    def hook(g):
        with fg.enable_grad():  # backward runs hooks with grad mode = create_graph
            (w * 4.0).sum().backward()  # a whole backward pass inside a backward pass
        return g

    y = x * 2
    y.register_hook(hook)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 4.0, 4.0])


def test_hook_reentering_backward_on_its_own_graph():
    x = fg.ones(2, requires_grad=True)
    y = x * 2
    z = (y * 3).sum()
    calls = []

    def hook(g):
        calls.append(1)
        if len(calls) == 1:
            z.backward(retain_graph=True)  # re-enters the very pass that is running
        return g

    y.register_hook(hook)
    try:
        z.backward(retain_graph=True)
    except RuntimeError as e:
        assert str(e)
    else:
        assert x.grad is not None and np.isfinite(x.grad.numpy()).all()


def test_layer_backward_reentering_grad():
    class Reenter(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensor()
            with fg.enable_grad():
                xx = x.detach()
                xx.stop_gradient = False
                (d,) = fg.grad(xx.sin().sum(), xx)
            return g * d

    x = fg.tensor([0.1, 0.7], requires_grad=True)
    Reenter.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.1, 0.7]), rtol=1e-6)
