"""``ferrograd.autograd.functional``: Jacobians, Hessians and Jacobian/Hessian-vector
products of Python functions (PyTorch's ``torch.autograd.functional``), computed with
reverse-mode passes of the engine. Results are detached unless ``create_graph=True``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad


def _tuple(x: Any, what: str) -> tuple[Tensor, ...]:
    items = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor, got {type(t).__name__}")
    return items


def _prepare(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """Inputs that require grad: the same tensors when building a graph on top of them,
    fresh detached leaves otherwise (the caller's graph is left alone)."""
    out = []
    for x in inputs:
        if create_graph and x.requires_grad:
            out.append(x)
        else:
            out.append(x.detach().requires_grad_(True))
    return tuple(out)


def _finish(t: Tensor, create_graph: bool) -> Tensor:
    return t if create_graph else t.detach()


def _numel(t: Tensor) -> int:
    return int(np.prod(tuple(t.shape)))


def _one_hot(t: Tensor, index: int) -> Tensor:
    g = np.zeros(_numel(t), dtype=np.float64)
    g[index] = 1.0
    return _core.tensor(g.reshape(tuple(t.shape)), dtype=t.dtype)


def _contract(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    create_graph: bool,
) -> Sequence[Tensor | None]:
    """``d outputs / d inputs`` contracted with ``grad_outputs``, over the outputs that
    require grad (None for an input none of them reaches; all None when none does)."""
    live = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not live:
        return [None] * len(inputs)
    return _core.grad(
        [o for o, _ in live],
        list(inputs),
        [g for _, g in live],
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
    )


def _grads(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor],
    create_graph: bool,
    strict: bool,
    what: str,
) -> list[Tensor]:
    """``d outputs / d inputs`` contracted with ``grad_outputs``; zeros for inputs the
    outputs do not depend on (an error with ``strict=True``)."""
    grads = _contract(outputs, grad_outputs, inputs, create_graph)
    out = []
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"{what}: the output is independent of input {i}; this is not allowed "
                    "in strict mode"
                )
            g = _core.zeros_like(x)
        out.append(g)
    return out


def jacobian_of(
    outputs: tuple[Tensor, ...],
    inputs: tuple[Tensor, ...],
    create_graph: bool = False,
    strict: bool = False,
) -> list[list[Tensor]]:
    """``J[k][i]`` of shape ``outputs[k].shape + inputs[i].shape``, one reverse pass per
    output element."""
    table = []
    for out in outputs:
        rows: list[list[Tensor]] = [[] for _ in inputs]
        for col in range(_numel(out)):
            gs = _grads([out], inputs, [_one_hot(out, col)], create_graph, strict, "jacobian")
            for i, g in enumerate(gs):
                rows[i].append(g.reshape([-1]))
        per_input = []
        for i, x in enumerate(inputs):
            shape = list(out.shape) + list(x.shape)
            if rows[i]:
                j = _core.stack(rows[i], 0).reshape(shape)
            else:
                j = _core.zeros(shape, dtype=x.dtype)
            per_input.append(_finish(j, create_graph))
        table.append(per_input)
    return table


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: a Tensor of shape ``out.shape + in.shape``
    for one input and one output; a tuple over inputs, over outputs, or a tuple (outputs)
    of tuples (inputs) when either is a tuple."""
    del vectorize
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f"jacobian: unknown strategy {strategy!r}")
    in_tuple = isinstance(inputs, (tuple, list))
    xs = _prepare(_tuple(inputs, "inputs"), create_graph)
    with enable_grad():
        res = func(*xs)
    out_tuple = isinstance(res, (tuple, list))
    outs = _tuple(res, "outputs of func")
    table = jacobian_of(outs, xs, create_graph, strict)
    rows = [tuple(r) if in_tuple else r[0] for r in table]
    return tuple(rows) if out_tuple else rows[0]


def _scalar_output(func: Callable[..., Any], xs: tuple[Tensor, ...], what: str) -> Tensor:
    with enable_grad():
        out = func(*xs)
    if not isinstance(out, Tensor) or _numel(out) != 1:
        raise RuntimeError(
            f"{what}: the function must return a single-element Tensor, got "
            f"{'shape ' + str(list(out.shape)) if isinstance(out, Tensor) else type(out).__name__}"
        )
    return out


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar ``func``: shape ``in.shape + in.shape`` for one input, a
    tuple of tuples ``H[i][j]`` for several."""
    del vectorize, outer_jacobian_strategy
    in_tuple = isinstance(inputs, (tuple, list))
    xs = _prepare(_tuple(inputs, "inputs"), create_graph)

    def gradient(*args: Tensor) -> tuple[Tensor, ...]:
        out = _scalar_output(func, args, "hessian")
        return tuple(_grads([out], args, [_core.ones_like(out)], True, strict, "hessian"))

    with enable_grad():
        grads = gradient(*xs)
    table = jacobian_of(grads, xs, create_graph, strict)
    return tuple(tuple(r) for r in table) if in_tuple else table[0][0]


def _vectors(v: Any, like: tuple[Tensor, ...], what: str) -> tuple[Tensor, ...]:
    if v is None:
        if len(like) == 1 and _numel(like[0]) == 1:
            return (_core.ones_like(like[0]),)
        raise RuntimeError(
            f"{what}: v may be omitted only when the function has a single-element output; "
            "pass v with the shape of the output"
        )
    vs = _tuple(v, "v")
    if len(vs) != len(like):
        raise RuntimeError(f"{what}: got {len(vs)} vectors v for {len(like)} tensors")
    for i, (a, b) in enumerate(zip(vs, like)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(
                f"{what}: v[{i}] has shape {list(a.shape)}, expected {list(b.shape)}"
            )
    return vs


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product."""
    in_tuple = isinstance(inputs, (tuple, list))
    xs = _prepare(_tuple(inputs, "inputs"), create_graph)
    with enable_grad():
        res = func(*xs)
    outs = _tuple(res, "outputs of func")
    vs = _vectors(v, outs, "vjp")
    gs = [_finish(g, create_graph) for g in _grads(outs, xs, vs, create_graph, strict, "vjp")]
    outputs = tuple(_finish(o, create_graph) for o in outs)
    return (
        outputs if isinstance(res, (tuple, list)) else outputs[0],
        tuple(gs) if in_tuple else gs[0],
    )


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), J v)``: the Jacobian-vector product, as the derivative of the
    (linear) vector-Jacobian product with respect to its vector."""
    xs = _prepare(_tuple(inputs, "inputs"), create_graph)
    vs = _vectors(v, xs, "jvp")
    with enable_grad():
        res = func(*xs)
        outs = _tuple(res, "outputs of func")
        us = tuple(_core.zeros_like(o).requires_grad_(True) for o in outs)
        gs = _grads(outs, xs, us, True, strict, "jvp")
        jv = _contract(gs, vs, us, create_graph)
    result = [
        _finish(j, create_graph) if j is not None else _core.zeros_like(o) for j, o in zip(jv, outs)
    ]
    outputs = tuple(_finish(o, create_graph) for o in outs)
    tupled = isinstance(res, (tuple, list))
    return (outputs if tupled else outputs[0], tuple(result) if tupled else result[0])


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), v^T H)`` for a scalar ``func``."""
    in_tuple = isinstance(inputs, (tuple, list))
    xs = _prepare(_tuple(inputs, "inputs"), create_graph)
    vs = _vectors(v, xs, "vhp")
    out = _scalar_output(func, xs, "vhp")
    with enable_grad():
        gs = _grads([out], xs, [_core.ones_like(out)], True, strict, "vhp")
        pairs = [(g, w) for g, w in zip(gs, vs) if g.requires_grad]
        hv = _grads([g for g, _ in pairs], xs, [w for _, w in pairs], create_graph, strict, "vhp")
    hv = [_finish(h, create_graph) for h in hv]
    return _finish(out, create_graph), tuple(hv) if in_tuple else hv[0]


hvp = vhp  # the Hessian of a twice-differentiable scalar function is symmetric

__all__ = ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"]
