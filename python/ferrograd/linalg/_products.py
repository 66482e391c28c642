"""The matmul family as compositions of differentiable ops (matmul, mul, add, reshape):
addmm, baddbmm, addmv, mv, ger, outer (Paddle's flattening form), kron, cdist, cross,
inner, tensordot (PyTorch's dims and Paddle's axes), chain_matmul.
Gradients of every order come from the compositions (``cdist``'s 2-norm uses a square
root whose gradient is 0 at distance 0, as torch)."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import _core
from .._dialect import caller_dialect
from ..autograd.py_layer import Function
from ._common import as_tensor, mT, pick

Tensor = _core.Tensor


def _shape_err(op: str, what: str) -> ValueError:
    return ValueError(f"{op}: {what}")


def _bshape(a: tuple[int, ...] | list[int], b: tuple[int, ...] | list[int], op: str) -> list[int]:
    try:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise _shape_err(op, f"shapes {list(a)} and {list(b)} do not broadcast") from None


def _check_input(op: str, inp: Tensor, prod: Tensor) -> None:
    """``inp`` must broadcast to the product's shape (the result has that shape)."""
    if _bshape(inp.shape, prod.shape, op) != list(prod.shape):
        raise _shape_err(
            op,
            f"input of shape {list(inp.shape)} does not broadcast to the product's shape "
            f"{list(prod.shape)}",
        )


def _scaled_sum(op: str, inp: Tensor, prod: Tensor, beta: Any, alpha: Any) -> Tensor:
    """beta * inp + alpha * prod with prod's shape; inp ignored when beta == 0 (torch:
    NaN / inf in it do not propagate)."""
    _check_input(op, inp, prod)
    out = prod if alpha == 1 else prod * alpha
    if isinstance(beta, (int, float)) and beta == 0:
        return out
    return out + (inp if beta == 1 else inp * beta)


def addmm(
    input: Any = None,
    mat1: Any = None,
    mat2: Any = None,
    beta: Any = 1,
    alpha: Any = 1,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-D ``mat1``, ``mat2`` (torch's
    ``mat1``/``mat2``, Paddle's ``x``/``y``); ``input`` broadcasts to the product."""
    op = "addmm"
    a = as_tensor(pick(mat1, x, "mat1/x", op), op)
    b = as_tensor(pick(mat2, y, "mat2/y", op), op)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise _shape_err(
            op, f"needs matrices [n, m] and [m, p], got {list(a.shape)} and {list(b.shape)}"
        )
    return _scaled_sum(op, as_tensor(input, op), a @ b, beta, alpha)


def baddbmm(
    input: Any = None,
    batch1: Any = None,
    batch2: Any = None,
    beta: Any = 1,
    alpha: Any = 1,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for 3-D ``[b, n, m]``, ``[b, m, p]``."""
    op = "baddbmm"
    a = as_tensor(pick(batch1, x, "batch1/x", op), op)
    b = as_tensor(pick(batch2, y, "batch2/y", op), op)
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise _shape_err(
            op, f"needs batches [b, n, m] and [b, m, p], got {list(a.shape)} and {list(b.shape)}"
        )
    return _scaled_sum(op, as_tensor(input, op), a @ b, beta, alpha)


def addmv(
    input: Any = None,
    mat: Any = None,
    vec: Any = None,
    beta: Any = 1,
    alpha: Any = 1,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` for a matrix ``[n, m]`` and a vector ``[m]``."""
    op = "addmv"
    return _scaled_sum(op, as_tensor(input, op), mv(mat, vec, x=x, y=y), beta, alpha)


def mv(
    input: Any = None,
    vec: Any = None,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Matrix-vector product of a matrix ``[n, m]`` and a vector ``[m]`` (``torch.mv``,
    ``paddle.mv(x, vec)``)."""
    op = "mv"
    a = as_tensor(pick(input, x, "input/x", op), op)
    v = as_tensor(pick(vec, y, "vec/y", op), op)
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise _shape_err(
            op, f"needs a matrix [n, m] and a vector [m], got {list(a.shape)} and {list(v.shape)}"
        )
    return a @ v


def ger(
    input: Any = None,
    vec2: Any = None,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Outer product of two vectors (``torch.ger``, the old name of ``outer``)."""
    a = as_tensor(pick(input, x, "input/x", "ger"), "ger")
    b = as_tensor(pick(vec2, y, "vec2/y", "ger"), "ger")
    return a.outer(b)


def outer(
    input: Any = None,
    vec2: Any = None,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Outer product. PyTorch's ``outer(input, vec2)`` takes two 1-D tensors; in Paddle code
    (or with Paddle's ``x=`` / ``y=`` / ``name=``) it is Paddle's ``outer(x, y)``, which
    flattens operands of any rank, 0-d included (``x.reshape([-1, 1]) @ y.reshape([1, -1])``
    in Paddle's source)."""
    op = "outer"
    a = _operand(pick(input, x, "input/x", op), 0, op)
    b = _operand(pick(vec2, y, "vec2/y", op), 1, op)
    if x is not None or y is not None or name is not None or caller_dialect() == "paddle":
        a = a if a.ndim == 1 else a.reshape([-1])
        b = b if b.ndim == 1 else b.reshape([-1])
    return _TENSOR_OUTER(a, b)


class _OperandTypeError(TypeError, ValueError):
    """A NumPy array or list where Paddle wants a Tensor (Paddle's ValueError; PyTorch
    refuses one with a TypeError)."""


def _operand(v: Any, pos: int, op: str) -> Tensor:
    """An operand of ``inner`` / ``outer``: a Tensor or a Python number. Both peers refuse
    a NumPy array or a list (PyTorch a TypeError, Paddle a ValueError in its
    ``multiply()`` wording, which this message keeps)."""
    if isinstance(v, (np.ndarray, list, tuple)):
        arg = "xy"[pos]
        raise _OperandTypeError(
            f"{op}: multiply(): argument '{arg}' (position {pos}) must be Tensor, but got "
            f"{type(v).__module__ + '.' if isinstance(v, np.ndarray) else ''}"
            f"{type(v).__name__} (convert it with to_tensor / tensor first)"
        )
    return as_tensor(v, op)


# the core's outer product (it flattens only in Paddle code, and ferrograd's own modules
# have no dialect, so ``outer`` above decides)
_TENSOR_OUTER = Tensor.outer


def kron(
    input: Any = None,
    other: Any = None,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Kronecker product: the result's dim ``i`` has size ``a.shape[i] * b.shape[i]``
    (the shorter shape padded with leading 1s)."""
    op = "kron"
    a = as_tensor(pick(input, x, "input/x", op), op)
    b = as_tensor(pick(other, y, "other/y", op), op)
    nd = max(a.ndim, b.ndim)
    sa = [1] * (nd - a.ndim) + list(a.shape)
    sb = [1] * (nd - b.ndim) + list(b.shape)
    ai = a.reshape([d for s in sa for d in (s, 1)])
    bi = b.reshape([d for s in sb for d in (1, s)])
    return (ai * bi).reshape([p * q for p, q in zip(sa, sb)])


def inner(
    input: Any = None,
    other: Any = None,
    *,
    x: Any = None,
    y: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Sum of products over the last dims: shape ``a.shape[:-1] + b.shape[:-1]`` (a
    0-d operand multiplies)."""
    op = "inner"
    a = _operand(pick(input, x, "input/x", op), 0, op)
    b = _operand(pick(other, y, "other/y", op), 1, op)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    n = a.shape[-1]
    if b.shape[-1] != n:
        raise _shape_err(op, f"the last dims differ: {list(a.shape)} and {list(b.shape)}")
    r = a.reshape([-1, n] if n else [int(np.prod(a.shape[:-1])), 0]) @ mT(
        b.reshape([-1, n] if n else [int(np.prod(b.shape[:-1])), 0])
    )
    return r.reshape(list(a.shape[:-1]) + list(b.shape[:-1]))


def tensordot(
    a: Any = None,
    b: Any = None,
    dims: Any = 2,
    *,
    x: Any = None,
    y: Any = None,
    axes: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """Contraction of the last ``dims`` dims of ``a`` with the first ``dims`` of ``b``, or
    of the dims listed in ``dims = [dims_a, dims_b]`` (PyTorch). In Paddle code, or with
    Paddle's keyword ``axes=``, the third argument has Paddle's meanings: an int as above;
    a 1-D list names the same axes of both (``axes=[0, 1]``); ``[[0]]`` one list for both;
    ``[ax, ay]`` with the shorter list extended from the longer; a size-1 axis against
    another size is summed first (Paddle's broadcast)."""
    op = "tensordot"
    ta = as_tensor(pick(a, x, "a/x", op), op)
    tb = as_tensor(pick(b, y, "b/y", op), op)
    if axes is not None or caller_dialect() == "paddle":
        spec = dims if axes is None else axes
        da, db = _paddle_axes(ta, tb, spec.tolist() if isinstance(spec, Tensor) else spec)
        for i, j in zip(da, db):  # size 1 against another size: sum it first (Paddle)
            if ta.shape[i] == 1 and tb.shape[j] != 1:
                tb = _keep_sum(tb, j)
            elif tb.shape[j] == 1 and ta.shape[i] != 1:
                ta = _keep_sum(ta, i)
        return _contract(ta, tb, da, db, op)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0 or dims > min(ta.ndim, tb.ndim):
            raise _shape_err(
                op, f"dims={dims} is out of range for shapes {list(ta.shape)} and {list(tb.shape)}"
            )
        da, db = list(range(ta.ndim - dims, ta.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    return _contract(ta, tb, _axes_in(da, ta, op), _axes_in(db, tb, op), op)


def _axes_in(ds: Any, t: Tensor, op: str) -> list[int]:
    """``ds`` as non-negative dims of ``t``, each once."""
    out = []
    for d in ds:
        i = operator.index(d)
        if not -t.ndim <= i < t.ndim:
            raise IndexError(f"{op}: dim {i} is out of range for shape {list(t.shape)}")
        out.append(i % t.ndim)
    if len(set(out)) != len(out):
        raise _shape_err(op, f"dims {list(ds)} name one dim of shape {list(t.shape)} twice")
    return out


def _paddle_axes(ta: Tensor, tb: Tensor, axes: Any) -> tuple[list[int], list[int]]:
    """The contracted dims of ``ta`` and ``tb`` for Paddle's ``axes`` (python/paddle/tensor/
    manipulation.py, tensordot)."""
    op = "tensordot"
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > min(ta.ndim, tb.ndim):
            raise _shape_err(
                op, f"axes={n} is out of range for shapes {list(ta.shape)} and {list(tb.shape)}"
            )
        return list(range(ta.ndim - n, ta.ndim)), list(range(n))
    if not isinstance(axes, (list, tuple)):
        raise TypeError(
            f"{op}: axes must be an int, a list of ints or a list of two lists of ints, got "
            f"{type(axes).__name__}"
        )
    ax: list[Any]
    ay: list[Any]
    if not axes or isinstance(axes[0], (int, np.integer)):  # one list: the same axes of both
        ax, ay = list(axes), []
    else:  # [ax] or [ax, ay] (more lists are ignored, as Paddle does)
        ax, ay = (
            v.tolist() if isinstance(v, Tensor) else list(v)
            for v in (axes[0], axes[1] if len(axes) > 1 else [])
        )
    if len(ax) < len(ay):  # the shorter list is extended from the longer
        ax = ax + ay[len(ax) :]
    elif len(ay) < len(ax):
        ay = ay + ax[len(ay) :]
    return _axes_in(ax, ta, op), _axes_in(ay, tb, op)


def _keep_sum(t: Tensor, d: int) -> Tensor:
    """``t`` summed over dim ``d``, kept as size 1, in ``t``'s dtype (Paddle's
    ``sum(dtype=x.dtype)``; ferrograd's sum widens ints)."""
    s = t.sum(d, keepdim=True)
    return s if s.dtype == t.dtype else s.astype(t.dtype)


def _contract(ta: Tensor, tb: Tensor, da: list[int], db: list[int], op: str) -> Tensor:
    """Dims ``da`` of ``ta`` contracted with dims ``db`` of ``tb`` (in pairs) by one matmul;
    the free dims of ``ta`` then those of ``tb``."""
    if len(da) != len(db) or any(ta.shape[i] != tb.shape[j] for i, j in zip(da, db)):
        raise _shape_err(
            op, f"cannot contract dims {da} of {list(ta.shape)} with dims {db} of {list(tb.shape)}"
        )
    fa = [i for i in range(ta.ndim) if i not in da]
    fb = [j for j in range(tb.ndim) if j not in db]
    k = int(np.prod([ta.shape[i] for i in da]))
    ma = ta.permute(*fa, *da).reshape([int(np.prod([ta.shape[i] for i in fa])), k])
    mb = tb.permute(*db, *fb).reshape([k, int(np.prod([tb.shape[j] for j in fb]))])
    return (ma @ mb).reshape([ta.shape[i] for i in fa] + [tb.shape[j] for j in fb])


def chain_matmul(*matrices: Any) -> Tensor:
    """``torch.chain_matmul``: the product of 2-D matrices, left to right."""
    if not matrices:
        raise ValueError("chain_matmul: expected at least one matrix")
    out_t = as_tensor(matrices[0], "chain_matmul")
    for m in matrices[1:]:
        out_t = out_t @ m
    return out_t


def _first_dim_of_3(a: Tensor, op: str) -> int:
    for i, s in enumerate(a.shape):
        if s == 3:
            return i
    raise _shape_err(op, f"no dimension of size 3 in shape {list(a.shape)}")


def _take(t: Tensor, d: int, i: int) -> Tensor:
    idx: list[Any] = [slice(None)] * t.ndim
    idx[d] = slice(i, i + 1)
    return t[tuple(idx)]


def cross(
    input: Any = None,
    other: Any = None,
    dim: Any = None,
    *,
    x: Any = None,
    y: Any = None,
    axis: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """3-D cross product along ``dim`` (broadcasting). ``dim=None`` (torch.cross) or
    Paddle's default ``axis=9``: the first dim of size 3."""
    op = "cross"
    a = as_tensor(pick(input, x, "input/x", op), op)
    b = as_tensor(pick(other, y, "other/y", op), op)
    if axis is not None:
        dim = axis
    shape = _bshape(a.shape, b.shape, op)
    if list(a.shape) != shape:
        a = a.expand(*shape)
    if list(b.shape) != shape:
        b = b.expand(*shape)
    nd = len(shape)
    if dim is None or (dim == 9 and (nd <= 9 or shape[9] != 3)):
        d = _first_dim_of_3(a, op)
    else:
        if not -nd <= dim < nd:
            raise IndexError(f"{op}: dim {dim} is out of range for a tensor with {nd} dims")
        d = dim % nd
        if shape[d] != 3:
            raise _shape_err(op, f"dim {dim} has size {shape[d]}, it must have size 3")
    a1, a2, a3 = (_take(a, d, i) for i in range(3))
    b1, b2, b3 = (_take(b, d, i) for i in range(3))
    return _core.concat([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], d)


def linalg_cross(input: Any = None, other: Any = None, *, dim: int = -1, out: Any = None) -> Tensor:
    """``torch.linalg.cross``: the cross product along ``dim`` (default the last)."""
    return cross(input, other, dim)


class _SafeSqrt(Function):
    """sqrt of a non-negative tensor whose gradient is 0 (not inf) at 0."""

    @staticmethod
    def forward(ctx: Any, s: Tensor) -> Tensor:
        r = s.clip(min=0.0).sqrt()
        ctx.save_for_backward(r)
        return r

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (r,) = ctx.saved_tensors
        pos = r > 0
        safe = _core.where(pos, r, r.detach() * 0 + 1)
        return _core.where(pos, g / (2.0 * safe), g.detach() * 0)


def cdist(
    x1: Any = None,
    x2: Any = None,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
    *,
    x: Any = None,
    y: Any = None,
    name: Any = None,
) -> Tensor:
    """p-norm distances between the rows of ``x1 [..., P, M]`` and ``x2 [..., R, M]``
    (batch dims broadcast): ``[..., P, R]``. For p = 2 with more than 25 rows on either
    side (or ``compute_mode='use_mm_for_euclid_dist'``) through one matmul, as torch."""
    from ._norms import _vector_norm

    op = "cdist"
    a = as_tensor(pick(x1, x, "x1/x", op), op)
    b = as_tensor(pick(x2, y, "x2/y", op), op)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-1]:
        raise _shape_err(
            op, f"needs [..., P, M] and [..., R, M], got {list(a.shape)} and {list(b.shape)}"
        )
    modes = (
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    )
    if compute_mode not in modes:
        raise ValueError(f"{op}: compute_mode must be one of {modes}, got {compute_mode!r}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0 or math.isnan(p):
        raise ValueError(f"{op}: p must be a non-negative number, got {p!r}")
    batch = _bshape(a.shape[:-2], b.shape[:-2], op)
    P, R, M = a.shape[-2], b.shape[-2], a.shape[-1]
    if list(a.shape[:-2]) != batch:
        a = a.expand(*batch, P, M)
    if list(b.shape[:-2]) != batch:
        b = b.expand(*batch, R, M)
    use_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode == modes[0] and (P > 25 or R > 25))
    )
    if use_mm:
        sq = (a * a).sum(-1, keepdim=True) + mT((b * b).sum(-1, keepdim=True)) - 2.0 * (a @ mT(b))
        return _SafeSqrt.apply(sq)
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)
    if M == 0:  # no columns: every distance is 0 (the max of nothing too, as torch)
        return diff.abs().sum(-1)
    if p == math.inf:
        # PyTorch's cdist backward (idist_calc in DistanceOpsKernel.cpp) gives each entry
        # reaching the max the whole gradient, as pdist does (amax would split it)
        ad = diff.abs()
        top = ad.amax(-1, keepdim=True)
        ties = (ad == top).astype(ad.dtype).detach()
        fin = _core.where(diff.isfinite(), diff, 0.0).abs()
        return top.detach().squeeze(-1) + ((fin - fin.detach()) * ties).sum(-1)
    out = _vector_norm(diff, p, (diff.ndim - 1,), False, op)
    if p == 0:
        # NaN where a difference is NaN, as PyTorch's zdist kernel (min(ceil(|d|), 1))
        out = _core.where(diff.isnan().any(-1), math.nan, out)
    return out
