"""Adagrad, Adadelta and Adamax in both dialects.

The classes take PyTorch's ``Opt(params, lr=..., ...)`` and Paddle's
``Opt(learning_rate=..., parameters=..., epsilon=...)``. Paddle's spelling (a
``parameters=`` or ``learning_rate=`` keyword, or the rate given first) also selects
Paddle's defaults and, for Adamax, Paddle's placement of ``epsilon``.
"""

from __future__ import annotations

from typing import Any

from .optimizer import (
    Optimizer,
    _check_betas,
    _check_number,
    _decay,
    _is_scheduler,
    _refuse_unsupported,
    _with_dense_grads,
)


def _paddle_rate_first(params: Any) -> bool:
    """Paddle's positional rate: ``Opt(0.1, parameters=...)``."""
    is_number = isinstance(params, (int, float)) and not isinstance(params, bool)
    return is_number or _is_scheduler(params)


def _paddle_call(params: Any, learning_rate: Any, parameters: Any) -> bool:
    """True when the constructor was called in Paddle's spelling."""
    return parameters is not None or learning_rate is not None or _paddle_rate_first(params)


def _pick(value: Any, paddle: bool, torch_default: float, paddle_default: float) -> float:
    """``value``, or the dialect's default when it is None."""
    if value is not None:
        return float(value)
    return paddle_default if paddle else torch_default


class Adagrad(Optimizer):
    """Adagrad. torch: ``Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    initial_accumulator_value=0, eps=1e-10, maximize=False)``; Paddle:
    ``Adagrad(learning_rate, epsilon=1e-6, parameters=None, weight_decay=None,
    grad_clip=None, initial_accumulator_value=0.0)``. At step ``t``::

        g = g + weight_decay * p;   sum = sum + g * g
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps)
    """

    _buffer_names = ("sum",)

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: Any = None,
        initial_accumulator_value: float = 0.0,
        eps: float | None = None,
        foreach: Any = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: Any = None,
        learning_rate: Any = None,
        epsilon: float | None = None,
        parameters: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        paddle = _paddle_call(params, learning_rate, parameters)
        defaults = {
            "lr": lr,
            "lr_decay": float(lr_decay),
            "weight_decay": _decay(weight_decay),
            "initial_accumulator_value": float(initial_accumulator_value),
            "eps": _pick(epsilon if epsilon is not None else eps, paddle, 1e-10, 1e-6),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("lr_decay", float(group["lr_decay"]))
        _check_number("initial_accumulator_value", float(group["initial_accumulator_value"]))
        _check_number("epsilon value", float(group["eps"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        def run() -> None:
            state.adagrad_step(
                float(group["lr"]),
                float(group["lr_decay"]),
                float(group["weight_decay"]),
                float(group["eps"]),
                float(group["initial_accumulator_value"]),
                bool(group["maximize"]),
            )

        sparse = state.sparse_grads()
        if not sparse:
            run()
            return
        if float(group["weight_decay"]) != 0.0:
            raise RuntimeError(
                "Adagrad: weight_decay option is not compatible with sparse gradients (a "
                "parameter's .grad is sparse); use weight_decay=0 or a dense gradient"
            )
        # a zero gradient leaves Adagrad's sum and the parameter as they are, so the dense
        # rule on the densified gradient is PyTorch's sparse update
        _with_dense_grads(group["params"], sparse, run)


class Adadelta(Optimizer):
    """Adadelta. torch: ``Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0,
    maximize=False)``; Paddle: ``Adadelta(learning_rate=1e-3, epsilon=1e-6, rho=0.95,
    parameters=None, weight_decay=None, grad_clip=None)``. Per parameter::

        g = g + weight_decay * p;   v = rho * v + (1 - rho) * g * g
        d = sqrt(u + eps) / sqrt(v + eps) * g;   u = rho * u + (1 - rho) * d * d
        p = p - lr * d
    """

    _buffer_names = ("square_avg", "acc_delta")

    def __init__(
        self,
        params: Any = None,
        lr: float | None = None,
        rho: float | None = None,
        eps: float = 1e-6,
        weight_decay: Any = None,
        foreach: Any = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
        learning_rate: Any = None,
        epsilon: float | None = None,
        parameters: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        paddle = _paddle_call(params, learning_rate, parameters)
        if paddle and learning_rate is None and not _paddle_rate_first(params):
            learning_rate = 1e-3 if lr is None else lr
        defaults = {
            "lr": 1.0 if lr is None else lr,
            "rho": _pick(rho, paddle, 0.9, 0.95),
            "eps": float(epsilon if epsilon is not None else eps),
            "weight_decay": _decay(weight_decay),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("rho value", float(group["rho"]), 0.0, 1.0 + 1e-12)
        _check_number("epsilon value", float(group["eps"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        state.adadelta_step(
            float(group["lr"]),
            float(group["rho"]),
            float(group["eps"]),
            float(group["weight_decay"]),
            bool(group["maximize"]),
        )


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm). torch: ``Adamax(params, lr=2e-3,
    betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=False)``; Paddle:
    ``Adamax(learning_rate=1e-3, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
    weight_decay=None, grad_clip=None)``. At step ``t``::

        g = g + weight_decay * p;   m = b1 * m + (1 - b1) * g
        u = max(b2 * u, |g| + eps)          (Paddle: max(b2 * u + eps, |g|))
        p = p - lr / (1 - b1**t) * m / u
    """

    _buffer_names = ("exp_avg", "exp_inf")

    def __init__(
        self,
        params: Any = None,
        lr: float | None = None,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: Any = None,
        foreach: Any = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
        learning_rate: Any = None,
        beta1: float | None = None,
        beta2: float | None = None,
        epsilon: float | None = None,
        parameters: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        self._paddle = _paddle_call(params, learning_rate, parameters)
        if self._paddle and learning_rate is None and not _paddle_rate_first(params):
            learning_rate = 1e-3 if lr is None else lr
        b1, b2 = betas
        defaults = {
            "lr": 2e-3 if lr is None else lr,
            "betas": (
                float(beta1 if beta1 is not None else b1),
                float(beta2 if beta2 is not None else b2),
            ),
            "eps": float(epsilon if epsilon is not None else eps),
            "weight_decay": _decay(weight_decay),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_betas(group)
        _check_number("epsilon value", float(group["eps"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        b1, b2 = group["betas"]
        state.adamax_step(
            float(group["lr"]),
            float(b1),
            float(b2),
            float(group["eps"]),
            float(group["weight_decay"]),
            bool(group["maximize"]),
            self._paddle,
        )
