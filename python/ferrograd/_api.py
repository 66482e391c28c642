"""Dialect aliases: the same ops under Paddle's and PyTorch's names, as module functions
(the unbound ``Tensor`` methods themselves, so calls cost no extra Python frame) and as
extra ``Tensor`` method names."""

from __future__ import annotations

from . import _core

Tensor = _core.Tensor

# Module functions that take the tensor first: the method descriptors themselves.
_METHOD_FUNCTIONS = [
    "add", "subtract", "sub", "multiply", "mul", "divide", "div", "true_divide",
    "floor_divide", "remainder", "mod", "pow", "maximum", "minimum",
    "equal", "eq", "not_equal", "ne", "less_than", "lt", "less_equal", "le",
    "greater_than", "gt", "greater_equal", "ge",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "neg", "negative", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
    "square", "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "gelu",
    "softplus", "erf", "floor", "ceil", "round", "clip", "clamp",
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std",
    "logsumexp", "all", "any", "softmax", "log_softmax",
    "matmul", "mm", "bmm", "dot", "outer",
    "reshape", "view", "flatten", "squeeze", "unsqueeze", "expand", "broadcast_to",
    "expand_as", "permute", "transpose", "t", "clone", "detach", "astype", "cast",
    "numel", "scale",
]


def export_functions(namespace: dict) -> None:
    """Puts the method-backed module functions into ``namespace``."""
    for name in _METHOD_FUNCTIONS:
        namespace[name] = getattr(Tensor, name)


def install_tensor_aliases() -> None:
    """Adds alternative method names and class attributes to ``Tensor``."""
    # NumPy defers to our reflected operators (ndarray + tensor -> tensor).
    Tensor.__array_priority__ = 1000
    Tensor.absolute = Tensor.abs
    Tensor.multiply_ = Tensor.mul_
    Tensor.clamp_min = lambda self, min: self.clip(min=min)
    Tensor.clamp_max = lambda self, max: self.clip(max=max)
    Tensor.ravel = lambda self: self.reshape(-1)
    Tensor.type_as = lambda self, other: self.astype(other.dtype)
    Tensor.new_zeros = lambda self, *shape, dtype=None: _core.zeros(*shape, dtype=dtype or self.dtype)
    Tensor.new_ones = lambda self, *shape, dtype=None: _core.ones(*shape, dtype=dtype or self.dtype)
