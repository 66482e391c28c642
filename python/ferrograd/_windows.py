"""Window functions beyond ``_ops_compose_more``'s four: ``torch.kaiser_window`` and the
``torch.signal.windows`` family (``sym=True`` by default there: symmetric windows, while
the ``*_window`` functions default to ``periodic=True``). A periodic window of ``N``
points is the symmetric window of ``N + 1`` points without its last one. The values are
computed in float64 with NumPy and converted to ``dtype`` (default: the default dtype);
windows are constants (leaves that require grad only when asked with ``requires_grad=True``),
as PyTorch's; a non-floating ``dtype`` is refused."""

from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from . import _core
from ._ops_compose_more import _finish_window, _window, _window_dtype

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
    "get_window",
]


def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: Any = None,
    **options: Any,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)``
    (``periodic``: for spectral analysis, PyTorch's default)."""
    return _window(
        "kaiser_window", window_length, periodic, dtype, lambda k, m: np.kaiser(m, beta), options
    )


def _sym_window(
    op: str, m: Any, sym: bool, dtype: Any, values: Callable[[int], Any], options: dict
) -> Tensor:
    """``values(points)`` for a symmetric window of ``points`` points, as torch.signal.windows
    (``sym=False``: the periodic window, ``m + 1`` points without the last); ``options``:
    PyTorch's factory keywords (``requires_grad``, ``layout``, ``device``)."""
    try:
        dt = _window_dtype(op, dtype, options)
    except RuntimeError:
        raise ValueError(f"{op} expects floating point dtypes, got: {dtype}") from None
    m = operator.index(m)
    if m < 0:
        raise ValueError(f"{op}: requires non-negative window length, got M={m}")
    if m <= 1:
        return _finish_window((_core.ones if m else _core.zeros)([m], dtype=dt), options)
    points = m if sym else m + 1
    w = np.asarray(values(points), dtype=np.float64)[:m]
    return _finish_window(_core.tensor(w, dtype=dt), options)


def _cosine_sum(points: int, a: Sequence[float]) -> np.ndarray:
    k = 2 * np.pi * np.arange(points) / (points - 1)
    return sum(((-1) ** i) * c * np.cos(i * k) for i, c in enumerate(a))  # type: ignore[return-value]


def general_cosine(
    M: int, *, a: Sequence[float], sym: bool = True, dtype: Any = None, **options: Any
) -> Tensor:
    """The generalised cosine window ``sum_i (-1)^i a_i cos(2 pi i k / (M - 1))``."""
    return _sym_window("general_cosine", M, sym, dtype, lambda p: _cosine_sum(p, list(a)), options)


def general_hamming(
    M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Any = None, **options: Any
) -> Tensor:
    """The generalised Hamming window ``alpha - (1 - alpha) cos(2 pi k / (M - 1))``."""
    return _sym_window(
        "general_hamming",
        M,
        sym,
        dtype,
        lambda p: _cosine_sum(p, [alpha, 1 - alpha]),
        options,
    )


def hann(M: int, *, sym: bool = True, dtype: Any = None, **options: Any) -> Tensor:
    """The Hann window (``torch.signal.windows.hann``; symmetric by default)."""
    return _sym_window("hann", M, sym, dtype, lambda p: _cosine_sum(p, [0.5, 0.5]), options)


def hamming(M: int, *, sym: bool = True, dtype: Any = None, **options: Any) -> Tensor:
    """The Hamming window (``torch.signal.windows.hamming``; symmetric by default)."""
    return _sym_window("hamming", M, sym, dtype, lambda p: _cosine_sum(p, [0.54, 0.46]), options)


def blackman(M: int, *, sym: bool = True, dtype: Any = None, **options: Any) -> Tensor:
    """The Blackman window (``torch.signal.windows.blackman``; symmetric by default)."""
    return _sym_window(
        "blackman", M, sym, dtype, lambda p: _cosine_sum(p, [0.42, 0.5, 0.08]), options
    )


def nuttall(M: int, *, sym: bool = True, dtype: Any = None, **options: Any) -> Tensor:
    """The minimum 4-term Blackman-Harris (Nuttall) window."""
    a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
    return _sym_window("nuttall", M, sym, dtype, lambda p: _cosine_sum(p, a), options)


def bartlett(M: int, *, sym: bool = True, dtype: Any = None, **options: Any) -> Tensor:
    """The Bartlett (triangular) window (``torch.signal.windows.bartlett``)."""
    return _sym_window("bartlett", M, sym, dtype, np.bartlett, options)


def kaiser(
    M: int, *, beta: float = 12.0, sym: bool = True, dtype: Any = None, **options: Any
) -> Tensor:
    """The Kaiser window (``torch.signal.windows.kaiser``; symmetric by default)."""
    if beta < 0:
        raise ValueError(f"kaiser: beta must be non-negative, got {beta}")
    return _sym_window("kaiser", M, sym, dtype, lambda p: np.kaiser(p, beta), options)


def cosine(M: int, *, sym: bool = True, dtype: Any = None, **options: Any) -> Tensor:
    """The cosine (sine) window ``sin(pi (k + 0.5) / M)``."""
    return _sym_window(
        "cosine", M, sym, dtype, lambda p: np.sin(np.pi * (np.arange(p) + 0.5) / p), options
    )


def gaussian(
    M: int, *, std: float = 1.0, sym: bool = True, dtype: Any = None, **options: Any
) -> Tensor:
    """The Gaussian window ``exp(-((k - (M - 1) / 2) / std)^2 / 2)``."""
    if std <= 0:
        raise ValueError(f"gaussian: standard deviation must be positive, got {std}")
    return _sym_window(
        "gaussian",
        M,
        sym,
        dtype,
        lambda p: np.exp(-(((np.arange(p) - (p - 1) / 2) / std) ** 2) / 2),
        options,
    )


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: Any = None,
    **options: Any,
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

    return _sym_window("exponential", M, sym, dtype, values, options)


def _triang(p: int) -> np.ndarray:
    n = np.arange(1, (p + 1) // 2 + 1, dtype=np.float64)
    if p % 2 == 0:
        w = (2 * n - 1.0) / p
        return np.concatenate([w, w[::-1]])
    w = 2 * n / (p + 1.0)
    return np.concatenate([w, w[-2::-1]])


def _bohman(p: int) -> np.ndarray:
    fac = np.abs(np.linspace(-1, 1, p)[1:-1])
    w = (1 - fac) * np.cos(np.pi * fac) + np.sin(np.pi * fac) / np.pi
    return np.concatenate([[0.0], w, [0.0]])


def _tukey(p: int, alpha: float = 0.5) -> np.ndarray:
    if alpha <= 0:
        return np.ones(p)
    if alpha >= 1.0:
        return _cosine_sum(p, [0.5, 0.5])
    n = np.arange(p, dtype=np.float64)
    width = int(alpha * (p - 1) / 2.0)
    n1, n2, n3 = n[: width + 1], n[width + 1 : p - width - 1], n[p - width - 1 :]
    w1 = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * n1 / alpha / (p - 1))))
    w3 = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (p - 1))))
    return np.concatenate([w1, np.ones(n2.shape), w3])


def _exponential(p: int, center: float | None = None, tau: float = 1.0) -> np.ndarray:
    c = (p - 1) / 2 if center is None else center
    return np.exp(-np.abs(np.arange(p) - c) / tau)


def _taylor(p: int, nbar: int = 4, sll: float = 30, norm: bool = True) -> np.ndarray:
    """Taylor window: ``nbar`` nearly constant sidelobes ``sll`` dB below the main lobe
    (the cosine series of Taylor's line-source distribution), 1 at the middle when
    ``norm``."""
    a = np.arccosh(10 ** (sll / 20.0)) / np.pi
    s2 = nbar**2 / (a**2 + (nbar - 0.5) ** 2)
    ms = np.arange(1, nbar, dtype=np.float64)
    f = np.empty(nbar - 1)
    for i, m in enumerate(ms):
        num = (-1) ** (m + 1) * np.prod(1 - m**2 / s2 / (a**2 + (ms - 0.5) ** 2))
        others = np.delete(ms, i)
        f[i] = num / (2 * np.prod(1 - m**2 / others**2))

    def series(x: np.ndarray) -> np.ndarray:
        return 1 + 2 * np.cos(2 * np.pi * np.outer(x - p / 2.0 + 0.5, ms) / p) @ f

    w = series(np.arange(p, dtype=np.float64))
    return w / series(np.array([(p - 1) / 2.0]))[0] if norm else w


# Paddle's window names -> (values of a symmetric window of p points, the parameters)
_PADDLE_WINDOWS: dict[str, Callable[..., np.ndarray]] = {
    "hamming": lambda p: _cosine_sum(p, [0.54, 0.46]),
    "hann": lambda p: _cosine_sum(p, [0.5, 0.5]),
    "blackman": lambda p: _cosine_sum(p, [0.42, 0.5, 0.08]),
    "nuttall": lambda p: _cosine_sum(p, [0.3635819, 0.4891775, 0.1365995, 0.0106411]),
    "general_cosine": lambda p, a: _cosine_sum(p, list(a)),
    "general_hamming": lambda p, alpha: _cosine_sum(p, [alpha, 1 - alpha]),
    "bartlett": np.bartlett,
    "triang": _triang,
    "bohman": _bohman,
    "tukey": _tukey,
    "cosine": lambda p: np.sin(np.pi * (np.arange(p) + 0.5) / p),
    "kaiser": lambda p, beta: np.kaiser(p, beta),
    "gaussian": lambda p, std: np.exp(-0.5 * ((np.arange(p) - (p - 1) / 2) / std) ** 2),
    "general_gaussian": lambda p, q, sig: np.exp(
        -0.5 * np.abs((np.arange(p) - (p - 1) / 2) / sig) ** (2 * q)
    ),
    "exponential": _exponential,
    "taylor": _taylor,
}


def get_window(
    window: Any, win_length: int, fftbins: bool = True, dtype: Any = "float64"
) -> Tensor:
    """``paddle.audio.functional.get_window``: the window called ``window`` (a name, or a
    tuple ``(name, *parameters)``: ``('kaiser', beta)``, ``('gaussian', std)``,
    ``('exponential', center, tau)``, ``('general_gaussian', p, sig)``, ``('tukey', alpha)``,
    ``('taylor', nbar, sll, norm)`` ...) of ``win_length`` points, periodic when ``fftbins`` (the default), as scipy's."""
    if isinstance(window, tuple):
        name, args = window[0], tuple(window[1:])
    elif isinstance(window, str):
        if window in ("gaussian", "exponential", "kaiser"):
            raise ValueError(f"The '{window}' window needs one or more parameters -- pass a tuple.")
        name, args = window, ()
    else:
        raise ValueError(f"{type(window)} as window type is not supported.")
    values = _PADDLE_WINDOWS.get(name)
    if values is None:
        raise ValueError(f"Unknown window type {name!r}; supported: {sorted(_PADDLE_WINDOWS)}")
    dt = getattr(_core, dtype) if isinstance(dtype, str) else dtype
    m = operator.index(win_length)
    if m <= 1:
        return _core.ones([max(m, 0)], dtype=dt)
    return _sym_window("get_window", m, not fftbins, dt, lambda p: values(p, *args), {})
