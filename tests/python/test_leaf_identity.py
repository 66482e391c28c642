"""Leaf identity after ``x.set_(y)`` / ``x.data = y``: PyTorch's gradient-accumulator
identity. ``x.data = y`` of the same shape and dtype keeps ``x``'s accumulator (a graph
recorded before and a ``GradientEdge`` taken before still name ``x``); ``x.set_(y)`` makes
a new one (only the edge taken before reaches the old graph). Expected values checked
against PyTorch 2.x."""

import ferrograd as torch
import numpy as np
import pytest

E = "E"


def _setup(kind):
    """x, the edge taken before, the graph recorded before, after, and the edge after."""
    x = torch.tensor([0.3, 0.7], requires_grad=True)
    e = torch.autograd.graph.get_gradient_edge(x)
    out1 = x.clone()
    with torch.no_grad():
        if kind == "set":
            x.set_(torch.tensor([1.5, 2.5]))
        elif kind == "data":
            x.data = torch.tensor([1.5, 2.5])
        elif kind == "data3":
            x.data = torch.tensor([1.5, 2.5, 3.5])
    out2 = x * 2
    e2 = torch.autograd.graph.get_gradient_edge(x)
    return x, e, out1, out2, e2


def _grads(kind):
    x, e, out1, out2, e2 = _setup(kind)
    res = []
    for out in (out1, out2):
        for inp in (x, e, e2):
            try:
                (g,) = torch.autograd.grad(out.sum(), inp, retain_graph=True)
            except RuntimeError:
                res.append(E)
                continue
            res.append(g.numpy().tolist())
    return res


# (grad of out1 w.r.t. x, e, e2; grad of out2 w.r.t. x, e, e2), as PyTorch gives them
# for set_ and data=; for data= of another shape PyTorch returns a gradient of the old
# shape for out1 and errors for out2, ferrograd errors for out1 (the shape changed) and
# gives out2's gradient through x and the edge taken after
@pytest.mark.parametrize(
    "kind,expected",
    [
        ("set", [E, [1.0, 1.0], E, [2.0, 2.0], E, [2.0, 2.0]]),
        ("data", [[1.0, 1.0]] * 3 + [[2.0, 2.0]] * 3),
        ("data3", [E, E, E, [2.0] * 3, E, [2.0] * 3]),
    ],
)
def test_grad_through_tensor_and_edges_before_and_after(kind, expected):
    assert _grads(kind) == expected


def test_upstream_grad_to_node_set():
    x = torch.rand(2, requires_grad=True)
    x_edge = torch.autograd.graph.get_gradient_edge(x)
    out = x.clone()
    with torch.no_grad():
        x.set_(torch.rand_like(x))
    with pytest.raises(RuntimeError, match="to not have been used in the graph"):
        torch.autograd.grad(out.sum(), x)
    (g,) = torch.autograd.grad(out.sum(), x_edge)
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0])


def test_old_edge_after_shape_change_is_a_clear_error():
    x, e, out1, _, _ = _setup("data3")
    with pytest.raises(RuntimeError, match="data was replaced"):
        torch.autograd.grad(out1.sum(), e)


def test_data_of_another_dtype_makes_a_new_accumulator():
    # PyTorch's set_data: another dtype resets the accumulator
    x = torch.tensor([0.3, 0.7], requires_grad=True)
    e = torch.autograd.graph.get_gradient_edge(x)
    n1 = x.view_as(x).grad_fn.next_functions[0][0]
    out1 = x.clone()
    with torch.no_grad():
        x.data = torch.tensor([1.5, 2.5], dtype=torch.float64)
    n2 = x.view_as(x).grad_fn.next_functions[0][0]
    assert n1 != n2
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        torch.autograd.grad(out1.sum(), x, retain_graph=True)
    (g,) = torch.autograd.grad(out1.sum(), e)
    np.testing.assert_allclose(g.numpy(), [1.0, 1.0])


def _acc_node(x):
    return x.view_as(x).grad_fn.next_functions[0][0]


# (PyTorch keeps the node after `x.data = y` of another shape too; ferrograd gives x a
# new one, so gradients of the two shapes never meet in one accumulator)
@pytest.mark.parametrize("kind,same", [("set", False), ("data", True), ("data3", False)])
def test_accumulate_grad_node_equality(kind, same):
    x = torch.tensor([0.3, 0.7], requires_grad=True)
    n1 = _acc_node(x)
    e = torch.autograd.graph.get_gradient_edge(x)
    with torch.no_grad():
        if kind == "set":
            x.set_(torch.tensor([1.5, 2.5]))
        elif kind == "data":
            x.data = torch.tensor([1.5, 2.5])
        else:
            x.data = torch.tensor([1.5, 2.5, 3.5])
    n2 = _acc_node(x)
    assert n1 == e.node and hash(n1) == hash(e.node)
    assert (n1 == n2) is same and (n2 == n1) is same
    assert (hash(n1) == hash(n2)) is same
    assert n2 == _acc_node(x) and hash(n2) == hash(_acc_node(x))
    assert n1 != _acc_node(torch.tensor([0.3, 0.7], requires_grad=True))
    assert n2.variable is x and n1.variable is x


@pytest.mark.parametrize("kind", ["set", "data"])
def test_backward_inputs_old_edge(kind):
    x, e, out1, out2, _ = _setup(kind)
    out1.sum().backward(inputs=[e], retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    # the graph recorded after reaches the old edge only when x kept its accumulator
    out2.sum().backward(inputs=[e])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0] if kind == "data" else [1.0, 1.0])


@pytest.mark.parametrize("kind", ["set", "data"])
def test_old_graph_still_accumulates_into_grad(kind):
    x, _, out1, out2, _ = _setup(kind)
    out1.sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    # both graphs in one pass: one gradient into x.grad (one accumulator or two)
    (out1.sum() + out2.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])


def test_data_twice_then_set_keeps_the_old_graphs_apart():
    x = torch.tensor([0.3, 0.7], requires_grad=True)
    out0 = x * 1
    with torch.no_grad():
        x.data = torch.tensor([1.0, 2.0])
    out1 = x * 3
    with torch.no_grad():
        x.set_(torch.tensor([4.0, 5.0]))
    out2 = x * 5
    # out0 and out1 name the accumulator x had before set_; out2 the new one
    (g,) = torch.autograd.grad(out0.sum() + out1.sum() + out2.sum(), x, retain_graph=True)
    np.testing.assert_allclose(g.numpy(), [5.0, 5.0])
    n0 = out0.grad_fn.next_functions[0][0]
    assert n0 == out1.grad_fn.next_functions[0][0] and n0 != _acc_node(x)
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        torch.autograd.grad(out0.sum() + out1.sum(), x, retain_graph=True)
    edge = torch.autograd.graph.GradientEdge(n0, 0)
    (g,) = torch.autograd.grad(out0.sum() + out1.sum() + out2.sum(), edge)
    np.testing.assert_allclose(g.numpy(), [4.0, 4.0])
