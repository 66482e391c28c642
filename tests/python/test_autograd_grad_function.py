"""Autograd engine: ``ferrograd.grad`` / ``ferrograd.autograd.grad``."""

from __future__ import annotations

import re

import ferrograd as fg
import numpy as np
import pytest
from autograd_support import assert_values, leaf

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
