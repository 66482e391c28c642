"""A module's state: ``state_dict`` / ``load_state_dict`` as PyTorch 2.x's walks, with
PyTorch's state-dict hooks (and Paddle's ``register_state_dict_hook``), ``to_empty`` and
``compile`` (a base class of ``Module``).

``state_dict()`` walks the modules in order (``torch/nn/modules/module.py``,
``state_dict``): per module it records ``{"version": cls._version}`` in the result's
``_metadata`` (an ``OrderedDict`` attribute keyed by the module's prefix without its last
dot; ``Module._version`` is 1, PyTorch's batch and instance norms 2), runs the pre-hooks,
calls ``self._save_to_state_dict(destination, prefix, keep_vars)`` (which subclasses may
override: the base saves the parameters, persistent buffers and ``get_extra_state()``),
walks the children and runs the post-hooks. ``_metadata`` survives ``copy`` /
``deepcopy`` / pickle and ``ferrograd.save`` / ``load`` (a dict is a plain ``dict`` in
Paddle code, which has no attributes). ``load_state_dict`` (``nn/module_state_load.py``)
passes each module its ``local_metadata`` and calls ``_load_from_state_dict(state_dict,
prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``.

Hooks, as in PyTorch 2.x (each ``register_*`` returns a handle with ``.remove()``; hooks
run in registration order, each module's own at its level of the walk):

- ``register_state_dict_pre_hook(hook)``: ``hook(module, prefix, keep_vars)`` before the
  module saves its entries;
- ``register_state_dict_post_hook(hook)``: ``hook(module, state_dict, prefix,
  local_metadata)`` after the module and its children are saved; it edits ``state_dict``
  in place and must return None. ``_register_state_dict_hook`` (PyTorch's older private
  spelling) may return a new dict, which replaces the result of *that* module's
  ``state_dict`` call (so only a root module's replacement is seen, as in PyTorch);
  Paddle's ``register_state_dict_hook(hook)`` is ``hook(state_dict)`` with the same rule;
- ``register_load_state_dict_pre_hook(hook)``: ``hook(module, state_dict, prefix,
  local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`` at the start of the
  base ``_load_from_state_dict``; it may edit ``state_dict`` (a copy of the caller's) to
  rename or convert entries, and append to ``error_msgs`` (raised together as a
  ``RuntimeError``). ``_register_load_state_dict_pre_hook(hook, with_module=False)``
  omits the module;
- ``register_load_state_dict_post_hook(hook)``: ``hook(module, incompatible_keys)`` after
  the module and its children are loaded (the keys found so far, as PyTorch); it may clear
  entries of ``incompatible_keys.missing_keys`` / ``unexpected_keys`` in place and must
  return None; ``strict`` is checked after the walk.

Without load post-hooks, errors are raised before anything is copied into modules that
keep the base ``_load_from_state_dict`` (the module is left as it was); with them the
values are copied as the walk goes (PyTorch's order). Children are walked by the base walk,
not through their own ``state_dict`` (so a wrapper overriding ``state_dict`` does not
change its parent's keys).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Mapping, Optional

from .. import _core
from .._dialect import caller_dialect
from .._dropin import device as _device
from ..grad_mode import no_grad
from .module_hooks import HookHandle
from .module_names import has_extra_state
from .module_state_load import EXTRA as _EXTRA
from .module_state_load import StateDictShapeError, load_own
from .module_state_load import _IncompatibleKeys as _IncompatibleKeys
from .module_state_load import load as _load

__all__ = ["ModuleState", "StateDictShapeError"]

Tensor = _core.Tensor


def _hooks(module: Any, name: str) -> OrderedDict:
    """The module's hook registry ``name`` (made on first use)."""
    d = module.__dict__
    if name not in d:
        d[name] = OrderedDict()
    return d[name]


def _add(module: Any, name: str, entry: Any) -> HookHandle:
    hooks = _hooks(module, name)
    handle = HookHandle(hooks)
    hooks[handle.id] = entry
    return handle


def _checked(hook: Any, what: str) -> Callable:
    if not callable(hook):
        raise TypeError(f"{what}: the hook must be callable, got {type(hook).__name__}")
    return hook


def _save(
    m: Any, out: Any, prefix: str, keep_vars: bool, recurse: bool, use_hook: bool, meta: Any
) -> Any:
    """PyTorch's recursive ``state_dict`` walk: the module's ``_metadata`` entry, pre-hooks,
    ``_save_to_state_dict`` (an override is called), the children, post-hooks. Children
    are walked here, not through their ``state_dict`` (so a wrapper overriding
    ``state_dict`` does not change the keys)."""
    d = m.__dict__
    local = {"version": m._version}  # PyTorch's local_metadata
    if meta is not None:
        meta[prefix[:-1]] = local
    if use_hook and d.get("_state_dict_pre_hooks"):
        for hook in list(d["_state_dict_pre_hooks"].values()):
            hook(m, prefix, keep_vars)
    save = type(m)._save_to_state_dict
    if save is _BASE_SAVE:
        _save_own(m, out, prefix, keep_vars)
    else:
        save(m, out, prefix, keep_vars)
    if recurse:
        for name, child in m._modules.items():
            if child is not None:
                _save(child, out, f"{prefix}{name}.", keep_vars, True, use_hook, meta)
    if use_hook and d.get("_state_dict_hooks"):
        for kind, hook in list(d["_state_dict_hooks"].values()):
            if kind == "paddle":
                result = hook(out)
            else:
                result = hook(m, out, prefix, local)
            if kind == "public":
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                out = result
    return out


def _save_own(m: Any, out: Any, prefix: str, keep_vars: bool) -> None:
    """The base ``_save_to_state_dict``: ``m``'s parameters, persistent buffers and extra
    state (not its children's)."""
    for name, p in m._parameters.items():
        if p is not None:
            # (a static layer's parameters are Variables: given as they are)
            out[prefix + name] = p if keep_vars or not isinstance(p, Tensor) else p.detach()
    for name, b in m._buffers.items():
        if b is not None and name not in m._non_persistent:
            out[prefix + name] = b if keep_vars or not isinstance(b, Tensor) else b.detach()
    if has_extra_state(m, "get_extra_state"):  # PyTorch's extra-state entry
        out[prefix + _EXTRA] = m.get_extra_state()


class ModuleState:
    """Mixin of ``Module``: saving and loading state, with hooks."""

    _parameters: Any
    _buffers: Any
    _modules: Any
    _non_persistent: set
    _version: int = 1  # PyTorch's: in each module's _metadata entry; BatchNorm's is 2

    # ------------------------------------------------------------------ hooks

    def register_state_dict_pre_hook(self, hook: Callable) -> HookHandle:
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` saves this
        module's entries."""
        return _add(self, "_state_dict_pre_hooks", _checked(hook, "register_state_dict_pre_hook"))

    def register_state_dict_post_hook(self, hook: Callable) -> HookHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` runs after this module
        and its children are saved; it edits ``state_dict`` in place (returns None)."""
        hook = _checked(hook, "register_state_dict_post_hook")
        return _add(self, "_state_dict_hooks", ("public", hook))

    def _register_state_dict_hook(self, hook: Callable) -> HookHandle:
        """PyTorch's older post-hook: as ``register_state_dict_post_hook``, but a non-None
        result replaces this module's ``state_dict`` result."""
        hook = _checked(hook, "_register_state_dict_hook")
        return _add(self, "_state_dict_hooks", ("private", hook))

    def register_state_dict_hook(self, hook: Callable) -> HookHandle:
        """Paddle: ``hook(state_dict)`` runs after this layer and its sublayers are saved;
        a non-None result replaces this layer's ``state_dict`` result."""
        hook = _checked(hook, "register_state_dict_hook")
        return _add(self, "_state_dict_hooks", ("paddle", hook))

    def _register_load_state_dict_pre_hook(
        self, hook: Callable, with_module: bool = False
    ) -> HookHandle:
        """``hook([module,] state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module takes its entries."""
        hook = _checked(hook, "register_load_state_dict_pre_hook")
        return _add(self, "_load_state_dict_pre_hooks", (bool(with_module), hook))

    def register_load_state_dict_pre_hook(self, hook: Callable) -> HookHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module takes its entries; it may
        edit ``state_dict``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable) -> HookHandle:
        """``hook(module, incompatible_keys)`` runs after this module and its children
        are loaded, before ``strict`` is checked; it may edit the key lists in place and
        must return None."""
        hook = _checked(hook, "register_load_state_dict_post_hook")
        return _add(self, "_load_state_dict_post_hooks", hook)

    # ------------------------------------------------------------------ saving

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """Saves this module's own state (not its children's) into ``destination``: the
        parameters and persistent buffers (detached unless ``keep_vars``) and, when the
        class defines ``get_extra_state``, its value; ``state_dict`` calls it per module
        and subclasses may override it, as PyTorch's."""
        _save_own(self, destination, prefix, keep_vars)

    def state_dict(
        self,
        destination: Optional[dict] = None,
        prefix: str = "",
        keep_vars: bool = False,
        *,
        include_sublayers: bool = True,
        structured_name_prefix: str = "",
        use_hook: bool = True,
    ) -> Any:
        """``{dotted_name: tensor}`` of every parameter and persistent buffer, with a
        ``_metadata`` attribute (PyTorch's per-module versions). Tensors are detached
        (sharing memory with the parameters) unless ``keep_vars``. Paddle's keywords:
        ``include_sublayers``, ``structured_name_prefix``, ``use_hook``."""
        if destination is None:
            out: Any = OrderedDict()
            out._metadata = OrderedDict()
        else:
            out = destination
        prefix = prefix or structured_name_prefix
        meta = getattr(out, "_metadata", None)
        return _save(self, out, prefix, keep_vars, include_sublayers, use_hook, meta)

    # ------------------------------------------------------------------ loading

    def _load_from_state_dict(
        self,
        state_dict: Any,
        prefix: str,
        local_metadata: Any,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """Loads this module's own entries (not its children's) from ``state_dict``: runs
        the load pre-hooks, copies the parameters, persistent buffers and extra state under
        ``prefix``, and (with ``strict``) records missing and unexpected keys; problems are
        appended to ``error_msgs``. ``load_state_dict`` calls it per module with the
        module's ``local_metadata``; subclasses may override it, as PyTorch's."""
        load_own(
            self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
            error_msgs,
        )  # fmt: skip

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> Any:
        """Copies values from ``state_dict`` into the parameters and buffers in place
        (``assign=True``: the state dict's tensors become them, keeping each parameter's
        ``requires_grad``), module by module as PyTorch's walk (see
        ``nn/module_state_load.py``).

        Shapes must match exactly (dtypes are cast). Values must be Tensors in PyTorch
        code (PyTorch's error otherwise); elsewhere NumPy arrays and lists are taken too.
        With ``strict`` a missing or unexpected key is an error; every error is raised
        together as a ``RuntimeError`` (a size mismatch as ``StateDictShapeError``, also a
        ``ValueError``); the result is ``(missing_keys, unexpected_keys)``.
        """
        if not isinstance(state_dict, Mapping):
            # PyTorch's words first (torch/nn/modules/module.py, load_state_dict)
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict)}. "
                f"(load_state_dict: expected a mapping of names to tensors, got "
                f"{type(state_dict).__name__})"
            )
        torch_code = caller_dialect() == "torch"
        # lazy modules (nn.LazyLinear) take their shapes from the saved tensors first
        for prefix, m in self.named_modules():  # type: ignore[attr-defined]
            hook = getattr(type(m), "_materialize_from_state", None)
            if hook is not None:
                hook(m, state_dict, f"{prefix}." if prefix else "")
        base = ModuleState._load_from_state_dict
        return _load(self, state_dict, strict, assign, torch_code, base)

    def set_state_dict(
        self, state_dict: Mapping[str, Any], use_structured_name: bool = True
    ) -> Any:
        """Paddle: load ``state_dict`` non-strictly; returns ``(missing, unexpected)``."""
        return self.load_state_dict(state_dict, strict=False)

    set_dict = set_state_dict

    # ------------------------------------------------------------------ empty, compile

    def to_empty(self, *, device: Any, recurse: bool = True) -> Any:
        """Gives every parameter and buffer (of this module only, unless ``recurse``) new,
        uninitialised storage of the same shape and dtype on ``device`` (only the CPU
        exists here). The Parameter objects stay the same; their values are unspecified
        until loaded or initialised."""
        if device is not None:
            _device(device)  # "cpu", "cpu:0", device("cpu"); others raise naming the device
        mods = self.modules() if recurse else [self]  # type: ignore[attr-defined]
        done: set = set()
        with no_grad():
            for m in mods:
                for registry in (m._parameters, m._buffers):
                    for t in registry.values():
                        if isinstance(t, Tensor) and id(t) not in done:
                            done.add(id(t))
                            t.data = _core.empty(list(t.shape), dtype=t.dtype)
        return self

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """PyTorch's ``Module.compile(**torch_compile_options)``: ferrograd runs models
        eagerly (see ``ferrograd.compile``), so calls are unchanged; returns None."""
        if args:
            raise TypeError(
                "Module.compile() takes torch.compile's options as keywords (fullgraph=, "
                f"dynamic=, backend=, mode=, options=, disable=), got {len(args)} positional"
            )
        from .._ops_compose_more import compile as _compile

        _compile(self, **kwargs)


_BASE_SAVE = ModuleState._save_to_state_dict
