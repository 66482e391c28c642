"""PyTorch's ``nn.LazyLinear``: a ``Linear`` whose ``in_features`` is read from the last
dimension of its first input.

Until then its ``weight`` / ``bias`` are :class:`UninitializedParameter` placeholders
(empty); the first call (or ``initialize_parameters(x)``) creates the real parameters,
draws them as ``Linear`` does, and turns the module into a plain ``nn.Linear`` (as
PyTorch does). Loading a ``state_dict`` into a lazy module creates them with the saved
shapes. One difference from PyTorch: ferrograd cannot resize a tensor in place, so the
materialized parameters are new objects. Build the optimizer after the first call (a
dry run, as PyTorch's documentation recommends); an optimizer given placeholders raises.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

from .. import _core
from .layers import Linear, _dtype_name
from .module import Module
from .parameter import Parameter

Tensor = _core.Tensor


class UninitializedParameter(Parameter):
    """The placeholder of a lazy module's parameter before its shape is known: an empty
    tensor (``shape [0]``) that the first forward pass replaces with a real ``Parameter``
    (torch's ``nn.UninitializedParameter``)."""

    def __new__(cls, requires_grad: bool = True, dtype: Any = None) -> Any:
        return super().__new__(cls, _core.empty([0], dtype=_dtype_name(dtype)), requires_grad)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"


def _features(n: Any, what: str) -> int:
    if isinstance(n, bool):
        raise TypeError(f"{what}: out_features must be an int, got bool")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"{what}: out_features must be non-negative, got {n}")
    return n


class LazyLinear(Linear):
    """``LazyLinear(out_features, bias=True, device=None, dtype=None)``: ``nn.Linear``
    with ``in_features`` inferred from the first input's last dimension. Until then
    ``in_features`` is 0 and ``has_uninitialized_params()`` is True; afterwards the
    module *is* an ``nn.Linear``."""

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        Module.__init__(self)
        self.in_features = 0
        self.out_features = _features(out_features, "LazyLinear")
        self.weight_layout = "out_in"  # PyTorch's layer: PyTorch's layout in any code
        self._lazy_dtype = dtype
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter is still an :class:`UninitializedParameter`."""
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def reset_parameters(self) -> None:
        """Draws fresh values as ``Linear`` does (nothing to do before materializing)."""
        if not self.has_uninitialized_params():
            super().reset_parameters()

    def _materialize(self, in_features: int) -> None:
        d = _dtype_name(self._lazy_dtype)
        self.in_features = in_features
        self.weight = Parameter(_core.empty([self.out_features, in_features], dtype=d))
        if self.bias is not None:
            self.bias = Parameter(_core.empty([self.out_features], dtype=d))
        Linear.reset_parameters(self)
        self.__dict__.pop("_lazy_dtype", None)
        self.__class__ = Linear  # type: ignore[assignment]  # torch: cls_to_become

    def initialize_parameters(self, input: Tensor) -> None:
        """Creates ``weight`` ``[out_features, input.shape[-1]]`` and ``bias`` and draws
        them; the module becomes an ``nn.Linear``."""
        if not self.has_uninitialized_params():
            return
        if not isinstance(input, Tensor):
            raise TypeError(
                f"LazyLinear: the first call needs an eager Tensor to read in_features from, "
                f"got {type(input).__name__}"
            )
        if input.ndim == 0:
            raise ValueError("LazyLinear: the input must have at least one dimension")
        self._materialize(int(input.shape[-1]))

    def forward(self, x: Tensor) -> Tensor:
        """Materializes the parameters on the first call, then ``x @ weight.T + bias``."""
        self.initialize_parameters(x)
        return Linear.forward(self, x)

    def _materialize_from_state(self, state_dict: Mapping[str, Any], prefix: str) -> None:
        """``load_state_dict`` hook: a saved ``weight`` of shape ``[out, in]`` fixes
        ``in_features`` before the values are copied."""
        w = state_dict.get(prefix + "weight")
        if w is None or not self.has_uninitialized_params():
            return
        shape = list(w.shape)
        if len(shape) != 2 or shape[0] != self.out_features:
            raise ValueError(
                f"LazyLinear: the saved weight {prefix}weight has shape {shape}, expected "
                f"[{self.out_features}, in_features]"
            )
        self._materialize(shape[1])
