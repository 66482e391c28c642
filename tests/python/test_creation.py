"""Tensor creation: ``tensor``/``to_tensor`` from Python and NumPy data, dtype spellings and
the factory functions (``test_creation_numpy.py``: ``from_numpy`` and conversions back)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from creation_support import ALL_DTYPES, NUMPY_NATIVE

# ---------------------------------------------------------------------------------------
# tensor / to_tensor from Python data
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(True, "bool"), (3, "int64"), (-7, "int64"), (2.5, "float32"), (1 + 2j, "complex64")],
)
@pytest.mark.parametrize("factory", [fg.tensor, fg.to_tensor])
def test_scalar_infers_dtype_and_is_0d(factory, value, dtype):
    t = factory(value)
    assert t.dtype == getattr(fg, dtype)
    assert t.shape == ()
    assert t.ndim == 0
    assert t.numel() == 1
    assert t.item() == value
    assert type(t.item()) is type(value)


@pytest.mark.parametrize(
    ("data", "dtype"),
    [
        ([[True, False], [False, True]], "bool"),
        ([[1, 2], [3, 4]], "int64"),
        (((1, 2), (3, 4)), "int64"),
        ([1, 2.5], "float32"),
        ([[1, 2], [3, 4.0]], "float32"),
        ([1, 2j], "complex64"),
        ([True, 2], "int64"),
        ([True, 2.5], "float32"),
        ([False, 1.5, 2j], "complex64"),
        ([[[1]], [[2]]], "int64"),
    ],
)
def test_nested_list_dtype_inference(data, dtype):
    t = fg.tensor(data)
    expected = np.array(data)
    assert t.dtype == getattr(fg, dtype)
    assert t.shape == expected.shape
    np.testing.assert_array_equal(t.numpy(), expected.astype(t.numpy().dtype))


def test_nested_list_values_are_rounded_to_float32():
    t = fg.tensor([0.1, 1e-3, 123456.789])
    np.testing.assert_array_equal(t.numpy(), np.array([0.1, 1e-3, 123456.789], np.float32))


def test_int64_list_keeps_full_precision():
    big = 2**62 + 1
    t = fg.tensor([big, -big])
    assert t.tolist() == [big, -big]
    assert fg.tensor(big).item() == big


def test_list_of_zero_length_rows():
    t = fg.tensor([[], []])
    assert t.shape == (2, 0)
    assert t.numel() == 0


def test_empty_list_is_default_float():
    t = fg.tensor([])
    assert t.shape == (0,)
    assert t.dtype == fg.float32


def test_list_of_tensors_and_arrays():
    t = fg.tensor([fg.tensor([1.0, 2.0]), fg.tensor([3.0, 4.0])])
    assert t.shape == (2, 2)
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])
    u = fg.tensor([np.array([1, 2]), np.array([3, 4])])
    assert u.dtype == fg.int64
    np.testing.assert_array_equal(u.numpy(), [[1, 2], [3, 4]])


@pytest.mark.parametrize("npdtype", NUMPY_NATIVE)
def test_numpy_array_keeps_its_dtype(npdtype):
    a = (np.arange(6).reshape(2, 3) - 2).astype(npdtype)
    t = fg.tensor(a)
    assert t.dtype.name == np.dtype(npdtype).name
    assert t.shape == (2, 3)
    out = t.numpy()
    assert out.dtype == npdtype
    np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("npdtype", [np.uint16, np.uint32])
def test_numpy_array_of_unsupported_int_dtype_becomes_int64(npdtype):
    a = np.arange(5, dtype=npdtype)
    t = fg.tensor(a)
    assert t.dtype == fg.int64
    np.testing.assert_array_equal(t.numpy(), a.astype(np.int64))


@pytest.mark.parametrize("npdtype", [np.int8, np.uint8, np.int16])
def test_numpy_array_of_narrow_int_dtype_keeps_it(npdtype):
    a = np.arange(5, dtype=npdtype)
    t = fg.tensor(a)
    assert t.dtype == np.dtype(npdtype).name
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.numpy().dtype == npdtype


def test_numpy_noncontiguous_and_0d_arrays():
    a = np.arange(24.0).reshape(4, 6)[::2, ::-3]
    t = fg.tensor(a)
    np.testing.assert_array_equal(t.numpy(), a)
    z = fg.tensor(np.array(2.5))
    assert z.shape == ()
    assert z.dtype == fg.float64
    assert z.item() == 2.5
    assert fg.tensor(np.float32(1.5)).dtype == fg.float32


def test_tensor_from_numpy_copies():
    a = np.zeros(3)
    t = fg.tensor(a)
    a[0] = 5.0
    assert t.numpy()[0] == 0.0


def test_tensor_from_tensor_copies_and_drops_history():
    src = fg.tensor([1.0, 2.0], requires_grad=True)
    t = fg.tensor(src)
    assert t.dtype == src.dtype
    assert not t.requires_grad
    assert t.is_leaf
    with fg.no_grad():
        t.add_(1.0)
    np.testing.assert_array_equal(src.detach().numpy(), [1.0, 2.0])
    assert fg.to_tensor(src).stop_gradient
    assert fg.tensor(fg.tensor([1, 2], dtype="int32"), dtype="float64").dtype == fg.float64


@pytest.mark.parametrize(
    "spec",
    [
        fg.float64,
        "float64",
        "double",
        "torch.float64",
        "paddle.float64",
        "ferrograd.float64",
        np.dtype("float64"),
        float,
        fg.double,
    ],
)
def test_dtype_argument_spellings(spec):
    t = fg.tensor([1, 2], dtype=spec)
    assert t.dtype == fg.float64
    assert fg.zeros(2, dtype=spec).dtype == fg.float64
    assert fg.to_tensor([1, 2], dtype=spec).dtype == fg.float64


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (int, "int64"),
        (bool, "bool"),
        (complex, "complex128"),
        ("long", "int64"),
        ("half", "float16"),
        ("bf16", "bfloat16"),
        ("cfloat", "complex64"),
        (np.dtype("int32"), "int32"),
        (np.bool_, "bool"),
        (fg.long, "int64"),
        (fg.int, "int32"),
        (fg.float, "float32"),
    ],
)
def test_other_dtype_spellings(spec, expected):
    assert fg.tensor([1], dtype=spec).dtype == getattr(fg, expected)


@pytest.mark.parametrize("npdtype", [np.float16, np.float32, np.float64, np.int32, np.int64])
def test_numpy_scalar_type_as_dtype(npdtype):
    assert fg.tensor([1], dtype=npdtype).dtype.name == np.dtype(npdtype).name


def test_dtype_objects():
    assert fg.float32 == fg.float32
    assert fg.float32 != fg.float64
    assert fg.float == fg.float32 and fg.double == fg.float64 and fg.long == fg.int64
    assert fg.dtype_from_name("int32") == fg.int32
    assert fg.float32.name == "float32"
    assert fg.float64.itemsize == 8
    assert fg.bfloat16.itemsize == 2
    assert fg.float16.is_floating_point
    assert not fg.int64.is_floating_point
    assert fg.complex64.is_complex
    assert repr(fg.int32) == "ferrograd.int32"
    assert fg.get_default_dtype() == fg.float32


def test_dtype_object_equals_its_name():
    assert fg.float32 == "float32"
    assert fg.ones(1, dtype="int64").dtype == "int64"


def test_dtype_argument_casts_values():
    np.testing.assert_array_equal(fg.tensor([1.7, -1.7], dtype="int64").numpy(), [1, -1])
    np.testing.assert_array_equal(fg.tensor([0, 2], dtype="bool").numpy(), [False, True])
    np.testing.assert_array_equal(
        fg.tensor([1, 2], dtype="complex128").numpy(), np.array([1, 2], np.complex128)
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtype_round_trip_through_numpy(dtype):
    t = fg.tensor([0, 1, 1], dtype=dtype)
    assert t.dtype.name == dtype
    expected = "float32" if dtype == "bfloat16" else dtype
    assert t.numpy().dtype == np.dtype(expected)
    np.testing.assert_array_equal(t.numpy(), np.array([0, 1, 1]).astype(expected))


# ---------------------------------------------------------------------------------------
# factories
# ---------------------------------------------------------------------------------------

SHAPE_FORMS = [(2, 3), ([2, 3],), ((2, 3),)]


@pytest.mark.parametrize("args", SHAPE_FORMS, ids=["varargs", "list", "tuple"])
@pytest.mark.parametrize(("name", "value"), [("zeros", 0.0), ("ones", 1.0), ("empty", None)])
def test_filled_factories_shape_forms(name, value, args):
    t = getattr(fg, name)(*args)
    assert t.shape == (2, 3)
    assert t.shape == [2, 3]
    assert t.dtype == fg.float32
    assert not t.requires_grad
    if value is not None:
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), value, np.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros_ones_dtype(dtype):
    z = fg.zeros(2, 2, dtype=dtype)
    o = fg.ones([3], dtype=dtype)
    assert z.dtype.name == dtype
    assert o.dtype.name == dtype
    assert not z.numpy().any()
    assert o.numpy().all()


def test_zero_dim_and_zero_size_factories():
    assert fg.zeros().shape == ()
    assert fg.zeros(()).shape == ()
    assert fg.ones([]).item() == 1.0
    assert fg.zeros(0, 3).shape == (0, 3)
    assert fg.ones(4, 0).numel() == 0


@pytest.mark.parametrize(
    ("value", "dtype"), [(3, "int64"), (1.5, "float32"), (True, "bool"), (2j, "complex64")]
)
def test_full_infers_dtype_from_value(value, dtype):
    t = fg.full([2, 3], value)
    assert t.shape == (2, 3)
    assert t.dtype.name == dtype
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), value))


def test_full_shape_forms_and_dtype():
    assert fg.full((2,), 7.0).shape == (2,)
    assert fg.full(3, 2.0).shape == (3,)
    t = fg.full([2], -3, dtype="int32")
    assert t.dtype == fg.int32
    assert t.tolist() == [-3, -3]
    assert fg.full([2], 2**40).tolist() == [2**40, 2**40]
    assert fg.full([2], fg.tensor(4.0)).tolist() == [4.0, 4.0]


@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_like_factories(dtype):
    x = fg.ones(2, 3, dtype=dtype)
    for f, v in [(fg.zeros_like, 0), (fg.ones_like, 1), (fg.empty_like, None)]:
        t = f(x)
        assert t.shape == (2, 3)
        assert t.dtype.name == dtype
        if v is not None:
            np.testing.assert_array_equal(t.numpy(), np.full((2, 3), v))
    f = fg.full_like(x, 7)
    assert f.dtype.name == dtype
    np.testing.assert_array_equal(f.numpy(), np.full((2, 3), 7))
    assert fg.zeros_like(x, dtype="float16").dtype == fg.float16
    assert fg.full_like(x, 2.5, dtype="float64").tolist() == [[2.5] * 3] * 2


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        ((5,), {}, np.arange(5)),
        ((1, 10, 3), {}, np.arange(1, 10, 3)),
        ((10, 0, -3), {}, np.arange(10, 0, -3)),
        ((5.0,), {}, np.arange(5.0, dtype=np.float32)),
        ((0, 1, 0.25), {}, np.arange(0, 1, 0.25, dtype=np.float32)),
        ((0, 1, 0.1), {}, np.arange(0, 1, 0.1, dtype=np.float32)),
        ((2, 3, 0.1), {"dtype": "float64"}, np.arange(2, 3, 0.1)),
        ((0, 10), {"dtype": fg.float64}, np.arange(0, 10, dtype=np.float64)),
        ((4,), {"dtype": "int32"}, np.arange(4, dtype=np.int32)),
    ],
)
def test_arange(args, kwargs, expected):
    t = fg.arange(*args, **kwargs)
    assert t.numpy().dtype == expected.dtype
    assert t.shape == expected.shape
    np.testing.assert_allclose(t.numpy(), expected, rtol=0, atol=1e-6)


def test_arange_refuses_a_step_of_the_wrong_sign():
    # both peers refuse it (NumPy returns an empty array); start == end is empty
    for args in [(0, -1), (5, 0), (0, 1, -0.5)]:
        with pytest.raises(ValueError, match="inconsistent with step sign"):
            fg.arange(*args)
    assert fg.arange(3, 3).shape == (0,) and fg.arange(3, 3, -1).shape == (0,)


def test_arange_accepts_tensor_bounds():
    assert fg.arange(fg.tensor(4)).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("start", "stop", "num", "dtype"),
    [(0, 1, 5, None), (0, 1, 7, None), (2, -3, 4, "float64"), (0, 1, 1, None), (0, 1, 0, None)],
)
def test_linspace(start, stop, num, dtype):
    t = fg.linspace(start, stop, num, dtype=dtype)
    npdtype = np.float64 if dtype == "float64" else np.float32
    expected = np.linspace(start, stop, num, dtype=npdtype)
    assert t.numpy().dtype == npdtype
    assert t.shape == (num,)
    np.testing.assert_allclose(t.numpy(), expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    ("args", "kwargs"), [((3,), {}), ((2, 4), {}), ((4, 2), {"dtype": "int64"}), ((0, 3), {})]
)
def test_eye(args, kwargs):
    t = fg.eye(*args, **kwargs)
    expected = np.eye(*args)
    assert t.shape == expected.shape
    assert t.dtype.name == kwargs.get("dtype", "float32")
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("args", [(0,), (0, 0)])
def test_eye_zero_size(args):
    t = fg.eye(*args)
    np.testing.assert_array_equal(t.numpy(), np.eye(*args))


@pytest.mark.parametrize("args", SHAPE_FORMS, ids=["varargs", "list", "tuple"])
def test_rand_randn_shape_forms(args):
    for f in (fg.rand, fg.randn):
        t = f(*args)
        assert t.shape == (2, 3)
        assert t.dtype == fg.float32


def test_rand_distribution():
    fg.seed(1234)
    u = fg.rand(20000).numpy()
    assert u.min() >= 0.0
    assert u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.02
    n = fg.randn(20000, dtype="float64").numpy()
    assert n.dtype == np.float64
    assert abs(n.mean()) < 0.05
    assert abs(n.std() - 1.0) < 0.05
    assert fg.randn(2, dtype=fg.float16).dtype == fg.float16
    assert fg.rand(0).shape == (0,)


def test_randint_forms_and_bounds():
    fg.seed(7)
    t = fg.randint(3, 7, (1000,))
    assert t.dtype == fg.int64
    a = t.numpy()
    assert a.min() == 3
    assert a.max() == 6
    assert fg.randint(10, (2, 2)).shape == (2, 2)
    assert fg.randint(0, 5, [7]).shape == (7,)
    assert fg.randint(5, size=(2,)).shape == (2,)
    assert fg.randint(0, 5, shape=[3, 1]).shape == (3, 1)
    neg = fg.randint(-5, -2, [200]).numpy()
    assert neg.min() >= -5
    assert neg.max() <= -3
    assert fg.randint(0, 1, [4]).tolist() == [0, 0, 0, 0]
    assert fg.randint(0, 9, [3], dtype="int32").dtype == fg.int32


def test_seed_reproducibility():
    def draw():
        return fg.rand(3, 4).numpy(), fg.randn(5).numpy(), fg.randint(0, 100, [7]).numpy()

    fg.seed(3)
    first = draw()
    fg.seed(3)
    second = draw()
    fg.manual_seed(3)
    third = draw()
    for a, b, c in zip(first, second, third):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    fg.seed(4)
    other = draw()
    assert not np.array_equal(first[0], other[0])
