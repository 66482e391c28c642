"""ferrograd.fft (torch.fft / paddle.fft) against numpy.fft in float64 / complex128, with
finite-difference gradient checks of first and second order.

Complex inputs are given to gradcheck as two real tensors (re, im) joined by
``fg.complex``, and the losses are real: the gradient of a real loss w.r.t. re and im is
what PyTorch's convention packs into ``z.grad = dL/dre + i dL/dim``, so passing these
checks is passing PyTorch's convention (checked once against torch 2.15, see the report
of the commit)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)
XR = RNG.standard_normal((3, 6))
XC = XR + 1j * RNG.standard_normal((3, 6))
NORMS = [None, "backward", "ortho", "forward"]


def _np_norm(norm):
    return "backward" if norm is None else norm


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 4, 6, 9])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_1d_matches_numpy(name, n, dim, norm):
    x = XR if name in ("rfft", "ihfft") else XC
    got = getattr(fg.fft, name)(fg.tensor(x), n, dim, norm).numpy()
    want = getattr(np.fft, name)(x, n, dim, _np_norm(norm))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s, dims", [(None, None), ((2, 8), None), ((5,), (0,)), (None, (1, 0))])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_nd_matches_numpy(name, s, dims, norm):
    x = XR if name == "rfftn" else XC
    got = getattr(fg.fft, name)(fg.tensor(x), s, dims, norm).numpy()
    np_dims = dims if dims is not None or s is None else tuple(range(-len(s), 0))
    want = getattr(np.fft, name)(x, s, np_dims, _np_norm(norm))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_2d_and_paddle_keywords(name):
    x = np.stack([XR, XR[::-1]]) if name == "rfft2" else np.stack([XC, XC[::-1]])
    want = getattr(np.fft, name)(x, (3, 4), (0, 2), "ortho")
    got = getattr(fg.fft, name)(x=fg.tensor(x), s=(3, 4), axes=(0, 2), norm="ortho")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    plain = getattr(fg.fft, name)(input=fg.tensor(x))  # torch keyword, default dims (-2, -1)
    np.testing.assert_allclose(plain.numpy(), getattr(np.fft, name)(x), rtol=1e-12, atol=1e-12)


def test_paddle_axis_keyword_and_module_access():
    import ferrograd.fft as fft_module

    assert fft_module is fg.fft
    got = fg.fft.rfft(fg.tensor(XR), axis=0, norm="backward", name="r")
    np.testing.assert_allclose(got.numpy(), np.fft.rfft(XR, axis=0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "dtype, cdtype, rdtype",
    [
        ("float32", "complex64", "float32"),
        ("float64", "complex128", "float64"),
        ("int64", "complex64", "float32"),
        ("bool", "complex64", "float32"),
    ],
)
def test_dtypes_follow_torch(dtype, cdtype, rdtype):
    x = fg.tensor(np.arange(6) % 2).astype(dtype)
    assert fg.fft.fft(x).dtype.name == cdtype  # real input promoted to complex
    assert fg.fft.rfft(x).dtype.name == cdtype
    assert fg.fft.irfft(x).dtype.name == rdtype
    assert fg.fft.fftn(x).dtype.name == cdtype
    assert fg.fft.fft(fg.fft.fft(x)).dtype.name == cdtype


def test_float32_values():
    x = XC.astype(np.complex64)
    got = fg.fft.fft(fg.tensor(x))
    assert got.dtype == fg.complex64
    np.testing.assert_allclose(got.numpy(), np.fft.fft(XC), rtol=1e-5, atol=1e-5)
    r = fg.fft.irfft(fg.fft.rfft(fg.tensor(XR.astype(np.float32))), 6)
    np.testing.assert_allclose(r.numpy(), XR, rtol=1e-5, atol=1e-5)


def _cplx(re, im):
    return fg.complex(re, im)


W = RNG.standard_normal((6, 10)) + 1j * RNG.standard_normal((6, 10))


def _loss(y):
    """A real, non-linear loss that reads both parts of every output."""
    if y.dtype.is_complex:
        w = fg.tensor(W[: y.shape[0], : y.shape[-1]])
        return ((y * w).real ** 3).sum() + (y.imag**2).sum()
    return (y**3 * fg.tensor(W.real[: y.shape[0], : y.shape[-1]])).sum()


CASES = [
    ("fft", dict(n=None)),
    ("fft", dict(n=4)),
    ("fft", dict(n=9, norm="ortho")),
    ("ifft", dict(n=None)),
    ("ifft", dict(n=8, norm="forward")),
    ("rfft", dict(n=None)),
    ("rfft", dict(n=5)),
    ("rfft", dict(n=8, norm="forward")),
    ("irfft", dict(n=None)),
    ("irfft", dict(n=7)),
    ("irfft", dict(n=4, norm="ortho")),
    ("hfft", dict(n=None)),
    ("ihfft", dict(n=5)),
    ("fftn", dict(s=(2, 5))),
    ("rfftn", dict(s=None)),
    ("irfftn", dict(s=(4, 5))),
]


@pytest.mark.parametrize("name, kw", CASES)
def test_gradients_first_and_second_order(name, kw):
    real_in = name in ("rfft", "ihfft", "rfftn")
    f = getattr(fg.fft, name)
    re = fg.tensor(XC.real[:, :5], requires_grad=True)
    im = fg.tensor(XC.imag[:, :5], requires_grad=True)
    if real_in:
        fn, inputs = (lambda a: _loss(f(a, **kw))), [re]
    else:
        fn, inputs = (lambda a, b: _loss(f(_cplx(a, b), **kw))), [re, im]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_gradient_convention_of_fft_is_the_adjoint():
    # L = Re(sum(conj(w) * fft(z))): PyTorch's z.grad is the adjoint F^H w = n * ifft(w)
    z = fg.tensor(XC[0], requires_grad=True)
    w = XC[1]
    (fg.fft.fft(z) * fg.tensor(np.conj(w))).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 6 * np.fft.ifft(w), rtol=1e-12, atol=1e-12)


def test_irfft_gradient_doubles_the_mirrored_bins():
    # irfft reads bins 1..n//2-1 for themselves and their mirror: PyTorch gives
    # grad = rfft(g) / n with those bins doubled (n = 6: bins 1 and 2; Nyquist 3 not)
    y = fg.tensor(XC[0, :4], requires_grad=True)
    g = XR[1]
    (fg.fft.irfft(y, 6) * fg.tensor(g)).sum().backward()
    want = np.fft.rfft(g) / 6 * np.array([1, 2, 2, 1])
    np.testing.assert_allclose(y.grad.numpy(), want, rtol=1e-12, atol=1e-12)


def test_freqs_and_shifts():
    np.testing.assert_allclose(fg.fft.fftfreq(5, 0.5).numpy(), np.fft.fftfreq(5, 0.5), rtol=1e-6)
    np.testing.assert_allclose(fg.fft.fftfreq(6).numpy(), np.fft.fftfreq(6), rtol=1e-6)
    f = fg.fft.rfftfreq(7, d=0.1, dtype=fg.float64)
    assert f.dtype == fg.float64
    np.testing.assert_allclose(f.numpy(), np.fft.rfftfreq(7, 0.1), rtol=1e-14)
    a = np.arange(15.0).reshape(3, 5)
    np.testing.assert_array_equal(fg.fft.fftshift(fg.tensor(a)).numpy(), np.fft.fftshift(a))
    np.testing.assert_array_equal(
        fg.fft.ifftshift(fg.tensor(a), dim=1).numpy(), np.fft.ifftshift(a, axes=1)
    )
    np.testing.assert_array_equal(
        fg.fft.fftshift(fg.tensor(a), axes=[0]).numpy(), np.fft.fftshift(a, axes=0)
    )


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda x: fg.fft.fft(x, dim=2), IndexError, "out of range"),
        (lambda x: fg.fft.fft(x, n=0), ValueError, "data points"),
        (lambda x: fg.fft.fft(x, n=-3), ValueError, "data points"),
        (lambda x: fg.fft.fft(x, n=2**62), ValueError, "too large"),
        (lambda x: fg.fft.fftn(x, s=(2**40, 2**40)), ValueError, "too large"),
        (lambda x: fg.fft.fft(x, n=1.5), TypeError, "int"),
        (lambda x: fg.fft.fft(x, norm="none"), ValueError, "norm"),
        (lambda x: fg.fft.fftn(x, dim=(0, 0)), ValueError, "unique"),
        (lambda x: fg.fft.fftn(x, s=(2, 3, 4, 5)), ValueError, "s has"),
        (lambda x: fg.fft.rfft(x.astype("complex128")), TypeError, "real"),
        (lambda x: fg.fft.irfft(x[:, :1]), ValueError, "data points"),
        (lambda x: fg.fft.fftfreq(2**62), ValueError, "too large"),
    ],
)
def test_bad_input_is_a_clear_error(call, exc, match):
    with pytest.raises(exc, match=match):
        call(fg.tensor(XR))


def test_huge_padding_is_refused_before_numpy():
    # a size that fits the element limit but not memory: ferrograd's own allocation
    # error, never numpy asking for petabytes
    with pytest.raises((ValueError, MemoryError), match="allocate|too large"):
        fg.fft.fft(fg.tensor(XR), n=2**40)
