"""``autograd.graph.GradientEdge`` / ``get_gradient_edge``: edges in place of tensors as
``outputs`` / ``inputs`` of ``autograd.grad`` and ``tensors`` / ``inputs`` of
``autograd.backward``."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.graph import GradientEdge, get_gradient_edge


def test_edge_of_a_non_leaf_and_of_a_leaf():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    node, nr = get_gradient_edge(y)
    assert node is y.grad_fn and nr == 0
    edge = get_gradient_edge(x)
    assert isinstance(edge, GradientEdge) and edge.output_nr == 0
    assert type(edge.node).__name__ == "AccumulateGrad" and edge.node.variable is x
    with pytest.raises(RuntimeError, match="does not require"):
        get_gradient_edge(fg.tensor([1.0]))


def test_backward_from_an_edge_outlives_the_tensor():
    inp = fg.tensor([2.0], requires_grad=True)
    mid = inp.clone()
    out = mid * 5
    edge = get_gradient_edge(out)
    del out
    fg.autograd.backward(edge, retain_graph=True)
    assert inp.grad.tolist() == [5.0]
    fg.autograd.backward(edge, fg.tensor([2.0]))
    assert inp.grad.tolist() == [15.0]


def test_backward_from_an_edge_checks_the_gradient_shape():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    edge = get_gradient_edge(x * 2)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        fg.autograd.backward(edge, fg.tensor([1.0, 2.0, 3.0]))


def test_grad_with_respect_to_an_intermediate_edge():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    out = (a * a).sum()
    (ga,) = fg.autograd.grad(out, get_gradient_edge(a), retain_graph=True)
    assert ga.tolist() == [4.0, 8.0]
    (gx,) = fg.autograd.grad(out, [get_gradient_edge(x)], retain_graph=True)
    assert gx.tolist() == [8.0, 16.0]
    # an edge as the output, with a given gradient
    (gx2,) = fg.autograd.grad(get_gradient_edge(a), x, fg.tensor([1.0, 1.0]))
    assert gx2.tolist() == [2.0, 2.0]


def test_backward_inputs_take_a_leaf_edge_and_a_node_edge():
    x = fg.tensor([1.0], requires_grad=True)
    w = fg.tensor([3.0], requires_grad=True)
    a = x * w
    out = (a * 2).sum()
    out.backward(inputs=[get_gradient_edge(x)], retain_graph=True)
    assert x.grad.tolist() == [6.0] and w.grad is None
    # a node's edge (PyTorch): the pass stops there, the gradient goes to no .grad
    out.backward(inputs=[get_gradient_edge(a)])
    assert x.grad.tolist() == [6.0] and w.grad is None


def test_hand_built_edges():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x.sin()
    fg.autograd.backward(GradientEdge(y.grad_fn, 0), fg.tensor([1.0, 1.0]))
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        fg.autograd.backward(GradientEdge(y.grad_fn, 0), fg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="has 1 output"):
        fg.autograd.backward(GradientEdge(y.grad_fn, 1))
    # an AccumulateGrad edge: the leaf's shape
    x.grad = None
    fg.autograd.backward(GradientEdge(get_gradient_edge(x).node, 0), fg.ones(2))
    assert x.grad.tolist() == [1.0, 1.0]
