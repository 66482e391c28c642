"""PyTorch's refusals of an in-place write that requires grad into a view whose base does
not require grad (upstream `test_inplace_not_requires_grad`): a view a custom `Function`
returned, and one of several views one op returned (`unbind`, `split`, `chunk`). The
refusal comes before the write (the memory is unchanged). Paddle code keeps Paddle
3.3.1's behaviour: its `unbind` pieces take such a write."""

from __future__ import annotations

import types

import ferrograd as torch
import numpy as np
import pytest

CUSTOM = "This view was created inside a custom Function"
MULTI = "This view is the output of a function that returns multiple views"


class ViewFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp.view_as(inp)

    @staticmethod
    def backward(ctx, grad):
        return grad


class Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        return inp

    @staticmethod
    def backward(ctx, grad):
        return grad


@pytest.mark.parametrize("write", ["iadd", "copy_"])
def test_a_custom_function_view_refuses_a_write_that_requires_grad(write):
    a = torch.rand(1, 2)
    before = a.numpy().copy()
    b = torch.rand(1, requires_grad=True)
    v = ViewFn.apply(a)
    with pytest.raises(RuntimeError, match=CUSTOM):
        if write == "iadd":
            v += b
        else:
            v.copy_(b)
    np.testing.assert_array_equal(a.numpy(), before)  # refused before the write


def test_a_view_of_a_custom_function_view_is_refused_too():
    a = torch.rand(2, 2)
    v = ViewFn.apply(a)[0]
    with pytest.raises(RuntimeError, match=CUSTOM):
        v.copy_(torch.rand(2, requires_grad=True))


def test_writes_into_a_custom_function_view_that_need_no_grad_still_work():
    a = torch.zeros(1, 2)
    v = ViewFn.apply(a)
    v += torch.ones(1)
    np.testing.assert_array_equal(a.numpy(), [[1.0, 1.0]])
    with torch.no_grad():
        v.copy_(torch.full([1], 3.0, requires_grad=True))
    np.testing.assert_array_equal(a.numpy(), [[3.0, 3.0]])


def test_an_input_returned_as_is_is_not_marked():
    a = torch.zeros(2)
    out = Identity.apply(a)
    assert out is a or out.data_ptr() == a.data_ptr()
    a += torch.ones(2, requires_grad=True)  # the input itself stays writable
    assert a.requires_grad


@pytest.mark.parametrize("op", ["unbind", "chunk"])
def test_one_of_several_views_refuses_a_write_that_requires_grad(op):
    # (`split` reaches the core through a Python wrapper that speaks no dialect, so its
    # pieces are not marked: such a write is taken, with the right gradient)
    a = torch.rand(2, 2)
    before = a.numpy().copy()
    pieces = {"unbind": a.unbind, "chunk": lambda: a.chunk(2)}[op]()
    b = torch.rand(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=MULTI):
        pieces[0].copy_(b.reshape(pieces[0].shape))
    np.testing.assert_array_equal(a.numpy(), before)


def test_a_plain_view_still_takes_a_write_that_requires_grad():
    a = torch.zeros(1, 2)
    b = torch.full([1], 2.0, requires_grad=True)
    a.select(1, 0).copy_(b)
    a.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [1.0])
    np.testing.assert_array_equal(a.detach().numpy(), [[2.0, 0.0]])


def test_unbind_pieces_under_no_grad_or_needing_no_grad_still_work():
    a = torch.zeros(2, 2)
    for row in a.unbind():
        row += torch.ones(2)  # no grad involved
    with torch.no_grad():
        a.unbind()[0].copy_(torch.full([2], 5.0, requires_grad=True))
    np.testing.assert_array_equal(a.numpy(), [[5.0, 5.0], [1.0, 1.0]])


def test_paddle_code_writes_into_an_unbind_piece():
    mod = types.ModuleType("paddle_user_code")
    src = (
        "import ferrograd as paddle\n"
        "def run():\n"
        "    a = paddle.zeros([1, 2])\n"
        "    b = paddle.ones([2])\n"
        "    b.stop_gradient = False\n"
        "    v = paddle.unbind(a)[0]\n"
        "    paddle.assign(b, v)\n"
        "    return a\n"
    )
    exec(compile(src, "paddle_user_code.py", "exec"), mod.__dict__)
    a = mod.run()
    np.testing.assert_array_equal(a.detach().numpy(), [[1.0, 1.0]])
