"""PyTorch's ``optim.Rprop`` and ``optim.ASGD`` (Paddle's versions, with Paddle's
argument names, are in ``ferrograd.optimizer``: Paddle's ``ASGD`` is a different
algorithm). Neither has a Rust kernel: the update is written with tensor ops under
``no_grad``, parameter by parameter, and the state is kept in Python
(:class:`~ferrograd.optim.python_state.PythonStateOptimizer`)."""

from __future__ import annotations

from typing import Any

from .. import _core
from .optimizer import _check_number, _decay, _refuse_unsupported
from .python_state import PythonStateOptimizer


def _pair(value: Any, what: str) -> tuple[float, float]:
    try:
        a, b = value
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a pair of numbers, got {value!r}") from None
    return float(a), float(b)


class Rprop(PythonStateOptimizer):
    """Rprop (resilient back-propagation, Riedmiller & Braun): each element has its own
    step size, grown by ``etas[1]`` while the gradient keeps its sign and shrunk by
    ``etas[0]`` when it flips; only the gradient's sign moves the parameter. Meant for
    full-batch training.

    ``Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
    capturable=False, foreach=None, maximize=False, differentiable=False)``. Per element,
    with ``s = sign(g * prev)`` (the step sizes start at ``lr``, ``prev`` at 0)::

        step_size = clamp(step_size * (etas[1] if s > 0 else etas[0] if s < 0 else 1),
                          *step_sizes)
        g = 0 where s < 0;   p -= sign(g) * step_size;   prev = g

    State per parameter: ``step``, ``prev``, ``step_size``. A complex parameter is
    stepped as its ``view_as_real`` (real and imaginary parts each with their own step
    size, both starting at ``lr``), as PyTorch's.
    """

    _complex_as_real = True

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: Any = None,
        maximize: bool = False,
        differentiable: bool = False,
        learning_rate: Any = None,
        parameters: Any = None,
        grad_clip: Any = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        defaults = {
            "lr": lr,
            "etas": _pair(etas, "etas"),
            "step_sizes": _pair(step_sizes, "step_sizes"),
            "maximize": bool(maximize),
            "foreach": foreach,
            "capturable": bool(capturable),
            "differentiable": False,
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        minus, plus = _pair(group["etas"], "etas")
        if not 0.0 < minus < 1.0 < plus:
            raise ValueError(
                f"Invalid eta values: {minus}, {plus} (need 0 < etas[0] < 1 < etas[1])"
            )
        low, high = _pair(group["step_sizes"], "step_sizes")
        if not 0.0 <= low <= high:
            raise ValueError(f"Invalid step sizes: {low}, {high} (need 0 <= min <= max)")

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        if not st:
            st["step"] = 0
            st["prev"] = _core.zeros_like(p)
            st["step_size"] = _core.full_like(p, float(group["lr"]))
        minus, plus = _pair(group["etas"], "etas")
        low, high = _pair(group["step_sizes"], "step_sizes")
        st["step"] += 1
        prod = grad * st["prev"]
        # full_like: python-number branches of ``where`` would be float32
        factor = _core.where(
            prod > 0,
            _core.full_like(p, plus),
            _core.where(prod < 0, _core.full_like(p, minus), _core.ones_like(p)),
        )
        step_size = (st["step_size"] * factor).clamp(low, high)
        grad = _core.where(prod < 0, _core.zeros_like(grad), grad)
        p.sub_(grad.sign() * step_size)
        st["prev"] = grad.to(p.dtype).clone()
        st["step_size"] = step_size


class ASGD(PythonStateOptimizer):
    """Averaged SGD (Polyak & Juditsky): SGD with a decaying rate ``eta`` that also keeps
    ``ax``, the running average of the iterates from step ``t0`` on (read it from
    ``optimizer.state[p]["ax"]``).

    ``ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
    foreach=None, maximize=False, differentiable=False, capturable=False)``. At step
    ``t`` (``eta`` starts at ``lr``, ``mu`` at 1), after ``g += weight_decay * p``::

        p = p * (1 - lambd * eta) - eta * g
        ax = p if mu == 1 else ax + mu * (p - ax)
        eta = lr / (1 + lambd * lr * t) ** alpha;   mu = 1 / max(1, t - t0)

    State per parameter: ``step``, ``eta``, ``mu`` (0-d float64 tensors in ``state``)
    and ``ax``. A complex parameter is stepped as its ``view_as_real``, as PyTorch's.
    """

    _complex_as_real = True

    _scalar_names = ("eta", "mu")

    def __init__(
        self,
        params: Any = None,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: Any = 0,
        foreach: Any = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
        *,
        learning_rate: Any = None,
        parameters: Any = None,
        grad_clip: Any = None,
    ) -> None:
        _refuse_unsupported(grad_clip, differentiable=differentiable, who=type(self).__name__)
        defaults = {
            "lr": lr,
            "lambd": float(lambd),
            "alpha": float(alpha),
            "t0": float(t0),
            "weight_decay": _decay(0.0 if weight_decay is None else weight_decay),
            "maximize": bool(maximize),
            "foreach": foreach,
            "capturable": bool(capturable),
            "differentiable": False,
        }
        super().__init__(params, defaults, learning_rate, parameters, grad_clip)

    def _validate_group(self, group: dict[str, Any]) -> None:
        super()._validate_group(group)
        _check_number("lambd value", float(group["lambd"]))
        _check_number("alpha value", float(group["alpha"]))
        float(group["t0"])

    def _update_param(self, group: dict[str, Any], st: dict[str, Any], p: Any, grad: Any) -> None:
        if not st:
            st["step"] = 0
            st["eta"] = float(group["lr"])
            st["mu"] = 1.0
            st["ax"] = _core.zeros_like(p)
        lr, lambd, wd = float(group["lr"]), float(group["lambd"]), float(group["weight_decay"])
        st["step"] += 1
        step = st["step"]
        if wd != 0.0:
            grad = grad + p * wd
        eta = float(st["eta"])
        p.mul_(1.0 - lambd * eta)
        p.sub_(grad * eta)
        mu = float(st["mu"])
        if mu != 1.0:
            st["ax"] = st["ax"] + (p - st["ax"]) * mu
        else:
            st["ax"] = p.clone()
        st["eta"] = lr / (1.0 + lambd * lr * step) ** float(group["alpha"])
        st["mu"] = 1.0 / max(1.0, step - float(group["t0"]))
