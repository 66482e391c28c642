"""Module backward hooks: PyTorch's ``register_full_backward_hook`` and
``register_full_backward_pre_hook``.

A call of a module with such hooks passes its tensor inputs (those that require grad)
through one identity ``Function`` and its tensor outputs through another. In backward
the output node sees the gradients of the outputs (``grad_output``; pre-hooks may replace
them), the input node then sees the gradients of the inputs (``grad_input``) and calls
``hook(module, grad_input, grad_output)`` once, with all of them; a non-None result
replaces ``grad_input``. This is PyTorch's design (``torch.utils.hooks.BackwardHook``): an
identity node on each side keeps the gradients of *this call* apart from other uses of
the same tensors.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _core
from ..autograd.function import Function
from ..grad_mode import is_grad_enabled

__all__ = ["call_with_backward_hooks"]

Tensor = _core.Tensor


class _CallState:
    """What the two identity nodes of one module call share."""

    def __init__(self, module: Any, positions: list[int], n_tensor_args: int) -> None:
        self.module = module
        self.positions = positions  # indices (among the tensor args) that require grad
        self.n_tensor_args = n_tensor_args
        self.grad_outputs: tuple[Any, ...] | None = None


def _as_tuple(v: Any, what: str, n: int) -> tuple[Any, ...]:
    t = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if len(t) != n:
        raise ValueError(f"a backward hook returned {len(t)} {what}, expected {n}")
    return t


class _OutputIdentity(Function):
    @staticmethod
    def forward(ctx: Any, state: _CallState, *outs: Tensor) -> Any:
        ctx.state = state
        ctx.set_materialize_grads(False)
        res = tuple(o.detach() for o in outs)
        return res if len(res) > 1 else res[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        st: _CallState = ctx.state
        m = st.module
        for hook in list(m.__dict__.get("_backward_pre_hooks", {}).values()):
            r = hook(m, grads)
            if r is not None:
                grads = _as_tuple(r, "grad_output values", len(grads))
        st.grad_outputs = grads
        if not st.positions:  # no input needs a gradient: the hooks run here
            none_in = (None,) * st.n_tensor_args
            for hook in list(m.__dict__.get("_backward_hooks", {}).values()):
                hook(m, none_in, grads)
        return (None, *grads)


class _InputIdentity(Function):
    @staticmethod
    def forward(ctx: Any, state: _CallState, *ins: Tensor) -> Any:
        ctx.state = state
        ctx.set_materialize_grads(False)
        res = tuple(i.detach() for i in ins)
        return res if len(res) > 1 else res[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        st: _CallState = ctx.state
        m = st.module
        full: list[Any] = [None] * st.n_tensor_args
        for pos, g in zip(st.positions, grads):
            full[pos] = g
        grad_input = tuple(full)
        grad_output = st.grad_outputs if st.grad_outputs is not None else ()
        for hook in list(m.__dict__.get("_backward_hooks", {}).values()):
            r = hook(m, grad_input, grad_output)
            if r is not None:
                grad_input = _as_tuple(r, "grad_input values", st.n_tensor_args)
        return (None, *(grad_input[p] for p in st.positions))


def call_with_backward_hooks(module: Any, args: tuple[Any, ...], run: Callable[[tuple], Any]) -> Any:
    """Runs ``run(args)`` (the forward, with the forward hooks) so that the module's
    backward hooks see this call's gradients. Without grad mode it just runs."""
    if not is_grad_enabled():
        return run(args)
    tensor_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    positions = [k for k, i in enumerate(tensor_idx) if args[i].requires_grad]
    state = _CallState(module, positions, len(tensor_idx))
    if positions:
        wrapped = _InputIdentity.apply(state, *(args[tensor_idx[k]] for k in positions))
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        new_args = list(args)
        for k, w in zip(positions, wrapped):
            new_args[tensor_idx[k]] = w
        args = tuple(new_args)
    out = run(args)
    single = isinstance(out, Tensor)
    outs = (out,) if single else out
    if not isinstance(outs, (tuple, list)):
        return out  # not tensors: nothing to hook
    grad_idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
    if not grad_idx:
        return out
    hooked = _OutputIdentity.apply(state, *(outs[i] for i in grad_idx))
    hooked = hooked if isinstance(hooked, tuple) else (hooked,)
    new_outs = list(outs)
    for i, h in zip(grad_idx, hooked):
        new_outs[i] = h
    if single:
        return new_outs[0]
    return type(outs)(new_outs) if isinstance(outs, tuple) and type(outs) is tuple else (
        tuple(new_outs) if isinstance(outs, tuple) else new_outs
    )
