"""index_select / gather / embedding / nearest interpolate on the row-copy kernels
(src/kernels/index_rows.rs): against NumPy float64 for strided and contiguous sources,
every dtype family, index dtypes, duplicates, empty and 0-size cases, sizes around the
parallel threshold (65536 output elements) and block size (32768), errors as before,
and gradients by gradcheck."""

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(23)

SHAPES = [(7,), (5, 6), (3, 4, 5), (2, 3, 4, 5)]
DTYPES = [np.float32, np.float64, np.int64, np.bool_]


def data(shape, dtype):
    a = RNG.standard_normal(shape) * 10
    return (a > 0) if dtype is np.bool_ else a.astype(dtype)


def views(a):
    """(numpy array, ferrograd tensor) pairs holding the same values: contiguous,
    transposed, sliced (offset and step), reversed (negative strides) and broadcast
    (stride 0) sources."""
    t = fg.tensor(a)
    yield a, t
    if a.ndim >= 2:
        yield a.T, t.permute(*range(a.ndim - 1, -1, -1))
        yield a[1:, ::2], t[1:, ::2]
    yield a[..., 1:], t[..., 1:]
    if a.ndim >= 2:  # negative strides
        yield a[::-1, ..., ::-2], t[::-1, ..., ::-2]
    else:
        yield a[::-1], t[::-1]
    b = np.broadcast_to(a[:1], (3,) + a.shape[1:])
    yield b, t[:1].expand(*b.shape)


def idx_tensor(i, dtype):
    return fg.tensor(np.asarray(i, dtype=dtype))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_index_select_matches_np_take(shape, dtype):
    for a, t in views(data(shape, dtype)):
        for dim in {0, a.ndim // 2, -1}:
            n = a.shape[dim]
            for idx in ([n - 1, 0, n - 1, 0], [-1, -n, 0], [], list(range(n))):
                for it in (np.int64, np.int32):
                    got = t.index_select(dim, idx_tensor(idx, it)).numpy()
                    want = np.take(a, np.asarray(idx, dtype=np.int64), axis=dim)
                    assert got.dtype == want.dtype
                    assert got.shape == want.shape
                    np.testing.assert_array_equal(got, want)


def test_index_select_zero_size_dims():
    a = np.zeros((0, 3), np.float32)
    t = fg.tensor(a)
    assert t.index_select(1, idx_tensor([2, 0], np.int64)).shape == [0, 2]
    assert t.index_select(0, idx_tensor([], np.int64)).shape == [0, 3]
    with pytest.raises(IndexError, match="index 0 is out of range for dimension 0 with size 0"):
        t.index_select(0, idx_tensor([0], np.int64))


def test_index_select_errors_as_before():
    t = fg.tensor(np.arange(20.0).reshape(4, 5))
    with pytest.raises(
        IndexError, match="index_select: index 5 is out of range for dimension 1 with size 5"
    ):
        t.index_select(1, idx_tensor([0, 5, 7], np.int64))
    with pytest.raises(IndexError, match="index -6 is out of range for dimension 1 with size 5"):
        t.index_select(-1, idx_tensor([-6], np.int32))
    with pytest.raises(IndexError, match="index 4 is out of range for dimension 1 with size 4"):
        t.t().index_select(1, idx_tensor([4], np.int64))
    with pytest.raises(TypeError, match="int32 or int64"):
        t.index_select(0, fg.tensor([0.0]))
    with pytest.raises(ValueError, match="must be 1-D"):
        t.index_select(0, idx_tensor([[0]], np.int64))


@pytest.mark.parametrize("rows", [4095, 4096, 4097, 8192 + 3])
def test_index_select_around_the_parallel_threshold(rows):
    # 16 columns: 65520 / 65536 / 65552 output elements; inner 16 units per block
    a = RNG.standard_normal((300, 16)).astype(np.float32)
    idx = RNG.integers(-300, 300, rows)
    t = fg.tensor(a)
    np.testing.assert_array_equal(t.index_select(0, idx_tensor(idx, np.int64)).numpy(), a[idx])
    # last-dim select (one element per unit) across blocks and outer rows
    b = RNG.standard_normal((rows, 17))
    j = RNG.integers(0, 17, 9)
    np.testing.assert_array_equal(
        fg.tensor(b).index_select(1, idx_tensor(j, np.int64)).numpy(), b[:, j]
    )
    np.testing.assert_array_equal(
        fg.tensor(b).t().index_select(0, idx_tensor(j, np.int32)).numpy(), b.T[j]
    )


def test_index_select_units_longer_than_a_block():
    # one selected row of 40000 elements (more than a block and than a copy piece)
    a = RNG.standard_normal((3, 200, 200))
    t = fg.tensor(a)
    idx = [2, 0, 2]
    np.testing.assert_array_equal(t.index_select(0, idx_tensor(idx, np.int64)).numpy(), a[idx])
    # the same on a source whose inner dims are not dense (a strided row read)
    at = a.transpose(0, 2, 1)
    np.testing.assert_array_equal(
        t.permute(0, 2, 1).index_select(0, idx_tensor(idx, np.int64)).numpy(), at[idx]
    )


def gather_ref(a, dim, idx):
    """torch.gather on NumPy: the source cut to the index's shape outside ``dim``."""
    cut = tuple(slice(None) if e == dim % a.ndim else slice(0, s) for e, s in enumerate(idx.shape))
    return np.take_along_axis(a[cut], idx, axis=dim)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_matches_np_take_along_axis(shape, dtype):
    for a, t in views(data(shape, dtype)):
        for dim in {0, a.ndim // 2, -1}:
            n = a.shape[dim]
            for k in (1, 2 * n + 1):
                ishape = list(a.shape)
                ishape[dim] = k
                idx = RNG.integers(-n, n, ishape)
                smaller = [max(1, s - 1) if e != dim % a.ndim else k for e, s in enumerate(a.shape)]
                small = RNG.integers(-n, n, smaller)
                for ix in (idx, small):
                    for it in (np.int64, np.int32):
                        got = t.gather(dim, idx_tensor(ix, it)).numpy()
                        np.testing.assert_array_equal(got, gather_ref(a, dim, ix))


def test_gather_strided_index_and_narrow_index_dtypes():
    a = RNG.standard_normal((6, 5))
    ix = RNG.integers(0, 5, (5, 6))
    it = fg.tensor(ix).t()  # a transposed (non-contiguous) index
    np.testing.assert_array_equal(fg.tensor(a).gather(1, it).numpy(), gather_ref(a, 1, ix.T))
    for narrow in (np.int16, np.uint8, np.int8):
        got = fg.tensor(a).gather(1, fg.tensor(ix.T.astype(narrow)))
        np.testing.assert_array_equal(got.numpy(), gather_ref(a, 1, ix.T))


def test_gather_empty_and_zero_size():
    a = np.zeros((0, 4), np.float32)
    assert fg.tensor(a).gather(1, idx_tensor(np.zeros((0, 2)), np.int64)).shape == [0, 2]
    b = np.ones((3, 4))
    assert fg.tensor(b).gather(1, idx_tensor(np.zeros((3, 0)), np.int64)).shape == [3, 0]
    with pytest.raises(IndexError, match="index 0 is out of bounds for dimension 0 with size 0"):
        fg.tensor(a).gather(0, idx_tensor([[0]], np.int64))


@pytest.mark.parametrize("n", [255, 256, 257, 1024])
def test_gather_around_the_parallel_threshold_reports_the_first_bad_index(n):
    # n x 256 output elements: 65280 / 65536 / 65792 / 262144
    a = RNG.standard_normal((n, 300)).astype(np.float32)
    ix = RNG.integers(-300, 300, (n, 256))
    t = fg.tensor(a)
    np.testing.assert_array_equal(
        t.gather(1, idx_tensor(ix, np.int64)).numpy(), gather_ref(a, 1, ix)
    )
    ix0 = RNG.integers(0, n, (n, 256))
    np.testing.assert_array_equal(
        t.gather(0, idx_tensor(ix0, np.int32)).numpy(), gather_ref(a, 0, ix0)
    )
    # two bad indices in different blocks: the first in row-major order is reported
    bad = ix.copy()
    bad[n // 2, 7] = 300
    bad[n - 1, 0] = -301
    with pytest.raises(
        IndexError, match="gather: index 300 is out of bounds for dimension 1 with size 300"
    ):
        t.gather(1, idx_tensor(bad, np.int64))
    bad[n // 2, 7] = 0
    with pytest.raises(
        IndexError, match="index -301 is out of bounds for dimension 1 with size 300"
    ):
        t.gather(-1, idx_tensor(bad, np.int64))


def test_gather_shape_errors_as_before():
    t = fg.tensor(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="same number of dimensions"):
        t.gather(1, idx_tensor([0], np.int64))
    with pytest.raises(ValueError, match="only dimension 1 may differ"):
        t.gather(1, idx_tensor(np.zeros((4, 1)), np.int64))
    with pytest.raises(TypeError, match="int32 or int64"):
        t.gather(1, fg.tensor(np.zeros((3, 1))))


def test_embedding_matches_rows():
    w = RNG.standard_normal((1000, 64)).astype(np.float32)
    tok = RNG.integers(0, 1000, (8, 130))
    got = F.embedding(fg.tensor(tok), fg.tensor(w)).numpy()
    np.testing.assert_array_equal(got, w[tok])
    with pytest.raises(IndexError, match="ids must lie in"):
        F.embedding(fg.tensor(np.array([[1000]])), fg.tensor(w))


def test_nearest_interpolate_matches_repeat():
    img = RNG.standard_normal((2, 3, 5, 7)).astype(np.float32)
    got = F.interpolate(fg.tensor(img), scale_factor=2, mode="nearest").numpy()
    np.testing.assert_array_equal(got, img.repeat(2, axis=2).repeat(2, axis=3))
    got = F.interpolate(fg.tensor(img).permute(0, 1, 3, 2), size=(14, 10), mode="nearest").numpy()
    np.testing.assert_array_equal(
        got, img.transpose(0, 1, 3, 2).repeat(2, axis=2).repeat(2, axis=3)
    )


def test_gradients_by_gradcheck():
    x = fg.tensor(RNG.standard_normal((4, 5)), requires_grad=True)
    i = idx_tensor([3, 0, 3, -1], np.int64)
    g = idx_tensor(RNG.integers(-5, 5, (3, 2)), np.int64)
    assert gradcheck(lambda t: t.index_select(0, i), (x,))
    assert gradcheck(lambda t: t.t().index_select(1, i[:2]) ** 2, (x,))
    assert gradgradcheck(lambda t: t.index_select(1, i) ** 2, (x,))
    assert gradcheck(lambda t: t.gather(1, g), (x,))
    assert gradcheck(lambda t: t.t().gather(0, g), (x,))
    assert gradgradcheck(lambda t: t.gather(1, g) ** 2, (x,))
    tok = fg.tensor(np.array([[1, 3], [3, 0]]))
    assert gradcheck(lambda w: F.embedding(tok, w), (x,))
