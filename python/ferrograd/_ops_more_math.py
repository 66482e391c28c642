"""Everyday module functions composed of other ops: ``addcmul``/``addcdiv``,
``clamp_min``/``clamp_max``, ``logit``, ``positive``, ``isin``, ``argwhere``, ``msort``,
``vdot``, ``logspace``, ``tril_indices``/``triu_indices``, ``vander``, ``diagflat``,
``select``, ``broadcast_shapes``, ``isreal``, ``is_floating_point``, ``is_nonzero``,
``nextafter``. Differentiable where the peers' are (through the ops they are made of);
``nextafter`` records a node whose backward raises ``NotImplementedError``, as PyTorch's."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from . import _core
from ._dialect import caller_dialect
from .autograd.py_layer import Function

Tensor = _core.Tensor

__all__ = [
    "addcdiv",
    "addcmul",
    "argwhere",
    "broadcast_shapes",
    "clamp_max",
    "clamp_min",
    "diagflat",
    "is_floating_point",
    "is_nonzero",
    "isin",
    "isreal",
    "logit",
    "logspace",
    "msort",
    "nextafter",
    "positive",
    "select",
    "tril_indices",
    "triu_indices",
    "vander",
    "vdot",
]


def addcmul(x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``x + value * tensor1 * tensor2`` (broadcasting)."""
    return x + tensor1 * tensor2 * value


def addcdiv(x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``x + value * tensor1 / tensor2`` (broadcasting); integer division is refused, as
    in PyTorch."""
    if not (tensor1.is_floating_point() or tensor1.is_complex()) and not (
        tensor2.is_floating_point() or tensor2.is_complex()
    ):
        raise TypeError(
            "addcdiv: integer division of tensor1 by tensor2 is not supported; use "
            "floating-point tensors (or x + value * torch.div(t1, t2, rounding_mode='trunc'))"
        )
    return x + tensor1 / tensor2 * value


def clamp_min(x: Tensor, min: Any) -> Tensor:
    """``max(x, min)`` elementwise."""
    return x.clip(min=min)


def clamp_max(x: Tensor, max: Any) -> Tensor:
    """``min(x, max)`` elementwise."""
    return x.clip(max=max)


def logit(x: Tensor, eps: Any = None, name: Any = None) -> Tensor:
    """``log(x / (1 - x))``, with ``x`` first clamped to ``[eps, 1 - eps]`` when ``eps`` is
    given (without it, 0 and 1 give -inf and inf), the gradient 0 where clamped.

    The bounds are rounded as the calling dialect's CPU kernel rounds them, so clamped
    elements agree bit for bit with the peer's up to the final ``log``:

    - PyTorch (and neutral code): ``lo = T(eps)``, ``hi = T(1) - lo`` in the element type
      ``T`` (aten/src/ATen/native/cpu/UnaryOpsKernel.cpp, ``logit_kernel``). In float32
      ``logit(1, eps=1e-6)`` is therefore ``log(0.99999899 / 1.0133e-06)`` = 13.80232,
      not the exact ``logit(1 - 1e-6)`` = 13.81551: ``1 - 1e-6`` is not a float32.
    - Paddle: its ``eps`` attribute is a C ``float``, so ``lo = T(float(eps))`` and
      ``hi = T(1.0 - float(eps))`` (paddle/phi/kernels/funcs/activation_functor.h,
      ``LogitFunctor``): the same bounds in float32, float32-rounded ``eps`` in float64.
      ``eps`` of None or 0 gives NaN outside ``[0, 1]`` (PyTorch's ``eps=0`` clamps there
      to -inf / inf instead), with a zero gradient there.
    """
    paddle = caller_dialect(2, through_layers=True) == "paddle"
    if eps is not None and not (paddle and float(eps) == 0.0):
        lo, hi = _logit_bounds(float(eps), x, paddle)
        x = x.clip(min=lo, max=hi)
    elif paddle:
        # Paddle's eps=0 kernel: NaN outside [0, 1], where its gradient is 0; the branch
        # reads 0.5 there, so no inf * 0 reaches the gradient through `where`
        if not x.is_floating_point():
            x = x.astype(_core._get_default_dtype())
        inside = (x >= 0) & (x <= 1)
        c = _core.where(inside, x, _core.full([], 0.5, dtype=x.dtype))
        nan = _core.full([], math.nan, dtype=x.dtype)
        return _core.where(inside, (c / (1.0 - c)).log(), nan)
    return (x / (1.0 - x)).log()


def _logit_bounds(eps: float, x: Tensor, paddle: bool) -> tuple[float, float]:
    """``(lo, hi)`` of ``logit``'s clamp, exact values of ``x``'s float type (the default
    float dtype for integer ``x``), rounded as the dialect's kernel rounds them."""
    dtype = x.dtype if x.is_floating_point() else _core._get_default_dtype()

    def rounded(v: float) -> float:
        return float(_core.full([], v, dtype=dtype).item())

    if paddle:
        e = float(np.float32(eps))  # Paddle's float attribute
        return rounded(e), rounded(1.0 - e)  # 1.0 - e in double, as its functor
    lo = rounded(eps)
    # 1 - lo is exact in float64 for float32/16 lo (and float64 rounds it once): one
    # rounding to T, as T's own subtraction
    return lo, rounded(1.0 - lo)


def positive(x: Tensor) -> Tensor:
    """``x`` itself (``+x``); refused for bool tensors, as in PyTorch."""
    if x.dtype == _core.bool:
        raise TypeError("positive: not supported for bool tensors")
    return x


def isin(
    elements: Any,
    test_elements: Any,
    *,
    assume_unique: bool = False,
    invert: bool = False,
    name: Any = None,
) -> Tensor:
    """A bool tensor of ``elements``' shape: True where the element occurs in
    ``test_elements`` (False with ``invert``)."""
    e = elements if isinstance(elements, Tensor) else _core.tensor(elements)
    t = test_elements.numpy() if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _core.tensor(np.isin(e.numpy(), t, assume_unique=assume_unique, invert=invert))


def argwhere(x: Tensor) -> Tensor:
    """Indices of the non-zero elements, one row per element (``[N, x.ndim]``)."""
    return x.nonzero()


def msort(x: Tensor) -> Tensor:
    """``x`` sorted along its first dimension (values only)."""
    return x.sort(0).values


def vdot(x: Tensor, y: Tensor) -> Tensor:
    """Dot product of two 1-d tensors, conjugating the first when complex."""
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"vdot: expects two 1-d tensors, got {x.ndim}-d and {y.ndim}-d")
    return (x.conj() if x.is_complex() else x).dot(y)


def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    dtype: Any = None,
    name: Any = None,
    **options: Any,
) -> Tensor:
    """``steps`` values ``base ** v`` for ``v`` evenly spaced from ``start`` to ``end``
    (computed as powers in float64, so whole powers are exact:
    ``logspace(0, 3, 4, base=2, dtype=int64)`` is ``[1, 2, 4, 8]``). ``dtype`` may be
    given positionally after ``base``, as Paddle's ``logspace(start, stop, num, base,
    dtype)``."""
    v = _core.linspace(float(start), float(end), operator.index(steps), dtype=_core.float64)
    out = _core.full([], float(base), dtype=_core.float64) ** v
    out = out.astype(dtype or _core._get_default_dtype())
    return out.requires_grad_(True) if options.get("requires_grad") else out


def _tri_indices(op: str, row: int, col: int, offset: int, lower: bool, dtype: Any) -> Tensor:
    row, col, offset = operator.index(row), operator.index(col), operator.index(offset)
    if row < 0 or col < 0:
        raise ValueError(f"{op}: row and col must be non-negative, got {row}, {col}")
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return _core.tensor(np.stack([r, c]).astype(np.int64), dtype=dtype or _core.int64)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, **_: Any) -> Tensor:
    """The ``[2, N]`` row and column indices of the lower triangle of a ``row x col``
    matrix (diagonal ``offset`` included)."""
    return _tri_indices("tril_indices", row, col, offset, True, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, **_: Any) -> Tensor:
    """The ``[2, N]`` row and column indices of the upper triangle."""
    return _tri_indices("triu_indices", row, col, offset, False, dtype)


def vander(x: Tensor, N: Any = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-d ``x``: columns ``x ** (N-1), ..., x ** 0``
    (``increasing``: the other order); ``N`` defaults to ``len(x)``."""
    if x.ndim != 1:
        raise ValueError(f"vander: expects a 1-d tensor, got {x.ndim}-d")
    n = x.shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError(f"vander: N must be non-negative, got {n}")
    if n > 1 << 16:
        raise ValueError(f"vander: N={n} columns (one power each) is more than the 65536 supported")
    powers = list(range(n)) if increasing else list(range(n - 1, -1, -1))
    if not powers:
        return _core.zeros([x.shape[0], 0], dtype=x.dtype)
    cols = [x.pow(p) if p else _core.ones_like(x) for p in powers]
    return _core.stack(cols, 1)


def diagflat(x: Tensor, offset: int = 0, name: Any = None) -> Tensor:
    """The flattened ``x`` placed on diagonal ``offset`` of a square matrix."""
    from ._ops_shape import diag

    return diag(x.reshape([-1]), operator.index(offset))


def select(x: Tensor, dim: int, index: int) -> Tensor:
    """The slice ``x[..., index, ...]`` along ``dim`` (a view without that dimension)."""
    return x.select(dim, index)


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of ``shapes`` broadcast to (a ``Size``)."""
    from ._size import Size

    dims = [[operator.index(s)] if not isinstance(s, (list, tuple)) else list(s) for s in shapes]
    try:
        out = np.broadcast_shapes(*[tuple(d) for d in dims])
    except ValueError:
        raise ValueError(f"broadcast_shapes: shapes {dims} do not broadcast together") from None
    return Size(out)


def isreal(x: Tensor) -> Tensor:
    """True where an element has no imaginary part (every element of a real tensor)."""
    if x.is_complex():
        return x.imag == 0
    return _core.ones(list(x.shape), dtype=_core.bool)


def is_floating_point(x: Tensor) -> bool:
    """True for float16/bfloat16/float32/float64 tensors."""
    return x.is_floating_point()


def is_nonzero(x: Tensor) -> bool:
    """The truth value of a one-element tensor (refuses others, as PyTorch)."""
    if x.numel() != 1:
        raise RuntimeError(
            f"is_nonzero: a tensor with {x.numel()} elements has no single truth value"
        )
    return bool(x.item())


def _new_empty(self: Tensor, *size: Any, dtype: Any = None, **_: Any) -> Tensor:
    return _core.zeros(_shape_args(size), dtype=dtype or self.dtype)


def _new_full(self: Tensor, size: Any, fill_value: Any, *, dtype: Any = None, **_: Any) -> Tensor:
    return _core.full(_shape_args((size,)), fill_value, dtype=dtype or self.dtype)


def _new_tensor(
    self: Tensor, data: Any, *, dtype: Any = None, requires_grad: bool = False, **_: Any
) -> Tensor:
    src = data.detach().numpy() if isinstance(data, Tensor) else data
    out = _core.tensor(src, dtype=dtype or self.dtype)
    return out.requires_grad_(True) if requires_grad else out


def _shape_args(size: tuple[Any, ...]) -> list[int]:
    if (
        len(size) == 1
        and isinstance(size[0], (list, tuple))
        or len(size) == 1
        and hasattr(size[0], "__len__")
    ):
        return [operator.index(d) for d in size[0]]
    return [operator.index(d) for d in size]


def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Writes ``fill_value`` on the main diagonal in place (all dimensions equal, or a
    tall matrix with ``wrap``: the diagonal restarts every ``cols + 1`` rows)."""
    if self.ndim < 2:
        raise ValueError("fill_diagonal_: expects a tensor with at least 2 dimensions")
    shape = list(self.shape)
    if self.ndim > 2 and len(set(shape)) != 1:
        raise ValueError(
            f"fill_diagonal_: all dimensions must be equal for a {self.ndim}-d tensor, got {shape}"
        )
    idx = np.arange(min(shape))
    if self.ndim == 2 and wrap and shape[0] > shape[1] + 1:
        step = shape[1] + 1
        flat = np.arange(0, shape[0] * shape[1], step)
        rows, cols = np.divmod(flat, shape[1])
    else:
        rows = cols = idx
    mask = np.zeros(shape, dtype=bool)
    if self.ndim == 2:
        mask[rows, cols] = True
    else:
        mask[tuple(idx for _ in shape)] = True
    return self.masked_fill_(_core.tensor(mask), fill_value)


def _nextafter_values(x: Tensor, y: Tensor) -> Tensor:
    return _core.tensor(np.nextafter(x.numpy(), y.numpy()))


class Nextafter(Function):
    """``nextafter``'s node: not differentiable, so its backward raises."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor) -> Tensor:
        return _nextafter_values(x, y)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        raise NotImplementedError("the derivative for 'nextafter' is not implemented.")


def nextafter(x: Tensor, y: Any, name: Any = None) -> Tensor:
    """The next floating-point value after each element of ``x`` toward the matching
    element of ``y`` (broadcast; both peers). Not differentiable: when an input requires
    grad the result records a node whose backward raises ``NotImplementedError``
    ("the derivative for 'nextafter' is not implemented."), as PyTorch's does."""
    if not isinstance(y, Tensor):
        y = _core.tensor(y, dtype=x.dtype)
    if not x.is_floating_point() or x.dtype != y.dtype:
        raise TypeError(
            f"nextafter: x and y must be floating-point tensors of one dtype, got {x.dtype} "
            f"and {y.dtype}; cast one of them"
        )
    if not (x.requires_grad or y.requires_grad) or not _core.is_grad_enabled():
        return _nextafter_values(x, y)
    return Nextafter.apply(x, y)


def install_tensor_methods() -> None:
    """Adds the ``Tensor`` methods of this module, of ``_ops_stack_split`` and of
    ``_ops_stats`` (PyTorch's method spellings), plus ``new_empty`` /
    ``new_full`` / ``new_tensor``, ``reshape_as``, ``where``, ``nelement``,
    ``ndimension`` and ``fill_diagonal_``."""
    from . import _ops_stack_split as ss
    from . import _ops_stats as st

    T: Any = Tensor
    fs: tuple[Any, ...] = (addcmul, addcdiv, logit, msort, argwhere, isreal, positive, vdot)
    fs += (nextafter,)
    fs += (
        ss.tensor_split,
        ss.hsplit,
        ss.vsplit,
        ss.dsplit,
        ss.fliplr,
        ss.flipud,
        ss.take_along_dim,
        st.diff,
        st.quantile,
        st.nanquantile,
        st.aminmax,
    )
    for f in fs:
        setattr(T, f.__name__, f)
    T.addcmul_ = lambda self, t1, t2, *, value=1: self.copy_(addcmul(self, t1, t2, value=value))
    T.addcdiv_ = lambda self, t1, t2, *, value=1: self.copy_(addcdiv(self, t1, t2, value=value))
    T.new_empty = _new_empty
    T.new_full = _new_full
    T.new_tensor = _new_tensor
    T.reshape_as = lambda self, other: self.reshape(list(other.shape))
    # PyTorch's method: x.where(condition, other) (its docs spell `other` as `y`)
    T.where = lambda self, condition, other=None, y=None: _core.where(
        condition, self, y if other is None else other
    )
    T.nelement = lambda self: self.numel()
    T.ndimension = lambda self: self.ndim
    T.fill_diagonal_ = _fill_diagonal_
