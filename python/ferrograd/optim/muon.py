"""PyTorch's ``optim.Muon`` (PyTorch 2.9+; the algorithm of K. Jordan et al., 2024:
momentum whose update is orthogonalized by a Newton-Schulz iteration)."""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from .._core import Tensor
from .optimizer import _check_number, _coeff
from .python_state import PythonStateOptimizer

_ADJUST = (None, "original", "match_rms_adamw", "spectral_unclamped")


def _newton_schulz(g: Tensor, coefficients: tuple, steps: int, eps: float) -> Tensor:
    """An approximately orthogonal matrix with ``g``'s singular vectors: ``x = g /
    max(||g||_F, eps)``, then ``steps`` times ``x = a x + (b A + c A²) x`` with ``A = x
    x^T`` (on the wide orientation of ``g``)."""
    a, b, c = (float(v) for v in coefficients)
    tall = int(g.shape[0]) > int(g.shape[1])
    x = g.mT if tall else g
    x = x / max(x.norm().item(), eps)
    for _ in range(steps):
        gram = x.matmul(x.mT)
        x = x * a + (gram * b + gram.matmul(gram) * c).matmul(x)
    return x.mT if tall else x


def _adjusted_lr(lr: float, how: Any, shape: list) -> float:
    rows, cols = int(shape[0]), int(shape[1])
    if how is None or how == "original":
        return lr * math.sqrt(max(1.0, rows / cols))
    if how == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr * math.sqrt(rows / cols)  # spectral_unclamped


class Muon(PythonStateOptimizer):
    """Muon for 2-D parameters: ``Muon(params, lr=1e-3, weight_decay=0.1,
    momentum=0.95, nesterov=True, ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7,
    ns_steps=5, adjust_lr_fn=None)``. Per step, with ``g`` the gradient and ``buf`` the
    momentum buffer (zeros at first)::

        buf = buf + (1 - momentum) * (g - buf)
        u = g + momentum * (buf - g) if nesterov else buf
        u = newton_schulz(u)                 # ns_steps quintic iterations
        p = p * (1 - lr * weight_decay) - adjusted_lr * u

    ``adjusted_lr`` is ``lr * sqrt(max(1, rows / cols))`` (``"original"``, the default),
    ``lr * 0.2 * sqrt(max(rows, cols))`` (``"match_rms_adamw"``) or ``lr * sqrt(rows /
    cols)`` (``"spectral_unclamped"``). PyTorch runs the iteration in bfloat16; ferrograd
    runs it in the parameter's dtype (the same iteration, without bfloat16's rounding).
    State per parameter: ``momentum_buffer``."""

    #: ``weight_decay`` shrinks the weights (not an L2 term added to the gradient)
    _decoupled = True

    def __init__(
        self,
        params: Any,
        lr: Any = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: Any = None,
    ) -> None:
        defaults = {
            "lr": _coeff(lr, "lr"),
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": bool(nesterov),
            "ns_coefficients": tuple(ns_coefficients),
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {list(p.shape)}"
                    )
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        if not float(group["momentum"]) >= 0.0:
            raise ValueError(f"momentum should be >= 0 but is: {group['momentum']}")
        if not float(group["weight_decay"]) >= 0.0:
            raise ValueError(f"weight decay should be >= 0 but is: {group['weight_decay']}")
        if group["adjust_lr_fn"] not in _ADJUST:
            raise ValueError(
                f"Adjust learning rate function {group['adjust_lr_fn']} is not supported"
            )
        steps = group["ns_steps"]
        if isinstance(steps, bool) or not isinstance(steps, int) or not 0 <= steps < 100:
            raise ValueError("Number of steps must be less than 100 for computational efficiency")
        if len(group["ns_coefficients"]) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")
        _check_number("epsilon", float(group["eps"]))

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        if "momentum_buffer" not in st:
            st["momentum_buffer"] = _core.zeros_like(grad)
        buf = st["momentum_buffer"]
        m = float(group["momentum"])
        buf.copy_(buf + (grad - buf) * (1.0 - m))
        update = grad + (buf - grad) * m if group["nesterov"] else buf
        update = _newton_schulz(
            update, group["ns_coefficients"], int(group["ns_steps"]), float(group["eps"])
        )
        lr = float(group["lr"])
        p.mul_(1.0 - lr * float(group["weight_decay"]))
        p.sub_(update * _adjusted_lr(lr, group["adjust_lr_fn"], list(p.shape)))


__all__ = ["Muon"]
