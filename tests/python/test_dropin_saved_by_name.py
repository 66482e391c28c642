"""A built-in node's saved tensors by name, as PyTorch's tests read them:
``grad_fn._saved_self`` / ``_saved_other`` / ``_saved_result`` and
``grad_fn._raw_saved_self.register_hooks(pack, unpack)``; and the argument errors of
``grad()`` that Paddle's tests expect as ``AssertionError``."""

import ferrograd as fg
import numpy as np
import pytest


def test_saved_self_other_result():
    a = fg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = fg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = a * b
    np.testing.assert_array_equal(y.grad_fn._saved_self.numpy(), a.detach().numpy())
    np.testing.assert_array_equal(y.grad_fn._saved_other.numpy(), b.detach().numpy())
    e = fg.exp(a)
    np.testing.assert_array_equal(e.grad_fn._saved_result.numpy(), e.detach().numpy())
    assert e.grad_fn._saved_result.grad_fn == e.grad_fn
    # the same tensor saved twice gets both names
    s = a * a
    np.testing.assert_array_equal(s.grad_fn._saved_other.numpy(), a.detach().numpy())
    with pytest.raises(AttributeError, match="_saved_nothing"):
        s.grad_fn._saved_nothing  # noqa: B018


def test_saved_tensor_after_backward_is_freed():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn._saved_self  # noqa: B018


def test_raw_saved_register_hooks():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
    np.testing.assert_array_equal(y.grad_fn._saved_self.numpy(), [2.0, 4.0])
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 6.0])  # other + 2 * self

    a = fg.tensor([1.0, 2.0], requires_grad=True)
    y = fg.exp(a)
    calls = []
    y.grad_fn._raw_saved_result.register_hooks(
        lambda x: ("p", x), lambda p: calls.append(1) or p[1]
    )
    y.sum().backward()
    assert calls == [1]
    np.testing.assert_allclose(a.grad.numpy(), np.exp([1.0, 2.0]))


def test_raw_saved_register_hooks_errors():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: 1)
    with pytest.raises(
        TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor"
    ):
        y.grad_fn._saved_self  # noqa: B018
    y = a * a
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x, b: x, lambda x: x)

    def inc(x):
        x += 1
        return x

    y = fg.exp(a)
    with pytest.raises(
        RuntimeError, match="A saved tensor pack hook is modifying its input in place"
    ):
        y.grad_fn._raw_saved_result.register_hooks(inc, lambda x: x)
    y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    with pytest.raises(RuntimeError, match="once"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    with pytest.raises(TypeError, match="callable"):
        (a * a).grad_fn._raw_saved_self.register_hooks(1, lambda x: x)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: fg.grad(None, None),
        lambda x: fg.grad(1, x),
        lambda x: fg.grad(x * 2.0, 1),
        lambda x: fg.grad([1], [x]),
        lambda x: fg.grad([x * 2.0, x * 3.0], [x], [fg.ones([2])]),
        lambda x: fg.grad([x * 2.0], [x], no_grad_vars=[1]),
        lambda x: fg.grad([x * 2.0], [x], no_grad_vars=1),
    ],
)
def test_bad_grad_arguments_are_assertion_and_type_errors(call):
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(fg.AutogradArgumentError) as info:
        call(x)
    assert isinstance(info.value, AssertionError)  # Paddle's tests
    assert isinstance(info.value, (TypeError, ValueError))
    assert issubclass(fg.AutogradArgumentError, TypeError)
    assert issubclass(fg.AutogradArgumentError, ValueError)


def test_raw_saved_data_and_unpack_hook():
    """PyTorch's `SavedVariable.data` / `.unpack_hook`: the packed object as it is under
    hooks; without hooks the saved input itself, a detached copy of a saved output."""

    def pack_hook(t):
        return t

    def unpack_hook(t):
        return t

    a = fg.tensor(2.0, requires_grad=True)
    with fg.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        b = a**2
    c = b.exp()
    d = c**2
    pow_sv = b.grad_fn._raw_saved_self
    exp_sv = c.grad_fn._raw_saved_result
    pow2_sv = d.grad_fn._raw_saved_self
    assert pow_sv.data is a
    assert pow_sv.unpack_hook is unpack_hook
    assert exp_sv.data is not c
    assert not exp_sv.data.requires_grad and exp_sv.data.item() == c.item()
    assert exp_sv.unpack_hook is None
    assert pow2_sv.data is c
    assert pow2_sv.unpack_hook is None
    d.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        _ = exp_sv.data
