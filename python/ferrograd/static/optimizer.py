"""``optimizer.minimize(loss)`` in static mode (Paddle's usual static training).

Appends the backward section for the trainable parameters and one optimizer-update op
to the loss's program. The update runs the eager optimizer's Rust kernels, so a static
step equals an eager step. Its state — moments, per-parameter step counts and the
learning rate — lives in persistable variables, initialised (to zeros / the rate) by
the startup program and kept in the scope between runs. An ``LRScheduler`` is read each
time the program runs (call ``scheduler.step()`` between runs, as in Paddle). Parameter
groups get one update op each, with their own hyper-parameters and learning rate.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

from .. import _core
from ..regularizer import L1Decay
from . import program as _program
from .backward import append_backward
from .variable import Variable

_counter = itertools.count()

# program -> [(learning-rate variable name, scheduler, group's scale of its rate)], read
# by Executor.run
_schedulers: weakref.WeakKeyDictionary[Any, list[tuple[str, Any, float]]] = (
    weakref.WeakKeyDictionary()
)
#: whether any program is driven by a scheduler (lets Executor.run skip the lookup)
scheduled = False


def _state_var(
    main: _program.Program,
    startup: _program.Program,
    name: str,
    dtype: Any,
    shape: list[int],
    value: float,
    optimizer_state: bool = False,
) -> Variable:
    """A persistable, non-trainable variable in ``main``, initialised to ``value`` by
    ``startup``. ``optimizer_state``: the optimizer's learning rate, step count or moment
    (a persistable variable, not a Parameter: ``all_parameters()`` leaves it out, and
    ``state_dict(mode="opt")`` / ``static.save``'s ``.pdopt`` hold it); otherwise a
    layer's statistic (a non-trainable Parameter, as batch norm's moving mean in Paddle)."""
    if optimizer_state:  # (before wrapping: the Variable reads its kind from these names)
        main._optimizer_vars.add(name)
        startup._optimizer_vars.add(name)
    var = main.current_block()._wrap(main._core.create_var(name, dtype, shape, "parameter"))
    var.trainable = False
    var._stop_gradient_default = True
    sid = startup._core.create_var(name, dtype, shape, "parameter")
    startup._core.append_init(sid, "constant", float(value), 0.0, None)
    twin = startup.current_block()._wrap(sid)
    twin.trainable = False
    twin._stop_gradient_default = True
    return var


def _resolve(loss: Variable, chosen: Any) -> list[Variable]:
    """``chosen`` (Variables or names) as variables of the loss's block."""
    block = loss.block
    out = []
    for p in chosen:
        v = p if isinstance(p, Variable) else block.var(p)
        if v.block is not block:
            v = block.var(v.name)
        out.append(v)
    return out


def _groups(
    opt: Any, loss: Variable, parameters: Any
) -> list[tuple[dict[str, Any], list[Variable] | None]]:
    """(settings, parameters) per group: ``parameters`` of ``minimize`` or those given to
    the optimizer (a list, or Paddle/torch-style groups), None meaning every trainable
    parameter of the program."""
    chosen = parameters if parameters is not None else getattr(opt, "_static_params", None)
    if not chosen:
        return [(dict(opt.defaults), None)]
    if not isinstance(chosen[0], dict):
        return [(dict(opt.defaults), _resolve(loss, chosen))]
    groups = [(g, _resolve(loss, g["params"])) for g in chosen]
    seen: set[str] = set()
    for _, params in groups:
        for v in params:
            if v.name in seen:
                raise ValueError(f"parameter {v.name!r} appears in more than one parameter group")
            seen.add(v.name)
    return [(g, params) for g, params in groups]  # (a new list: the return type is wider)


def minimize(
    opt: Any,
    loss: Variable,
    startup_program: Any = None,
    parameters: Any = None,
    no_grad_set: Any = None,
) -> tuple[list[Any], list[tuple[Variable, Variable]]]:
    """Appends the gradients of ``loss`` and ``opt``'s update of the parameters
    (``parameters``, those given to the optimizer — each parameter group with its own
    hyper-parameters and learning-rate scale —, or all trainable parameters of the
    program) to the loss's program; returns ``([], [(param, grad), ...])``."""
    global scheduled
    main = loss.block.program
    startup = startup_program if startup_program is not None else _program.default_startup_program()
    if getattr(opt, "_grad_clip", None) is not None:
        raise NotImplementedError(
            "grad_clip is not supported in static mode yet; build the optimizer without it"
        )
    groups = _groups(opt, loss, parameters)
    if any(isinstance(s.get("weight_decay"), L1Decay) or s.get("l1_decay") for s, _ in groups):
        raise NotImplementedError(
            "L1Decay is not supported in static mode yet; use L2Decay or a number as "
            "weight_decay, or train eagerly"
        )
    # every group's rule first: an unsupported optimizer fails before the program changes.
    # Each optimizer class declares its own static rule (``Optimizer._static_rule``).
    rules = [opt._static_rule(settings) for settings, _ in groups]
    wanted = None if groups[0][1] is None else [v for _, ps in groups for v in ps or []]
    pairs = append_backward(loss, wanted, no_grad_set)
    if not pairs:
        raise ValueError(
            "minimize: no trainable parameter receives a gradient from the loss; create "
            "parameters with static.create_parameter or nn layers built in static mode"
        )
    k = next(_counter)
    scheduler = getattr(opt, "_lr_scheduler", None)
    for gi, ((settings, params), (rule, hyper, buffer_names)) in enumerate(zip(groups, rules)):
        names = None if params is None else {v.name for v in params}
        group_pairs = [(p, g) for p, g in pairs if names is None or p.name in names]
        if not group_pairs:
            continue
        scale = float(settings.get("lr_scale", 1.0))
        lr0 = float(scheduler()) * scale if scheduler is not None else float(settings["lr"])
        lr_name = f"learning_rate_{k}" if gi == 0 else f"learning_rate_{k}_{gi}"
        lr = _state_var(main, startup, lr_name, "float64", [], lr0, True)
        steps, buffers = [], []
        for p, _ in group_pairs:
            steps.append(_state_var(main, startup, f"{p.name}_step_{k}", "int64", [], 0.0, True))
            for b in buffer_names:
                buffers.append(
                    _state_var(
                        main, startup, f"{p.name}_{b}_{k}", p._dtype_name, p.shape, 0.0, True
                    )
                )
        main._core.append_optimizer_step(
            rule,
            [p.id for p, _ in group_pairs],
            [g.id for _, g in group_pairs],
            [s.id for s in steps],
            [b.id for b in buffers],
            lr.id,
            **hyper,
        )
        if scheduler is not None:
            scheduled = True
            _schedulers.setdefault(main, []).append((lr.name, scheduler, scale))
    return [], pairs


def sync_learning_rates(program: Any, scope: Any) -> None:
    """Writes the current rate of each scheduler driving ``program`` into ``scope``
    (called by ``Executor.run``)."""
    entries = _schedulers.get(program)
    if not entries:
        return
    for name, scheduler, scale in entries:
        scope.set(name, _core.to_tensor(float(scheduler()) * scale, dtype="float64"))


__all__ = ["minimize", "sync_learning_rates"]
