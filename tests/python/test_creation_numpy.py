"""``from_numpy`` memory sharing, conversions back to Python/NumPy, shape introspection
and repr."""

from __future__ import annotations

import gc
import operator

import ferrograd as fg
import numpy as np
import pytest
from creation_support import NUMPY_NATIVE

# ---------------------------------------------------------------------------------------
# from_numpy
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("npdtype", NUMPY_NATIVE)
def test_from_numpy_keeps_dtype(npdtype):
    a = np.ones((2, 2), dtype=npdtype)
    t = fg.from_numpy(a)
    assert t.dtype.name == np.dtype(npdtype).name
    np.testing.assert_array_equal(t.numpy(), a)


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = fg.from_numpy(a)
    a[0, 0] = 100.0
    assert t.numpy()[0, 0] == 100.0
    t.add_(1.0)
    np.testing.assert_array_equal(a, [[101, 2, 3], [4, 5, 6]])
    t.mul_(2.0)
    np.testing.assert_array_equal(a, [[202, 4, 6], [8, 10, 12]])
    t.zero_()
    assert not a.any()


def test_from_numpy_strided_and_reversed_views():
    base = np.arange(6, dtype=np.float32)
    v = base[::2]
    t = fg.from_numpy(v)
    np.testing.assert_array_equal(t.numpy(), [0, 2, 4])
    v[1] = 50.0
    np.testing.assert_array_equal(t.numpy(), [0, 50, 4])
    r = np.arange(6.0)[::-1]
    tr = fg.from_numpy(r)
    np.testing.assert_array_equal(tr.numpy(), [5, 4, 3, 2, 1, 0])
    tr.fill_(2.0)
    assert (r == 2.0).all()


def test_from_numpy_keeps_array_alive():
    a = np.arange(4.0)
    t = fg.from_numpy(a)
    del a
    gc.collect()
    np.testing.assert_array_equal((t + 0).numpy(), [0, 1, 2, 3])


def test_from_numpy_readonly_array_rejects_inplace():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = fg.from_numpy(a)
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1.0)


def test_from_numpy_rejects_unsupported_inputs():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        fg.from_numpy([1, 2])
    with pytest.raises(TypeError, match="uint16"):
        fg.from_numpy(np.zeros(2, np.uint16))


# ---------------------------------------------------------------------------------------
# conversions back to Python and NumPy
# ---------------------------------------------------------------------------------------


def test_numpy_returns_a_copy():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    n = x.numpy()
    n[0, 0] = -1.0
    assert x.numpy()[0, 0] == 1.0


def test_tolist():
    assert fg.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert fg.tensor([[1.5], [2.5]]).tolist() == [[1.5], [2.5]]
    assert fg.tensor([True, False]).tolist() == [True, False]
    assert fg.tensor([1 + 2j]).tolist() == [1 + 2j]
    assert fg.tensor(3).tolist() == 3
    assert fg.zeros(0, 2).tolist() == []


@pytest.mark.parametrize(
    ("t", "value", "pytype"),
    [
        (fg.tensor(2.5), 2.5, float),
        (fg.tensor([2.5], dtype="float64"), 2.5, float),
        (fg.tensor([[7]]), 7, int),
        (fg.tensor(7, dtype="int32"), 7, int),
        (fg.tensor(True), True, bool),
        (fg.tensor(1j), 1j, complex),
        (fg.tensor(1.5, dtype="bfloat16"), 1.5, float),
        (fg.tensor(-0.5, dtype="float16"), -0.5, float),
    ],
)
def test_item(t, value, pytype):
    assert t.item() == value
    assert type(t.item()) is pytype


def test_asarray_protocol():
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray(x)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [[1, 2], [3, 4]])
    assert np.asarray(x, dtype=np.int32).dtype == np.int32
    assert np.array(fg.tensor([1.5], dtype="bfloat16")).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(fg.tensor([np.nan, np.inf])), [np.nan, np.inf])


def test_python_number_protocols():
    assert float(fg.tensor([2.5])) == 2.5
    assert float(fg.tensor(3)) == 3.0
    assert int(fg.tensor(-2.7)) == -2
    assert int(fg.tensor(2.7)) == 2
    assert int(fg.tensor([2**62 + 1])) == 2**62 + 1
    assert int(fg.tensor(True)) == 1
    assert bool(fg.tensor(0.0)) is False
    assert bool(fg.tensor([1])) is True
    assert bool(fg.tensor(1j)) is True
    assert bool(fg.tensor(0j)) is False
    assert operator.index(fg.tensor(3)) == 3
    assert operator.index(fg.tensor(True)) == 1
    assert [10, 20, 30][fg.tensor(1)] == 20
    assert complex(fg.tensor(1 + 2j)) == 1 + 2j
    with pytest.raises(TypeError, match="integer"):
        operator.index(fg.tensor(3.0))
    with pytest.raises(ValueError, match="NaN"):
        int(fg.tensor(float("nan")))


def test_shape_introspection():
    x = fg.zeros(2, 3, 4)
    assert x.shape == [2, 3, 4]
    assert x.shape == (2, 3, 4)
    assert x.shape != [2, 3]
    assert x.shape != (4, 3, 2)
    assert isinstance(x.shape, tuple)
    assert x.shape[1:] == (3, 4)
    assert x.shape[-1] == 4
    assert x.size() == (2, 3, 4)
    assert x.size() == [2, 3, 4]
    assert x.size(1) == 3
    assert x.size(-1) == 4
    assert x.ndim == 3
    assert x.dim() == 3
    assert x.numel() == 24
    assert fg.numel(x) == 24
    assert len(x) == 2
    assert x.shape.numel() == 24
    assert x.shape + [5] == [2, 3, 4, 5]
    assert x.shape + (5,) == (2, 3, 4, 5)
    assert hash(x.shape) == hash((2, 3, 4))
    s = fg.tensor(1.0)
    assert s.shape == () and s.shape == [] and s.ndim == 0 and s.numel() == 1
    with pytest.raises(TypeError, match="0-d"):
        len(s)


def test_repr_mentions_dtype_and_grad():
    assert "float64" in repr(fg.tensor([1.0], dtype="float64"))
    assert "requires_grad=True" in repr(fg.ones(1, requires_grad=True))
    assert "grad_fn" in repr(fg.ones(1, requires_grad=True) * 2)


# ---------------------------------------------------------------------------------------
# grad flags on factories
# ---------------------------------------------------------------------------------------

FACTORIES = {
    "zeros": lambda **kw: fg.zeros(2, **kw),
    "ones": lambda **kw: fg.ones(2, **kw),
    "empty": lambda **kw: fg.empty(2, **kw),
    "full": lambda **kw: fg.full([2], 1.5, **kw),
    "rand": lambda **kw: fg.rand(2, **kw),
    "randn": lambda **kw: fg.randn(2, **kw),
    "zeros_like": lambda **kw: fg.zeros_like(fg.ones(2), **kw),
    "ones_like": lambda **kw: fg.ones_like(fg.ones(2), **kw),
    "full_like": lambda **kw: fg.full_like(fg.ones(2), 3.0, **kw),
    "empty_like": lambda **kw: fg.empty_like(fg.ones(2), **kw),
}
STOP_GRADIENT_FACTORIES = list(FACTORIES)
TORCH_ONLY = {
    "arange": lambda **kw: fg.arange(3.0, **kw),
    "linspace": lambda **kw: fg.linspace(0, 1, 3, **kw),
    "eye": lambda **kw: fg.eye(2, **kw),
    "tensor": lambda **kw: fg.tensor([1.0, 2.0], **kw),
}


@pytest.mark.parametrize("grad_on", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("name", list(FACTORIES) + list(TORCH_ONLY))
def test_requires_grad_flag_on_factories(name, grad_on):
    make = {**FACTORIES, **TORCH_ONLY}[name]
    with fg.set_grad_enabled(grad_on):
        plain = make()
        flagged = make(requires_grad=True)
    assert not plain.requires_grad
    assert plain.stop_gradient
    assert flagged.requires_grad
    assert not flagged.stop_gradient
    assert flagged.is_leaf
    assert flagged.grad is None


@pytest.mark.parametrize("grad_on", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("name", STOP_GRADIENT_FACTORIES)
def test_stop_gradient_flag_on_factories(name, grad_on):
    with fg.set_grad_enabled(grad_on):
        t = FACTORIES[name](stop_gradient=False)
        u = FACTORIES[name](stop_gradient=True)
    assert t.requires_grad and not t.stop_gradient
    assert not u.requires_grad and u.stop_gradient


def test_to_tensor_stop_gradient_default_and_no_grad():
    assert fg.to_tensor([1.0]).stop_gradient
    assert not fg.to_tensor([1.0], stop_gradient=False).stop_gradient
    with fg.no_grad():
        z = fg.zeros(2, requires_grad=True)
        p = fg.to_tensor([1.0], stop_gradient=False)
        assert z.requires_grad and p.requires_grad
        assert not (z * 2).requires_grad
    assert (z * 2).requires_grad


def test_requires_grad_setters():
    t = fg.ones(2)
    t.stop_gradient = False
    assert t.requires_grad
    t.requires_grad = False
    assert t.stop_gradient
    assert t.requires_grad_() is t
    assert t.requires_grad
