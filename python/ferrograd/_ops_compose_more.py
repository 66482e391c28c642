"""More PyTorch module functions composed of differentiable ops: ``addbmm``, ``addr``,
``combinations``, ``float_power``, ``fmax``/``fmin``, ``heaviside``, ``sinc``, ``ldexp``,
``renorm``, ``polar``, ``index_copy``, ``narrow_copy``, ``select_scatter``,
``slice_scatter``, ``diagonal_scatter``, the window functions, the integer helpers
``gcd``/``lcm``/``unravel_index``, and ``compile`` (which runs eagerly)."""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any

import numpy as np

from . import _core
from ._dtype_info import promote_types, result_type
from ._index_sign import see_through
from ._ops_shift import int_result_dtype

Tensor = _core.Tensor

__all__ = [
    "addbmm",
    "addr",
    "bartlett_window",
    "blackman_window",
    "combinations",
    "compile",
    "diagonal_scatter",
    "float_power",
    "fmax",
    "fmin",
    "gcd",
    "hamming_window",
    "hann_window",
    "heaviside",
    "index_copy",
    "is_storage",
    "lcm",
    "ldexp",
    "narrow_copy",
    "polar",
    "renorm",
    "resolve_conj",
    "resolve_neg",
    "select_scatter",
    "sinc",
    "slice_scatter",
    "typename",
    "unravel_index",
]


def addbmm(x: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * x + alpha * sum_b(batch1[b] @ batch2[b])``; ``x`` broadcasts to the
    product's shape and is ignored when ``beta == 0`` (NaN / inf in it too, as PyTorch
    documents). Integer batches keep their dtype (the sum over ``b`` does not widen)."""
    from .linalg._products import _scaled_sum

    prod = batch1.bmm(batch2)
    dtype = promote_types(x.dtype, prod.dtype)
    prod = prod.sum(0)
    if prod.dtype != dtype:  # (sum widens int32 to int64; PyTorch's addbmm does not)
        prod = prod.astype(dtype)
    return _scaled_sum("addbmm", x, prod, beta, alpha)


def addr(x: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * x + alpha * outer(vec1, vec2)`` in the promoted dtype of the three (``x``
    expanded first, so a 0-d ``x`` counts as a tensor); ``x`` broadcasts to the outer
    product's shape and is ignored when ``beta == 0`` (NaN / inf in it too, as PyTorch
    documents). Three bool tensors give PyTorch's logical form
    ``(beta and x) or (alpha and outer(vec1, vec2))``."""
    from .linalg._products import _check_input, _scaled_sum

    dtype = promote_types(promote_types(x.dtype, vec1.dtype), vec2.dtype)
    v1 = vec1 if vec1.dtype == dtype else vec1.astype(dtype)
    v2 = vec2 if vec2.dtype == dtype else vec2.astype(dtype)
    prod = v1.outer(v2)
    if dtype != _core.bool:
        return _scaled_sum("addr", x, prod, beta, alpha)
    for name, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, (float, complex)):
            raise TypeError(
                f"addr: for bool tensors {name} must be a bool or an int (read as true / "
                f"false), got {v!r}"
            )
    _check_input("addr", x, prod)
    out = prod if alpha else prod.logical_and(_core.zeros([], dtype=_core.bool))
    return out.logical_or(x) if beta else out


# The most elements a `combinations` result may hold (its index list is built in Python).
_MAX_COMBINATION_ELEMENTS = 1 << 26


def combinations(x: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-d tensor's elements, one per row (as
    ``itertools.combinations``; ``with_replacement`` as ``combinations_with_replacement``)."""
    if x.ndim != 1:
        raise ValueError(f"combinations: expects a 1-d tensor, got {x.ndim}-d")
    r = operator.index(r)
    if r < 0:
        raise ValueError(f"combinations: r must be non-negative, got {r}")
    n = x.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    if count * max(r, 1) > _MAX_COMBINATION_ELEMENTS:
        raise ValueError(
            f"combinations: {count} combinations of {r} elements would not fit in memory "
            f"(at most {_MAX_COMBINATION_ELEMENTS} elements in all)"
        )
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(make(range(x.shape[0]), r))
    if r == 0:
        return _core.zeros([0], dtype=x.dtype)
    if not idx:
        return _core.zeros([0, r], dtype=x.dtype)
    return x.index_select(0, _core.tensor(np.asarray(idx, dtype=np.int64).reshape(-1))).reshape(
        [len(idx), r]
    )


def float_power(x: Any, exponent: Any) -> Tensor:
    """``x ** exponent`` computed in double precision (complex128 for complex input)."""

    def wide(v: Any) -> Any:
        if isinstance(v, Tensor):
            return v.astype(_core.complex128 if v.is_complex() else _core.float64)
        return v

    base = wide(x) if isinstance(x, Tensor) else _core.tensor(x, dtype=_core.float64)
    return base.pow(wide(exponent))


def _nan_pick(x: Tensor, y: Tensor, pick_x: Tensor) -> Tensor:
    # where one operand is NaN the other wins (NaN only when both are NaN)
    pick = pick_x.logical_or(y.isnan()) if y.is_floating_point() else pick_x
    return _core.where(pick, x, y)


def fmax(x: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are NaN)."""
    return _nan_pick(x, other, x >= other)


def fmin(x: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    return _nan_pick(x, other, x <= other)


def heaviside(x: Tensor, values: Any) -> Tensor:
    """The step function: 0 where ``x < 0``, 1 where ``x > 0``, ``values`` where ``x == 0``;
    the result has the promoted dtype of ``x`` and ``values`` (PyTorch refuses two dtypes;
    a cast to ``x``'s would truncate ``values``)."""
    dtype = result_type(x, values)
    v = values.astype(dtype) if isinstance(values, Tensor) else _core.tensor(values, dtype=dtype)
    x = x if x.dtype == dtype else x.astype(dtype)
    one, zero = _core.ones([], dtype=dtype), _core.zeros([], dtype=dtype)
    return _core.where(x == 0, v, _core.where(x > 0, one, zero))


# sinc(x) = sum_k (-u)^k / (2k+1)! with u = (pi x)^2, used for |x| < _SINC_SERIES_MAX,
# where 7 terms leave under 1e-19: its derivatives of every order are then those of the
# series (the quotient's first derivative cancels there, and its second is 0 / 0 at 0)
_SINC_SERIES_MAX = 0.1
_SINC_SERIES = [(-1.0) ** k / math.factorial(2 * k + 1) for k in range(7)]


def sinc(x: Tensor) -> Tensor:
    """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0; differentiable to any order,
    also at and near 0 (the Taylor series there). ``x`` is reduced modulo 2 (exactly)
    before ``sin``, so large ``|x|`` keep full precision."""
    if x.is_complex():
        # sin(pi z) / (pi z), 1 at 0 (the real path below would drop the imaginary part)
        zero_c = x == 0
        pz = _core.where(zero_c, _core.ones([], dtype=x.dtype), x) * math.pi
        return _core.where(zero_c, _core.ones([], dtype=x.dtype), pz.sin() / pz)
    if not x.is_floating_point():
        x = x.astype(_core._get_default_dtype())
    small = x.abs() < _SINC_SERIES_MAX
    one = _core.ones([], dtype=x.dtype)
    zero = _core.zeros([], dtype=x.dtype)
    # each branch gets a safe argument where the other is taken (no NaN in the gradient)
    xs = _core.where(small, x, zero)
    u = (xs * math.pi) * (xs * math.pi)
    series = u * _SINC_SERIES[-1] + _SINC_SERIES[-2]
    for c in reversed(_SINC_SERIES[:-2]):
        series = series * u + c
    xl = _core.where(small, one, x)
    r = xl - (xl * 0.5).round() * 2.0  # exact; sin(pi x) = sin(pi r); round has no gradient
    quotient = (r * math.pi).sin() / (xl * math.pi)
    return _core.where(small, series, quotient)


def ldexp(x: Tensor, other: Tensor) -> Tensor:
    """``x * 2 ** other``, in the promoted dtype of ``x`` and ``other`` (the default float
    when both are integers: an int32 ``x`` beside a float64 ``other`` is float64)."""
    e = other if isinstance(other, Tensor) else _core.tensor(other)
    if x.is_complex():
        return x * _core.full([], 2.0, dtype=_core.float64).pow(e)
    dtype = result_type(x, e)
    if not dtype.is_floating_point:
        dtype = _core._get_default_dtype()
    base = x if x.dtype == dtype else x.astype(dtype)
    return base * _core.full([], 2.0, dtype=dtype).pow(e)


def renorm(x: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Each slice along ``dim`` rescaled so its ``p``-norm is at most ``maxnorm``: times
    ``maxnorm / (norm + 1e-7)`` where the norm exceeds it (PyTorch's renorm; ``p`` > 0,
    ``inf`` too; ``maxnorm`` >= 0; at least 2 dims, as PyTorch's checks)."""
    from .linalg._norms import vector_norm

    for v, what in ((p, "p"), (maxnorm, "maxnorm")):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"renorm: {what} must be a real number, got {v!r}")
    if not p > 0:
        raise ValueError(
            f"renorm: p must be positive (non-positive norms are not supported), got {p}"
        )
    if not maxnorm >= 0:
        raise ValueError(f"renorm: maxnorm must be >= 0, got {maxnorm}")
    if x.ndim < 2:
        raise ValueError(f"renorm: the input needs at least 2 dimensions, got {x.ndim}")
    d = operator.index(dim) % x.ndim
    others = [i for i in range(x.ndim) if i != d]
    norms = vector_norm(x, p, others, True)
    scale = _core.where(norms > maxnorm, maxnorm / (norms + 1e-7), _core.ones([], dtype=x.dtype))
    return x * scale


def polar(abs: Tensor, angle: Tensor) -> Tensor:
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``."""
    return _core.complex(abs * angle.cos(), abs * angle.sin())


def index_copy(x: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """A copy of ``x`` with the slices ``index`` along ``dim`` replaced by ``source``'s (a
    0-d ``x`` or ``source`` reads as one element, as in PyTorch)."""
    if x.ndim == 0:
        flat = index_copy(x.reshape([1]), 0, index.reshape([-1]), source.reshape([-1]))
        return flat.reshape([])
    if source.ndim == 0 and x.ndim == 1:
        source = source.reshape([1])
    d = operator.index(dim) % max(x.ndim, 1)
    shape = [1] * x.ndim
    shape[d] = index.shape[0] if index.ndim else 1
    idx = index.reshape(shape).expand(list(source.shape))
    return x.scatter(d, idx, source)


def narrow_copy(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``narrow`` as a new tensor (not a view)."""
    return x.narrow(dim, start, length).clone()


def select_scatter(x: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``x`` with ``x.select(dim, index)`` replaced by ``src``; an ``index``
    outside ``[-size, size)`` is an IndexError, as ``select``'s."""
    d = operator.index(dim) % x.ndim
    i, size = operator.index(index), x.shape[d]
    if not -size <= i < size:
        raise IndexError(
            f"select_scatter(): index {i} is out of range for dimension {d} of size {size}"
        )
    return index_copy(x, d, _core.tensor([i % size]), src.unsqueeze(d))


def slice_scatter(
    x: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Tensor:
    """A copy of ``x`` with ``x[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    d = operator.index(dim) % x.ndim
    positions = range(x.shape[d])[slice(start, end, step)]
    return index_copy(x, d, _core.tensor(np.asarray(list(positions), dtype=np.int64)), src)


def diagonal_scatter(
    x: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of ``x`` with its diagonal ``offset`` of the (``dim1``, ``dim2``) planes
    replaced by ``src``, shaped as ``x.diagonal(offset, dim1, dim2)`` (the other dims,
    then the diagonal). Gradients reach ``x`` (off the diagonal) and ``src``."""
    what = "diagonal_scatter"
    if x.ndim < 2:
        raise ValueError(f"{what}: x needs at least 2 dims, got shape {list(x.shape)}")
    d1, d2 = (operator.index(d) for d in (dim1, dim2))
    if not (-x.ndim <= d1 < x.ndim and -x.ndim <= d2 < x.ndim):
        raise IndexError(f"{what}: dim1 {dim1} / dim2 {dim2} out of range for {x.ndim} dims")
    if d1 % x.ndim == d2 % x.ndim:
        raise ValueError(f"{what}: dim1 and dim2 must differ, got {dim1} and {dim2}")
    shape = [int(n) for n in x.shape]
    # the flat positions of the diagonal, in torch.diagonal's order (numpy's is the same)
    where = np.diagonal(
        np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape),
        operator.index(offset), d1 % x.ndim, d2 % x.ndim,
    )  # fmt: skip
    if list(src.shape) != list(where.shape):
        raise ValueError(
            f"{what}: src must have the diagonal's shape {list(where.shape)}, got {list(src.shape)}"
        )
    flat = _core.tensor(np.ascontiguousarray(where).reshape(-1))
    return x.reshape([-1]).scatter(0, flat, src.reshape([-1])).reshape(shape)


def _window_dtype(op: str, dtype: Any, options: dict) -> Any:
    """The window's dtype (the default one when None), refusing a non-floating one as
    PyTorch does (the values would be truncated to integers)."""
    from ._dtype_info import _dtype

    dt = _dtype(dtype)
    if not dt.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {dt}")
    unknown = set(options) - {"requires_grad", "layout", "device", "pin_memory", "name"}
    if unknown:
        raise TypeError(f"{op}() got unexpected keyword arguments {sorted(unknown)}")
    return dt


def _finish_window(w: Tensor, options: dict) -> Tensor:
    """``requires_grad=True`` (PyTorch's factory keyword) makes the window a leaf that
    requires grad."""
    return w.requires_grad_(True) if options.get("requires_grad") else w


def _window(
    op: str, n: int, periodic: bool, dtype: Any, values: Any, options: Any = None
) -> Tensor:
    options = options or {}
    dt = _window_dtype(op, dtype, options)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"{op}: window_length must be non-negative, got {n}")
    if n <= 1:
        w = (_core.ones if n else _core.zeros)([n], dtype=dt)
        return _finish_window(w, options)
    m = n + 1 if periodic else n
    w = values(np.arange(m, dtype=np.float64), m)[:n]
    return _finish_window(_core.tensor(w, dtype=dt), options)


def hann_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, **options: Any
) -> Tensor:
    """The Hann window (``periodic``: for spectral analysis, as PyTorch's default)."""
    return _window(
        "hann_window",
        window_length,
        periodic,
        dtype,
        lambda k, m: 0.5 - 0.5 * np.cos(2 * np.pi * k / (m - 1)),
        options,
    )


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: Any = None,
    **options: Any,
) -> Tensor:
    """The Hamming window ``alpha - beta cos(2 pi k / (N - 1))``."""
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        lambda k, m: alpha - beta * np.cos(2 * np.pi * k / (m - 1)),
        options,
    )


def blackman_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, **options: Any
) -> Tensor:
    """The Blackman window."""
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        lambda k, m: (
            0.42 - 0.5 * np.cos(2 * np.pi * k / (m - 1)) + 0.08 * np.cos(4 * np.pi * k / (m - 1))
        ),
        options,
    )


def bartlett_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, **options: Any
) -> Tensor:
    """The Bartlett (triangular) window."""
    return _window(
        "bartlett_window",
        window_length,
        periodic,
        dtype,
        lambda k, m: 1 - np.abs(2 * k / (m - 1) - 1),
        options,
    )


def _int_pair(op: str, x: Tensor, y: Any) -> tuple[np.ndarray, np.ndarray]:
    if x.is_floating_point() or x.is_complex():
        raise TypeError(f"{op}: expects integer tensors, got {x.dtype}")
    yy = y.numpy() if isinstance(y, Tensor) else np.asarray(y)
    return x.numpy(), yy


def gcd(x: Tensor, other: Any) -> Tensor:
    """Elementwise greatest common divisor of integer tensors (not differentiable); the
    result has the operands' promoted dtype, as ``+``'s."""
    a, b = _int_pair("gcd", x, other)
    dtype = int_result_dtype("gcd", x, other, a, b)
    return _core.tensor(np.gcd(a.astype(dtype), b.astype(dtype)).astype(dtype))


def lcm(x: Tensor, other: Any) -> Tensor:
    """Elementwise least common multiple of integer tensors (not differentiable); the
    result has the operands' promoted dtype, as ``+``'s."""
    a, b = _int_pair("lcm", x, other)
    dtype = int_result_dtype("lcm", x, other, a, b)
    return _core.tensor(np.lcm(a.astype(dtype), b.astype(dtype)).astype(dtype))


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in ``shape`` of flat ``indices`` (one int64 tensor per dimension)."""
    idx = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: expects integer indices, got {idx.dtype}")
    dims = (operator.index(shape),) if not isinstance(shape, (list, tuple)) else tuple(shape)
    size = int(np.prod(dims))
    if np.any(idx >= size) or np.any(idx < -size):
        raise ValueError(f"unravel_index: an index is out of bounds for shape {list(dims)}")
    return tuple(
        _core.tensor(c.astype(np.int64)) for c in np.unravel_index(idx % max(size, 1), dims)
    )


def resolve_conj(x: Tensor) -> Tensor:
    """``x`` itself: ferrograd's ``conj()`` already materialises, so nothing is pending."""
    return x


def resolve_neg(x: Tensor) -> Tensor:
    """``x`` itself (no lazy negation in ferrograd)."""
    return x


def typename(obj: Any) -> str:
    """PyTorch's type name of ``obj`` (``torch.FloatTensor`` style for tensors)."""
    if isinstance(obj, Tensor):
        return obj.type()
    return (
        type(obj).__module__ + "." + type(obj).__qualname__
        if type(obj).__module__ != "builtins"
        else type(obj).__qualname__
    )


def is_storage(obj: Any) -> bool:
    """False: ferrograd exposes no storage objects."""
    return False


def compile(model: Any = None, **kwargs: Any) -> Any:
    """PyTorch's ``torch.compile``: ferrograd runs models eagerly (its per-op cost is
    already low), so this returns ``model`` unchanged — or, without a model, a decorator
    that does the same. The options (``fullgraph``, ``mode``, ``backend``, ...) are accepted."""
    if model is None:
        return lambda m: m
    return model


def install_tensor_methods() -> None:
    """Adds the method spellings of this module's functions to ``Tensor``."""
    T: Any = Tensor
    for f in (
        addbmm,
        addr,
        float_power,
        fmax,
        fmin,
        heaviside,
        sinc,
        ldexp,
        renorm,
        index_copy,
        narrow_copy,
        select_scatter,
        slice_scatter,
        diagonal_scatter,
        gcd,
        lcm,
        resolve_conj,
        resolve_neg,
    ):
        setattr(T, f.__name__, f)
    from . import _ops_special_more  # (frexp, view_as_real, view_as_complex)

    _ops_special_more.install_tensor_methods()
    T.index_copy_ = lambda self, dim, index, source: self.copy_(
        index_copy(self, dim, index, source)
    )
    # PyTorch code: PyTorch's IndexError for an index below 0 (_index_sign), named so
    see_through(index_copy)
    see_through(T.index_copy_, "index_copy_")
