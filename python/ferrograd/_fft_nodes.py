"""The differentiable nodes behind :mod:`ferrograd.fft` and their helpers: three
:class:`~ferrograd.autograd.Function` subclasses (complex-to-complex, real-to-complex,
half-spectrum-to-real) whose forward runs ``numpy.fft`` and whose backward is written
with the same nodes, plus the dtype rules and the differentiable crop / zero-pad."""

from __future__ import annotations

import sys
from typing import Any, Sequence

import numpy as np

from . import _core
from .autograd import Function

Tensor = _core.Tensor

_DUAL = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
# the largest element count accepted for a padded input / output (16-byte elements)
_MAX_NUMEL = sys.maxsize // 16


def _complex_dtype(t: Tensor) -> Any:
    """The complex dtype a transform of ``t`` yields (PyTorch's rules: complex stays,
    float64 -> complex128, other floats and integers / bool -> complex of the default
    float dtype, float32 -> complex64)."""
    d = t.dtype
    if d.is_complex:
        return d
    if d.name == "float64":
        return _core.complex128
    if d.is_floating_point and d.name != "float32":
        return _core.complex64  # float16 / bfloat16: computed in single precision
    if not d.is_floating_point and _core._get_default_dtype().name == "float64":
        return _core.complex128
    return _core.complex64


def _real_dtype(t: Tensor) -> Any:
    return _core.float64 if _complex_dtype(t).name == "complex128" else _core.float32


def _as_complex(t: Tensor) -> Tensor:
    d = _complex_dtype(t)
    return t if t.dtype == d else t.astype(d)


def _as_real(fname: str, t: Tensor) -> Tensor:
    if t.dtype.is_complex:
        raise TypeError(f"{fname} expects a real input tensor, got {t.dtype.name}")
    d = _real_dtype(t)
    return t if t.dtype == d else t.astype(d)


def _resize(fname: str, t: Tensor, axis: int, n: int) -> Tensor:
    """``t`` cropped or zero-padded to ``n`` along ``axis`` (differentiable)."""
    shape = list(t.shape)
    have = shape[axis]
    if n == have:
        return t
    if n < have:
        index = [slice(None)] * len(shape)
        index[axis] = slice(0, n)
        return t[tuple(index)]
    numel = 1
    for i, d in enumerate(shape):
        numel *= n if i == axis else d
    if numel > _MAX_NUMEL:
        raise ValueError(f"{fname}: padding to {n} points along dim {axis} is too large")
    shape[axis] = n - have
    return _core.concat([t, _core.zeros(shape, dtype=t.dtype)], axis)


def _check_nonempty(fname: str, t: Tensor, axes: Sequence[int]) -> None:
    for a in axes:
        if t.shape[a] == 0:
            raise ValueError(f"{fname}: invalid number of data points (0) along dim {a}")


def _from_numpy(a: np.ndarray, dtype: Any) -> Tensor:
    out = _core.tensor(np.ascontiguousarray(a))
    return out if out.dtype == dtype else out.astype(dtype)


# ---------------------------------------------------------------------------------------
# the three differentiable nodes


class _C2C(Function):
    """Complex-to-complex transform over ``axes`` (sizes kept)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, axes: tuple[int, ...], inverse: bool, norm: Any) -> Tensor:
        ctx.axes, ctx.inverse, ctx.norm = axes, inverse, norm
        f = np.fft.ifftn if inverse else np.fft.fftn
        return _from_numpy(f(x.numpy(), axes=axes, norm=norm), x.dtype)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Any, ...]:
        # the adjoint of fft with norm m is ifft with the dual norm (and vice versa)
        return _c2c(g, ctx.axes, not ctx.inverse, _DUAL[ctx.norm]), None, None, None


class _R2C(Function):
    """Real-to-complex transform over ``axes``; the last one keeps ``n // 2 + 1`` bins."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, axes: tuple[int, ...], norm: Any) -> Tensor:
        ctx.axes, ctx.norm, ctx.n = axes, norm, x.shape[axes[-1]]
        out = np.fft.rfftn(x.numpy(), axes=axes, norm=norm)
        return _from_numpy(out, _complex_dtype(x))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Any, ...]:
        # adjoint of "keep the first half of fftn": zero-pad, dual inverse, real part
        full = _resize("rfft", g, ctx.axes[-1], ctx.n)
        return _c2c(full, ctx.axes, True, _DUAL[ctx.norm]).real, None, None


class _C2R(Function):
    """Half-spectrum-to-real transform over ``axes``: the last one yields ``n`` points
    from its ``n // 2 + 1`` input bins."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, axes: tuple[int, ...], n: int, norm: Any) -> Tensor:
        ctx.axes, ctx.norm, ctx.n = axes, norm, n
        s = [x.shape[a] for a in axes[:-1]] + [n]
        out = np.fft.irfftn(x.numpy(), s=s, axes=axes, norm=norm)
        return _from_numpy(out, _real_dtype(x))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Any, ...]:
        gi = _R2C.apply(g, ctx.axes, _DUAL[ctx.norm])
        # bins 1 .. n - (n//2 + 1) stand for themselves and their mirror: doubled
        last = ctx.axes[-1]
        bins = gi.shape[last]
        double = ctx.n - bins
        if double > 0:
            w = np.ones(bins)
            w[1 : 1 + double] = 2.0
            shape = [1] * len(gi.shape)
            shape[last] = bins
            gi = gi * _from_numpy(w.reshape(shape), gi.dtype)
        return gi, None, None, None


def _c2c(x: Tensor, axes: Sequence[int], inverse: bool, norm: Any) -> Tensor:
    return _C2C.apply(x, tuple(axes), inverse, norm)
