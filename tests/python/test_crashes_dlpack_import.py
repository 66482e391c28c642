"""from_dlpack validates the capsule's metadata with checked arithmetic before reading
(issue 16 item 12). Hand-made capsules (ctypes) carry hostile shapes and strides."""

from __future__ import annotations

import ctypes

import ferrograd as fg
import numpy as np
import pytest


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
KEEP: list = []  # the structures must outlive the tensors made from them


def capsule(shape, strides=None, data=True, byte_offset=0):
    buf = (ctypes.c_float * 16)(*range(16))
    n = len(shape)
    shp = (ctypes.c_int64 * max(n, 1))(*shape)
    std = (ctypes.c_int64 * max(n, 1))(*strides) if strides is not None else None
    m = DLManagedTensor()
    m.dl_tensor.data = ctypes.addressof(buf) if data else None
    m.dl_tensor.device = DLDevice(1, 0)  # CPU
    m.dl_tensor.ndim = n
    m.dl_tensor.dtype = DLDataType(2, 32, 1)  # float32
    m.dl_tensor.shape = shp
    m.dl_tensor.strides = std if std is not None else None
    m.dl_tensor.byte_offset = byte_offset
    KEEP.extend([buf, shp, std, m])
    return _new_capsule(ctypes.addressof(m), b"dltensor", None)


def test_an_honest_capsule_reads_back():
    t = fg.from_dlpack(capsule([2, 3], [3, 1]))
    np.testing.assert_array_equal(t.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    t = fg.from_dlpack(capsule([4], [-1], byte_offset=12))  # negative stride from element 3
    np.testing.assert_array_equal(t.numpy(), [3, 2, 1, 0])


@pytest.mark.parametrize(
    ("shape", "strides", "data", "byte_offset"),
    [
        ([4, 4], [2**61, 2**61], True, 0),  # stride x shape wraps: was a segfault on read
        ([3], [2**62], True, 0),  # was a panic
        ([2**63 - 1, 2], None, True, 0),  # numel overflows: was a panic
        ([2, 2], None, False, 0),  # NULL data, non-empty shape: was a segfault
        ([2], None, True, 2**64 - 4),  # byte offset wraps the address
        ([2**62], [1], True, 0),  # larger than the address space in bytes
        ([-1], None, True, 0),  # negative dimension
        ([3, 3], [-(2**62), 2**62], True, 0),  # reaches below address 0
    ],
    ids=["wrap", "huge-stride", "numel", "null", "offset", "bytes", "negative", "below-0"],
)
def test_hostile_metadata_is_refused(shape, strides, data, byte_offset):
    with pytest.raises((ValueError, MemoryError, BufferError)):
        fg.from_dlpack(capsule(shape, strides, data, byte_offset))


def test_an_empty_capsule_with_a_null_pointer_is_fine():
    t = fg.from_dlpack(capsule([0, 5], None, data=False))
    assert t.shape == [0, 5] and t.numpy().shape == (0, 5)
