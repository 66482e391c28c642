"""Elementwise math beyond the core kernels: ``fmod``, ``hypot``, ``logaddexp``,
``logaddexp2``, ``xlogy``, ``lerp``, ``clamp``/``clip`` with tensor bounds,
``nan_to_num``, ``isclose``/``allclose``; the vector helpers of ``nn.functional``
(``normalize``, ``cosine_similarity``, ``pairwise_distance``) live in ``_ops_vector.py``
and are re-exported here.

Each differentiable op here is a composition of differentiable core ops, so first and
second derivatives come from the core's (``gradcheck`` / ``gradgradcheck`` in
tests/python/test_math_ops.py). The compositions are written for exact or stable values
and for gradients that stay finite where the peers' are (see each function's note).
Both dialects' argument names are accepted: torch's ``input, other`` / ``dim`` and
Paddle's ``x, y`` / ``axis``.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Optional, Union

import numpy as np

from . import _core, _dialect_aliases
from ._core import _caller_dialect  # (the rule in Rust)
from ._dialect import caller_dialect
from ._dtype_info import result_type
from ._ops_vector import cosine_similarity, normalize, pairwise_distance
from .grad_mode import no_grad

Tensor = _core.Tensor
Number = Union[int, float]

__all__ = [
    "fmod",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "lerp",
    "clamp",
    "clip",
    "nan_to_num",
    "isclose",
    "allclose",
    "normalize",
    "cosine_similarity",
    "pairwise_distance",
    "install_tensor_methods",
]

_native_clip = Tensor.clip
_native_clamp = Tensor.clamp


def _pair(op: str, x: Any, y: Any) -> tuple[Tensor, Tensor]:
    """Both operands as tensors: a Python number takes the other operand's dtype (the
    peers' weak scalar typing); two numbers make default-float tensors."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            raise TypeError(
                f"{op}: expects Tensors or numbers, got {type(x).__name__} and {type(y).__name__}"
            )
        x = _core.tensor(builtins.float(x))
    if not isinstance(x, Tensor):
        x = _scalar_like(op, x, y)
    if not isinstance(y, Tensor):
        y = _scalar_like(op, y, x)
    return x, y


def _scalar_like(op: str, v: Any, like: Tensor) -> Tensor:
    if isinstance(v, builtins.bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}: expects a Tensor or a number, got {type(v).__name__}")
    dtype = like.dtype
    if isinstance(v, float) and not (dtype.is_floating_point or dtype.is_complex):
        dtype = _core._get_default_dtype()
    return _core.tensor(v, dtype=dtype)


def _floating(t: Tensor) -> Tensor:
    """``t`` itself when floating, else converted to the default float dtype."""
    if t.dtype.is_floating_point:
        return t
    if t.dtype.is_complex:
        raise TypeError("this op is defined for real tensors only, got a complex one")
    return t.astype(_core._get_default_dtype())


def _float_pair(op: str, x: Any, y: Any) -> tuple[Tensor, Tensor]:
    """Both operands in one floating dtype: their promoted dtype (as ``+``'s, the 0-d rule
    included), or the default float when that is not floating. Promoted first, so an
    int32 beside a float64 is computed in float64, not converted to float32 alone."""
    a, b = _pair(op, x, y)
    if a.dtype.is_complex or b.dtype.is_complex:
        raise TypeError(f"{op}: defined for real tensors only, got a complex one")
    dtype = result_type(a, b)
    if not dtype.is_floating_point:
        dtype = _core._get_default_dtype()
    return (a if a.dtype == dtype else a.astype(dtype)), (
        b if b.dtype == dtype else b.astype(dtype)
    )


def _sign_ones(t: Tensor) -> Tensor:
    """-1 where ``t < 0``, else 1 (also at -0.0 and NaN), as a constant of ``t``'s dtype."""
    with no_grad():
        return _core.where(t < 0, -1, 1).astype(t.dtype)


def fmod(
    x: Any = None, y: Any = None, name: Any = None, *, input: Any = None, other: Any = None
) -> Tensor:
    """C's ``fmod``: the remainder of ``x / y`` truncated toward zero, with the sign of
    ``x`` (``remainder`` / ``%`` take the divisor's sign instead). Exact, also for huge
    quotients: floats as ``sign(x) * (|x| % |y|)``, where ``%`` of non-negative values is
    exact; integers from ``x % y``, less ``y`` where the signs differ (no magnitude, which
    would not fit at the dtype's minimum). Gradients: 1 for ``x``, ``-trunc(x / y)`` for
    ``y``."""
    x, y = _args2("fmod", x, y, input, other)
    a, b = _pair("fmod", x, y)
    if a.dtype.is_complex or b.dtype.is_complex:
        raise TypeError("fmod: complex tensors have no fmod")
    dtype = result_type(a, b)
    if not dtype.is_floating_point:
        # integers: from the floor remainder (exact, the divisor's sign) without the
        # magnitudes, which do not fit at the dtype's minimum (|-2**31| in int32); `%`
        # and `-` promote (and check a narrowed 0-d operand) as usual
        r = a.remainder(b)
        return _core.where((r != 0) & ((a < 0) != (b < 0)), r - b, r)
    # floats: both in the float dtype first (an int32 divisor's sign flip would wrap)
    a, b = (
        (a if a.dtype == dtype else a.astype(dtype)),
        (b if b.dtype == dtype else b.astype(dtype)),
    )
    sa, sb = _sign_ones(a), _sign_ones(b)
    return (a * sa).remainder(b * sb) * sa


def _args2(op: str, x: Any, y: Any, input: Any, other: Any) -> tuple[Any, Any]:
    """The two operands, given positionally (either dialect) or as torch's ``input=`` /
    ``other=`` keywords."""
    first = x if x is not None else input
    second = y if y is not None else other
    if first is None or second is None:
        raise TypeError(f"{op}: expects two operands (a Tensor and a Tensor or number)")
    return first, second


def hypot(
    x: Any = None, y: Any = None, name: Any = None, *, input: Any = None, other: Any = None
) -> Tensor:
    """``sqrt(x**2 + y**2)`` without overflow or underflow in the squares (scaled by the
    larger magnitude, as C's ``hypot``); ``inf`` when either is infinite, even NaN."""
    x, y = _args2("hypot", x, y, input, other)
    a, b = _float_pair("hypot", x, y)
    with no_grad():
        m = _core.Tensor.maximum(a.abs(), b.abs())
        bad = (m == 0) | m.isinf() | m.isnan()
        scale = _core.where(bad, 1.0, m)
        anyinf = a.isinf() | b.isinf()
    r = scale * ((a / scale).square() + (b / scale).square()).sqrt()
    return _core.where(anyinf, math.inf, r)


def logaddexp(
    x: Any = None, y: Any = None, name: Any = None, *, input: Any = None, other: Any = None
) -> Tensor:
    """``log(exp(x) + exp(y))`` computed stably as ``max + log1p(exp(-|x - y|))``;
    equal infinities give that infinity, NaN propagates."""
    x, y = _args2("logaddexp", x, y, input, other)
    a, b = _float_pair("logaddexp", x, y)
    m = a.maximum(b)
    d = _core.where(a == b, 0.0, a - b)
    return m + d.abs().neg().exp().log1p()


def logaddexp2(
    x: Any = None, y: Any = None, name: Any = None, *, input: Any = None, other: Any = None
) -> Tensor:
    """``log2(2**x + 2**y)``, stably (``logaddexp`` in base 2)."""
    x, y = _args2("logaddexp2", x, y, input, other)
    a, b = _float_pair("logaddexp2", x, y)
    ln2 = math.log(2.0)
    return logaddexp(a * ln2, b * ln2) * (1.0 / ln2)


def xlogy(
    x: Any = None, y: Any = None, name: Any = None, *, input: Any = None, other: Any = None
) -> Tensor:
    """``x * log(y)``, with 0 where ``x == 0`` (unless ``y`` is NaN), as torch's.
    Gradients as torch's: ``log(y)`` for ``x`` (also at ``x == 0``), ``x / y`` for ``y``;
    both are 0 where ``x == 0`` and ``y <= 0`` or infinite, where ``log(y)`` is not finite
    (so no NaN comes from ``log(0)``)."""
    x, y = _args2("xlogy", x, y, input, other)
    a, b = _float_pair("xlogy", x, y)
    with no_grad():
        # only these positions need the special case: elsewhere ``a * log(b)`` is already
        # 0 at ``a == 0`` and its gradient for ``a`` is ``log(b)``
        bad = (a == 0) & ((b <= 0) | b.isinf())
    b_safe = _core.where(bad, 1.0, b)
    r = _core.where(bad, 0.0, a * b_safe.log())
    # 0 where x == 0 is +0.0, as PyTorch's (0 * log(y) is -0.0 for y < 1, -0.0 * log(y)
    # for y > 1): adding +0.0 there turns -0.0 into +0.0; -0.0 elsewhere changes nothing
    # (x * log(y) itself may be -0.0 there: x = -2, y = 1); the gradient passes unchanged
    with no_grad():
        zero_fix = _core.where((a == 0) & ~b.isnan(), 0.0, -0.0).astype(r.dtype)
    return r + zero_fix


def lerp(
    x: Any = None,
    y: Any = None,
    weight: Any = None,
    name: Any = None,
    *,
    input: Any = None,
    end: Any = None,
) -> Tensor:
    """``x + weight * (y - x)``; ``weight`` a number or a (broadcast) tensor. As torch,
    computed from the nearer end (``y - (y - x) * (1 - weight)`` when
    ``|weight| >= 0.5``), so ``weight = 1`` gives ``y`` exactly."""
    x, y = _args2("lerp", x, y, input, end)
    if weight is None:
        raise TypeError("lerp: expects a weight (a number or a Tensor)")
    a, b = _pair("lerp", x, y)
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        a = _floating(a)
    if not (b.dtype.is_floating_point or b.dtype.is_complex):
        b = _floating(b)
    diff = b - a
    if isinstance(weight, Tensor):
        with no_grad():
            low = weight.abs() < 0.5
        return _core.where(low, a + weight * diff, b - diff * (1.0 - weight))
    if isinstance(weight, builtins.bool) or not isinstance(weight, (int, float)):
        raise TypeError(f"lerp: weight must be a number or a Tensor, got {type(weight).__name__}")
    w = builtins.float(weight)
    if builtins.abs(w) < 0.5:
        return a + diff * w
    return b - diff * (1.0 - w)


def _bound_needs_tensor_path(v: Any, x: Tensor) -> bool:
    """Whether a bound needs the broadcasting composition (the core kernel takes numbers
    and one-element tensors that neither need a gradient nor widen ``x``'s shape)."""
    return isinstance(v, Tensor) and (v.numel() != 1 or v.requires_grad or v.ndim > x.ndim)


def _float_bound_of_int(x: Tensor, *bounds: Any) -> bool:
    """Whether an integer (or bool) ``x`` is clamped by a float number or float tensor."""
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return False
    return builtins.any(
        isinstance(b, builtins.float)
        or (isinstance(b, Tensor) and (b.dtype.is_floating_point or b.dtype.is_complex))
        for b in bounds
    )


def _torch_clip_dtype(x: Tensor, min: Any, max: Any) -> Any:
    """PyTorch's result dtype of ``clamp(x, min, max)``: ``result_type`` of ``x`` and the
    bounds, so a float number widens an integer ``x`` to the default float, and a 0-d
    tensor bound widens ``x`` only when its category is higher (``int32`` clamped by a
    0-d ``float64`` is ``float64``; ``float32`` by a 0-d ``float64`` stays ``float32``).
    Beside a number bound, a 0-d tensor bound counts as a number of its kind (PyTorch then
    takes its ``clamp(Tensor, Number, Number)`` form): ``clamp(int32, min=<0-d float64>,
    max=2)`` is the default float dtype."""
    dtype = x.dtype
    if builtins.any(
        isinstance(b, (builtins.int, builtins.float, builtins.complex)) for b in (min, max)
    ):
        min, max = (_as_number_kind(b) for b in (min, max))
    for b in (min, max):
        if isinstance(b, (builtins.int, builtins.float, builtins.complex)):
            b = type(b)(0)  # only its kind matters (a huge int must not overflow here)
        if b is not None:
            dtype = result_type(_core.zeros([0] if x.ndim else [], dtype=dtype), b)
    return dtype


def _as_number_kind(b: Any) -> Any:
    """A 0-d tensor bound that does not require grad as a number of its kind (its value
    does not matter for the dtype); anything else unchanged."""
    if not isinstance(b, Tensor) or b.ndim != 0 or b.requires_grad:
        return b
    if b.dtype.is_complex:
        return 0j
    if b.dtype.is_floating_point:
        return 0.0
    return False if b.dtype == _core.bool else 0


def _torch_tie_gradient(x: Tensor, out: Tensor, lo: Any, hi: Any) -> Tensor:
    """PyTorch's gradient of ``clamp`` where ``x`` equals a bound: none for a number
    bound, half for a (one-element) tensor bound."""
    with no_grad():
        inside = _core.ones_like(x).astype(_core.bool)
        half = _core.zeros_like(x).astype(_core.bool)
        for bound, below in ((lo, False), (hi, True)):
            if bound is None:
                continue
            inside = inside & ((x < bound) if below else (x > bound))
            if isinstance(bound, Tensor):
                half = half | (x == bound)
        half = half & ~inside
    halved = out * 0.5 + out.detach() * 0.5
    return _core.where(inside, out, _core.where(half, halved, out.detach()))


def clip(
    x: Tensor, min: Any = None, max: Any = None, name: Any = None, *, input: Any = None
) -> Tensor:
    """Clamps ``x`` into ``[min, max]``. Numbers (and one-element tensors) use the core
    kernel; tensor bounds broadcast against ``x`` (torch's ``clamp(x, min_t, max_t)``):
    ``min`` applies first, then ``max`` (so ``min > max`` gives ``max``, as torch). The
    gradient goes to ``x`` where it is inside the bounds (ties included) and to a tensor
    bound where that bound is taken; a NaN in ``x`` or in a tensor bound propagates. Outside
    Paddle code ``x`` is first cast to PyTorch's result dtype of ``x`` and the bounds (an
    integer ``x`` with a float bound, or a bound tensor of a higher category); in
    PyTorch code number bounds pass no gradient where ``x`` equals a bound and one-element
    tensor bounds half of it (PyTorch's)."""
    t = input if input is not None else x
    if _number_bounds_only(t, min, max):
        return _native_clip(t, min, max)
    return _clip(t, min, max, _caller_dialect(2))


def _number_bounds_only(x: Any, min: Any, max: Any) -> bool:
    """Whether ``clip(x, min, max)`` is the core kernel's answer in every dialect, so the
    caller's dialect need not be asked (the common call, kept cheap): a floating ``x``
    that needs no gradient (PyTorch's tie rule acts on the gradient only) and bounds that
    are ``None`` or plain ``int`` / ``float`` numbers (no cast: a number never widens a
    floating ``x``)."""
    return (
        isinstance(x, Tensor)
        and (min.__class__ in _NUMBER_BOUND)
        and (max.__class__ in _NUMBER_BOUND)
        and not x.requires_grad
        and x.dtype.is_floating_point
    )


# the exact classes of a bound the fast path takes (bool, numpy scalars go the long way)
_NUMBER_BOUND = frozenset({builtins.int, builtins.float, type(None)})


def _clip(x: Tensor, min: Any, max: Any, dialect: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"clip: expects a Tensor, got {type(x).__name__}")
    if dialect != "paddle" and (
        _float_bound_of_int(x, min, max)
        or builtins.any(isinstance(b, Tensor) and b.dtype != x.dtype for b in (min, max))
    ):
        # torch: clamp(int tensor, 2.5) is result_type(x, 2.5), the default float dtype
        x = x.astype(_torch_clip_dtype(x, min, max))
    if not (_bound_needs_tensor_path(min, x) or _bound_needs_tensor_path(max, x)):
        out = _native_clip(x, min, max)
        if dialect == "torch" and out.requires_grad and (min is not None or max is not None):
            out = _torch_tie_gradient(x, out, min, max)
        return out
    for label, bound in (("min", min), ("max", max)):
        if isinstance(bound, Tensor):
            try:
                np.broadcast_shapes(tuple(x.shape), tuple(bound.shape))
            except ValueError:
                raise ValueError(
                    f"clip: {label} has shape {list(bound.shape)}, which does not broadcast "
                    f"against the input's {list(x.shape)}; pass a number, a one-element "
                    "tensor or a tensor that broadcasts"
                ) from None
    out = x
    if min is not None:
        lo = min if isinstance(min, Tensor) else _scalar_like("clip", min, x)
        with no_grad():
            take = (out < lo) | lo.isnan()
        out = _core.where(take, lo, out)
    if max is not None:
        hi = max if isinstance(max, Tensor) else _scalar_like("clip", max, x)
        with no_grad():
            take = (out > hi) | hi.isnan()
        out = _core.where(take, hi, out)
    return out


def clamp(
    input: Tensor,
    min: Any = None,
    max: Any = None,
    name: Any = None,
    *,
    out: Any = None,
    x: Any = None,
) -> Tensor:
    """torch's name for :func:`clip` (tensor bounds broadcast)."""
    if out is not None:
        raise TypeError("clamp: out= is not supported; assign the result instead")
    t = input if x is None else x
    if _number_bounds_only(t, min, max):
        return _native_clip(t, min, max)
    return _clip(t, min, max, _caller_dialect(2))


def _finfo(dtype: Any) -> tuple[float, float]:
    name = str(dtype).replace("ferrograd.", "")
    if name == "bfloat16":
        big = 3.3895313892515355e38
        return big, -big
    info = np.finfo(np.dtype(name if name != "complex64" else "float32"))
    if name == "complex128":
        info = np.finfo(np.float64)
    return builtins.float(info.max), builtins.float(info.min)


def nan_to_num(
    x: Tensor,
    nan: float = 0.0,
    posinf: Optional[float] = None,
    neginf: Optional[float] = None,
    name: Any = None,
    *,
    input: Any = None,
    out: Any = None,
) -> Tensor:
    """Replaces NaN with ``nan``, +inf with ``posinf`` and -inf with ``neginf`` (by
    default the dtype's largest and smallest finite values). Integer and bool tensors
    come back unchanged (a copy). The gradient passes where ``x`` was finite, 0 elsewhere."""
    if input is not None:
        x = input
    if out is not None:
        raise TypeError("nan_to_num: out= is not supported; assign the result instead")
    if not isinstance(x, Tensor):
        raise TypeError(f"nan_to_num: expects a Tensor, got {type(x).__name__}")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        return x.clone()
    if x.dtype.is_complex:
        raise TypeError(
            "nan_to_num: complex tensors are not supported; apply it to .real and .imag"
        )
    hi, lo = _finfo(x.dtype)
    posinf = hi if posinf is None else posinf
    neginf = lo if neginf is None else neginf
    with no_grad():
        isnan, ispos, isneg = x.isnan(), x.isposinf(), x.isneginf()
    res = _core.where(isnan, builtins.float(nan), x)
    res = _core.where(ispos, builtins.float(posinf), res)
    return _core.where(isneg, builtins.float(neginf), res)


class _ToleranceTypeError(TypeError, ValueError):
    """A bool tolerance or ``equal_nan`` of the wrong type: Paddle raises ``TypeError``
    (its static ``allclose`` / ``isclose`` checks), ferrograd's earlier contract was
    ``ValueError``; both catch it."""


def _one_number(v: Any) -> Any:
    # Paddle converts a tolerance to a C++ Scalar, which takes anything with one value:
    # a NumPy scalar, a 1-element array or tensor (test_allclose_op.py passes
    # np.array([1e-05])); the value is then checked like a number
    if isinstance(v, (int, float)) or isinstance(v, builtins.bool):
        return v
    one = v.numel() == 1 if isinstance(v, Tensor) else isinstance(v, (np.ndarray, np.generic))
    if one and (isinstance(v, Tensor) or v.size == 1):
        item = v.item()
        return item if isinstance(item, (int, float)) else v
    return v


def _tolerances(op: str, rtol: Any, atol: Any, equal_nan: Any = False) -> tuple[float, float]:
    if not isinstance(equal_nan, (builtins.bool, np.bool_)):
        raise _ToleranceTypeError(
            f"{op}: equal_nan must be a bool, got {type(equal_nan).__name__} {equal_nan!r}"
        )
    values = []
    for label, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, (builtins.bool, np.bool_)):
            raise _ToleranceTypeError(f"{op}: {label} must be a float, got bool {v!r}")
        n = _one_number(v)
        if isinstance(n, builtins.bool) or not isinstance(n, (int, float)) or not n >= 0:
            raise ValueError(f"{op}: {label} must be a non-negative number, got {v!r}")
        values.append(builtins.float(n))
    return values[0], values[1]


def isclose(
    x: Any = None,
    y: Any = None,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: builtins.bool = False,
    name: Any = None,
    *,
    input: Any = None,
    other: Any = None,
) -> Tensor:
    """Elementwise ``|x - y| <= atol + rtol * |y|`` as a bool tensor (broadcast); equal
    values (infinities included) are close, NaNs only with ``equal_nan=True``."""
    x, y = _args2("isclose", x, y, input, other)
    rt, at = _tolerances("isclose", rtol, atol, equal_nan)
    with no_grad():
        a, b = _pair("isclose", x, y)
        close = a == b
        if equal_nan and (a.dtype.is_floating_point or a.dtype.is_complex):
            close = close | (a.isnan() & b.isnan())
        if rt == 0 and at == 0:
            return close
        if not (a.dtype.is_floating_point or a.dtype.is_complex):
            a = _floating(a)
        if not (b.dtype.is_floating_point or b.dtype.is_complex):
            b = _floating(b)
        diff = (a - b).abs()
        allowed = b.abs() * rt + at
        return close | (diff.isfinite() & (diff <= allowed))


def _static_mode() -> builtins.bool:
    # a static program (Paddle's alone) runs allclose as a traced op: its result is a
    # tensor there, whoever's frame calls it
    from .static.mode_switch import in_dynamic_mode

    return not in_dynamic_mode()


def allclose(
    x: Any = None,
    y: Any = None,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: builtins.bool = False,
    name: Any = None,
    *,
    input: Any = None,
    other: Any = None,
) -> Any:
    """True when every element pair is :func:`isclose`: a Python ``bool`` as torch
    returns it, or in Paddle code (``import ferrograd as paddle``; docs/dialects.md) or
    with Paddle's ``name=``, Paddle's 0-d bool tensor."""
    close = builtins.bool(isclose(x, y, rtol, atol, equal_nan, input=input, other=other).all())
    if name is not None or caller_dialect(2) == "paddle" or _static_mode():
        return _core.tensor(close)
    return close


# ---- nn.functional vector helpers ---------------------------------------------------------


def install_tensor_methods() -> None:
    """Adds the ``Tensor`` methods of this module (``x.fmod(y)``, ``x.lerp(end, w)``,
    ``x.clamp(min_t, max_t)``, ``x.isclose(y)``, ...)."""
    # methods added to the native class on purpose (the stub lists them as methods)
    Tensor.fmod = fmod  # type: ignore[method-assign,assignment]
    Tensor.hypot = hypot  # type: ignore[method-assign,assignment]
    Tensor.logaddexp = logaddexp  # type: ignore[method-assign,assignment]
    Tensor.logaddexp2 = logaddexp2  # type: ignore[method-assign,assignment]
    Tensor.xlogy = xlogy  # type: ignore[method-assign,assignment]
    Tensor.lerp = lerp  # type: ignore[method-assign,assignment]
    Tensor.nan_to_num = nan_to_num  # type: ignore[method-assign,assignment]
    Tensor.isclose = isclose  # type: ignore[method-assign,assignment]
    Tensor.allclose = allclose  # type: ignore[method-assign,assignment]
    Tensor.clip = clip  # type: ignore[method-assign,assignment]
    Tensor.clamp = clamp  # type: ignore[method-assign,assignment]
    # _dialect_aliases's module functions are the Tensor methods themselves (one object per op)
    _dialect_aliases.clip = clip  # type: ignore[assignment]
    _dialect_aliases.clamp = clamp  # type: ignore[assignment]
