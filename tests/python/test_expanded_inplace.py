"""In-place writes into a view whose elements share memory (an ``expand``: a stride-0
dimension of size above 1). PyTorch's rule, in both dialects: a write of several values is
refused ("more than one element of the written-to tensor refers to a single memory
location"), since which value the shared element keeps would depend on the order of the
writes; a write of one value (``fill_``, ``zero_``, ``x[i] = number``, ``masked_fill_``,
``index_fill_``, ``index_put_`` of one value) gives every element sharing memory that
value. A refused write leaves the tensor unchanged. Until session 36 such writes kept the
last of the overlapping values, so ``scatter_`` lost its write and ``add_`` of a vector
silently gave one of its sums."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

torch = fg


def expanded(dtype=None):
    return torch.zeros(1, dtype=dtype).expand(3)


REFUSED = {
    "add_": lambda v: v.add_(torch.tensor([1.0, 2.0, 3.0])),
    "add_ scalar": lambda v: v.add_(1),
    "mul_": lambda v: v.mul_(2),
    "exp_": lambda v: v.exp_(),
    "clamp_": lambda v: v.clamp_(min=1),
    "copy_": lambda v: v.copy_(torch.arange(3.0)),
    "copy_ of one value": lambda v: v.copy_(torch.tensor(2.0)),
    "setitem of several values": lambda v: v.__setitem__(slice(None), torch.arange(3.0)),
    "scatter_": lambda v: v.scatter_(0, torch.tensor([1]), torch.tensor([5.0])),
    "scatter_add_": lambda v: v.scatter_add_(0, torch.tensor([1]), torch.tensor([5.0])),
    "index_add_": lambda v: v.index_add_(0, torch.tensor([1]), torch.tensor([5.0])),
    "index_copy_": lambda v: v.index_copy_(0, torch.tensor([1]), torch.tensor([5.0])),
    "index_put_ of several values": lambda v: v.index_put_(
        (torch.tensor([1, 2]),), torch.tensor([5.0, 6.0])
    ),
    "masked_scatter_": lambda v: v.masked_scatter_(
        torch.tensor([False, True, False]), torch.tensor([5.0])
    ),
    "uniform_": lambda v: v.uniform_(),
    "normal_": lambda v: v.normal_(),
    "relu_": lambda v: v.relu_(),
    "out=": lambda v: torch.add(torch.ones(3), 1, out=v),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_writes_of_several_values_are_refused_and_change_nothing(name):
    v = expanded()
    with pytest.raises(RuntimeError, match="single memory location.*clone"):
        REFUSED[name](v)
    assert v.tolist() == [0.0, 0.0, 0.0]


def test_the_message_names_the_op():
    with pytest.raises(RuntimeError, match=r"^scatter_: unsupported operation"):
        expanded().scatter_(0, torch.tensor([1]), torch.tensor([5.0]))
    with pytest.raises(RuntimeError, match=r"^add_: .*dimension 0 of shape \[3\] has stride 0"):
        expanded().add_(1)


FILLS = {
    "fill_": lambda v: v.fill_(5.0),
    "setitem of a number": lambda v: v.__setitem__(1, 5.0),
    "setitem of one value": lambda v: v.__setitem__(slice(None), torch.tensor(5.0)),
    "setitem by a mask": lambda v: v.__setitem__(torch.tensor([False, True, False]), 5.0),
    "masked_fill_": lambda v: v.masked_fill_(torch.tensor([False, True, False]), 5.0),
    "index_fill_": lambda v: v.index_fill_(0, torch.tensor([1]), 5.0),
    "index_put_ of one value": lambda v: v.index_put_((torch.tensor([1]),), torch.tensor(5.0)),
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_writes_of_one_value_fill_the_shared_memory(name):
    base = torch.zeros(1)
    v = base.expand(3)
    FILLS[name](v)
    assert v.tolist() == [5.0, 5.0, 5.0]
    assert base.tolist() == [5.0]


def test_a_fill_that_selects_nothing_changes_nothing():
    v = expanded()
    v.masked_fill_(torch.tensor([False, False, False]), 5.0)
    assert v.tolist() == [0.0, 0.0, 0.0]


def test_fills_keep_nan_signed_zero_and_complex_values():
    v = expanded()
    v.masked_fill_(torch.tensor([False, True, False]), float("nan"))
    assert np.isnan(v.numpy()).all()
    v = torch.ones(1).expand(3)
    v.index_fill_(0, torch.tensor([2]), -0.0)
    assert np.signbit(v.numpy()).all()
    c = torch.zeros(1, dtype=torch.complex64).expand(3)
    c.fill_(1 + 2j)
    assert c.tolist() == [1 + 2j] * 3
    c.masked_fill_(torch.tensor([True, False, False]), 3j)
    assert c.tolist() == [3j] * 3


def test_zero_fills_a_batch_of_expanded_rows():
    base = torch.ones(2, 1, 4)
    base.expand(2, 5, 4).zero_()
    assert base.sum().item() == 0.0


def test_a_region_without_shared_elements_takes_several_values():
    # the column written has one element per memory position: no overlap there
    w = torch.zeros(3, 1).expand(3, 4)
    w[:, 0] = torch.tensor([1.0, 2.0, 3.0])
    assert w.tolist() == [[1.0] * 4, [2.0] * 4, [3.0] * 4]


def test_size_one_and_empty_broadcast_dims_are_not_overlaps():
    v = torch.zeros(3, 1).expand(3, 1)  # stride 0 is not forced on a size-1 dim
    v.add_(torch.tensor([[1.0], [2.0], [3.0]]))
    assert v.tolist() == [[1.0], [2.0], [3.0]]
    e = torch.zeros(1, 0).expand(3, 0)
    e.add_(1)
    assert e.shape == (3, 0)


def test_paddle_dialect_follows_the_same_rule():
    import ferrograd as paddle

    x = paddle.zeros([1])
    e = paddle.expand(x, [3])
    with pytest.raises(RuntimeError, match="single memory location"):
        paddle.assign(paddle.to_tensor([1.0, 2.0, 3.0]), output=e)
    e.fill_(4.0)
    assert x.tolist() == [4.0]


def test_clone_first_is_the_fix_the_message_names():
    v = expanded().clone()
    v.add_(torch.tensor([1.0, 2.0, 3.0]))
    assert v.tolist() == [1.0, 2.0, 3.0]
