"""Autograd engine: graph recording (requires_grad / stop_gradient, leaves, grad_fn,
next_functions) and the gradients of small graphs.

Expected values are worked out by hand (or by finite differences through ``check_grad``);
the items of the behaviour contract (``docs/semantics.md``, by section letter) they come
from are named in brackets. Siblings: ``test_autograd_backward_call.py`` (``backward()``
and ``.grad``), ``test_autograd_hooks_inplace.py``, ``test_autograd_grad_function.py``.
"""

from __future__ import annotations

import gc
import re

import ferrograd as fg
import numpy as np
import pytest
from autograd_support import assert_values, leaf
from conftest import check_grad
from hypothesis import given, settings
from hypothesis import strategies as st

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
