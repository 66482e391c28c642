"""``z.real`` / ``z.imag`` / ``view_as_real`` / ``view_as_complex`` are views, as in
PyTorch: one memory read as complex numbers and as their real parts (aten/src/ATen/native/
UnaryOps.cpp ``real``: ``at::select(at::view_as_real(self), -1, 0)``; ComplexHelper.h
``view_as_real`` doubles the strides and adds a trailing dimension of size 2, stride 1;
``view_as_complex`` checks the layout in ``computeStrideForViewAsComplex``). NumPy's
``z.real`` / ``z.imag`` are views too, so writes are compared with NumPy's."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

# code in Paddle's dialect (docs/dialects.md: the import line decides)
_PADDLE_SRC = """
def real_of(z):
    return paddle.real(z)

def imag_of(z):
    return paddle.imag(z)

def unbind_add_(x):
    res = paddle.view_as_complex(x).unbind(0)
    res[0] += paddle.rand(2, requires_grad=True)
"""
PADDLE: dict = {"paddle": fg, "__name__": "complex_views_paddle_code"}
exec(compile(_PADDLE_SRC, "<paddle code>", "exec"), PADDLE)
TORCH: dict = {"torch": fg, "__name__": "complex_views_torch_code"}
exec(compile(_PADDLE_SRC.replace("paddle", "torch"), "<torch code>", "exec"), TORCH)


def cplx(shape, seed=0, dtype=np.complex128):
    """A deterministic complex NumPy array of `shape`."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


# -- write-through, version counter, _base ---------------------------------------------


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_writes_through_real_and_imag_reach_the_base(dtype):
    zn = cplx((2, 3), dtype=dtype)
    z = fg.tensor(zn)
    z.real.mul_(10.0)
    z.imag[0].zero_()
    zn.real *= 10.0
    zn.imag[0] = 0.0
    np.testing.assert_array_equal(z.numpy(), zn)
    assert z.real.dtype == (fg.float32 if dtype == np.complex64 else fg.float64)


def test_writes_into_the_base_show_in_the_views():
    z = fg.tensor(cplx(3))
    r, i, vr = z.real, z.imag, fg.view_as_real(z)
    z.mul_(2.0)
    zn = z.numpy()
    np.testing.assert_array_equal(r.numpy(), zn.real)
    np.testing.assert_array_equal(i.numpy(), zn.imag)
    np.testing.assert_array_equal(vr.numpy(), np.stack([zn.real, zn.imag], -1))
    vr[1, 1] = 7.0  # the imaginary part of element 1
    assert z.tolist()[1] == complex(zn[1].real, 7.0)


def test_view_as_complex_shares_memory_both_ways():
    x = fg.tensor(np.arange(8.0).reshape(2, 2, 2))
    c = fg.view_as_complex(x)
    assert c.dtype == fg.complex128 and c.shape == [2, 2]
    assert c.tolist() == [[0 + 1j, 2 + 3j], [4 + 5j, 6 + 7j]]
    c.mul_(1j)  # (a + bi) i = -b + ai
    assert x[0, 0].tolist() == [-1.0, 0.0]
    x[1, 1, 0] = 100.0
    assert c[1, 1].item() == 100 + 6j
    # the round trip reads the same memory
    back = fg.view_as_real(c)
    back.zero_()
    assert x.abs().sum().item() == 0.0


def test_one_version_counter():
    z = fg.tensor(cplx(2))
    r, i = z.real, z.imag
    v = z._version
    r.add_(1.0)
    assert z._version == v + 1 and r._version == v + 1 and i._version == v + 1
    z.mul_(2.0)
    assert r._version == v + 2
    x = fg.tensor(np.zeros((2, 2)))
    c = fg.view_as_complex(x)
    c.add_(1.0)
    assert x._version == c._version == 1


def test_base_is_the_root():
    z = fg.tensor(cplx((2, 2)))
    assert z.real._base is z and z.imag._base is z
    assert fg.view_as_real(z)._base is z
    assert z.real[0]._base is z  # a view of a view: the root
    assert z[1].real._base is z
    x = fg.tensor(np.zeros((3, 2)))
    assert fg.view_as_complex(x)._base is x
    assert fg.view_as_complex(x).real._base is x


def test_detached_views_share_too():
    z = fg.tensor(cplx(2))
    r = z.detach().real
    r.fill_(3.0)
    assert z.numpy().real.tolist() == [3.0, 3.0]


# -- non-contiguous complex inputs ------------------------------------------------------


def test_transposed_and_stepped_inputs_against_numpy():
    zn = cplx((3, 4), seed=1)
    z = fg.tensor(zn)
    t, tn = z.t(), zn.T
    np.testing.assert_array_equal(t.real.numpy(), tn.real)
    np.testing.assert_array_equal(t.imag.numpy(), tn.imag)
    np.testing.assert_array_equal(fg.view_as_real(t).numpy(), np.stack([tn.real, tn.imag], -1))
    s, sn = z[:, ::2], zn[:, ::2]
    s.imag.fill_(5.0)
    sn.imag[...] = 5.0
    t[1:].real.mul_(-1.0)
    tn[1:].real *= -1.0
    np.testing.assert_array_equal(z.numpy(), zn)
    # flipped (negative offset arithmetic) and a 0-d element
    e = z[2, 3]
    e.real.fill_(9.0)
    zn[2, 3] = complex(9.0, zn[2, 3].imag)
    np.testing.assert_array_equal(z.numpy(), zn)
    assert e.real.ndim == 0 and fg.view_as_real(e).shape == [2]


def test_view_as_complex_of_an_even_strided_view():
    xn = np.arange(24.0).reshape(3, 4, 2)
    x = fg.tensor(xn)
    c = fg.view_as_complex(x[::2, 1:3])  # strides (16, 2, 1), offset 2: all even
    np.testing.assert_array_equal(c.numpy(), xn[::2, 1:3, 0] + 1j * xn[::2, 1:3, 1])
    c.zero_()
    xn[::2, 1:3] = 0.0
    np.testing.assert_array_equal(x.numpy(), xn)


def test_empty_tensors():
    z = fg.zeros((0, 3), dtype=fg.complex64)
    assert z.real.shape == [0, 3] and fg.view_as_real(z).shape == [0, 3, 2]
    assert fg.view_as_complex(fg.zeros((4, 0, 2))).shape == [4, 0]


# -- view_as_complex refusals (PyTorch's messages, ComplexHelper.h) ---------------------


@pytest.mark.parametrize(
    "make, msg",
    [
        (lambda: fg.zeros((3, 3), dtype=fg.float64), "last dimension of size 2"),
        (lambda: fg.zeros((2, 3)).t(), "last dimension with stride 1"),
        (lambda: fg.zeros((3, 3))[:, :2], "stride divisible by 2 for all but last dimension"),
        (lambda: fg.zeros((3, 4))[:, 1:3], "storage_offset divisible by 2"),
        (lambda: fg.zeros(()), "Input tensor must have one or more dimensions"),
    ],
)
def test_view_as_complex_refusals(make, msg):
    with pytest.raises(RuntimeError, match=msg):
        fg.view_as_complex(make())


def test_view_as_complex_singleton_dimension_stride_is_not_checked():
    # PyTorch skips the divisibility check for a dimension of size 1
    x = fg.zeros((3, 3))[:1, :2]  # stride 3 on a dimension of size 1, offset 0
    assert fg.view_as_complex(x).shape == [1]


def test_dtype_refusals():
    with pytest.raises(TypeError, match="only float32 and float64"):
        fg.view_as_complex(fg.zeros((2, 2), dtype=fg.int64))
    with pytest.raises(TypeError, match="only complex tensors"):
        fg.view_as_real(fg.zeros(2))


# -- real tensors and Paddle's copies ---------------------------------------------------


def test_real_of_a_real_tensor_is_itself_and_imag_zeros():
    x = fg.tensor([1.0, 2.0])
    assert x.real is x or x.real.tolist() == [1.0, 2.0]
    assert x.imag.tolist() == [0.0, 0.0]


def test_paddle_real_and_imag_are_copies():
    """paddle.real / paddle.imag "return a new Tensor" (python/paddle/tensor/attribute.py,
    ``real`` / ``imag``: the ``real`` / ``imag`` kernels); torch.real is PyTorch's view."""
    z = fg.tensor([1 + 2j, 3 - 1j])
    PADDLE["real_of"](z).fill_(0.0)
    PADDLE["imag_of"](z).fill_(0.0)
    assert z.tolist() == [1 + 2j, 3 - 1j]
    TORCH["real_of"](z).fill_(0.0)
    assert z.tolist() == [2j, -1j]


# -- gradients (central differences) ----------------------------------------------------


def _fd_complex(f, zn, eps=1e-6):
    """PyTorch's convention for a real loss of complex ``z = x + iy``: dL/dx + i dL/dy."""
    g = np.zeros_like(zn)
    for k in np.ndindex(zn.shape):
        for unit in (1.0, 1j):
            zp, zm = zn.copy(), zn.copy()
            zp[k] += eps * unit
            zm[k] -= eps * unit
            g[k] += unit * (f(zp) - f(zm)) / (2 * eps)
    return g


def _loss_np(zn):
    vr = np.stack([zn.real, zn.imag], -1)
    return (
        (zn.real**2 * 3).sum()
        + (zn.imag * np.arange(zn.size).reshape(zn.shape)).sum()
        + (vr**3).sum()
    )


def _loss_fg(z):
    w = fg.tensor(np.arange(z.numel(), dtype=np.float64).reshape(z.shape))
    return (z.real**2 * 3).sum() + (z.imag * w).sum() + (fg.view_as_real(z) ** 3).sum()


@pytest.mark.parametrize("transpose", [False, True])
def test_gradients_through_real_imag_view_as_real(transpose):
    zn = cplx((2, 3), seed=2)
    z = fg.tensor(zn, requires_grad=True)
    zz = z.t() if transpose else z
    _loss_fg(zz).backward()
    expect = _fd_complex(lambda a: _loss_np(a.T if transpose else a), zn)
    np.testing.assert_allclose(z.grad.numpy(), expect, rtol=1e-6, atol=1e-6)


def test_gradient_through_view_as_complex():
    xn = np.random.default_rng(3).standard_normal((3, 2))

    def loss_np(a):
        c = a[:, 0] + 1j * a[:, 1]
        return (np.abs(c * c) * np.array([1.0, 2.0, 3.0])).sum()

    x = fg.tensor(xn, requires_grad=True)
    c = fg.view_as_complex(x)
    ((c * c).abs() * fg.tensor([1.0, 2.0, 3.0])).sum().backward()
    g = np.zeros_like(xn)
    for k in np.ndindex(xn.shape):
        xp, xm = xn.copy(), xn.copy()
        xp[k] += 1e-6
        xm[k] -= 1e-6
        g[k] = (loss_np(xp) - loss_np(xm)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), g, rtol=1e-6, atol=1e-6)
    assert c.grad_fn.name().startswith("ViewAsComplexBackward")


def test_a_tracked_write_into_the_base_regenerates_the_views_history():
    """``r = z.real`` then ``z.mul_(2)``: r's history is replayed from z's new one (in the
    complex memory's real units), so d sum(r) / dw is 2 for ``z = w * 1``."""
    w = fg.tensor(cplx(3, seed=4), requires_grad=True)
    z = w * 1
    r, vr = z.real, fg.view_as_real(z)
    z.mul_(2.0)
    (r.sum() + (vr[:, 1] * 3).sum()).backward()
    # d/dw of sum(Re(2w)) + 3 sum(Im(2w)) in PyTorch's convention: 2 + 6i
    np.testing.assert_allclose(w.grad.numpy(), np.full(3, 2 + 6j))


def test_a_tracked_write_into_a_real_base_regenerates_a_complex_view():
    x = fg.tensor(np.ones((2, 2)), requires_grad=True)
    y = x * 1
    c = fg.view_as_complex(y)
    y.mul_(3.0)
    c.real.sum().backward()  # sum of 3 * x[:, 0]
    assert x.grad.tolist() == [[3.0, 0.0], [3.0, 0.0]]


def _fd_real(f, xn, eps=1e-6):
    """Central differences of a real function of a real array."""
    g = np.zeros_like(xn)
    for k in np.ndindex(xn.shape):
        xp, xm = xn.copy(), xn.copy()
        xp[k] += eps
        xm[k] -= eps
        g[k] = (f(xp) - f(xm)) / (2 * eps)
    return g


def test_tracked_writes_through_real_and_imag():
    """A write through ``z.real`` / ``z.imag`` of a non-leaf is recorded on ``z`` (PyTorch's
    CopySlices over the base, in the complex memory's real units)."""
    wn = cplx(3, seed=6)
    coef = np.array([1.0, 2.0, 3.0])

    def loss_np(a):
        z = a.copy()
        z.real *= 3.0
        z.imag += 2.0 * a.real
        z[1:].real *= -2.0  # a view of a view
        return (np.abs(z) ** 2 * coef).sum() + (z.real**3).sum()

    w = fg.tensor(wn, requires_grad=True)
    z = w * 1
    z.real.mul_(3.0)
    z.imag.add_(w.real * 2.0)
    z[1:].real.mul_(-2.0)
    assert z.grad_fn.name().startswith("CopySlices")
    ((z * z.conj()).real * fg.tensor(coef)).sum().add((z.real**3).sum()).backward()
    np.testing.assert_allclose(z.detach().numpy().real[0], 3.0 * wn.real[0])
    np.testing.assert_allclose(w.grad.numpy(), _fd_complex(loss_np, wn), rtol=1e-6, atol=1e-6)


def test_tracked_write_through_view_as_real():
    wn = cplx((2, 2), seed=7)

    def loss_np(a):
        z = a.copy()
        z[0] = z[0].real * 5.0 + 1j * z[0].imag  # view_as_real(z)[0, :, 0] *= 5
        return (np.abs(z) ** 2).sum() + z.imag.sum()

    w = fg.tensor(wn, requires_grad=True)
    z = w * 1
    fg.view_as_real(z)[0, :, 0].mul_(5.0)
    ((z * z.conj()).real.sum() + z.imag.sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), _fd_complex(loss_np, wn), rtol=1e-6, atol=1e-6)


def test_tracked_write_through_view_as_complex():
    xn = np.random.default_rng(8).standard_normal((2, 2, 2))
    coef = np.arange(8.0).reshape(2, 2, 2)

    def loss_np(a):
        c = a[..., 0] + 1j * a[..., 1]
        c = c * (2 - 1j)
        y = np.stack([c.real, c.imag], -1)
        return (y**2 * coef).sum()

    x = fg.tensor(xn, requires_grad=True)
    y = x.clone()
    c = fg.view_as_complex(y)
    c.mul_(2 - 1j)
    (y**2 * fg.tensor(coef)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _fd_real(loss_np, xn), rtol=1e-6, atol=1e-6)


def test_peer_view_func_for_complex_views():
    """PyTorch test/autograd/test_complex.py test_view_func_for_complex_views: writes
    through view_as_complex / view_as_real chains give the gradients of the same write on
    the real tensor."""
    x = fg.tensor(np.random.default_rng(9).standard_normal((2, 2, 2)), requires_grad=True)
    y = x.detach().requires_grad_(True)
    x2 = fg.view_as_real(fg.view_as_complex(x.clone()))
    x2.mul_(2)
    x2.sum().abs().backward()
    y0 = y.clone()
    y0.mul_(2)
    y0.sum().abs().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy())

    x = fg.tensor(np.random.default_rng(10).standard_normal((2, 2, 2)), requires_grad=True)
    y = x.detach().requires_grad_(True)

    def fn(a):
        b1 = fg.view_as_complex(a.clone())
        return b1.reshape(b1.numel())

    x0 = fn(x)
    x0.mul_(2)
    x0.sum().abs().backward()
    fn(y).mul(2).sum().abs().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy())


def test_peer_view_with_multi_output():
    """PyTorch test_complex.py test_view_with_multi_output (PyTorch code): a write that
    requires grad into an ``unbind`` piece of a complex view is refused, whether or not
    the base requires grad."""
    for grad in (False, True):
        x = fg.tensor(np.zeros((2, 2, 2)), requires_grad=grad)
        with pytest.raises(RuntimeError, match="output of a function that returns multiple"):
            TORCH["unbind_add_"](x)


def test_untracked_writes_under_no_grad():
    w = fg.tensor(cplx(2), requires_grad=True)
    z = w * 1
    with fg.no_grad():
        z.real.mul_(2.0)
    np.testing.assert_array_equal(z.detach().numpy().real, 2 * w.detach().numpy().real)


def test_a_leaf_view_write_is_refused_as_for_any_view():
    w = fg.tensor(cplx(2), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.real.mul_(2.0)


def test_complex_from_views_keeps_its_gradient():
    w = fg.tensor(cplx(2, seed=5), requires_grad=True)
    z = fg.complex(w.imag, w.real)  # swap the parts
    (z.real * 2 + z.imag).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.full(2, 1 + 2j))
