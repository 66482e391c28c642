"""Adam and AdamW in both dialects."""

from __future__ import annotations

from typing import Any

from .optimizer import Optimizer, _check_betas, _check_number, _decay, _refuse_unsupported


class Adam(Optimizer):
    """Adam (Kingma & Ba), with optional AMSGrad and L2 weight decay added to the gradient.

    torch: ``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, maximize=False)``; Paddle: ``Adam(learning_rate=1e-3, beta1=0.9,
    beta2=0.999, epsilon=1e-8, parameters=..., weight_decay=None, amsgrad=False)``.
    Per parameter at step ``t``::

        m = b1 * m + (1 - b1) * g;   v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1**t)) / (sqrt(v / (1 - b2**t)) + eps)

    Complex parameters are updated per real component, as PyTorch does.
    """

    _buffer_names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _decoupled = False
    _default_weight_decay = 0.0

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: Any = None,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        learning_rate: Any = None,
        beta1: float | None = None,
        beta2: float | None = None,
        epsilon: float | None = None,
        parameters: Any = None,
        grad_clip: Any = None,
        lazy_mode: bool = False,
        multi_precision: bool = False,
        use_multi_tensor: bool = False,
        name: str | None = None,
        foreach: Any = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: Any = None,
    ) -> None:
        _refuse_unsupported(grad_clip, lazy_mode, differentiable)
        b1, b2 = betas
        defaults = {
            "lr": lr,
            "betas": (
                float(beta1 if beta1 is not None else b1),
                float(beta2 if beta2 is not None else b2),
            ),
            "eps": float(epsilon if epsilon is not None else eps),
            "weight_decay": _decay(
                self._default_weight_decay if weight_decay is None else weight_decay
            ),
            "amsgrad": bool(amsgrad),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_betas(group)
        _check_number("epsilon value", float(group["eps"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        b1, b2 = group["betas"]
        state.adam_step(
            float(group["lr"]),
            float(b1),
            float(b2),
            float(group["eps"]),
            float(group["weight_decay"]),
            self._decoupled,
            bool(group["amsgrad"]),
            bool(group["maximize"]),
        )

    def _static_rule(self, group: dict[str, Any]) -> tuple[str, dict[str, Any], tuple[str, ...]]:
        b1, b2 = group["betas"]
        hyper = {
            "beta1": float(b1),
            "beta2": float(b2),
            "eps": float(group["eps"]),
            "weight_decay": float(group["weight_decay"]),
            "decoupled": bool(self._decoupled),
            "amsgrad": bool(group["amsgrad"]),
            "maximize": bool(group["maximize"]),
        }
        buffers = ("moment1", "moment2", *(("max_moment2",) if hyper["amsgrad"] else ()))
        return "adam", hyper, buffers


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): each step first shrinks the
    parameter, ``p = p * (1 - lr * weight_decay)``, then takes the Adam step on the raw
    gradient. ``weight_decay`` defaults to 0.01 in both dialects."""

    _decoupled = True
    _default_weight_decay = 0.01

    def __init__(
        self, *args: Any, apply_decay_param_fun: Any = None, lr_ratio: Any = None, **kwargs: Any
    ) -> None:
        if apply_decay_param_fun is not None or lr_ratio is not None:
            raise NotImplementedError(
                "apply_decay_param_fun / lr_ratio are not supported; use parameter groups "
                "with their own weight_decay instead"
            )
        super().__init__(*args, **kwargs)
