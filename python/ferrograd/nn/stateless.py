"""``nn.utils.stateless``: PyTorch's older spelling of ``torch.func.functional_call``
(deprecated since PyTorch 2.0, still in use); it shares ``ferrograd.func``'s
implementation and, like PyTorch's, emits a ``FutureWarning``."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any


def functional_call(
    module: Any,
    parameters_and_buffers: Mapping[str, Any],
    args: Any = None,
    kwargs: Any = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the tensors of ``parameters_and_buffers`` (one
    dict ``{"layer.weight": tensor, ...}``) standing in for the module's own for this one
    call (``ferrograd.func.functional_call``, which also takes a tuple of dicts)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(parameters_and_buffers, Mapping):
        raise TypeError(
            "stateless.functional_call: parameters_and_buffers must be a dict of tensors, "
            f"got {type(parameters_and_buffers).__name__} (torch.func.functional_call also "
            "takes a tuple of dicts)"
        )
    from ..func import functional_call as _functional_call

    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )


__all__ = ["functional_call"]
