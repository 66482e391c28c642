"""``gradients`` and ``append_backward``: add ``<var>@GRAD`` variables and a backward
section to a program. When the program runs, the executor records the forward part with
the autograd engine (only where a requested gradient needs it) and runs the engine's
backward; gradients through ``py_func`` call its ``backward_func``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .variable import Variable


def _as_list(x: Any, what: str) -> list[Variable]:
    items = list(x) if isinstance(x, (list, tuple)) else [x]
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"gradients: {what} must be static Variables, got {type(v).__name__}")
    return items


def gradients(
    targets: Any, inputs: Any, target_gradients: Any = None, no_grad_set: Any = None
) -> list[Variable | None]:
    """Gradient variables of ``sum(targets)`` (weighted by ``target_gradients``) with
    respect to each of ``inputs``; ``None`` for an input no gradient can reach (through
    ops without a gradient, or a ``py_func`` without ``backward_func``). Gradients do not
    flow through the variables (or names) in ``no_grad_set``."""
    ts = _as_list(targets, "targets")
    xs = _as_list(inputs, "inputs")
    gs = [] if target_gradients is None else _as_list(target_gradients, "target_gradients")
    block = ts[0].block
    for v in ts + xs + gs:
        if v.block is not block:
            raise ValueError(f"gradients: variable '{v.name}' belongs to another program")
    blocked = [v if isinstance(v, Variable) else block.var(v) for v in (no_grad_set or ())]
    blocked_ids = {v.id for v in blocked}
    wanted = [x for x in xs if x.id not in blocked_ids]
    ids = block.program._core.append_gradients(
        [t.id for t in ts], [x.id for x in wanted], [g.id for g in gs], sorted(blocked_ids)
    )
    by_input = {id(x): (block._wrap(g) if g is not None else None) for x, g in zip(wanted, ids)}
    return [by_input.get(id(x)) for x in xs]


def append_backward(
    loss: Variable,
    parameter_list: Sequence[Any] | None = None,
    no_grad_set: Any = None,
    callbacks: Any = None,
) -> list[tuple[Variable, Variable]]:
    """Adds the gradients of ``loss`` for the trainable parameters (or
    ``parameter_list``); returns ``(parameter, gradient)`` pairs for those a gradient
    reaches."""
    if not isinstance(loss, Variable):
        raise TypeError(
            f"append_backward: loss must be a static Variable, got {type(loss).__name__}"
        )
    block = loss.block
    if parameter_list is None:
        params = [p for p in block.all_parameters() if p.trainable]
    else:
        params = [p if isinstance(p, Variable) else block.var(p) for p in parameter_list]
    if not params:
        return []
    grads = gradients([loss], params, no_grad_set=no_grad_set)
    return [(p, g) for p, g in zip(params, grads) if g is not None]


__all__ = ["append_backward", "gradients"]
