"""``torch.autograd.function``: the module path PyTorch code imports ``Function``,
``FunctionCtx`` and ``once_differentiable`` from."""

from __future__ import annotations

from .py_layer import Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "once_differentiable"]
