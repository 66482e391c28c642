"""Statistics both peers have beyond the reduction table: ``var_mean``/``std_mean``,
``aminmax``, ``diff``, ``cov``/``corrcoef``, ``quantile``/``nanquantile``,
``trapezoid``/``cumulative_trapezoid`` and ``bincount``. Each is composed of
differentiable ops (sort, gather, sum, ...), so gradients come from those ops."""

from __future__ import annotations

import math
import operator
from collections import namedtuple
from typing import Any

import numpy as np

from . import _core
from .autograd.py_layer import Function

Tensor = _core.Tensor

__all__ = [
    "aminmax",
    "bincount",
    "corrcoef",
    "cov",
    "cumulative_trapezoid",
    "diff",
    "nanquantile",
    "quantile",
    "std_mean",
    "trapezoid",
    "trapz",
    "var_mean",
]

AminmaxResult = namedtuple("AminmaxResult", ["min", "max"])


def _dim_kw(dim: Any, axis: Any) -> Any:
    return axis if dim is None else dim


def _dim_in_range(op: str, d: Any, ndim: int) -> int:
    """``d`` (an int) as an index in ``0..ndim-1`` (a 0-d tensor counts as 1-d);
    IndexError naming the valid range otherwise (PyTorch's check and wording; Paddle
    refuses such an axis too)."""
    d = operator.index(d)
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
            f"but got {d})"
        )
    return d % n


def _one_axis(op: str, dim: Any, axis: Any, default: int) -> Any:
    """PyTorch's ``dim=`` or Paddle's ``axis=`` (``default`` when neither is given)."""
    if dim is not None and axis is not None:
        raise TypeError(f"{op}: got both dim= (PyTorch) and axis= (Paddle); pass one")
    d = dim if dim is not None else axis
    return default if d is None else d


def var_mean(
    x: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
    axis: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over ``dim`` (all elements by default); ``correction`` /
    ``unbiased`` as for ``var``. When ``x`` requires grad both come from one graph node
    with two outputs, as PyTorch's ``VarMeanBackward0`` (a pre-hook on it sees both
    gradients)."""
    d = _dim_kw(dim, axis)
    kw: dict[str, Any] = {"keepdim": keepdim}
    if correction is not None:
        kw["correction"] = correction
    elif unbiased is not None:
        kw["unbiased"] = unbiased
    if not (x.requires_grad and _core.is_grad_enabled()):
        return x.var(d, **kw), x.mean(d, keepdim=keepdim)
    if correction is not None:
        corr = float(correction)
    else:
        corr = 0.0 if unbiased is False else 1.0
    return VarMean.apply(x, d, kw, corr)


class VarMean(Function):
    """``var_mean``'s node: ``(var, mean)`` of ``x`` over ``d``; its backward sums both
    outputs' contributions, ``gvar * 2 (x - mean) / (n - correction) + gmean / n``, from
    ``x`` itself (so gradients of gradients are exact)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, d: Any, kw: dict[str, Any], corr: float) -> Any:
        ctx.save_for_backward(x)
        ctx.d, ctx.corr = d, corr
        return x.var(d, **kw), x.mean(d, keepdim=kw["keepdim"])

    @staticmethod
    def backward(ctx: Any, gvar: Tensor, gmean: Tensor) -> Any:
        (x,) = ctx.saved_tensors
        mean_k = x.mean(ctx.d, keepdim=True)
        n = x.numel() // max(mean_k.numel(), 1)
        shape_k = list(mean_k.shape)
        denom = n - ctx.corr
        scale = 2.0 / denom if denom != 0 else math.inf
        gx = gvar.reshape(shape_k) * scale * (x - mean_k)
        gx = gx + gmean.reshape(shape_k) / max(n, 1)
        return gx, None, None, None


def std_mean(
    x: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
    axis: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over ``dim`` (all elements by default)."""
    if not (x.requires_grad and _core.is_grad_enabled()):
        # std's own kernel: the variance of float32 input kept in float64 before the root
        kw: dict[str, Any] = {"keepdim": keepdim}
        if correction is not None:
            kw["correction"] = correction
        elif unbiased is not None:
            kw["unbiased"] = unbiased
        d = _dim_kw(dim, axis)
        return x.std(d, **kw), x.mean(d, keepdim=keepdim)
    v, m = var_mean(x, dim, unbiased, keepdim, correction=correction, axis=axis)
    # PyTorch's std_backward: a zero gradient where the std is 0 (sqrt sees 1 there)
    zero = (v == 0).detach()
    root = _core.where(zero, _core.ones([], dtype=v.dtype), v).sqrt()
    return _core.where(zero, _core.zeros([], dtype=v.dtype), root), m


def aminmax(x: Tensor, *, dim: Any = None, keepdim: bool = False) -> AminmaxResult:
    """``(min, max)`` over ``dim`` (all elements by default) as a named tuple. An empty
    tensor has none over all elements or over an empty ``dim``; over a non-empty ``dim``
    the result is empty (PyTorch's check)."""
    if x.numel() == 0 and (
        dim is None or x.ndim == 0 or x.shape[_dim_in_range("aminmax", dim, x.ndim)] == 0
    ):
        raise ValueError(
            "aminmax: cannot reduce an empty dimension (or an empty tensor without dim): "
            "the minimum of nothing is undefined"
        )
    return AminmaxResult(x.amin(dim, keepdim=keepdim), x.amax(dim, keepdim=keepdim))


def diff(
    x: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Any = None,
    append: Any = None,
    *,
    axis: Any = None,
    name: Any = None,
) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i+1] - x[i]``), after
    concatenating ``prepend`` / ``append``; bool tensors give ``x[i+1] != x[i]``."""
    if x.ndim == 0:
        raise ValueError("diff: expects a tensor with at least 1 dimension")
    d = _dim_in_range("diff", _dim_kw(axis, dim) if axis is not None else dim, x.ndim)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        parts = [p if isinstance(p, Tensor) else _core.tensor(p, dtype=x.dtype) for p in parts]
        parts = [
            p.reshape([*x.shape[:d], 1, *x.shape[d + 1 :]]) if p.ndim == 0 else p for p in parts
        ]
        x = _core.concat(parts, d)
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        hi, lo = x.narrow(d, 1, size - 1), x.narrow(d, 0, size - 1)
        x = hi.logical_xor(lo) if x.dtype == _core.bool else hi - lo
    return x


def _weights_fact(op: str, n: int, fweights: Any, aweights: Any, ref: Tensor) -> Any:
    """The observation weights ``fweights * aweights`` in ``ref``'s real dtype, after
    PyTorch's checks (Correlation.cpp ``cov``): 1-d with ``n`` entries, integer
    ``fweights``, neither negative."""
    w = None
    real = ref.real.dtype if ref.is_complex() else ref.dtype
    for name, v in (("fweights", fweights), ("aweights", aweights)):
        if v is None:
            continue
        if v.ndim > 1 or v.numel() != n:
            raise ValueError(
                f"{op}: {name} must be 1-d with {n} entries, got shape {list(v.shape)}"
            )
        if name == "fweights" and (
            v.is_floating_point() or v.is_complex() or v.dtype == _core.bool
        ):
            raise TypeError(f"{op}: fweights must hold integers, got {v.dtype}")
        if name == "aweights" and v.is_complex():
            raise TypeError(f"{op}: aweights must be real, got {v.dtype}")
        if n and bool((v < 0).any()):
            raise ValueError(f"{op}: {name} cannot be negative")
        a = v.reshape([n]).astype(real)
        w = a if w is None else w * a
    return w


def cov(x: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:
    """Covariance matrix of the variables in the rows of ``x`` (observations in columns);
    a 1-d ``x`` is one variable. ``correction=1`` is Bessel's correction; ``fweights`` /
    ``aweights`` weight the observations as NumPy's ``cov`` does. Size-1 dims of the
    result are squeezed (one variable: a 0-d result), as PyTorch's and NumPy's."""
    if x.ndim > 2:
        raise ValueError(f"cov: expects a 1-d or 2-d tensor, got {x.ndim} dimensions")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.astype(_core._get_default_dtype())
    m = x.reshape([1, -1]) if x.ndim < 2 else x
    n = m.shape[1]
    w = _weights_fact("cov", n, fweights, aweights, m)
    if w is None:
        avg = m.mean(1, keepdim=True)
        fact = float(n) - correction
    else:
        wsum_t = w.sum()
        # the normalisation factor in float64 (NumPy's; PyTorch's in the weights' dtype)
        w64 = w.astype(_core.float64)
        wsum = float(w64.sum().item())
        if wsum == 0:
            raise ValueError("cov: the weights sum to zero, so they cannot be normalized")
        avg = (m * w).sum(1, keepdim=True) / wsum_t
        if correction == 0 or aweights is None:
            fact = wsum - correction
        else:
            a = aweights.reshape([n]).astype(_core.float64)
            fact = wsum - correction * float((w64 * a).sum().item()) / wsum
    xm = m - avg
    xw = xm if w is None else xm * w
    c = xw.matmul(xm.conj().transpose(0, 1) if xm.is_complex() else xm.transpose(0, 1))
    c = c / fact if fact > 0 else c * math.inf  # NumPy: a non-positive factor gives inf/nan
    return c.squeeze()


def corrcoef(x: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of ``x``, clipped
    to [-1, 1] (real input)."""
    c = cov(x)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    r = c / std.reshape([-1, 1]) / std.reshape([1, -1])
    if r.is_complex():  # each part clipped, as PyTorch's corrcoef
        return _core.complex(r.real.clip(-1.0, 1.0), r.imag.clip(-1.0, 1.0))
    return r.clip(-1.0, 1.0)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


class _QuantileAxisError(IndexError, ValueError):
    """An axis out of range: PyTorch raises IndexError, Paddle ValueError."""


class _QuantileArgTypeError(TypeError, ValueError):
    """A non-integer axis: PyTorch raises TypeError, Paddle ValueError."""


def _quantile_axes(op: str, dim: Any, ndim: int) -> list[int]:
    """``dim`` (an int, or Paddle's list/tuple of ints) as sorted axes in ``0..n-1``."""
    items = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    n = max(ndim, 1)
    axes = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise _QuantileArgTypeError(
                f"{op}: axis must be an int or a list of ints, got {a!r} ({type(a).__name__})"
            )
        if not -n <= a < n:
            raise _QuantileAxisError(
                f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                f"but got {a})"
            )
        axes.append(int(a) % n)
    if not axes or len(set(axes)) != len(axes):
        raise ValueError(f"{op}: axis must name distinct dimensions, got {dim!r}")
    return sorted(axes)


def _quantile(
    op: str, x: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool
) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if not isinstance(q, (Tensor, int, float, list, tuple, np.ndarray, np.number)) or isinstance(
        q, bool
    ):
        raise TypeError(
            f"{op}: q must be a number, a list of numbers or a Tensor, got {type(q).__name__}"
        )
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"{op}: interpolation must be one of {_INTERPOLATIONS}, got {interpolation!r}"
        )
    if not x.is_floating_point():
        raise TypeError(f"{op}: expects a float tensor, got {x.dtype}")
    qv = np.asarray(q.numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    scalar_q = qv.ndim == 0  # (a 0-d tensor too: the result has no quantile dimension)
    qv = np.atleast_1d(qv)
    if qv.ndim != 1:
        raise ValueError(f"{op}: q must be a number or a 1-d tensor")
    if qv.size == 0 and not isinstance(q, Tensor):
        raise ValueError(f"{op}: q must not be empty (Paddle's check)")
    if np.any((qv < 0) | (qv > 1)) or np.any(np.isnan(qv)):
        raise ValueError(f"{op}: q values must be in [0, 1], got {qv.tolist()}")
    if x.numel() == 0:
        raise ValueError(f"{op}: expects a non-empty tensor")
    if dim is None:
        src, keep_shape = x.reshape([-1]), [1] * x.ndim
        d = 0
    else:
        axes = _quantile_axes(op, dim, x.ndim)
        src = x if x.ndim else x.reshape([1])
        # (a 0-d input keeps its empty shape, as in PyTorch)
        keep_shape = list(x.shape)
        for a in axes if x.ndim else ():
            keep_shape[a] = 1
        if len(axes) > 1:  # Paddle's several axes: moved last and flattened into one
            rest = [a for a in range(x.ndim) if a not in axes]
            src = src.permute([*rest, *axes]).reshape([*(x.shape[a] for a in rest), -1])
            d = len(rest)
        else:
            d = axes[0]
    moved = src.movedim(d, -1)
    lead = list(moved.shape[:-1])
    n = moved.shape[-1]
    s = moved.sort(-1).values  # NaN sorts last
    nan = moved.isnan()
    if ignore_nan:
        k = (n - nan.astype(_core.int64).sum(-1, keepdim=True)).astype(x.dtype)  # [..., 1]
    else:
        k = _core.full([*lead, 1], float(n), dtype=x.dtype)
    qt = _core.tensor(qv, dtype=x.dtype)
    pos = (k - 1).clip(min=0.0) * qt  # [..., nq]
    lo = pos.floor()
    hi = pos.ceil()
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = pos.round()
    li, hi_i = lo.astype(_core.int64), hi.astype(_core.int64)
    a, b = s.gather(-1, li), s.gather(-1, hi_i)
    if interpolation == "midpoint":
        out = (a + b) * 0.5
    elif interpolation == "linear":
        out = a + (b - a) * (pos - lo)
    else:
        out = a
    empty = (k == 0) if ignore_nan else nan.any(-1, keepdim=True)
    out = _core.where(empty.expand(list(out.shape)), _core.full([1], math.nan, dtype=x.dtype), out)
    out = out.movedim(-1, 0)  # [nq, ...lead]
    if keepdim:
        out = out.reshape([len(qv), *keep_shape])
    return out[0] if scalar_q else out


def quantile(
    x: Tensor,
    q: Any,
    dim: Any = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
    axis: Any = None,
    name: Any = None,
) -> Tensor:
    """The ``q``-th quantiles of ``x`` over ``dim`` (all elements by default); ``q`` a
    number in [0, 1] or a 1-d tensor of them (its dimension comes first in the result).
    A slice holding NaN gives NaN. Gradients flow to the values picked (and blended)."""
    return _quantile("quantile", x, q, _dim_kw(dim, axis), keepdim, interpolation, False)


def nanquantile(
    x: Tensor,
    q: Any,
    dim: Any = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
    axis: Any = None,
    name: Any = None,
) -> Tensor:
    """``quantile`` ignoring NaN values (an all-NaN slice gives NaN)."""
    return _quantile("nanquantile", x, q, _dim_kw(dim, axis), keepdim, interpolation, True)


def _trapz_parts(y: Tensor, x: Any, dx: Any, d: int) -> tuple[Tensor, Any]:
    size = y.shape[d]
    avg = (y.narrow(d, 1, size - 1) + y.narrow(d, 0, size - 1)) * 0.5
    if x is None:
        return avg, 1.0 if dx is None else dx
    if not isinstance(x, Tensor):
        x = _core.tensor(x, dtype=y.dtype)
    if x.ndim == 1:
        if x.shape[0] != size:
            raise ValueError(f"trapezoid: x has {x.shape[0]} points but y has {size} along dim {d}")
        shape = [1] * y.ndim
        shape[d] = size - 1
        spacing = (x.narrow(0, 1, size - 1) - x.narrow(0, 0, size - 1)).reshape(shape)
    else:
        spacing = diff(x, dim=d)
    return avg, spacing


def _trapz_args(op: str, y: Tensor, x: Any, dx: Any, dim: Any, axis: Any) -> int:
    if x is not None and dx is not None:
        raise ValueError(
            f"{op}: not permitted to specify both x and dx; pass the sample points x or "
            f"the constant spacing dx"
        )
    if y.ndim == 0:
        raise IndexError(f"{op}: expects a tensor with at least 1 dimension, got a 0-d tensor")
    return _dim_in_range(op, _one_axis(op, dim, axis, -1), y.ndim)


def trapezoid(
    y: Tensor,
    x: Any = None,
    dx: Any = None,
    axis: Any = None,
    name: Any = None,
    *,
    dim: Any = None,
) -> Tensor:
    """The trapezoidal-rule integral of ``y`` along ``dim`` / ``axis`` (default -1), with
    sample points ``x`` or a constant spacing ``dx`` (default 1), not both: PyTorch's
    ``trapezoid(y, x, *, dx, dim)`` and Paddle's ``trapezoid(y, x, dx, axis)``."""
    d = _trapz_args("trapezoid", y, x, dx, dim, axis)
    if y.shape[d] == 0:
        return y.sum(d)
    avg, spacing = _trapz_parts(y, x, dx, d)
    return (avg * spacing).sum(d)


trapz = trapezoid


def cumulative_trapezoid(
    y: Tensor,
    x: Any = None,
    dx: Any = None,
    axis: Any = None,
    name: Any = None,
    *,
    dim: Any = None,
) -> Tensor:
    """The running trapezoidal-rule integral of ``y`` along ``dim`` / ``axis`` (default
    -1; one element fewer than ``y`` along it), with sample points ``x`` or a constant
    spacing ``dx`` (default 1), not both."""
    d = _trapz_args("cumulative_trapezoid", y, x, dx, dim, axis)
    if y.shape[d] == 0:
        return y
    avg, spacing = _trapz_parts(y, x, dx, d)
    return (avg * spacing).cumsum(d)


def bincount(x: Tensor, weights: Any = None, minlength: int = 0, name: Any = None) -> Tensor:
    """Counts of each value of a 1-d tensor of non-negative integers (the sums of
    ``weights`` per value, when given); length ``max(max(x) + 1, minlength)``. Not
    differentiable in ``x``; differentiable in ``weights``."""
    if x.ndim != 1 or x.is_floating_point() or x.is_complex() or x.dtype == _core.bool:
        raise TypeError(f"bincount: expects a 1-d integer tensor, got {x.ndim}-d {x.dtype}")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    if x.numel() and int(x.amin().item()) < 0:
        raise ValueError("bincount: the input must hold non-negative integers")
    length = max(int(x.amax().item()) + 1 if x.numel() else 0, minlength)
    idx = x.astype(_core.int64)
    if weights is None:
        src = _core.ones([x.shape[0]], dtype=_core.int64)
        return _core.zeros([length], dtype=_core.int64).scatter_add(0, idx, src)
    if not isinstance(weights, Tensor):
        weights = _core.tensor(weights)
    if list(weights.shape) != list(x.shape):
        raise ValueError(f"bincount: weights must have the shape of the input {list(x.shape)}")
    w = weights if weights.is_floating_point() else weights.astype(_core.float64)
    return _core.zeros([length], dtype=w.dtype).scatter_add(0, idx, w)
