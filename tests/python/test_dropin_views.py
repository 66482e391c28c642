"""Peer-test fixes of session 12 (PyTorch's view / item-assignment tests): the legacy
typed constructors (``torch.BoolTensor(5, 5)``), PyTorch's in-place cast rule
(``float32.add_(float64)`` stays float32, a kind change is refused) and a list holding
slices as an index (``y[[slice(None), [1, 3]]]``, read as a tuple)."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.gradcheck import gradcheck, gradgradcheck

# ----------------------------------------------------------------- legacy constructors


@pytest.mark.parametrize(
    "name, dtype",
    [
        ("FloatTensor", "float32"),
        ("DoubleTensor", "float64"),
        ("LongTensor", "int64"),
        ("IntTensor", "int32"),
        ("ShortTensor", "int16"),
        ("CharTensor", "int8"),
        ("ByteTensor", "uint8"),
        ("BoolTensor", "bool"),
        ("HalfTensor", "float16"),
    ],
)
def test_legacy_constructor_sizes_and_data(name, dtype):
    cls = getattr(fg, name)
    t = cls(5, 4)
    assert t.dtype == getattr(fg, dtype) and list(t.shape) == [5, 4]
    assert not t.numpy().any()  # zeros: never stale memory
    assert list(cls(fg.Size([2, 3])).shape) == [2, 3]
    assert list(cls().shape) == [0]
    d = cls([1, 0, 1])
    assert d.dtype == getattr(fg, dtype)
    np.testing.assert_array_equal(d.numpy(), np.array([1, 0, 1]).astype(dtype))
    assert isinstance(t, cls) and isinstance(t, fg.Tensor)
    assert cls.dtype == getattr(fg, dtype)


def test_legacy_constructor_isinstance_tests_the_dtype():
    x = fg.zeros([2])
    assert isinstance(x, fg.FloatTensor)
    assert not isinstance(x, fg.DoubleTensor)
    assert isinstance(x.double(), fg.DoubleTensor)
    assert not isinstance([1.0], fg.FloatTensor)


def test_legacy_constructor_from_tensor_is_an_alias_of_the_same_dtype():
    x = fg.zeros([3])
    y = fg.FloatTensor(x)
    y[0] = 5.0
    assert x[0].item() == 5.0
    with pytest.raises(TypeError, match="float64"):
        fg.FloatTensor(fg.zeros([2], dtype="float64"))


def test_legacy_constructor_bad_arguments():
    with pytest.raises(TypeError, match="FloatTensor"):
        fg.FloatTensor(2.5)
    with pytest.raises(ValueError, match="negative"):
        fg.FloatTensor(-1)
    with pytest.raises(ValueError, match="CPU"):
        fg.FloatTensor(2, device="cuda")


def test_type_accepts_a_legacy_class():
    x = fg.zeros([2])
    assert x.type(fg.DoubleTensor).dtype == fg.float64
    assert x.type() == "torch.FloatTensor"


def test_bool_tensor_bernoulli_is_a_mask():
    fg.manual_seed(0)
    mask = fg.BoolTensor(5, 5).bernoulli_()
    assert mask.dtype == fg.bool
    assert set(np.unique(mask.numpy()).tolist()) <= {False, True}
    y = fg.ones([5, 5])
    y[mask] = 2
    np.testing.assert_array_equal(y.numpy(), np.where(mask.numpy(), 2.0, 1.0))


# ----------------------------------------------------------------- in-place cast rule


def test_inplace_narrows_within_a_kind_and_keeps_the_gradient_dtype():
    r = fg.ones([1], dtype="float64", requires_grad=True)
    x = fg.ones([5])
    v = x.select(0, 1)
    assert not v.requires_grad
    version = x._version
    x.add_(r * 3)
    assert x.dtype == fg.float32 and x._version > version
    np.testing.assert_array_equal(x.numpy(), np.full(5, 4.0, np.float32))
    assert v.requires_grad  # the earlier view sees the write
    v.sum().backward()
    assert r.grad.dtype == fg.float64
    np.testing.assert_allclose(r.grad.numpy(), [3.0])


def test_inplace_narrowing_gradcheck():
    def fn(r):
        x = fg.ones([5], dtype="float32").double() * 0 + 1  # float64 base
        x32 = fg.ones([5], dtype="float32")
        x32.mul_(r)  # float64 result stored into float32
        return x + x32.double()

    r = fg.tensor([1.5], dtype="float64", requires_grad=True)
    assert gradcheck(fn, [r], eps=1e-3, atol=1e-3)
    assert gradgradcheck(fn, [r], eps=1e-3, atol=1e-3)


@pytest.mark.parametrize(
    "dtype, other",
    [("int32", "int64"), ("uint8", "int64"), ("float16", "float64"), ("int64", "bool")],
)
def test_inplace_same_or_lower_kind_is_stored(dtype, other):
    x = fg.ones([3], dtype=dtype)
    x.add_(fg.ones([3], dtype=other))
    assert x.dtype == getattr(fg, dtype)
    np.testing.assert_array_equal(x.numpy(), np.full(3, 2).astype(dtype))


@pytest.mark.parametrize(
    "dtype, other, result",
    [
        ("int64", "float32", "float32"),
        ("bool", "int64", "int64"),
        ("float32", "complex64", "complex64"),
        ("int32", "float64", "float64"),
    ],
)
def test_inplace_kind_change_is_refused(dtype, other, result):
    x = fg.ones([3], dtype=dtype)
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match=f"result type {result} can't be cast .* {dtype}"):
        x.add_(fg.ones([3], dtype=other))
    np.testing.assert_array_equal(x.numpy(), before)


# ----------------------------------------------------------- a list of slices as index


def test_list_with_slices_is_read_as_a_tuple():
    y = fg.tensor(np.arange(125.0).reshape(5, 5, 5))
    with pytest.warns(UserWarning, match="tuple"):
        got = y[[slice(None), [1, 3]]]
    np.testing.assert_array_equal(got.numpy(), y[(slice(None), [1, 3])].numpy())
    assert list(got.shape) == [5, 2, 5]
    with pytest.warns(UserWarning, match="tuple"):
        assert list(y[[0, None, Ellipsis]].shape) == [1, 5, 5]


def test_list_with_slices_assignment_and_gradient():
    x = fg.ones([5, 5, 5], requires_grad=True)
    y = x + 2
    with pytest.warns(UserWarning):
        y[[slice(None), [2, 4], [1, 3]]] = 2
    y.backward(fg.ones([5, 5, 5]))
    expected = np.ones((5, 5, 5), np.float32)
    expected[:, [2, 4], [1, 3]] = 0
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_plain_lists_stay_index_arrays():
    y = fg.tensor(np.arange(25.0).reshape(5, 5))
    a = np.arange(25.0).reshape(5, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(y[[0, 2]].numpy(), a[[0, 2]])
        # NumPy's (and Paddle's) reading: one 2-D index array over the first dimension
        np.testing.assert_array_equal(y[[[0, 1], [1, 0]]].numpy(), a[np.array([[0, 1], [1, 0]])])


# ------------------------------------------------- PyTorch's legacy Tensor constructor


def test_tensor_constructor_sizes_data_and_size():
    t = fg.Tensor(2, 3)
    assert list(t.shape) == [2, 3] and t.dtype == fg.float32 and not t.numpy().any()
    assert list(fg.Tensor(5).shape) == [5]
    assert list(fg.Tensor(fg.Size([4, 1])).shape) == [4, 1]
    np.testing.assert_array_equal(fg.Tensor([2, 5]).numpy(), [2.0, 5.0])
    assert fg.Tensor([2, 5]).dtype == fg.float32
    assert list(fg.Tensor().shape) == [0]
    assert fg.Tensor(2, dtype="float64").dtype == fg.float64
    with pytest.raises(ValueError, match="negative"):
        fg.Tensor(2, -1)
    with pytest.raises(TypeError, match="arguments"):
        fg.Tensor([1], [2])


def test_new_keeps_the_dtype():
    x = fg.ones([2], dtype="float64")
    assert x.new(3, 2).dtype == fg.float64 and list(x.new(3, 2).shape) == [3, 2]
    np.testing.assert_array_equal(x.new([1, 2]).numpy(), [1.0, 2.0])
    assert x.new([1, 2]).dtype == fg.float64
    assert list(x.new(x.shape).shape) == [2]


def test_dtype_objects_are_the_module_singletons():
    assert fg.zeros([1]).dtype is fg.float32
    assert fg.zeros([1], dtype="float64").dtype is fg.float64
    assert fg.zeros([1]).int().dtype is fg.int32
    assert fg.get_default_dtype() in ("float32", fg.float32)
