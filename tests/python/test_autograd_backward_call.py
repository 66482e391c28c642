"""Autograd engine: ``backward()`` (seeds, several roots, retain_graph) and ``.grad``
(accumulation, clearing, assignment, retain_grad)."""

from __future__ import annotations

import re

import ferrograd as fg
import numpy as np
import pytest
from autograd_support import assert_values, leaf

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
