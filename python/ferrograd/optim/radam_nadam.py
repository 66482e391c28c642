"""RAdam and NAdam in both dialects (PyTorch's semantics, ``decoupled_weight_decay``
included; Paddle's ``paddle.optimizer.RAdam`` / ``NAdam`` argument names).

The other optimizers update a whole group in one Rust call; these two have no Rust
kernel (the Python-only change that added them could not extend the core), so their
update is written here with tensor ops under ``no_grad``, parameter by parameter. The
state still lives in the group's ``ParamGroupState`` (``step`` and the moment buffers,
so ``state_dict`` / ``load_state_dict`` work as for the others); NAdam's running product
``mu_product`` is a number kept beside it. Expect these to be slower per step than
``Adam`` on many small parameters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .. import _core
from .._ops_special_more import view_as_complex, view_as_real
from ..grad_mode import no_grad
from .optimizer import (
    Optimizer,
    _check_betas,
    _check_number,
    _decay,
    _real_grads,
    _refuse_unsupported,
)


def _betas(betas: Any, beta1: Any, beta2: Any) -> tuple[float, float]:
    b1, b2 = betas
    return (float(beta1 if beta1 is not None else b1), float(beta2 if beta2 is not None else b2))


class _PythonAdamFamily(Optimizer):
    """Shared pieces: checks, and the per-parameter loop over the group's state."""

    _buffer_names = ("exp_avg", "exp_avg_sq")

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_betas(group)
        _check_number("epsilon value", float(group["eps"]))

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        gi = next(i for i, st in enumerate(self._group_states) if st is state)
        with no_grad():
            for pi, p, grad in _real_grads(group, type(self).__name__, complex_ok=True):
                bufs = state.buffers(pi)
                # a complex parameter steps as its real view, as PyTorch's
                # _single_tensor_radam / _single_tensor_nadam (`torch.view_as_real`)
                cplx = p.dtype.is_complex
                if cplx:
                    p, grad = view_as_real(p), view_as_real(grad)
                    bufs = [view_as_real(b) for b in bufs]
                if not bufs:
                    bufs = [_core.zeros_like(p), _core.zeros_like(p)]
                step = state.step_count(pi) + 1
                lr, wd = float(group["lr"]), float(group["weight_decay"])
                if wd != 0.0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1.0 - lr * wd)
                    else:
                        grad = grad + p * wd
                b1, b2 = (float(b) for b in group["betas"])
                m = bufs[0] * b1 + grad * (1.0 - b1)
                v = bufs[1] * b2 + grad * grad * (1.0 - b2)
                p.sub_(self._delta(group, gi, pi, step, grad, m, v))
                if cplx:  # the state stays complex, shaped like the parameter
                    m, v = view_as_complex(m.contiguous()), view_as_complex(v.contiguous())
                state.set_state(pi, [m, v], step)  # copies m and v into the state

    def _delta(
        self, group: dict[str, Any], gi: int, pi: int, step: int, grad: Any, m: Any, v: Any
    ) -> Any:
        raise NotImplementedError


class RAdam(_PythonAdamFamily):
    """RAdam (Liu et al.): Adam whose adaptive step is switched on, and scaled by the
    rectification ``r``, once the variance of the adaptive rate is tractable.

    torch: ``RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, maximize=False)``; Paddle: ``RAdam(learning_rate=1e-3,
    beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=..., weight_decay=None)``. At step
    ``t``, after weight decay (added to the gradient, or ``p *= 1 - lr * wd`` when
    decoupled)::

        m = b1 * m + (1 - b1) * g;   v = b2 * v + (1 - b2) * g * g
        rho_inf = 2 / (1 - b2) - 1;  rho = rho_inf - 2 t b2**t / (1 - b2**t)
        rho > 5:  r = sqrt((rho - 4)(rho - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho))
                  p -= lr * m / (1 - b1**t) * r * sqrt(1 - b2**t) / (sqrt(v) + eps)
        else:     p -= lr * m / (1 - b1**t)
    """

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: Any = None,
        decoupled_weight_decay: bool = False,
        *,
        foreach: Any = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        learning_rate: Any = None,
        beta1: float | None = None,
        beta2: float | None = None,
        epsilon: float | None = None,
        parameters: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        defaults = {
            "lr": lr,
            "betas": _betas(betas, beta1, beta2),
            "eps": float(epsilon if epsilon is not None else eps),
            "weight_decay": _decay(0.0 if weight_decay is None else weight_decay),
            "decoupled_weight_decay": bool(decoupled_weight_decay),
            "maximize": bool(maximize),
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _delta(
        self, group: dict[str, Any], gi: int, pi: int, step: int, grad: Any, m: Any, v: Any
    ) -> Any:
        lr, eps = float(group["lr"]), float(group["eps"])
        b1, b2 = (float(b) for b in group["betas"])
        bc1, bc2 = 1.0 - b1**step, 1.0 - b2**step
        rho_inf = 2.0 / (1.0 - b2) - 1.0
        rho = rho_inf - 2.0 * step * b2**step / bc2
        if rho > 5.0:
            rect = math.sqrt(
                (rho - 4.0) * (rho - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho)
            )
            return m * (lr * rect * math.sqrt(bc2) / bc1) / (v.sqrt() + eps)
        return m * (lr / bc1)


class NAdam(_PythonAdamFamily):
    """NAdam (Dozat): Adam with Nesterov momentum, its momentum coefficient warmed up by
    ``momentum_decay``.

    torch: ``NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, maximize=False)``; Paddle:
    ``NAdam(learning_rate=2e-3, beta1=0.9, beta2=0.999, epsilon=1e-8,
    momentum_decay=4e-3, parameters=..., weight_decay=None)``. At step ``t``, after
    weight decay as in :class:`RAdam`::

        mu_t = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay));  prod_t = prod_t-1 * mu_t
        m = b1 * m + (1 - b1) * g;   v = b2 * v + (1 - b2) * g * g
        d = sqrt(v / (1 - b2**t)) + eps
        p -= lr * (1 - mu_t) / (1 - prod_t) * g / d
        p -= lr * mu_t+1 / (1 - prod_t * mu_t+1) * m / d
    """

    def __init__(
        self,
        params: Any = None,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: Any = None,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: Any = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        learning_rate: Any = None,
        beta1: float | None = None,
        beta2: float | None = None,
        epsilon: float | None = None,
        parameters: Any = None,
        grad_clip: Any = None,
        name: str | None = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        defaults = {
            "lr": lr,
            "betas": _betas(betas, beta1, beta2),
            "eps": float(epsilon if epsilon is not None else eps),
            "weight_decay": _decay(0.0 if weight_decay is None else weight_decay),
            "momentum_decay": float(momentum_decay),
            "decoupled_weight_decay": bool(decoupled_weight_decay),
            "maximize": bool(maximize),
        }
        #: ``mu_product`` per (group, parameter), the running product of the mu_t
        self._mu_product: dict[tuple[int, int], float] = {}
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("momentum_decay value", float(group["momentum_decay"]))

    def _mu(self, group: dict[str, Any], t: int) -> float:
        b1 = float(group["betas"][0])
        return b1 * (1.0 - 0.5 * 0.96 ** (t * float(group["momentum_decay"])))

    def _delta(
        self, group: dict[str, Any], gi: int, pi: int, step: int, grad: Any, m: Any, v: Any
    ) -> Any:
        lr, eps = float(group["lr"]), float(group["eps"])
        b2 = float(group["betas"][1])
        prev = self._mu_product.get((gi, pi))
        if prev is None:  # a fresh parameter, or a state loaded without mu_product
            prev = math.prod(self._mu(group, i) for i in range(1, step))
        mu, mu_next = self._mu(group, step), self._mu(group, step + 1)
        product = prev * mu
        self._mu_product[(gi, pi)] = product
        denom = (v / (1.0 - b2**step)).sqrt() + eps
        return (
            grad * (lr * (1.0 - mu) / (1.0 - product))
            + m * (lr * mu_next / (1.0 - product * mu_next))
        ) / denom

    def _param_state(self, gi: int, pi: int) -> dict[str, Any]:
        out = super()._param_state(gi, pi)
        if out and (gi, pi) in self._mu_product:
            out["mu_product"] = _core.tensor(self._mu_product[(gi, pi)], dtype=_core.float64)
        return out

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """``Optimizer.load_state_dict`` plus each parameter's ``mu_product``."""
        super().load_state_dict(state_dict)
        self._mu_product.clear()
        states = state_dict["state"]
        for gi, saved in enumerate(state_dict["param_groups"]):
            for pi, idx in enumerate(saved["params"]):
                mu = states.get(idx, {}).get("mu_product")
                if mu is not None:
                    self._mu_product[(gi, pi)] = float(mu.item() if hasattr(mu, "item") else mu)

    set_state_dict = load_state_dict
