"""``.grad`` keeps its Python identity, as in PyTorch (values checked on torch 2.15): the
same object on every read, the very tensor assigned with ``p.grad = g``, and the same
object after a backward pass that accumulates in place; ``create_graph=True`` accumulates
out of place, so ``.grad`` is then a new tensor and the old one is left unchanged
(upstream ``test_accumulate_grad_tensor_reference``, its dense cases)."""

from __future__ import annotations

import ferrograd as torch


def test_grad_is_the_same_object_on_every_read():
    q = torch.ones(2, requires_grad=True)
    (q * 2).sum().backward()
    a = q.grad
    assert q.grad is a
    (q * 3).sum().backward()
    assert q.grad is a and a.tolist() == [5.0, 5.0]


def test_assigned_grad_is_kept_and_accumulated_in_place():
    p = torch.tensor([1.5, 1.5]).requires_grad_()
    g = torch.tensor([1.5, 1.5])
    p.grad = g
    assert p.grad is g
    p.backward(torch.tensor([1.5, 1.5]))
    assert p.grad is g and g.tolist() == [3.0, 3.0]


def test_create_graph_gives_a_new_grad():
    p = torch.tensor([1.5, 1.5]).requires_grad_()
    g = torch.tensor([1.5, 1.5])
    p.grad = g
    p.backward(torch.tensor([1.5, 1.5]), create_graph=True)
    assert p.grad is not g
    assert p.grad.tolist() == [3.0, 3.0] and g.tolist() == [1.5, 1.5]


def test_grad_none_and_reassignment():
    p = torch.ones(2, requires_grad=True)
    assert p.grad is None
    g1, g2 = torch.zeros(2), torch.ones(2)
    p.grad = g1
    p.grad = g2
    assert p.grad is g2
    p.grad = None
    assert p.grad is None
