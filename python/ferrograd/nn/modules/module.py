"""``torch.nn.modules.module``: PyTorch's global module hooks (hooks that run for every
module), and ``Module`` under its PyTorch home.

- ``register_module_forward_pre_hook(hook)``: ``hook(module, args)`` before every
  module's ``forward``, before the module's own pre-hooks; a non-None result replaces
  ``args``;
- ``register_module_forward_hook(hook, *, with_kwargs=False, always_call=False)``:
  ``hook(module, args, output)`` after every ``forward``, before the module's own hooks;
  a non-None result replaces ``output``;
- ``register_module_full_backward_pre_hook(hook)`` / ``register_module_full_backward_hook``
  (and ``register_module_backward_hook``, PyTorch's older global backward hook, which
  ferrograd runs as a full one, as it does ``Module.register_backward_hook``): as the
  module's own backward hooks, run before them;
- ``register_module_buffer_registration_hook(hook)`` /
  ``register_module_module_registration_hook`` /
  ``register_module_parameter_registration_hook``: ``hook(module, name, value)`` when a
  buffer, child module or parameter is registered on any module; a non-None result is
  registered instead.

Each returns a handle with ``remove()`` (also a context manager). The registries are
this module's attributes, looked up at each call, so code that resets them (PyTorch's
tests assign ``nn.modules.module._global_forward_hooks = OrderedDict()``) clears them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from ..module_hooks import HookHandle

__all__ = [
    "Module",  # noqa: F822  (given by __getattr__, late: an import cycle)
    "register_module_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook: Any = None  # None until a global backward hook is added
_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
# set once a global forward or backward hook is registered: until then a module call
# needs no look at the registries (its fast path checks this one flag)
active = False


def _add(registry: str, hook: Callable, what: str, *extra: str) -> HookHandle:
    from ..module_hooks import HookHandle  # (module_hooks imports this module)

    if not callable(hook):
        raise TypeError(f"{what}: the hook must be callable, got {type(hook).__name__}")
    global active
    if "registration" not in registry:
        active = True
    hooks = globals()[registry]
    handle = HookHandle(hooks, *(globals()[e] for e in extra))
    hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable) -> HookHandle:
    """``hook(module, args)`` runs before every module's ``forward`` (before its own
    pre-hooks); a non-None result replaces ``args``."""
    return _add("_global_forward_pre_hooks", hook, "register_module_forward_pre_hook")


def register_module_forward_hook(
    hook: Callable, *, with_kwargs: bool = False, always_call: bool = False
) -> HookHandle:
    """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
    output)``) runs after every module's ``forward``, before its own hooks; a non-None
    result replaces the output. ``always_call``: also when the call raised."""
    handle = _add(
        "_global_forward_hooks",
        hook,
        "register_module_forward_hook",
        "_global_forward_hooks_with_kwargs",
        "_global_forward_hooks_always_called",
    )
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _set_backward_kind(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        # PyTorch's rule and words (torch/nn/modules/module.py)
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global "
            "Module hook. Please use only one of them."
        )
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook: Callable) -> HookHandle:
    """PyTorch's older global backward hook ``hook(module, grad_input, grad_output)``;
    ferrograd runs it as a full backward hook (as ``Module.register_backward_hook``).
    Not to be mixed with ``register_module_full_backward_hook``."""
    _set_backward_kind(False)
    return _add("_global_backward_hooks", hook, "register_module_backward_hook")


def register_module_full_backward_pre_hook(hook: Callable) -> HookHandle:
    """``hook(module, grad_output)`` runs for every module when its outputs' gradients
    are known, before its own backward pre-hooks."""
    return _add("_global_backward_pre_hooks", hook, "register_module_full_backward_pre_hook")


def register_module_full_backward_hook(hook: Callable) -> HookHandle:
    """``hook(module, grad_input, grad_output)`` runs for every module when the
    gradients of its inputs are known, before its own full backward hooks."""
    _set_backward_kind(True)
    return _add("_global_backward_hooks", hook, "register_module_full_backward_hook")


def register_module_buffer_registration_hook(hook: Callable) -> HookHandle:
    """``hook(module, name, buffer)`` runs when any module registers a buffer; a
    non-None result is registered instead."""
    return _add(
        "_global_buffer_registration_hooks", hook, "register_module_buffer_registration_hook"
    )


def register_module_module_registration_hook(hook: Callable) -> HookHandle:
    """``hook(module, name, submodule)`` runs when any module registers a child; a
    non-None result is registered instead."""
    return _add(
        "_global_module_registration_hooks", hook, "register_module_module_registration_hook"
    )


def register_module_parameter_registration_hook(hook: Callable) -> HookHandle:
    """``hook(module, name, param)`` runs when any module registers a parameter; a
    non-None result is registered instead."""
    return _add(
        "_global_parameter_registration_hooks",
        hook,
        "register_module_parameter_registration_hook",
    )


def has_forward_hooks() -> bool:
    """True when a global hook makes module calls take the hooked path."""
    return bool(
        _global_forward_pre_hooks
        or _global_forward_hooks
        or _global_backward_hooks
        or _global_backward_pre_hooks
    )


_REGISTRATION = {
    "_parameters": "_global_parameter_registration_hooks",
    "_buffers": "_global_buffer_registration_hooks",
    "_modules": "_global_module_registration_hooks",
}


def run_registration_hooks(registry: str, module: Any, name: str, value: Any) -> Any:
    """``value`` after the global registration hooks of ``registry``'s kind."""
    for hook in list(globals()[_REGISTRATION[registry]].values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def __getattr__(name: str) -> Any:
    """``Module`` (defined in ``ferrograd.nn``; looked up late to avoid an import
    cycle)."""
    if name == "Module":
        from ..module import Module

        return Module
    raise AttributeError(f"module 'ferrograd.nn.modules.module' has no attribute {name!r}")
