"""Matrix products and shape ops against NumPy: matmul/dot/outer, transposes, reshape/view/
flatten/squeeze, expand, clone/contiguous/detach (``test_cast_inplace.py``: dtype
conversion and in-place ops)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import check_grad
from linalg_shape_support import RNG, f64, randn

# ---------------------------------------------------------------------------------------
# matmul, dot, outer
# ---------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 2)),
    ((3, 4), (4, 2)),
    ((1, 1), (1, 1)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4,)),
]


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
def test_matmul_values(sa, sb):
    a, b = randn(*sa), randn(*sb)
    expected = a @ b
    for out in (
        f64(a) @ f64(b),
        f64(a).matmul(f64(b)),
        fg.matmul(f64(a), f64(b)),
    ):
        assert out.dtype == fg.float64
        assert out.shape == np.shape(expected)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
def test_matmul_grads(sa, sb):
    check_grad(lambda x, y: x @ y, randn(*sa), randn(*sb), second_order=True)


def test_matmul_float32_accuracy_on_larger_matrices():
    a = RNG.standard_normal((64, 300)).astype(np.float32)
    b = RNG.standard_normal((300, 48)).astype(np.float32)
    out = (fg.tensor(a) @ fg.tensor(b)).numpy()
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, a.astype(np.float64) @ b.astype(np.float64), atol=2e-4)


def test_matmul_transpose_flags_and_aliases():
    a, b = randn(3, 4), randn(5, 4)
    np.testing.assert_allclose(f64(a).matmul(f64(b), transpose_y=True).numpy(), a @ b.T, rtol=1e-12)
    np.testing.assert_allclose(f64(a).matmul(f64(a), transpose_x=True).numpy(), a.T @ a, rtol=1e-12)
    np.testing.assert_allclose(fg.mm(f64(a), f64(b.T)).numpy(), a @ b.T, rtol=1e-12)
    c, d = randn(2, 3, 4), randn(2, 4, 5)
    np.testing.assert_allclose(fg.bmm(f64(c), f64(d)).numpy(), c @ d, rtol=1e-12)
    check_grad(lambda x, y: x.matmul(y, transpose_y=True), a, b, second_order=True)


def test_matmul_dtypes_and_numpy_operands():
    i = fg.ones(2, 3, dtype="int64") @ fg.ones(3, 2, dtype="int64")
    assert i.dtype == fg.int64
    assert i.tolist() == [[3, 3], [3, 3]]
    assert (fg.ones(2, 3) @ fg.ones(3, 2, dtype="float64")).dtype == fg.float64
    out = np.ones((2, 3)) @ fg.ones(3, 2)
    assert isinstance(out, fg.Tensor)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 3.0))
    np.testing.assert_array_equal((fg.ones(2, 3) @ np.ones(3)).numpy(), [3.0, 3.0])


def test_matmul_zero_size():
    out = fg.zeros(2, 0) @ fg.zeros(0, 3)
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 3)))
    assert (fg.zeros(2, 3) @ fg.zeros(3, 0)).shape == (2, 0)
    assert (fg.zeros(0, 2, 3) @ fg.zeros(3, 4)).shape == (0, 2, 4)


def test_matmul_of_non_contiguous_operands():
    a, b = randn(4, 3), randn(5, 4)
    out = f64(a).t() @ f64(b).T
    np.testing.assert_allclose(out.numpy(), a.T @ b.T, rtol=1e-12)
    check_grad(lambda x, y: x.t() @ y.T, a, b, second_order=True)


def test_dot_and_outer():
    u, v = randn(5), randn(5)
    np.testing.assert_allclose(f64(u).dot(f64(v)).item(), u @ v, rtol=1e-12)
    np.testing.assert_allclose(fg.dot(f64(u), f64(v)).item(), u @ v, rtol=1e-12)
    assert f64(u).dot(f64(v)).shape == ()
    w = randn(3)
    np.testing.assert_allclose(f64(u).outer(f64(w)).numpy(), np.outer(u, w), rtol=1e-12)
    np.testing.assert_allclose(fg.outer(f64(u), f64(w)).numpy(), np.outer(u, w), rtol=1e-12)
    check_grad(lambda x, y: x.dot(y), u, v, second_order=True)
    check_grad(lambda x, y: x.outer(y), u, w, second_order=True)


def test_matmul_known_gradients():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64", requires_grad=True)
    w = fg.tensor([[0.5], [-1.0]], dtype="float64", requires_grad=True)
    gx, gw = fg.grad((x @ w).sum(), [x, w])
    np.testing.assert_array_equal(gx.numpy(), [[0.5, -1.0], [0.5, -1.0]])
    np.testing.assert_array_equal(gw.numpy(), [[4.0], [6.0]])


# ---------------------------------------------------------------------------------------
# transposes and permute
# ---------------------------------------------------------------------------------------


def test_transpose_forms():
    a = randn(2, 3, 4, 5)
    x = f64(a)
    np.testing.assert_array_equal(x.transpose([3, 0, 2, 1]).numpy(), a.transpose(3, 0, 2, 1))
    np.testing.assert_array_equal(x.transpose((1, 0, 2, 3)).numpy(), a.transpose(1, 0, 2, 3))
    np.testing.assert_array_equal(x.transpose(1, 3).numpy(), np.swapaxes(a, 1, 3))
    np.testing.assert_array_equal(x.transpose(-1, 0).numpy(), np.swapaxes(a, -1, 0))
    np.testing.assert_array_equal(fg.transpose(x, [0, 1, 3, 2]).numpy(), np.swapaxes(a, 2, 3))
    np.testing.assert_array_equal(x.T.numpy(), a.T)
    np.testing.assert_array_equal(x.mT.numpy(), np.swapaxes(a, -1, -2))
    np.testing.assert_array_equal(x.permute(3, 2, 1, 0).numpy(), a.transpose(3, 2, 1, 0))
    np.testing.assert_array_equal(x.permute([1, 0, 2, 3]).numpy(), a.transpose(1, 0, 2, 3))
    np.testing.assert_array_equal(fg.permute(x, [2, 0, 1, 3]).numpy(), a.transpose(2, 0, 1, 3))
    m = randn(2, 3)
    np.testing.assert_array_equal(f64(m).t().numpy(), m.T)
    np.testing.assert_array_equal(fg.t(f64(m)).numpy(), m.T)
    v = randn(3)
    np.testing.assert_array_equal(f64(v).t().numpy(), v)
    np.testing.assert_array_equal(f64(v).T.numpy(), v)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: t.transpose([2, 0, 1]),
        lambda t: t.transpose(0, 2),
        lambda t: t.T,
        lambda t: t.mT,
        lambda t: t.permute(1, 2, 0),
    ],
    ids=["paddle-perm", "torch-pair", "T", "mT", "permute"],
)
def test_transpose_grads(fn):
    a = randn(2, 3, 4)
    weights = f64(randn(*fn(f64(a)).shape))
    check_grad(lambda t: fn(t) * weights, a)


def test_transpose_is_a_view():
    b = fg.ones(2, 3)
    t = b.t()
    assert not t.is_contiguous()
    t.mul_(3.0)
    np.testing.assert_array_equal(b.numpy(), np.full((2, 3), 3.0))
    assert b._version == t._version == 1


# ---------------------------------------------------------------------------------------
# reshape / view / flatten / squeeze / unsqueeze
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "np_shape"),
    [
        ((-1, 4), (-1, 4)),
        (([6, -1],), (6, -1)),
        (((3, 8),), (3, 8)),
        ((24,), (24,)),
        ((2, 3, 2, 2), (2, 3, 2, 2)),
        ((-1,), (-1,)),
        ((1, -1, 1), (1, -1, 1)),
    ],
)
def test_reshape_and_view(args, np_shape):
    a = randn(2, 3, 4)
    expected = a.reshape(np_shape)
    for out in (f64(a).reshape(*args), f64(a).view(*args)):
        assert out.shape == expected.shape
        np.testing.assert_array_equal(out.numpy(), expected)
    check_grad(lambda t: t.reshape(*args) * f64(np.arange(24.0).reshape(np_shape)), a)


def test_reshape_special_cases():
    assert fg.zeros(()).reshape(1).shape == (1,)
    assert fg.zeros(1).reshape([]).shape == ()
    assert fg.zeros(0, 3).reshape(-1, 3).shape == (0, 3)
    assert fg.ones(3).reshape(fg.tensor([3, 1])).shape == (3, 1)
    assert fg.reshape(fg.ones(6), [2, 3]).shape == (2, 3)
    # non-contiguous input: values in row-major order of the view
    z = fg.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(z.t().reshape(-1).numpy(), [0, 3, 1, 4, 2, 5])
    np.testing.assert_array_equal(z.t().view(6).numpy(), [0, 3, 1, 4, 2, 5])
    check_grad(lambda t: t.t().reshape(-1) * f64(np.arange(6.0)), randn(2, 3))


def test_reshape_of_contiguous_tensor_shares_storage():
    b = fg.ones(4)
    v = b.reshape(2, 2)
    assert v.data_ptr() == b.data_ptr()
    v.add_(1.0)
    np.testing.assert_array_equal(b.numpy(), [2.0, 2.0, 2.0, 2.0])
    assert b._version == 1
    w = b.view(4, 1)
    w.zero_()
    assert not b.numpy().any()


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, (24,)),
        ({"start_axis": 1}, (2, 12)),
        ({"start_axis": 0, "stop_axis": 1}, (6, 4)),
        ({"start_dim": 1, "end_dim": 2}, (2, 12)),
        ({"end_dim": 1}, (6, 4)),
        ({"start_axis": -2, "stop_axis": -1}, (2, 12)),
        ({"start_axis": 1, "stop_axis": 1}, (2, 3, 4)),
    ],
)
def test_flatten(kwargs, expected):
    a = randn(2, 3, 4)
    out = f64(a).flatten(**kwargs)
    assert out.shape == expected
    np.testing.assert_array_equal(out.numpy(), a.reshape(expected))
    check_grad(lambda t: t.flatten(**kwargs) * f64(np.arange(24.0).reshape(expected)), a)


def test_flatten_positional_and_0d():
    assert fg.zeros(2, 3, 4).flatten(1, 2).shape == (2, 12)
    assert fg.flatten(fg.zeros(2, 3, 4), 0, 1).shape == (6, 4)
    assert fg.zeros(()).flatten().shape == (1,)
    assert fg.zeros(2, 3).t().flatten().tolist() == [0.0] * 6


@pytest.mark.parametrize(
    ("call", "np_fn"),
    [
        (lambda t: t.squeeze(), lambda a: a.squeeze()),
        (lambda t: t.squeeze(0), lambda a: a.squeeze(0)),
        (lambda t: t.squeeze(-2), lambda a: a.squeeze(-2)),
        (lambda t: t.squeeze(dim=2), lambda a: a.squeeze(2)),
        (lambda t: t.squeeze(axis=[0, 2]), lambda a: a.squeeze((0, 2))),
        (lambda t: t.squeeze(1), lambda a: a),  # size 2: unchanged (torch semantics)
        (lambda t: t.unsqueeze(0), lambda a: a[None]),
        (lambda t: t.unsqueeze(-1), lambda a: a[..., None]),
        (lambda t: t.unsqueeze(2), lambda a: np.expand_dims(a, 2)),
        (lambda t: t.unsqueeze([0, 2]), lambda a: np.expand_dims(a, (0, 2))),
        (lambda t: t.unsqueeze(dim=[-1, 0]), lambda a: np.expand_dims(a, (0, -1))),
        (lambda t: fg.unsqueeze(t, 1), lambda a: a[:, None]),
        (lambda t: fg.squeeze(t), lambda a: a.squeeze()),
    ],
)
def test_squeeze_unsqueeze(call, np_fn):
    a = randn(1, 2, 1, 3)
    out = call(f64(a))
    expected = np_fn(a)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.numpy(), expected)
    weights = f64(randn(*expected.shape))
    check_grad(lambda t: call(t) * weights, a)


# ---------------------------------------------------------------------------------------
# expand / broadcast_to / expand_as
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "shape"),
    [
        (lambda t: t.expand(2, 3, 4), (2, 3, 4)),
        (lambda t: t.expand(-1, 5), (3, 5)),
        (lambda t: t.expand([4, -1, 2]), (4, 3, 2)),
        (lambda t: t.expand((3, 1)), (3, 1)),
        (lambda t: t.broadcast_to([2, 3, 2]), (2, 3, 2)),
        (lambda t: fg.broadcast_to(t, (3, 6)), (3, 6)),
        (lambda t: t.expand_as(fg.ones(4, 3, 6)), (4, 3, 6)),
        (lambda t: fg.expand(t, 2, 3, 1), (2, 3, 1)),
    ],
)
def test_expand_family(call, shape):
    a = randn(3, 1)
    out = call(f64(a))
    assert out.shape == shape
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(a, shape))
    weights = f64(randn(*shape))
    check_grad(lambda t: call(t) * weights, a)


def test_expand_is_a_view_and_grad_sums():
    x = fg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    e = x.expand(4, 3)
    assert e.stride() == (0, 1)
    (g,) = fg.grad(e.sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [4.0, 4.0, 4.0])


# ---------------------------------------------------------------------------------------
# clone / contiguous / detach
# ---------------------------------------------------------------------------------------


def test_clone_copies_and_is_differentiable():
    x = fg.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    c = x.clone()
    assert c.data_ptr() != x.data_ptr()
    assert c.requires_grad
    assert c.grad_fn is not None
    assert not c.is_leaf
    c.mul_(5.0)
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 2.0])
    (g,) = fg.grad(c.sum(), [x])
    np.testing.assert_array_equal(g.numpy(), [5.0, 5.0])
    assert fg.clone(fg.ones(2)).tolist() == [1.0, 1.0]
    check_grad(lambda t: t.clone() * t, randn(3), second_order=True)


def test_contiguous():
    x = fg.ones(2, 3)
    assert x.contiguous().data_ptr() == x.data_ptr()
    t = fg.arange(6.0).reshape(2, 3).t()
    c = t.contiguous()
    assert not t.is_contiguous()
    assert c.is_contiguous()
    assert c.stride() == (2, 1)
    np.testing.assert_array_equal(c.numpy(), np.arange(6.0).reshape(2, 3).T)
    check_grad(lambda v: v.t().contiguous() * f64(np.arange(6.0).reshape(3, 2)), randn(2, 3))


def test_detach_shares_storage_and_drops_history():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad
    assert d.is_leaf
    assert d.grad_fn is None
    assert d.data_ptr() == y.data_ptr()
    xd = fg.detach(x)
    assert xd.data_ptr() == x.data_ptr()
    xd.add_(10.0)
    np.testing.assert_array_equal(x.detach().numpy(), [11.0, 12.0])
    assert x._version == xd._version == 1


def test_detach_in_place():
    x = fg.tensor([1.0], requires_grad=True)
    y = (x * 2).detach_()
    assert not y.requires_grad
