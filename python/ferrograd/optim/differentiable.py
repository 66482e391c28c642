"""PyTorch's ``differentiable=True`` for ``SGD`` and ``Adam`` / ``AdamW``: the update
written with ordinary tensor ops and run in grad mode, so that it is recorded on the
autograd graph and gradients flow through the step into the previous parameters, the
gradients, the optimizer state and a learning rate given as a tensor that requires grad
(meta-learning, learned learning rates).

The rules are PyTorch's single-tensor ones (``torch.optim.sgd._single_tensor_sgd``,
``torch.optim.adam._single_tensor_adam``), including where it cuts the graph: SGD's first
momentum buffer is a detached copy of the gradient; Adam's moments start at zeros.
Parameters are updated in place (they may be non-leaf tensors: a leaf that requires grad
cannot be modified in place in grad mode); the state tensors are replaced by the new
values each step. The state lives in a dict per parameter that ``optimizer.state[p]``
returns as it is (``opt.state[p].update(...)`` sets it, as in PyTorch).
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad

#: the optimizers with a differentiable step (named by the refusal of the others)
SUPPORTED = "SGD, Adam and AdamW"


def refuse(who: str) -> None:
    """The error for ``differentiable=True`` on an optimizer without a differentiable step."""
    raise NotImplementedError(
        f"{who}: differentiable=True is implemented for {SUPPORTED} in ferrograd; use one of "
        "those, or write the update with tensor ops"
    )


def _grads(group: dict[str, Any], who: str) -> list[tuple[int, Tensor, Tensor]]:
    """``(index, parameter, gradient)`` for the parameters of ``group`` with a gradient
    (negated with ``maximize``)."""
    if group.get("l1_decay"):
        raise TypeError(f"{who}: differentiable=True takes a number as weight_decay, not L1Decay")
    out = []
    for pi, p in enumerate(group["params"]):
        g = p.grad
        if g is None:
            continue
        if not isinstance(g, Tensor):
            raise RuntimeError(f"{who}: differentiable=True needs dense gradients")
        if p.dtype.is_complex:
            raise TypeError(f"{who}: differentiable=True supports real parameters only")
        out.append((pi, p, -g if group.get("maximize") else g))
    return out


def _lr(group: dict[str, Any]) -> Any:
    """The learning rate as given: a tensor stays a tensor (gradients flow into it)."""
    lr = group["lr"]
    return lr.reshape([]) if isinstance(lr, Tensor) else float(lr)


def sgd_step(group: dict[str, Any], states: dict[int, dict[str, Any]]) -> None:
    """One differentiable SGD step of ``group``; ``states[pi]`` is parameter ``pi``'s."""
    lr, momentum = _lr(group), float(group["momentum"])
    dampening, wd = float(group["dampening"]), float(group["weight_decay"])
    with enable_grad():
        for pi, p, g in _grads(group, "SGD"):
            if wd != 0.0:
                g = g + p * wd
            if momentum != 0.0:
                st = states.setdefault(pi, {})
                buf = st.get("momentum_buffer")
                if buf is None:
                    buf = g.detach().clone()  # PyTorch: the first buffer is not differentiated
                else:
                    buf = buf * momentum + g * (1.0 - dampening)
                st["momentum_buffer"] = buf
                g = g + buf * momentum if group["nesterov"] else buf
            p.sub_(g * lr)


def adam_step(group: dict[str, Any], states: dict[int, dict[str, Any]], decoupled: bool) -> None:
    """One differentiable Adam (``decoupled``: AdamW) step of ``group``."""
    lr = _lr(group)
    b1, b2 = (float(b) for b in group["betas"])
    eps, wd = float(group["eps"]), float(group["weight_decay"])
    amsgrad = bool(group["amsgrad"])
    with enable_grad():
        for pi, p, g in _grads(group, "Adam"):
            st = states.setdefault(pi, {})
            if "step" not in st:
                # PyTorch's scalar dtype: float64 under a float64 default, else float32
                wide = _core._get_default_dtype() == _core.float64
                st["step"] = _core.tensor(0.0, dtype=_core.float64 if wide else _core.float32)
                st["exp_avg"] = _core.zeros_like(p)
                st["exp_avg_sq"] = _core.zeros_like(p)
                if amsgrad:
                    st["max_exp_avg_sq"] = _core.zeros_like(p)
            step = st["step"] + 1.0
            st["step"] = step
            if wd != 0.0:
                if decoupled:
                    p.mul_(1.0 - lr * wd)
                else:
                    g = g + p * wd
            m = st["exp_avg"] + (g - st["exp_avg"]) * (1.0 - b1)
            v = st["exp_avg_sq"] * b2 + g * g * (1.0 - b2)
            st["exp_avg"], st["exp_avg_sq"] = m, v
            bias1 = 1.0 - b1**step
            bias2_sqrt = (1.0 - b2**step).sqrt()
            if amsgrad:
                from .. import maximum  # late: ferrograd imports optim

                v = maximum(st["max_exp_avg_sq"], v)
                st["max_exp_avg_sq"] = v
            step_size = lr / bias1
            p.sub_(m * step_size / (v.sqrt() / bias2_sqrt + eps))
