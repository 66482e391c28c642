"""Autograd metadata around ``inference_mode()``, as PyTorch 2.x keeps it (issue 17: the
``test_normal_tensor_*``, ``*_view_on_rebase``, ``*_in_normal_mode_view_op`` and
``test_mix_inference_*`` tests of PyTorch's test_inference_mode.py). Written in PyTorch's
dialect: inference mode is PyTorch's API."""

import ferrograd as torch
import numpy as np
import pytest

INPLACE = [lambda x: x.add_(2), lambda x: x.transpose_(0, 1)]


@pytest.mark.parametrize("fn", INPLACE)
@pytest.mark.parametrize("requires_grad", [True, False])
def test_inplace_in_inference_mode_keeps_requires_grad_of_a_normal_tensor(fn, requires_grad):
    a = torch.ones(1, 2, 3, requires_grad=requires_grad).clone()
    with torch.inference_mode():
        fn(a)
        fn(a)
        assert not torch.is_inference(a) and a.requires_grad == requires_grad
        v = a.view(-1)
        assert not torch.is_inference(v) and v.requires_grad == requires_grad


@pytest.mark.parametrize("requires_grad", [True, False])
def test_a_view_made_in_inference_mode_keeps_requires_grad_and_is_a_leaf(requires_grad):
    a = torch.ones(1, 2, 3, requires_grad=requires_grad).clone()
    with torch.inference_mode():
        out = a.view(-1)
        tmp = out.view(-1)
        for t in (out, tmp):
            assert not torch.is_inference(t) and t._is_view() and t.is_leaf
            assert t.requires_grad == requires_grad
        tmp.add_(2)  # allowed inside inference mode; the memory's version counts it
        assert tmp.requires_grad == requires_grad
        assert a._version == tmp._version == 1
    np.testing.assert_array_equal(a.detach().numpy(), np.full((1, 2, 3), 3.0))
    # used in normal mode: a result that requires grad when the view does
    y = out * out
    assert not torch.is_inference(y) and y.requires_grad == requires_grad


@pytest.mark.parametrize("fn", INPLACE)
def test_writing_through_a_view_made_in_inference_mode_is_refused(fn):
    a = torch.ones(1, 2, 3, requires_grad=True).clone()
    with torch.inference_mode():
        v = a.view_as(a)
    with pytest.raises(RuntimeError, match="A view was created in inference mode and is being"):
        fn(v)
    np.testing.assert_array_equal(v.detach().numpy(), np.ones((1, 2, 3)))
    b = torch.ones(1, 2, 3).clone()  # its base does not require grad: allowed
    with torch.inference_mode():
        w = b.view_as(b)
    fn(w)
    with torch.no_grad():  # the no_grad rule is the other one, unchanged
        u = a.view_as(a)
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        u.add_(1)


@pytest.mark.parametrize("fn", INPLACE)
def test_the_history_of_such_a_view_after_its_base_changed_is_refused(fn):
    a = torch.ones(1, 2, 3, requires_grad=True).clone()
    with torch.inference_mode():
        v = a.view(-1)
    assert v.grad_fn is None
    fn(a)
    msg = "A view was created in inference mode and its base or another view"
    with pytest.raises(RuntimeError, match=msg):
        _ = v.grad_fn
    with pytest.raises(RuntimeError, match=msg):
        _ = v.is_leaf
    b = torch.ones(1, 2, 3).clone()
    with torch.inference_mode():
        w = b.view(-1)
    fn(b)
    assert w.grad_fn is None


def test_transpose_in_place_counts_as_an_in_place_write():
    # PyTorch: a value saved before `transpose_` is stale
    x = torch.ones(2, 3, requires_grad=True)
    b = x * 2
    y = b * b
    b.transpose_(0, 1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    c = x * 2
    v0 = c._version
    c.transpose_(0, 1)
    # its history is the transpose's node, not one regenerated from the memory
    want = type((x * 2).transpose(0, 1).grad_fn).__name__
    assert c._version == v0 + 1 and type(c.grad_fn).__name__ == want
    (c * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 6.0))


@pytest.mark.parametrize("requires_grad", [True, False])
def test_a_view_of_an_inference_tensor_is_not_a_view(requires_grad):
    with torch.inference_mode():
        c = torch.ones(1, 2, 3, requires_grad=requires_grad)
        inside = c.view(-1)
    out = c.view(-1)
    for t in (out, inside):
        assert torch.is_inference(t) and not t.requires_grad
        assert not t._is_view() and t._base is None and t.is_leaf


def test_a_leaf_inference_tensor_that_requires_grad_gets_a_gradient():
    s = torch.ones(1, 2, 3, requires_grad=True)
    with torch.inference_mode():
        c = torch.ones(1, 2, 3, requires_grad=True)
    out = c.add(s)  # add saves nothing
    assert not torch.is_inference(out) and out.requires_grad
    out.backward(torch.ones_like(out))
    np.testing.assert_array_equal(c.grad.numpy(), np.ones((1, 2, 3)))
    np.testing.assert_array_equal(s.grad.numpy(), np.ones((1, 2, 3)))
    (g,) = torch.autograd.grad((c * 2.0).sum(), c)  # a number is not an inference tensor
    np.testing.assert_array_equal(g.numpy(), np.full((1, 2, 3), 2.0))
    # an op on inference tensors only records nothing (PyTorch)
    for r in (c * c, c.view(-1), c + c):
        assert not r.requires_grad and r.grad_fn is None and r.is_leaf


@pytest.mark.parametrize("c_requires_grad", [True, False])
def test_an_inference_tensor_cannot_be_saved_for_backward(c_requires_grad):
    s = torch.ones(1, 2, 3, requires_grad=True)
    with torch.inference_mode():
        c = torch.full([1, 2, 3], 2.0, requires_grad=c_requires_grad)
    msg = "Inference tensors cannot be saved for backward"
    with pytest.raises(RuntimeError, match=msg):
        c * s
    with pytest.raises(RuntimeError, match=msg):
        s.exp() * c
    a = s.clone()
    with pytest.raises(RuntimeError, match=msg):
        a.mul_(c)
    np.testing.assert_array_equal(a.detach().numpy(), np.ones((1, 2, 3)))  # not written
    (s * c.clone()).sum().backward()  # a clone made outside is a normal tensor
    np.testing.assert_array_equal(s.grad.numpy(), np.full((1, 2, 3), 2.0))
    with torch.no_grad():
        assert (c * s).grad_fn is None  # nothing is saved when nothing is recorded
