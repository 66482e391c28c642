"""``nn.utils``: gradient clipping, flattening parameters into one vector, folding
batch norm into the layer before it (``fusion.py``), and ``skip_init``."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from .. import _core
from ..grad_mode import no_grad
from .clip import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)

Tensor = _core.Tensor


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All ``parameters`` flattened and concatenated into one 1-D tensor (differentiable
    with respect to them)."""
    flat = [p.reshape([-1]) for p in parameters]
    if not flat:
        raise ValueError("parameters_to_vector: no parameters given")
    return _core.concat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copies consecutive slices of the 1-D ``vec`` into ``parameters`` (in place, not
    recorded by autograd): the inverse of ``parameters_to_vector``."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected vec to be a Tensor, but got {type(vec).__name__}")
    if vec.ndim != 1:
        raise ValueError(f"vec must be 1-D, got shape {list(vec.shape)}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if total != vec.numel():
        raise ValueError(
            f"vec has {vec.numel()} elements but the parameters hold {total}; they must match"
        )
    offset = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[offset : offset + n].reshape(list(p.shape)))
            offset += n


def clip_grad_norm(*args: Any, **kwargs: Any) -> Any:
    """Deprecated spelling of ``clip_grad_norm_`` (warns ``FutureWarning``, as PyTorch)."""
    import warnings

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(*args, **kwargs)


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """PyTorch's ``skip_init``: ``module_cls(*args, **kwargs)`` with its parameters and
    buffers left uninitialised (``to_empty``). The class must take a ``device`` argument
    (PyTorch's rule). ferrograd has no meta device, so the constructor's initialisation
    does run before the storage is replaced: the values are unspecified either way."""
    from .module import Module

    if not isinstance(module_cls, type) or not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    return module_cls(*args, device=device, **kwargs).to_empty(device=device)


__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "skip_init",
    "vector_to_parameters",
]
