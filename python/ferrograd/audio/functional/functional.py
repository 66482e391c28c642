"""``paddle.audio.functional``'s feature helpers (Paddle 3.3.1's
``python/paddle/audio/functional/functional.py``, itself after librosa):

- ``hz_to_mel`` / ``mel_to_hz``: the Slaney mel scale (linear below 1 kHz, logarithmic
  above) or, with ``htk=True``, ``2595 log10(1 + f / 700)``. A Tensor gives a Tensor
  made of differentiable ops; a Python number gives a float.
- ``mel_frequencies``, ``fft_frequencies``, ``compute_fbank_matrix``, ``create_dct``:
  constant tensors, computed in float64 with NumPy and converted to ``dtype`` (Paddle
  computes them in ``dtype``; float64 here is at least as accurate).
- ``power_to_db``: ``10 log10(max(x, amin) / max(ref, amin))``, clipped ``top_db`` below
  the largest value, from differentiable ops.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Union

import numpy as np

from ... import _core

Tensor = _core.Tensor

__all__ = [
    "hz_to_mel",
    "mel_to_hz",
    "mel_frequencies",
    "fft_frequencies",
    "compute_fbank_matrix",
    "power_to_db",
    "create_dct",
]

# the Slaney mel scale: 3 mels per 200 Hz up to 1 kHz, then a log step of ln(6.4) / 27
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def _float_dtype(op: str, dtype: Any) -> Any:
    """``dtype`` (a name such as ``'float32'`` or a ferrograd dtype; None: the default
    dtype) as a floating ferrograd dtype."""
    if dtype is None:
        return _core._get_default_dtype()
    dt = getattr(_core, dtype, None) if isinstance(dtype, str) else dtype
    if dt is None or not getattr(dt, "is_floating_point", False):
        raise TypeError(f"{op}: dtype must be a floating point type, got {dtype!r}")
    return dt


def _real_tensor(op: str, x: Tensor) -> Tensor:
    """``x`` as a real floating tensor (an integer tensor is cast to the default dtype)."""
    if x.dtype.is_complex:
        raise TypeError(f"{op}: expected a real tensor, got {x.dtype}")
    if not x.dtype.is_floating_point:
        return x.astype(_core._get_default_dtype())
    return x


def _number(op: str, name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{op}: {name} must be a Tensor or a real number, got {type(v).__name__}")
    return float(v)


def _count(op: str, name: str, v: Any, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < minimum:
        raise ValueError(f"{op}: {name} must be an int >= {minimum}, got {v!r}")
    return int(v)


def hz_to_mel(freq: Union[Tensor, float], htk: bool = False) -> Any:
    """Frequencies in Hz to mels: Slaney's scale (``htk=False``, librosa's default:
    ``f / (200/3)`` below 1 kHz, ``15 + ln(f / 1000) / (ln(6.4) / 27)`` above) or HTK's
    ``2595 log10(1 + f / 700)``. ``freq``: a Tensor of any shape (differentiable) or a
    number (a float comes back)."""
    op = "hz_to_mel"
    if isinstance(freq, Tensor):
        f = _real_tensor(op, freq)
        if htk:
            return 2595.0 * (1.0 + f / 700.0).log10()
        linear = f / _F_SP
        above = f > _MIN_LOG_HZ
        # the log branch reads f clipped to the log region, so the branch not taken is
        # finite (no NaN from log of f <= 0 leaks into the gradient); 1e-10: Paddle's
        logs = _MIN_LOG_MEL + (f.clip(min=_MIN_LOG_HZ) / _MIN_LOG_HZ + 1e-10).log() / _LOGSTEP
        return _core.where(above, logs, linear)
    fv = _number(op, "freq", freq)
    if htk:
        if fv <= -700.0:
            raise ValueError(f"{op}: htk mels need freq > -700 Hz, got {fv}")
        return 2595.0 * math.log10(1.0 + fv / 700.0)
    if fv >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(fv / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return fv / _F_SP


def mel_to_hz(mel: Union[Tensor, float], htk: bool = False) -> Any:
    """Mels to Hz, the inverse of :func:`hz_to_mel` (same scales): a Tensor of any shape
    (differentiable) or a number (a float comes back)."""
    op = "mel_to_hz"
    if isinstance(mel, Tensor):
        m = _real_tensor(op, mel)
        if htk:
            return 700.0 * (m * (math.log(10.0) / 2595.0)).expm1()
        linear = _F_SP * m
        logs = _MIN_LOG_HZ * (_LOGSTEP * (m - _MIN_LOG_MEL)).exp()
        return _core.where(m > _MIN_LOG_MEL, logs, linear)
    mv = _number(op, "mel", mel)
    if htk:
        return 700.0 * (10.0 ** (mv / 2595.0) - 1.0)
    if mv >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mv - _MIN_LOG_MEL))
    return _F_SP * mv


def _mel_frequencies64(n_mels: int, f_min: float, f_max: float, htk: bool) -> np.ndarray:
    mels = np.linspace(hz_to_mel(f_min, htk), hz_to_mel(f_max, htk), n_mels)
    hz = mel_to_hz(_core.tensor(mels, dtype=_core.float64), htk)
    return np.asarray(hz.numpy(), dtype=np.float64)


def mel_frequencies(
    n_mels: int = 64,
    f_min: float = 0.0,
    f_max: float = 11025.0,
    htk: bool = False,
    dtype: Any = "float32",
) -> Tensor:
    """``n_mels`` frequencies in Hz, evenly spaced on the mel scale from ``f_min`` to
    ``f_max`` (both included): a ``(n_mels,)`` tensor of ``dtype``."""
    op = "mel_frequencies"
    dt = _float_dtype(op, dtype)
    n = _count(op, "n_mels", n_mels, 0)
    lo, hi = _number(op, "f_min", f_min), _number(op, "f_max", f_max)
    return _core.tensor(_mel_frequencies64(n, lo, hi, htk), dtype=dt)


def fft_frequencies(sr: int, n_fft: int, dtype: Any = "float32") -> Tensor:
    """The centre frequencies in Hz of the ``n_fft // 2 + 1`` bins of a one-sided FFT at
    sample rate ``sr``: ``linspace(0, sr / 2, n_fft // 2 + 1)``, as Paddle (and librosa
    before 0.9). For an even ``n_fft`` that is ``k * sr / n_fft``; for an odd one the last
    bin is put at ``sr / 2`` rather than ``(n_fft - 1) / 2 * sr / n_fft``."""
    op = "fft_frequencies"
    dt = _float_dtype(op, dtype)
    n = _count(op, "n_fft", n_fft, 1)
    rate = _number(op, "sr", sr)
    return _core.tensor(np.linspace(0.0, rate / 2, 1 + n // 2), dtype=dt)


def compute_fbank_matrix(
    sr: int,
    n_fft: int,
    n_mels: int = 64,
    f_min: float = 0.0,
    f_max: float | None = None,
    htk: bool = False,
    norm: Union[str, float, None] = "slaney",
    dtype: Any = "float32",
) -> Tensor:
    """The mel filter bank: a ``(n_mels, n_fft // 2 + 1)`` matrix whose row ``i`` is a
    triangle over the FFT bins, rising from mel frequency ``i`` to ``i + 1`` and falling
    to ``i + 2`` (``n_mels + 2`` points from ``f_min`` to ``f_max``, default ``sr / 2``).
    ``norm='slaney'`` scales each row by ``2 / (f[i + 2] - f[i])`` (constant energy per
    channel); a number ``p`` divides each row by its p-norm (``max(norm, 1e-12)``, as
    ``F.normalize``); ``None`` leaves the triangles' peaks at 1."""
    op = "compute_fbank_matrix"
    dt = _float_dtype(op, dtype)
    n_bins = 1 + _count(op, "n_fft", n_fft, 1) // 2
    n = _count(op, "n_mels", n_mels, 0)
    rate = _number(op, "sr", sr)
    if rate <= 0:
        raise ValueError(f"{op}: sr must be positive, got {sr!r}")
    lo = _number(op, "f_min", f_min)
    hi = rate / 2 if f_max is None else _number(op, "f_max", f_max)
    if not lo < hi:
        raise ValueError(f"{op}: expected f_min < f_max, got f_min={lo}, f_max={hi}")
    fftfreqs = np.linspace(0.0, rate / 2, n_bins)
    mel_f = _mel_frequencies64(n + 2, lo, hi, htk)
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fftfreqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    if isinstance(norm, str):
        if norm != "slaney":
            raise ValueError(f"{op}: norm must be 'slaney', a number or None, got {norm!r}")
        weights *= (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]
    elif norm is not None:
        p = _number(op, "norm", norm)
        weights /= np.maximum(np.linalg.norm(weights, ord=p, axis=-1, keepdims=True), 1e-12)
    return _core.tensor(weights, dtype=dt)


def power_to_db(
    spect: Tensor,
    ref_value: float = 1.0,
    amin: float = 1e-10,
    top_db: float | None = 80.0,
) -> Tensor:
    """A power spectrogram in decibels: ``10 log10(max(spect, amin)) - 10
    log10(max(ref_value, amin))``; with ``top_db``, values more than ``top_db`` below the
    largest one (over the whole tensor, batch included, as Paddle) are raised to it.
    Differentiable in ``spect``."""
    op = "power_to_db"
    if amin <= 0:
        raise ValueError(f"{op}: amin must be strictly positive, got {amin!r}")
    if ref_value <= 0:
        raise ValueError(f"{op}: ref_value must be strictly positive, got {ref_value!r}")
    if top_db is not None and top_db < 0:
        raise ValueError(f"{op}: top_db must be non-negative, got {top_db!r}")
    x = spect if isinstance(spect, Tensor) else _core.tensor(spect)
    x = _real_tensor(op, x)
    log_spec = 10.0 * x.maximum(_core.full_like(x, amin)).log10()
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        log_spec = log_spec.maximum(log_spec.max() - top_db)
    return log_spec


def create_dct(
    n_mfcc: int, n_mels: int, norm: str | None = "ortho", dtype: Any = "float32"
) -> Tensor:
    """The DCT-II matrix that maps ``n_mels`` log-mel energies to ``n_mfcc`` cepstral
    coefficients, shaped ``(n_mels, n_mfcc)`` (multiply on the right):
    ``cos(pi / n_mels * (n + 0.5) * k)``, scaled ``sqrt(2 / n_mels)`` with column 0 by a
    further ``1 / sqrt(2)`` for ``norm='ortho'`` (orthonormal columns), or by 2 for
    ``norm=None``."""
    op = "create_dct"
    dt = _float_dtype(op, dtype)
    n_out = _count(op, "n_mfcc", n_mfcc, 1)
    n_in = _count(op, "n_mels", n_mels, 1)
    n = np.arange(n_in, dtype=np.float64)
    k = np.arange(n_out, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_in * (n + 0.5) * k)
    if norm is None:
        dct *= 2.0
    elif norm == "ortho":
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_in)
    else:
        raise ValueError(f"{op}: norm must be 'ortho' or None, got {norm!r}")
    return _core.tensor(np.ascontiguousarray(dct.T), dtype=dt)
