"""Layers of two inputs: ``CosineSimilarity`` and ``PairwiseDistance`` (both peers,
over ``F.cosine_similarity`` / ``F.pairwise_distance``) and ``Bilinear`` (both peers,
a learned bilinear form over ``F.bilinear``)."""

from __future__ import annotations

import math
from typing import Any, Optional

from .. import _core
from .._ops_math import cosine_similarity, pairwise_distance
from . import init
from ._layouts import construction_dialect
from .fn_bilinear import bilinear
from .fn_loss_nll import _eps
from .module import Module
from .param_attr import apply_param_attr
from .parameter import Parameter

Tensor = _core.Tensor


class CosineSimilarity(Module):
    """The cosine of the angle between two inputs along ``dim`` (Paddle: ``axis``;
    default 1), norms clamped at ``eps``."""

    def __init__(self, dim: Optional[int] = None, eps: float = 1e-8, *, axis: Optional[int] = None):
        super().__init__()
        if dim is not None and axis is not None and dim != axis:
            raise TypeError(f"CosineSimilarity: pass one of dim ({dim}) and axis ({axis})")
        self.dim = 1 if dim is None and axis is None else (dim if dim is not None else axis)
        self.eps = float(eps)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The cosine similarity of ``x1`` and ``x2``."""
        return cosine_similarity(x1, x2, self.dim, self.eps)

    def extra_repr(self) -> str:
        """The dim and eps."""
        return f"dim={self.dim}, eps={self.eps}"


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim (Paddle: ``epsilon``)."""

    def __init__(
        self,
        p: float = 2.0,
        eps: Optional[float] = None,
        keepdim: bool = False,
        name: Optional[str] = None,
        *,
        epsilon: Optional[float] = None,
    ) -> None:
        super().__init__()
        self.norm = float(p)
        self.eps = _eps(eps, epsilon, 1e-6, "PairwiseDistance")
        self.keepdim = bool(keepdim)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The distances between the rows of ``x1`` and ``x2``."""
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)

    def extra_repr(self) -> str:
        """p, eps and keepdim."""
        return f"p={self.norm}, eps={self.eps}, keepdim={self.keepdim}"


class Bilinear(Module):
    """``y = x1 @ weight[o] @ x2 + bias[o]`` with ``weight`` ``[out, in1, in2]``
    (PyTorch's ``Bilinear(in1_features, in2_features, out_features, bias=True)``, Paddle's
    ``Bilinear(in1_features, in2_features, out_features, weight_attr, bias_attr)``; the
    bias is ``[out]``). Both start uniform in ``±1/sqrt(in1_features)`` (PyTorch's
    initialisation, used for both dialects unless an attr gives an initializer)."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: Any = True,
        dtype: Any = None,
        *,
        weight_attr: Any = None,
        bias_attr: Any = None,
        name: Optional[str] = None,
        device: Any = None,
    ) -> None:
        super().__init__()
        # Paddle's fourth and fifth positional arguments are weight_attr and bias_attr
        if bias is not True and bias is not False:
            weight_attr, bias = bias, True
            if dtype is not None:
                bias_attr, dtype = dtype, None
        for n in (in1_features, in2_features, out_features):
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(
                    f"Bilinear: feature counts must be positive ints, got {in1_features}, "
                    f"{in2_features}, {out_features}"
                )
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        d = dtype if dtype is not None else _core._get_default_dtype()
        self.weight = Parameter(_core.empty([out_features, in1_features, in2_features], dtype=d))
        #: Paddle code: Paddle's bias ``[1, out]`` and init (Xavier-uniform weight, zero bias)
        self._paddle_layout = construction_dialect() == "paddle"
        if bias and bias_attr is not False:
            shape = [1, out_features] if self._paddle_layout else [out_features]
            self.bias = Parameter(_core.empty(shape, dtype=d))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        apply_param_attr(self.weight, weight_attr)
        if self.bias is not None:
            apply_param_attr(self.bias, bias_attr, is_bias=True)

    def reset_parameters(self) -> None:
        """Fresh values uniform in ``±1/sqrt(in1_features)`` (ferrograd's generator);
        in Paddle code, Paddle's: Xavier-uniform weight, zero bias."""
        if getattr(self, "_paddle_layout", False):
            init.xavier_uniform_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)
            return
        bound = 1.0 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The bilinear form of ``x1`` and ``x2``."""
        return bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The feature counts."""
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


__all__ = ["CosineSimilarity", "PairwiseDistance", "Bilinear"]
