"""RMSprop (PyTorch's ``RMSprop``) and Paddle's ``RMSProp``."""

from __future__ import annotations

from typing import Any

from .optimizer import Optimizer, _check_number, _decay, _refuse_unsupported


class RMSprop(Optimizer):
    """RMSprop, with optional momentum, centering and L2 weight decay.

    torch: ``RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, maximize=False)``. Per parameter, with ``g`` its gradient::

        g = g + weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        (centered) a = alpha * a + (1 - alpha) * g;   v' = v - a * a
        buf = momentum * buf + g / (sqrt(v') + eps);  p = p - lr * buf
        (momentum = 0)                                 p = p - lr * g / (sqrt(v') + eps)
    """

    _buffer_names = ("square_avg", "momentum_buffer", "grad_avg")
    _paddle = False

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: Any = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        capturable: bool = False,
        foreach: Any = None,
        maximize: bool = False,
        differentiable: bool = False,
        *,
        learning_rate: Any = None,
        parameters: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        defaults = {
            "lr": lr,
            "alpha": float(alpha),
            "eps": float(eps),
            "weight_decay": _decay(weight_decay),
            "momentum": float(momentum),
            "centered": bool(centered),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("alpha value", float(group["alpha"]))
        _check_number("epsilon value", float(group["eps"]))
        _check_number("momentum value", float(group["momentum"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        state.rmsprop_step(
            float(group["lr"]),
            float(group["alpha"]),
            float(group["eps"]),
            float(group["weight_decay"]),
            float(group["momentum"]),
            bool(group["centered"]),
            bool(group["maximize"]),
            self._paddle,
        )


class RMSProp(RMSprop):
    """Paddle: ``RMSProp(learning_rate, rho=0.95, epsilon=1e-6, momentum=0.0,
    centered=False, parameters=None, weight_decay=None, grad_clip=None)``. Paddle's
    rule puts ``epsilon`` under the square root and the learning rate into the momentum
    buffer::

        v = rho * v + (1 - rho) * g * g      (centered: v' = v - a * a as above)
        buf = momentum * buf + lr * g / sqrt(v' + epsilon);   p = p - buf
    """

    _paddle = True
    # a parameter group's Paddle ``rho`` is this optimizer's ``alpha``
    _PADDLE_GROUP_KEYS = {**RMSprop._PADDLE_GROUP_KEYS, "rho": "alpha"}

    def __init__(
        self,
        learning_rate: Any,
        rho: float = 0.95,
        epsilon: float = 1e-6,
        momentum: float = 0.0,
        centered: bool = False,
        parameters: Any = None,
        weight_decay: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        super().__init__(
            parameters,
            alpha=rho,
            eps=epsilon,
            weight_decay=weight_decay if weight_decay is not None else 0.0,
            momentum=momentum,
            centered=centered,
            learning_rate=learning_rate,
            grad_clip=grad_clip,
        )
