"""split / unbind / chunk record ONE backward node with several outputs, as both peers
do (PyTorch ``SplitBackward0`` / ``UnbindBackward0``, Paddle one split node): every piece
is a view and output ``i`` of that node, backward runs once, an unused piece contributes
zeros, Paddle's ``retain_grads()`` on an unused piece gets zeros."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def _x(*shape):
    n = int(np.prod(shape))
    return fg.tensor(np.arange(1.0, n + 1).reshape(shape), dtype=fg.float64, requires_grad=True)


@pytest.mark.parametrize(
    "cut",
    [
        lambda x: x.split(2, 1),
        lambda x: x.split([1, 3], 1),
        lambda x: fg.split(x, 2, axis=1),  # Paddle: 2 sections
        lambda x: x.chunk(3, 1),
        lambda x: x.unbind(1),
        lambda x: fg.unstack(x, axis=1),
    ],
)
def test_all_pieces_share_one_node(cut):
    x = _x(3, 4)
    pieces = cut(x)
    assert len(pieces) >= 2
    nodes = {p.grad_fn for p in pieces}
    assert len(nodes) == 1
    # the pieces are views of x
    before = x.detach().numpy().copy()
    with fg.no_grad():
        pieces[0].mul_(0.0)
    assert not np.array_equal(x.detach().numpy(), before)


def test_node_names_follow_pytorch():
    x = _x(4)
    assert type(x.split(2)[0].grad_fn).__name__ == "SplitBackward0"
    assert type(x.chunk(2)[0].grad_fn).__name__ == "SplitBackward0"
    assert type(x.split([1, 3])[0].grad_fn).__name__ == "SplitWithSizesBackward0"
    assert type(x.unbind()[0].grad_fn).__name__ == "UnbindBackward0"


def test_unused_piece_contributes_zeros():
    x = _x(2, 3)
    a, b = x.split([1, 1], 0)
    (b * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0, 0.0], [3.0, 3.0, 3.0]])


def test_backward_runs_once_for_all_pieces():
    x = _x(6)
    parts = x.chunk(3)
    loss = parts[0].sum() + (parts[1] * 2.0).sum() + (parts[2] * 3.0).sum()
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 2, 2, 3, 3])


def test_retain_grads_on_unused_piece_is_zeros_retain_grad_none():
    # Paddle test_auto_prune3/5: the split node runs, the unused piece's retained grad is 0
    x = _x(2, 4)
    a, b = fg.split(x, 2, axis=1)
    b.retain_grads()
    a.sum().backward()
    np.testing.assert_array_equal(b.gradient(), np.zeros((2, 2)))
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 1, 0, 0], [1, 1, 0, 0]])

    x = _x(2, 4)
    a, b = x.split(2, 1)
    b.retain_grad()  # PyTorch: no gradient for that output, .grad stays None
    a.sum().backward()
    assert b.grad is None


def test_no_gradient_at_all_leaves_grad_none():
    x = _x(4)
    a, b = x.split(2)
    # a graph through the split node but into a piece that is then cut by detach
    (a.detach() * 2.0 + b * 0.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "cut",
    [
        lambda x: x.split([1, 2], 1),
        lambda x: x.unbind(0),
        lambda x: x.chunk(2, 1),
    ],
)
def test_gradcheck_and_gradgradcheck(cut):
    x = fg.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)

    def f(t):
        ps = cut(t)
        return sum(((i + 1.0) * p * p).sum() for i, p in enumerate(ps[:-1]))

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_inplace_on_a_piece_is_refused_with_grad_and_bumps_version():
    x = _x(4).clone()
    a, b = x.split(2)
    with pytest.raises(RuntimeError, match="several views a single function returned"):
        a.mul_(2.0)
    y = _x(4)
    c = y * 1.0
    p, q = c.split(2)
    p.sum().backward(retain_graph=True)
    with fg.no_grad():
        q.add_(1.0)  # q shares c's memory: c's version moves with it
    np.testing.assert_array_equal(c.detach().numpy(), [1.0, 2.0, 4.0, 5.0])


def test_no_history_without_grad():
    x = fg.tensor([1.0, 2.0, 3.0, 4.0])
    assert all(p.grad_fn is None for p in x.split(2))
    with fg.no_grad():
        y = _x(4)
        assert all(p.grad_fn is None and not p.requires_grad for p in y.unbind())


def test_empty_and_zero_sized_pieces():
    assert len(fg.zeros([0, 3], requires_grad=True).unbind(0)) == 0
    x = fg.zeros([4, 2], requires_grad=True)
    pieces = x.split([0, 4], 0)
    pieces[1].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((4, 2)))


def test_output_nr_names_each_piece_slot():
    x = _x(3, 4)
    assert x.output_nr == 0  # a leaf
    pieces = x.unbind(1)
    assert [p.output_nr for p in pieces] == [0, 1, 2, 3]
    assert (pieces[2] * 2).output_nr == 0
