"""``x.view(dtype)``: the same bytes read as another dtype, as in PyTorch and Paddle (until
session 36 it converted the values, so ``x.view(torch.int32)`` of 1.0 gave 1, not
1065353216). Checked against NumPy's ``ndarray.view`` for every pair of dtypes both have,
including the last dimension growing or shrinking with the element size. ferrograd's
result is a new buffer (a storage holds one dtype), not memory shared with ``x``."""

from __future__ import annotations

import itertools

import ferrograd as fg
import numpy as np
import pytest

torch = fg

NP = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
NP += ["complex64", "complex128"]


def sample(dtype: str, shape) -> np.ndarray:
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize)
    a = raw.astype(np.uint8).view(dtype).reshape(shape).copy()
    if dtype == "bool":
        a = a.view(np.uint8) % 2 == 1
    if np.dtype(dtype).kind in "fc":
        a.flat[:4] = [np.nan, -0.0, np.inf, 1.0][: a.size]
    return a


@pytest.mark.parametrize("src,dst", list(itertools.product(NP, NP)))
def test_view_dtype_reads_the_bytes_as_numpy_does(src, dst):
    a = sample(src, (3, 16))
    t = torch.tensor(a)
    if dst == "bool":
        # a byte read as bool is True when non-zero (NumPy keeps the raw byte)
        want = a.view(np.uint8) != 0
        got = t.view(torch.bool)
        assert got.dtype == torch.bool
        np.testing.assert_array_equal(got.numpy(), want)
        return
    got = t.view(getattr(torch, dst))
    want = a.view(dst)
    assert tuple(got.shape) == want.shape
    assert got.dtype == getattr(torch, dst)
    np.testing.assert_array_equal(got.numpy().view(np.uint8), want.view(np.uint8))


def test_strided_and_0d_inputs():
    a = sample("float32", (4, 6))
    t = torch.tensor(a).t()  # not contiguous: the bytes are read in row-major order
    np.testing.assert_array_equal(t.view(torch.int32).numpy(), np.ascontiguousarray(a.T).view("i4"))
    assert torch.tensor(1.0).view(torch.int32).item() == 1065353216
    with pytest.raises(RuntimeError, match="0-d tensor of float32"):
        torch.tensor(1.0).view(torch.float64)
    with pytest.raises(RuntimeError, match="multiple of int32's 4 bytes"):
        torch.zeros(3, dtype=torch.int8).view(torch.int32)


def test_same_dtype_is_a_view_and_other_dtypes_are_not_differentiable():
    x = torch.zeros(3)
    v = x.view(torch.float32)
    v[0] = 7.0
    assert x[0].item() == 7.0
    w = torch.ones(3, requires_grad=True)
    assert not w.view(torch.int32).requires_grad
    assert w.view(w.dtype).requires_grad


def test_paddle_spelling():
    import ferrograd as paddle

    x = paddle.to_tensor([1.0], dtype="float32")
    assert x.view("int32").tolist() == [1065353216]
    assert paddle.view(x, "int32").tolist() == [1065353216]
