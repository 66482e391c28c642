"""Paddle's ``paddle.optimizer.Rprop`` and ``paddle.optimizer.ASGD``, with Paddle's
argument names and defaults. Rprop is the same algorithm as ``torch.optim.Rprop``
(``learning_rate`` is the initial step size, ``learning_rate_range`` the step-size
bounds); Paddle's ASGD is *not* PyTorch's averaged SGD but the stochastic average
gradient (SAG): it keeps the last ``batch_num`` gradients and steps along their mean."""

from __future__ import annotations

import operator
from typing import Any

from .. import _core
from ..optim import rprop_asgd
from ..optim.optimizer import _decay, _refuse_unsupported
from ..optim.python_state import PythonStateOptimizer


class Rprop(rprop_asgd.Rprop):
    """``paddle.optimizer.Rprop(learning_rate=0.001, learning_rate_range=(1e-5, 50),
    parameters=None, etas=(0.5, 1.2), grad_clip=None, multi_precision=False,
    name=None)``: :class:`ferrograd.optim.Rprop` under Paddle's names (the per-element
    step sizes start at ``learning_rate`` and stay within ``learning_rate_range``).
    Paddle requires ``0 < learning_rate_range[0] <= learning_rate <=
    learning_rate_range[1]`` and ``0 < etas[0] < 1 < etas[1]``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_range: tuple[float, float] = (1e-5, 50),
        parameters: Any = None,
        etas: tuple[float, float] = (0.5, 1.2),
        grad_clip: Any = None,
        multi_precision: bool = False,
        name: str | None = None,
    ) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        low, high = rprop_asgd._pair(learning_rate_range, "learning_rate_range")
        if isinstance(learning_rate, (int, float)) and not (
            0.0 < low <= float(learning_rate) <= high
        ):
            raise ValueError(
                "'0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]' "
                f"must be true (got learning_rate={learning_rate}, learning_rate_range="
                f"{tuple(learning_rate_range)})"
            )
        super().__init__(
            None,
            etas=etas,
            step_sizes=(low, high),
            learning_rate=learning_rate,
            parameters=parameters,
            grad_clip=grad_clip,
        )


class ASGD(PythonStateOptimizer):
    """``paddle.optimizer.ASGD(learning_rate=0.001, batch_num=1, parameters=None,
    weight_decay=None, grad_clip=None, multi_precision=False, name=None)``: Paddle's
    ASGD, the stochastic average gradient. Each parameter keeps ``d`` (the sum of the
    stored gradients), ``y`` (``batch_num`` stored gradients) and ``m`` (its step count).
    At its ``m``-th step (from 0), with ``i = m % batch_num`` and ``g`` the gradient
    (plus ``weight_decay * p`` for an L2 decay)::

        d = d - y[i] + g;   y[i] = g;   p -= learning_rate / min(m + 1, batch_num) * d

    With ``batch_num=1`` this is plain SGD.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        batch_num: int = 1,
        parameters: Any = None,
        weight_decay: Any = None,
        grad_clip: Any = None,
        multi_precision: bool = False,
        name: str | None = None,
    ) -> None:
        if learning_rate is None:
            raise ValueError("learning_rate should not be none")
        if batch_num is None:
            raise ValueError("batch_num should not be none")
        if isinstance(batch_num, bool):
            raise TypeError("batch_num must be an int, got bool")
        batch_num = operator.index(batch_num)
        if not 0 < batch_num:
            raise ValueError(f"batch_num should be greater than 0, got {batch_num}")
        if batch_num > 2**20:
            raise ValueError(
                f"batch_num={batch_num} is too large: each parameter stores batch_num "
                "gradients (at most 2**20 here)"
            )
        _refuse_unsupported(grad_clip)
        defaults = {
            "lr": 0.0,
            "batch_num": batch_num,
            "weight_decay": _decay(0.0 if weight_decay is None else weight_decay),
        }
        super().__init__(None, defaults, learning_rate, parameters, grad_clip)

    def _buffer_shape(self, name: str, p: Any) -> list[int]:
        if name == "y":
            return [int(self.defaults["batch_num"]), *p.shape]
        return list(p.shape)

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        n = int(group["batch_num"])
        if not st:
            st["m"] = 0
            st["d"] = _core.zeros_like(p)
            st["y"] = _core.zeros([n, *p.shape], dtype=p.dtype)
        wd = float(group["weight_decay"])
        if wd != 0.0:
            grad = grad + p * wd
        m = int(st["m"])
        i = m % n
        ys = list(st["y"].unbind(0)) if n > 1 else [st["y"][0]]
        st["d"] = st["d"] - ys[i] + grad
        ys[i] = grad.to(p.dtype)
        st["y"] = _core.stack(ys, 0)
        st["m"] = m + 1
        p.sub_(st["d"] * (float(group["lr"]) / min(m + 1, n)))
