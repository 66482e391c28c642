"""PyTorch's in-place rule for a view of a view made under ``no_grad`` or inference mode
(the session-24 peer test ``test_autograd_inplace_view_of_view``, checked on PyTorch
2.x): the view made there is recorded as such whether or not its base requires grad, its
views inherit the record, and an in-place write with grad mode on to such a view of a
view that requires grad is refused."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        (torch.no_grad, "view of a view which was created in no_grad mode.*inside the no_grad"),
        (
            torch.inference_mode,
            "view of a view which was created in inference mode.*inside the inference_mode",
        ),
    ],
)
def test_inplace_on_view_of_a_view_made_in_no_grad_is_refused(mode, words):
    x = torch.zeros(2)
    with mode():
        y = x.view(2)
    y.requires_grad_(True)
    z = y.view(2)
    assert z.requires_grad and z.grad_fn is not None
    with pytest.raises(RuntimeError, match=words):
        z /= 2
    assert x.tolist() == [0.0, 0.0]


def test_views_of_such_views_that_need_no_grad_are_still_written():
    # no tensor requires grad: nothing to refuse (as PyTorch)
    x = torch.ones(2)
    with torch.no_grad():
        y = x.view(2)
    z = y.view(2)
    z /= 2
    np.testing.assert_allclose(x.numpy(), [0.5, 0.5])
    # both made and written under no_grad: allowed
    w = torch.ones(2)
    with torch.no_grad():
        v = w.view(2)
    v.requires_grad_(True)
    u = v.view(2)
    with torch.no_grad():
        u *= 3
    np.testing.assert_allclose(w.numpy(), [3.0, 3.0])
    # a view of a view made with grad mode on is written, and its gradient is right
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    c = b.view(2).view(2)
    c *= torch.tensor([3.0, 4.0])
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])


def test_inplace_on_one_of_several_views_gives_pytorchs_words():
    a = torch.ones(2, 2, requires_grad=True).clone()
    first, _ = a.unbind(0)
    with pytest.raises(RuntimeError, match="Output 0 of Unbind is a view .* multiple views"):
        first.mul_(2)

    class Func(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            inp.add_(1)
            ctx.mark_dirty(inp)
            return inp

        @staticmethod
        def backward(ctx, g):
            return g

    b, _ = torch.tensor([1.0, 2.0], requires_grad=True).split_with_sizes([1, 1], dim=0)
    with pytest.raises(RuntimeError, match="output of a function that returns multiple view"):
        Func.apply(b)


def _dirty_layer(body):
    class Func(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return body(ctx, inp)

        @staticmethod
        def backward(ctx, g):
            return g

    return Func


def test_mark_dirty_of_a_returned_view_of_an_intermediate_is_refused():
    def view_of_intermediate(ctx, inp):
        out = inp.clone().view_as(inp)
        ctx.mark_dirty(out)
        return out

    a = torch.tensor([1.0], requires_grad=True).clone()
    with pytest.raises(RuntimeError, match="received a tensor that was not an input"):
        _dirty_layer(view_of_intermediate).apply(a)

    # a returned non-view intermediate is only warned about (as PyTorch)
    def intermediate(ctx, inp):
        out = inp.clone()
        ctx.mark_dirty(out)
        return out

    with pytest.warns(UserWarning, match="received a tensor that was not an input"):
        out = _dirty_layer(intermediate).apply(a)
    out.sum().backward()
