"""PyTorch's optimizer hooks (a base class of ``Optimizer``), and the global step hooks
``optim.optimizer.register_optimizer_step_pre_hook`` / ``_post_hook``.

As in PyTorch 2.x (each ``register_*`` returns a handle with ``.remove()``; hooks run in
registration order, ``prepend=True`` puts a state-dict hook first):

- ``register_step_pre_hook(hook)``: ``hook(optimizer, args, kwargs)`` before ``step``
  (``args`` holds the optimizer first, then ``step``'s positional arguments); a result
  ``(new_args, new_kwargs)`` replaces them, anything else but None is an error. Global
  pre-hooks run before the optimizer's own;
- ``register_step_post_hook(hook)``: ``hook(optimizer, args, kwargs)`` after ``step``
  (the optimizer's own, then the global ones);
- ``register_state_dict_pre_hook(hook)``: ``hook(optimizer)`` before ``state_dict``;
- ``register_state_dict_post_hook(hook)``: ``hook(optimizer, state_dict)``; a non-None
  result replaces the state dict returned;
- ``register_load_state_dict_pre_hook(hook)``: ``hook(optimizer, state_dict)`` on a
  shallow copy of the caller's dict; a non-None result is loaded instead;
- ``register_load_state_dict_post_hook(hook)``: ``hook(optimizer)`` after loading.

Each subclass's ``step`` / ``state_dict`` / ``load_state_dict`` (and Paddle's spellings
``minimize_step`` / ``set_state_dict``) is wrapped once when the class is defined; the
hooks fire once per outer call (a subclass calling ``super().step()`` does not fire them
again). Without hooks the wrapper costs one dictionary lookup.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, Callable

from ..nn.module_hooks import HookHandle

_global_pre: OrderedDict = OrderedDict()
_global_post: OrderedDict = OrderedDict()

#: method name -> the kind of hooks it fires
_HOOKED = {
    "step": "step",
    "minimize_step": "step",
    "state_dict": "save",
    "load_state_dict": "load",
    "set_state_dict": "load",
}


def _checked(hook: Any, what: str) -> Callable:
    if not callable(hook):
        raise TypeError(f"{what}: the hook must be callable, got {type(hook).__name__}")
    return hook


def register_optimizer_step_pre_hook(hook: Callable) -> HookHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's ``step`` (before the
    optimizer's own pre-hooks); a result ``(new_args, new_kwargs)`` replaces them."""
    handle = HookHandle(_global_pre)
    _global_pre[handle.id] = _checked(hook, "register_optimizer_step_pre_hook")
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> HookHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step`` (after the
    optimizer's own post-hooks)."""
    handle = HookHandle(_global_post)
    _global_post[handle.id] = _checked(hook, "register_optimizer_step_post_hook")
    return handle


def _own(opt: Any, name: str) -> list:
    hooks = opt.__dict__.get(name)
    return list(hooks.values()) if hooks else []


def _run_step(opt: Any, fn: Callable, args: tuple, kwargs: dict) -> Any:
    full: Any = (opt, *args)
    for hook in [*_global_pre.values(), *_own(opt, "_optimizer_step_pre_hooks")]:
        result = hook(opt, full, kwargs)
        if result is not None:
            if isinstance(result, tuple) and len(result) == 2:
                full, kwargs = result
            else:
                raise RuntimeError(
                    f"{fn} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                )
    out = fn(*full, **kwargs)
    for hook in [*_own(opt, "_optimizer_step_post_hooks"), *_global_post.values()]:
        hook(opt, full, kwargs)
    return out


def _run_save(opt: Any, fn: Callable, args: tuple, kwargs: dict) -> Any:
    for hook in _own(opt, "_optimizer_state_dict_pre_hooks"):
        hook(opt)
    state = fn(opt, *args, **kwargs)
    for hook in _own(opt, "_optimizer_state_dict_post_hooks"):
        result = hook(opt, state)
        if result is not None:
            state = result
    return state


def _run_load(opt: Any, fn: Callable, args: tuple, kwargs: dict) -> Any:
    if not args:
        return fn(opt, *args, **kwargs)  # (the missing argument's own TypeError)
    state, *rest = args
    if hasattr(state, "copy"):
        state = state.copy()  # shallow, as PyTorch: a hook may edit its copy
    for hook in _own(opt, "_optimizer_load_state_dict_pre_hooks"):
        result = hook(opt, state)
        if result is not None:
            state = result
    out = fn(opt, state, *rest, **kwargs)
    for hook in _own(opt, "_optimizer_load_state_dict_post_hooks"):
        hook(opt)
    return out


_RUN = {"step": _run_step, "save": _run_save, "load": _run_load}


def _wrap(fn: Callable, kind: str) -> Callable:
    run = _RUN[kind]

    @functools.wraps(fn)
    def hooked(self: Any, *args: Any, **kwargs: Any) -> Any:
        d = self.__dict__
        if "_fg_has_hooks" not in d and (kind != "step" or not (_global_pre or _global_post)):
            return fn(self, *args, **kwargs)
        active = d.setdefault("_fg_hooks_active", set())
        if kind in active:  # an inner call (super().step()): the outer one fires them
            return fn(self, *args, **kwargs)
        active.add(kind)
        try:
            return run(self, fn, args, kwargs)
        finally:
            active.discard(kind)

    hooked._fg_hooked = True  # type: ignore[attr-defined]
    return hooked


class OptimizerHooks:
    """Mixin of ``Optimizer``: the hook registrations (see the module docs)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, kind in _HOOKED.items():
            fn = cls.__dict__.get(name)
            if callable(fn) and not getattr(fn, "_fg_hooked", False):
                setattr(cls, name, _wrap(fn, kind))

    def _add_hook(self, name: str, hook: Any, prepend: bool, what: str) -> HookHandle:
        d = self.__dict__
        hooks = d.setdefault(name, OrderedDict())
        d["_fg_has_hooks"] = True
        handle = HookHandle(hooks)
        hooks[handle.id] = _checked(hook, what)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook: Callable) -> HookHandle:
        """``hook(optimizer, args, kwargs)`` before ``step``; a result ``(new_args,
        new_kwargs)`` replaces them."""
        return self._add_hook("_optimizer_step_pre_hooks", hook, False, "register_step_pre_hook")

    def register_step_post_hook(self, hook: Callable) -> HookHandle:
        """``hook(optimizer, args, kwargs)`` after ``step``."""
        return self._add_hook("_optimizer_step_post_hooks", hook, False, "register_step_post_hook")

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> HookHandle:
        """``hook(optimizer)`` before ``state_dict``."""
        return self._add_hook(
            "_optimizer_state_dict_pre_hooks", hook, prepend, "register_state_dict_pre_hook"
        )

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> HookHandle:
        """``hook(optimizer, state_dict)`` after ``state_dict``; a non-None result
        replaces the state dict."""
        return self._add_hook(
            "_optimizer_state_dict_post_hooks", hook, prepend, "register_state_dict_post_hook"
        )

    def register_load_state_dict_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> HookHandle:
        """``hook(optimizer, state_dict)`` before ``load_state_dict``; a non-None result
        is loaded instead."""
        return self._add_hook(
            "_optimizer_load_state_dict_pre_hooks",
            hook,
            prepend,
            "register_load_state_dict_pre_hook",
        )

    def register_load_state_dict_post_hook(
        self, hook: Callable, prepend: bool = False
    ) -> HookHandle:
        """``hook(optimizer)`` after ``load_state_dict``."""
        return self._add_hook(
            "_optimizer_load_state_dict_post_hooks",
            hook,
            prepend,
            "register_load_state_dict_post_hook",
        )


__all__ = ["register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]
