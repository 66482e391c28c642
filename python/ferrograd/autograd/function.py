"""``torch.autograd.function``: the module path PyTorch code imports ``Function``,
``FunctionCtx``, ``InplaceFunction`` and ``once_differentiable`` from."""

from __future__ import annotations

from .py_layer import Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]


class InplaceFunction(Function):
    """PyTorch's legacy base class for custom functions that may work in place: a
    ``Function`` whose instances carry an ``inplace`` flag (``MyOp(True)``) for their
    own ``forward`` to read. Used through ``apply`` like any ``Function``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace
