"""Every dtype-to-dtype cast (12 x 12) against NumPy, on contiguous and strided views.

The cast kernel compiles one small loop per dtype pair and shares the threading and
strided walk per output dtype (issue 24, build time); these tests pin its values for
every pair and every way a view can be laid out."""

import ferrograd as fg
import numpy as np
import pytest

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]

# Values every source dtype can hold exactly, chosen so that NumPy's cast is defined for
# every target: no negative or fractional values into unsigned, no NaN into integers.
SOURCE = {
    "bool": [True, False, True, True, False, True],
    "uint8": [0, 1, 200, 255, 7, 128],
    "int8": [0, 1, -1, 127, -128, 5],
    "int16": [0, 300, -300, 32767, -2, 9],
    "int32": [0, 70000, -70000, 1 << 30, -5, 3],
    "int64": [0, 1 << 40, -(1 << 40) - 3, 300, -1, 2],
    "float16": [0.0, 1.5, -2.25, 3.0, 100.0, -0.0],
    "bfloat16": [0.0, 1.5, -2.25, 3.0, 96.0, -0.0],
    "float32": [0.0, 1.5, -2.75, 3.0, 1e6, -0.0],
    "float64": [0.0, 1.5, -2.75, 3.0, 1e12, -0.0],
    "complex64": [0j, 1j, 2 - 1j, -3.5 + 0j, 1.25 + 4j, 0.5j],
    "complex128": [0j, 1j, 2 - 1j, -3.5 + 0j, 1.25 + 4j, 0.5j],
}


def as_numpy_dtype(name):
    # NumPy has no bfloat16: its values are compared in float32
    return np.float32 if name == "bfloat16" else np.dtype(name)


def expected(values, src, dst):
    a = np.asarray(values, dtype=as_numpy_dtype(src))
    if dst == "bool":
        return a != 0  # truthiness; for complex: either part nonzero
    if np.issubdtype(a.dtype, np.complexfloating) and dst not in ("complex64", "complex128"):
        a = a.real  # complex to real keeps the real part
    if np.issubdtype(a.dtype, np.floating) and np.dtype(as_numpy_dtype(dst)).kind in "iu":
        # floats to integers truncate toward zero, then wrap (through int64)
        a = np.trunc(a).astype(np.int64)
    if src == "bfloat16" or dst == "bfloat16":
        out = a.astype(np.float32)
        if dst == "bfloat16":
            out = fg.tensor(out).astype("bfloat16").astype("float32").numpy()
        return out if dst == "bfloat16" else out.astype(as_numpy_dtype(dst))
    with np.errstate(all="ignore"):
        return a.astype(dst)


def source_tensor(src):
    a = np.asarray(SOURCE[src], dtype=as_numpy_dtype(src))
    x = fg.tensor(a)
    return x.astype(src) if src == "bfloat16" else x


def check(got, want, dst):
    got = got.astype("float32") if dst == "bfloat16" else got
    assert got.dtype == fg.float32 if dst == "bfloat16" else str(got.dtype).endswith(dst)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_cast_every_pair_contiguous(src, dst):
    x = source_tensor(src)
    got = x.astype(dst)
    assert str(got.dtype).endswith(dst)
    check(got, expected(SOURCE[src], src, dst), dst)


@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_cast_every_pair_strided(src, dst):
    x = source_tensor(src).reshape([2, 3])
    want = expected(SOURCE[src], src, dst).reshape(2, 3)
    check(x.t().astype(dst), want.T, dst)  # transposed: inner stride 3
    check(x[:, ::2].astype(dst), want[:, ::2], dst)  # inner stride 2
    check(x[::-1, ::-1].astype(dst), want[::-1, ::-1], dst)  # negative strides
    check(x[1:, 1:].astype(dst), want[1:, 1:], dst)  # offset view


@pytest.mark.parametrize("dst", ["float16", "float64", "int64", "bool"])
def test_cast_large_strided_runs_in_parallel_chunks(dst):
    # large enough to be split across threads (contiguous and row by row)
    a = np.arange(300 * 301, dtype=np.float32).reshape(300, 301) - 40000.0
    x = fg.tensor(a)
    want = expected(a.ravel(), "float32", dst).reshape(a.shape)
    check(x.astype(dst), want, dst)
    check(x.t().astype(dst), want.T, dst)


def test_complex_to_bool_is_nonzero_in_either_part():
    x = fg.tensor(np.array([1j, 0j, -2 + 0j, 0.5 - 0.5j]))
    assert x.astype("bool").tolist() == [True, False, True, True]
    assert x.bool().tolist() == [True, False, True, True]


def test_empty_views_cast():
    x = fg.zeros([0, 3], dtype="int16")
    assert x.astype("float32").shape == [0, 3]
    assert x.t().astype("complex64").shape == [3, 0]
