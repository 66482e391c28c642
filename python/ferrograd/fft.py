"""Discrete Fourier transforms: PyTorch's ``torch.fft`` and Paddle's ``paddle.fft``.

The forward of every transform runs ``numpy.fft`` (pocketfft): a well-kept library made
for the job, exact to a few ulps for every length (prime lengths included), so ferrograd
does not carry an FFT of its own. It runs on the CPU and holds the GIL.

Each transform is one differentiable node (:class:`ferrograd.autograd.Function`) whose
backward is written with the same differentiable transforms, so gradients of any order
work. Gradients follow PyTorch's convention for complex numbers (the conjugate Wirtinger
derivative times two, see docs/autograd.md): the gradient of a linear map is its adjoint
applied to the incoming gradient. The adjoint of an unnormalised ``fft`` is ``n * ifft``,
i.e. ``ifft`` with the dual norm (``'backward'`` <-> ``'forward'``, ``'ortho'`` stays).
``rfft`` keeps the first ``n // 2 + 1`` outputs of ``fft`` of a real input, so its adjoint
zero-pads the gradient, applies the dual inverse and keeps the real part. ``irfft`` reads
its input as a half-spectrum (the imaginary parts of the zero and Nyquist bins are
ignored, the other bins stand for themselves and their conjugate mirror), so its gradient
is ``rfft`` of the incoming gradient with the mirrored bins doubled — both as PyTorch.

Cropping / zero-padding by ``n`` / ``s`` is done before the transform with slicing and
``concat`` (differentiable), and sizes are checked before anything is allocated.

Both dialects' signatures are accepted: ``fft(input, n=None, dim=-1, norm=None)``
(PyTorch) and ``fft(x, n=None, axis=-1, norm='backward', name=None)`` (Paddle); the
positional order is the same, the keyword names of both work.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from . import _core
from ._fft_nodes import (
    _C2R,
    _DUAL,
    _MAX_NUMEL,
    _R2C,
    _as_complex,
    _as_real,
    _c2c,
    _check_nonempty,
    _resize,
)

Tensor = _core.Tensor

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "hfft",
    "ihfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")


def _norm(fname: str, norm: Any) -> str:
    if norm is None:
        return "backward"
    if not isinstance(norm, str) or norm not in _NORMS:
        raise ValueError(
            f"{fname}: norm must be None, 'backward', 'ortho' or 'forward', got {norm!r}"
        )
    return norm


def _tensor(fname: str, x: Any) -> Tensor:
    if x is None:
        raise TypeError(f"{fname}: missing the input tensor (x / input)")
    return x if isinstance(x, Tensor) else _core.tensor(x)


def _axis(fname: str, d: Any, ndim: int) -> int:
    try:
        i = operator.index(d)
    except TypeError:
        raise TypeError(f"{fname}: a dim / axis must be an int, got {d!r}") from None
    if isinstance(d, bool):
        raise TypeError(f"{fname}: a dim / axis must be an int, got {d!r}")
    if not -ndim <= i < ndim:
        raise IndexError(
            f"{fname}: dim {i} is out of range for a tensor of {ndim} dimension(s) "
            f"(expected one in [{-ndim}, {ndim - 1}])"
        )
    return i % ndim


def _size(fname: str, n: Any) -> int:
    try:
        i = operator.index(n)
    except TypeError:
        raise TypeError(f"{fname}: a signal size n / s must be an int, got {n!r}") from None
    if isinstance(n, bool) or i <= 0:
        raise ValueError(f"{fname}: invalid number of data points ({n!r}); it must be >= 1")
    if i > _MAX_NUMEL:
        raise ValueError(f"{fname}: signal size {i} is too large")
    return i


def _axes_sizes(
    fname: str, t: Tensor, s: Any, dims: Any, default_dims: Sequence[int] | None
) -> tuple[list[int], list[int | None]]:
    """The (normalised, unique) axes and the requested sizes (None: keep) of an n-d
    transform. ``s`` without dims means the last ``len(s)`` axes (both peers)."""
    ndim = len(t.shape)
    if s is not None and not isinstance(s, (list, tuple)):
        s = [s]
    if dims is None:
        if s is not None:
            raw = list(range(ndim - len(s), ndim))
            if len(s) > ndim:
                raise ValueError(f"{fname}: s has {len(s)} sizes for a {ndim}-d tensor")
        elif default_dims is None:
            raw = list(range(ndim))
        else:
            raw = list(default_dims)
    else:
        raw = list(dims) if isinstance(dims, (list, tuple)) else [dims]
    axes = [_axis(fname, d, ndim) for d in raw]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{fname}: dims must be unique, got {raw}")
    if s is None:
        return axes, [None] * len(axes)
    if len(s) != len(axes):
        raise ValueError(f"{fname}: s has {len(s)} sizes but there are {len(axes)} dims")
    sizes: list[int | None] = [None if v == -1 else _size(fname, v) for v in s]
    numel = 1  # the padded element count, checked before anything is allocated
    for i, d in enumerate(t.shape):
        numel *= sizes[axes.index(i)] or d if i in axes else d
    if numel > _MAX_NUMEL:
        raise ValueError(f"{fname}: the signal sizes {list(s)} are too large")
    return axes, sizes


# ---------------------------------------------------------------------------------------
# the public transforms


def _pick(fname: str, x: Any, input: Any) -> Tensor:
    if input is not None:
        if x is not None:
            raise TypeError(f"{fname}: got both x and input")
        x = input
    return _tensor(fname, x)


def _dim(dim: Any, axis: Any, default: Any) -> Any:
    if axis is not None:
        return axis
    return default if dim is None else dim


def _c2c_nd(
    fname: str, t: Tensor, s: Any, dims: Any, norm: Any, inverse: bool, default: Any
) -> Tensor:
    norm = _norm(fname, norm)
    t = _as_complex(t)
    axes, sizes = _axes_sizes(fname, t, s, dims, default)
    for a, n in zip(axes, sizes):
        if n is not None:
            t = _resize(fname, t, a, n)
    _check_nonempty(fname, t, axes)
    if not axes:
        return t
    return _c2c(t, axes, inverse, norm)


def _r2c_nd(fname: str, t: Tensor, s: Any, dims: Any, norm: Any, default: Any) -> Tensor:
    norm = _norm(fname, norm)
    t = _as_real(fname, t)
    axes, sizes = _axes_sizes(fname, t, s, dims, default)
    if not axes:
        raise ValueError(f"{fname}: needs at least one dim")
    for a, n in zip(axes, sizes):
        if n is not None:
            t = _resize(fname, t, a, n)
    _check_nonempty(fname, t, axes)
    return _R2C.apply(t, tuple(axes), norm)


def _c2r_nd(fname: str, t: Tensor, s: Any, dims: Any, norm: Any, default: Any) -> Tensor:
    norm = _norm(fname, norm)
    t = _as_complex(t)
    axes, sizes = _axes_sizes(fname, t, s, dims, default)
    if not axes:
        raise ValueError(f"{fname}: needs at least one dim")
    for a, n in zip(axes[:-1], sizes[:-1]):
        if n is not None:
            t = _resize(fname, t, a, n)
    last = axes[-1]
    n_last = sizes[-1]
    if n_last is None:
        n_last = 2 * (t.shape[last] - 1)
        if n_last <= 0:
            raise ValueError(
                f"{fname}: invalid number of data points ({n_last}) along dim {last}; "
                "give n / s for an input of one bin"
            )
    t = _resize(fname, t, last, n_last // 2 + 1)
    _check_nonempty(fname, t, axes)
    return _C2R.apply(t, tuple(axes), n_last, norm)


def fft(
    x: Any = None,
    n: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """1-d discrete Fourier transform along ``dim`` / ``axis`` (default -1); ``n`` crops
    or zero-pads first. Real / integer input is promoted to complex."""
    t = _pick("fft", x, input)
    return _c2c_nd("fft", t, None if n is None else [n], [_dim(dim, axis, -1)], norm, False, None)


def ifft(
    x: Any = None,
    n: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """1-d inverse discrete Fourier transform (``norm='backward'`` divides by ``n``)."""
    t = _pick("ifft", x, input)
    return _c2c_nd("ifft", t, None if n is None else [n], [_dim(dim, axis, -1)], norm, True, None)


def rfft(
    x: Any = None,
    n: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """FFT of a real signal: the ``n // 2 + 1`` non-negative frequency bins."""
    t = _pick("rfft", x, input)
    return _r2c_nd("rfft", t, None if n is None else [n], [_dim(dim, axis, -1)], norm, None)


def irfft(
    x: Any = None,
    n: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """Inverse of :func:`rfft`: ``n`` real points (default ``2 * (bins - 1)``) from a
    half-spectrum."""
    t = _pick("irfft", x, input)
    return _c2r_nd("irfft", t, None if n is None else [n], [_dim(dim, axis, -1)], norm, None)


def hfft(
    x: Any = None,
    n: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """FFT of a Hermitian-symmetric signal given by its first half: ``n`` real points.
    It is ``irfft(conj(x))`` with the dual norm."""
    t = _as_complex(_pick("hfft", x, input))
    return irfft(t.conj(), n, _dim(dim, axis, -1), _DUAL[_norm("hfft", norm)])


def ihfft(
    x: Any = None,
    n: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axis: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """Inverse of :func:`hfft`: ``conj(rfft(x))`` with the dual norm."""
    t = _pick("ihfft", x, input)
    return rfft(t, n, _dim(dim, axis, -1), _DUAL[_norm("ihfft", norm)]).conj()


def fftn(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """N-d FFT over ``dim`` / ``axes`` (default: all dims, or the last ``len(s)``); ``s``
    crops or zero-pads each of them first."""
    return _c2c_nd("fftn", _pick("fftn", x, input), s, _dim(dim, axes, None), norm, False, None)


def ifftn(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """N-d inverse FFT (see :func:`fftn` for ``s`` and the dims)."""
    return _c2c_nd("ifftn", _pick("ifftn", x, input), s, _dim(dim, axes, None), norm, True, None)


def rfftn(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """N-d FFT of a real input; the last transformed dim keeps ``n // 2 + 1`` bins."""
    return _r2c_nd("rfftn", _pick("rfftn", x, input), s, _dim(dim, axes, None), norm, None)


def irfftn(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """Inverse of :func:`rfftn`; the last dim yields ``s[-1]`` real points (default
    ``2 * (bins - 1)``)."""
    return _c2r_nd("irfftn", _pick("irfftn", x, input), s, _dim(dim, axes, None), norm, None)


def fft2(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """2-d FFT over ``dim`` / ``axes`` (default the last two)."""
    return _c2c_nd("fft2", _pick("fft2", x, input), s, _dim(dim, axes, (-2, -1)), norm, False, None)


def ifft2(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """2-d inverse FFT over ``dim`` / ``axes`` (default the last two)."""
    return _c2c_nd(
        "ifft2", _pick("ifft2", x, input), s, _dim(dim, axes, (-2, -1)), norm, True, None
    )


def rfft2(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """2-d FFT of a real input over ``dim`` / ``axes`` (default the last two)."""
    return _r2c_nd("rfft2", _pick("rfft2", x, input), s, _dim(dim, axes, (-2, -1)), norm, None)


def irfft2(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """Inverse of :func:`rfft2` over ``dim`` / ``axes`` (default the last two)."""
    return _c2r_nd("irfft2", _pick("irfft2", x, input), s, _dim(dim, axes, (-2, -1)), norm, None)


def _hermitian_nd(
    fname: str, x: Any, input: Any, s: Any, dims: Any, norm: Any, inverse: bool
) -> Tensor:
    # hfftn(x) = irfftn(conj(x)) and ihfftn(x) = conj(rfftn(x)), each with the dual norm
    t = _pick(fname, x, input)
    dual = _DUAL[_norm(fname, norm)]
    if inverse:
        return _r2c_nd(fname, t, s, dims, dual, None).conj()
    return _c2r_nd(fname, _as_complex(t).conj(), s, dims, dual, None)


def hfft2(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """2-d FFT of a Hermitian-symmetric signal given by its half (real result) over
    ``dim`` / ``axes`` (default the last two): ``irfft2(conj(x))`` with the dual norm."""
    return _hermitian_nd("hfft2", x, input, s, _dim(dim, axes, (-2, -1)), norm, False)


def ihfft2(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """Inverse of :func:`hfft2` for a real input: ``conj(rfft2(x))`` with the dual norm."""
    return _hermitian_nd("ihfft2", x, input, s, _dim(dim, axes, (-2, -1)), norm, True)


def hfftn(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """N-d :func:`hfft2` (default: every dim, or the last ``len(s)``)."""
    return _hermitian_nd("hfftn", x, input, s, _dim(dim, axes, None), norm, False)


def ihfftn(
    x: Any = None,
    s: Any = None,
    dim: Any = None,
    norm: Any = None,
    name: Any = None,
    *,
    axes: Any = None,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """N-d :func:`ihfft2`: ``conj(rfftn(x))`` with the dual norm."""
    return _hermitian_nd("ihfftn", x, input, s, _dim(dim, axes, None), norm, True)


def _shift(fname: str, x: Any, dims: Any, sign: int) -> Tensor:
    t = _tensor(fname, x)
    ndim = len(t.shape)
    if dims is None:
        raw = list(range(ndim))
    else:
        raw = list(dims) if isinstance(dims, (list, tuple)) else [dims]
    axes = [_axis(fname, a, ndim) for a in raw]
    if not axes:
        return t
    shifts = [sign * (t.shape[a] // 2) for a in axes]
    return t.roll(shifts, axes)


def fftshift(
    x: Any = None, dim: Any = None, name: Any = None, *, axes: Any = None, input: Any = None
) -> Tensor:
    """Moves the zero-frequency bin to the middle along ``dim`` / ``axes`` (default all):
    a roll by ``size // 2``."""
    return _shift("fftshift", _pick("fftshift", x, input), _dim(dim, axes, None), 1)


def ifftshift(
    x: Any = None, dim: Any = None, name: Any = None, *, axes: Any = None, input: Any = None
) -> Tensor:
    """Undoes :func:`fftshift`: a roll by ``-(size // 2)``."""
    return _shift("ifftshift", _pick("ifftshift", x, input), _dim(dim, axes, None), -1)


# the sample frequencies (fftfreq / rfftfreq) live in _fft_freq.py
from ._fft_freq import fftfreq as fftfreq  # noqa: E402
from ._fft_freq import rfftfreq as rfftfreq  # noqa: E402
from ._out_arg import wrap_out_functions as _wrap_out_functions  # noqa: E402

_wrap_out_functions(globals(), __all__)  # PyTorch's out= (see _out_arg.py)
