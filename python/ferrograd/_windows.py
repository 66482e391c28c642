"""Window functions beyond ``_ops_compose_more``'s four: ``torch.kaiser_window`` and the
``torch.signal.windows`` family (``sym=True`` by default there: symmetric windows, while
the ``*_window`` functions default to ``periodic=True``). A periodic window of ``N``
points is the symmetric window of ``N + 1`` points without its last one. The values are
computed in float64 with NumPy and converted to ``dtype`` (default: the default dtype);
windows are constants (not differentiable), as PyTorch's."""

from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from . import _core
from ._ops_compose_more import _window

Tensor = _core.Tensor

__all__ = [
    "kaiser_window",
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: Any = None,
    **_: Any,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)``
    (``periodic``: for spectral analysis, PyTorch's default)."""
    return _window("kaiser_window", window_length, periodic, dtype, lambda k, m: np.kaiser(m, beta))


def _sym_window(op: str, m: Any, sym: bool, dtype: Any, values: Callable[[int], Any]) -> Tensor:
    """``values(points)`` for a symmetric window of ``points`` points, as torch.signal.windows
    (``sym=False``: the periodic window, ``m + 1`` points without the last)."""
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"{op}: requires non-negative window length, got M={m}")
    dt = dtype or _core._get_default_dtype()
    if m == 0:
        return _core.zeros([0], dtype=dt)
    if m == 1:
        return _core.ones([1], dtype=dt)
    points = m if sym else m + 1
    w = np.asarray(values(points), dtype=np.float64)[:m]
    return _core.tensor(w, dtype=dt)


def _cosine_sum(points: int, a: Sequence[float]) -> np.ndarray:
    k = 2 * np.pi * np.arange(points) / (points - 1)
    return sum(((-1) ** i) * c * np.cos(i * k) for i, c in enumerate(a))  # type: ignore[return-value]


def general_cosine(
    M: int, *, a: Sequence[float], sym: bool = True, dtype: Any = None, **_: Any
) -> Tensor:
    """The generalised cosine window ``sum_i (-1)^i a_i cos(2 pi i k / (M - 1))``."""
    return _sym_window("general_cosine", M, sym, dtype, lambda p: _cosine_sum(p, list(a)))


def general_hamming(
    M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Any = None, **_: Any
) -> Tensor:
    """The generalised Hamming window ``alpha - (1 - alpha) cos(2 pi k / (M - 1))``."""
    return _sym_window(
        "general_hamming", M, sym, dtype, lambda p: _cosine_sum(p, [alpha, 1 - alpha])
    )


def hann(M: int, *, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The Hann window (``torch.signal.windows.hann``; symmetric by default)."""
    return _sym_window("hann", M, sym, dtype, lambda p: _cosine_sum(p, [0.5, 0.5]))


def hamming(M: int, *, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The Hamming window (``torch.signal.windows.hamming``; symmetric by default)."""
    return _sym_window("hamming", M, sym, dtype, lambda p: _cosine_sum(p, [0.54, 0.46]))


def blackman(M: int, *, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The Blackman window (``torch.signal.windows.blackman``; symmetric by default)."""
    return _sym_window("blackman", M, sym, dtype, lambda p: _cosine_sum(p, [0.42, 0.5, 0.08]))


def nuttall(M: int, *, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The minimum 4-term Blackman-Harris (Nuttall) window."""
    a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
    return _sym_window("nuttall", M, sym, dtype, lambda p: _cosine_sum(p, a))


def bartlett(M: int, *, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The Bartlett (triangular) window (``torch.signal.windows.bartlett``)."""
    return _sym_window("bartlett", M, sym, dtype, np.bartlett)


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The Kaiser window (``torch.signal.windows.kaiser``; symmetric by default)."""
    if beta < 0:
        raise ValueError(f"kaiser: beta must be non-negative, got {beta}")
    return _sym_window("kaiser", M, sym, dtype, lambda p: np.kaiser(p, beta))


def cosine(M: int, *, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The cosine (sine) window ``sin(pi (k + 0.5) / M)``."""
    return _sym_window("cosine", M, sym, dtype, lambda p: np.sin(np.pi * (np.arange(p) + 0.5) / p))


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: Any = None, **_: Any) -> Tensor:
    """The Gaussian window ``exp(-((k - (M - 1) / 2) / std)^2 / 2)``."""
    if std <= 0:
        raise ValueError(f"gaussian: standard deviation must be positive, got {std}")
    return _sym_window(
        "gaussian",
        M,
        sym,
        dtype,
        lambda p: np.exp(-(((np.arange(p) - (p - 1) / 2) / std) ** 2) / 2),
    )


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: Any = None,
    **_: Any,
) -> Tensor:
    """The exponential (Poisson) window ``exp(-|k - center| / tau)`` (``center``
    defaults to ``(M - 1) / 2`` and must be None when ``sym``)."""
    if tau <= 0:
        raise ValueError(f"exponential: tau must be positive, got {tau}")
    if sym and center is not None:
        raise ValueError("exponential: center must be None for symmetric windows")

    def values(p: int) -> np.ndarray:
        c = (p - 1) / 2 if center is None else center
        return np.exp(-np.abs(np.arange(p) - c) / tau)

    return _sym_window("exponential", M, sym, dtype, values)
