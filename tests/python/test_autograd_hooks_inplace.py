"""Autograd engine: tensor hooks, in-place ops and version counters."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from autograd_support import arr, assert_values, leaf

# ---------------------------------------------------------------------------------------
# Tensor hooks
# ---------------------------------------------------------------------------------------


class Boom(Exception):
    """A user exception raised from a hook."""


class TestHooks:
    def test_leaf_hook_return_value_replaces_the_gradient(self):
        # [E6] leaf hook returning g*10 -> [20, 20]
        x = leaf()
        seen = []

        def hook(g):
            seen.append(arr(g))
            return g * 10

        x.register_hook(hook)
        (x * 2).sum().backward()
        np.testing.assert_allclose(seen[0], [2.0, 2.0])
        assert_values(x.grad, [20.0, 20.0])

    def test_non_leaf_hook_return_value_replaces_the_gradient(self):
        # [E6] y = x*2 with hook g*10 -> x.grad [20, 20]
        x = leaf()
        y = x * 2
        seen = []

        def hook(g):
            seen.append(arr(g))
            return g * 10

        y.register_hook(hook)
        y.sum().backward()
        np.testing.assert_allclose(seen[0], [1.0, 1.0])
        assert_values(x.grad, [20.0, 20.0])

    @pytest.mark.parametrize("on_leaf", [True, False])
    def test_hook_returning_none_keeps_the_gradient(self, on_leaf):
        x = leaf()
        y = x * 2
        calls = []
        (x if on_leaf else y).register_hook(lambda g: calls.append(arr(g)))
        (y * 3).sum().backward()
        assert len(calls) == 1
        assert_values(x.grad, [6.0, 6.0])

    @pytest.mark.parametrize("on_leaf", [True, False])
    def test_handle_remove(self, on_leaf):
        x = leaf()
        y = x * 2
        target = x if on_leaf else y
        calls = []

        def hook(g):
            calls.append(1)
            return g * 10

        handle = target.register_hook(hook)
        z = (y * 1).sum()
        z.backward(retain_graph=True)
        assert_values(x.grad, [20.0, 20.0])
        handle.remove()
        handle.remove()  # idempotent
        x.grad = None
        z.backward()
        assert_values(x.grad, [2.0, 2.0])
        assert calls == [1]

    def test_removing_one_hook_keeps_the_others(self):
        x = leaf()
        h1 = x.register_hook(lambda g: g * 2)
        x.register_hook(lambda g: g + 1)
        (x * 1).sum().backward()
        assert_values(x.grad, [3.0, 3.0])  # (1 * 2) + 1: hooks run in registration order
        h1.remove()
        x.grad = None
        (x * 1).sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    @pytest.mark.parametrize("on_leaf", [True, False])
    def test_hook_runs_once_with_the_summed_gradient(self, on_leaf):
        x = leaf()
        y = x * 1
        calls = []
        (x if on_leaf else y).register_hook(lambda g: calls.append(arr(g)))
        (y * 2 + y * 3).sum().backward()
        assert len(calls) == 1
        np.testing.assert_allclose(calls[0], [5.0, 5.0])

    def test_non_leaf_hook_runs_before_retain_grad(self):
        x = leaf()
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        (y * 1).sum().backward()
        assert_values(y.grad, [10.0, 10.0])
        assert_values(x.grad, [20.0, 20.0])

    def test_hook_sees_grad_mode_of_the_pass(self):
        x = leaf()
        modes = []
        x.register_hook(lambda g: modes.append(fg.is_grad_enabled()))
        (x * x).sum().backward()
        fg.grad((x * x).sum(), x, create_graph=True)
        assert modes == [False, True]

    def test_hook_on_tensor_without_grad_raises(self):
        with pytest.raises(ValueError, match="does not require grad"):
            fg.tensor([1.0]).register_hook(lambda g: g)

    def test_hook_returning_a_non_tensor_raises_type_error(self):
        x = leaf()
        x.register_hook(lambda g: 3)
        with pytest.raises(TypeError, match="must return a Tensor or None"):
            (x * 2).sum().backward()

    @pytest.mark.parametrize("on_leaf", [True, False])
    def test_hook_exception_comes_out_unchanged(self, on_leaf):
        # [F2, F3]
        x = leaf()
        y = x * 2
        err = Boom("from a hook")

        def hook(g):
            raise err

        handle = (x if on_leaf else y).register_hook(hook)
        with pytest.raises(Boom) as info:
            (y * y).sum().backward()
        assert info.value is err
        assert type(info.value) is Boom
        assert x.grad is None
        assert fg.is_grad_enabled()
        handle.remove()
        y = x * 2  # the failed pass already freed part of the old graph
        (y * y).sum().backward()
        assert_values(x.grad, [8.0, 16.0])

    def test_hook_exception_restores_grad_mode_under_no_grad(self):
        x = leaf()
        z = (x * x).sum()

        def hook(g):
            raise KeyError("k")

        x.register_hook(hook)
        with fg.no_grad():
            with pytest.raises(KeyError):
                z.backward(create_graph=True)
            assert not fg.is_grad_enabled()
        assert fg.is_grad_enabled()

    def test_hook_exception_out_of_grad(self):
        x = leaf()
        err = Boom("grad")

        def hook(g):
            raise err

        x.register_hook(hook)
        with pytest.raises(Boom) as info:
            fg.grad((x * 3).sum(), x)
        assert info.value is err

    def test_leaf_hook_returning_a_wrong_shape_is_rejected(self):
        x = leaf()
        x.register_hook(lambda g: fg.ones([3]))
        with pytest.raises((RuntimeError, ValueError)):
            (x * 2).sum().backward()
        assert x.grad is None or x.grad.shape == [2]

    def test_non_leaf_hook_returning_a_wrong_shape_is_rejected(self):
        x = leaf()
        y = x * 2
        y.register_hook(lambda g: fg.ones([3]))
        with pytest.raises(RuntimeError, match=r"\[3\].*\[2\]"):
            (y * y).sum().backward()


# ---------------------------------------------------------------------------------------
# In-place ops and version counters
# ---------------------------------------------------------------------------------------


class TestInPlace:
    def test_version_counter_counts_in_place_writes(self):
        # [L7]
        t = fg.ones([2])
        assert t._version == 0 and t._inplace_version() == 0
        t.add_(fg.ones([2]))
        assert t._version == 1
        t.mul_(fg.ones([2]))
        assert t._version == 2 and t._inplace_version() == 2

    def test_modified_saved_input_is_caught(self):
        # [L7, C10]
        x = leaf()
        a = x * 1
        y = a * a  # saves a
        a.add_(fg.ones([2]))
        msg = r"MulBackward.*float32 tensor of shape \[2\].*version 0.*version 1"
        with pytest.raises(RuntimeError, match=msg):
            y.sum().backward()
        assert x.grad is None

    def test_modified_saved_output_is_caught(self):
        x = leaf()
        e = (x * 1).exp()  # exp saves its output
        e.add_(fg.ones([2]))
        with pytest.raises(RuntimeError, match=r"ExpBackward.*\[2\].*version 0.*version 1"):
            e.sum().backward()

    def test_error_names_the_shape_of_a_2d_tensor(self):
        x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        h = x * 1
        z = h * h
        h.mul_(fg.tensor(2.0))
        with pytest.raises(RuntimeError, match=r"MulBackward.*\[2, 2\].*version 0.*version 1"):
            z.sum().backward()

    def test_modifying_an_unsaved_input_is_harmless(self):
        # [L7] exp saves its output, not its input
        x = leaf()
        h = x * 1
        e = h.exp()
        h.add_(fg.ones([2]))
        e.sum().backward()
        assert_values(x.grad, np.exp([1.0, 2.0]))

    @pytest.mark.parametrize(
        "op", [lambda t: t.add_(fg.ones([2])), lambda t: t.mul_(fg.ones([2])), lambda t: t.exp_()]
    )
    def test_in_place_on_leaf_requiring_grad_raises(self, op):
        # [L5]
        x = leaf()
        with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
            op(x)
        assert_values(x, [1.0, 2.0])
        assert x._version == 0

    def test_in_place_on_leaf_allowed_under_no_grad(self):
        # [I9]
        x = leaf()
        with fg.no_grad():
            x.add_(fg.ones([2]))
        assert_values(x, [2.0, 3.0])
        assert x.is_leaf and x.requires_grad and x.grad_fn is None
        assert x._version == 1
        (x * x).sum().backward()
        assert_values(x.grad, [4.0, 6.0])

    def test_in_place_on_leaf_without_grad_is_allowed(self):
        t = fg.tensor([1.0, 2.0])
        t.add_(fg.ones([2]))
        assert_values(t, [2.0, 3.0])

    @pytest.mark.parametrize(
        "scale, op, expected",
        [
            (1.0, lambda h: h.add_(fg.ones([2])), [1.0, 1.0]),
            (2.0, lambda h: h.mul_(fg.tensor(3.0)), [6.0, 6.0]),
            (2.0, lambda h: h.exp_(), [14.778112, 109.1963]),
        ],
    )
    def test_in_place_on_non_leaf_is_differentiated_through(self, scale, op, expected):
        # [L6] h=x*1; add_ -> [1,1]; h=x*2; mul_(3) -> [6,6]; h=x*2; exp_ -> [14.778, 109.196]
        x = leaf()
        h = x * scale
        op(h)
        assert not h.is_leaf
        h.sum().backward()
        assert_values(x.grad, expected)
