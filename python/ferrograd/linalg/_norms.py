"""Vector and matrix norms: ``vector_norm``, ``matrix_norm``, ``linalg.norm`` and the
top-level ``norm`` / ``Tensor.norm`` / ``dist`` of both dialects.

The p-norms (p not 0, 1 or ±inf) are one node whose backward is written with
differentiable ops and gives the subgradient 0 where the norm is 0 (as torch), instead of
the NaN that ``sqrt(sum(x**2))`` would give there. The others are compositions
(``abs``, ``sum``, ``amax``/``amin``, ``svdvals``)."""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from ..autograd.py_layer import Function
from ._common import as_tensor

Tensor = _core.Tensor
_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _dims(x: Tensor, dim: Any, op: str) -> tuple[int, ...]:
    """``dim`` (None: all, an int, or a sequence) as sorted non-negative dims of ``x``."""
    nd = x.ndim
    if dim is None:
        return tuple(range(nd))
    ds = [dim] if isinstance(dim, int) else list(dim)
    out = []
    for d in ds:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"{op}: dims must be ints, got {dim!r}")
        if not -max(nd, 1) <= d < max(nd, 1):
            raise IndexError(f"{op}: dim {d} is out of range for a tensor with {nd} dims")
        out.append(d % nd if nd else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: dim {dim!r} names a dimension twice")
    return tuple(sorted(out))


def _sum_squares(x: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """``(x * x).sum(dims)``: for float32/float64 one fused pass of the kernel (float64
    squares and accumulators, no ``x * x`` tensor), without a graph."""
    if x.dtype == _core.float32 or x.dtype == _core.float64:
        return x._sum_squares(list(dims), keepdim)
    return (x * x).sum(list(dims), keepdim=keepdim)


def _keep_shape(x: Tensor, dims: tuple[int, ...]) -> list[int]:
    return [1 if i in dims else s for i, s in enumerate(x.shape)]


def _out_shape(x: Tensor, dims: tuple[int, ...], keepdim: bool) -> list[int]:
    if keepdim:
        return _keep_shape(x, dims)
    return [s for i, s in enumerate(x.shape) if i not in dims]


class _PNorm(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, p: float, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        if p == 2:
            n = _sum_squares(x, dims, True).sqrt()
        else:
            n = (x.abs() ** p).sum(list(dims), keepdim=True) ** (1.0 / p)
        out = n.reshape(_out_shape(x, dims, keepdim))
        ctx.p, ctx.keep = p, _keep_shape(x, dims)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor, None, None, None]:
        x, out = ctx.saved_tensors
        p, keep = ctx.p, ctx.keep
        n, g = out.reshape(keep), g.reshape(keep)
        nz = n != 0
        n_safe = _core.where(nz, n, n.detach() * 0 + 1)
        if p == 2:
            return x * _core.where(nz, g / n_safe, g.detach() * 0), None, None, None
        # d|x|_p / dx = sign(x) |x|^(p-1) / |x|_p^(p-1); 0 where x or the norm is 0
        xnz = x != 0
        ax = _core.where(xnz, x.abs(), x.detach() * 0 + 1)
        lead = _core.where(xnz, x.sign() * ax ** (p - 1), x.detach() * 0)
        return lead * _core.where(nz, g / n_safe ** (p - 1), g.detach() * 0), None, None, None


class _L0(Function):
    # the count of non-zeros: piecewise constant, so its gradient is 0 (as torch's)
    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        ctx.shape, ctx.dtype = list(x.shape), x.dtype
        return (x != 0).astype(x.dtype).sum(list(dims), keepdim=keepdim)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor, None, None]:
        return _core.zeros(ctx.shape, dtype=ctx.dtype), None, None


def _as_float(x: Any, dtype: Any, op: str) -> Tensor:
    t = as_tensor(x, op)
    if dtype is not None:
        t = t.astype(dtype)
    if str(t.dtype).replace("ferrograd.", "") not in _FLOATS and not t.is_complex():
        raise TypeError(
            f"{op}: expected a floating-point or complex tensor, got {t.dtype}; convert it first "
            "(e.g. x.astype('float32')) or pass dtype="
        )
    return t


def _vector_norm(t: Tensor, ord: Any, dims: tuple[int, ...], keepdim: bool, op: str) -> Tensor:
    if isinstance(ord, str) or isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ValueError(f"{op}: ord must be a number (incl. inf, -inf, 0), got {ord!r}")
    p = float(ord)
    if t.is_complex():
        t = t.abs()  # every vector norm of x is that of |x| (abs's gradient: x / |x|, 0 at 0)
    if t.ndim == 0:
        return _vector_norm(t.reshape([1]), ord, (0,), False, op).reshape([1] * 0)
    if p == math.inf or p < 0:
        # no identity: PyTorch refuses these on an empty slice (linalg_vector_norm)
        if any(t.shape[d] == 0 for d in dims):
            raise ValueError(
                f"{op}: the {ord} norm of an empty slice is not defined (it has no identity: "
                "max/min over no elements, or 0 to a negative power)"
            )
    if p == math.inf or p == -math.inf:
        a = t.abs()
        return a.amax(list(dims), keepdim=keepdim) if p > 0 else a.amin(list(dims), keepdim=keepdim)
    if p == 0:
        return _L0.apply(t, dims, keepdim)
    if p == 1:
        return t.abs().sum(list(dims), keepdim=keepdim)
    if len(dims) == 0:
        return t.abs()
    if not (t.requires_grad and _core.is_grad_enabled()):
        # nothing to differentiate: the same arithmetic without the graph node
        if p == 2:
            return _sum_squares(t, dims, keepdim).sqrt()
        return (t.abs() ** p).sum(list(dims), keepdim=keepdim) ** (1.0 / p)
    return _PNorm.apply(t, p, dims, keepdim)


def vector_norm(
    x: Any = None,
    ord: Any = 2,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    p: Any = None,
    axis: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """The vector ``ord``-norm over ``dim`` (None: all elements): ``(sum |x|^ord)^(1/ord)``;
    ``inf``/``-inf``: max/min of ``|x|``; ``0``: the count of non-zeros
    (``torch.linalg.vector_norm``; Paddle's ``p=``, ``axis=`` also accepted). The gradient
    at a zero norm is 0."""
    op = "linalg.vector_norm"
    if x is None:
        raise TypeError(f"{op}() missing required argument: 'x'")
    if p is not None:
        ord = p
    if axis is not None:
        dim = axis
    t = _as_float(x, dtype, op)
    return _vector_norm(t, ord, _dims(t, dim, op), keepdim, op)


def _matrix_norm(t: Tensor, ord: Any, d: tuple[int, int], keepdim: bool, op: str) -> Tensor:
    from ._factor import svdvals

    nd = t.ndim
    if nd < 2:
        raise ValueError(f"{op}: needs at least 2 dimensions, got shape {list(t.shape)}")
    r, c = (x % nd for x in d)
    if r == c:
        raise ValueError(f"{op}: dim must name two different dimensions, got {d!r}")
    if ord in ("fro", "nuc") or ord in (1, -1, 2, -2) or ord in (math.inf, -math.inf):
        pass
    else:
        raise ValueError(f"{op}: ord must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got {ord!r}")
    if ord == "fro":
        return _vector_norm(t, 2, tuple(sorted((r, c))), keepdim, op)
    # the two dims moved to the end, in (row, col) order
    rest = [i for i in range(nd) if i not in (r, c)]
    m = t.permute(*rest, r, c)
    # PyTorch's linalg_matrix_norm: the max/min (amax/amin, which share the gradient
    # evenly among ties) of the singular values, or of the column (1) / row (inf) sums;
    # it has no value when that max/min runs over no elements
    if ord in (2, -2) and 0 in m.shape[-2:] or ord in (1, -1) and m.shape[-1] == 0:
        raise ValueError(
            f"{op}: the {ord} norm of a matrix of shape {list(m.shape[-2:])} is not defined"
        )
    if ord in (math.inf, -math.inf) and m.shape[-2] == 0:
        raise ValueError(
            f"{op}: the {ord} norm of a matrix of shape {list(m.shape[-2:])} is not defined"
        )
    if ord in ("nuc", 2, -2):
        s = svdvals(m)
        res = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
    else:
        a = m.abs()
        sums = a.sum(-2) if ord in (1, -1) else a.sum(-1)
        res = sums.amax(-1) if ord in (1, math.inf) else sums.amin(-1)
    if keepdim:
        for i in sorted((r, c)):
            res = res.unsqueeze(i)
    return res


def matrix_norm(
    A: Any = None,
    ord: Any = "fro",
    dim: Any = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
    x: Any = None,
    p: Any = None,
    axis: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """The matrix norm over the two dims ``dim``: ``'fro'``, ``'nuc'`` (sum of singular
    values), ``2``/``-2`` (largest/smallest singular value), ``1``/``-1`` (max/min column
    abs-sum), ``inf``/``-inf`` (max/min row abs-sum) (``torch.linalg.matrix_norm``;
    Paddle's ``x=``, ``p=``, ``axis=`` also accepted)."""
    op = "linalg.matrix_norm"
    if A is None:
        A = x
    if A is None:
        raise TypeError(f"{op}() missing required argument: 'A'")
    if p is not None:
        ord = p
    if axis is not None:
        dim = axis
    t = _as_float(A, dtype, op)
    return _matrix_norm(t, ord, _two_dims(dim, op), keepdim, op)


def norm(
    A: Any = None,
    ord: Any = None,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    x: Any = None,
    p: Any = None,
    axis: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``linalg.norm``. torch's rules (``ord``, ``dim``): an int ``dim`` → vector norm, two
    dims → matrix norm; ``dim=None`` with ``ord`` given → vector norm of a 1-D input,
    matrix norm of a 2-D one; both None → 2-norm of all elements. Paddle's keywords
    (``p``, ``axis``) follow Paddle: ``axis=None`` is the vector norm of all elements."""
    op = "linalg.norm"
    paddle_style = p is not None or axis is not None
    if A is None:
        A = x
    if A is None:
        raise TypeError(f"{op}() missing required argument: 'A'")
    if p is not None:
        ord = p
    if axis is not None:
        dim = axis
    t = _as_float(A, dtype, op)
    if paddle_style:
        return _paddle_norm(t, ord, dim, keepdim, op)
    # PyTorch's linalg_norm (aten LinearAlgebra.cpp): dim of length 1 or 2; without dim
    # an ord needs a 1-D or 2-D input; a string ord or two dims (or a 2-D input without
    # dim) is the matrix norm, anything else the vector norm
    dims = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if dims is not None and len(dims) not in (1, 2):
        raise ValueError(f"{op}: if dim is given it must hold 1 or 2 dims, got {dim!r}")
    if dims is None and ord is not None and t.ndim not in (1, 2):
        raise ValueError(
            f"{op}: if dim is not given but ord is, the input must be 1-D or 2-D, got "
            f"shape {list(t.shape)}; pass dim (two dims for a matrix norm of each matrix)"
        )
    if ord is not None and (
        isinstance(ord, str) or dims is None and t.ndim == 2 or dims is not None and len(dims) == 2
    ):
        return _matrix_norm(t, ord, _two_dims((0, 1) if dims is None else dims, op), keepdim, op)
    return _vector_norm(t, 2 if ord is None else ord, _dims(t, dims, op), keepdim, op)


def _two_dims(dim: Any, op: str) -> tuple[int, int]:
    """``dim`` as the two ints of a matrix norm (PyTorch's "dim must be a 2-tuple")."""
    dd = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dd) != 2:
        raise ValueError(f"{op}: a matrix norm needs dim of two dims, got {dim!r}")
    return int(dd[0]), int(dd[1])


def _paddle_norm(t: Tensor, ord: Any, dim: Any, keepdim: bool, op: str) -> Tensor:
    """Paddle's ``linalg.norm(x, p, axis)``: ``axis`` None or one int is the vector norm
    (``p`` None or ``'fro'`` meaning 2; a string refused), two axes the matrix norm
    (``p`` None meaning ``'fro'``)."""
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    if dim is None or isinstance(dim, int):
        o = 2 if ord in (None, "fro") else ord
        if isinstance(o, str):
            raise ValueError(f"{op}: p {ord!r} needs a matrix (give two axes)")
        return _vector_norm(t, o, _dims(t, dim, op), keepdim, op)
    return _matrix_norm(t, "fro" if ord is None else ord, _two_dims(dim, op), keepdim, op)


def tensor_norm(
    input: Any = None,
    p: Any = "fro",
    dim: Any = None,
    keepdim: bool = False,
    out: Any = None,
    dtype: Any = None,
    *,
    x: Any = None,
    axis: Any = None,
    name: Any = None,
) -> Tensor:
    """``torch.norm`` / ``paddle.norm`` / ``Tensor.norm``. torch's rule: ``p='fro'`` is the
    2-norm over ``dim`` (all elements when None), ``'nuc'`` the nuclear norm, a number the
    vector p-norm over ``dim`` (even two dims). With Paddle's ``axis=`` keyword, Paddle's
    rule: a number ``p`` over two axes is the matrix norm (as ``linalg.norm``)."""
    op = "norm"
    if input is None:
        input = x
    if input is None:
        raise TypeError(f"{op}() missing required argument: 'input'")
    if axis is not None:
        return norm(input, None if p == "fro" else p, axis, keepdim, dtype=dtype)
    t = _as_float(input, dtype, op)
    # PyTorch's torch.norm (torch/functional.py): 'fro' over no dim, one dim or two is the
    # 2-norm over those dims; any other string (or 'fro' over more dims) is
    # linalg.matrix_norm over dim, all dims when None (so it needs exactly two)
    dims = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return _vector_norm(t, 2, _dims(t, dims, op), keepdim, op)
        if dims is None and t.ndim != 2:
            raise ValueError(
                f"{op}: p={p!r} without dim needs a 2-D input, got shape {list(t.shape)}; "
                "pass dim=(-2, -1) for the norm of each matrix"
            )
        return _matrix_norm(t, p, _two_dims((0, 1) if dims is None else dims, op), keepdim, op)
    return _vector_norm(t, 2 if p is None else p, _dims(t, dims, op), keepdim, op)


def dist(
    input: Any = None,
    other: Any = None,
    p: Any = 2,
    *,
    x: Any = None,
    y: Any = None,
    name: Any = None,
) -> Tensor:
    """The p-norm of ``input - other`` (broadcast), over all elements (``torch.dist``,
    ``paddle.dist``)."""
    a = input if input is not None else x
    b = other if other is not None else y
    if a is None or b is None:
        raise TypeError("dist() needs two tensors")
    d = _as_float(a, None, "dist") - b
    return _vector_norm(d, p, _dims(d, None, "dist"), False, "dist")
