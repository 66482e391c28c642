"""Paddle's ``optimizer.Lamb`` (layer-wise adaptive moments, You et al. 2019)."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from .. import _core
from ..optim.optimizer import _refuse_unsupported
from ..optim.python_state import PythonStateOptimizer


class Lamb(PythonStateOptimizer):
    """``Lamb(learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
    epsilon=1e-6, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
    multi_precision=False, always_adapt=False, name=None)``. Per parameter, at step
    ``t``::

        m = beta1 m + (1 - beta1) g;   v = beta2 v + (1 - beta2) g^2
        r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon) + lamb_weight_decay w
        w -= lr * (||w|| / ||r||) * r

    The trust ratio ``||w|| / ||r||`` is 1 when either norm is 0. A parameter for which
    ``exclude_from_weight_decay_fn(param)`` is true gets no decay and, unless
    ``always_adapt``, a trust ratio of 1 (Paddle's rule). State per parameter: ``step``,
    ``moment1``, ``moment2``.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        lamb_weight_decay: float = 0.01,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-6,
        parameters: Any = None,
        grad_clip: Any = None,
        exclude_from_weight_decay_fn: Optional[Callable[[Any], bool]] = None,
        multi_precision: bool = False,
        always_adapt: bool = False,
        name: Optional[str] = None,
    ) -> None:
        _refuse_unsupported(grad_clip)
        for what, b in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 <= float(b) < 1.0:
                raise ValueError(f"Lamb: {what} must be in [0, 1), got {b}")
        if float(epsilon) < 0:
            raise ValueError(f"Lamb: epsilon must be >= 0, got {epsilon}")
        self._exclude = exclude_from_weight_decay_fn
        defaults = {
            "lr": learning_rate,
            "lamb_weight_decay": float(lamb_weight_decay),
            "beta1": float(beta1),
            "beta2": float(beta2),
            "epsilon": float(epsilon),
            "always_adapt": bool(always_adapt),
        }
        super().__init__(None, defaults, learning_rate, parameters, grad_clip)

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        if not st:
            st["step"] = 0
            st["moment1"] = _core.zeros_like(p)
            st["moment2"] = _core.zeros_like(p)
        b1, b2, eps = group["beta1"], group["beta2"], group["epsilon"]
        excluded = self._exclude is not None and bool(self._exclude(p))
        wd = 0.0 if excluded else float(group["lamb_weight_decay"])
        st["step"] += 1
        t = st["step"]
        m = st["moment1"] * b1 + grad * (1.0 - b1)
        v = st["moment2"] * b2 + grad * grad * (1.0 - b2)
        st["moment1"], st["moment2"] = m, v
        r = (m / (1.0 - b1**t)) / ((v / (1.0 - b2**t)).sqrt() + eps)
        if wd != 0.0:
            r = r + p * wd
        trust = 1.0
        if group["always_adapt"] or not excluded:
            w_norm = math.sqrt(float((p * p).sum()))
            r_norm = math.sqrt(float((r * r).sum()))
            if w_norm > 0 and r_norm > 0:
                trust = w_norm / r_norm
        p.sub_(r * (float(group["lr"]) * trust))
