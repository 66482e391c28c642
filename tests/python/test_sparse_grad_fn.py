"""The ``grad_fn`` of sparse arithmetic results: PyTorch's node names
(``MulBackward0``, ``DivBackward0``, ``AddBackward0``, ``SubBackward0``,
``NegBackward0``), the saved operands by name (``_saved_self`` / ``_saved_other`` come
back sparse, through the saved-tensor hooks), and gradients of those ops against NumPy
in float64 with gradcheck / gradgradcheck."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.autograd.graph import save_on_cpu, saved_tensors_hooks

IDX = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 3]])  # (0, 2) twice: uncoalesced
VAL = np.array([1.0, 2.0, 3.0, 4.0, -5.0])
SHAPE = (3, 4)


def dense_of(idx, val, shape=SHAPE):
    out = np.zeros(shape)
    np.add.at(out, tuple(idx), val)
    return out


def leaf(values=VAL, idx=IDX):
    return fg.sparse_coo_tensor(idx, fg.tensor(values), SHAPE, requires_grad=True)


@pytest.mark.parametrize("pin_memory", [True, False])
def test_duplicate_entries_squared_under_save_on_cpu(pin_memory):
    # a 1-D tensor storing position 1 twice (1 + 1), squared under save_on_cpu
    a = fg.sparse_coo_tensor(
        fg.tensor([[1, 1]]), fg.tensor([1.0, 1.0], dtype=fg.float64), requires_grad=True
    )
    with save_on_cpu(pin_memory):
        y = a * a
        node = y.grad_fn
        assert type(node).__name__ == "MulBackward0" and node.name() == "MulBackward0"
        for saved in (node._saved_self, node._saved_other):
            assert saved.layout == fg.sparse_coo and saved.dtype == fg.float64
            assert saved is not a  # packed into NumPy and read back: a copy
            np.testing.assert_array_equal(saved.to_dense().numpy(), [0.0, 2.0])
        assert y.is_sparse
        y.to_dense().sum().backward()
    np.testing.assert_array_equal(y.to_dense().detach().numpy(), [0.0, 4.0])
    # d/da of sum(a_dense ** 2) = 2 a_dense at the stored position
    np.testing.assert_array_equal(a.grad.coalesce().to_dense().numpy(), [0.0, 4.0])
    np.testing.assert_array_equal((2 * a).coalesce().to_dense().detach().numpy(), [0.0, 4.0])


def test_saved_operands_are_the_callers_objects_without_hooks():
    a, b = leaf(), leaf(VAL * 2)
    y = a * b
    assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
    d = fg.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    z = d * a  # dense first: PyTorch's self is the dense operand, the result sparse
    assert z.is_sparse and z.grad_fn._saved_self is d and z.grad_fn._saved_other is a
    w = a * 3
    assert w.grad_fn._saved_self is a
    assert w.grad_fn._saved_other.ndim == 0 and w.grad_fn._saved_other.item() == 3


def test_each_part_goes_through_the_pack_hook_once():
    packed = []

    def pack(t):
        packed.append(list(t.shape))
        return t.numpy().copy(), t.dtype

    def unpack(p):
        return fg.tensor(p[0], dtype=p[1])

    a, b = leaf(), leaf(VAL * 2)
    with saved_tensors_hooks(pack, unpack):
        y = fg.sparse.multiply(a, b)
    # the sparse composition saves its own dense tensors; the node adds both operands'
    # indices [2, 5] and values [5]
    assert packed.count([2, 5]) >= 2 and packed.count([5]) >= 2
    before = len(packed)
    saved = y.grad_fn._saved_other
    assert len(packed) == before  # reading unpacks, never packs
    np.testing.assert_array_equal(saved.to_dense().numpy(), dense_of(IDX, VAL * 2))


def test_no_node_when_nothing_is_recorded():
    calls = []
    with saved_tensors_hooks(lambda t: calls.append(1) or t, lambda t: t):
        c = fg.sparse_coo_tensor(IDX, fg.tensor(VAL), SHAPE)
        assert (c * c).grad_fn is None  # no operand requires grad
        with fg.no_grad():
            assert (leaf() * 2).grad_fn is None
    assert calls == []


def test_node_names_and_alpha():
    a, b = leaf(), leaf(VAL * 2)
    assert type((a + b).grad_fn).__name__ == "AddBackward0"
    assert a.add(b, alpha=2).grad_fn._saved_alpha == 2
    assert type((a - b).grad_fn).__name__ == "SubBackward0"
    assert type((-a).grad_fn).__name__ == "NegBackward0"
    q = fg.sparse.divide(a.coalesce(), b.coalesce())
    assert type(q.grad_fn).__name__ == "DivBackward0"
    assert q.grad_fn._saved_self.layout == fg.sparse_coo
    with pytest.raises(AttributeError, match="_saved_result"):
        _ = q.grad_fn._saved_result
    # every other attribute is the values' node
    y = a * b
    assert y.grad_fn.next_functions == y.values().grad_fn.next_functions


def test_saved_operands_are_freed_and_version_checked():
    a = leaf()
    y = a * a
    y.to_dense().sum().backward()
    with pytest.raises(RuntimeError, match="freed"):
        _ = y.grad_fn._saved_self
    b = leaf() * 2  # a non-leaf operand, changed in place after being saved
    z = b * b
    b.values().mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _ = z.grad_fn._saved_self


def test_compressed_operands_come_back_compressed():
    a = fg.tensor(dense_of(IDX, VAL)).to_sparse_csr().requires_grad_()
    with save_on_cpu():
        y = a * a
    saved = y.grad_fn._saved_self
    assert saved.layout == fg.sparse_csr and y.layout == fg.sparse_csr
    np.testing.assert_array_equal(saved.to_dense().numpy(), dense_of(IDX, VAL))
    y.to_dense().sum().backward()
    expected = 2 * dense_of(IDX, VAL)
    np.testing.assert_array_equal(a.grad.to_dense().numpy(), expected)


OTHER_IDX = np.array([[0, 2, 1, 2], [2, 3, 1, 0]])  # overlaps IDX at (0, 2) and (2, 3)
OTHER_VAL = np.array([0.5, 1.5, -2.0, 3.0])


def _sp(idx, v):
    return fg.sparse_coo_tensor(idx, v, SHAPE)


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a * b,
        lambda a, b: fg.sparse.multiply(a, 2.5),
        lambda a, b: a * fg.tensor(np.arange(4.0) + 1),
        lambda a, b: fg.sparse.add(a, b, alpha=-1.5),
        lambda a, b: a - b,
        lambda a, b: -a,
        lambda a, b: a / 4.0,
    ],
)
def test_gradcheck(op):
    va = fg.tensor(VAL, requires_grad=True)
    vb = fg.tensor(OTHER_VAL, requires_grad=True)

    def f(x, y):
        return op(_sp(IDX, x), _sp(OTHER_IDX, y)).to_dense()

    assert gradcheck(f, (va, vb))
    assert gradgradcheck(f, (va, vb))


def test_values_and_gradient_of_mul_against_numpy():
    va = fg.tensor(VAL, requires_grad=True)
    vb = fg.tensor(OTHER_VAL, requires_grad=True)
    y = (_sp(IDX, va) * _sp(OTHER_IDX, vb)).to_dense()
    da, db = dense_of(IDX, VAL), dense_of(OTHER_IDX, OTHER_VAL)
    np.testing.assert_allclose(y.detach().numpy(), da * db)
    y.sum().backward()
    # each stored copy of a position gets d/dx of that position
    np.testing.assert_allclose(va.grad.numpy(), db[tuple(IDX)])
    np.testing.assert_allclose(vb.grad.numpy(), da[tuple(OTHER_IDX)])


def test_divide_same_pattern_gradcheck():
    ia = np.array([[0, 1, 2], [1, 3, 0]])
    va = fg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    vb = fg.tensor([2.0, 4.0, -0.5], requires_grad=True)

    def f(x, y):
        return fg.sparse.divide(_sp(ia, x), _sp(ia, y)).to_dense()

    assert gradcheck(f, (va, vb))
    assert gradgradcheck(f, (va, vb))
