"""DLPack (``__dlpack__``, ``__dlpack_device__``, ``from_dlpack``) and the buffer protocol
(``memoryview``, ``np.asarray``): zero-copy sharing both ways, read-only exports, dtypes,
lifetimes and clear errors."""

from __future__ import annotations

import array
import gc
import importlib.util
import sys
import weakref

import ferrograd as fg
import numpy as np
import pytest

# NumPy before 2.1 (the last NumPy for Python 3.9 is 2.0) imports DLPack read-only, has no
# versioned capsules and no `copy=` in from_dlpack.
needs_numpy_2_1 = pytest.mark.skipif(
    np.lib.NumpyVersion(np.__version__) < "2.1.0",
    reason="needs NumPy >= 2.1's DLPack (versioned capsules, copy=, writable imports)",
)

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


def sample(dtype, shape=(3, 4)):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 5
    if dtype == "bool":
        return a % 2 == 0
    if dtype.startswith("complex"):
        return (a + 1j * a[::-1]).astype(dtype)
    return a.astype(dtype)


# ---------------------------------------------------------------------------------------
# DLPack: ferrograd -> NumPy
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_reads_a_tensor_through_dlpack_without_copying(dtype):
    t = fg.tensor(sample(dtype))
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(a, sample(dtype))
    assert a.ctypes.data == t.data_ptr()


@needs_numpy_2_1
def test_dlpack_export_shares_writes_both_ways():
    t = fg.zeros(2, 3, dtype="float64")
    a = np.from_dlpack(t)
    a[1, 2] = 7.0
    assert t[1, 2].item() == 7.0
    t.fill_(1.5)
    assert (a == 1.5).all()


def test_dlpack_exports_strided_views():
    base = fg.tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
    view = base.t()[1:5:2]
    a = np.from_dlpack(view)
    np.testing.assert_array_equal(a, np.arange(24, dtype=np.float32).reshape(4, 6).T[1:5:2])
    assert a.ctypes.data == view.data_ptr()


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (1,)])
def test_dlpack_zero_d_and_empty(shape):
    t = fg.ones(*shape, dtype="float32") if shape else fg.tensor(3.0)
    a = np.from_dlpack(t)
    assert a.shape == shape
    np.testing.assert_array_equal(a, t.numpy())


def test_dlpack_device():
    assert fg.ones(2).__dlpack_device__() == (1, 0)


def test_dlpack_export_keeps_the_storage_alive():
    t = fg.tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(t)
    del t
    gc.collect()
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])


def test_dlpack_refuses_tensors_that_require_grad():
    x = fg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.__dlpack__()
    np.testing.assert_array_equal(np.from_dlpack(x.detach()), [1.0, 1.0])


@needs_numpy_2_1
def test_dlpack_copy_true_exports_a_copy():
    t = fg.ones(3)
    a = np.from_dlpack(t, copy=True)
    a[0] = 5
    assert t[0].item() == 1.0


def test_dlpack_rejects_other_devices_and_streams():
    t = fg.ones(2)
    with pytest.raises(BufferError, match="CPU"):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(ValueError, match="stream"):
        t.__dlpack__(stream=5)
    t.__dlpack__(stream=None, dl_device=(1, 0))


def test_capsules_release_the_storage_whether_consumed_or_not():
    a = np.arange(4.0)
    base = sys.getrefcount(a)
    t = fg.from_numpy(a)  # the storage holds a reference to `a`
    caps = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    consumed = np.from_dlpack(t)
    del t
    gc.collect()
    assert sys.getrefcount(a) > base
    del caps, consumed
    gc.collect()
    assert sys.getrefcount(a) == base


# ---------------------------------------------------------------------------------------
# DLPack: NumPy -> ferrograd
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_numpy_shares_memory(dtype):
    a = sample(dtype)
    t = fg.from_dlpack(a)
    assert str(t.dtype).endswith(dtype)
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.data_ptr() == a.ctypes.data
    assert not t.requires_grad


def test_from_dlpack_writes_are_seen_by_numpy():
    a = np.zeros((2, 2))
    t = fg.from_dlpack(a)
    t.add_(1.0)
    np.testing.assert_array_equal(a, np.ones((2, 2)))
    a[0, 0] = 9
    assert t[0, 0].item() == 9


def test_from_dlpack_of_strided_and_negative_stride_arrays():
    a = np.arange(30.0).reshape(5, 6)[::2, ::-3]
    t = fg.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal((t * 2).numpy(), a * 2)


def test_from_dlpack_keeps_the_producer_alive():
    a = np.arange(6.0) * 1
    view = a[1:]
    ref = weakref.ref(view)
    t = fg.from_dlpack(view)
    del a, view
    gc.collect()
    assert ref() is not None  # NumPy's export holds its array until we release it
    np.testing.assert_array_equal(t.numpy(), np.arange(1.0, 6.0))
    del t
    gc.collect()
    assert ref() is None


@needs_numpy_2_1
def test_from_dlpack_read_only_numpy_gives_a_read_only_tensor():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = fg.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1.0)
    np.testing.assert_array_equal((t + 1).numpy(), a + 1)


@needs_numpy_2_1
def test_read_only_tensor_exports_only_through_versioned_capsules():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = fg.from_dlpack(a)
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()
    back = np.from_dlpack(t)  # NumPy asks for a versioned capsule
    assert not back.flags.writeable
    np.testing.assert_array_equal(back, a)


def test_from_dlpack_accepts_capsules_once():
    a = np.arange(3.0)
    cap = a.__dlpack__()
    t = fg.from_dlpack(cap)
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ValueError, match="already consumed"):
        fg.from_dlpack(cap)


def test_from_dlpack_round_trip_through_ferrograd_capsules():
    t = fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    for cap in (t.__dlpack__(), t.__dlpack__(max_version=(1, 0))):
        u = fg.from_dlpack(cap)
        assert u.data_ptr() == t.data_ptr()
        np.testing.assert_array_equal(u.numpy(), t.numpy())


def test_bfloat16_round_trips_through_dlpack():
    t = fg.tensor([1.5, -2.0, 3.25], dtype="bfloat16")
    u = fg.from_dlpack(t.__dlpack__(max_version=(1, 0)))
    assert str(u.dtype).endswith("bfloat16")
    assert u.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(u.astype("float32").numpy(), [1.5, -2.0, 3.25])


def test_from_dlpack_of_a_tensor_is_a_detached_alias():
    x = fg.ones(3, requires_grad=True)
    y = fg.from_dlpack(x)
    assert not y.requires_grad and y.data_ptr() == x.data_ptr()
    assert fg.from_dlpack(x, copy=True).data_ptr() != x.data_ptr()


def test_from_dlpack_bad_inputs():
    with pytest.raises(TypeError, match="__dlpack__"):
        fg.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="dtype"):
        fg.from_dlpack(np.arange(3, dtype=np.uint16))

    class OnGpu:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, **kwargs):
            raise AssertionError("must not be asked for a capsule")

    with pytest.raises(BufferError, match="CPU"):
        fg.from_dlpack(OnGpu())
    fg.from_dlpack(np.ones(2))  # and the next call works


def test_from_dlpack_copy_is_independent():
    a = np.zeros(3)
    t = fg.from_dlpack(a, copy=True)
    a[0] = 1
    assert t[0].item() == 0


# ---------------------------------------------------------------------------------------
# torch (skipped when torch is not installed)
# ---------------------------------------------------------------------------------------

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch absent")


@needs_torch
@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "int64", "bool", "complex64", "float16", "bfloat16"]
)
def test_torch_round_trip(dtype):
    import torch

    tt = torch.arange(6).reshape(2, 3).to(getattr(torch, dtype))
    f = fg.from_dlpack(tt)
    assert f.data_ptr() == tt.data_ptr()
    back = torch.from_dlpack(f)
    assert back.data_ptr() == tt.data_ptr()
    assert back.dtype == tt.dtype
    assert torch.equal(back, tt)
    f2 = fg.from_dlpack(tt.t())  # a strided view
    assert f2.stride() == tt.t().stride()
    assert torch.equal(torch.from_dlpack(f2), tt.t())


# ---------------------------------------------------------------------------------------
# the buffer protocol
# ---------------------------------------------------------------------------------------

FORMATS = {
    "bool": "?",
    "int32": "i",
    "int64": "q",
    "float16": "e",
    "float32": "f",
    "float64": "d",
    "complex64": "Zf",
    "complex128": "Zd",
}


@pytest.mark.parametrize("dtype", DTYPES)
def test_memoryview_reads_the_tensor(dtype):
    t = fg.tensor(sample(dtype))
    m = memoryview(t)
    assert m.format == FORMATS[dtype]
    assert m.shape == (3, 4)
    assert m.itemsize == t.element_size()
    assert not m.readonly
    np.testing.assert_array_equal(np.asarray(m), sample(dtype))
    m.release()


def test_numpy_functions_read_a_tensor_directly():
    t = fg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr()
    a[0, 0] = 10
    assert t[0, 0].item() == 10
    assert np.add.reduce(t, axis=None) == 19  # ufuncs read the buffer directly
    assert np.dot(t.flatten(), t.flatten()) == 100 + 4 + 9 + 16
    np.testing.assert_array_equal(np.maximum(t, 3), [[10, 3], [3, 4]])


def test_buffer_of_a_strided_view():
    base = fg.tensor(np.arange(12.0).reshape(3, 4))
    v = base[:, ::-2]
    m = memoryview(v)
    assert m.strides == (32, -16)
    np.testing.assert_array_equal(np.asarray(m), np.arange(12.0).reshape(3, 4)[:, ::-2])
    with pytest.raises(BufferError, match="contiguous"):
        array.array("d").frombytes(v)  # asks for a plain contiguous buffer
    assert array.array("d", bytes(m)).tolist() == [3.0, 1.0, 7.0, 5.0, 11.0, 9.0]


def test_buffer_keeps_the_storage_alive():
    t = fg.tensor([1.0, 2.0])
    m = memoryview(t)
    del t
    gc.collect()
    assert m.tolist() == [1.0, 2.0]


def test_read_only_storage_gives_a_read_only_buffer():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = fg.from_numpy(a)
    m = memoryview(t)
    assert m.readonly
    with pytest.raises(TypeError):
        m[0] = 1.0


def test_read_only_storage_gives_a_read_only_array():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = fg.from_numpy(a)
    b = np.asarray(t)
    assert not b.flags.writeable


def test_bfloat16_has_no_buffer_format():
    t = fg.tensor([1.5, 2.5], dtype="bfloat16")
    with pytest.raises(BufferError, match="bfloat16"):
        memoryview(t)


def test_bfloat16_asarray_is_a_float32_copy():
    t = fg.tensor([1.5, 2.5], dtype="bfloat16")
    a = np.asarray(t)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [1.5, 2.5])


def test_buffer_zero_d_and_empty():
    m = memoryview(fg.tensor(2.5))
    assert m.shape == () and m.tolist() == 2.5
    e = memoryview(fg.zeros(0, 3))
    assert e.shape == (0, 3) and e.nbytes == 0


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6.0).reshape(2, 3)
    t = fg.from_numpy(a)
    a[0, 0] = -1
    assert t[0, 0].item() == -1
    t.mul_(2.0)
    np.testing.assert_array_equal(a, np.array([[-1, 1, 2], [3, 4, 5]]) * 2.0)
    assert np.asarray(t).ctypes.data == a.ctypes.data
