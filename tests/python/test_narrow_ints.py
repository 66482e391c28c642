"""The narrow integer dtypes uint8 / int8 / int16 (issues 17 and 19): names in every
spelling, the promotion table, wrapping arithmetic against NumPy (which wraps too), the
reductions' int64 accumulation, and round trips through NumPy, DLPack and save/load."""

import pickle

import ferrograd as fg
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

NARROW = ["uint8", "int8", "int16"]
INFO = {n: np.iinfo(n) for n in NARROW}


def t(values, dtype):
    return fg.tensor(np.asarray(values, dtype=dtype))


def values(dtype, size=12):
    """Integer values of `dtype` always including both extremes, 0 and 1."""
    info = INFO[dtype]
    return st.lists(st.integers(int(info.min), int(info.max)), min_size=size, max_size=size).map(
        lambda v: np.array([info.min, info.max, 0, 1] + v, dtype=dtype)
    )


# --- names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling, name",
    [
        (fg.uint8, "uint8"),
        (fg.byte, "uint8"),
        (fg.int8, "int8"),
        (fg.char, "int8"),
        (fg.int16, "int16"),
        (fg.short, "int16"),
        ("uint8", "uint8"),
        ("torch.uint8", "uint8"),
        ("paddle.int8", "int8"),
        ("int16", "int16"),
        (np.uint8, "uint8"),
        (np.dtype("int8"), "int8"),
        (np.int16, "int16"),
    ],
)
def test_every_spelling_names_the_dtype(spelling, name):
    x = fg.zeros([2], dtype=spelling)
    assert x.dtype == name and x.dtype == getattr(fg, name)
    assert x.dtype.itemsize == np.dtype(name).itemsize
    assert str(x.dtype) == f"ferrograd.{name}"
    assert pickle.loads(pickle.dumps(x.dtype)) is getattr(fg, name)


def test_tensor_conversion_methods_and_type_names():
    x = fg.tensor([300, -1, 7])
    assert x.byte().tolist() == [44, 255, 7] and x.byte().dtype == fg.uint8
    assert x.char().tolist() == [44, -1, 7] and x.char().dtype == fg.int8
    assert fg.tensor([40000]).short().tolist() == [-25536]
    assert x.byte().type() == "torch.ByteTensor"
    assert x.char().type() == "torch.CharTensor"
    assert x.short().type() == "torch.ShortTensor"
    assert x.type("torch.ByteTensor").dtype == fg.uint8
    assert x.to(fg.int16).dtype == fg.int16
    assert x.astype("uint8").dtype == fg.uint8
    assert fg.cast(x, "int8").dtype == fg.int8


# --- promotion -----------------------------------------------------------------------------

PROMOTION = [
    ("uint8", "int8", "int16"),
    ("uint8", "int16", "int16"),
    ("int8", "int16", "int16"),
    ("int8", "int32", "int32"),
    ("uint8", "int64", "int64"),
    ("bool", "uint8", "uint8"),
    ("bool", "int8", "int8"),
    ("uint8", "uint8", "uint8"),
    ("uint8", "float16", "float16"),
    ("int16", "float32", "float32"),
    ("int8", "float64", "float64"),
    ("uint8", "complex64", "complex64"),
]


@pytest.mark.parametrize("a, b, want", PROMOTION)
def test_promotion_table_matches_torch(a, b, want):
    x, y = fg.ones([2], dtype=a), fg.ones([2], dtype=b)
    assert (x + y).dtype == want and (y + x).dtype == want
    # where NumPy agrees (it does for all of these), check it too
    assert np.result_type(np.dtype(a), np.dtype(b)) == np.dtype(want)


@pytest.mark.parametrize("dtype", NARROW)
def test_python_scalars_are_weak(dtype):
    x = fg.ones([2], dtype=dtype)
    assert (x + 1).dtype == dtype and (2 * x).dtype == dtype
    assert (x + True).dtype == dtype
    assert (x + 1.5).dtype == fg.get_default_dtype()
    assert (x / 2).dtype == fg.float32 and (x / x).dtype == fg.float32
    assert (x + 1j).dtype == fg.complex64


@pytest.mark.parametrize("dtype", NARROW)
def test_out_of_range_python_ints_raise_instead_of_wrapping(dtype):
    info = INFO[dtype]
    for bad in (int(info.max) + 1, int(info.min) - 1):
        with pytest.raises(OverflowError, match=f"out of bounds for {dtype}"):
            fg.tensor([bad], dtype=dtype)
        with pytest.raises(OverflowError, match=dtype):
            fg.full([2], bad, dtype=dtype)
        with pytest.raises(OverflowError, match=dtype):
            fg.ones([2], dtype=dtype) + bad
    # an explicit cast wraps, as in both peers and NumPy
    assert fg.tensor([int(info.max) + 1]).astype(dtype).tolist() == [int(info.min)]


# --- elementwise arithmetic ------------------------------------------------------------------

WRAPPING = {
    "add": (lambda x, y: x + y, np.add),
    "sub": (lambda x, y: x - y, np.subtract),
    "mul": (lambda x, y: x * y, np.multiply),
    "max": (fg.maximum, np.maximum),
    "min": (fg.minimum, np.minimum),
    "and": (lambda x, y: x & y, np.bitwise_and),
    "or": (lambda x, y: x | y, np.bitwise_or),
    "xor": (lambda x, y: x ^ y, np.bitwise_xor),
}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(NARROW), st.sampled_from(sorted(WRAPPING)), st.data())
def test_binary_ops_wrap_like_numpy(dtype, name, data):
    a, b = data.draw(values(dtype)), data.draw(values(dtype))
    f, ref = WRAPPING[name]
    got = f(fg.tensor(a), fg.tensor(b))
    want = ref(a, b)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.numpy().dtype == want.dtype


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(NARROW), st.data())
def test_floor_divide_and_remainder_match_numpy(dtype, data):
    a, b = data.draw(values(dtype)), data.draw(values(dtype))
    b[b == 0] = 3
    with np.errstate(over="ignore"):
        want_q, want_r = np.floor_divide(a, b), np.remainder(a, b)
    np.testing.assert_array_equal((fg.tensor(a) // fg.tensor(b)).numpy(), want_q)
    np.testing.assert_array_equal((fg.tensor(a) % fg.tensor(b)).numpy(), want_r)
    np.testing.assert_array_equal(fg.fmod(fg.tensor(a), fg.tensor(b)).numpy(), np.fmod(a, b))
    np.testing.assert_allclose((fg.tensor(a) / fg.tensor(b)).numpy(), a / b, rtol=1e-6)


@pytest.mark.parametrize("dtype", NARROW + ["int32", "int64"])
def test_integer_division_by_zero_is_an_error(dtype):
    a, z = t([5, 6], dtype), t([1, 0], dtype)
    for f in (lambda: a // z, lambda: a % z, lambda: fg.fmod(a, z), lambda: a // 0):
        with pytest.raises(RuntimeError, match="division by zero"):
            f()
    # true division by zero is a float inf, as in both peers
    assert (a / z).tolist()[1] == float("inf")


def test_wrap_examples_from_the_peers():
    assert (t([255], "uint8") + 1).tolist() == [0]
    assert (t([0], "uint8") - 1).tolist() == [255]
    assert (-t([1, 0], "uint8")).tolist() == [255, 0]
    assert (-t([-128], "int8")).tolist() == [-128]
    assert t([-128], "int8").abs().tolist() == [-128]  # torch and NumPy agree
    assert (t([200], "uint8") * 2).tolist() == [144]
    assert (t([300], "int16") * t([300], "int16")).tolist() == [90000 - 65536]
    assert fg.fmod(t([-128], "int8"), 3).tolist() == [-2]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(NARROW), st.data())
def test_pow_is_exact_modulo_the_width(dtype, data):
    a = data.draw(values(dtype))
    e = np.asarray(data.draw(st.lists(st.integers(0, 40), min_size=16, max_size=16)), dtype)
    got = (fg.tensor(a) ** fg.tensor(e)).numpy()
    np.testing.assert_array_equal(got, np.power(a, e))
    assert (fg.tensor(a) ** 3).dtype == dtype
    np.testing.assert_array_equal((fg.tensor(a) ** 3).numpy(), np.power(a, 3, dtype=dtype))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(NARROW), st.data())
def test_comparisons_abs_neg_sign_clamp(dtype, data):
    a, b = data.draw(values(dtype)), data.draw(values(dtype))
    ta, tb = fg.tensor(a), fg.tensor(b)
    for f, ref in [
        (lambda x, y: x < y, np.less),
        (lambda x, y: x <= y, np.less_equal),
        (lambda x, y: x == y, np.equal),
        (lambda x, y: x != y, np.not_equal),
        (lambda x, y: x >= y, np.greater_equal),
    ]:
        got = f(ta, tb)
        assert got.dtype == fg.bool
        np.testing.assert_array_equal(got.numpy(), ref(a, b))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(ta.abs().numpy(), np.abs(a))
        np.testing.assert_array_equal((-ta).numpy(), np.negative(a))
    np.testing.assert_array_equal(ta.sign().numpy(), np.sign(a))
    lo, hi = sorted(data.draw(st.lists(st.integers(0, 100), min_size=2, max_size=2)))
    got = ta.clip(lo, hi)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), np.clip(a, lo, hi))


def test_float_math_on_narrow_ints_gives_the_default_float():
    x = t([0, 1, 255], "uint8")
    assert x.exp().dtype == fg.float32
    np.testing.assert_allclose(x.sqrt().numpy(), np.sqrt([0.0, 1.0, 255.0]), rtol=1e-6)


# --- reductions, scans, sorting ---------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(NARROW), st.data())
def test_reductions(dtype, data):
    a = data.draw(values(dtype, 20)).reshape(4, 6)
    x = fg.tensor(a)
    s = x.sum()
    assert s.dtype == fg.int64 and s.item() == int(a.astype(np.int64).sum())
    np.testing.assert_array_equal(x.sum(1).numpy(), a.sum(1, dtype=np.int64))
    np.testing.assert_array_equal(x.prod(0).numpy(), a.prod(0, dtype=np.int64))
    assert x.prod(0).dtype == fg.int64
    for f, ref in [("max", np.max), ("min", np.min)]:
        got = getattr(x, f)()
        assert got.dtype == dtype and got.item() == ref(a)
    assert x.max(dim=1)[0].dtype == dtype  # torch's (values, indices)
    np.testing.assert_array_equal(x.argmax(1).numpy(), a.argmax(1))
    np.testing.assert_array_equal(x.argmin(0).numpy(), a.argmin(0))
    cs = x.cumsum(1)
    assert cs.dtype == fg.int64
    np.testing.assert_array_equal(cs.numpy(), np.cumsum(a, 1, dtype=np.int64))
    v, i = x.sort(1)
    assert v.dtype == dtype
    np.testing.assert_array_equal(v.numpy(), np.sort(a, 1))
    np.testing.assert_array_equal(
        x.argsort(1, stable=True).numpy(), np.argsort(a, 1, kind="stable")
    )
    vals, idx = x.cummax(1)
    assert vals.dtype == dtype
    np.testing.assert_array_equal(vals.numpy(), np.maximum.accumulate(a, 1))
    assert bool(x.any()) == bool(a.any()) and bool(x.all()) == bool(a.all())


@pytest.mark.parametrize("dtype", NARROW)
def test_mean_of_integers_gives_the_default_float_as_for_int32(dtype):
    # ferrograd's rule for every integer dtype (torch raises; Paddle and NumPy compute)
    m = t([1, 2, 255 if dtype == "uint8" else -7], dtype).mean()
    assert m.dtype == fg.get_default_dtype()
    assert m.item() == pytest.approx((3 + (255 if dtype == "uint8" else -7)) / 3)


# --- selection, masks, indexing -------------------------------------------------------------


@pytest.mark.parametrize("dtype", NARROW)
def test_where_masks_and_indexing(dtype):
    a = np.array([[1, 120, 0], [7, 3, 127]], dtype=dtype)
    x = fg.tensor(a)
    m = a > 5
    got = fg.where(fg.tensor(m), x, fg.zeros([2, 3], dtype=dtype))
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), np.where(m, a, 0))
    np.testing.assert_array_equal(x.masked_fill(fg.tensor(m), 9).numpy(), np.where(m, 9, a))
    np.testing.assert_array_equal(x.masked_select(fg.tensor(m)).numpy(), a[m])
    np.testing.assert_array_equal(x[fg.tensor(m)].numpy(), a[m])
    np.testing.assert_array_equal(x[1, ::2].numpy(), a[1, ::2])
    y = fg.tensor(a)
    y[0, 1] = 5
    assert y.numpy()[0, 1] == 5 and y.dtype == dtype
    # int8 / int16 tensors index by position (their values are positions)
    if dtype != "uint8":
        idx = np.array([2, 0], dtype=dtype)
        np.testing.assert_array_equal(x[:, fg.tensor(idx)].numpy(), a[:, idx])
    np.testing.assert_array_equal(fg.concat([x, x]).numpy(), np.concatenate([a, a]))
    np.testing.assert_array_equal(x.T.contiguous().numpy(), a.T)


def test_uint8_index_is_a_mask_as_in_torch():
    x = fg.tensor([10, 20, 30])
    with pytest.warns(UserWarning, match="uint8 is deprecated"):
        got = x[fg.tensor([1, 0, 2], dtype="uint8")]
    assert got.tolist() == [10, 30]


@pytest.mark.parametrize("dtype", NARROW)
def test_narrow_ints_are_not_differentiable(dtype):
    with pytest.raises((TypeError, RuntimeError, ValueError), match="grad"):
        fg.zeros([2], dtype=dtype).requires_grad_(True)
    with pytest.raises((TypeError, RuntimeError, ValueError)):
        fg.zeros([2], dtype=dtype, requires_grad=True)


# --- creation --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NARROW)
def test_creation(dtype):
    assert fg.zeros([2, 3], dtype=dtype).numpy().dtype == np.dtype(dtype)
    assert fg.ones([2], dtype=dtype).tolist() == [1, 1]
    assert fg.full([2], 7, dtype=dtype).tolist() == [7, 7]
    assert fg.arange(0, 10, 3, dtype=dtype).tolist() == [0, 3, 6, 9]
    assert fg.arange(5, dtype=dtype).dtype == dtype
    assert fg.zeros_like(fg.ones([2], dtype=dtype)).dtype == dtype
    fg.manual_seed(0)
    r = fg.randint(0, 100, [50], dtype=dtype)
    assert r.dtype == dtype and 0 <= r.min().item() and r.max().item() < 100
    info = INFO[dtype]
    r = fg.randint(int(info.min), int(info.max) + 1, [200], dtype=dtype)
    assert r.dtype == dtype
    with pytest.raises(ValueError, match="does not fit"):
        fg.randint(0, int(info.max) + 2, [2], dtype=dtype)


# --- conversions and round trips ---------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(NARROW), st.data())
def test_numpy_round_trips(dtype, data):
    a = data.draw(values(dtype)).reshape(4, 4)
    x = fg.tensor(a)
    assert x.dtype == dtype
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.numpy().dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(x), a)
    assert np.asarray(x).dtype == np.dtype(dtype)
    assert x.tolist() == a.tolist()
    assert x[0, 0].item() == int(a[0, 0]) and isinstance(x[0, 0].item(), int)
    assert int(x[0, 1]) == int(a[0, 1])
    shared = fg.from_numpy(a)
    assert shared.dtype == dtype
    a[0, 0] = 3
    assert shared[0, 0].item() == 3  # zero-copy
    np.testing.assert_array_equal(fg.tensor(a.T).numpy(), a.T)
    np.testing.assert_array_equal(fg.from_numpy(a[:, ::2]).numpy(), a[:, ::2])


@pytest.mark.parametrize("dtype", NARROW)
def test_dlpack_round_trip(dtype):
    a = np.array([[INFO[dtype].min, 0, INFO[dtype].max]], dtype=dtype)
    x = fg.tensor(a)
    back = np.from_dlpack(x)
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back, a)
    y = fg.from_dlpack(a)
    assert y.dtype == dtype and y.tolist() == a.tolist()
    z = fg.from_dlpack(x)
    assert z.dtype == dtype and z.tolist() == a.tolist()


@pytest.mark.parametrize("dtype", NARROW)
def test_save_load(dtype, tmp_path):
    a = np.array([INFO[dtype].min, 0, INFO[dtype].max], dtype=dtype)
    x = fg.tensor(a)
    path = str(tmp_path / "x.npz")
    fg.save({"x": x, "xs": [x]}, path)
    back = fg.load(path)
    assert back["x"].dtype == dtype and back["x"].tolist() == a.tolist()
    assert back["xs"][0].dtype == dtype
    assert pickle.loads(pickle.dumps(x.dtype)) == dtype  # (tensors themselves do not pickle)


def test_repr_shows_the_dtype():
    r = repr(fg.tensor([1, 255], dtype="uint8"))
    assert "255" in r and "uint8" in r


def test_casts_wrap_like_the_peers():
    assert fg.tensor([300, -1, 256]).astype("uint8").tolist() == [44, 255, 0]
    assert fg.tensor([128, -129]).astype("int8").tolist() == [-128, 127]
    assert fg.tensor([40000]).astype("int16").tolist() == [-25536]
    # floats truncate toward zero, then wrap (PyTorch on x86; NumPy does the same there)
    assert fg.tensor([2.9, -2.9, 300.0]).astype("uint8").tolist() == [2, 254, 44]
    assert fg.tensor([2**40], dtype="int64").astype("int32").tolist() == [0]
    assert fg.tensor([3], dtype="uint8").astype("bool").tolist() == [True]
    assert fg.tensor([200], dtype="uint8").astype("int8").tolist() == [-56]
    assert fg.tensor([-56], dtype="int8").astype("uint8").tolist() == [200]
