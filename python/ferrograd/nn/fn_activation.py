"""Activations of ``nn.functional`` that take arguments beyond the input.

The parameter-free ones (``silu``, ``selu``, ``hardswish``, ``hardsigmoid``, ``relu6``,
``softsign``, ``tanhshrink``, ``log_sigmoid``) are single Rust kernels declared in
``src/op_defs/unary.rs``; the functions here either call those kernels (adding the
peers' extra arguments, such as torch's ``inplace`` (see ``_inplace.py``) or Paddle's ``slope``) or are
compositions of differentiable tensor ops, so gradients of every order flow through them.

Argument names follow both peers: torch's ``dim``/``min_val``/``max_val``/``lambd`` and
Paddle's ``axis``/``min``/``max``/``threshold``.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .._dialect import caller_dialect
from ._inplace import run_inplace

Tensor = _core.Tensor

# SELU's constants (Klambauer et al. 2017), the defaults of both peers
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _number(v: Any, what: str, arg: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{what}: {arg} must be a number, got {type(v).__name__}")
    return float(v)


def _float_input(x: Any, what: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    if x.dtype.is_complex:
        raise TypeError(f"{what}: complex input is not supported (dtype {x.dtype})")
    return x if x.dtype.is_floating_point else x.astype(_core.float32)


def silu(x: Tensor, inplace: bool = False, name: Optional[str] = None) -> Tensor:
    """SiLU ``x * sigmoid(x)`` (Paddle's ``swish`` is the same function)."""
    if inplace is True:
        return run_inplace(x, lambda v: v.silu(), "silu")
    return x.silu()


def selu(
    x: Tensor,
    scale: float = SELU_SCALE,
    alpha: float = SELU_ALPHA,
    name: Optional[str] = None,
    *,
    inplace: bool = False,
) -> Tensor:
    """SELU ``scale * (x if x > 0 else alpha * (exp(x) - 1))``; Paddle's ``scale`` and
    ``alpha`` may be changed (the defaults run one Rust kernel)."""
    if isinstance(scale, bool):  # torch's positional ``selu(x, inplace)``
        inplace, scale = scale, SELU_SCALE
    if inplace is True:
        return run_inplace(x, lambda v: selu(v, scale, alpha), "selu")
    if scale == SELU_SCALE and alpha == SELU_ALPHA:
        return x.selu()
    s = _number(scale, "selu", "scale")
    a = _number(alpha, "selu", "alpha")
    if s <= 1.0 or a < 0.0:
        # Paddle's own limits for the parameters
        raise ValueError(f"selu: scale must be > 1 and alpha >= 0, got scale={s}, alpha={a}")
    return elu(x, a) * s


def relu6(x: Tensor, inplace: bool = False, name: Optional[str] = None) -> Tensor:
    """``min(max(x, 0), 6)``."""
    if inplace is True:
        return run_inplace(x, lambda v: v.relu6(), "relu6")
    return x.relu6()


def hardswish(x: Tensor, inplace: bool = False, name: Optional[str] = None) -> Tensor:
    """Hard swish ``x * relu6(x + 3) / 6``."""
    if inplace is True:
        return run_inplace(x, lambda v: v.hardswish(), "hardswish")
    return x.hardswish()


def hardsigmoid(
    x: Tensor,
    slope: Optional[float] = None,
    offset: Optional[float] = None,
    name: Optional[str] = None,
    *,
    inplace: bool = False,
) -> Tensor:
    """Hard sigmoid ``clip(slope * x + offset, 0, 1)``.

    Without ``slope``/``offset`` it is torch's ``relu6(x + 3) / 6`` (one Rust kernel);
    Paddle's defaults ``slope=0.1666667, offset=0.5`` differ from that by at most 1e-7.
    """
    if isinstance(slope, bool):  # torch's positional ``hardsigmoid(x, inplace)``
        inplace, slope = slope, None
    if inplace is True:
        return run_inplace(x, lambda v: hardsigmoid(v, slope, offset), "hardsigmoid")
    if slope is None and offset is None:
        return x.hardsigmoid()
    k = _number(1.0 / 6.0 if slope is None else slope, "hardsigmoid", "slope")
    b = _number(0.5 if offset is None else offset, "hardsigmoid", "offset")
    x = _float_input(x, "hardsigmoid")
    return hardtanh(x * k + b, 0.0, 1.0)


def elu(x: Tensor, alpha: float = 1.0, inplace: bool = False, name: Optional[str] = None) -> Tensor:
    """ELU ``x if x > 0 else alpha * (exp(x) - 1)``."""
    if inplace is True:
        return run_inplace(x, lambda v: elu(v, alpha), "elu")
    a = _number(alpha, "elu", "alpha")
    x = _float_input(x, "elu")
    # exp of min(x, 0): never overflows, so the unused branch's gradient stays 0, not NaN
    return _core.where(x > 0, x, x.clip(max=0.0).expm1() * a)


def celu(
    x: Tensor, alpha: float = 1.0, inplace: bool = False, name: Optional[str] = None
) -> Tensor:
    """CELU ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if inplace is True:
        return run_inplace(x, lambda v: celu(v, alpha), "celu")
    a = _number(alpha, "celu", "alpha")
    if a == 0.0:
        raise ValueError("celu: alpha must not be 0 (it divides x)")
    x = _float_input(x, "celu")
    return _core.where(x > 0, x, (x.clip(max=0.0) * (1.0 / a)).expm1() * a)


def softplus(
    x: Tensor, beta: float = 1.0, threshold: float = 20.0, name: Optional[str] = None
) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``
    (both peers' definition). The defaults run one Rust kernel."""
    b = _number(beta, "softplus", "beta")
    t = _number(threshold, "softplus", "threshold")
    if b == 1.0 and t == 20.0:
        return x.softplus()
    if b == 0.0:
        raise ValueError("softplus: beta must not be 0 (it divides the result)")
    x = _float_input(x, "softplus")
    z = x * b
    # softplus(z) = -log_sigmoid(-z), exact and overflow-free for every z
    smooth = -((-z).log_sigmoid()) * (1.0 / b)
    return _core.where(z > t, x, smooth)


def hardtanh(
    x: Tensor,
    min_val: float = -1.0,
    max_val: float = 1.0,
    inplace: bool = False,
    name: Optional[str] = None,
    **paddle_names: float,
) -> Tensor:
    """``x`` clipped to ``[min_val, max_val]`` (Paddle: ``min``, ``max``). The gradient is
    1 strictly inside the interval and 0 elsewhere, as in torch."""
    lo_hi = {"min": min_val, "max": max_val}
    for key, value in paddle_names.items():
        if key not in lo_hi:
            raise TypeError(f"hardtanh() got an unexpected keyword argument {key!r}")
        lo_hi[key] = value
    if inplace is True:
        return run_inplace(x, lambda v: hardtanh(v, lo_hi["min"], lo_hi["max"]), "hardtanh")
    lo = _number(lo_hi["min"], "hardtanh", "min_val")
    hi = _number(lo_hi["max"], "hardtanh", "max_val")
    if lo > hi:
        raise ValueError(f"hardtanh: min_val ({lo}) must not exceed max_val ({hi})")
    inside = (x > lo).logical_and(x < hi)
    return _core.where(inside, x, x.clip(lo, hi).detach())


def glu(
    x: Tensor, dim: int = -1, name: Optional[str] = None, *, axis: Optional[int] = None
) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the two halves of ``x`` along
    ``dim`` (Paddle: ``axis``), whose size must be even."""
    if axis is not None:
        dim = axis
    if x.ndim == 0:
        raise ValueError("glu: the input must have at least one dimension")
    d = dim + x.ndim if dim < 0 else dim
    if not 0 <= d < x.ndim:
        raise IndexError(f"glu: dim {dim} is out of range for a {x.ndim}-d input")
    size = x.shape[d]
    if size % 2:
        raise ValueError(
            f"glu: the size of dim {dim} must be even to split it in halves, got {size}"
        )
    # (narrow, not split: a dim of size 0 has two empty halves, which split refuses)
    a, b = x.narrow(d, 0, size // 2), x.narrow(d, size // 2, size // 2)
    return a * b.sigmoid()


def prelu(
    x: Tensor, weight: Tensor, data_format: str = "NCHW", name: Optional[str] = None
) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` holds one slope or one per
    channel (dim 1, or the last dim with Paddle's ``data_format="NHWC"``/``"NLC"``...)."""
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu: weight must be a Tensor, got {type(weight).__name__}")
    n = weight.numel()
    if weight.ndim > 1 and n != 1:
        weight = weight.reshape([-1])
    if n != 1:
        if x.ndim == 0:
            raise ValueError(f"prelu: a 0-d input needs a single slope, got {n}")
        channel_last = data_format.upper().endswith("C") and data_format.upper() != "NC"
        cdim = x.ndim - 1 if channel_last else (1 if x.ndim > 1 else 0)
        if x.shape[cdim] != n:
            raise ValueError(
                f"prelu: weight has {n} slopes but the input has {x.shape[cdim]} channels "
                f"(dim {cdim} of shape {list(x.shape)})"
            )
        shape = [1] * x.ndim
        shape[cdim] = n
        weight = weight.reshape(shape)
    else:
        weight = weight.reshape([])
    return _core.where(x > 0, x, x * weight)


def rrelu(
    x: Tensor,
    lower: float = 1.0 / 8.0,
    upper: float = 1.0 / 3.0,
    training: bool = False,
    inplace: bool = False,
    name: Optional[str] = None,
) -> Tensor:
    """Randomized leaky ReLU: in training each negative element is scaled by a slope drawn
    uniformly from ``[lower, upper]`` (ferrograd's generator); otherwise by the fixed
    ``(lower + upper) / 2``. torch's default is ``training=False``; Paddle's functional
    defaults to ``training=True`` — pass it explicitly. The bounds need ``lower <= upper``
    (PyTorch's check); Paddle code (through ``nn.RReLU`` / ``rrelu_`` too) also needs
    ``0 <= lower`` and ``upper <= 1``, Paddle's."""
    lo = _number(lower, "rrelu", "lower")
    hi = _number(upper, "rrelu", "upper")
    if caller_dialect(through_layers=True) == "paddle" and not 0.0 <= lo <= hi <= 1.0:
        raise ValueError(
            f"rrelu: Paddle needs 0 <= lower <= upper <= 1, got lower={lo}, upper={hi}"
        )
    if not lo <= hi:
        raise ValueError(
            f"rrelu: lower must be less than or equal to upper, got lower={lo}, upper={hi}"
        )
    if inplace is True:
        return run_inplace(x, lambda v: rrelu(v, lo, hi, training), "rrelu")
    x = _float_input(x, "rrelu")
    if not training:
        return _core.where(x >= 0, x, x * ((lo + hi) / 2.0))
    slope = _core.rand(list(x.shape), dtype=x.dtype) * (hi - lo) + lo
    return _core.where(x >= 0, x, x * slope)


def threshold(
    x: Tensor, threshold: float, value: float, inplace: bool = False, name: Optional[str] = None
) -> Tensor:
    """``value`` where ``x <= threshold``, else ``x`` (torch's ``F.threshold``: NaN stays
    NaN, as its kernel's ``x <= threshold ? value : x``)."""
    if inplace is True:
        return run_inplace(
            x, lambda v: _threshold_impl(v, threshold, value, "threshold", True), "threshold"
        )
    return _threshold_impl(x, threshold, value, "threshold", True)


def thresholded_relu(
    x: Tensor, threshold: float = 1.0, value: float = 0.0, name: Optional[str] = None
) -> Tensor:
    """Paddle's ``x`` where ``x > threshold``, else ``value`` (default 0)."""
    return _threshold_impl(x, threshold, value, "thresholded_relu")


def _threshold_impl(x: Tensor, t: float, v: float, what: str, keep_nan: bool = False) -> Tensor:
    """``x > t ? x : v`` (Paddle's ``thresholded_relu``: NaN becomes ``v``), or with
    ``keep_nan`` ``x <= t ? v : x`` (torch's ``threshold``: NaN stays)."""
    t = _number(t, what, "threshold")
    v = _number(v, what, "value")
    if keep_nan:
        return _core.where(x <= t, _core.full_like(x, v), x)
    return _core.where(x > t, x, _core.full_like(x, v))


def hardshrink(
    x: Tensor, lambd: float = 0.5, name: Optional[str] = None, *, threshold: Optional[float] = None
) -> Tensor:
    """``x`` where ``|x| > lambd`` (Paddle: ``threshold``), else 0."""
    lam = _number(lambd if threshold is None else threshold, "hardshrink", "lambd")
    return _core.where(x.abs() > lam, x, _core.zeros_like(x))


def softshrink(
    x: Tensor, lambd: float = 0.5, name: Optional[str] = None, *, threshold: Optional[float] = None
) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between (Paddle:
    ``threshold``)."""
    lam = _number(lambd if threshold is None else threshold, "softshrink", "lambd")
    if lam < 0:
        raise ValueError(f"softshrink: lambd must be >= 0, got {lam}")
    x = _float_input(x, "softshrink")
    return _core.where(x > lam, x - lam, _core.where(x < -lam, x + lam, _core.zeros_like(x)))


__all__ = [
    "silu",
    "selu",
    "relu6",
    "hardswish",
    "hardsigmoid",
    "elu",
    "celu",
    "softplus",
    "hardtanh",
    "glu",
    "prelu",
    "rrelu",
    "threshold",
    "thresholded_relu",
    "hardshrink",
    "softshrink",
]
