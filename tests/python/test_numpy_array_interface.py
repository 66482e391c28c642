"""NumPy views of tensors through ``Tensor.__array__`` and the buffer protocol (no copy):
shared memory both ways, strided views, lifetimes, read-only memory, dtypes, and the
copies NumPy asks for. NumPy's ``np.asarray(t)`` takes the buffer protocol (every build
has it since the abi3 floor is CPython 3.11); ``t.__array__()`` is the array-interface
path that code calling it directly gets."""

from __future__ import annotations

import gc

import ferrograd as fg
import numpy as np
import pytest

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


def sample(dtype):
    a = np.arange(12, dtype=np.float64).reshape(3, 4) - 5
    if dtype == "bool":
        return a % 2 == 0
    if dtype.startswith("complex"):
        return (a + 1j * a[::-1]).astype(dtype)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_asarray_views_the_tensor_memory(dtype):
    t = fg.tensor(sample(dtype))
    a = np.asarray(t)
    assert a.dtype == np.dtype(dtype) and a.shape == (3, 4)
    assert a.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(a, sample(dtype))


def test_writes_are_shared_both_ways():
    t = fg.zeros(2, 3, dtype="float64")
    a = np.asarray(t)
    a[1, 2] = 7.0
    assert t[1, 2].item() == 7.0
    t.add_(1.0)
    assert a[0, 0] == 1.0 and a[1, 2] == 8.0


def test_strided_and_reversed_views_stay_views():
    base = fg.tensor(np.arange(12.0).reshape(3, 4))
    v = base[:, ::-2]
    a = np.asarray(v)
    assert a.strides == (32, -16)
    np.testing.assert_array_equal(a, np.arange(12.0).reshape(3, 4)[:, ::-2])
    assert np.shares_memory(a, np.asarray(base))
    np.testing.assert_array_equal(np.asarray(base.T), np.arange(12.0).reshape(3, 4).T)


def test_the_array_keeps_the_memory_alive():
    t = fg.tensor([1.0, 2.0, 3.0])
    a = np.asarray(t)
    del t
    gc.collect()
    fg.ones(3) * 5  # reuse freed memory, if any were freed
    assert a.tolist() == [1.0, 2.0, 3.0]


def test_zero_d_and_empty():
    a = np.asarray(fg.tensor(2.5))
    assert a.shape == () and a.item() == 2.5
    e = np.asarray(fg.zeros(0, 3))
    assert e.shape == (0, 3) and e.size == 0


def test_numpy_functions_accept_tensors():
    t = fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    assert np.add.reduce(t, axis=None) == 10
    np.testing.assert_array_equal(np.maximum(t, 3), [[3, 3], [3, 4]])


def test_copies_when_asked_or_when_the_dtype_differs():
    t = fg.tensor([1.0, 2.0])
    c = np.array(t, copy=True)
    assert c.ctypes.data != t.data_ptr()
    c[0] = 9
    assert t[0].item() == 1.0
    d = np.asarray(t, dtype=np.float64)
    assert d.dtype == np.float64 and d.tolist() == [1.0, 2.0]
    assert t.__array__(copy=True).ctypes.data != t.data_ptr()
    assert t.__array__(copy=False).ctypes.data == t.data_ptr()


def test_bfloat16_is_a_float32_copy_and_copy_false_says_why():
    t = fg.tensor([1.5, 2.5], dtype="bfloat16")
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.tolist() == [1.5, 2.5]
    with pytest.raises(ValueError, match="bfloat16"):
        t.__array__(copy=False)


def test_a_tensor_that_requires_grad_is_viewed_too():
    # as np.asarray(t) always did through the buffer protocol: reading values is fine
    t = fg.tensor([1.0, 2.0], requires_grad=True)
    assert np.asarray(t).tolist() == [1.0, 2.0]


def test_export_object_is_the_base_and_holds_no_tensor_reference():
    t = fg.tensor([1.0])
    a = t.__array__()
    assert type(a.base).__name__ == "_ArrayExport"
    assert a.base.__array_interface__["typestr"] == "<f4"


def test_np_asarray_takes_the_buffer_protocol_and_shares_memory():
    t = fg.tensor([1.0, 2.0])
    a = np.asarray(t)
    assert isinstance(a.base, memoryview) and a.base.obj is t
    a[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
