"""SGD with momentum (PyTorch's ``SGD``) and Paddle's ``SGD`` / ``Momentum``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..grad_mode import no_grad
from .differentiable import sgd_step as differentiable_sgd_step
from .optimizer import Optimizer, _check_number, _decay, _refuse_unsupported, _with_dense_grads


def _sparse_sgd(group: dict[str, Any], sparse: list[int], run: Callable[[], None]) -> None:
    """One SGD step of a group in which the parameters ``sparse`` have a sparse ``.grad``
    (PyTorch's rules): without momentum, only their stored entries change; with momentum,
    the dense rule on the densified gradient (the same values as PyTorch's sparse
    momentum buffer, which is zero where no gradient ever was); weight decay is refused,
    as by PyTorch (``add(sparse, dense)``)."""
    if float(group["weight_decay"]) != 0.0:
        raise RuntimeError(
            "SGD: weight_decay does not support sparse gradients (a parameter's .grad is "
            "sparse); use weight_decay=0, or make the gradient dense: p.grad = "
            "p.grad.to_dense()"
        )
    params = group["params"]
    if float(group["momentum"]) != 0.0:
        _with_dense_grads(params, sparse, run)
        return
    saved = [(params[i], params[i].grad) for i in sparse]
    for p, _ in saved:
        p.grad = None
    try:
        run()  # the dense ones
    finally:
        for p, g in saved:
            p.grad = g
    from ..sparse._grad import _add_sparse_rows

    lr = float(group["lr"])
    with no_grad():
        for p, g in saved:
            _add_sparse_rows(p, g, lr if group["maximize"] else -lr)


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum and L2 weight decay.

    torch: ``SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
    nesterov=False, maximize=False)``; Paddle: ``SGD(learning_rate=1e-3, parameters=...,
    weight_decay=None)``. Per parameter, with ``g`` its gradient::

        g = g + weight_decay * p
        buf = g (first step) or momentum * buf + (1 - dampening) * g
        p = p - lr * (g + momentum * buf if nesterov else buf)   # buf = g when momentum = 0
    """

    _buffer_names = ("momentum_buffer",)

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: Any = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        learning_rate: Any = None,
        parameters: Any = None,
        grad_clip: Any = None,
        multi_precision: bool = False,
        name: str | None = None,
        foreach: Any = None,
        differentiable: bool = False,
        fused: Any = None,
    ) -> None:
        _refuse_unsupported(grad_clip)
        defaults = {
            "lr": lr,
            "momentum": float(momentum),
            "dampening": float(dampening),
            "weight_decay": _decay(weight_decay),
            "nesterov": bool(nesterov),
            "maximize": bool(maximize),
            "differentiable": bool(differentiable),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    #: PyTorch refuses ``nesterov`` without momentum; Paddle's ``Momentum`` takes it (its
    #: steps are plain SGD's then)
    _nesterov_needs_momentum = True

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("momentum value", float(group["momentum"]))
        nesterov_checked = self._nesterov_needs_momentum and group["nesterov"]
        if nesterov_checked and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        if group.get("differentiable"):
            differentiable_sgd_step(group, self._diff_states(state))
            return

        def run() -> None:
            state.sgd_step(
                float(group["lr"]),
                float(group["momentum"]),
                float(group["dampening"]),
                float(group["weight_decay"]),
                bool(group["nesterov"]),
                bool(group["maximize"]),
            )

        sparse = state.sparse_grads()
        if not sparse:
            run()
            return
        _sparse_sgd(group, sparse, run)

    def _static_rule(self, group: dict[str, Any]) -> tuple[str, dict[str, Any], tuple[str, ...]]:
        hyper = {
            "momentum": float(group["momentum"]),
            "dampening": float(group["dampening"]),
            "weight_decay": float(group["weight_decay"]),
            "nesterov": bool(group["nesterov"]),
            "maximize": bool(group["maximize"]),
        }
        buffers = ("momentum_buffer",) if hyper["momentum"] != 0.0 else ()
        return "sgd", hyper, buffers


class Momentum(SGD):
    """Paddle's ``Momentum(learning_rate=1e-3, momentum=0.9, parameters=...,
    use_nesterov=False, weight_decay=None, rescale_grad=1.0)``: SGD with momentum and no
    dampening. ``rescale_grad`` multiplies each (clipped) gradient before the update; as
    in Paddle's fused kernel, an L2 decay is added after the rescale, an L1 one before.
    A parameter group may set its own ``rescale_grad``. ``use_nesterov`` with a
    ``momentum`` of 0 is accepted, as Paddle does (plain SGD steps)."""

    _nesterov_needs_momentum = False

    def __init__(
        self,
        learning_rate: Any = 1e-3,
        momentum: float = 0.9,
        parameters: Any = None,
        use_nesterov: bool = False,
        weight_decay: Any = None,
        grad_clip: Any = None,
        multi_precision: bool = False,
        rescale_grad: float = 1.0,
        use_multi_tensor: bool = False,
        name: str | None = None,
    ) -> None:
        if isinstance(rescale_grad, bool) or not isinstance(rescale_grad, (int, float)):
            raise TypeError(f"rescale_grad must be a number, got {type(rescale_grad).__name__}")
        if not math.isfinite(rescale_grad):
            raise ValueError(f"rescale_grad must be finite, got {rescale_grad}")
        #: the default of each group's ``rescale_grad`` (set before the groups are built)
        self._rescale_grad = float(rescale_grad)
        super().__init__(
            parameters,
            momentum=momentum,
            weight_decay=weight_decay if weight_decay is not None else 0.0,
            nesterov=use_nesterov,
            learning_rate=learning_rate,
            grad_clip=grad_clip,
        )
        self.defaults["rescale_grad"] = self._rescale_grad

    def _group_settings(self, param_group: dict[str, Any]) -> dict[str, Any]:
        group = dict(param_group)
        group.setdefault("rescale_grad", self._rescale_grad)
        return super()._group_settings(group)

    def _static_rule(self, group: dict[str, Any]) -> tuple[str, dict[str, Any], tuple[str, ...]]:
        if float(group.get("rescale_grad", 1.0)) != 1.0:
            raise NotImplementedError(
                "Momentum(rescale_grad=...) is not supported in static mode yet; scale the "
                "loss instead, or train eagerly"
            )
        return super()._static_rule(group)
