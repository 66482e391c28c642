"""``frexp``, ``pdist`` (composed of other ops) and the complex/real reinterpretations
``view_as_real`` / ``view_as_complex``, all differentiable.

``view_as_real`` / ``view_as_complex`` are views, as PyTorch's: the result reads the
input's memory as the counterpart dtype (a complex element is two reals, real part
first), so a write through either reaches the other and bumps its version counter.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _core
from ._dialect import caller_dialect
from .autograd import Function

Tensor = _core.Tensor

__all__ = ["frexp", "pdist", "view_as_complex", "view_as_real"]


def frexp(x: Tensor, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The decomposition ``x = mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1``
    (0, inf and NaN keep their value, exponent 0). The exponent is int32 (PyTorch), or of
    ``x``'s dtype in Paddle code (``paddle.frexp``). The mantissa's gradient is
    ``grad / 2 ** exponent``; the exponent has none."""
    if not isinstance(x, Tensor):
        raise TypeError(f"frexp(): expected a Tensor, got {type(x).__name__}")
    if not x.is_floating_point():
        raise TypeError(f"frexp(): only floating-point tensors are supported, got {x.dtype}")
    mantissa, e = _frexp_values(x)
    exponent = _core.tensor(np.asarray(e, dtype=np.int32))
    if x.requires_grad and _core.is_grad_enabled():
        mantissa = _FrexpMantissa.apply(x)
    if caller_dialect() == "paddle":
        exponent = exponent.astype(x.dtype)
    return mantissa, exponent


def _frexp_values(x: Tensor) -> tuple[Tensor, Any]:
    """The mantissa (a tensor of ``x``'s dtype) and NumPy's exponents."""
    values = x.detach().numpy()
    m, e = np.frexp(values)
    return _core.tensor(np.asarray(m, dtype=values.dtype)), e


class _FrexpMantissa(Function):
    """frexp's mantissa as an autograd Function with PyTorch's gradient
    ``grad / 2 ** exponent`` (also at 0, inf and NaN, whose exponent is 0)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        mantissa, e = _frexp_values(x)
        ones = np.ones(np.shape(e), dtype=x.detach().numpy().dtype)
        ctx.scale = _core.tensor(np.ldexp(ones, -np.asarray(e)))
        return mantissa

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad * ctx.scale


def view_as_real(x: Tensor, name: str | None = None) -> Tensor:
    """A complex tensor as real numbers: shape ``x.shape + [2]``, the last axis holding
    the real and imaginary parts (float32 for complex64, float64 for complex128). A view
    of ``x``'s memory (PyTorch's ``view_as_real``; ``_base`` is ``x``'s base);
    differentiable."""
    if not isinstance(x, Tensor):
        raise TypeError(f"view_as_real(): expected a Tensor, got {type(x).__name__}")
    if not x.is_complex():
        raise TypeError(f"view_as_real(): only complex tensors are supported, got {x.dtype}")
    return x._view_as_real()


def view_as_complex(x: Tensor, name: str | None = None) -> Tensor:
    """A real tensor whose last axis has size 2 as complex numbers (real, imaginary):
    shape ``x.shape[:-1]``, complex64 for float32 and complex128 for float64. A view of
    ``x``'s memory (PyTorch's ``view_as_complex``), so ``x`` must lay the pairs out as
    complex numbers: last stride 1, every other stride and the storage offset even
    (RuntimeError otherwise, in PyTorch's words; ``.contiguous()`` fixes any tensor);
    differentiable."""
    if not isinstance(x, Tensor):
        raise TypeError(f"view_as_complex(): expected a Tensor, got {type(x).__name__}")
    if x.dtype not in (_core.float32, _core.float64):
        raise TypeError(
            f"view_as_complex(): only float32 and float64 tensors are supported, got {x.dtype}"
        )
    return x._view_as_complex()


def _where(cond: Tensor, a: Any, b: Tensor) -> Tensor:
    """``a`` (a number, in ``b``'s dtype) where ``cond``, else ``b``."""
    return _core.where(cond, _core.full([], a, dtype=b.dtype), b)


def pdist(x: Tensor, p: float = 2.0, name: str | None = None) -> Tensor:
    """The ``p``-norm distances between the rows of a 2-d floating tensor, the upper
    triangle of ``cdist(x, x)`` flattened row by row (``N * (N - 1) / 2`` values).
    ``p = 0`` counts the differing entries, ``p = inf`` takes the largest difference.
    Gradients as PyTorch's: 0 for identical rows and for equal entries (also where
    ``p < 1``), and for ``inf`` each entry reaching the maximum gets the whole gradient."""
    if not isinstance(x, Tensor):
        raise TypeError(f"pdist(): expected a Tensor, got {type(x).__name__}")
    if x.ndim != 2:
        raise ValueError(f"pdist(): only 2-d tensors are supported, got {x.ndim}-d")
    if not x.is_floating_point():
        raise TypeError(f"pdist(): only floating-point tensors are supported, got {x.dtype}")
    p = float(p)
    if not p >= 0:
        raise ValueError(f"pdist(): p must be non-negative, got {p}")
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    if len(i) == 0:
        return _core.zeros([0], dtype=x.dtype) + x.sum() * 0.0
    if x.shape[1] == 0:  # rows without columns: every distance is 0 (PyTorch's _pdist_forward)
        return _core.zeros([len(i)], dtype=x.dtype) + x.sum() * 0.0
    a = x.index_select(0, _core.tensor(i.astype(np.int64)))
    b = x.index_select(0, _core.tensor(j.astype(np.int64)))
    diff = a - b
    ad = diff.abs()
    # the finite differences (others 0): the link that records a gradient without the
    # NaN of inf - inf or inf * 0
    fin = _core.where(diff.isfinite(), diff, 0.0)
    if p == 0:
        # piecewise constant: a zero gradient, still recorded; NaN where a difference is
        # NaN (PyTorch's zdist kernel computes min(ceil(|d|), 1))
        cnt = _where(diff.isnan().any(1), math.nan, (ad != 0).astype(x.dtype).sum(1))
        return cnt + (fin * 0.0).sum(1)
    if p == math.inf:
        top = ad.amax(1, keepdim=True)
        ties = (ad == top).astype(x.dtype).detach()
        fa = fin.abs()
        return top.detach().squeeze(1) + ((fa - fa.detach()) * ties).sum(1)
    # zero entries and identical rows are masked before the powers, so no inf * 0 reaches
    # the gradient (or the gradient's gradient)
    zero = ad == 0
    terms = _where(zero, 0.0, _where(zero, 1.0, ad).pow(p))
    if p == 1:
        return terms.sum(1)
    s = terms.sum(1)
    empty = s == 0
    return _where(empty, 0.0, _where(empty, 1.0, s).pow(1.0 / p))


def install_tensor_methods() -> None:
    """Adds the method spellings (``x.frexp()``, ``x.view_as_real()``, ...) to ``Tensor``."""
    T: Any = Tensor
    for f in (frexp, view_as_real, view_as_complex):
        setattr(T, f.__name__, f)
