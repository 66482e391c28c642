"""Inference tensors (PyTorch's ``torch.is_inference``): memory allocated inside
``inference_mode()`` marks its tensors; an op on inference tensors alone records nothing,
so their ``requires_grad`` never starts a graph by itself (issue 17: tests of PyTorch's
test_inference_mode.py need this; the rest of PyTorch's rules around inference mode are
in test_inference_mode_autograd.py)."""

import ferrograd as fg
import pytest


def test_tensors_created_or_computed_in_inference_mode_are_inference_tensors():
    x = fg.ones(2, 3)
    with fg.inference_mode():
        c = fg.ones(2, 3)
        d = x * 2  # computed from a normal tensor: new memory, an inference tensor
        v = x.view(-1)  # a view of a normal tensor stays normal
        r = fg.ones(2, 3, requires_grad=True)
        assert r.requires_grad and fg.is_inference(r)
    assert fg.is_inference(c) and c.is_inference()
    assert fg.is_inference(d) and not d.requires_grad
    assert not fg.is_inference(v) and not fg.is_inference(x)
    assert fg.is_inference(c.view(-1))  # a view of an inference tensor is one too
    assert not c.view(-1)._is_view()  # ... but not a view (PyTorch: nothing to track)
    assert not fg.is_inference(c * c)  # computed outside: a normal tensor


@pytest.mark.parametrize("requires_grad", [True, False])
def test_ops_on_inference_tensors_alone_record_nothing(requires_grad):
    with fg.inference_mode():
        c = fg.ones(1, 2, 3, requires_grad=requires_grad)
    out = c * c
    assert not out.requires_grad and out.is_leaf and out.grad_fn is None
    # beside a normal tensor that requires grad, an op that saves nothing records, and
    # the gradient reaches c only when c itself requires grad (a leaf, as in PyTorch)
    w = fg.full([1, 2, 3], 2.0, requires_grad=True)
    (w + c).sum().backward()
    assert (w.grad.numpy() == 1.0).all()
    assert (c.grad is not None) is requires_grad


def test_inference_mode_false_makes_normal_tensors():
    with fg.inference_mode():
        with fg.inference_mode(False):
            n = fg.ones(2)
        i = fg.ones(2)
    assert not fg.is_inference(n) and fg.is_inference(i)


@pytest.mark.parametrize("op", [lambda x: x.add_(2), lambda x: x.zero_(), lambda x: x.fill_(1)])
def test_an_inference_tensor_is_not_modified_in_place_outside_inference_mode(op):
    # its version is not tracked, so no later backward could notice the change (PyTorch)
    with fg.inference_mode():
        c = fg.ones(1, 2, 3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        op(c)
    with fg.no_grad(), pytest.raises(RuntimeError, match="clone"):
        op(c)
    with fg.inference_mode():
        op(c)  # inside inference mode it may change
    d = c.clone()  # a normal tensor made outside
    op(d)
    assert not fg.is_inference(d)
