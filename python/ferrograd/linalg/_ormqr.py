"""``ormqr``: a matrix times the orthogonal ``Q`` of a QR factorization kept in Householder
form (LAPACK's ``ormqr``), applying the reflectors one at a time instead of forming
``Q``. The dialects mean different ``Q``s:

* ``torch.ormqr(input, tau, other, left=True, transpose=False)`` (top-level and
  ``Tensor.ormqr``): the full square ``Q = H_1 ... H_r`` (``mn x mn``, ``r = tau.shape[-1]
  = min(mn, k)``), as LAPACK;
* ``paddle.linalg.ormqr(x, tau, y, left=True, transpose=False)``: the ``mn x k`` ``Q`` that
  ``householder_product(x, tau)`` gives (Paddle multiplies by it), so ``y`` has ``k``
  rows for ``Q y`` and the result of ``Qᵀ y`` has ``k`` rows.

For a square ``x`` both are the same. Each reflector step is
``C - tau_i v_i (v_iᵀ C)`` with differentiable ops, so the result is differentiable in
``x``, ``tau`` and ``y`` (to any order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ._common import const, float_or_complex, mH, np_dtype, pick
from ._lu import _called_as_paddle

Tensor = _core.Tensor


def _apply_q(V: Tensor, tau: Tensor, C: Tensor, left: bool, transpose: bool) -> Tensor:
    """``op(Q) C`` (``left``) or ``C op(Q)`` for the full ``Q = H_1 ... H_r`` whose
    reflectors are the columns of ``V`` (``mn x k``, below the diagonal, unit on it);
    ``H_i = I - tau_i v_i v_iᴴ`` and ``op`` the conjugate transpose (LAPACK unmqr's
    ``'C'``) for complex input, as both peers."""
    mn = V.shape[-2]
    r = tau.shape[-1]
    if r == 0:
        return C * 1
    Vf = V.tril(-1)[..., :, :r] + const(np.eye(mn, r), V)
    # Q C = H_1 (... (H_r C)); Qᴴ C = H_rᴴ (... (H_1ᴴ C)); C Q = (C H_1) ... H_r;
    # H_iᴴ = I - conj(tau_i) v_i v_iᴴ
    forward = transpose if left else not transpose
    order = range(r) if forward else range(r - 1, -1, -1)
    for i in order:
        v = Vf[..., :, i : i + 1]
        t = tau[..., i : i + 1].unsqueeze(-1)
        if transpose and t.is_complex():
            t = t.conj()
        if left:
            C = C - (t * v) @ (mH(v) @ C)
        else:
            C = C - (C @ v) @ (t * mH(v))
    return C


def _common_checks(x: Tensor, tau: Tensor, y: Tensor, op: str, names: tuple[str, str, str]) -> None:
    xn, tn, yn = names
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError(
            f"{op}: {xn} and {yn} must have at least 2 dimensions, got shapes "
            f"{list(x.shape)} and {list(y.shape)}"
        )
    if y.ndim != x.ndim or tau.ndim != x.ndim - 1:
        raise ValueError(
            f"{op}: {yn} must have as many dimensions as {xn} and {tn} one fewer, got "
            f"shapes {list(x.shape)}, {list(tau.shape)} and {list(y.shape)}"
        )
    if list(x.shape[:-2]) != list(y.shape[:-2]) or list(x.shape[:-2]) != list(tau.shape[:-1]):
        raise ValueError(
            f"{op}: {xn}, {tn} and {yn} must have the same batch dims, got shapes "
            f"{list(x.shape)}, {list(tau.shape)} and {list(y.shape)}"
        )
    if not np_dtype(x) == np_dtype(tau) == np_dtype(y):
        raise TypeError(
            f"{op}: {xn}, {tn} and {yn} must have the same dtype, got {x.dtype}, "
            f"{tau.dtype} and {y.dtype}"
        )


def _check_flag(v: Any, what: str, op: str) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{op}: {what} must be a bool, got {type(v).__name__}")
    return bool(v)


def ormqr_torch(
    input: Any = None,
    tau: Any = None,
    other: Any = None,
    left: bool = True,
    transpose: bool = False,
    *,
    input2: Any = None,
    input3: Any = None,
    out: Any = None,
) -> Tensor:
    """``torch.ormqr(input, tau, other, left=True, transpose=False)``: ``op(Q) other``
    (``left``) or ``other op(Q)``, ``op`` the transpose when ``transpose``, for the full
    ``mn x mn`` ``Q = H_1 ... H_r`` of the reflectors in ``input`` (``[..., mn, k]``, as
    ``geqrf`` leaves them) and ``tau`` (``[..., min(mn, k)]``). ``other`` is
    ``[..., mn, n]`` (``left``) or ``[..., n, mn]``, with the same batch dims."""
    op = "ormqr"
    x = float_or_complex(pick(input, None, "input", op), op)
    t = float_or_complex(pick(tau, input2, "tau/input2", op), op)
    y = float_or_complex(pick(other, input3, "other/input3", op), op)
    left = _check_flag(left, "left", op)
    transpose = _check_flag(transpose, "transpose", op)
    _common_checks(x, t, y, op, ("input", "tau", "other"))
    mn, k = x.shape[-2], x.shape[-1]
    side = -2 if left else -1
    if y.shape[side] != mn:
        raise ValueError(
            f"{op}: other.shape[{side}] must be equal to input.shape[-2] ({mn}), got "
            f"other of shape {list(y.shape)}"
        )
    if t.shape[-1] != min(mn, k):
        raise ValueError(
            f"{op}: tau.shape[-1] must be equal to min(input.shape[-2], input.shape[-1]) = "
            f"{min(mn, k)}, got {t.shape[-1]}"
        )
    return _apply_q(x, t, y, left, transpose)


def ormqr(
    x: Any = None,
    tau: Any = None,
    y: Any = None,
    left: bool = True,
    transpose: bool = False,
    name: Any = None,
) -> Tensor:
    """``paddle.linalg.ormqr(x, tau, y, left=True, transpose=False)``: ``op(Q) y``
    (``left``) or ``y op(Q)`` for the ``m x k`` ``Q = householder_product(x, tau)``
    (``x`` ``[..., m, k]`` with ``m >= k``, ``tau`` ``[..., k]``), without forming ``Q``.
    Shapes of ``y``: ``Q y``: ``[..., k, n]``; ``Qᵀ y``: ``[..., m, n]`` (the result has
    ``k`` rows); ``y Q``: ``[..., p, m]``; ``y Qᵀ``: ``[..., p, k]``. (For a non-square
    ``x`` Paddle itself only manages the ``left`` forms.)"""
    op = "linalg.ormqr"
    xt = float_or_complex(pick(x, None, "x", op), op)
    tt = float_or_complex(pick(tau, None, "tau", op), op)
    yt = float_or_complex(pick(y, None, "y", op), op)
    left = _check_flag(left, "left", op)
    transpose = _check_flag(transpose, "transpose", op)
    _common_checks(xt, tt, yt, op, ("x", "tau", "y"))
    m, k = xt.shape[-2], xt.shape[-1]
    if tt.shape[-1] != k:
        raise ValueError(
            f"{op}: tau must have one entry per column of x ({k}), got shape {list(tt.shape)}"
        )
    if m < k:
        raise ValueError(f"{op}: x must have at least as many rows as columns, got {m} x {k}")
    # the thin Q is the full one's first k columns: Q_k = Q [I; 0]
    need = (k if not transpose else m) if left else (m if not transpose else k)
    side = -2 if left else -1
    if yt.shape[side] != need:
        what = (
            ("Q y" if not transpose else "Qᵀ y") if left else ("y Q" if not transpose else "y Qᵀ")
        )
        raise ValueError(
            f"{op}: for {what} with x of shape [..., {m}, {k}], y.shape[{side}] must be "
            f"{need}, got y of shape {list(yt.shape)}"
        )
    if need == k and k < m:  # pad y with zero rows (columns) up to m
        pad_shape = list(yt.shape)
        pad_shape[side] = m - k
        yt = _core.concat([yt, _core.zeros(pad_shape, dtype=yt.dtype)], side)
    res = _apply_q(xt, tt, yt, left, transpose)
    if need == m and k < m:  # keep the first k rows (columns)
        res = res[..., :k, :] if left else res[..., :, :k]
    return res


def ormqr_method(
    x: Any = None, tau: Any = None, *args: Any, y: Any = None, other: Any = None, **kw: Any
) -> Tensor:
    """``Tensor.ormqr``: torch's ``input.ormqr(tau, other, left=True, transpose=False)``
    (the full ``Q``), or Paddle's ``x.ormqr(tau, y, left=True, transpose=False)`` (the
    ``m x k`` ``Q``; see ``linalg.ormqr``). The two agree for a square ``x``. Paddle's is
    used when ``y=`` or ``name=`` is given, or when the calling module names ferrograd
    ``paddle`` and not ``torch``; torch's otherwise."""
    paddle = y is not None or "name" in kw
    if not paddle and other is None and not ("input2" in kw or "input3" in kw):
        paddle = _called_as_paddle()
    if paddle:
        if other is not None:
            raise TypeError("Tensor.ormqr: Paddle's spelling takes y=, not other=")
        if y is not None:
            kw["y"] = y
        return ormqr(x, tau, *args, **kw)
    if y is not None:
        raise TypeError("Tensor.ormqr: torch's spelling takes other=, not y=")
    if other is not None:
        kw["other"] = other
    return ormqr_torch(x, tau, *args, **kw)
