"""``stft`` / ``istft`` (torch.stft, torch.istft, the Tensor methods, paddle.signal.stft /
istft) against a NumPy reference in float64 (reflect- / constant- / edge- / wrap-padded
signal, framed, windowed, ``np.fft.rfft`` / ``np.fft.fft``), the istft(stft(x)) round
trip, finite-difference gradient checks, and the argument errors.

The values were also compared once with torch 2.15 and Paddle 3.3.1 (max difference
below 2e-15, see the report of the commit)."""

from __future__ import annotations

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(19)
X1 = RNG.standard_normal(40)
X2 = RNG.standard_normal((3, 29))
XC = RNG.standard_normal(33) + 1j * RNG.standard_normal(33)
NP_PAD = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


def _hann(n):
    """The periodic Hann window of n points."""
    return np.hanning(n + 1)[:-1]


def np_stft(x, n_fft, hop=None, win_length=None, window=None, center=True, pad_mode="reflect",
            normalized=False, onesided=True):  # fmt: skip
    """The NumPy reference: (B?, freq, frames), complex."""
    hop = n_fft // 4 if hop is None else hop
    win_length = n_fft if win_length is None else win_length
    window = np.ones(win_length) if window is None else window
    w = np.zeros(n_fft, dtype=window.dtype)
    left = (n_fft - win_length) // 2
    w[left : left + win_length] = window
    x2 = np.atleast_2d(x)
    if center:
        x2 = np.pad(x2, [(0, 0), (n_fft // 2, n_fft // 2)], mode=NP_PAD[pad_mode])
    n_frames = 1 + (x2.shape[1] - n_fft) // hop
    frames = np.stack([x2[:, t * hop : t * hop + n_fft] for t in range(n_frames)], 1) * w
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    spec = spec.transpose(0, 2, 1)
    return spec if x.ndim == 2 else spec[0]


@pytest.mark.parametrize("x", [X1, X2], ids=["1d", "batched"])
@pytest.mark.parametrize("pad_mode", ["reflect", "constant", "replicate", "circular"])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize(
    "n_fft, hop, win_length", [(8, None, None), (16, 5, None), (12, 3, 7), (9, 9, 9)]
)
def test_stft_matches_numpy(x, pad_mode, center, normalized, n_fft, hop, win_length):
    w = None if win_length is None else _hann(win_length)
    got = fg.stft(
        fg.tensor(x), n_fft, hop, win_length, None if w is None else fg.tensor(w), center,
        pad_mode, normalized, return_complex=True,
    ).numpy()  # fmt: skip
    want = np_stft(x, n_fft, hop, win_length, w, center, pad_mode, normalized)
    assert got.dtype == np.complex128
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_stft_two_sided_and_complex_input():
    got = fg.stft(fg.tensor(X1), 10, 3, onesided=False, return_complex=True).numpy()
    np.testing.assert_allclose(got, np_stft(X1, 10, 3, onesided=False), atol=1e-12)
    # complex input: two-sided by default, return_complex defaults to True
    got = fg.stft(fg.tensor(XC), 10, 4, window=fg.tensor(_hann(10))).numpy()
    want = np_stft(XC, 10, 4, window=_hann(10), onesided=False)
    assert got.shape == (10, 9)
    np.testing.assert_allclose(got, want, atol=1e-12)
    # a complex window makes a real signal's spectrum two-sided too
    wc = np.exp(1j * np.arange(8))
    got = fg.stft(fg.tensor(X1), 8, window=fg.tensor(wc), return_complex=True).numpy()
    np.testing.assert_allclose(got, np_stft(X1, 8, window=wc, onesided=False), atol=1e-12)


def test_stft_real_layout_method_and_float32():
    with pytest.warns(UserWarning, match="return_complex=False"):
        got = fg.stft(fg.tensor(X2), 8, return_complex=False).numpy()
    want = np_stft(X2, 8)
    assert got.shape == (*want.shape, 2)
    np.testing.assert_allclose(got[..., 0] + 1j * got[..., 1], want, atol=1e-12)
    got = fg.tensor(X1).stft(8, 2, return_complex=True).numpy()
    np.testing.assert_allclose(got, np_stft(X1, 8, 2), atol=1e-12)
    y = fg.stft(fg.tensor(X1.astype(np.float32)), 8, return_complex=True)
    assert y.dtype == fg.complex64


def test_paddle_signal_stft_is_torch_with_return_complex():
    x = fg.tensor(X2)
    w = fg.tensor(_hann(12))
    got = fg.signal.stft(x, 16, 4, 12, w, normalized=True).numpy()
    want = fg.stft(x, 16, 4, 12, w, normalized=True, return_complex=True).numpy()
    np.testing.assert_array_equal(got, want)
    # Paddle 3.3.1: a complex signal gives the full spectrum even with onesided=True
    got = fg.signal.stft(fg.tensor(XC), 10, 3).numpy()
    np.testing.assert_allclose(got, np_stft(XC, 10, 3, onesided=False), atol=1e-12)
    spec = fg.signal.stft(x, 16, 4, window=fg.tensor(_hann(16)))
    y = fg.signal.istft(spec, 16, 4, window=fg.tensor(_hann(16)), length=29).numpy()
    np.testing.assert_allclose(y, X2, atol=1e-10)


@pytest.mark.parametrize(
    "x, n_fft, kw",
    [
        (X1, 16, dict(hop_length=4, window=_hann(16))),
        (X2, 12, dict(hop_length=3, win_length=10, window=_hann(10), normalized=True)),
        (X1, 16, dict(hop_length=4, window=np.hamming(17)[:-1], center=False)),
        (X2, 8, dict(hop_length=2, onesided=False)),
        (X1, 8, dict(hop_length=8, window=np.ones(8), center=False)),
    ],
)
def test_istft_round_trip(x, n_fft, kw):
    kw = {k: fg.tensor(v) if k == "window" else v for k, v in kw.items()}
    spec = fg.stft(fg.tensor(x), n_fft, return_complex=True, **kw)
    y = fg.istft(spec, n_fft, length=x.shape[-1], **kw).numpy()
    assert y.shape == x.shape
    np.testing.assert_allclose(y, x, atol=1e-10)
    # without length: the frames' span (less the centre padding)
    y = spec.istft(n_fft, **kw).numpy()
    np.testing.assert_allclose(y, x[..., : y.shape[-1]], atol=1e-10)


def test_istft_complex_output_and_zero_padded_length():
    w = fg.tensor(_hann(10))
    spec = fg.stft(fg.tensor(XC), 10, 2, window=w)
    y = fg.istft(spec, 10, 2, window=w, onesided=False, return_complex=True, length=33)
    np.testing.assert_allclose(y.numpy(), XC, atol=1e-10)
    spec = fg.stft(fg.tensor(X1), 8, 2, return_complex=True)
    with pytest.warns(UserWarning, match="padded with zeros"):
        y = fg.istft(spec, 8, 2, length=45).numpy()
    # the frames span 44 samples after the centre: the reflect padding, then one zero
    np.testing.assert_allclose(y[:44], np.pad(X1, 4, mode="reflect")[4:48], atol=1e-10)
    assert y[44] == 0.0


def test_stft_gradients_signal_window_and_complex_input():
    x = fg.tensor(RNG.standard_normal((2, 11)), requires_grad=True)
    w = fg.tensor(RNG.standard_normal(6), requires_grad=True)
    c = fg.tensor(RNG.standard_normal((6, 6)) + 1j * RNG.standard_normal((6, 6)))

    def loss(a, b):
        s = fg.stft(a, 8, 3, 6, b, return_complex=True, normalized=True)
        return ((s * c[: s.shape[1], : s.shape[2]]).real ** 3).sum() + (s.imag**2).sum()

    assert gradcheck(loss, [x, w])
    re = fg.tensor(RNG.standard_normal(9), requires_grad=True)
    im = fg.tensor(RNG.standard_normal(9), requires_grad=True)

    def loss_c(a, b):
        s = fg.stft(fg.complex(a, b), 4, 2, window=fg.tensor(_hann(4)))
        return ((s * c[:4, : s.shape[1]]).real ** 3).sum() + (s.imag**2).sum()

    assert gradcheck(loss_c, [re, im])


def test_istft_gradients():
    w = fg.tensor(_hann(8) + 0.1, requires_grad=True)
    re = fg.tensor(RNG.standard_normal((5, 4)), requires_grad=True)
    im = fg.tensor(RNG.standard_normal((5, 4)), requires_grad=True)
    g = fg.tensor(RNG.standard_normal(20))

    def loss(a, b, win):
        y = fg.istft(fg.complex(a, b), 8, 2, window=win, length=10, normalized=True)
        return (y**3 * g[:10]).sum()

    assert gradcheck(loss, [re, im, w])


def test_complex_gradient_follows_pytorch_convention():
    # L = Re(sum(conj(v) * stft(z))) is linear in z: z.grad is the adjoint applied to v
    # (PyTorch's convention): here sum over frames of the windowed inverse DFT of v
    z = fg.tensor(XC[:8], requires_grad=True)
    v = RNG.standard_normal((8, 3)) + 1j * RNG.standard_normal((8, 3))
    s = fg.stft(z, 8, 4, center=False, onesided=False)
    assert s.shape == (8, 1)
    (s * fg.tensor(np.conj(v[:, :1]))).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 8 * np.fft.ifft(v[:, 0]), atol=1e-12)


def test_argument_errors():
    x = fg.tensor(X1[:10])
    with pytest.raises(RuntimeError, match="return_complex parameter be given"):
        fg.stft(x, 4)
    with pytest.raises(RuntimeError, match="n_fft"):
        fg.stft(x, 16, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="padding size"):
        fg.stft(x, 32, return_complex=True)
    with pytest.raises(ValueError, match="hop_length > 0"):
        fg.stft(x, 4, hop_length=0, return_complex=True)
    with pytest.raises(RuntimeError, match="win_length"):
        fg.stft(x, 4, win_length=5, return_complex=True)
    with pytest.raises(RuntimeError, match="window tensor of size equal to win_length=4"):
        fg.stft(x, 4, window=fg.ones([3], dtype=fg.float64), return_complex=True)
    with pytest.raises(RuntimeError, match="onesided"):
        fg.stft(fg.tensor(XC), 4, onesided=True)
    with pytest.raises(RuntimeError, match="1D or 2D"):
        fg.stft(fg.tensor(np.zeros((2, 2, 8))), 4, return_complex=True)
    spec = fg.stft(x, 8, return_complex=True)
    with pytest.raises(RuntimeError, match="n_fft / 2 \\+ 1"):
        fg.istft(spec, 10)
    with pytest.raises(RuntimeError, match="complex-valued"):
        fg.istft(spec.real, 8)
    with pytest.raises(RuntimeError, match="onesided"):
        fg.istft(spec, 8, return_complex=True)


def test_istft_nola_failure():
    # a periodic Hann window with hop == n_fft and no centring: zero at each frame start
    w = fg.tensor(_hann(8))
    spec = fg.stft(fg.tensor(X1), 8, 8, window=w, center=False, return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        fg.istft(spec, 8, 8, window=w, center=False)
    with pytest.raises(ValueError, match="NOLA"):  # Paddle raises ValueError
        fg.signal.istft(spec, 8, 8, window=w, center=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fg.istft(spec, 8, 8, window=fg.tensor(np.hamming(8)), center=False)


@pytest.mark.parametrize(
    "length, n_fft, win_length, hop", [(20, 8, 4, 4), (30, 10, 7, 2), (33, 16, 6, 5), (16, 8, 8, 4)]
)
def test_stft_align_to_window(length, n_fft, win_length, hop):
    """``align_to_window=True`` frames from where each window starts: the same as framing
    the signal zero-padded by the window's offset (checked against torch 2.15, which
    agrees with this reference to 0.0 on these sizes)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, length))
    w = rng.random(win_length)
    left = (n_fft - win_length) // 2
    padded = np.pad(x, [(0, 0), (left, n_fft - win_length - left)])
    want = np_stft(padded, n_fft, hop, win_length, w, center=False)
    xt, wt = fg.tensor(x, requires_grad=True), fg.tensor(w)
    got = fg.stft(xt, n_fft, hop, win_length, wt, center=False, return_complex=True,
                  align_to_window=True)  # fmt: skip
    assert got.shape[-1] == 1 + (length - win_length) // hop
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    unaligned = fg.stft(xt, n_fft, hop, win_length, wt, center=False, return_complex=True,
                        align_to_window=False)  # fmt: skip
    np.testing.assert_allclose(unaligned.numpy(), np_stft(x, n_fft, hop, win_length, w, False))

    def f(x):
        s = fg.stft(x, n_fft, hop, win_length, wt, center=False, return_complex=True,
                    align_to_window=True)  # fmt: skip
        return fg.view_as_real(s)

    assert gradcheck(f, (fg.tensor(x[:1, :length], requires_grad=True),))


def test_stft_align_to_window_needs_center_false():
    x = fg.tensor(X1[:16])
    for align in (True, False):
        with pytest.raises(RuntimeError, match="only be set when center = false"):
            fg.stft(x, 8, return_complex=True, align_to_window=align)
