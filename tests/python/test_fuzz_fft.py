"""Differential fuzzer for ``ferrograd.fft`` (the 18 transforms, ``fftfreq`` /
``rfftfreq``, ``fftshift`` / ``ifftshift``), ``stft`` / ``istft`` (PyTorch's and
``ferrograd.signal``'s Paddle ones) and the window functions (``hann_window`` ...,
``signal.windows.*``, ``audio.functional.get_window``), against ``scipy.fft`` in complex128
/ float64, a NumPy reference of PyTorch's documented STFT formula and
``scipy.signal.get_window`` / ``scipy.signal.windows``. Inputs are float32, float64,
int, bool, complex64 and complex128 (where accepted) of random shapes (size 1, odd, even
and prime lengths) seen through random views, with random ``n`` / ``s`` (crop and
zero-pad, ``-1``), ``dim`` / ``axes`` (negative, tuples, any order) and ``norm``. Result
dtypes follow PyTorch (float32, int, bool -> complex64). Gradients of every transform,
the Hermitian ones included, are checked with ``ferrograd.autograd.gradcheck`` (the full
Jacobian of ``view_as_real`` of the result) on small float64 / complex128 inputs, and
``gradgradcheck`` on some. This module is PyTorch code (``torch = fg`` below,
docs/dialects.md). The bugs found are pinned by the regression tests at the end.
Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import warnings

import ferrograd as fg
import numpy as np
import pytest
import scipy.fft as sfft
import scipy.signal as ssig
from ferrograd.audio.functional import get_window
from ferrograd.autograd import gradcheck, gradgradcheck
from fuzz_support import CALLS, FUZZ, viewed
from hypothesis import assume, given
from hypothesis import strategies as st

torch = fg  # the dialect rule reads this global: this module's calls are PyTorch's

SIDES = [1, 2, 3, 4, 5, 6, 7, 8, 11, 13]  # size 1, even, odd, primes
SMALL = [1, 2, 3, 4, 5]
IN_DTYPES = ["float32", "float64", "complex64", "complex128", "int32", "int64", "bool"]
NORMS = [None, "backward", "ortho", "forward"]
EPS = {"float32": 1.2e-7, "float64": 2.3e-16}

C2C = {  # name: (ferrograd, scipy reference, default dims)
    "fft": (torch.fft.fft, sfft.fftn, "1d"),
    "ifft": (torch.fft.ifft, sfft.ifftn, "1d"),
    "fft2": (torch.fft.fft2, sfft.fftn, (-2, -1)),
    "ifft2": (torch.fft.ifft2, sfft.ifftn, (-2, -1)),
    "fftn": (torch.fft.fftn, sfft.fftn, None),
    "ifftn": (torch.fft.ifftn, sfft.ifftn, None),
}
R2C = {  # real input, half-spectrum output
    "rfft": (torch.fft.rfft, sfft.rfftn, "1d"),
    "ihfft": (torch.fft.ihfft, sfft.ihfftn, "1d"),
    "rfft2": (torch.fft.rfft2, sfft.rfftn, (-2, -1)),
    "ihfft2": (torch.fft.ihfft2, sfft.ihfftn, (-2, -1)),
    "rfftn": (torch.fft.rfftn, sfft.rfftn, None),
    "ihfftn": (torch.fft.ihfftn, sfft.ihfftn, None),
}
C2R = {  # half-spectrum input, real output
    "irfft": (torch.fft.irfft, sfft.irfftn, "1d"),
    "hfft": (torch.fft.hfft, sfft.hfftn, "1d"),
    "irfft2": (torch.fft.irfft2, sfft.irfftn, (-2, -1)),
    "hfft2": (torch.fft.hfft2, sfft.hfftn, (-2, -1)),
    "irfftn": (torch.fft.irfftn, sfft.irfftn, None),
    "hfftn": (torch.fft.hfftn, sfft.hfftn, None),
}
ALL = {**C2C, **R2C, **C2R}


def complex_of(dtype: str) -> str:
    """PyTorch's result dtype of a transform (default dtype float32)."""
    return "complex128" if dtype in ("float64", "complex128") else "complex64"


def real_of(dtype: str) -> str:
    return "float64" if dtype in ("float64", "complex128") else "float32"


@st.composite
def signal(draw, dtype, shape, lo=-4.0, hi=4.0):
    """``(a, t)``: a NumPy array (its values as stored in `dtype`) and a ferrograd tensor
    equal to it seen through a random view; complex dtypes get their own views."""
    if not dtype.startswith("complex"):
        return draw(viewed(dtype, shape=shape, special=False, lo=lo, hi=hi))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nd = len(shape)
    kind = draw(st.sampled_from(["plain", "transposed", "sliced", "expanded"]))

    def values(shp):
        a = rng.uniform(lo, hi, shp) + 1j * rng.uniform(lo, hi, shp)
        return a.astype(dtype)

    if kind == "transposed" and nd >= 2:
        big = values(shape[::-1])
        return big.T, fg.tensor(big, dtype=dtype).permute(*range(nd - 1, -1, -1))
    if kind == "sliced" and nd >= 1:
        big = values(tuple(max(2 * d - 1, 0) for d in shape))
        idx = tuple(slice(None, None, -2) for _ in shape)
        return big[idx], fg.tensor(big, dtype=dtype)[idx]
    if kind == "expanded" and nd >= 1:
        d = draw(st.integers(0, nd - 1))
        small = list(shape)
        small[d] = 1
        base = values(tuple(small))
        return np.broadcast_to(base, shape), fg.tensor(base, dtype=dtype).expand(list(shape))
    a = values(tuple(shape))
    return a, fg.tensor(a, dtype=dtype)


def close(got, want, dtype, what, scale=None):
    """`got` (tensor) has `dtype`, `want`'s shape, and values within a few ulps of the
    largest magnitude involved (the error bound of an FFT is relative to the norm)."""
    assert got.dtype.name == dtype, f"{what}: dtype {got.dtype.name}, expected {dtype}"
    g = got.numpy().astype(np.complex128)
    w = np.asarray(want, dtype=np.complex128)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != reference {w.shape}"
    if not w.size:
        return
    base = "float64" if dtype in ("float64", "complex128") else "float32"
    mag = float(np.abs(w).max()) if scale is None else scale
    tol = 200 * EPS[base] * max(mag, 1e-3)
    err = np.abs(g - w)
    assert err.max() <= tol, f"{what}: max error {err.max():.3g} > {tol:.3g}\n{g}\n{w}"


def draw_axes(data, kind, nd):
    """``(dims argument, normalised axes)`` of a transform whose default dims are `kind`
    ("1d": -1, a tuple, or None: all)."""
    if kind == "1d":
        d = data.draw(st.integers(-nd, nd - 1))
        use = data.draw(st.sampled_from(["default", "pos", "neg"]))
        if use == "default" and d % nd == nd - 1:
            return None, [nd - 1]
        return (d if use == "neg" else d % nd), [d % nd]
    if data.draw(st.booleans()):
        axes = list(range(nd)) if kind is None else [a % nd for a in kind]
        return None, axes
    k = data.draw(st.integers(1, nd))
    perm = data.draw(st.permutations(range(nd)))[:k]
    dims = [data.draw(st.sampled_from([a, a - nd])) for a in perm]
    return (tuple(dims) if data.draw(st.booleans()) else list(dims)), [a % nd for a in dims]


def call(fn, name, t, size, dims, norm, kw):
    """``fn`` called with PyTorch's (or Paddle's) keywords for a 1-d or n-d transform."""
    nd_name = name[-1] in "2n"
    args = {}
    if size is not None:
        args["s" if nd_name else "n"] = size
    if dims is not None:
        args[("axes" if nd_name else "axis") if kw == "paddle" else "dim"] = dims
    if norm is not None or kw == "norm":
        args["norm"] = norm
    return fn(t, **args)


def ref_input(a, dtype):
    if dtype.startswith("complex"):
        return np.asarray(a, dtype=np.complex128)
    return np.asarray(a, dtype=np.float64)


# ---------------------------------------------------------------- the transforms


def draw_case(data, name, dtype, sides=SIDES, max_dims=3):
    """A random input and arguments for transform `name`: ``(a, t, size, dims, axes,
    sizes)`` with `sizes` the reference's per-axis sizes (None: keep / default)."""
    kind = ALL[name][2]
    min_dims = 2 if kind == (-2, -1) else 1
    shape = tuple(data.draw(st.lists(st.sampled_from(sides), min_size=min_dims, max_size=max_dims)))
    a, t = data.draw(signal(dtype, shape))
    nd = len(shape)
    dims, axes = draw_axes(data, kind, nd)
    size = None
    sizes = [None] * len(axes)
    if data.draw(st.booleans()):
        if kind == "1d":
            sizes = [data.draw(st.sampled_from(sides + [shape[axes[0]]]))]
            size = sizes[0]
        else:
            k = len(axes)
            if dims is None and kind is None and data.draw(st.booleans()):
                # s without dims: the last len(s) dims
                k = data.draw(st.integers(1, nd))
                axes = list(range(nd - k, nd))
            sizes = [data.draw(st.sampled_from(sides + [-1])) for _ in range(k)]
            size = list(sizes) if data.draw(st.booleans()) else tuple(sizes)
            sizes = [None if v == -1 else v for v in sizes]
    return a, t, size, dims, axes, sizes


@FUZZ
@given(st.sampled_from(sorted(C2C)), st.sampled_from(IN_DTYPES), st.data())
def test_c2c(name, dtype, data):
    fn, ref, _ = C2C[name]
    a, t, size, dims, axes, sizes = draw_case(data, name, dtype)
    norm = data.draw(st.sampled_from(NORMS))
    kw = data.draw(st.sampled_from(["torch", "paddle", "norm"]))
    x = ref_input(a, dtype).astype(np.complex128)
    s = [x.shape[ax] if v is None else v for ax, v in zip(axes, sizes)]
    want = ref(x, s=s, axes=axes, norm=norm)
    CALLS["fft c2c"] += 1
    close(call(fn, name, t, size, dims, norm, kw), want, complex_of(dtype), name)


@FUZZ
@given(st.sampled_from(sorted(R2C)), st.sampled_from(IN_DTYPES), st.data())
def test_r2c(name, dtype, data):
    fn, ref, _ = R2C[name]
    a, t, size, dims, axes, sizes = draw_case(data, name, dtype)
    norm = data.draw(st.sampled_from(NORMS))
    kw = data.draw(st.sampled_from(["torch", "paddle", "norm"]))
    CALLS["fft r2c"] += 1
    if dtype.startswith("complex"):  # PyTorch: "rfft expects a real input tensor"
        with pytest.raises(TypeError, match="real"):
            call(fn, name, t, size, dims, norm, kw)
        return
    x = ref_input(a, dtype)
    s = [x.shape[ax] if v is None else v for ax, v in zip(axes, sizes)]
    want = ref(x, s=s, axes=axes, norm=norm)
    close(call(fn, name, t, size, dims, norm, kw), want, complex_of(dtype), name)


@FUZZ
@given(st.sampled_from(sorted(C2R)), st.sampled_from(IN_DTYPES), st.data())
def test_c2r(name, dtype, data):
    fn, ref, _ = C2R[name]
    a, t, size, dims, axes, sizes = draw_case(data, name, dtype)
    norm = data.draw(st.sampled_from(NORMS))
    kw = data.draw(st.sampled_from(["torch", "paddle", "norm"]))
    x = ref_input(a, dtype).astype(np.complex128)
    s = [x.shape[ax] if v is None else v for ax, v in zip(axes, sizes)]
    if sizes[-1] is None:  # the default last size: 2 * (bins - 1)
        s[-1] = 2 * (x.shape[axes[-1]] - 1)
    CALLS["fft c2r"] += 1
    if s[-1] <= 0:  # one bin and no n: PyTorch refuses (invalid number of data points)
        with pytest.raises(ValueError, match="data points"):
            call(fn, name, t, size, dims, norm, kw)
        return
    want = ref(x, s=s, axes=axes, norm=norm)
    close(call(fn, name, t, size, dims, norm, kw), want, real_of(dtype), name)


PAIRS = {  # a transform and its inverse (the second one given the signal's sizes)
    "fft": "ifft", "ifft": "fft", "fft2": "ifft2", "ifft2": "fft2", "fftn": "ifftn",
    "ifftn": "fftn", "rfft": "irfft", "ihfft": "hfft", "rfft2": "irfft2",
    "ihfft2": "hfft2", "rfftn": "irfftn", "ihfftn": "hfftn",
}  # fmt: skip


@FUZZ
@given(st.sampled_from(sorted(PAIRS)), st.data())
def test_round_trips(name, data):
    # inverse(transform(x)) == x; the c2r inverse is told the signal's sizes
    inv = PAIRS[name]
    dtype = data.draw(st.sampled_from(["float64", "complex128"] if name in C2C else ["float64"]))
    shape = tuple(data.draw(st.lists(st.sampled_from(SIDES), min_size=2, max_size=3)))
    a, t = data.draw(signal(dtype, shape))
    norm = data.draw(st.sampled_from(NORMS))
    spec = ALL[name][0](t, norm=norm)
    size = None
    if inv in C2R:
        size = shape[-1] if inv[-1] not in "2n" else list(shape[-2:] if inv[-1] == "2" else shape)
    CALLS["fft round trip"] += 2
    got = call(ALL[inv][0], inv, spec, size, None, norm, "torch")
    close(got, a, complex_of(dtype) if name in C2C else "float64", f"{inv}({name}(x))")


@FUZZ
@given(st.sampled_from(sorted(ALL)), st.data())
def test_empty_and_0d(name, data):
    # size-0 dims (batch or transformed, padded by n / s or not), n / s of 0, 0-d inputs
    fn, ref, kind = ALL[name]
    dtype = data.draw(st.sampled_from(["float64"] if name in R2C else ["float64", "complex128"]))
    if data.draw(st.booleans()):  # 0-d: fftn / ifftn of no dim is a cast, others refuse
        v = data.draw(st.floats(-4, 4))
        t = fg.tensor(v, dtype=dtype)
        CALLS["fft 0-d"] += 1
        if name in ("fftn", "ifftn"):
            close(fn(t), np.complex128(v), complex_of(dtype), f"{name} of a 0-d tensor")
        else:  # PyTorch: "must transform at least one axis" / dim out of range
            with pytest.raises(ValueError if kind is None else IndexError):
                fn(t)
        return
    a, t, size, dims, axes, sizes = draw_case(data, name, dtype, sides=[0, 1, 2, 3])
    x = ref_input(a, dtype)
    x = x if name in R2C else x.astype(np.complex128)
    s = [x.shape[ax] if v is None else v for ax, v in zip(axes, sizes)]
    if name in C2R and sizes[-1] is None:
        s[-1] = 2 * (x.shape[axes[-1]] - 1)
    CALLS["fft empty"] += 1
    try:
        want = ref(x, s=s, axes=axes)
    except ValueError:  # "invalid number of data points": PyTorch refuses too
        with pytest.raises(ValueError, match="data points"):
            call(fn, name, t, size, dims, None, "torch")
        return
    got = call(fn, name, t, size, dims, None, "torch")
    close(got, want, real_of(dtype) if name in C2R else complex_of(dtype), name)


# ---------------------------------------------------------------- gradients


def grad_input(data, name, shape):
    """A float64 or complex128 leaf for a gradient check of `name` (c2r / c2c: complex
    inputs mostly; r2c: real only)."""
    choices = ["float64"] if name in R2C else ["complex128", "complex128", "float64"]
    dtype = data.draw(st.sampled_from(choices))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = rng.uniform(-1, 1, shape)
    if dtype == "complex128":
        a = a + 1j * rng.uniform(-1, 1, shape)
    u = fg.tensor(a, dtype=dtype)
    u.requires_grad = True
    return u


def as_real(out):
    return fg.view_as_real(out) if out.dtype.is_complex else out


@FUZZ
@given(st.sampled_from(sorted(ALL)), st.data())
def test_gradients(name, data):
    fn = ALL[name][0]
    a, _, size, dims, axes, sizes = draw_case(data, name, "float64", sides=SMALL, max_dims=2)
    u = grad_input(data, name, a.shape)
    norm = data.draw(st.sampled_from(NORMS))
    if name in C2R:
        assume((sizes[-1] or 2 * (a.shape[axes[-1]] - 1)) > 0)

    def f(v):
        return as_real(call(fn, name, v, size, dims, norm, "torch"))

    CALLS["fft gradcheck"] += 1
    assert gradcheck(f, (u,), eps=1e-6, atol=1e-7, rtol=1e-5), name
    if data.draw(st.integers(0, 3)) == 0:  # second order (the backward is made of FFTs)
        CALLS["fft gradgradcheck"] += 1
        assert gradgradcheck(f, (u,), eps=1e-6, atol=1e-6, rtol=1e-4), name


# ---------------------------------------------------------------- frequencies and shifts


@FUZZ
@given(st.data())
def test_freq_and_shift(data):
    n = data.draw(st.sampled_from(SIDES + [16, 17]))
    d = data.draw(st.sampled_from([1.0, 0.5, 0.1, 3.0, 2]))
    dtype = data.draw(st.sampled_from([None, "float32", "float64"]))
    kw = {} if dtype is None else {"dtype": getattr(fg, dtype)}
    want = dtype or "float32"
    CALLS["fftfreq"] += 2
    close(torch.fft.fftfreq(n, d, **kw), np.fft.fftfreq(n, d), want, "fftfreq")
    close(torch.fft.rfftfreq(n, d, **kw), np.fft.rfftfreq(n, d), want, "rfftfreq")
    # fftshift / ifftshift: rolls by size // 2 along dims (default all)
    dtype = data.draw(st.sampled_from(IN_DTYPES))
    shape = tuple(data.draw(st.lists(st.sampled_from(SIDES), min_size=1, max_size=3)))
    a, t = data.draw(signal(dtype, shape))
    nd = len(shape)
    if data.draw(st.booleans()):
        dims, axes = None, None
    else:
        dims, axes = draw_axes(data, (0,), nd)
        dims = axes if dims is None else dims
        if len(dims) == 1 and data.draw(st.booleans()):
            dims = dims[0]
    for fn, ref in ((torch.fft.fftshift, np.fft.fftshift), (torch.fft.ifftshift, np.fft.ifftshift)):
        CALLS["fftshift"] += 1
        got = fn(t) if dims is None else fn(t, dims)
        assert got.dtype.name == dtype
        np.testing.assert_array_equal(got.numpy(), ref(a, axes), err_msg=fn.__name__)


# ---------------------------------------------------------------- windows


def sym_window(name, m, sym, p):
    """(ferrograd's ``signal.windows.<name>``, scipy's) with parameter `p`."""
    W, S = torch.signal.windows, ssig.windows
    args = {
        "kaiser": ({"beta": 4 * p}, (4 * p,)),
        "gaussian": ({"std": 0.3 + 2 * p}, (0.3 + 2 * p,)),
        "exponential": ({"tau": 0.3 + 2 * p}, (None, 0.3 + 2 * p)),
        "general_hamming": ({"alpha": p}, (p,)),
        "general_cosine": ({"a": [0.5, p / 2, 0.5 - p / 2]}, ([0.5, p / 2, 0.5 - p / 2],)),
    }.get(name, ({}, ()))
    return getattr(W, name), getattr(S, name), args


@FUZZ
@given(st.data())
def test_windows(data):
    m = data.draw(st.sampled_from([0, 1, 2, 3, 4, 5, 8, 13, 16]))
    sym = data.draw(st.booleans())
    p = data.draw(st.floats(0.05, 0.95))
    dtype = data.draw(st.sampled_from([None, "float32", "float64"]))
    kw = {} if dtype is None else {"dtype": getattr(fg, dtype)}
    want_dtype = dtype or "float32"
    # torch.signal.windows.<name>(M, *, sym=True, ...) against scipy.signal.windows
    names = ["hann", "hamming", "blackman", "bartlett", "nuttall", "cosine", "kaiser"]
    names += ["gaussian", "exponential", "general_hamming", "general_cosine"]
    name = data.draw(st.sampled_from(names))
    fn, ref, (fkw, sargs) = sym_window(name, m, sym, p)
    CALLS["window"] += 1
    close(fn(m, sym=sym, **fkw, **kw), ref(m, *sargs, sym=sym), want_dtype, name)
    # torch.<name>_window(N, periodic=True, ...) against scipy's get_window(fftbins=periodic)
    periodic = data.draw(st.booleans())
    name = data.draw(st.sampled_from(["hann", "hamming", "blackman", "bartlett", "kaiser"]))
    if name == "kaiser":
        beta = 1 + 10 * p
        got = torch.kaiser_window(m, periodic, beta, **kw)
        want = ssig.get_window(("kaiser", beta), m, fftbins=periodic) if m else np.zeros(0)
    elif name == "hamming" and data.draw(st.booleans()):
        alpha, beta = 0.5 + p / 4, 0.5 - p / 3
        got = torch.hamming_window(m, periodic, alpha, beta, **kw)
        k = np.arange(m)
        want = alpha - beta * np.cos(2 * np.pi * k / (m if periodic else max(m - 1, 1)))
        want = want if m > 1 else np.ones(m)
    else:
        got = getattr(torch, f"{name}_window")(m, periodic=periodic, **kw)
        want = ssig.get_window(name, m, fftbins=periodic) if m else np.zeros(0)
    CALLS["window"] += 1
    close(got, want, want_dtype, f"{name}_window")
    # paddle.audio.functional.get_window(window, N, fftbins=True, dtype='float64')
    spec = data.draw(
        st.sampled_from(
            ["hamming", "hann", "blackman", "nuttall", "bartlett", "triang", "bohman", "cosine"]
            + [("kaiser", 1 + 10 * p), ("gaussian", 0.3 + 2 * p), ("tukey", p)]
            + [("general_gaussian", 1 + p, 0.5 + p), ("exponential", None, 0.3 + 2 * p)]
            + [("taylor", 4, 20 + 20 * p, True), ("general_hamming", p), "tukey", "taylor"]
        )
    )
    fftbins = data.draw(st.booleans())
    assume(m > 0)  # scipy: get_window of 0 points is an error
    CALLS["window"] += 1
    got = get_window(spec, m, fftbins=fftbins)
    close(got, ssig.get_window(spec, m, fftbins=fftbins), "float64", f"get_window {spec}")


# ---------------------------------------------------------------- stft / istft

NP_PAD = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


def padded_window(w, win, n):
    """The window (ones when None) zero-padded to `n` in the centre, as PyTorch's."""
    w = np.ones(win) if w is None else np.asarray(w, dtype=np.complex128)
    left = (n - win) // 2
    out = np.zeros(n, dtype=np.complex128)
    out[left : left + win] = w
    return out


def stft_ref(x, n, hop, win, w, center, pad_mode, normalized, onesided, align=False):
    """PyTorch's documented STFT: ``X[m, w] = sum_k window[k] x[m hop + k]
    exp(-2 pi i w k / n)`` of the (centre-padded) signal, ``(B?, freq, frames)``."""
    x2 = np.atleast_2d(x).astype(np.complex128)
    wp = padded_window(w, win, n)
    if align:  # frames start where the window starts: frame m covers [m hop, m hop + win)
        left = (n - win) // 2
        x2 = np.pad(x2, ((0, 0), (left, n - win - left)))
    if center:
        x2 = np.pad(x2, ((0, 0), (n // 2, n // 2)), mode=NP_PAD[pad_mode])
    frames = 1 + (x2.shape[1] - n) // hop
    idx = np.arange(frames)[:, None] * hop + np.arange(n)[None, :]
    spec = np.fft.fft(x2[:, idx] * wp, axis=-1, norm="ortho" if normalized else "backward")
    if onesided:
        spec = spec[..., : n // 2 + 1]
    out = spec.transpose(0, 2, 1)
    return out if np.ndim(x) == 2 else out[0]


class NOLA(Exception):
    pass


def istft_ref(spec, n, hop, win, w, center, normalized, onesided, length, return_complex):
    """PyTorch's documented inverse: per-frame inverse FFT, windowing, overlap-add,
    division by the overlap-added squared window (NOLA: it must not vanish)."""
    s3 = np.asarray(spec, dtype=np.complex128)
    s3 = s3[None] if s3.ndim == 2 else s3
    wp = padded_window(w, win, n)
    frames_f = s3.transpose(0, 2, 1)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        frames = np.fft.ifft(frames_f, n, axis=-1, norm=norm)
    else:
        frames = np.fft.irfft(frames_f[..., : n // 2 + 1], n, axis=-1, norm=norm)
    frames = frames * (wp if return_complex else wp.real)
    count = frames.shape[1]
    total = n + hop * (count - 1)
    y = np.zeros((s3.shape[0], total), dtype=frames.dtype)
    env = np.zeros(total, dtype=np.complex128)  # (PyTorch: window ** 2, complex ones too)
    for m in range(count):
        y[:, m * hop : m * hop + n] += frames[:, m]
        env[m * hop : m * hop + n] += wp**2
    start = n // 2 if center else 0
    end = start + length if length is not None else (total - n // 2 if center else total)
    y, env = y[:, start : min(end, total)], env[start : min(end, total)]
    if env.size == 0 or np.abs(env).min() < 1e-11:
        raise NOLA
    y = y / env
    if end > total:
        y = np.concatenate([y, np.zeros((y.shape[0], end - total), dtype=y.dtype)], 1)
    istft_ref.env_min = float(np.abs(env).min())  # for the tolerance
    return y if np.ndim(spec) == 3 else y[0]


def draw_window(data, win, dtype, complex_ok=False):
    """(NumPy values or None, ferrograd window or None) of `win` points in `dtype` (or
    its complex dtype)."""
    kind = data.draw(st.sampled_from(["none", "hann", "random"] + ["complex"] * complex_ok))
    if kind == "none":
        return None, None
    if kind == "hann":
        t = torch.hann_window(win, dtype=getattr(fg, dtype))
        return t.numpy().astype(np.float64), t
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    w = rng.uniform(0.25, 1.5, win).astype(dtype)
    if kind == "complex":
        w = (w + 1j * rng.uniform(-0.5, 0.5, win)).astype(complex_of(dtype))
        return w.astype(np.complex128), fg.tensor(w, dtype=complex_of(dtype))
    return w.astype(np.float64), fg.tensor(w, dtype=dtype)


@FUZZ
@given(st.sampled_from(["float32", "float64", "complex64", "complex128"]), st.data())
def test_stft(dtype, data):
    batched = data.draw(st.booleans())
    length = data.draw(st.integers(1, 24))
    shape = (data.draw(st.integers(1, 3)), length) if batched else (length,)
    a, t = data.draw(signal(dtype, shape))
    n = data.draw(st.integers(1, 12))
    hop = data.draw(st.one_of(st.none(), st.integers(1, n + 2)))
    win = data.draw(st.one_of(st.none(), st.integers(1, n)))
    w, wt = draw_window(data, win or n, real_of(dtype), complex_ok=True)
    center = data.draw(st.booleans())
    pad_mode = data.draw(st.sampled_from(sorted(NP_PAD)))
    normalized = data.draw(st.booleans())
    onesided = data.draw(st.sampled_from([None, True, False]))
    align = None if center else data.draw(st.sampled_from([None, False, True]))
    is_complex = dtype.startswith("complex") or (w is not None and w.dtype.kind == "c")
    return_complex = data.draw(st.sampled_from([True, False] + [None] * is_complex))
    hop_ = n // 4 if hop is None else hop
    pad = n // 2 if center else 0
    bad = (
        hop_ <= 0
        or (is_complex and onesided)
        or (pad and pad_mode == "reflect" and pad >= length)
        or (pad and pad_mode == "circular" and pad > length)
        or n > length + 2 * pad + (n - (win or n) if align else 0)
    )
    args = (t, n, hop, win, wt, center, pad_mode, normalized, onesided, return_complex)
    CALLS["stft"] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # return_complex=False's deprecation
        if bad:  # PyTorch: a RuntimeError (ferrograd's is a ValueError too)
            with pytest.raises(RuntimeError):
                torch.stft(*args, align_to_window=align)
            return
        got = torch.stft(*args, align_to_window=align)
    one = not is_complex if onesided is None else onesided
    want = stft_ref(a, n, hop_, win or n, w, center, pad_mode, normalized, one, bool(align))
    if return_complex is False:
        want = np.stack([want.real, want.imag], -1)
        close(got, want, real_of(dtype), "stft (view_as_real)")
    else:
        close(got, want, complex_of(dtype), "stft")
    # Paddle's paddle.signal.stft: always complex, onesided=True unless the input is complex
    assume(n <= length + 2 * pad)  # (align_to_window made room for a longer frame above)
    CALLS["stft"] += 1
    got = fg.signal.stft(t, n, hop, win, wt, center, pad_mode, normalized)
    want = stft_ref(a, n, hop_, win or n, w, center, pad_mode, normalized, not is_complex)
    close(got, want, complex_of(dtype), "paddle.signal.stft")


@FUZZ
@given(st.sampled_from(["complex64", "complex128"]), st.data())
def test_istft(dtype, data):
    n = data.draw(st.integers(1, 10))
    hop = data.draw(st.one_of(st.none(), st.integers(1, n)))
    win = data.draw(st.one_of(st.none(), st.integers(1, n)))
    hop_ = max(n // 4, 0) if hop is None else hop
    assume(hop_ > 0)
    onesided = data.draw(st.sampled_from([None, True, False]))
    return_complex = data.draw(st.booleans()) and onesided is not True
    w, wt = draw_window(data, win or n, real_of(dtype), complex_ok=return_complex)
    freq = n // 2 + 1 if (onesided or (onesided is None and not return_complex)) else n
    assume(freq != n or onesided is not None or return_complex)  # n in (1, 2): ambiguous
    frames = data.draw(st.integers(1, 6))
    batched = data.draw(st.booleans())
    shape = ((data.draw(st.integers(1, 2)),) if batched else ()) + (freq, frames)
    a, t = data.draw(signal(dtype, shape))
    center = data.draw(st.booleans())
    normalized = data.draw(st.booleans())
    length = data.draw(st.one_of(st.none(), st.integers(1, 30)))
    one = freq != n if onesided is None else onesided
    args = (t, n, hop, win, wt, center, normalized, onesided, length, return_complex)
    CALLS["istft"] += 1
    try:
        want = istft_ref(a, n, hop_, win or n, w, center, normalized, one, length, return_complex)
    except NOLA:  # PyTorch: RuntimeError "window overlap add min"
        with pytest.raises(RuntimeError, match="NOLA|overlap"):
            torch.istft(*args)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # length past the signal: zero-padded with a warning
        got = torch.istft(*args)
    wmax = 1.0 if w is None else float(np.abs(w).max())
    scale = max(float(np.abs(want).max(initial=0)), np.abs(a).max() * wmax**2 / istft_ref.env_min)
    close(got, want, complex_of(dtype) if return_complex else real_of(dtype), "istft", scale)


@FUZZ
@given(st.sampled_from(["float64", "complex128"]), st.data())
def test_stft_istft_round_trip(dtype, data):
    # istft(stft(x), length=L) == x wherever the window envelope does not vanish
    length = data.draw(st.integers(4, 24))
    batched = data.draw(st.booleans())
    shape = (2, length) if batched else (length,)
    a, t = data.draw(signal(dtype, shape))
    n = data.draw(st.integers(2, min(8, length)))
    win = data.draw(st.integers(1, n))
    hop = data.draw(st.integers(1, win))
    w, wt = draw_window(data, win, "float64")
    center = data.draw(st.booleans())
    normalized = data.draw(st.booleans())
    is_complex = dtype == "complex128"
    spec = torch.stft(t, n, hop, win, wt, center, "reflect" if n // 2 < length else "constant",
                      normalized, return_complex=True)  # fmt: skip
    CALLS["stft round trip"] += 1
    args = (spec, n, hop, win, wt, center, normalized, None, length, is_complex)
    one = not is_complex
    ones = np.ones_like(spec.numpy())
    try:  # the reference of the envelope (and its NOLA verdict)
        istft_ref(ones, n, hop, win, w, center, normalized, one, length, is_complex)
    except NOLA:
        with pytest.raises(RuntimeError):
            torch.istft(*args)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = torch.istft(*args)
    # the tail past the last frame is not reconstructed (zeros)
    covered = min(length, n + hop * (spec.shape[-1] - 1) - (n // 2 if center else 0))
    close(got[..., :covered], np.asarray(a)[..., :covered], dtype, "istft(stft(x))")
    CALLS["stft round trip"] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = fg.signal.stft(t, n, hop, win, wt, center, "constant", normalized)
        got = fg.signal.istft(spec, n, hop, win, wt, center, normalized, one, length, is_complex)
    close(got[..., :covered], np.asarray(a)[..., :covered], dtype, "paddle istft(stft(x))")


@FUZZ
@given(st.data())
def test_stft_istft_gradients(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    length = data.draw(st.integers(3, 8))
    n = data.draw(st.integers(2, min(5, length)))
    hop = data.draw(st.integers(1, n))
    win = data.draw(st.integers(1, n))
    center = data.draw(st.booleans())
    normalized = data.draw(st.booleans())
    onesided = data.draw(st.booleans())
    mode = data.draw(st.sampled_from(sorted(NP_PAD) if n // 2 < length else ["constant"]))
    x = fg.tensor(rng.uniform(-1, 1, length), dtype="float64")
    w = fg.tensor(rng.uniform(0.5, 1.5, win), dtype="float64")
    x.requires_grad = True
    w.requires_grad = True

    def f(u, v):
        return fg.view_as_real(
            torch.stft(u, n, hop, win, v, center, mode, normalized, onesided, return_complex=True)
        )

    CALLS["stft gradcheck"] += 1
    assert gradcheck(f, (x, w), eps=1e-6, atol=1e-7, rtol=1e-5)
    # istft: w.r.t. a (non-Hermitian) spectrogram and the window
    frames = data.draw(st.integers(1, 4))
    freq = n // 2 + 1 if onesided else n
    s = fg.tensor(rng.uniform(-1, 1, (freq, frames)) + 1j * rng.uniform(-1, 1, (freq, frames)))
    s.requires_grad = True
    w2 = fg.tensor(rng.uniform(0.5, 1.5, win), dtype="float64")
    w2.requires_grad = True

    def g(u, v):
        return torch.istft(u, n, hop, win, v, center, normalized, onesided)

    try:
        g(s, w2)
    except RuntimeError:  # NOLA fails (checked in test_istft)
        return
    CALLS["istft gradcheck"] += 1
    assert gradcheck(g, (s, w2), eps=1e-6, atol=1e-7, rtol=1e-5)


# ---------------------------------------------------------------- regression tests for the bugs found


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.hann_window(4, requires_grad=True),
        lambda: torch.kaiser_window(4, requires_grad=True),
        lambda: torch.signal.windows.hann(4, requires_grad=True),
    ],
)
def test_window_requires_grad_regression(make):
    # PyTorch: a window that requires grad, as every factory function (fg.zeros does it)
    assert make().requires_grad


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.hann_window(4, dtype=torch.int64),  # was [0, 0, 1, 0]
        lambda: torch.signal.windows.hann(4, dtype=torch.int64),  # was [0, 0, 0, 0]
        lambda: torch.fft.fftfreq(4, dtype=torch.int64),  # was [0, 0, 0, 0]
        lambda: torch.fft.rfftfreq(4, dtype=torch.int32),  # was [0, 0, 0]
    ],
)
def test_integer_dtype_window_and_freq_regression(make):
    # PyTorch refuses ("hann_window expects floating point dtypes", "general_cosine
    # expects float32 or float64 dtypes", "fftfreq requires a floating point or complex
    # dtype"): the values (fractions of 1) do not survive the integer dtype
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        make()


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fft2", "fftn", "hfft", "ihfftn"])
def test_fft_out_regression(name):
    # PyTorch: every torch.fft transform takes out= (fftfreq / rfftfreq already do)
    x = torch.tensor([1.0, 2.0, 0.5, -1.0], dtype=torch.float64)
    x = x.reshape(2, 2) if name[-1] in "2n" else x
    want = getattr(torch.fft, name)(x)
    out = torch.empty(list(want.shape), dtype=want.dtype)
    got = getattr(torch.fft, name)(x, out=out)
    assert got is out
    np.testing.assert_array_equal(out.numpy(), want.numpy())
