"""Adam and AdamW in both dialects."""

from __future__ import annotations

import math
from typing import Any

from .._core import Tensor
from ..grad_mode import enable_grad
from .differentiable import adam_step as differentiable_adam_step
from .lazy_rows import lazy_update
from .optimizer import Optimizer, _check_betas, _check_number, _decay, _refuse_unsupported


class Adam(Optimizer):
    """Adam (Kingma & Ba), with optional AMSGrad and L2 weight decay added to the gradient.

    torch: ``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, maximize=False, decoupled_weight_decay=False)`` (True: AdamW's decay); Paddle: ``Adam(learning_rate=1e-3, beta1=0.9,
    beta2=0.999, epsilon=1e-8, parameters=..., weight_decay=None, amsgrad=False)``.
    Per parameter at step ``t``::

        m = b1 * m + (1 - b1) * g;   v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1**t)) / (sqrt(v / (1 - b2**t)) + eps)

    Complex parameters are updated per real component, as PyTorch does.
    ``differentiable=True`` records the step on the autograd graph (real parameters;
    ``optim.differentiable``).
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
        decoupled_weight_decay: bool | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip)
        # Paddle's lazy_mode: only the looked-up rows of a sparse embedding (lazy_rows.py).
        # A bool, as Paddle's adam_ kernel argument (eager_utils.cc CastPyArg2Boolean: True,
        # False or None, else a TypeError "must be bool"), not any truthy value
        if lazy_mode is not None and not isinstance(lazy_mode, bool):
            raise TypeError(
                f"{type(self).__name__}(): lazy_mode must be a bool (True or False), got "
                f"{type(lazy_mode).__name__} {lazy_mode!r}"
            )
        self._lazy_mode = bool(lazy_mode)
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
            # PyTorch 2.15: Adam(decoupled_weight_decay=True) is AdamW
            "decoupled_weight_decay": bool(
                self._decoupled if decoupled_weight_decay is None else decoupled_weight_decay
            ),
            "differentiable": bool(differentiable),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def step(self, closure: Any = None) -> Any:
        """Updates every parameter that has a gradient (see ``Optimizer.step``); with
        Paddle's ``lazy_mode=True`` a ``sparse=True`` embedding's rows that the batch did
        not look up keep their values and moments (``optim/lazy_rows.py``)."""
        if not getattr(self, "_lazy_mode", False):
            return super().step(closure)
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        lazy_update(self, lambda: Optimizer.step(self))
        return loss

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_betas(group)
        _check_number("epsilon value", float(group["eps"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        decoupled = bool(group.get("decoupled_weight_decay", self._decoupled))
        if group.get("differentiable"):
            differentiable_adam_step(group, self._diff_states(state), decoupled)
            return
        b1, b2 = group["betas"]
        state.adam_step(
            float(group["lr"]),
            float(b1),
            float(b2),
            float(group["eps"]),
            float(group["weight_decay"]),
            bool(group.get("decoupled_weight_decay", self._decoupled)),
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
            "decoupled": bool(group.get("decoupled_weight_decay", self._decoupled)),
            "amsgrad": bool(group["amsgrad"]),
            "maximize": bool(group["maximize"]),
        }
        buffers = ("moment1", "moment2", *(("max_moment2",) if hyper["amsgrad"] else ()))
        return "adam", hyper, buffers


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): each step first shrinks the
    parameter, ``p = p * (1 - lr * weight_decay)``, then takes the Adam step on the raw
    gradient. ``weight_decay`` defaults to 0.01 in both dialects.

    Paddle's ``apply_decay_param_fun(name) -> bool`` decays only the parameters whose
    ``param.name`` it accepts, and ``lr_ratio(param) -> float`` scales each parameter's
    learning rate: each parameter group is split into sub-groups that share a decay and a
    ratio (so ``param_groups`` can hold more groups than were given)."""

    _decoupled = True
    _default_weight_decay = 0.01

    def __init__(
        self, *args: Any, apply_decay_param_fun: Any = None, lr_ratio: Any = None, **kwargs: Any
    ) -> None:
        for what, fun in (("apply_decay_param_fun", apply_decay_param_fun), ("lr_ratio", lr_ratio)):
            if fun is not None and not callable(fun):
                raise TypeError(f"AdamW: {what} must be a function, got {type(fun).__name__}")
        if "decoupled_weight_decay" in kwargs:
            raise TypeError(
                "AdamW.__init__() got an unexpected keyword argument 'decoupled_weight_decay'"
            )
        self._apply_decay_param_fun = apply_decay_param_fun
        self._lr_ratio = lr_ratio
        super().__init__(*args, **kwargs)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group; with ``apply_decay_param_fun`` or ``lr_ratio`` it is split into
        sub-groups of parameters sharing a decay (on/off) and a learning-rate ratio."""
        decide = getattr(self, "_apply_decay_param_fun", None)
        ratio_of = getattr(self, "_lr_ratio", None)
        if (decide is None and ratio_of is None) or not isinstance(param_group, dict):
            super().add_param_group(param_group)
            return
        params = param_group.get("params")
        if params is None:
            super().add_param_group(param_group)  # its error names the missing entry
            return
        params = [params] if isinstance(params, Tensor) else list(params)
        # sub-groups in first-seen order, keyed by (decayed, ratio)
        split: dict[tuple[bool, float], list[Any]] = {}
        for p in params:
            decayed = True if decide is None else bool(decide(getattr(p, "name", None)))
            ratio = 1.0 if ratio_of is None else _lr_ratio_value(ratio_of(p))
            split.setdefault((decayed, ratio), []).append(p)
        for (decayed, ratio), members in split.items():
            sub = {**param_group, "params": members}
            if not decayed:
                sub["weight_decay"] = 0.0
            if ratio != 1.0:
                base_scale = float(sub.pop("lr_scale", 1.0))
                if "learning_rate" in sub:  # Paddle's per-group scale
                    sub["learning_rate"] = _lr_ratio_value(sub["learning_rate"]) * ratio
                else:
                    sub["learning_rate"] = base_scale * ratio
                    if "lr" in sub:  # an explicit rate: scale it too
                        sub["lr"] = float(sub["lr"]) * ratio
            super().add_param_group(sub)


def _lr_ratio_value(value: Any) -> float:
    """A learning-rate ratio as a float, refusing anything that is not a finite number
    >= 0."""
    try:
        r = float(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"AdamW: lr_ratio must return a number, got {type(value).__name__}"
        ) from None
    if not math.isfinite(r) or r < 0:
        raise ValueError(f"AdamW: lr_ratio must return a finite number >= 0, got {r}")
    return r
