"""``matrix_exp``, ``vecdot``, ``tensorinv``, ``tensorsolve`` and
``householder_product``: compositions of differentiable ops (matmul, solve, inv), so
their gradients, and the gradients of those, need no formula of their own.

``matrix_exp`` is scaling and squaring (Higham 2005, "The scaling and squaring method for
the matrix exponential revisited") with a truncated Taylor series evaluated by the
Paterson–Stockmeyer scheme: ``exp(A) = T(A / 2^s)^(2^s)`` with ``s`` chosen from the
1-norm so that ``||A / 2^s||₁ <= 1``, where the series' remainder (degree 18 in float64,
12 in float32) is below the dtype's rounding. Its gradient is the exact derivative of
that approximant, which matches the Fréchet derivative to the same accuracy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from ._common import check_matrix, const, float_or_complex, mH, np_dtype, pick
from ._factor import inv, solve

Tensor = _core.Tensor


def _taylor_exp(X: Tensor, degree: int) -> Tensor:
    """``sum_{j <= degree} X^j / j!`` by Paterson–Stockmeyer (about 2 sqrt(degree)
    matmuls)."""
    n = X.shape[-1]
    q = max(1, int(math.isqrt(degree)))
    eye = const(np.eye(n), X)
    pows: list[Any] = [None, X]  # pows[j] = X^j for 1 <= j <= q (pows[0] is the identity)
    for _ in range(2, q + 1):
        pows.append(pows[-1] @ X)
    coef = [1.0 / math.factorial(j) for j in range(degree + 1)]

    def block(i: int) -> Tensor:
        # sum_{j < q} c_{iq + j} X^j (within the degree)
        out: Any = eye * coef[i * q]
        for j in range(1, q):
            if i * q + j <= degree:
                out = out + pows[j] * coef[i * q + j]
        return out

    r = degree // q
    P = block(r)
    for i in range(r - 1, -1, -1):
        P = P @ pows[q] + block(i)
    return P


def matrix_exp(A: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
    """The matrix exponential of a square matrix or a batch of them
    (``torch.linalg.matrix_exp``, ``torch.matrix_exp``, ``paddle.linalg.matrix_exp``);
    differentiable to any order. NaN or inf in the input give NaN/inf outputs."""
    op = "linalg.matrix_exp"
    t = float_or_complex(pick(A, x, "A/x", op), op)
    check_matrix(t, op, square=True)
    if t.numel() == 0:
        return t * 1.0
    norm = float(np.abs(t.detach().numpy()).sum(-2).max())
    s = 0
    if math.isfinite(norm) and norm > 1.0:
        s = int(math.ceil(math.log2(norm)))
    degree = 18 if np_dtype(t) in (np.float64, np.complex128) else 12
    E = _taylor_exp(t * (0.5**s) if s else t, degree)
    for _ in range(s):
        E = E @ E
    return E


def vecdot(
    x: Any = None,
    y: Any = None,
    *,
    dim: int = -1,
    axis: Any = None,
    out: Any = None,
    name: Any = None,
) -> Tensor:
    """``torch.linalg.vecdot(x, y, *, dim=-1)`` / ``paddle.linalg.vecdot(x, y, axis=-1)``:
    ``sum(conj(x) * y)`` over ``dim`` after broadcasting ``x`` and ``y``."""
    op = "linalg.vecdot"
    if axis is not None:
        dim = axis
    xt = pick(x, None, "x", op)
    yt = pick(y, None, "y", op)
    if not isinstance(xt, Tensor) or not isinstance(yt, Tensor):
        raise TypeError(f"{op}: x and y must be Tensors")
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{op}: dim must be an int, got {type(dim).__name__}")
    nd = max(xt.ndim, yt.ndim)
    if nd == 0 or not -nd <= int(dim) < nd:
        raise IndexError(f"{op}: dim {dim} is out of range for {nd}-dimensional inputs")
    if xt.is_complex():
        xt = xt.conj()
    return (xt * yt).sum(int(dim))


def _prod(dims: Any) -> int:
    p = 1
    for d in dims:
        p *= int(d)
    return p


def tensorinv(A: Any = None, ind: int = 2, *, out: Any = None) -> Tensor:
    """``torch.linalg.tensorinv``: the tensor ``X`` with ``tensordot(X, A, ind) = I`` —
    ``A`` reshaped to a square matrix (the first ``ind`` dims against the rest), inverted
    and reshaped to ``A.shape[ind:] + A.shape[:ind]``. A singular one raises
    ``LinAlgError``."""
    op = "linalg.tensorinv"
    t = float_or_complex(A, op)
    if not isinstance(ind, (int, np.integer)) or isinstance(ind, bool):
        raise TypeError(f"{op}: ind must be an int, got {type(ind).__name__}")
    if not 0 < int(ind) <= t.ndim:
        raise ValueError(f"{op}: ind must be in 1..{t.ndim} (A.ndim), got {ind}")
    ind = int(ind)
    left, right = list(t.shape[:ind]), list(t.shape[ind:])
    p, q = _prod(left), _prod(right)
    if p != q:
        raise ValueError(
            f"{op}: the product of the first {ind} dims of A ({p}) must equal that of the "
            f"other dims ({q}), got shape {list(t.shape)}"
        )
    return inv(t.reshape(p, q)).reshape(*(right + left))


def tensorsolve(A: Any = None, B: Any = None, dims: Any = None, *, out: Any = None) -> Tensor:
    """``torch.linalg.tensorsolve``: ``X`` with ``tensordot(A, X, X.ndim) = B``, where
    ``X.shape = A.shape[B.ndim:]`` (``dims``: dims of ``A`` first moved to the end). A
    singular system raises ``LinAlgError``."""
    op = "linalg.tensorsolve"
    At, Bt = float_or_complex(A, op), float_or_complex(B, op)
    if dims is not None:
        ds = [dims] if isinstance(dims, (int, np.integer)) else list(dims)
        norm = []
        for d in ds:
            if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
                raise TypeError(f"{op}: dims must be ints, got {type(d).__name__}")
            if not -At.ndim <= int(d) < At.ndim:
                raise IndexError(f"{op}: dim {d} is out of range for A of {At.ndim} dims")
            norm.append(int(d) % At.ndim)
        if len(set(norm)) != len(norm):
            raise ValueError(f"{op}: dims {ds} repeat a dim")
        order = [i for i in range(At.ndim) if i not in norm] + norm
        At = At.permute(*order)
    if Bt.ndim > At.ndim or list(At.shape[: Bt.ndim]) != list(Bt.shape):
        raise ValueError(
            f"{op}: A's leading dims {list(At.shape[: Bt.ndim])} must equal B's shape "
            f"{list(Bt.shape)}"
        )
    xshape = list(At.shape[Bt.ndim :])
    p, q = _prod(Bt.shape), _prod(xshape)
    if p != q:
        raise ValueError(
            f"{op}: the product of B's dims ({p}) must equal that of the solution's dims "
            f"{xshape} ({q})"
        )
    return solve(At.reshape(p, q), Bt.reshape(p)).reshape(*xshape)


def householder_product(
    A: Any = None, tau: Any = None, *, x: Any = None, out: Any = None, name: Any = None
) -> Tensor:
    """``torch.linalg.householder_product(A, tau)`` / ``paddle.linalg.householder_product``
    (``torch.orgqr``): the first ``n`` columns of ``H_1 ... H_k`` with
    ``H_i = I - tau_i v_i v_iᴴ`` (``v_iᵀ`` for real input), ``v_i`` column ``i`` of ``A`` below the diagonal with a
    1 on it (LAPACK's orgqr). ``A`` is ``[..., m, n]`` with ``m >= n``, ``tau`` is
    ``[..., k]`` with ``k <= n``. Differentiable in both."""
    op = "linalg.householder_product"
    At = float_or_complex(pick(A, x, "A/x", op), op)
    tt = float_or_complex(pick(tau, None, "tau", op), op)
    check_matrix(At, op)
    m, n = At.shape[-2], At.shape[-1]
    if m < n:
        raise ValueError(f"{op}: A must have at least as many rows as columns, got {m} x {n}")
    if tt.ndim != At.ndim - 1 or list(tt.shape[:-1]) != list(At.shape[:-2]):
        raise ValueError(
            f"{op}: tau must have shape [{', '.join(map(str, At.shape[:-2]))}{', ' if At.ndim > 2 else ''}k]"
            f" for A of shape {list(At.shape)}, got {list(tt.shape)}"
        )
    k = tt.shape[-1]
    if k > n:
        raise ValueError(f"{op}: tau has {k} entries but A only {n} columns")
    if tt.dtype != At.dtype:
        raise TypeError(f"{op}: A is {At.dtype} but tau is {tt.dtype}; give both the same dtype")
    Q: Any = const(np.broadcast_to(np.eye(m, n), tuple(At.shape)), At)
    if k == 0:
        return Q
    V = At.tril(-1)[..., :, :k] + const(np.eye(m, k), At)
    for i in range(k - 1, -1, -1):
        v = V[..., :, i : i + 1]
        Q = Q - (tt[..., i : i + 1].unsqueeze(-1) * v) @ (mH(v) @ Q)
    return Q
