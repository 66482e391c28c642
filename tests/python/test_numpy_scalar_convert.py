"""NumPy scalars keep their dtype in tensor/to_tensor (issue 16, item 5), and uint64
values >= 2**63 are converted by value or refused, never wrapped (item 6)."""

import json
import os
import tempfile

import ferrograd as fg
import numpy as np
import pytest


@pytest.mark.parametrize("make", [fg.tensor, fg.to_tensor])
def test_numpy_scalars_keep_their_dtype(make):
    a = np.array([1e300, 2.0])
    t = make(np.float64(1e300))
    assert t.dtype == fg.float64 and float(t) == 1e300
    assert make(a.sum()).dtype == fg.float64 and float(make(a[0])) == 1e300
    assert make(np.float32(1.5)).dtype == fg.float32
    assert make(np.int32(7)).dtype == fg.int32 and int(make(np.int32(7))) == 7
    assert make(np.complex128(1e300 + 1j)).dtype == fg.complex128
    assert make(np.bool_(True)).dtype == fg.bool
    assert make(np.float64(5e-320)).item() == 5e-320  # not flushed to 0 in float32
    assert make(np.float64(2.0), dtype="float32").dtype == fg.float32


def test_plain_python_numbers_unchanged():
    assert fg.tensor(1.5).dtype == fg.float32
    assert fg.tensor(3).dtype == fg.int64


def test_uint64_above_int64_is_never_wrapped():
    big = np.array([2**63, 2**64 - 1, 5], dtype=np.uint64)
    with pytest.raises(ValueError, match="does not fit in int64"):
        fg.tensor(big)
    with pytest.raises(ValueError, match="does not fit in int64"):
        fg.to_tensor(big)
    t = fg.to_tensor(big, dtype="float64")
    np.testing.assert_array_equal(t.numpy(), big.astype(np.float64))
    assert (t.numpy() > 0).all()
    small = np.array([0, 2**63 - 1], dtype=np.uint64)
    assert fg.tensor(small).numpy().tolist() == [0, 2**63 - 1]


def test_load_refuses_wrapping_uint64():
    from ferrograd import serialization

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "w.pdparams")
        fg.save({"w": fg.tensor([1.0])}, path)
        arrays = dict(np.load(path, allow_pickle=False))
        (key,) = [k for k in arrays if k != serialization._MANIFEST]
        arrays[key] = np.array([2**63], dtype=np.uint64)
        bad = os.path.join(d, "bad.pdparams")
        with open(bad, "wb") as f:
            np.savez(f, **arrays)
        # a version 2 storage must hold exactly its tensors' dtype
        with pytest.raises(ValueError, match="not a 1-D float32 array"):
            fg.load(bad)
        # a version 1 tensor (an array converted on load) must not wrap either
        v1 = {"kind": "dict", "items": [[["str", "w"], {"kind": "tensor", "key": key,
              "dtype": "float32", "requires_grad": False}]]}  # fmt: skip
        doc = {"format": "ferrograd.npz", "version": 1, "root": v1}
        arrays[serialization._MANIFEST] = np.frombuffer(json.dumps(doc).encode(), np.uint8)
        with open(bad, "wb") as f:
            np.savez(f, **arrays)
        with pytest.raises(ValueError, match="does not fit in int64"):
            fg.load(bad)
