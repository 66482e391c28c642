"""The gradient terms an optimizer adds in Python before its update rule runs: Paddle's
per-parameter regularizers (``ParamAttr(regularizer=L2Decay(c) / L1Decay(c))``) and
``Momentum(rescale_grad=)``; and Paddle's per-parameter learning rates
(``ParamAttr(learning_rate=s)``: the parameter's rate is ``s`` times its group's).

Paddle's rules (``Optimizer.append_regularization_ops`` and the ``momentum`` kernel):

* a parameter's own regularizer replaces the optimizer's ``weight_decay`` for that
  parameter; the other parameters keep the optimizer's;
* regularization comes after gradient clipping (the clip sees the raw gradients);
* the optimizer's decoupled decay (``AdamW``) is not a regularizer: it still applies, and
  a parameter's regularizer is added to its gradient besides;
* ``Momentum`` multiplies the gradient by ``rescale_grad`` and then adds the L2 term
  (its kernel fuses them); an L1 term is added before the rescale;
* ``p.grad`` is left as it was: the terms go into the gradient the update reads only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core import Tensor
from ..grad_mode import no_grad
from ..regularizer import L1Decay, WeightDecayRegularizer


def needs_grad_terms(group: dict[str, Any]) -> bool:
    """Whether ``group`` has a parameter with its own regularizer or a ``rescale_grad``
    other than 1 (otherwise the update rule applies the group's decay itself)."""
    if float(group.get("rescale_grad", 1.0)) != 1.0:
        return True
    return any(getattr(p, "regularizer", None) is not None for p in group["params"])


def update_with_grad_terms(
    group: dict[str, Any],
    state: Any,
    l2_in_grad: bool,
    update: Callable[[dict[str, Any], Any], None],
) -> None:
    """Runs ``update(settings, state)`` on gradients that carry the group's decay terms
    (per parameter: its own regularizer, else the group's ``weight_decay`` when it is an
    L2 term added to the gradient (``l2_in_grad``) and the group's ``l1_decay``), with the
    update's own L2 / L1 decay turned off; ``p.grad`` is put back afterwards."""
    wd = float(group.get("weight_decay", 0.0)) if l2_in_grad else 0.0
    l1 = float(group.get("l1_decay") or 0.0)
    scale = float(group.get("rescale_grad", 1.0))
    # maximize: the update negates the gradient; the terms must still pull towards zero
    sign = -1.0 if group.get("maximize") else 1.0
    updated = []
    with no_grad():
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            reg = getattr(p, "regularizer", None)
            if not isinstance(g, Tensor):
                raise RuntimeError(
                    "a regularizer or rescale_grad needs dense gradients, but a parameter's "
                    ".grad is sparse; make it dense: p.grad = p.grad.to_dense()"
                )
            if reg is not None and not isinstance(reg, WeightDecayRegularizer):
                raise TypeError(
                    "a parameter's regularizer must be paddle.regularizer.L2Decay or L1Decay, "
                    f"got {type(reg).__name__}"
                )
            if reg is None:
                pre, post = l1, wd
            elif isinstance(reg, L1Decay):
                pre, post = reg.coeff, 0.0
            else:
                pre, post = 0.0, float(reg.coeff)
            new = g
            if pre:
                new = new + p.sign() * (sign * pre)
            if scale != 1.0:
                new = new * scale
            if post:
                new = new + p * (sign * post)
            updated.append((p, g, new))
    settings = {**group, "l1_decay": 0.0}
    if l2_in_grad:
        settings["weight_decay"] = 0.0
    try:
        for p, _, new in updated:  # set only once every term is computed
            p.grad = new
        update(settings, state)
    finally:
        for p, g, _ in updated:
            p.grad = g


def param_lr_scale(p: Tensor) -> float:
    """The factor ``ParamAttr(learning_rate=s)`` put on ``p``'s learning rate (1.0 when
    none was given); Paddle's ``optimize_attr["learning_rate"]``."""
    attr = getattr(p, "optimize_attr", None)
    return float(attr.get("learning_rate", 1.0)) if isinstance(attr, dict) else 1.0


def update_by_param_lr(
    group: dict[str, Any], state: Any, update: Callable[[dict[str, Any], Any], None]
) -> None:
    """Runs ``update(settings, state)`` once per distinct per-parameter rate factor of
    ``group``'s parameters, with ``lr`` scaled by it and the other parameters' gradients
    hidden (an update skips parameters without a gradient); one plain call when every
    factor is 1 (the common case: nothing is hidden)."""
    by_scale: dict[float, set[int]] = {}
    for p in group["params"]:
        by_scale.setdefault(param_lr_scale(p), set()).add(id(p))
    if len(by_scale) == 1 and 1.0 in by_scale:
        update(group, state)
        return
    for scale, members in by_scale.items():
        hidden = [(p, p.grad) for p in group["params"] if id(p) not in members]
        try:
            for p, _ in hidden:
                p.grad = None
            update({**group, "lr": float(group["lr"]) * scale}, state)
        finally:
            for p, g in hidden:
                p.grad = g
