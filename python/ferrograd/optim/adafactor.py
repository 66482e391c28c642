"""PyTorch's ``optim.Adafactor`` (Shazeer & Stern 2018, in PyTorch 2.5's form)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor
from .optimizer import _check_number, _coeff
from .python_state import PythonStateOptimizer


def _lerp_(v: Tensor, new: Tensor, w: float) -> None:
    """``v += w * (new - v)`` in place (written from the nearer end, as PyTorch's lerp)."""
    v.copy_(v + (new - v) * w if w < 0.5 else new - (new - v) * (1.0 - w))


class Adafactor(PythonStateOptimizer):
    """Adafactor: an Adam-like rate with a *factored* second moment (a row and a column
    average for each parameter of 2 or more dimensions, so the state is ``O(n + m)``
    instead of ``O(n m)``), a relative step size and update clipping.

    ``Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False)``. At step ``t``, with ``g`` the
    gradient (negated with ``maximize``), ``w = t ** beta2_decay``, ``rho = min(lr,
    1/sqrt(t))`` and ``alpha = max(eps2, RMS(p)) * rho``: ``p *= 1 - lr * weight_decay``;
    for a parameter of 2+ dimensions (factored over its last two) ``row_var`` / ``col_var``
    move by ``w`` towards the means of ``g²`` over the last / second-last dimension and
    ``v = row_var @ col_var / max(mean(row_var), eps1)``; otherwise ``variance`` moves by
    ``w`` towards ``g²`` and ``v = variance``; then ``u = g / sqrt(max(v, eps1²))`` and
    ``p -= alpha * u / max(1, RMS(u) / d)``. ``eps1`` None means the parameter dtype's
    machine epsilon. State per parameter: ``step`` and ``row_var`` / ``col_var`` or
    ``variance``. ``foreach`` is accepted (one implementation)."""

    #: ``weight_decay`` shrinks the weights (not an L2 term added to the gradient)
    _decoupled = True

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[Any, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: Any = None,
        maximize: bool = False,
    ) -> None:
        defaults = {
            "lr": _coeff(lr, "lr"),
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        beta2_decay = float(group["beta2_decay"])
        if not beta2_decay <= 0.0:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        eps = group["eps"]
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise TypeError(f"eps must be a pair (eps1 or None, eps2), got {eps!r}")
        if eps[0] is not None:
            _check_number("epsilon1", float(eps[0]))
        _check_number("epsilon2", float(eps[1]))
        if not float(group["d"]) >= 1.0:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {group['d']}")
        if group.get("l1_decay"):
            raise TypeError("Adafactor decays the weights itself: pass a number as weight_decay")

    def _buffer_shape(self, name: str, p: Any) -> list[int]:
        shape = list(p.shape)
        if name == "row_var":
            return shape[:-1] + [1]
        if name == "col_var":
            return shape[:-2] + [1, shape[-1]]
        return shape

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        factored = p.ndim > 1
        if not st:
            st["step"] = 0
            if factored:
                st["row_var"] = _core.zeros(self._buffer_shape("row_var", p), dtype=p.dtype)
                st["col_var"] = _core.zeros(self._buffer_shape("col_var", p), dtype=p.dtype)
            else:
                st["variance"] = _core.zeros_like(p)
        st["step"] += 1
        if p.numel() == 0:
            return
        # (grad is already negated for maximize: PythonStateOptimizer's _real_grads)
        t = float(st["step"])
        lr, wd, d = float(group["lr"]), float(group["weight_decay"]), float(group["d"])
        eps1, eps2 = group["eps"]
        eps1 = float(np.finfo(p.numpy().dtype).eps) if eps1 is None else float(eps1)
        w = t ** float(group["beta2_decay"])
        rho = min(lr, 1.0 / math.sqrt(t))
        alpha = max(float(eps2), p.norm().item() / math.sqrt(p.numel())) * rho
        if wd != 0.0:
            p.mul_(1.0 - lr * wd)
        square = grad * grad
        if factored:
            row, col = st["row_var"], st["col_var"]
            _lerp_(row, square.mean(-1, keepdim=True), w)
            _lerp_(col, square.mean(-2, keepdim=True), w)
            v = row.matmul(col) / row.mean(-2, keepdim=True).clamp(min=eps1)
        else:
            _lerp_(st["variance"], square, w)
            v = st["variance"]
        update = v.clamp(min=eps1 * eps1).rsqrt() * grad
        denom = max(1.0, update.norm().item() / (math.sqrt(update.numel()) * d))
        p.sub_(update * (alpha / denom))


__all__ = ["Adafactor"]
