"""Session 41: PyTorch's own docstring examples (torch 2.11.0, git 70d99e998b49) run on
ferrograd. Each test holds the example's call and the output PyTorch's docstring prints
(file and function cited); see docs/user-scripts.md, "Session 41"."""

import warnings

import ferrograd as torch
import numpy as np
import pytest


def test_linspace_steps_keyword_regression():
    # torch/_torch_docs.py, add_docstr(torch.linspace): `torch.linspace(3, 10, steps=5)`
    # -> tensor([ 3.0000,  4.7500,  6.5000,  8.2500, 10.0000]); also
    # `torch.linspace(start=-10, end=10, steps=5)` -> tensor([-10., -5., 0., 5., 10.])
    assert torch.linspace(3, 10, steps=5).tolist() == [3.0, 4.75, 6.5, 8.25, 10.0]
    t = torch.linspace(start=-10, end=10, steps=5)
    assert t.tolist() == [-10.0, -5.0, 0.0, 5.0, 10.0] and t.dtype == torch.float32
    assert torch.linspace(start=-10, end=10, steps=1).tolist() == [-10.0]
    # Paddle's spelling is unchanged
    assert torch.linspace(0, 1, num=3).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(TypeError, match="once"):
        torch.linspace(0, 1, steps=3, num=3)


def test_range_end_included_regression():
    # torch/_torch_docs.py, add_docstr(torch.range): `torch.range(1, 4)` ->
    # tensor([ 1.,  2.,  3.,  4.]); `torch.range(1, 4, 0.5)` -> 7 values 1.0 ... 4.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = torch.range(1, 4)
        b = torch.range(1, 4, 0.5)
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0] and a.dtype == torch.float32
    assert b.tolist() == [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
    with pytest.warns(UserWarning, match="deprecated"):
        torch.range(0, 2)


def test_conj_physical_regression():
    # torch/_torch_docs.py, add_docstr(torch.conj_physical):
    # torch.conj_physical(torch.tensor([-1 + 1j, -2 + 2j, 3 - 3j])) -> [-1-1j, -2-2j, 3+3j]
    z = torch.conj_physical(torch.tensor([-1 + 1j, -2 + 2j, 3 - 3j]))
    assert z.tolist() == [-1 - 1j, -2 - 2j, 3 + 3j] and z.dtype == torch.complex64
    r = torch.tensor([1.0, -2.0])
    assert torch.conj_physical(r).tolist() == [1.0, -2.0]


def test_masked_scatter_broadcasts_self_regression():
    # torch/_tensor_docs.py, add_docstr_all("masked_scatter"): a [5] tensor, a [2, 5] mask
    # -> tensor([[0, 0, 0, 0, 1], [2, 3, 0, 4, 5]]) (out of place, self and mask broadcast:
    # aten masked_scatter uses expand_outplace). Before: numpy's "input operand has more
    # dimensions than allowed by the axis remapping".
    self_ = torch.tensor([0, 0, 0, 0, 0])
    mask = torch.tensor([[0, 0, 0, 1, 1], [1, 1, 0, 1, 1]], dtype=torch.bool)
    source = torch.tensor([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    want = [[0, 0, 0, 0, 1], [2, 3, 0, 4, 5]]
    assert self_.masked_scatter(mask, source).tolist() == want
    assert torch.masked_scatter(self_, mask, source).tolist() == want
    # the gradient reaches the broadcast tensor: each kept position once per row
    x = torch.zeros(5, requires_grad=True)
    x.masked_scatter(mask, source.float()).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 2.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="does not broadcast"):
        self_.masked_scatter(torch.ones(3, dtype=torch.bool), source)
    with pytest.raises(ValueError):
        self_.masked_scatter_(mask, source)  # the in-place result keeps self's shape


def test_full_size_keyword_regression():
    # torch/nn/modules/loss.py, CTCLoss example:
    # `torch.full(size=(N,), fill_value=T, dtype=torch.long)`
    t = torch.full(size=(16,), fill_value=50, dtype=torch.long)
    assert t.tolist() == [50] * 16 and t.dtype == torch.int64
