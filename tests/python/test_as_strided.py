"""``as_strided`` (issue #17): a differentiable view of a tensor's memory with any sizes,
strides and offset, in both dialects, and its in-place form ``as_strided_``."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

D = fg.float64


def _np_strided(flat: np.ndarray, size, stride, offset: int) -> np.ndarray:
    """NumPy's view of the memory ``flat`` (strides in bytes)."""
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[offset:], shape=size, strides=[s * item for s in stride]
    )


CASES = [
    ((2, 3), (3, 1), 0),
    ((3, 2), (1, 3), 0),  # transposed
    ((2, 2), (1, 3), 5),
    ((4, 3), (1, 0), 2),  # zero stride: overlapping output
    ((2, 2, 2), (6, 1, 2), 1),
    ((), (), 7),
    ((0, 3), (1, 1), 23),
    ((5,), (4,), 3),
]


@pytest.mark.parametrize("size,stride,offset", CASES)
def test_values_match_numpy_on_the_memory(size, stride, offset):
    flat = np.arange(24.0)
    x = fg.tensor(flat.reshape(4, 6), dtype=D)
    got = x.as_strided(size, stride, offset)
    assert tuple(got.shape) == size
    np.testing.assert_array_equal(got.numpy(), _np_strided(flat, size, stride, offset))
    got = fg.as_strided(x, size=size, stride=stride, storage_offset=offset)
    np.testing.assert_array_equal(got.numpy(), _np_strided(flat, size, stride, offset))


def test_a_view_input_is_read_through_its_memory():
    flat = np.arange(24.0)
    x = fg.tensor(flat.reshape(4, 6), dtype=D)
    v = x[1:, ::2].t()  # offset 6, non-contiguous
    assert v.storage_offset() == 6
    # sizes, strides and offset count from the memory's start, not from v's layout
    np.testing.assert_array_equal(
        v.as_strided((2, 3), (1, 6), 2).numpy(), _np_strided(flat, (2, 3), (1, 6), 2)
    )
    # by default the view starts where v does (PyTorch)
    np.testing.assert_array_equal(
        v.as_strided((2, 2), (2, 1)).numpy(), _np_strided(flat, (2, 2), (2, 1), 6)
    )


def test_the_result_shares_memory_and_version_with_the_input():
    x = fg.zeros([6], dtype=D)
    y = x.as_strided((3,), (2,), 1)
    assert y._base is x
    y.add_(1.0)
    np.testing.assert_array_equal(x.numpy(), [0, 1, 0, 1, 0, 1])
    assert x._version == y._version == 1
    x[1] = 5.0
    assert y.numpy()[0] == 5.0 and y._version == 2
    # a view of a view has the root as its base
    assert x[2:].as_strided((2,), (1,))._base is x


def test_a_saved_tensor_sees_a_write_through_the_view():
    a = fg.tensor([1.0, 2.0, 3.0, 4.0], dtype=D, requires_grad=True)
    x = a.clone()
    z = (x * x).sum()
    x.as_strided((2,), (2,)).mul_(3.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_an_inplace_write_through_the_view_is_differentiated():
    a = fg.tensor([1.0, 2.0, 3.0, 4.0], dtype=D, requires_grad=True)
    x = a.clone()
    x.as_strided((2,), (2,), 1).mul_(3.0)
    (x * fg.tensor([1.0, 10.0, 100.0, 1000.0], dtype=D)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 30.0, 100.0, 3000.0])


@pytest.mark.parametrize(
    "size,stride,offset,pattern",
    [
        ((2, 2), (3, 1), 5, "out of bounds for storage of size 48"),
        ((7,), (1,), None, "requiring a storage size of 56"),
        ((2, 2), (-1, 1), 0, "Negative strides are not supported"),
        ((2,), (1, 2), 0, "mismatch in length of strides and shape"),
        ((-1,), (1,), 0, "sizes must be non-negative"),
        ((2,), (1,), -1, "invalid storage offset -1"),
        ((2,), (2**62,), 0, "reach past any addressable memory"),
    ],
)
def test_bad_geometry_is_a_runtime_error(size, stride, offset, pattern):
    x = fg.zeros([6], dtype=D)
    with pytest.raises(RuntimeError, match=pattern):
        x.as_strided(size, stride, offset)


def test_an_empty_view_may_sit_anywhere():
    x = fg.zeros([2, 3])
    assert tuple(x.as_strided((1, 0), (2, 2), 10).shape) == (1, 0)


def test_non_int_arguments_are_type_errors():
    x = fg.zeros([6])
    with pytest.raises(TypeError, match="'size'.*float at position 0"):
        x.as_strided((2.0,), (1,))
    with pytest.raises(TypeError, match="'stride'"):
        x.as_strided((2,), 1)
    with pytest.raises(TypeError, match="'storage_offset' must be an int"):
        x.as_strided((2,), (1,), 1.5)
    with pytest.raises(TypeError, match="missing required"):
        x.as_strided((2,))
    with pytest.raises(TypeError, match="expects a Tensor"):
        fg.as_strided(np.zeros(3), (2,), (1,))


def _leaf(shape, seed=0):
    rng = np.random.default_rng(seed)
    return fg.tensor(rng.standard_normal(shape), dtype=D, requires_grad=True)


@pytest.mark.parametrize(
    "size,stride,offset",
    [((2, 3), (1, 2), 1), ((3, 4), (1, 0), 2), ((2, 2, 2), (0, 3, 1), 0), ((4,), (2,), 1)],
)
def test_gradcheck_and_gradgradcheck(size, stride, offset):
    x = _leaf([3, 4])
    fn = lambda t: t.as_strided(size, stride, offset) ** 2  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_gradcheck_through_view_inputs():
    x = _leaf([4, 5], seed=1)
    # non-zero storage offset, transposed (non-contiguous), zero stride
    views = [
        lambda t: t[1:, 1:].as_strided((3, 2), (5, 1)),
        lambda t: t.t()[1:].as_strided((2, 3), (1, 5), 1),
        lambda t: t[:, ::2].as_strided((3, 2), (2, 10), 0),
        lambda t: t[1:].t().as_strided((2, 2), (0, 1)),
    ]
    for f in views:
        fn = lambda t, f=f: f(t) ** 2  # noqa: E731
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_memory_the_input_does_not_cover_gets_no_gradient():
    # as in PyTorch: the gradient is the input's, so an output element read from memory
    # outside the input's elements (base[1] here) sends its gradient nowhere
    base = fg.tensor(np.arange(6.0), dtype=D, requires_grad=True)
    y = base[::2].as_strided((3,), (1,))
    np.testing.assert_array_equal(y.detach().numpy(), [0.0, 1.0, 2.0])
    y.backward(fg.tensor([1.0, 10.0, 100.0], dtype=D))
    np.testing.assert_array_equal(base.grad.numpy(), [1.0, 0.0, 100.0, 0.0, 0.0, 0.0])


def test_non_contiguous_and_offset_leaves_get_their_memory_gradient():
    # gradcheck's numerical side perturbs contiguous copies of its inputs, so leaves of
    # another layout are checked against the same memory read through a plain leaf
    m = _leaf([4, 5], seed=2)
    xt = m.detach().t().requires_grad_()  # a transposed leaf over m's memory
    assert not xt.is_contiguous()
    g = fg.tensor(np.arange(9.0).reshape(3, 3), dtype=D)
    for t in (m, xt):
        t.as_strided((3, 3), (1, 4), 1).sin().backward(g)
    np.testing.assert_allclose(xt.grad.numpy(), m.grad.numpy().T, rtol=0, atol=0)
    big = _leaf([5, 6], seed=3)
    y = big.detach()[1:, 2:].requires_grad_()  # a leaf at offset 8
    assert y.storage_offset() == 8
    g = fg.tensor(np.arange(6.0).reshape(2, 3), dtype=D)
    for t in (big, y):
        t.as_strided((2, 3), (6, 1), 9).sin().backward(g)
    np.testing.assert_array_equal(y.grad.numpy(), big.grad.numpy()[1:, 2:])


def test_an_overlapping_input_shares_the_gradient_as_pytorch_does():
    a = fg.tensor([1.0, 2.0, 3.0], dtype=D, requires_grad=True)
    t = a.expand(2, 3)
    t.retain_grad()
    o = t.as_strided((2, 2), (1, 0))
    o.backward(fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=D))
    # PyTorch 2.x: each of the 2 rows on one memory element gets half its gradient
    np.testing.assert_array_equal(t.grad.numpy(), [[1.5, 3.5, 0.0]] * 2)
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 7.0, 0.0])
    b = _leaf([3], seed=4)
    fn = lambda u: u.expand(2, 3).as_strided((2, 2), (1, 0)) ** 2  # noqa: E731
    assert gradcheck(fn, (b,))
    assert gradgradcheck(fn, (b,))


def test_the_node_and_integer_inputs():
    x = _leaf([4])
    assert type(x.as_strided((2,), (1,)).grad_fn).__name__.startswith("AsStridedBackward")
    i = fg.arange(6)
    np.testing.assert_array_equal(i.as_strided((2, 2), (1, 2)).numpy(), [[0, 2], [1, 3]])


def test_as_strided_inplace():
    a = fg.tensor(np.arange(6.0), dtype=D, requires_grad=True)
    x = a * 1.0
    same = x.as_strided_((2, 2), (1, 2), 1)
    assert same is x and tuple(x.shape) == (2, 2)
    np.testing.assert_array_equal(x.numpy(), [[1.0, 3.0], [2.0, 4.0]])
    assert type(x.grad_fn).__name__.startswith("AsStridedBackward")
    (x * fg.tensor([[1.0, 10.0], [100.0, 1000.0]], dtype=D)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 1.0, 100.0, 10.0, 1000.0, 0.0])
    with pytest.raises(RuntimeError, match="leaf"):
        a.as_strided_((2,), (1,))
    with fg.no_grad():
        b = fg.zeros([3], requires_grad=True)
        b.as_strided_((2,), (1,), 1)
    assert tuple(b.shape) == (2,) and b.is_leaf and b.requires_grad
    c = fg.zeros([4])
    assert fg.as_strided_(c, (2,), (2,), 1) is c  # torch.as_strided_
    assert tuple(c.shape) == (2,) and c.storage_offset() == 1


def test_paddle_dialect_offsets_count_bytes_from_the_memory_start():
    x = fg.tensor(np.arange(6.0).reshape(2, 3), dtype=D)
    run = {"paddle": fg, "x": x}
    exec("y = paddle.as_strided(x, [2, 2], [1, 3])", run)
    np.testing.assert_array_equal(run["y"].numpy(), [[0.0, 3.0], [1.0, 4.0]])
    exec("y = x.as_strided([2], [1], 8)", run)  # 8 bytes: one float64
    np.testing.assert_array_equal(run["y"].numpy(), [1.0, 2.0])
    exec("y = paddle.as_strided(x=x[:, 1:], shape=[2], stride=[1])", run)  # default 0
    np.testing.assert_array_equal(run["y"].numpy(), [0.0, 1.0])
    with pytest.raises(ValueError, match="multiple of the element size 8"):
        exec("paddle.as_strided(x, [2], [1], offset=4)", run)
    # the keywords keep their unit in any dialect
    exec("y = x.as_strided([2], [1], storage_offset=2)", run)
    np.testing.assert_array_equal(run["y"].numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(x.as_strided([2], [1], offset=16).numpy(), [2.0, 3.0])
