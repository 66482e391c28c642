"""A module's state: ``state_dict`` / ``load_state_dict`` with PyTorch's state-dict
hooks (and Paddle's ``register_state_dict_hook``), ``to_empty`` and ``compile``
(a base class of ``Module``).

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
  local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`` before the module
  takes its entries; it may edit ``state_dict`` (a copy of the caller's) to rename or
  convert entries, and append to ``error_msgs`` (raised together as a ``RuntimeError``).
  ``_register_load_state_dict_pre_hook(hook, with_module=False)`` omits the module;
- ``register_load_state_dict_post_hook(hook)``: ``hook(module, incompatible_keys)``
  after the values are loaded and before ``strict`` is checked; it may clear entries of
  ``incompatible_keys.missing_keys`` / ``unexpected_keys`` in place; it must return None.

``local_metadata`` is ``{"version": 1}`` (ferrograd's state dicts carry no
``_metadata``). Without load post-hooks, ``strict`` and shape errors are raised before
anything is copied (the module is left as it was); with them the values are copied, the
hooks run, then ``strict`` is checked (PyTorch's order). ferrograd's post-hooks run once
all modules are loaded, so each sees every missing key (PyTorch's see those found so far).
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any, Callable, Mapping, Optional

import numpy as np

from .. import _core
from .._dropin import device as _device
from ..grad_mode import no_grad
from .module_hooks import HookHandle
from .module_names import has_extra_state
from .static_build import set_value as _static_set_value

Tensor = _core.Tensor


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """``load_state_dict``'s result; prints ``<All keys matched successfully>`` when both
    lists are empty, as PyTorch's (``torch/nn/modules/module.py``, ``_IncompatibleKeys``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_META = "version"
_EXTRA = "_extra_state"  # PyTorch's key of a module's get_extra_state() value


class StateDictShapeError(RuntimeError, ValueError):
    """``load_state_dict``: a tensor whose shape differs from the module's entry. PyTorch
    raises ``RuntimeError`` ("size mismatch"); ferrograd's earlier ``ValueError`` is kept
    as a base, so ``except RuntimeError`` and ``except ValueError`` both catch it."""


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


def _save(m: Any, out: Any, prefix: str, keep_vars: bool, recurse: bool, use_hook: bool) -> Any:
    """PyTorch's recursive ``state_dict`` walk (children by the internal walk, so a
    wrapper overriding ``state_dict`` does not change the keys)."""
    d = m.__dict__
    if use_hook and d.get("_state_dict_pre_hooks"):
        for hook in list(d["_state_dict_pre_hooks"].values()):
            hook(m, prefix, keep_vars)
    for name, p in m._parameters.items():
        if p is not None:
            # (a static layer's parameters are Variables: given as they are)
            out[prefix + name] = p if keep_vars or not isinstance(p, Tensor) else p.detach()
    for name, b in m._buffers.items():
        if b is not None and name not in m._non_persistent:
            out[prefix + name] = b if keep_vars or not isinstance(b, Tensor) else b.detach()
    if has_extra_state(m, "get_extra_state"):  # PyTorch's extra-state entry
        out[prefix + _EXTRA] = m.get_extra_state()
    if recurse:
        for name, child in m._modules.items():
            if child is not None:
                _save(child, out, f"{prefix}{name}.", keep_vars, True, use_hook)
    if use_hook and d.get("_state_dict_hooks"):
        for kind, hook in list(d["_state_dict_hooks"].values()):
            if kind == "paddle":
                result = hook(out)
            else:
                result = hook(m, out, prefix, {_META: 1})
            if kind == "public":
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                out = result
    return out


class ModuleState:
    """Mixin of ``Module``: saving and loading state, with hooks."""

    _parameters: Any
    _buffers: Any
    _modules: Any
    _non_persistent: set

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
        """``hook(module, incompatible_keys)`` runs after loading, before ``strict`` is
        checked; it may edit the key lists in place and must return None."""
        hook = _checked(hook, "register_load_state_dict_post_hook")
        return _add(self, "_load_state_dict_post_hooks", hook)

    # ------------------------------------------------------------------ saving

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
        """``{dotted_name: tensor}`` of every parameter and persistent buffer. Tensors are
        detached (sharing memory with the parameters) unless ``keep_vars``. Paddle's
        keywords: ``include_sublayers``, ``structured_name_prefix``, ``use_hook``."""
        out: Any = OrderedDict() if destination is None else destination
        prefix = prefix or structured_name_prefix
        return _save(self, out, prefix, keep_vars, include_sublayers, use_hook)

    # ------------------------------------------------------------------ loading

    def _walk_load(self, local: dict, prefix: str, acc: dict) -> None:
        """PyTorch's recursive load walk, without copying: pre-hooks, then this module's
        (target, value) pairs, missing and unexpected keys, then the children."""
        missing, unexpected = acc["missing"], acc["unexpected"]
        pre = self.__dict__.get("_load_state_dict_pre_hooks")
        if pre:
            for with_module, hook in list(pre.values()):
                rest = (local, prefix, {_META: 1}, True, missing, unexpected, acc["errors"])
                hook(self, *rest) if with_module else hook(*rest)
        own = {k: v for k, v in self._parameters.items() if v is not None}
        own.update(
            (k, v)
            for k, v in self._buffers.items()
            if v is not None and k not in self._non_persistent
        )
        extra = has_extra_state(self, "set_extra_state")
        if extra:
            if prefix + _EXTRA in local:
                acc["extra"].append((self, local[prefix + _EXTRA]))
            else:
                missing.append(prefix + _EXTRA)
        for name, target in own.items():
            key = prefix + name
            if key in local:
                acc["pairs"].append((key, self, name, target, local[key]))
            else:
                missing.append(key)
        for key in local:
            if key.startswith(prefix):
                head, dot, _ = key[len(prefix) :].partition(".")
                if (head not in self._modules) if dot else (head not in own):
                    if extra and not dot and head == _EXTRA:
                        continue
                    unexpected.append(key)
        for name, child in self._modules.items():
            if child is not None:
                cp = f"{prefix}{name}."
                child._walk_load({k: v for k, v in local.items() if k.startswith(cp)}, cp, acc)
        if self.__dict__.get("_load_state_dict_post_hooks"):
            acc["post"].append(self)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> Any:
        """Copies values from ``state_dict`` into the parameters and buffers in place
        (``assign=True``: the state dict's tensors become them, keeping each parameter's
        ``requires_grad``).

        Values may be Tensors or NumPy arrays; shapes must match exactly (dtypes are cast).
        With ``strict`` a missing or unexpected key is an error; either way the result is
        ``(missing_keys, unexpected_keys)``. Hooks: see ``nn/module_state.py``.
        """
        if not isinstance(state_dict, Mapping):
            # PyTorch's words first (torch/nn/modules/module.py, load_state_dict)
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict)}. "
                f"(load_state_dict: expected a mapping of names to tensors, got "
                f"{type(state_dict).__name__})"
            )
        # lazy modules (nn.LazyLinear) take their shapes from the saved tensors first
        for prefix, m in self.named_modules():  # type: ignore[attr-defined]
            hook = getattr(type(m), "_materialize_from_state", None)
            if hook is not None:
                hook(m, state_dict, f"{prefix}." if prefix else "")
        acc: dict = {"pairs": [], "missing": [], "unexpected": [], "errors": [], "post": []}
        acc["extra"] = []
        self._walk_load(OrderedDict(state_dict), "", acc)
        keys = _IncompatibleKeys(acc["missing"], acc["unexpected"])
        values = [self._checked_value(*pair) for pair in acc["pairs"]]
        if not acc["post"]:
            self._raise_if_incompatible(keys, strict, acc["errors"])
        with no_grad():
            for (_, owner, name, target, _), value in zip(acc["pairs"], values):
                _put(owner, name, target, value, assign)
        for m, state in acc["extra"]:
            m.set_extra_state(state)
        for m in acc["post"]:
            for hook in list(m.__dict__["_load_state_dict_post_hooks"].values()):
                if hook(m, keys) is not None:  # (PyTorch's exception type)
                    raise AssertionError(
                        "a load_state_dict post-hook must return None; edit "
                        "incompatible_keys in place instead"
                    )
        self._raise_if_incompatible(keys, strict, acc["errors"])
        return keys

    def _checked_value(self, key: str, owner: Any, name: str, target: Any, value: Any) -> Any:
        """``value`` as a Tensor of ``target``'s shape (else a ``StateDictShapeError``, a
        ``RuntimeError`` and ``ValueError``, naming ``key``)."""
        if not isinstance(value, Tensor):
            value = _core.tensor(np.asarray(value))
        if list(value.shape) != list(target.shape):
            hint = ""
            if value.ndim == 2 and list(value.shape)[::-1] == list(target.shape):
                hint = _layout_hint(self, key)
            # PyTorch's sentence first (torch/nn/modules/module.py, _load_from_state_dict)
            raise StateDictShapeError(
                f"size mismatch for {key}: copying a param with shape "
                f"{tuple(value.shape)} from checkpoint, the shape in current model is "
                f"{tuple(target.shape)}. (load_state_dict: size mismatch: {key!r} has "
                f"shape {list(value.shape)} in the state dict but {list(target.shape)} in "
                f"the module{hint})"
            )
        return value

    def _raise_if_incompatible(self, keys: Any, strict: bool, errors: list) -> None:
        missing, unexpected = keys
        if strict and (missing or unexpected):
            # PyTorch's report (torch/nn/modules/module.py, load_state_dict): a line per
            # kind, the missing keys first; then ferrograd's summary
            lines = [
                f"{kind} key(s) in state_dict: " + ", ".join(f'"{k}"' for k in keys) + ". "
                for kind, keys in (("Missing", missing), ("Unexpected", unexpected))
                if keys
            ]
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(lines)
                + f"\n(load_state_dict for {type(self).__name__}: missing keys {missing}, "
                f"unexpected keys {unexpected}; pass strict=False to load the rest)"
            )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(str(e) for e in errors)
            )

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


def _layout_hint(root: Any, key: str) -> str:
    """Why a 2-D checkpoint tensor arrived transposed: the layer's layout (PyTorch's
    ``[out, in]`` or Paddle's ``[in, out]``, fixed by the dialect of the code that built
    it) and the checkpoint's."""
    owner_name, _, _ = key.rpartition(".")
    owner: Any = root
    for part in owner_name.split(".") if owner_name else ():
        owner = owner._modules.get(part) if isinstance(owner, ModuleState) else None
    layout = getattr(owner, "weight_layout", None)
    if layout is None:
        return (
            " (the transpose: Linear weights are [out_features, in_features] in PyTorch's "
            "layout and [in_features, out_features] in Paddle's; transpose with .T)"
        )
    paddle = layout == "in_out"
    mine, theirs = ("Paddle", "PyTorch") if paddle else ("PyTorch", "Paddle")
    built = "Paddle code" if paddle else "PyTorch (or neutral) code"
    return (
        f" (the transpose: this {type(owner).__name__} was built by {built}, so it stores "
        f"{mine}'s layout {'[in_features, out_features]' if paddle else '[out_features, in_features]'}"
        f", and the checkpoint holds {theirs}'s; build the model in the checkpoint's dialect "
        f"(import ferrograd as {'torch' if paddle else 'paddle'}) or transpose the tensor "
        f'with .T before loading; docs/dialects.md, "Parameter layouts")'
    )


def _put(owner: Any, name: str, target: Any, value: Tensor, assign: bool) -> None:
    """Loads ``value`` into ``owner``'s entry ``name`` (``target``)."""
    if not isinstance(target, Tensor):  # a static layer's Variable: its value in the scope
        _static_set_value(target, value)
    elif not assign:
        target.copy_(value.astype(target.dtype))
    else:
        from .parameter import Parameter

        if name in owner._parameters:
            value = Parameter(value, target.requires_grad)
            owner._parameters[name] = value  # (in place: the key order is kept)
        else:
            owner._buffers[name] = value
        owner.__dict__[name] = value
