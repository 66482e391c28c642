"""``load_state_dict``'s walk, as PyTorch 2.x's (``torch/nn/modules/module.py``:
``load_state_dict`` and its inner ``load``, ``Module._load_from_state_dict``).

Per module, in module order: ``module._load_from_state_dict(state_dict, prefix,
local_metadata, True, missing_keys, unexpected_keys, error_msgs)`` (an override is called,
as in PyTorch; the base method runs the load pre-hooks, then takes the module's own
parameters, persistent buffers and extra state), then the children with the entries under
their prefixes, then the module's load post-hooks. ``local_metadata`` is the state dict's
``_metadata[prefix[:-1]]`` (``{}`` when absent), with ``assign_to_params_buffers`` added
for ``assign=True`` (on a copy: the caller's metadata is not changed). Errors are collected
in ``error_msgs`` with PyTorch's sentences and raised together at the end.

ferrograd's one difference: when no module of the tree has a load post-hook, the base
method only records what to copy, and the copies are made after the walk, once no error
was found, so a failed load leaves those modules as they were. A module whose class
overrides ``_load_from_state_dict`` gets its values copied at once (its override may read
them after calling ``super()``; ferrograd's own overrides that only edit the state dict
first are marked ``defers_copies``), as every module does when post-hooks exist.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, namedtuple
from typing import Any, Optional

import numpy as np

from .. import _core
from .._dialect import caller_dialect
from ..grad_mode import no_grad
from .module_names import has_extra_state
from .static_build import set_value as _static_set_value

Tensor = _core.Tensor
EXTRA = "_extra_state"  # PyTorch's key of a module's get_extra_state() value

_LOCAL = threading.local()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """``load_state_dict``'s result; prints ``<All keys matched successfully>`` when both
    lists are empty, as PyTorch's (``torch/nn/modules/module.py``, ``_IncompatibleKeys``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class StateDictShapeError(RuntimeError, ValueError):
    """``load_state_dict``: a tensor whose shape differs from the module's entry. PyTorch
    raises ``RuntimeError`` ("size mismatch"); ferrograd's earlier ``ValueError`` is kept
    as a base, so ``except RuntimeError`` and ``except ValueError`` both catch it."""


class _Load:
    """One ``load_state_dict`` call: the caller's dialect, whether the base method defers
    its copies (``defer``, set per module by the walk), the deferred copies and whether a
    size mismatch was reported."""

    __slots__ = ("torch_code", "atomic", "defer", "pending", "shape_error")

    def __init__(self, torch_code: bool, atomic: bool) -> None:
        self.torch_code = torch_code
        self.atomic = atomic
        self.defer = False
        self.pending: list = []
        self.shape_error = False


def defers_copies(method: Any) -> Any:
    """Marks a ferrograd override of ``_load_from_state_dict`` that only edits the state
    dict before calling the base method, so its module's copies may be deferred too."""
    method._fg_defers = True
    return method


def _current() -> Optional[_Load]:
    stack = getattr(_LOCAL, "stack", None)
    return stack[-1] if stack else None


def load_own(
    m: Any,
    state_dict: Any,
    prefix: str,
    local_metadata: Any,
    strict: bool,
    missing: list,
    unexpected: list,
    errors: list,
) -> None:
    """The base ``Module._load_from_state_dict``: pre-hooks, then ``m``'s own entries
    (parameters, persistent buffers, extra state), missing and unexpected keys."""
    ctx = _current()
    pre = m.__dict__.get("_load_state_dict_pre_hooks")
    if pre:
        for with_module, hook in list(pre.values()):
            rest = (state_dict, prefix, local_metadata, strict, missing, unexpected, errors)
            hook(m, *rest) if with_module else hook(*rest)
    own = {k: v for k, v in m._parameters.items() if v is not None}
    own.update(
        (k, v) for k, v in m._buffers.items() if v is not None and k not in m._non_persistent
    )
    assign = bool(local_metadata.get("assign_to_params_buffers", False))
    defer = ctx is not None and ctx.defer
    # (called outside load_state_dict: the dialect of the code calling this method)
    torch_code = ctx.torch_code if ctx is not None else caller_dialect(3) == "torch"
    for name, target in own.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing.append(key)
            continue
        value = _checked(m, key, target, state_dict[key], torch_code, assign, errors, ctx)
        if value is None:
            continue
        if defer:
            assert ctx is not None
            ctx.pending.append((m, name, target, value, assign))
            continue
        try:
            with no_grad():
                _put(m, name, target, value, assign)
        except Exception as ex:  # PyTorch's sentence (module.py, _load_from_state_dict)
            errors.append(
                f'While copying the parameter named "{key}", whose dimensions in the model '
                f"are {tuple(target.shape)} and whose dimensions in the checkpoint are "
                f"{tuple(value.shape)}, an exception occurred : {ex.args}."
            )
    extra_key = prefix + EXTRA
    if has_extra_state(m, "set_extra_state"):
        if extra_key in state_dict:
            if defer:
                assert ctx is not None
                ctx.pending.append((m, None, None, state_dict[extra_key], False))
            else:
                m.set_extra_state(state_dict[extra_key])
        elif strict:
            missing.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                head, dot, _ = key[len(prefix) :].partition(".")
                if (head not in m._modules) if dot else (head not in own):
                    unexpected.append(key)


def _checked(
    m: Any,
    key: str,
    target: Any,
    value: Any,
    torch_code: bool,
    assign: bool,
    errors: list,
    ctx: Any,
) -> Any:
    """``value`` as a Tensor fit for ``target`` (cast to its dtype for a copy), or None
    after appending PyTorch's error to ``errors``."""
    if not isinstance(value, Tensor):
        if torch_code:  # PyTorch's sentence; Paddle's set_state_dict takes arrays
            errors.append(
                f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(value)}"
            )
            return None
        value = _core.tensor(np.asarray(value))
    shape, want = list(value.shape), list(target.shape)
    # PyTorch's compatibility rule for 0-d entries saved as [1] (module.py); only a
    # one-element value (PyTorch would take the first of any 1-D value)
    if not want and shape == [1]:
        value, shape = value.reshape([]), []
    if shape != want:
        hint = _layout_hint(m) if value.ndim == 2 and shape[::-1] == want else ""
        # PyTorch's sentence first (torch/nn/modules/module.py, _load_from_state_dict)
        errors.append(
            f"size mismatch for {key}: copying a param with shape {tuple(shape)} from "
            f"checkpoint, the shape in current model is {tuple(want)}. (load_state_dict: "
            f"size mismatch: {key!r} has shape {shape} in the state dict but {want} in the "
            f"module{hint})"
        )
        if ctx is not None:
            ctx.shape_error = True
        return None
    if not assign and isinstance(target, Tensor) and value.dtype != target.dtype:
        try:
            value = value.astype(target.dtype)  # (copy_ casts the same way)
        except Exception as ex:
            errors.append(
                f'While copying the parameter named "{key}", whose dimensions in the model '
                f"are {tuple(want)} and whose dimensions in the checkpoint are "
                f"{tuple(shape)}, an exception occurred : {ex.args}."
            )
            return None
    return value


def _put(owner: Any, name: str, target: Any, value: Any, assign: bool) -> None:
    """Loads ``value`` into ``owner``'s entry ``name`` (``target``): a copy, or with
    ``assign`` the value itself (a parameter's as a Parameter keeping ``requires_grad``,
    as PyTorch's ``assign=True``)."""
    if not isinstance(target, Tensor):  # a static layer's Variable: its value in the scope
        _static_set_value(target, value)
    elif not assign:
        target.copy_(value)
    else:
        from .parameter import Parameter

        if name in owner._parameters:
            if isinstance(value, Parameter):
                value.requires_grad_(target.requires_grad)
            else:
                value = Parameter(value, target.requires_grad)
            owner._parameters[name] = value  # (in place: the key order is kept)
        else:
            owner._buffers[name] = value
        owner.__dict__[name] = value


def _walk(
    m: Any, local: Any, prefix: str, metadata: Any, assign: bool, acc: tuple, ctx: _Load
) -> None:
    """PyTorch's inner ``load``: this module, its children, then its post-hooks."""
    missing, unexpected, errors, base = acc
    meta = {} if metadata is None else metadata.get(prefix[:-1], {})
    if assign:
        meta = dict(meta, assign_to_params_buffers=True)
    method = type(m)._load_from_state_dict
    ctx.defer = ctx.atomic and (method is base or getattr(method, "_fg_defers", False))
    method(m, local, prefix, meta, True, missing, unexpected, errors)
    if m._modules:
        # each child's entries (PyTorch filters by the child's prefix; grouped here in one
        # pass over the keys, so a wide module is not quadratic)
        groups: dict = {}
        start = len(prefix)
        for k, v in local.items():
            dot = k.find(".", start)
            if dot > 0 and k.startswith(prefix):
                groups.setdefault(k[start:dot], {})[k] = v
        for name, child in m._modules.items():
            if child is not None:
                sub = groups.get(name, {})
                _walk(child, sub, f"{prefix}{name}.", metadata, assign, acc, ctx)
    post = m.__dict__.get("_load_state_dict_post_hooks")
    if post:
        keys = _IncompatibleKeys(missing, unexpected)
        for hook in list(post.values()):
            if hook(m, keys) is not None:  # (PyTorch's exception type)
                raise AssertionError(
                    "a load_state_dict post-hook must return None; edit "
                    "incompatible_keys in place instead"
                )


def load(
    root: Any, state_dict: Any, strict: bool, assign: bool, torch_code: bool, base: Any
) -> Any:
    """``root.load_state_dict(state_dict, strict, assign)``; ``base`` is the base class's
    ``_load_from_state_dict`` (a module whose class keeps it may have its copies
    deferred)."""
    metadata = getattr(state_dict, "_metadata", None)
    local: Any = OrderedDict(state_dict)
    if metadata is not None:
        local._metadata = metadata
    modules = list(root.modules())
    atomic = not any(mm.__dict__.get("_load_state_dict_post_hooks") for mm in modules)
    ctx = _Load(torch_code, atomic)
    missing: list = []
    unexpected: list = []
    errors: list = []
    stack = _LOCAL.__dict__.setdefault("stack", [])
    stack.append(ctx)
    try:
        _walk(root, local, "", metadata, assign, (missing, unexpected, errors, base), ctx)
    finally:
        stack.pop()
    name = type(root).__name__
    summary = ""
    if strict and (missing or unexpected):
        # PyTorch's lines (torch/nn/modules/module.py, load_state_dict): the missing keys
        # first, then the unexpected ones, then the other errors; then ferrograd's summary
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: " + _quoted(unexpected) + ". ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: " + _quoted(missing) + ". ")
        summary = (
            f"\n(load_state_dict for {name}: missing keys {missing}, unexpected keys "
            f"{unexpected}; pass strict=False to load the rest)"
        )
    if errors:
        kind = StateDictShapeError if ctx.shape_error else RuntimeError
        raise kind(
            f"Error(s) in loading state_dict for {name}:\n\t"
            + "\n\t".join(str(e) for e in errors)
            + summary
        )
    with no_grad():
        for owner, entry, target, value, assign_it in ctx.pending:
            if entry is None:
                owner.set_extra_state(value)
            else:
                _put(owner, entry, target, value, assign_it)
    return _IncompatibleKeys(missing, unexpected)


def _quoted(keys: list) -> str:
    return ", ".join(f'"{k}"' for k in keys)


def _layout_hint(owner: Any) -> str:
    """Why a 2-D checkpoint tensor arrived transposed: the layer's layout (PyTorch's
    ``[out, in]`` or Paddle's ``[in, out]``, fixed by the dialect of the code that built
    it) and the checkpoint's."""
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
