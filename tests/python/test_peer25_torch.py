"""PyTorch behaviour that the session-25 peer tests (``docs/peer-tests.md``) found
missing or different, checked in PyTorch code (every outcome checked on PyTorch 2.x):
the pieces of ``split`` are one op's several views, as those of ``unbind`` / ``chunk``
are (a write that requires grad into a piece of a tensor that needs none is refused);
and ``gradcheck`` takes PyTorch's forward-mode switches (refused until session 40, which
added forward-mode AD; they now run their checks)."""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest

SPLITS = {
    "method_int": lambda t: t.split(2),
    "method_list": lambda t: t.split([1, 3]),
    "method_dim": lambda t: t.split(2, dim=0),
    "function_int": lambda t: torch.split(t, 2),
    "function_list": lambda t: torch.split(t, [1, 3], dim=0),
    "function_keyword": lambda t: torch.split(t, split_size_or_sections=[3, 1]),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_pieces_refuse_a_grad_requiring_write_like_unbind(name):
    a = torch.zeros(4, 3, dtype=torch.float64)
    pieces = SPLITS[name](a)
    w = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="returns multiple views"):
        pieces[0].add_(w)
    assert not a.requires_grad
    np.testing.assert_array_equal(a.numpy(), np.zeros((4, 3)))


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_pieces_take_writes_that_need_no_grad(name):
    a = torch.zeros(4, 3, dtype=torch.float64)
    pieces = SPLITS[name](a)
    pieces[0].add_(torch.ones(3, dtype=torch.float64))  # no grad needed: a plain write
    w = torch.ones(3, dtype=torch.float64, requires_grad=True)
    with torch.no_grad():
        pieces[-1].add_(w)  # grad mode off: the write is not recorded
    want = np.zeros((4, 3))
    want[: pieces[0].shape[0]] += 1.0
    want[4 - pieces[-1].shape[0] :] += 1.0
    np.testing.assert_array_equal(a.numpy(), want)
    assert not a.requires_grad


def test_split_pieces_of_a_tensor_that_requires_grad_keep_their_rule():
    base = torch.ones(4, 3, dtype=torch.float64, requires_grad=True).clone()
    with pytest.raises(RuntimeError, match="returns multiple views"):
        base.split(2)[0].mul_(2)
    x = torch.arange(12.0, dtype=torch.float64).reshape(4, 3).requires_grad_()
    first, second = torch.split(x, [1, 3])
    (first.sum() * 2 + (second**2).sum()).backward()
    want = np.vstack([np.full((1, 3), 2.0), 2 * np.arange(3.0, 12.0).reshape(3, 3)])
    np.testing.assert_allclose(x.grad.numpy(), want)


def _cat(a, b):
    return torch.cat((a, b), dim=-1)


def test_gradcheck_takes_the_forward_mode_switches_off():
    r = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    c = torch.rand(3, 2, dtype=torch.complex128, requires_grad=True)
    assert torch.autograd.gradcheck(
        _cat, (r, c), check_forward_ad=False, check_batched_forward_grad=False
    )
    assert torch.autograd.gradgradcheck(lambda x: x**3, (r,), check_fwd_over_rev=False)


def test_gradcheck_runs_the_forward_mode_checks():
    # since session 40 ferrograd has forward-mode AD (autograd.forward_ad): the switches
    # run their checks (tests/python/test_forward_ad.py); check_batched_forward_grad alone
    # is PyTorch's AssertionError (torch/autograd/gradcheck.py, gradcheck)
    r = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: x * 2, (r,), check_forward_ad=True)
    with pytest.raises(AssertionError, match="requires check_forward_ad to be True"):
        torch.autograd.gradcheck(lambda x: x * 2, (r,), check_batched_forward_grad=True)


def test_gradgradcheck_runs_a_forward_over_reverse_check():
    r = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda x: x**3, (r,), check_fwd_over_rev=True)
