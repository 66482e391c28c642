"""``inplace=True`` for activations and dropout (``F.relu(x, inplace=True)``,
``nn.ReLU(inplace=True)``, ...): the result is written into the input, which is returned,
as in PyTorch and Paddle — the input's version counter moves, views of it and its base
see the new values, and gradients flow to what the input was before the write.

The difference from the peers is memory, not meaning: when autograd records, the result
is computed from a copy of the input and then copied back, because the activation may
save its input for backward and the write would otherwise make that saved tensor stale
(the version check would refuse the backward). So ``inplace=True`` saves no memory in
ferrograd; it is accepted so that peer code runs unchanged and behaves the same.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _core
from ..grad_mode import is_grad_enabled

Tensor = _core.Tensor


def run_inplace(x: Any, compute: Callable[[Tensor], Tensor], what: str) -> Tensor:
    """Writes ``compute(x)`` into ``x`` and returns ``x``. ``compute`` gets a copy of
    ``x`` when autograd records through ``x`` (see the module docstring)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: inplace=True needs a Tensor input, got {type(x).__name__}")
    source = x.clone() if (x.requires_grad and is_grad_enabled()) else x
    out = compute(source)
    if out is x:  # nothing to write (e.g. dropout in eval mode)
        return x
    if out.dtype != x.dtype:
        raise TypeError(
            f"{what}: inplace=True cannot write a {out.dtype} result into the {x.dtype} "
            "input; convert the input to a floating-point dtype first or use inplace=False"
        )
    if list(out.shape) != list(x.shape):
        raise RuntimeError(
            f"{what}: inplace=True got a result of shape {list(out.shape)} for an input of "
            f"shape {list(x.shape)}"
        )
    x.copy_(out)
    return x
