"""``torch.as_tensor`` (shares a NumPy array's memory where it can) and NumPy arrays in
non-native byte order (their dtype is kept, as in PyTorch)."""

import ferrograd as fg
import numpy as np
import pytest


def test_as_tensor_shares_a_numpy_array_of_the_same_dtype():
    a = np.ones(3)
    x = fg.as_tensor(a)
    a[0] = 5.0
    assert x.tolist() == [5.0, 1.0, 1.0] and x.dtype == fg.float64


def test_as_tensor_copies_for_another_dtype():
    a = np.ones(3)
    y = fg.as_tensor(a, dtype=fg.float32)
    a[0] = 5.0
    assert y.tolist() == [1.0, 1.0, 1.0] and y.dtype == fg.float32
    assert fg.as_tensor(a, dtype="float32").dtype == fg.float32


def test_as_tensor_of_a_tensor_is_the_tensor_unless_cast():
    z = fg.ones(2)
    assert fg.as_tensor(z) is z
    assert fg.as_tensor(z, fg.float32) is z
    assert fg.as_tensor(z, dtype="float64").dtype == fg.float64


def test_as_tensor_of_python_data_follows_tensor():
    assert fg.as_tensor([1, 2]).dtype == fg.int64
    assert fg.as_tensor([1.0, 2.0]).dtype == fg.float32
    assert fg.as_tensor(np.float32(2)).dtype == fg.float32
    assert fg.as_tensor([1, 2], device="cpu").tolist() == [1, 2]
    with pytest.raises(ValueError, match="CPU only"):
        fg.as_tensor([1, 2], device="cuda")


@pytest.mark.parametrize(
    "code,dtype",
    [
        (">f4", fg.float32),
        (">f8", fg.float64),
        (">i4", fg.int32),
        (">i2", fg.int16),
        (">c8", fg.complex64),
    ],
)
def test_byte_swapped_arrays_keep_their_dtype(code, dtype):
    a = np.arange(4, dtype=code) * 3
    for make in (fg.tensor, fg.to_tensor, fg.as_tensor):
        t = make(a)
        assert t.dtype == dtype, (make, code)
        np.testing.assert_array_equal(t.numpy(), a.astype(a.dtype.newbyteorder("=")))


def test_from_numpy_still_refuses_to_share_a_byte_swapped_array():
    with pytest.raises(TypeError, match="cannot share memory"):
        fg.from_numpy(np.ones(2, dtype=">f4"))
