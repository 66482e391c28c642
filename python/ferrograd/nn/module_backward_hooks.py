"""Module backward hooks, PyTorch's (and Paddle's) ``register_full_backward_pre_hook``
and ``register_full_backward_hook``:

- ``hook(module, grad_output)`` runs when the gradients of the module's outputs are
  known; a non-None result (a tuple like ``grad_output``) replaces them;
- ``hook(module, grad_input, grad_output)`` runs when the gradients of the module's
  positional tensor arguments are known; a non-None result replaces them.

Entries are None for outputs without a gradient and for arguments that are not tensors or
do not require grad. A full hook registered by Paddle code gets Paddle's ``grad_input``
instead: only the arguments that require grad, so an empty tuple when none does. When no
argument requires grad, the full hooks run right after the pre-hooks, with ``grad_input``
all None (PyTorch warns about it, and so does ferrograd). As in PyTorch, the full hooks
run only in a pass that went through the module's outputs: a double backward that reaches
the arguments from the gradient of a first pass calls none.

The module call routes its tensor arguments and its tensor outputs (a tensor, or the
tensors of a tuple/list; the final outputs, after the forward hooks, as PyTorch) through
two identity functions whose backward runs the hooks.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import _core
from ..autograd.py_layer import Function
from .modules import module as _global

Tensor = _core.Tensor


class _State:
    """What the two identity functions of one module call share."""

    def __init__(self, module: Any, n_args: int, arg_slots: list) -> None:
        self.module = module
        self.n_args = n_args  # positional arguments
        self.arg_slots = arg_slots  # positions of the arguments that require grad
        self.grad_output: Any = None
        self.outputs_wrapped = False  # an output identity records this call's outputs
        # the outputs: how many (a tuple's length; 1 for a tensor) and the positions of
        # those routed through the output identity; grad_output has one entry per output,
        # None for one that is not a tensor or needs no gradient (PyTorch's packing)
        self.n_outputs = 1
        self.out_slots: list = [0]


def _full_hooks(module: Any) -> list:
    """(id, hook) of the full backward hooks: the global ones of ``nn.modules.module``
    first, then the module's own (PyTorch's order)."""
    own = module.__dict__.get("_full_backward_hooks", {})
    return list(_global._global_backward_hooks.items()) + list(own.items())


def _pre_hooks(module: Any) -> list:
    """The backward pre-hooks: the global ones first, then the module's own."""
    own = module.__dict__.get("_full_backward_pre_hooks", {})
    return list(_global._global_backward_pre_hooks.values()) + list(own.values())


def _call_full_hooks(state: _State, grad_input: tuple, no_input_grad: bool = False) -> tuple:
    d = state.module.__dict__
    paddle_ids = d.get("_full_backward_hooks_paddle", ())
    for hook_id, hook in _full_hooks(state.module):
        if hook_id in paddle_ids:
            # Paddle's form: only the arguments that require grad (none: an empty tuple)
            given = tuple(grad_input[i] for i in state.arg_slots)
        else:
            given = grad_input
        changed = hook(state.module, given, state.grad_output)
        if changed is not None and no_input_grad and hook_id not in paddle_ids:
            # nothing could receive a gradient (PyTorch's check and words,
            # torch/utils/hooks.py, BackwardHook)
            if not (isinstance(changed, tuple) and all(g is None for g in changed)):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient should "
                    "always return None or None for all gradients. (a full backward hook "
                    f"returned {type(changed).__name__})"
                )
            changed = None
        if changed is not None:
            changed = tuple(changed) if isinstance(changed, (tuple, list)) else (changed,)
            if len(changed) != len(given):
                # PyTorch's words, then ferrograd's
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(changed)}, but expected {len(given)} (a full backward hook "
                    f"returned {len(changed)} gradients for {len(given)} inputs)"
                )
            if given is not grad_input:
                new = list(grad_input)
                for i, g in zip(state.arg_slots, changed):
                    new[i] = g
                changed = tuple(new)
            grad_input = changed
    return grad_input


class _OutputsIdentity(Function):
    """Identity on the module's outputs; its backward runs the pre-hooks (and the full
    hooks when no argument requires grad)."""

    @staticmethod
    def forward(ctx: Any, state: _State, *outputs: Tensor) -> Any:
        ctx.state = state
        ctx.set_materialize_grads(False)
        outs = tuple(t.detach() for t in outputs)
        return outs if len(outs) > 1 else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        state: _State = ctx.state
        module = state.module
        # one entry per output (None where it is not a tensor or needs no gradient)
        packed: list = [None] * state.n_outputs
        for slot, g in zip(state.out_slots, grads):
            packed[slot] = g
        grad_output = tuple(packed)
        for hook in _pre_hooks(module):
            changed = hook(module, grad_output)
            if changed is not None:
                changed = tuple(changed) if isinstance(changed, (tuple, list)) else (changed,)
                if len(changed) != len(grad_output):
                    # PyTorch's words (torch/utils/hooks.py), then ferrograd's
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(changed)}, but expected {len(grad_output)} (a backward "
                        f"pre-hook returned {len(changed)} gradients for "
                        f"{len(grad_output)} outputs)"
                    )
                grad_output = changed
        state.grad_output = grad_output
        if not state.arg_slots and _full_hooks(module):
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to "
                "module outputs since no inputs require gradients",
                stacklevel=2,
            )
            _call_full_hooks(state, (None,) * state.n_args, no_input_grad=True)
        if not state.arg_slots:
            # no input identity will read it; kept, a create_graph pass's gradient (and
            # its graph, which holds this node) would outlive the pass
            state.grad_output = None
        return (None, *(grad_output[slot] for slot in state.out_slots))


class _InputsIdentity(Function):
    """Identity on the module's arguments that require grad; its backward runs the full
    hooks with the gradients of all positional arguments."""

    @staticmethod
    def forward(ctx: Any, state: _State, *inputs: Tensor) -> Any:
        ctx.state = state
        ctx.set_materialize_grads(False)
        ins = tuple(t.detach() for t in inputs)
        return ins if len(ins) > 1 else ins[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        state: _State = ctx.state
        if state.outputs_wrapped and state.grad_output is None:
            # the gradient reached the module's arguments without passing its outputs
            # in this pass (double backward through the gradient of a first pass):
            # there is no grad_output to give the hooks, and PyTorch runs none
            return (None, *grads)
        grad_input: list = [None] * state.n_args
        for slot, g in zip(state.arg_slots, grads):
            grad_input[slot] = g
        new = _call_full_hooks(state, tuple(grad_input))
        state.grad_output = None
        return (None, *(new[slot] for slot in state.arg_slots))


def has_backward_hooks(module: Any) -> bool:
    """True when the module has a full backward hook or pre-hook."""
    d = module.__dict__
    if _global._global_backward_hooks or _global._global_backward_pre_hooks:
        return True
    return bool(d.get("_full_backward_hooks")) or bool(d.get("_full_backward_pre_hooks"))


def wrap_inputs(module: Any, args: tuple) -> tuple[tuple, _State]:
    """The arguments to call ``forward`` with (those that require grad routed through the
    input identity) and the call's shared state."""
    slots = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    state = _State(module, len(args), slots)
    if not slots or not _core.is_grad_enabled():
        state.arg_slots = [] if not _core.is_grad_enabled() else slots
        return args, state
    wrapped = _InputsIdentity.apply(state, *(args[i] for i in slots))
    wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
    new = list(args)
    for i, t in zip(slots, wrapped):
        new[i] = t
    return tuple(new), state


def wrap_outputs(state: _State, out: Any) -> Any:
    """The module's result with its tensors routed through the output identity."""
    if not isinstance(out, (Tensor, tuple, list)):
        # PyTorch's warning (torch/nn/modules/module.py, _call_impl): no hook can run
        warnings.warn(
            "For backward hooks to be called, module output should be a Tensor or a tuple "
            f"of Tensors but received {type(out)}",
            stacklevel=3,
        )
        return out
    if not _core.is_grad_enabled():
        return out
    if isinstance(out, Tensor):
        if not out.requires_grad:
            return out
        state.outputs_wrapped = True
        return _OutputsIdentity.apply(state, out)
    if isinstance(out, (tuple, list)):
        slots = [i for i, o in enumerate(out) if isinstance(o, Tensor) and o.requires_grad]
        if not slots:
            return out
        state.outputs_wrapped = True
        state.n_outputs, state.out_slots = len(out), slots
        wrapped = _OutputsIdentity.apply(state, *(out[i] for i in slots))
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        new = list(out)
        for i, t in zip(slots, wrapped):
            new[i] = t
        if isinstance(out, list):
            return type(out)(new)
        return type(out)(*new) if hasattr(out, "_fields") else tuple(new)
    return out
