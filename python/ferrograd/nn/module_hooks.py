"""Forward hooks of ``Module`` with PyTorch's options (also Paddle's, whose
``register_forward_pre_hook`` / ``register_forward_post_hook`` take the same keywords):

- ``prepend=True`` runs the hook before those already registered;
- ``with_kwargs=True`` passes the keyword arguments too: a pre-hook is called as
  ``hook(module, args, kwargs)`` and may return ``(new_args, new_kwargs)``; a post-hook as
  ``hook(module, args, kwargs, output)``;
- ``always_call=True`` (post-hooks) runs the hook even when a pre-hook, ``forward`` or
  another post-hook raised; the original exception is then raised again.

``Module.__call__`` calls :func:`call_with_hooks` only when a hook is registered.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any, Callable

from .._dialect import caller_dialect
from . import module_backward_hooks as _bw
from .modules import module as _global


class HookHandle:
    """Removes a hook from its module when ``remove()`` is called."""

    _next_id = 0

    def __init__(self, hooks: dict, *extra: Any) -> None:
        self._hooks = hooks
        self._extra = extra  # the option sets that may also hold this hook's id
        self.id = HookHandle._next_id
        HookHandle._next_id += 1

    def remove(self) -> None:
        """Unregisters the hook (a second call does nothing)."""
        self._hooks.pop(self.id, None)
        for where in self._extra:
            if isinstance(where, set):
                where.discard(self.id)
            else:
                where.pop(self.id, None)

    def hooks_dict_ref(self) -> dict:
        """The registry this hook is (or was) in: PyTorch's ``RemovableHandle`` keeps a
        weak reference to it under this name, called to get the dict."""
        return self._hooks

    def __enter__(self) -> HookHandle:
        """``with module.register_..._hook(fn):`` keeps the hook for the block."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Removes the hook on leaving the ``with`` block (PyTorch's handles do)."""
        self.remove()


def _side(module: Any, name: str, factory: Callable) -> Any:
    """The module's option container ``name`` (made on first use)."""
    d = module.__dict__
    if name not in d:
        d[name] = factory()
    return d[name]


def _mark_backward_hooks(module: Any, args: tuple) -> None:
    """The no-op forward pre-hook of a module with backward hooks (see
    :func:`register_backward`)."""
    return None


def register_backward(module: Any, hook: Callable, pre: bool, prepend: bool) -> HookHandle:
    """Adds a full backward hook (``pre``: a backward pre-hook); see
    ``module_backward_hooks.py``."""
    if not callable(hook):
        raise TypeError(f"a backward hook must be callable, got {type(hook).__name__}")
    name = "_full_backward_pre_hooks" if pre else "_full_backward_hooks"
    hooks = _side(module, name, OrderedDict)
    # a module call takes the hooked path only when its forward-hook dicts are not empty:
    # a no-op pre-hook puts it there, so the unhooked call costs no extra check
    if "_backward_hook_marker" not in module.__dict__:
        module.__dict__["_backward_hook_marker"] = register(
            module, _mark_backward_hooks, True, False, False
        )
    # a full hook registered by Paddle code gets Paddle's grad_input (only the arguments
    # that require grad; see module_backward_hooks.py), decided once, here
    paddle_hooks = _side(module, "_full_backward_hooks_paddle", set)
    handle = HookHandle(hooks, paddle_hooks)
    hooks[handle.id] = hook
    if not pre and caller_dialect(2, through_layers=True) == "paddle":
        paddle_hooks.add(handle.id)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register(
    module: Any,
    hook: Callable,
    pre: bool,
    prepend: bool,
    with_kwargs: bool,
    always_call: bool = False,
) -> HookHandle:
    """Adds ``hook`` to the module's pre- or post-hooks with the given options."""
    if not callable(hook):
        raise TypeError(f"a forward hook must be callable, got {type(hook).__name__}")
    hooks: OrderedDict = module._forward_pre_hooks if pre else module._forward_hooks
    kw_name = "_forward_pre_hooks_with_kwargs" if pre else "_forward_hooks_with_kwargs"
    kw = _side(module, kw_name, set)
    always = _side(module, "_forward_hooks_always_called", OrderedDict)
    handle = HookHandle(hooks, kw, always)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    if with_kwargs:
        kw.add(handle.id)
    if always_call:
        always[handle.id] = True
    return handle


def _post_hooks(module: Any) -> list:
    """(id, hook) of the forward hooks: the global ones first (PyTorch's order)."""
    return list(_global._global_forward_hooks.items()) + list(module._forward_hooks.items())


def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    """``module(*args, **kwargs)`` with its forward pre- and post-hooks (the global ones
    of ``nn.modules.module`` first)."""
    d = module.__dict__
    pre_kw = d.get("_forward_pre_hooks_with_kwargs", ())
    post_kw = set(d.get("_forward_hooks_with_kwargs", ()))
    post_kw.update(_global._global_forward_hooks_with_kwargs)
    always = dict(d.get("_forward_hooks_always_called", {}))
    always.update(_global._global_forward_hooks_always_called)
    ran: set = set()
    try:
        for hook in list(_global._global_forward_pre_hooks.values()):
            changed = hook(module, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        for hid, hook in list(module._forward_pre_hooks.items()):
            if hid in pre_kw:
                changed = hook(module, args, kwargs)
                if changed is not None:
                    if not (isinstance(changed, tuple) and len(changed) == 2):
                        raise RuntimeError(
                            "a forward pre-hook registered with with_kwargs=True must return "
                            f"None or a tuple (new_args, new_kwargs), got {changed!r}"
                        )
                    args, kwargs = changed
                    args = args if isinstance(args, tuple) else (args,)
            else:
                changed = hook(module, args)
                if changed is not None:
                    args = changed if isinstance(changed, tuple) else (changed,)
        bw_state = None
        if _bw.has_backward_hooks(module):
            args, bw_state = _bw.wrap_inputs(module, args)
        out = module.forward(*args, **kwargs)
        for hid, hook in _post_hooks(module):
            ran.add(hid)
            if hid in post_kw:
                changed = hook(module, args, kwargs, out)
            else:
                changed = hook(module, args, out)
            if changed is not None:
                out = changed
        if bw_state is not None:
            # after the forward hooks, as PyTorch: grad_output is the gradient of the
            # module's final output, a hook's replacement included
            out = _bw.wrap_outputs(bw_state, out)
        return out
    except Exception:
        # hooks registered with always_call=True still run (once); an error of their own
        # is only warned about: the first exception is the one raised
        for hid, hook in _post_hooks(module):
            if hid in always and hid not in ran:
                try:
                    if hid in post_kw:
                        hook(module, args, kwargs, None)
                    else:
                        hook(module, args, None)
                except Exception as e:
                    warnings.warn(
                        f"a forward hook with always_call=True raised {e!r}, silenced because "
                        "the module call had already failed",
                        stacklevel=2,
                    )
        raise
