"""Autograd engine: graph recording, backward, accumulation, hooks, version counters,
and ``ferrograd.grad`` / ``ferrograd.autograd.grad``.

Expected values are worked out by hand (or by finite differences through ``check_grad``);
the items of the behaviour contract (``docs/semantics.md``, by section letter) they come
from are named in brackets.
"""

from __future__ import annotations

import gc
import re

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from hypothesis import given, settings
from hypothesis import strategies as st


def leaf(values=(1.0, 2.0), dtype=None):
    """A float tensor that requires grad (the reference document's ``leaf()``)."""
    if dtype is None:
        return fg.tensor(list(values), requires_grad=True)
    return fg.tensor(list(values), dtype=dtype, requires_grad=True)


def arr(t):
    """The values of a tensor as a float64 NumPy array."""
    return np.asarray(t.numpy(), dtype=np.float64)


def assert_values(t, expected):
    assert t is not None, "expected a tensor, got None"
    np.testing.assert_allclose(arr(t), np.asarray(expected, dtype=np.float64), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------
# Recording: requires_grad / stop_gradient, leaves, grad_fn, next_functions
# ---------------------------------------------------------------------------------------


class TestRequiresGradFlag:
    def test_defaults_to_not_requiring_grad(self):
        t = fg.tensor([1.0, 2.0])
        assert t.requires_grad is False
        assert t.stop_gradient is True

    def test_stop_gradient_false_sets_requires_grad(self):
        t = fg.tensor([1.0, 2.0])
        t.stop_gradient = False
        assert t.requires_grad is True
        assert t.stop_gradient is False

    def test_requires_grad_false_sets_stop_gradient(self):
        t = leaf()
        assert t.stop_gradient is False
        t.requires_grad = False
        assert t.stop_gradient is True
        assert t.requires_grad is False

    def test_one_flag_seen_through_both_names_after_many_toggles(self):
        t = fg.tensor([1.0])
        for flag in [True, False, False, True, True, False]:
            if flag:
                t.requires_grad = True
            else:
                t.stop_gradient = True
            assert t.requires_grad is flag
            assert t.stop_gradient is (not flag)

    def test_requires_grad_underscore_returns_the_same_tensor(self):
        t = fg.tensor([1.0, 2.0])
        r = t.requires_grad_()
        assert r is t
        assert t.requires_grad is True
        assert t.requires_grad_(False) is t
        assert t.requires_grad is False
        t.requires_grad_(requires_grad=True)
        assert t.stop_gradient is False

    def test_factory_keywords(self):
        assert fg.tensor([1.0], requires_grad=True).requires_grad
        assert fg.ones([2], requires_grad=True).requires_grad
        assert fg.zeros([2], requires_grad=True).requires_grad
        assert fg.to_tensor([1.0], stop_gradient=False).requires_grad
        assert not fg.to_tensor([1.0]).requires_grad
        assert not fg.ones([2]).requires_grad

    @pytest.mark.parametrize(
        "dtype", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
    )
    def test_float_and_complex_may_require_grad(self, dtype):
        t = fg.zeros([2], dtype=getattr(fg, dtype))
        t.requires_grad_()
        assert t.requires_grad
        assert t.is_leaf

    @pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
    def test_integer_and_bool_tensors_cannot_require_grad(self, dtype):
        t = fg.zeros([2], dtype=getattr(fg, dtype))
        msg = "only tensors of floating point or complex dtype can require gradients"
        with pytest.raises(RuntimeError, match=msg):
            t.requires_grad_()
        with pytest.raises(RuntimeError, match=msg):
            t.requires_grad = True
        with pytest.raises(RuntimeError, match=msg):
            t.stop_gradient = False
        assert t.requires_grad is False
        # turning the flag off is always allowed
        t.requires_grad_(False)
        t.stop_gradient = True
        assert t.requires_grad is False

    def test_integer_error_names_the_dtype(self):
        with pytest.raises(RuntimeError, match="int64"):
            fg.tensor([1, 2], requires_grad=True)

    def test_integer_factory_with_requires_grad_raises(self):
        with pytest.raises(RuntimeError, match="floating point or complex"):
            fg.tensor([1, 2], dtype=fg.int32, requires_grad=True)


class TestGraphRecording:
    def test_no_graph_when_no_input_requires_grad(self):
        a = fg.tensor([1.0, 2.0])
        b = fg.tensor([3.0, 4.0])
        c = (a * b + a).exp().sum()
        assert c.requires_grad is False
        assert c.grad_fn is None
        assert c.is_leaf is True

    def test_graph_when_any_input_requires_grad(self):
        a = fg.tensor([1.0, 2.0])
        x = leaf()
        c = a * x
        assert c.requires_grad is True
        assert c.is_leaf is False
        assert c.grad_fn is not None

    def test_no_graph_under_no_grad(self):
        x = leaf()
        with fg.no_grad():
            y = x * 2
            z = (y + x).sum()
        for t in (y, z):
            assert t.requires_grad is False
            assert t.grad_fn is None
            assert t.is_leaf is True
        assert x.requires_grad is True

    def test_leaf_attributes(self):
        x = leaf()
        assert x.is_leaf is True
        assert x.grad_fn is None
        assert x.grad is None
        plain = fg.tensor([1.0])
        assert plain.is_leaf is True
        assert plain.grad_fn is None

    @pytest.mark.parametrize(
        "fn, name",
        [
            (lambda x: x * x, "MulBackward"),
            (lambda x: x * 3.0, "MulBackward"),
            (lambda x: x + 1.0, "AddBackward"),
            (lambda x: x - 1.0, "SubBackward"),
            (lambda x: x / 2.0, "DivBackward"),
            (lambda x: x**3, "PowBackward"),
            (lambda x: x.exp(), "ExpBackward"),
            (lambda x: x.sum(), "SumBackward"),
            (lambda x: x.clone(), "CloneBackward"),
        ],
    )
    def test_grad_fn_name(self, fn, name):
        y = fn(leaf())
        assert re.fullmatch(name + r"\d*", y.grad_fn.name()), y.grad_fn.name()
        assert name in repr(y.grad_fn)

    def test_next_functions_of_binary_op_on_two_leaves(self):
        x = leaf()
        w = leaf((3.0, 4.0))
        y = x * w
        nf = y.grad_fn.next_functions
        assert isinstance(nf, tuple) and len(nf) == 2
        (n0, i0), (n1, i1) = nf
        assert n0.name() == "AccumulateGrad" and n1.name() == "AccumulateGrad"
        assert i0 == 0 and i1 == 0
        assert hash(n0.variable) == hash(x)
        assert hash(n1.variable) == hash(w)
        assert_values(n1.variable, [3.0, 4.0])
        assert n0.next_functions == ()

    def test_next_functions_marks_inputs_without_grad_as_none(self):
        x = leaf()
        y = x * fg.tensor([5.0, 6.0])
        (n0, _), (n1, i1) = y.grad_fn.next_functions
        assert n0.name() == "AccumulateGrad"
        assert n1 is None and i1 == 0
        z = x * 2.0
        assert z.grad_fn.next_functions[1] == (None, 0)

    def test_next_functions_link_to_producer_nodes(self):
        x = leaf()
        y = x * 2.0
        z = y + x
        loss = z.sum()
        (sum_in, _) = loss.grad_fn.next_functions[0]
        assert sum_in == z.grad_fn
        (first, nr), (second, _) = z.grad_fn.next_functions
        assert first == y.grad_fn and nr == 0
        assert first.name().startswith("MulBackward")
        assert second.name() == "AccumulateGrad"
        assert hash(first) == hash(y.grad_fn)
        assert first != z.grad_fn

    def test_walk_from_loss_reaches_every_leaf(self):
        x = leaf()
        w = leaf((3.0, 4.0))
        loss = ((x * w).exp() + w).sum()
        seen = set()
        stack = [loss.grad_fn]
        while stack:
            node = stack.pop()
            if node.name() == "AccumulateGrad":
                seen.add(hash(node.variable))
                continue
            stack.extend(n for n, _ in node.next_functions if n is not None)
        assert seen == {hash(x), hash(w)}

    def test_stop_gradient_on_non_leaf_cuts_the_graph(self):
        # [L9] Paddle: y.stop_gradient = True on a non-leaf detaches it
        x = leaf()
        y = x * 2
        y.stop_gradient = True
        assert y.is_leaf and y.grad_fn is None
        (y * x).sum().backward()
        assert_values(x.grad, [2.0, 4.0])

    def test_requires_grad_on_tensor_made_under_no_grad_makes_a_new_leaf(self):
        # [I8]
        x = leaf()
        with fg.no_grad():
            y = x * 2
        y.requires_grad_(True)
        assert y.is_leaf
        (y * 3).sum().backward()
        assert_values(y.grad, [3.0, 3.0])
        assert x.grad is None

    def test_detach_shares_storage_and_has_no_history(self):
        # [L3]
        x = leaf()
        d = x.detach()
        assert d.requires_grad is False and d.is_leaf and d.grad_fn is None
        d.add_(fg.ones([2]))
        assert_values(x, [2.0, 3.0])
        assert x.requires_grad

    def test_clone_is_differentiable(self):
        # [L4]
        x = leaf()
        c = x.clone()
        assert not c.is_leaf
        c.sum().backward()
        assert_values(x.grad, [1.0, 1.0])


# ---------------------------------------------------------------------------------------
# Engine: gradients of small graphs
# ---------------------------------------------------------------------------------------


class TestEngineGradients:
    def test_product_rule(self):
        x = leaf()
        w = leaf((3.0, 4.0))
        (x * w).sum().backward()
        assert_values(x.grad, [3.0, 4.0])
        assert_values(w.grad, [1.0, 2.0])

    def test_same_tensor_twice_in_one_op(self):
        x = leaf()
        (x * x).sum().backward()
        assert_values(x.grad, [2.0, 4.0])
        y = leaf()
        (y + y).sum().backward()
        assert_values(y.grad, [2.0, 2.0])

    def test_fan_out_of_a_leaf(self):
        x = leaf()
        (x * 2 + x * 3 + x).sum().backward()
        assert_values(x.grad, [6.0, 6.0])

    def test_diamond(self):
        # a = 2x, b = 3x, c = a*b = 6x^2 -> dc/dx = 12x
        x = leaf()
        a = x * 2
        b = x * 3
        (a * b).sum().backward()
        assert_values(x.grad, [12.0, 24.0])

    def test_fan_out_of_a_non_leaf(self):
        # y = x^2, z = y + y^2 -> dz/dx = (1 + 2y) * 2x
        x = leaf()
        y = x * x
        (y + y * y).sum().backward()
        assert_values(x.grad, [6.0, 36.0])

    def test_two_diamonds_in_sequence(self):
        # y = x*x + x = x^2 + x ; z = y*y + y -> dz/dx = (2y + 1)(2x + 1)
        x = leaf()
        y = x * x + x
        z = y * y + y
        z.sum().backward()
        xv = np.array([1.0, 2.0])
        yv = xv * xv + xv
        assert_values(x.grad, (2 * yv + 1) * (2 * xv + 1))

    def test_unused_branch_gets_no_gradient(self):
        x = leaf()
        w = leaf((3.0, 4.0))
        _ = w * 2  # recorded but not part of the loss
        (x * 3).sum().backward()
        assert_values(x.grad, [3.0, 3.0])
        assert w.grad is None

    def test_broadcast_gradients_are_reduced_to_input_shapes(self):
        x = fg.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
        y = fg.tensor([[1.0, 2.0, 3.0, 4.0]], requires_grad=True)
        (x * y).sum().backward()
        assert x.grad.shape == [3, 1]
        assert y.grad.shape == [1, 4]
        assert_values(x.grad, [[10.0], [10.0], [10.0]])
        assert_values(y.grad, [[6.0, 6.0, 6.0, 6.0]])

    def test_broadcast_of_a_zero_dim_tensor(self):
        s = fg.tensor(2.0, requires_grad=True)
        v = leaf((1.0, 2.0, 3.0))
        (s * v).sum().backward()
        assert s.grad.shape == []
        assert_values(s.grad, 6.0)
        assert_values(v.grad, [2.0, 2.0, 2.0])

    def test_broadcast_against_a_leading_dimension(self):
        b = leaf((1.0, 2.0, 3.0))
        m = fg.ones([4, 3])
        (m + b).sum().backward()
        assert b.grad.shape == [3]
        assert_values(b.grad, [4.0, 4.0, 4.0])

    def test_grad_dtype_matches_the_leaf(self):
        x64 = leaf(dtype=fg.float64)
        (x64 * x64).sum().backward()
        assert x64.grad.dtype == fg.float64
        x32 = leaf()
        (x32 * fg.tensor(2.0, dtype=fg.float64)).sum().backward()
        assert x32.grad.dtype == fg.float32
        assert_values(x32.grad, [2.0, 2.0])

    def test_composite_against_finite_differences(self):
        check_grad(
            lambda a, b: (a * b).exp() * (a + b) + a / (b * b + 1.0),
            [[0.1, -0.3], [0.5, 0.2]],
            [[0.7, 0.4], [-0.2, 0.9]],
            second_order=True,
        )

    def test_broadcasting_composite_against_finite_differences(self):
        check_grad(
            lambda a, b, c: (a * b - c).tanh() * a + c,
            [[0.1], [-0.4], [0.3]],
            [[0.2, -0.5]],
            0.25,
            second_order=True,
        )

    def test_chain_of_10000_ops(self):
        x = fg.tensor([1.0], dtype=fg.float64, requires_grad=True)
        y = x
        for _ in range(10_000):
            y = y * 1.0001
        y.backward()
        assert_values(x.grad, [1.0001**10_000])
        assert_values(y, [1.0001**10_000])

    def test_chain_of_1000000_ops_backward_and_free(self):
        neg = fg.Tensor.neg
        x = fg.tensor(1.5, requires_grad=True)
        y = x
        for _ in range(1_000_000):
            y = neg(y)
        y.backward()
        assert_values(x.grad, 1.0)
        assert_values(y, 1.5)
        del y  # dropping a million-node chain must not overflow the stack
        gc.collect()
        assert_values(x * 2, [3.0])


@settings(max_examples=30, deadline=None)
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["add", "mul", "sub", "tanh"]), st.integers(0, 9), st.integers(0, 9)
        ),
        min_size=1,
        max_size=8,
    ),
    a=st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
    b=st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3),
)
def test_random_dags_match_finite_differences(ops, a, b):
    """Random DAGs over two inputs: every node may feed several later nodes."""

    def build(x, y):
        nodes = [x, y]
        for op, i, j in ops:
            p, q = nodes[i % len(nodes)], nodes[j % len(nodes)]
            if op == "add":
                nodes.append(p + q)
            elif op == "mul":
                nodes.append(p * q)
            elif op == "sub":
                nodes.append(p - q)
            else:
                nodes.append(p.tanh())
        return nodes[-1] + nodes[-2] * 0.5

    check_grad(build, a, b, atol=1e-5, rtol=1e-4)


# ---------------------------------------------------------------------------------------
# backward(): seeds, several roots, retain_graph
# ---------------------------------------------------------------------------------------


class TestBackwardCall:
    def test_grad_tensor_positional_and_keywords(self):
        # [J13] z.backward(grad_tensor=2.0) -> [4, 8]
        x = leaf()
        (x * x).sum().backward(fg.tensor(2.0))
        assert_values(x.grad, [4.0, 8.0])
        x = leaf()
        (x * x).sum().backward(grad_tensor=fg.tensor(2.0))
        assert_values(x.grad, [4.0, 8.0])
        x = leaf()
        (x * x).backward(gradient=fg.tensor([1.0, 10.0]))
        assert_values(x.grad, [2.0, 40.0])

    def test_non_scalar_output_without_gradient_uses_ones(self):
        # [J3] Paddle: implicit ones
        x = leaf()
        (x * x).backward()
        assert_values(x.grad, [2.0, 4.0])
        m = fg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (m * 3).backward()
        assert_values(m.grad, [[3.0, 3.0], [3.0, 3.0]])

    def test_wrong_shaped_gradient_is_rejected(self):
        x = leaf()
        with pytest.raises(RuntimeError, match=r"Mismatch in shape.*\[3\].*\[2\]"):
            (x * x).backward(fg.ones([3]))
        assert x.grad is None

    def test_gradient_is_cast_to_the_output_dtype(self):
        x = leaf()
        (x * x).backward(fg.tensor([1.0, 1.0], dtype=fg.float64))
        assert x.grad.dtype == fg.float32
        assert_values(x.grad, [2.0, 4.0])

    def test_autograd_backward_with_lists(self):
        # [J13] autograd.backward([z], [3.0]) -> [6, 12]
        x = leaf()
        z = (x * x).sum()
        assert fg.autograd.backward([z], [fg.tensor(3.0)]) is None
        assert_values(x.grad, [6.0, 12.0])

    def test_autograd_backward_single_tensor_and_tuple(self):
        x = leaf()
        fg.autograd.backward((x * x).sum())
        assert_values(x.grad, [2.0, 4.0])
        w = leaf()
        fg.autograd.backward(((w * 3).sum(),), (fg.tensor(2.0),))
        assert_values(w.grad, [6.0, 6.0])

    def test_autograd_backward_several_roots_are_summed(self):
        x = leaf()
        fg.autograd.backward([(x * x).sum(), (x * 3).sum()])
        assert_values(x.grad, [5.0, 7.0])
        x = leaf()
        fg.autograd.backward([(x * x).sum(), (x * 3).sum()], [None, fg.tensor(2.0)])
        assert_values(x.grad, [8.0, 10.0])

    def test_autograd_backward_root_feeding_another_root(self):
        # y = x^2 seeded with ones, z = sum(2y): total 2x + 4x
        x = leaf()
        y = x * x
        z = (y * 2).sum()
        fg.autograd.backward([y, z])
        assert_values(x.grad, [6.0, 12.0])

    def test_autograd_backward_gradient_count_must_match(self):
        x = leaf()
        z = (x * x).sum()
        with pytest.raises(ValueError, match="2 gradients for 1 outputs"):
            fg.autograd.backward([z], [fg.tensor(1.0), fg.tensor(1.0)])

    def test_autograd_backward_rejects_non_tensors(self):
        with pytest.raises(TypeError, match="must be a Tensor"):
            fg.autograd.backward([1.0])

    def test_backward_on_a_tensor_without_history(self):
        # Tensor.backward(): Paddle's no-op (Paddle's custom-operator guide relies on it), with a warning
        with pytest.warns(UserWarning, match="does not require grad"):
            fg.tensor([1.0]).backward()
        # autograd.backward() keeps torch's error
        with pytest.raises(RuntimeError, match="does not require grad"):
            fg.autograd.backward([fg.tensor(1.0)])

    def test_backward_on_a_leaf_itself(self):
        x = leaf()
        x.backward(fg.tensor([3.0, 4.0]))
        assert_values(x.grad, [3.0, 4.0])

    def test_second_backward_without_retain_graph_raises(self):
        # [E1]
        x = leaf()
        z = (x * x).sum()
        z.backward()
        with pytest.raises(RuntimeError, match=re.escape("retain_graph=True")):
            z.backward()
        assert_values(x.grad, [2.0, 4.0])

    def test_second_grad_through_a_freed_graph_raises(self):
        x = leaf()
        z = (x.exp() * x).sum()
        z.backward()
        with pytest.raises(RuntimeError, match="second time"):
            fg.grad(z, x)

    def test_retain_graph_lets_backward_run_again_and_accumulate(self):
        # [E2] -> [4, 8]
        x = leaf()
        z = (x * x).sum()
        z.backward(retain_graph=True)
        assert_values(x.grad, [2.0, 4.0])
        z.backward(retain_graph=True)
        assert_values(x.grad, [4.0, 8.0])
        z.backward()
        assert_values(x.grad, [6.0, 12.0])
        with pytest.raises(RuntimeError, match="retain_graph"):
            z.backward()

    def test_create_graph_retains_the_graph(self):
        x = leaf()
        z = (x * x).sum()
        z.backward(create_graph=True)
        z.backward()
        assert_values(x.grad, [4.0, 8.0])

    def test_create_graph_gives_grad_its_own_graph(self):
        x = leaf()
        (x**3).sum().backward(create_graph=True)
        assert x.grad.requires_grad
        assert_values(x.grad, [3.0, 12.0])
        (gg,) = fg.grad(x.grad.sum(), x)
        assert_values(gg, [6.0, 12.0])

    def test_backward_works_under_no_grad(self):
        x = leaf()
        z = (x * x).sum()
        with fg.no_grad():
            z.backward()
            assert not fg.is_grad_enabled()
        assert_values(x.grad, [2.0, 4.0])


# ---------------------------------------------------------------------------------------
# .grad: accumulation, clearing, assignment, retain_grad
# ---------------------------------------------------------------------------------------


class TestGradAttribute:
    def test_accumulates_across_backward_calls(self):
        # [E4] 3 x sum(2x) -> [6, 6]
        x = leaf()
        for _ in range(3):
            (x * 2).sum().backward()
        assert_values(x.grad, [6.0, 6.0])

    def test_earlier_grad_object_sees_the_accumulated_value(self):
        # [E4] accumulation is in place
        x = leaf()
        (x * 2).sum().backward()
        g1 = x.grad
        (x * 2).sum().backward()
        assert_values(g1, [4.0, 4.0])
        assert_values(x.grad, [4.0, 4.0])

    def test_accumulation_of_different_gradients(self):
        x = leaf()
        (x * fg.tensor([1.0, 2.0])).sum().backward()
        (x * x).sum().backward()
        assert_values(x.grad, [3.0, 6.0])

    @pytest.mark.parametrize(
        "first, first_grad",
        [
            (lambda x: x.sum(), [1.0, 1.0]),
            (lambda x: x.mean(), [0.5, 0.5]),
            (lambda x: (x + 1.0).sum(), [1.0, 1.0]),
        ],
        ids=["sum", "mean", "add_then_sum"],
    )
    def test_accumulation_after_a_reduction_gradient(self, first, first_grad):
        x = leaf()
        first(x).backward()
        assert_values(x.grad, first_grad)
        (x * fg.tensor([1.0, 2.0])).sum().backward()
        assert_values(x.grad, np.add(first_grad, [1.0, 2.0]))

    def test_in_place_edit_of_grad_after_sum(self):
        x = leaf()
        x.sum().backward()
        with fg.no_grad():
            x.grad.add_(fg.tensor([0.0, 1.0]))
        assert_values(x.grad, [1.0, 2.0])

    def test_accumulation_keeps_two_leaves_independent(self):
        # the gradient of an add goes to both inputs: they must not share memory
        x = leaf()
        w = leaf()
        (x + w).sum().backward()
        (x + w * 3).sum().backward()
        assert_values(x.grad, [2.0, 2.0])
        assert_values(w.grad, [4.0, 4.0])

    def test_gradient_seed_is_not_modified_by_accumulation(self):
        x = leaf()
        g = fg.tensor([1.0, 1.0])
        x.clone().backward(g)
        (x * 1).sum().backward()
        assert_values(x.grad, [2.0, 2.0])
        assert_values(g, [1.0, 1.0])

    def test_clear_grad_and_clear_gradient(self):
        # Paddle semantics: clearing keeps a zero gradient by default (E5)
        x = leaf()
        (x * 2).sum().backward()
        x.clear_grad()
        assert_values(x.grad, [0.0, 0.0])
        (x * 3).sum().backward()
        assert_values(x.grad, [3.0, 3.0])
        x.clear_gradient()
        assert_values(x.grad, [0.0, 0.0])
        x.clear_gradient(set_to_zero=False)
        assert x.grad is None
        (x * 4).sum().backward()
        assert_values(x.grad, [4.0, 4.0])

    def test_clear_grad_set_to_zero(self):
        x = leaf()
        (x * 2).sum().backward()
        x.clear_grad(set_to_zero=True)
        assert_values(x.grad, [0.0, 0.0])
        (x * 3).sum().backward()
        assert_values(x.grad, [3.0, 3.0])
        x.clear_gradient(set_to_zero=True)
        assert_values(x.grad, [0.0, 0.0])

    def test_assign_none(self):
        x = leaf()
        (x * 2).sum().backward()
        x.grad = None
        assert x.grad is None
        (x * 5).sum().backward()
        assert_values(x.grad, [5.0, 5.0])

    def test_assign_a_tensor_then_accumulate_into_it(self):
        x = leaf()
        x.grad = fg.tensor([10.0, 20.0])
        assert_values(x.grad, [10.0, 20.0])
        (x * 2).sum().backward()
        assert_values(x.grad, [12.0, 22.0])

    def test_assign_wrong_shape_is_rejected(self):
        # [L8] torch's check
        x = leaf()
        with pytest.raises((RuntimeError, ValueError), match=r"\[3\].*\[2\]"):
            x.grad = fg.zeros([3])
        assert x.grad is None

    def test_assign_non_tensor_is_rejected(self):
        x = leaf()
        with pytest.raises(TypeError):
            x.grad = [1.0, 2.0]

    def test_non_leaf_grad_is_none_without_retain_grad(self):
        # [E7]
        x = leaf()
        y = x * 2
        (y * y).sum().backward()
        assert y.grad is None
        assert_values(x.grad, [8.0, 16.0])

    @pytest.mark.parametrize("method", ["retain_grad", "retain_grads"])
    def test_retain_grad_on_non_leaf(self, method):
        x = leaf()
        y = x * 2
        assert getattr(y, method)() is None
        assert y.grad is None
        (y * y).sum().backward()
        assert_values(y.grad, [4.0, 8.0])
        assert_values(x.grad, [8.0, 16.0])
        assert not y.is_leaf

    def test_retained_grad_accumulates(self):
        x = leaf()
        y = x * 2
        y.retain_grad()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        z.backward()
        assert_values(y.grad, [8.0, 16.0])
        assert_values(x.grad, [16.0, 32.0])

    def test_retain_grad_twice_stores_once(self):
        x = leaf()
        y = x * 2
        y.retain_grad()
        y.retain_grad()
        (y * 3).sum().backward()
        assert_values(y.grad, [3.0, 3.0])

    def test_retain_grad_on_leaf_is_harmless(self):
        x = leaf()
        x.retain_grad()
        (x * 3).sum().backward()
        assert_values(x.grad, [3.0, 3.0])

    def test_retain_grad_on_tensor_without_grad_raises(self):
        with pytest.raises(ValueError, match="does not require grad"):
            fg.tensor([1.0]).retain_grad()


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


# ---------------------------------------------------------------------------------------
# ferrograd.grad / ferrograd.autograd.grad
# ---------------------------------------------------------------------------------------


class TestGradFunction:
    def test_same_gradients_under_both_names(self):
        # fg.grad is paddle.grad: autograd.grad plus Paddle's reading of a [1] gradient
        # of a 0-d output (test_paddle_grad_scalar.py, docs/dialects.md)
        x = leaf()
        y = (x * x).sum()
        (a,) = fg.grad(y, x, retain_graph=True)
        (b,) = fg.autograd.grad(y, x)
        assert a.tolist() == b.tolist()

    def test_returns_a_tuple_for_requested_inputs_only(self):
        x = leaf()
        w = leaf((3.0, 4.0))
        z = (x * w).sum()
        res = fg.autograd.grad(z, [w])
        assert isinstance(res, tuple) and len(res) == 1
        assert_values(res[0], [1.0, 2.0])
        assert x.grad is None and w.grad is None

    def test_single_tensor_input(self):
        x = leaf()
        res = fg.grad((x * x).sum(), x)
        assert isinstance(res, tuple) and len(res) == 1
        assert_values(res[0], [2.0, 4.0])

    def test_existing_grad_is_untouched(self):
        # [J2]
        x = leaf()
        x.grad = fg.tensor([2.0, 4.0])
        (g,) = fg.grad((x * 3).sum(), x)
        assert_values(g, [3.0, 3.0])
        assert_values(x.grad, [2.0, 4.0])

    def test_leaf_grad_stays_none_with_non_leaf_input(self):
        x = leaf()
        y = x * 2
        fg.grad((y * y).sum(), y)
        assert x.grad is None and y.grad is None

    def test_non_leaf_input(self):
        # [J9] -> [4, 8]
        x = leaf()
        y = x * 2
        (gy,) = fg.grad((y * y).sum(), y)
        assert_values(gy, [4.0, 8.0])

    def test_non_leaf_and_leaf_inputs_together(self):
        x = leaf()
        y = x * 2
        gy, gx = fg.grad((y * y).sum(), [y, x])
        assert_values(gy, [4.0, 8.0])
        assert_values(gx, [8.0, 16.0])

    def test_input_that_is_the_output(self):
        x = leaf()
        y = x * 2
        assert_values(fg.grad(x, x)[0], [1.0, 1.0])
        assert_values(fg.grad(y, y)[0], [1.0, 1.0])

    def test_duplicate_inputs(self):
        x = leaf()
        g1, g2 = fg.grad((x * x).sum(), [x, x])
        assert_values(g1, [2.0, 4.0])
        assert_values(g2, [2.0, 4.0])

    def test_unused_input_raises_by_default(self):
        # [J5]
        x, y = leaf(), leaf()
        z = (x * x).sum()
        with pytest.raises(RuntimeError, match=r"index 1.*allow_unused=True"):
            fg.grad(z, [x, y])

    def test_allow_unused_gives_none(self):
        x, y = leaf(), leaf()
        gx, gy = fg.grad((x * x).sum(), [x, y], allow_unused=True)
        assert_values(gx, [2.0, 4.0])
        assert gy is None

    def test_materialize_grads_gives_zeros(self):
        x = leaf()
        y = fg.tensor([[1.0, 2.0, 3.0]], dtype=fg.float64, requires_grad=True)
        gx, gy = fg.grad((x * x).sum(), [x, y], materialize_grads=True)
        assert_values(gx, [2.0, 4.0])
        assert gy.shape == [1, 3]
        assert gy.dtype == fg.float64
        assert_values(gy, [[0.0, 0.0, 0.0]])
        _, gy2 = fg.grad((x * x).sum(), [x, y], materialize_grads=True, allow_unused=True)
        assert_values(gy2, [[0.0, 0.0, 0.0]])

    def test_materialize_grads_with_allow_unused_false_raises(self):
        x, y = leaf(), leaf()
        with pytest.raises(ValueError, match="allow_unused=False"):
            fg.grad((x * x).sum(), [x, y], materialize_grads=True, allow_unused=False)

    def test_grad_outputs(self):
        # [J4] [1, 10] for x*x -> [2, 40]
        x = leaf()
        assert_values(fg.grad(x * x, x, grad_outputs=[fg.tensor([1.0, 10.0])])[0], [2.0, 40.0])
        assert_values(fg.grad(x * x, x, grad_outputs=fg.tensor([1.0, 10.0]))[0], [2.0, 40.0])
        assert_values(fg.grad(x * x, x, grad_outputs=(fg.tensor([1.0, 10.0]),))[0], [2.0, 40.0])

    def test_grad_outputs_none_entries_mean_ones(self):
        x = leaf()
        assert_values(fg.grad(x * x, x, grad_outputs=[None])[0], [2.0, 4.0])
        y = x * 3
        (g,) = fg.grad([y, y * 2], [x], grad_outputs=[None, fg.tensor([1.0, 10.0])])
        assert_values(g, [9.0, 63.0])

    def test_non_scalar_output_without_grad_outputs_uses_ones(self):
        x = leaf()
        assert_values(fg.grad(x * x, x)[0], [2.0, 4.0])

    def test_wrong_shaped_grad_outputs_raise(self):
        x = leaf()
        with pytest.raises(
            RuntimeError, match=r"Mismatch in shape: grad_output\[0\].*\[3\].*\[2\]"
        ):
            fg.grad(x * x, x, grad_outputs=[fg.ones([3])])

    def test_wrong_number_of_grad_outputs_raises(self):
        x = leaf()
        with pytest.raises(ValueError, match="one gradient"):
            fg.grad(x * x, x, grad_outputs=[fg.ones([2]), fg.ones([2])])

    def test_several_outputs_are_summed(self):
        # [J12] -> [[5, 7]]
        x = leaf()
        (g,) = fg.grad([(x * x).sum(), (3 * x).sum()], [x])
        assert_values(g, [5.0, 7.0])

    def test_retain_graph_defaults_to_false(self):
        # [E3, J7]
        x = leaf()
        z = (x * x).sum()
        fg.grad(z, x)
        with pytest.raises(RuntimeError, match=re.escape("retain_graph=True")):
            fg.grad(z, x)

    def test_retain_graph_false_explicitly_frees(self):
        x = leaf()
        z = (x * x).sum()
        fg.grad(z, x, retain_graph=False)
        with pytest.raises(RuntimeError, match="retain_graph"):
            z.backward()

    def test_retain_graph_true_allows_a_second_call(self):
        x = leaf()
        z = (x.exp()).sum()
        (g1,) = fg.grad(z, x, retain_graph=True)
        (g2,) = fg.grad(z, x)
        assert_values(g1, np.exp([1.0, 2.0]))
        assert_values(g2, np.exp([1.0, 2.0]))

    def test_retain_graph_defaults_to_create_graph(self):
        x = leaf()
        z = (x * x).sum()
        fg.grad(z, x, create_graph=True)
        assert_values(fg.grad(z, x)[0], [2.0, 4.0])

    def test_without_create_graph_result_has_no_history(self):
        x = leaf()
        (g,) = fg.grad((x * x).sum(), x)
        assert g.requires_grad is False
        assert g.grad_fn is None

    def test_higher_order(self):
        # [J8] z = sum(x^3): g = [3, 12], gg = [6, 12], ggg = [6, 6]
        x = leaf()
        z = (x**3).sum()
        (g,) = fg.grad(z, x, create_graph=True)
        assert_values(g, [3.0, 12.0])
        assert g.requires_grad and g.stop_gradient is False
        (gg,) = fg.grad(g.sum(), x, create_graph=True)
        assert_values(gg, [6.0, 12.0])
        (ggg,) = fg.grad(gg.sum(), x)
        assert_values(ggg, [6.0, 6.0])
        assert x.grad is None

    def test_backward_on_first_order_result(self):
        # [J8] x*x -> x.grad = [2, 2]
        x = leaf()
        (g,) = fg.grad((x * x).sum(), x, create_graph=True)
        g.sum().backward()
        assert_values(x.grad, [2.0, 2.0])

    def test_create_graph_under_no_grad_still_records(self):
        x = leaf()
        z = (x**3).sum()
        with fg.no_grad():
            (g,) = fg.grad(z, x, create_graph=True)
        assert g.requires_grad
        (gg,) = fg.grad(g.sum(), x)
        assert_values(gg, [6.0, 12.0])

    def test_no_grad_vars_on_a_leaf(self):
        x = leaf()
        w = leaf((3.0, 4.0))
        z = (w * x).sum()
        (gx,) = fg.grad(z, x, no_grad_vars=[w])
        assert_values(gx, [3.0, 4.0])

    def test_no_grad_vars_treats_a_non_leaf_as_constant(self):
        # [J10] z = sum(y*x), y = 2x, no_grad_vars=[y] -> gx = [2, 4]
        x = leaf()
        y = x * 2
        z = (y * x).sum()
        (gx,) = fg.grad(z, x, no_grad_vars=[y])
        assert_values(gx, [2.0, 4.0])

    def test_no_grad_vars_empty_changes_nothing(self):
        x = leaf()
        y = x * 2
        z = (y * x).sum()
        (gx,) = fg.grad(z, x, no_grad_vars=[])
        assert_values(gx, [4.0, 8.0])

    def test_input_without_grad_raises(self):
        # [J6]
        x = leaf()
        with pytest.raises(RuntimeError, match="input 0 does not require grad"):
            fg.grad((x * x).sum(), fg.tensor([1.0]))

    def test_output_without_grad_raises(self):
        x = leaf()
        with pytest.raises(RuntimeError, match="element 0 .*does not require grad"):
            fg.grad(fg.tensor([1.0]), x)

    def test_batched_grads_need_grad_outputs(self):
        # (the batched results themselves: test_grad_batched.py)
        x = leaf()
        with pytest.raises(RuntimeError, match="is_grads_batched=True.*grad_outputs"):
            fg.grad((x * x).sum(), x, is_grads_batched=True)

    def test_works_under_no_grad(self):
        x = leaf()
        z = (x * x).sum()
        with fg.no_grad():
            (g,) = fg.grad(z, x)
        assert_values(g, [2.0, 4.0])
        assert not g.requires_grad
