"""Gradients that meet at one input are summed in place into a buffer only the backward
pass holds (``autograd/grad_sum.rs``): the sums are exact, and no gradient that user
code can still read (kept by a hook, retained, passed in) is ever written."""

import ferrograd as fg
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_are_exact_and_accumulate_over_steps(dtype):
    av = np.array([0.5, -1.25, 3.0], dtype=dtype)
    bv = np.array([1.5, 2.0, -0.75], dtype=dtype)
    a = fg.tensor(av, requires_grad=True)
    b = fg.tensor(bv, requires_grad=True)
    for step in range(1, 4):
        ((a * b + a) * 2).sum().backward()
        # a receives 2*b and 2 at one input: summed in the pass, then into .grad
        np.testing.assert_array_equal(a.grad.numpy(), step * (2 * bv + np.array(2, dtype)))
        np.testing.assert_array_equal(b.grad.numpy(), step * 2 * av)


def test_a_gradient_kept_by_a_hook_is_not_written():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    y1 = a.clone()
    y1.register_hook(lambda g: kept.append(g))
    y2 = a * 3
    (y1 * 5 + y2).sum().backward()
    # the hook's gradient met a's other gradient (3) at a's input: it still reads 5
    assert kept[0].tolist() == [5.0, 5.0]
    assert a.grad.tolist() == [8.0, 8.0]


def test_a_retained_gradient_is_not_written():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    y1 = a * 1
    y1.retain_grad()
    (y1 * 4 + a * 3).sum().backward()
    assert y1.grad.tolist() == [4.0, 4.0]
    assert a.grad.tolist() == [7.0, 7.0]


def test_a_gradient_passed_in_is_not_written():
    a = fg.tensor([1.0, 2.0], requires_grad=True)
    g = fg.tensor([1.0, 10.0])
    (a + a).backward(g)  # both of the add's gradients are the caller's tensor
    assert g.tolist() == [1.0, 10.0]
    assert a.grad.tolist() == [2.0, 20.0]
    h = fg.tensor([2.0, 3.0])
    (a * 1 + a * 1).backward(h)
    assert h.tolist() == [2.0, 3.0]
    assert a.grad.tolist() == [6.0, 26.0]


def test_double_backward_still_sees_the_sum():
    a = fg.tensor([1.5, -2.0], requires_grad=True)
    y = (a * a + a * 3).sum()
    (g,) = fg.autograd.grad(y, a, create_graph=True)
    assert g.tolist() == [6.0, -1.0]
    (gg,) = fg.autograd.grad(g.sum(), a)
    assert gg.tolist() == [2.0, 2.0]
