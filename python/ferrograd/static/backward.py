"""``gradients`` and ``append_backward``: add ``<var>@GRAD`` variables and a backward
section to a program. When the program runs, the executor records the forward part with
the autograd engine (only where a requested gradient needs it) and runs the engine's
backward; gradients through ``py_func`` call its ``backward_func``.

Gradients do not flow through variables whose ``stop_gradient`` was set True (Paddle adds
them to the no-grad set), nor through those of ``no_grad_set``. The backward section is
not itself differentiable (the engine's backward runs outside the recorded forward), so a
target computed from a gradient variable is refused rather than differentiated with the
gradient held constant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .variable import Variable

if TYPE_CHECKING:
    from .program import Block


def _as_list(x: Any, what: str) -> list[Variable]:
    items = list(x) if isinstance(x, (list, tuple)) else [x]
    for v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"gradients: {what} must be static Variables, got {type(v).__name__}")
    return items


def _reached(block: Block, start: Sequence[int], blocked: set[int]) -> set[int]:
    """Ids of the variables ``start`` is computed from (itself included), not going
    through ``blocked``."""
    seen: set[int] = set()
    stack = [i for i in start if i not in blocked]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        v = block._vars.get(i)
        if v is not None:
            stack.extend(j for j in v._inputs if j not in blocked and j not in seen)
    return seen


def _refuse_second_order(
    block: Block, ts: list[Variable], wanted: list[Variable], blocked: set[int]
) -> None:
    """Raises NotImplementedError when a target is computed from a gradient variable that
    itself depends on one of the inputs: the engine's backward would hold that gradient
    constant (a wrong number, or no gradient at all) instead of differentiating it."""
    wanted_ids = {x.id for x in wanted}
    for i in sorted(_reached(block, [t.id for t in ts], blocked)):
        g = block._vars.get(i)
        if g is None or g.kind != "grad":
            continue
        hit = _reached(block, [g.id], blocked) & wanted_ids
        if hit:
            x = block._vars[min(hit)]
            raise NotImplementedError(
                f"gradients: the target depends on the gradient variable '{g.name}', which "
                f"depends on '{x.name}'; second-order gradients in static programs are not "
                "supported; compute them eagerly (paddle.grad with create_graph=True), or set "
                f"{g.name}.stop_gradient = True to use the gradient as a constant"
            )


def gradients(
    targets: Any, inputs: Any, target_gradients: Any = None, no_grad_set: Any = None
) -> list[Variable | None]:
    """Gradient variables of ``sum(targets)`` (weighted by ``target_gradients``) with
    respect to each of ``inputs``; ``None`` for an input no gradient can reach (through
    ops without a gradient, or a ``py_func`` without ``backward_func``). Gradients do not
    flow through the variables (or names) in ``no_grad_set``, nor through variables whose
    ``stop_gradient`` was set True (as in Paddle; a ``data`` variable's default True does
    not block it). A target computed from a gradient variable that depends on an input
    (a second-order gradient) raises NotImplementedError."""
    ts = _as_list(targets, "targets")
    xs = _as_list(inputs, "inputs")
    gs = [] if target_gradients is None else _as_list(target_gradients, "target_gradients")
    block = ts[0].block
    for v in ts + xs + gs:
        if v.block is not block:
            raise ValueError(f"gradients: variable '{v.name}' belongs to another program")
    blocked = [v if isinstance(v, Variable) else block.var(v) for v in (no_grad_set or ())]
    blocked_ids = {v.id for v in blocked}
    blocked_ids.update(i for i, v in block._vars.items() if v._stop_gradient_set is True)
    wanted = [x for x in xs if x.id not in blocked_ids]
    _refuse_second_order(block, ts, wanted, blocked_ids)
    ids = block.program._core.append_gradients(
        [t.id for t in ts], [x.id for x in wanted], [g.id for g in gs], sorted(blocked_ids)
    )
    # (a gradient depends on the targets, the inputs and the weights of its section)
    deps = [*ts, *wanted, *gs]
    grads = [block._derived(block._wrap(g), deps) if g is not None else None for g in ids]
    for g in grads:
        if g is not None:
            g._stop_gradient_default = False  # (Paddle's gradient variables: False)
    by_input = {id(x): g for x, g in zip(wanted, grads)}
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
        # and, as in Paddle, every other variable set ``stop_gradient = False`` by hand
        # (a leaf made with paddle.zeros / static.data): its ``<name>@GRAD`` is computed
        # too, though only the parameters' pairs are returned
        extra = [
            v
            for v in block._vars.values()
            if v._stop_gradient_set is False and v.kind != "parameter" and v.kind != "grad"
        ]
    else:
        params = [p if isinstance(p, Variable) else block.var(p) for p in parameter_list]
        extra = []
    if not params and not extra:
        return []
    grads = gradients([loss], params + extra, no_grad_set=no_grad_set)
    return [(p, g) for p, g in zip(params, grads) if g is not None]


__all__ = ["append_backward", "gradients"]
