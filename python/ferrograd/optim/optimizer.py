"""The ``Optimizer`` base class: parameter groups, both dialects' constructors, gradient
clearing, learning-rate access and ``state_dict``. Subclasses name their hyper-parameters
and call one Rust update per group per ``step()``."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Container, Iterable, Iterator
from typing import Any

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad, no_grad
from ..regularizer import L1Decay, split_decay
from . import differentiable as _differentiable
from .grad_terms import needs_grad_terms, update_by_param_lr, update_with_grad_terms
from .optimizer_hooks import register_optimizer_step_post_hook as register_optimizer_step_post_hook
from .optimizer_hooks import register_optimizer_step_pre_hook as register_optimizer_step_pre_hook
from .state_io import OptimizerStateIO

ParamsArg = Iterable[Any]


def _refuse_unsupported(
    grad_clip: Any = None, lazy_mode: bool = False, differentiable: bool = False, who: str = ""
) -> None:
    """Raises for the optimizer options ferrograd does not implement (rather than
    silently ignoring them). ``grad_clip`` is supported (checked here, applied by
    ``step()``); ``differentiable=True`` by the optimizers that pass False here for it
    (``optim.differentiable``); ``who`` names the optimizer in the refusal."""
    if grad_clip is not None and not callable(grad_clip):
        raise TypeError(
            "grad_clip must be a gradient clip object such as nn.ClipGradByGlobalNorm(1.0), "
            f"got {type(grad_clip).__name__}"
        )
    if lazy_mode:
        # Paddle's lazy_mode updates only the rows of a SelectedRows gradient; ferrograd's
        # Paddle code has no sparse gradients (nn.Embedding(sparse=True) gives a dense one)
        raise NotImplementedError(
            "lazy_mode applies to Paddle's sparse (SelectedRows) gradients, which Paddle code "
            "here does not produce: use lazy_mode=False (the same update for dense gradients)"
        )
    if differentiable:
        _differentiable.refuse(who)


def _static_parameters(params: Any) -> list[Any] | None:
    """In static mode, the parameters given: static Variables or names, or parameter
    groups (dicts whose ``params`` are such); ``[]`` when none, meaning all trainable
    ones of the program. None in dynamic mode or when ``params`` holds eager tensors."""
    static = sys.modules.get("ferrograd.static.mode_switch")
    if static is None or static.in_dynamic_mode():
        return None
    if params is None:
        return []
    # only lists/tuples are inspected: an iterator of eager tensors must not be consumed
    if not isinstance(params, (list, tuple)) or not params:
        return None

    def is_static(p: Any) -> bool:
        return isinstance(p, (static.Variable, str))

    if all(is_static(p) for p in params):
        return list(params)
    if all(
        isinstance(g, dict)
        and isinstance(g.get("params"), (list, tuple))
        and all(is_static(p) for p in g["params"])
        for g in params
    ):
        return [dict(g) for g in params]
    return None


def _is_scheduler(obj: object) -> bool:
    from .lr_scheduler import LRScheduler

    return isinstance(obj, LRScheduler)


def _coeff(value: Any, what: str) -> float:
    """A plain float from a number or a Paddle regularizer object (``L2Decay(coeff)``)."""
    if value is None:
        return 0.0
    for attr in ("coeff", "_coeff", "_regularization_coeff"):
        if hasattr(value, attr):
            value = getattr(value, attr)
            break
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    return float(value)


def _decay(value: Any) -> Any:
    """An optimizer's ``weight_decay`` argument as stored in its defaults: a float (a
    number or ``L2Decay``), or an ``L1Decay`` kept as it is (``_group_settings`` turns it
    into the group's ``l1_decay``)."""
    return value if isinstance(value, L1Decay) else _coeff(value, "weight_decay")


def _add_l1_decay(group: dict[str, Any]) -> None:
    """Paddle's ``L1Decay``: ``grad += coeff * sign(param)`` for each parameter of the
    group that has a gradient (after clipping, before the update)."""
    coeff = float(group["l1_decay"])
    with no_grad():
        for p in group["params"]:
            g = p.grad
            if g is not None:
                p.grad = g + p.sign() * coeff


def _check_number(name: str, value: float, low: float = 0.0, high: float = math.inf) -> None:
    if not (low <= value < high) or math.isnan(value):
        bound = f"in [{low}, {high})" if high != math.inf else f">= {low}"
        raise ValueError(f"Invalid {name}: {value} (it must be {bound})")


def _check_betas(group: dict[str, Any]) -> None:
    """Checks that both of ``group["betas"]`` lie in ``[0, 1)`` (PyTorch's messages)."""
    b1, b2 = group["betas"]
    _check_number("beta parameter at index 0", float(b1), 0.0, 1.0)
    _check_number("beta parameter at index 1", float(b2), 0.0, 1.0)


def _refuse_sparse(who: str, grad: Any) -> None:
    """A ``RuntimeError`` naming ``who`` when ``grad`` is a sparse gradient (for optimizers
    that only update with dense ones: never skip such a parameter silently)."""
    if grad is None or isinstance(grad, Tensor):
        return
    from ..sparse._base import SparseTensor

    if isinstance(grad, SparseTensor):
        raise RuntimeError(
            f"{who} does not support sparse gradients, please consider SparseAdam instead "
            "(a parameter's .grad is a sparse tensor, e.g. from nn.Embedding(sparse=True); "
            "SGD and Adagrad also take one, or make it dense: p.grad = p.grad.to_dense())"
        )


def _with_dense_grads(params: list[Any], sparse: list[int], run: Callable[[], Any]) -> None:
    """Runs the dense update ``run()`` with the sparse gradients of ``params[i]`` (``i`` in
    ``sparse``) replaced by their dense form, then puts the sparse ones back. For rules
    whose sparse form is the dense one restricted to the stored entries (SGD momentum,
    Adagrad: a zero gradient leaves the parameter as it is), the result is the same."""
    saved = [(params[i], params[i].grad) for i in sparse]
    with no_grad():
        for p, g in saved:
            p.grad = g.to_dense()
    try:
        run()
    finally:
        for p, g in saved:
            p.grad = g


def _real_grads(
    group: dict[str, Any], who: str, sparse_ok: Container[int] = (), complex_ok: bool = False
) -> Iterator[tuple[int, Any, Any]]:
    """``(index, parameter, gradient)`` for each parameter of ``group`` that has a
    gradient, the gradient negated when ``group["maximize"]``; a ``TypeError`` naming
    ``who`` for a complex parameter unless ``complex_ok`` (the caller then steps its
    ``view_as_real``, as PyTorch does), a ``RuntimeError`` for a sparse gradient (but at
    the indices ``sparse_ok``)."""
    for pi, p in enumerate(group["params"]):
        grad = p.grad
        if grad is None:
            continue
        if pi not in sparse_ok:
            _refuse_sparse(who, grad)
        if p.dtype.is_complex and not complex_ok:
            raise TypeError(f"{who}: complex parameters are not supported")
        if group.get("maximize"):
            grad = -grad
        yield pi, p, grad


class Optimizer(OptimizerStateIO):
    """Base class of ferrograd's optimizers.

    Accepts PyTorch's ``Opt(params, lr=..., ...)`` and Paddle's
    ``Opt(learning_rate=..., parameters=...)``. ``params`` is an iterable of Tensors or of
    dicts (parameter groups: ``{"params": [...], "lr": ...}``; Paddle's group key
    ``learning_rate`` scales the optimizer's rate). ``step()`` updates every parameter
    that has a gradient with one Rust call per group, in place and without recording a
    graph; parameters whose ``grad`` is None are skipped.
    """

    def __init__(
        self,
        params: Any,
        defaults: dict[str, Any],
        learning_rate: Any = None,
        parameters: Any = None,
        grad_clip: Any = None,
    ) -> None:
        #: Paddle's gradient clip (``nn.ClipGradByGlobalNorm`` ...), applied by ``step()``
        self._grad_clip = grad_clip
        #: group index -> parameter index -> state, for the groups with ``differentiable``
        self._diff_state: dict[int, dict[int, dict[str, Any]]] = {}
        # Paddle passes the rate first: Opt(0.1, parameters=...) or a scheduler
        if (
            isinstance(params, (int, float))
            and not isinstance(params, bool)
            or _is_scheduler(params)
        ):
            if learning_rate is not None:
                raise TypeError("learning rate given twice (positionally and by keyword)")
            learning_rate, params = params, None
        if params is not None and parameters is not None:
            raise TypeError("pass the parameters once: either `params` or `parameters=`")
        if params is None:
            params = parameters
        static_params = _static_parameters(params)
        if static_params is not None:
            # static mode: minimize(loss) appends the update to the loss's program
            self._static_params = static_params
            params = None
        elif params is None:
            raise ValueError(
                f"{type(self).__name__}: no parameters given; pass them, e.g. "
                f"{type(self).__name__}(model.parameters(), lr=0.01) or "
                f"{type(self).__name__}(learning_rate=0.01, parameters=model.parameters())"
            )
        self._lr_scheduler = None
        if learning_rate is not None:
            if _is_scheduler(learning_rate):
                self._lr_scheduler = learning_rate
                defaults["lr"] = float(learning_rate())
            else:
                defaults["lr"] = _coeff(learning_rate, "learning_rate")
        _check_number("learning rate", float(defaults["lr"]))
        self.defaults = defaults
        self.param_groups: list[dict[str, Any]] = []
        self._group_states: list[Any] = []
        if params is None:
            if static_params and isinstance(static_params[0], dict):
                # static parameter groups: settings checked now, used by minimize
                self._static_params = [
                    {**self._group_settings(g), "params": list(g["params"])} for g in static_params
                ]
            return
        if isinstance(params, Tensor):
            raise TypeError(
                "params must be an iterable of Tensors or dicts, got a single Tensor; "
                "wrap it in a list: [t]"
            )
        groups = list(params)
        if not groups:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    # ---- parameter groups -------------------------------------------------------------

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own hyper-parameters (missing ones take
        the optimizer's defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"a parameter group must be a dict, got {type(param_group).__name__}")
        group = dict(param_group)
        params = group.get("params")
        if params is None:
            raise ValueError("a parameter group needs a 'params' entry")
        params = [params] if isinstance(params, Tensor) else list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but parameter {i} of the group is "
                    f"{type(p).__name__}"
                )
            if type(p).__name__ == "UninitializedParameter":
                raise ValueError(
                    f"parameter {i} of the group is an uninitialized parameter of a lazy "
                    "module (nn.LazyLinear); call the model once (a dry run) before building "
                    "the optimizer"
                )
            differentiable = group.get("differentiable", self.defaults.get("differentiable"))
            if not p.is_leaf and not differentiable:  # PyTorch's rule
                raise ValueError(
                    f"can't optimize a non-leaf Tensor (parameter {i} of the group, shape "
                    f"{list(p.shape)}); optimize the leaf it was computed from, or .detach() "
                    "it and set requires_grad=True"
                )
        seen = {hash(p) for g in self.param_groups for p in g["params"]}
        own: set[int] = set()
        for p in params:
            h = hash(p)
            if h in seen:
                raise ValueError("some parameters appear in more than one parameter group")
            if h in own:
                raise ValueError("a parameter group lists the same parameter twice")
            own.add(h)
        group = self._group_settings(group)
        group["params"] = params
        self.param_groups.append(group)
        self._group_states.append(_core.ParamGroupState(params))

    def _group_settings(self, param_group: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``param_group`` with its hyper-parameters completed and checked:
        Paddle's ``learning_rate`` becomes a scale (``lr_scale``) of the optimizer's
        rate, missing ones take the defaults, regularizer objects become numbers.
        Shared by eager groups and static ``minimize``."""
        group = self._paddle_group_keys(dict(param_group))
        if "learning_rate" in group:  # Paddle: a per-group scale of the global rate
            scale = _coeff(group.pop("learning_rate"), "learning_rate")
            group["lr_scale"] = scale
            group.setdefault("lr", self.defaults["lr"] * scale)
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        if "weight_decay" in group:
            decay, l1 = split_decay(group["weight_decay"])
            group["weight_decay"] = _coeff(decay, "weight_decay")
            group.pop("l1_decay", None)
            if l1:
                if getattr(self, "_decoupled", False):
                    raise TypeError(
                        f"{type(self).__name__} decays the weights itself (decoupled): pass a "
                        "number as weight_decay, not L1Decay"
                    )
                group["l1_decay"] = l1
        self._validate_group(group)
        return group

    #: Paddle's names of per-group settings -> this optimizer's (where they differ)
    _PADDLE_GROUP_KEYS: dict[str, str] = {"epsilon": "eps", "use_nesterov": "nesterov"}

    def _paddle_group_keys(self, group: dict[str, Any]) -> dict[str, Any]:
        """``group`` with Paddle's per-group setting names (``beta1`` / ``beta2``,
        ``epsilon``, RMSProp's ``rho``, ``use_nesterov``: Paddle's
        ``_update_param_group``) renamed to this optimizer's where it has no setting of
        Paddle's name."""
        for paddle_key, key in self._PADDLE_GROUP_KEYS.items():
            if paddle_key in group and paddle_key not in self.defaults and key in self.defaults:
                group[key] = group.pop(paddle_key)
        betas = self.defaults.get("betas")
        if betas is not None and "beta1" not in self.defaults:
            if "beta1" in group or "beta2" in group:
                b1, b2 = group.get("betas", betas)
                group["betas"] = (group.pop("beta1", b1), group.pop("beta2", b2))
        return group

    def _validate_group(self, group: dict[str, Any]) -> None:
        """Checks a group's hyper-parameters (subclasses extend it)."""
        _check_number("learning rate", float(group["lr"]))
        _check_number("weight_decay value", float(group.get("weight_decay", 0.0)))

    # ---- gradients ------------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drops every parameter's gradient (``set_to_none=True``, torch's default) or
        zeros it in place."""
        for st in self._group_states:
            st.zero_grad(set_to_none)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Paddle's name: zeros every gradient in place (``set_to_zero=True``, Paddle's
        default) or drops it."""
        self.zero_grad(set_to_none=not set_to_zero)

    clear_gradients = clear_grad

    # ---- stepping -------------------------------------------------------------------

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Updates every parameter that has a gradient. ``closure`` (optional)
        re-evaluates the model and returns the loss, which ``step`` returns."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        if self._lr_scheduler is not None:
            self._sync_scheduler()
        if self._grad_clip is not None:
            self._clip_gradients()
        for group, st in zip(self.param_groups, self._group_states):
            update_by_param_lr(group, st, self._update_with_terms)  # Paddle's ParamAttr rate
        return loss

    def _update_with_terms(self, group: dict[str, Any], st: Any) -> None:
        """One group's update, with Paddle's per-parameter regularizers, rescale_grad
        and L1 decay added to the gradients first."""
        if needs_grad_terms(group):
            update_with_grad_terms(group, st, self._l2_in_grad(group), self._update_group)
            return
        if group.get("l1_decay"):
            _add_l1_decay(group)
        self._update_group(group, st)

    def _l2_in_grad(self, group: dict[str, Any]) -> bool:
        """Whether the group's ``weight_decay`` is an L2 term added to the gradient (a
        regularizer, which a parameter's own one replaces) rather than a decoupled decay
        of the weights (``AdamW``'s, which stays)."""
        decoupled = group.get("decoupled_weight_decay", getattr(self, "_decoupled", False))
        return "weight_decay" in group and not decoupled

    def _clip_gradients(self) -> None:
        """Applies ``grad_clip`` to the gradients of all parameters (all groups together,
        as Paddle does), writing the clipped gradients back."""
        pairs = [(p, p.grad) for g in self.param_groups for p in g["params"] if p.grad is not None]
        clipped = self._grad_clip(pairs)  # type: ignore[misc]
        for (p, old), (_, new) in zip(pairs, clipped):
            if new is not old:
                p.grad = new

    minimize_step = step

    def _update_group(self, group: dict[str, Any], state: Any) -> None:
        raise NotImplementedError

    def _static_rule(self, group: dict[str, Any]) -> tuple[str, dict[str, Any], tuple[str, ...]]:
        """The update rule a static program runs for this optimizer (``minimize`` with a
        static loss): the Rust rule's name, its hyper-parameters read from the group
        settings ``group``, and the names of the per-parameter state buffers. Optimizers
        that support static mode override it."""
        raise NotImplementedError(
            f"{type(self).__name__}.minimize is not supported in static mode; use SGD, "
            "Momentum, Adam or AdamW"
        )

    def minimize(
        self,
        loss: Tensor,
        startup_program: Any = None,
        parameters: Any = None,
        no_grad_set: Any = None,
    ) -> tuple[list[Any], list[Any]]:
        """Paddle's ``minimize``. Eager (dygraph), as in Paddle, it applies the gradients
        already accumulated (by ``loss.backward()``, which you call first) and returns
        ``([], params_grads)``: the ``(parameter, gradient)`` pairs it applied, for the
        parameters that have a gradient and do not stop it; ``parameters`` (optional)
        narrows which parameters count. It does not run backward itself, so the usual
        ``loss.backward(); opt.minimize(loss)`` back-propagates once. Gradients are not
        cleared. With a static ``loss`` it appends the backward section and the update
        to its program."""
        static_variable = sys.modules.get("ferrograd.static.variable")
        if static_variable is not None and isinstance(loss, static_variable.Variable):
            from ..static.optimizer import minimize as static_minimize

            return static_minimize(self, loss, startup_program, parameters, no_grad_set)
        chosen = None if parameters is None else {id(p) for p in parameters}
        params_grads, held_back = [], []
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if (chosen is None or id(p) in chosen) and not p.stop_gradient:
                    params_grads.append((p, g))
                else:  # not applied: hidden from step() for the moment
                    held_back.append((p, g))
                    p.grad = None
        try:
            self.step()
        finally:
            for p, g in held_back:
                p.grad = g
        return [], params_grads

    # ---- learning rate (Paddle) -----------------------------------------------------

    def _sync_scheduler(self) -> None:
        lr = float(self._lr_scheduler())  # type: ignore[misc]
        for g in self.param_groups:
            g["lr"] = lr * g.get("lr_scale", 1.0)

    def get_lr(self) -> float:
        """The current learning rate (of the first group; the scheduler's, if one is
        attached)."""
        if self._lr_scheduler is not None:
            return float(self._lr_scheduler())
        return float(self.param_groups[0]["lr"])

    def set_lr(self, value: float) -> None:
        """Sets every group's learning rate. Not allowed while an ``LRScheduler`` given
        as ``learning_rate`` drives the rate."""
        if self._lr_scheduler is not None:
            raise RuntimeError(
                "set_lr: the learning rate is driven by an LRScheduler; call the "
                "scheduler's step() instead, or build the optimizer with a float rate"
            )
        lr = _coeff(value, "learning rate")
        _check_number("learning rate", lr)
        for g in self.param_groups:
            g["lr"] = lr * g.get("lr_scale", 1.0)

    @property
    def _learning_rate(self) -> Any:
        """Paddle's ``optimizer._learning_rate``, which Paddle code reads to step the
        schedule (``opt._learning_rate.step()``): the ``LRScheduler`` given as
        ``learning_rate``, else the rate as a float."""
        return self._lr_scheduler if self._lr_scheduler is not None else self.get_lr()

    def set_lr_scheduler(self, scheduler: Any) -> None:
        """Attaches a Paddle-style ``LRScheduler`` that drives the learning rate."""
        if not _is_scheduler(scheduler):
            raise TypeError(f"expected an LRScheduler, got {type(scheduler).__name__}")
        self._lr_scheduler = scheduler

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)
