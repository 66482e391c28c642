"""``paddle.amp.decorate``: prepares models (and their optimizers) for a level of mixed
precision. ``O1`` changes nothing (autocast casts per op); ``O2`` casts the floating
parameters and buffers of every layer except the normalization layers (BatchNorm,
LayerNorm, GroupNorm, InstanceNorm keep float32, as in Paddle) to the low dtype, and
points the given optimizers at the new parameters. At O2 the optimizers update float32
master copies and round them into the parameters (``master_weight=None`` or ``True``, as
Paddle's default; ``master_weights.py``); ``master_weight=False`` updates the
low-precision parameters directly."""

from __future__ import annotations

from typing import Any, Sequence

from .auto_cast import _low_dtype

__all__ = ["decorate"]

_NORM_NAMES = ("BatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm", "SyncBatchNorm", "RMSNorm")


def _repoint(optimizer: Any, mapping: dict[int, Any]) -> None:
    from .. import _core

    groups = getattr(optimizer, "param_groups", None)
    if groups is None:
        raise TypeError(f"decorate: expected an optimizer, got {type(optimizer).__name__}")
    for i, g in enumerate(groups):
        params = [mapping.get(id(p), p) for p in g["params"]]
        if any(a is not b for a, b in zip(params, g["params"])):
            g["params"] = params
            optimizer._group_states[i] = _core.ParamGroupState(params)


def decorate(
    models: Any,
    optimizers: Any = None,
    level: str = "O1",
    dtype: Any = "float16",
    master_weight: Any = None,
    save_dtype: Any = None,
    master_grad: bool = False,
    excluded_layers: Any = None,
) -> Any:
    """Returns ``models`` (and ``(models, optimizers)`` when optimizers are given), cast
    for ``level`` (see the module docs). ``excluded_layers``: layers (or layer types)
    whose parameters stay as they are."""
    del save_dtype, master_grad
    if level not in ("O0", "O1", "O2", "OD"):
        raise ValueError(f"decorate: level must be 'O0', 'O1', 'O2' or 'OD', got {level!r}")
    low = _low_dtype(dtype, "decorate")
    model_list = models if isinstance(models, (list, tuple)) else [models]
    if level == "O2":
        excluded = excluded_layers or []
        excluded = excluded if isinstance(excluded, (list, tuple)) else [excluded]
        mapping: dict[int, Any] = {}
        for model in model_list:
            _cast_model_excluding(model, low, mapping, excluded)
        if optimizers is not None:
            opts = optimizers if isinstance(optimizers, (list, tuple)) else [optimizers]
            for opt in opts:
                if master_weight is not False:
                    _attach_masters(opt, mapping)
                _repoint(opt, mapping)
    if optimizers is None:
        return models
    return models, optimizers


def _attach_masters(optimizer: Any, mapping: dict[int, Any]) -> None:
    """Keeps the optimizer's float32 parameters as master weights of their casts."""
    from .master_weights import attach

    if getattr(optimizer, "_fg_master_weights", None) is not None:
        raise RuntimeError("decorate: this optimizer was already decorated with master weights")
    groups = getattr(optimizer, "param_groups", None)
    if groups is None:
        raise TypeError(f"decorate: expected an optimizer, got {type(optimizer).__name__}")
    pairs = {id(p): (p, mapping[id(p)]) for g in groups for p in g["params"] if id(p) in mapping}
    if pairs:
        attach(optimizer, pairs)


def _cast_model_excluding(
    model: Any, dtype: str, mapping: dict[int, Any], excluded: Sequence[Any]
) -> None:
    skip: set[int] = set()
    for m in model.modules():
        if any(m is e or (isinstance(e, type) and isinstance(m, e)) for e in excluded):
            skip.update(id(s) for s in m.modules())
    for m in model.modules():
        if id(m) not in skip:
            _cast_own(m, dtype, mapping)


def _cast_own(m: Any, dtype: str, mapping: dict[int, Any]) -> None:
    """Casts ``m``'s own parameters and buffers (not its children's)."""
    from ..nn.parameter import Parameter

    if any(n in type(m).__name__ for n in _NORM_NAMES):
        return
    for name, p in list(m._parameters.items()):
        if p is None or not p.is_floating_point() or str(p.dtype).endswith(dtype):
            continue
        new = Parameter(p.astype(dtype), p.requires_grad)
        m.register_parameter(name, new)
        mapping[id(p)] = new
    for name, b in list(m._buffers.items()):
        if b is not None and b.is_floating_point():
            m.register_buffer(name, b.astype(dtype), name not in m._non_persistent)
