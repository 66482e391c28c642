"""Session 41: PyTorch functions its docstring examples call that ferrograd lacked
(docs/user-scripts.md, "Session 41: PyTorch's docstring examples"): ``asarray``,
``gradient``, ``frombuffer``, ``empty_strided`` / ``new_empty_strided`` /
``empty_permuted``, ``as_strided_scatter``, ``is_conj`` / ``is_neg``, ``nonzero_static``.

References: PyTorch's docstrings (torch/_torch_docs.py), torch/csrc/utils/tensor_new.cpp
(``asarray``, ``tensor_frombuffer``: checks and messages), aten/src/ATen/native/
ReduceOps.cpp (``pre_check_gradient``, ``gradient_helper``, ``gradient_helper_float``),
TensorShape.cpp (``as_strided_scatter_symint``), nonzero_static's kernels ("'size' must
be an non-negative integer"); ``numpy.gradient`` for the values PyTorch follows.
"""

import array

import ferrograd as torch
import numpy as np
import pytest


def _grads_match_numpy(x, expected):
    assert len(x) == len(expected)
    for got, want in zip(x, expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


# ---- gradient -----------------------------------------------------------------


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(edge_order):
    """Scalar, per-dim scalar and coordinate spacings, all dims or one: numpy.gradient."""
    a = np.random.RandomState(0).randn(4, 5)
    t = torch.tensor(a)
    _grads_match_numpy(
        torch.gradient(t, edge_order=edge_order), np.gradient(a, edge_order=edge_order)
    )
    _grads_match_numpy(
        torch.gradient(t, spacing=[2.0, 0.5], edge_order=edge_order),
        np.gradient(a, 2.0, 0.5, edge_order=edge_order),
    )
    cx, cy = np.array([0.0, 1.0, 1.5, 3.5]), np.array([0.0, 0.3, 1.0, 2.0, 4.0])
    _grads_match_numpy(
        torch.gradient(t, spacing=[torch.tensor(cx), torch.tensor(cy)], edge_order=edge_order),
        np.gradient(a, cx, cy, edge_order=edge_order),
    )
    _grads_match_numpy(
        torch.gradient(t, spacing=[torch.tensor(cy)], dim=1, edge_order=edge_order),
        [np.gradient(a, cy, axis=1, edge_order=edge_order)],
    )
    _grads_match_numpy(
        torch.gradient(t, spacing=3.0, dim=[-1, 0], edge_order=edge_order),
        np.gradient(a, 3.0, axis=(1, 0), edge_order=edge_order),
    )


def test_gradient_docstring_examples():
    """torch/_torch_docs.py ``gradient``: f(x)=x^2 at uneven points; an int tensor with
    ``spacing=2.`` and ``dim=1`` gives floats."""
    coordinates = (torch.tensor([-2.0, -1.0, 1.0, 4.0]),)
    values = torch.tensor([4.0, 1.0, 1.0, 16.0])
    (g,) = torch.gradient(values, spacing=coordinates)
    np.testing.assert_allclose(g.numpy(), [-3.0, -2.0, 2.0, 5.0])
    t = torch.tensor([[1, 2, 4, 8], [10, 20, 40, 80]])
    g0, g1 = torch.gradient(t, spacing=2.0)
    assert g0.dtype == torch.float32
    np.testing.assert_allclose(g0.numpy(), [[4.5, 9.0, 18.0, 36.0]] * 2)
    np.testing.assert_allclose(g1.numpy(), [[0.5, 0.75, 1.5, 2.0], [5.0, 7.5, 15.0, 20.0]])
    (g,) = torch.gradient(t, dim=1)
    np.testing.assert_allclose(g.numpy(), [[1.0, 1.5, 3.0, 4.0], [10.0, 15.0, 30.0, 40.0]])


def test_gradient_is_differentiable():
    """Gradients reach the input and the coordinates (gradcheck, float64)."""
    x = torch.tensor(np.random.RandomState(1).randn(4, 3), requires_grad=True)
    c = torch.tensor([0.0, 0.7, 1.1, 2.5], requires_grad=True)
    for eo in (1, 2):
        assert torch.autograd.gradcheck(lambda x, eo=eo: torch.gradient(x, edge_order=eo), (x,))
        assert torch.autograd.gradcheck(
            lambda x, c, eo=eo: torch.gradient(x, spacing=[c], dim=0, edge_order=eo)[0], (x, c)
        )


def test_gradient_errors():
    """PyTorch's checks: edge_order, sizes, spacing length, repeated dims, uint8 / bool."""
    t = torch.ones(3, 4)
    with pytest.raises(RuntimeError, match="only supports edge_order=1 and edge_order=2"):
        torch.gradient(t, edge_order=3)
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        torch.gradient(torch.ones(2, 4), edge_order=2)
    with pytest.raises(RuntimeError, match="list of length equal to 'self.dim\\(\\) = 2'"):
        torch.gradient(t, spacing=[1.0])
    with pytest.raises(RuntimeError, match="spacing argument of length 2 and a dim"):
        torch.gradient(t, spacing=[1.0, 2.0], dim=0)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times"):
        torch.gradient(t, dim=(1, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.gradient(t, dim=2)
    with pytest.raises(RuntimeError, match="uint8"):
        torch.gradient(torch.ones(3, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="bool"):
        torch.gradient(torch.ones(3, dtype=torch.bool))
    with pytest.raises(RuntimeError, match="one dimension"):
        torch.gradient(t, spacing=[torch.ones(3, 1)], dim=0)
    with pytest.raises(RuntimeError, match="4 elements"):
        torch.gradient(t, spacing=[torch.arange(3.0)], dim=1)


# ---- asarray / frombuffer -----------------------------------------------------


def test_asarray_shares_and_copies():
    """torch/_torch_docs.py ``asarray``: tensors and arrays are aliased unless a copy is
    asked for or another dtype needs one; ``copy=False`` then raises."""
    a = torch.tensor([1.0, 2.0, 3.0])
    b = torch.asarray(a)
    assert b.data_ptr() == a.data_ptr()
    c = torch.asarray(a, copy=True)
    assert c.data_ptr() != a.data_ptr()
    d = torch.asarray(a, dtype=torch.float64)
    assert d.dtype == torch.float64 and d.data_ptr() != a.data_ptr()
    with pytest.raises(ValueError, match="can't alias tensor with dtype"):
        torch.asarray(a, dtype=torch.float64, copy=False)
    arr = np.array([1.0, 2.0])
    t = torch.asarray(arr)
    arr[0] = 5.0
    assert t.dtype == torch.float64 and t.tolist() == [5.0, 2.0]
    assert torch.asarray(arr, copy=True).data_ptr() != t.data_ptr()
    with pytest.raises(ValueError, match="can't alias arbitrary sequence"):
        torch.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="can't alias NumPy scalars"):
        torch.asarray(np.float64(1.0), copy=False)
    assert torch.asarray(np.float64(2.5)).dtype == torch.float64
    with pytest.raises(ValueError, match="CPU only"):
        torch.asarray([1.0], device="cuda")


def test_asarray_sequences_buffers_and_grad():
    """Type inference for sequences, the default dtype for a buffer, and requires_grad:
    a non-leaf is detached unless requires_grad=True (then kept, as PyTorch does)."""
    assert torch.asarray([1, 2]).dtype == torch.int64
    assert torch.asarray([1.0, 2]).dtype == torch.float32
    assert torch.asarray([1, 2], dtype=torch.float64).dtype == torch.float64
    buf = bytearray(np.array([1.0, 2.0], dtype=np.float32).tobytes())
    t = torch.asarray(buf)
    assert t.dtype == torch.float32 and t.tolist() == [1.0, 2.0]
    t[1] = 7.0
    assert np.frombuffer(buf, dtype=np.float32).tolist() == [1.0, 7.0]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert not torch.asarray(y).requires_grad
    assert torch.asarray(y, requires_grad=True) is y
    z = torch.asarray(x)
    assert not z.requires_grad and x.requires_grad and z.data_ptr() == x.data_ptr()
    assert torch.asarray([1.0], requires_grad=True).requires_grad


def test_frombuffer_shares_memory():
    """torch/_torch_docs.py ``frombuffer``: writes show on both sides; count / offset."""
    a = array.array("i", [1, 2, 3])
    t = torch.frombuffer(a, dtype=torch.int32)
    assert t.dtype == torch.int32 and t.tolist() == [1, 2, 3]
    t[0] = -1
    assert a[0] == -1
    assert torch.frombuffer(a, dtype=torch.int32, count=2, offset=4).tolist() == [2, 3]
    b = torch.frombuffer(b"\x01\x02\x03", dtype=torch.int8)
    assert b.tolist() == [1, 2, 3]
    f = torch.frombuffer(bytearray(8), dtype=torch.float32, requires_grad=True)
    assert f.requires_grad and f.shape == [2]


def test_frombuffer_errors():
    """tensor_frombuffer's ValueErrors, in its words."""
    with pytest.raises(ValueError, match="must not be 0"):
        torch.frombuffer(b"", dtype=torch.int8)
    with pytest.raises(ValueError, match="offset \\(4 bytes\\) must be non-negative"):
        torch.frombuffer(b"abcd", dtype=torch.int8, offset=4)
    with pytest.raises(ValueError, match="must be a multiple of element size \\(4\\)"):
        torch.frombuffer(b"abcde", dtype=torch.int32)
    with pytest.raises(ValueError, match="must not be greater than actual buffer length"):
        torch.frombuffer(b"abcd", dtype=torch.int16, count=3)
    with pytest.raises(TypeError, match="could not retrieve buffer"):
        torch.frombuffer([1, 2], dtype=torch.int8)


# ---- empty_strided / new_empty_strided / empty_permuted -------------------------


def test_empty_strided_and_permuted_strides():
    """The strides as given (torch/_torch_docs.py ``empty_strided``: ``(2, 3)`` with
    ``(1, 2)``); ``empty_permuted((2, 3, 5, 7), (0, 2, 3, 1))`` is channels-last."""
    a = torch.empty_strided((2, 3), (1, 2))
    assert a.stride() == (1, 2) and a.shape == [2, 3] and a.dtype == torch.float32
    assert torch.empty_strided((2, 3), (0, 1)).stride() == (0, 1)
    assert torch.empty_strided((0, 3), (3, 1)).shape == [0, 3]
    b = torch.empty_permuted((2, 3, 5, 7), (0, 2, 3, 1))
    assert b.shape == [2, 3, 5, 7] and b.stride() == (105, 1, 21, 3)
    x = torch.zeros(2, dtype=torch.int32)
    n = x.new_empty_strided((2, 3), (1, 2))
    assert n.dtype == torch.int32 and n.stride() == (1, 2)
    assert x.new_empty_strided((2,), (1,), dtype=torch.float64).dtype == torch.float64
    assert torch.empty_strided((2,), (1,), requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="mismatch in length"):
        torch.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match="negative strides"):
        torch.empty_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match="does not match the length"):
        torch.empty_permuted((2, 3), (0,))
    with pytest.raises(RuntimeError, match="permutation"):
        torch.empty_permuted((2, 3), (0, 0))


# ---- as_strided_scatter -------------------------------------------------------


def test_as_strided_scatter_docstring_and_grad():
    """torch/_torch_docs.py ``as_strided_scatter`` example; gradcheck in input and src."""
    a = torch.arange(4).reshape(2, 2) + 1
    out = torch.as_strided_scatter(torch.zeros(3, 3), a, (2, 2), (1, 2))
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 2], [4, 0, 0], [0, 0, 0]])
    assert out.dtype == torch.float32
    m = torch.zeros(3, 3).as_strided_scatter(a.float(), (2, 2), (1, 2), 1)
    np.testing.assert_array_equal(m.numpy(), [[0, 1, 3], [2, 4, 0], [0, 0, 0]])
    x = torch.tensor(np.random.RandomState(2).randn(3, 3), requires_grad=True)
    s = torch.tensor(np.random.RandomState(3).randn(2, 2), requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda x, s: torch.as_strided_scatter(x, s, (2, 2), (1, 2), 1), (x, s)
    )


def test_as_strided_scatter_noncontiguous_and_errors():
    """Positions count in the input's memory (as_strided's rule): for a transposed
    input, storage position p is the element whose memory position is p."""
    base = torch.zeros(2, 3)
    xt = base.t()  # shape (3, 2), strides (1, 3)
    out = torch.as_strided_scatter(xt, torch.tensor([1.0, 2.0]), (2,), (1,))
    np.testing.assert_array_equal(out.numpy(), [[1, 0], [2, 0], [0, 0]])
    with pytest.raises(RuntimeError, match="expected src to have a size equal"):
        torch.as_strided_scatter(torch.zeros(3, 3), torch.ones(3), (2,), (1,))
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        torch.as_strided_scatter(torch.zeros(3), torch.ones(2), (2,), (0,))
    with pytest.raises(Exception, match="memory|storage|bounds|past"):
        torch.as_strided_scatter(torch.zeros(3), torch.ones(3), (3,), (2,))


# ---- is_conj / is_neg / nonzero_static ----------------------------------------


def test_is_conj_is_neg_false():
    """No lazy bits in ferrograd: always False (PyTorch's after resolve_conj/neg)."""
    z = torch.tensor([1 + 2j])
    assert torch.is_conj(z.conj()) is False and z.conj().is_conj() is False
    assert torch.is_neg(z) is False and z.is_neg() is False
    assert z.conj().resolve_conj().tolist() == [1 - 2j]
    with pytest.raises(TypeError):
        torch.is_conj([1])


def test_nonzero_static():
    """torch/_torch_docs.py ``nonzero_static``: padded with fill_value, or cut."""
    x = torch.tensor([[1, 0], [0, 1]])
    out = torch.nonzero_static(x, size=4)
    assert out.dtype == torch.int64
    np.testing.assert_array_equal(out.numpy(), [[0, 0], [1, 1], [-1, -1], [-1, -1]])
    np.testing.assert_array_equal(x.nonzero_static(size=1).numpy(), [[0, 0]])
    np.testing.assert_array_equal(
        torch.nonzero_static(torch.tensor([0, 0, 1]), size=2, fill_value=9).numpy(), [[2], [9]]
    )
    assert torch.nonzero_static(x, size=0).shape == [0, 2]
    with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
        torch.nonzero_static(x, size=-1)
