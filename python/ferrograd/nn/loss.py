"""Loss layers for the losses of ``nn.fn_loss``, in both dialects (the class names agree).

``weight`` / ``pos_weight`` tensors are registered as buffers (in ``state_dict``, as in
torch). ``SmoothL1Loss`` takes torch's ``beta`` or Paddle's ``delta``: see
``F.smooth_l1_loss`` for how the two formulas differ.
"""

from __future__ import annotations

from typing import Optional

from .. import _core
from . import fn_loss as L
from ._reduction import legacy_get_string
from .module import Module

Tensor = _core.Tensor


class _Loss(Module):
    """A loss with a ``reduction`` (``"mean"``, ``"sum"`` or ``"none"``); torch's
    deprecated keyword-only ``size_average`` / ``reduce`` are mapped to it at
    construction (``nn._reduction.legacy_get_string``)."""

    def __init__(
        self,
        reduction: str = "mean",
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            # PyTorch's _Loss: the deprecated pair wins over reduction, with a warning
            reduction = legacy_get_string(size_average, reduce)
        L._check_reduction(reduction, type(self).__name__, self._extra)
        self.reduction = reduction

    _extra: tuple = ()

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class L1Loss(_Loss):
    """Mean / sum / elementwise absolute error."""

    def __init__(
        self,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """``|input - label|``, reduced."""
        return L.l1_loss(input, label, self.reduction)


class HuberLoss(_Loss):
    """Huber loss with threshold ``delta`` (quadratic inside, linear outside)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0, name: Optional[str] = None):
        super().__init__(reduction)
        if not delta > 0:
            raise ValueError(f"HuberLoss: delta must be positive, got {delta}")
        self.delta = float(delta)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """Huber loss of ``input`` against ``label``."""
        return L.huber_loss(input, label, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    """Smooth L1: torch's ``SmoothL1Loss(reduction, beta=1.0)`` or Paddle's
    ``SmoothL1Loss(reduction, delta=1.0)`` (Huber's form, ``delta`` times torch's)."""

    def __init__(
        self,
        reduction: str = "mean",
        delta: Optional[float] = None,
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
        beta: Optional[float] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        if delta is not None and beta is not None:
            raise TypeError("SmoothL1Loss: pass beta (torch) or delta (Paddle), not both")
        self.delta = delta
        self.beta = beta

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """Smooth L1 loss of ``input`` against ``label``."""
        return L.smooth_l1_loss(input, label, self.reduction, self.delta, beta=self.beta)


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities, optionally weighted elementwise."""

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """BCE of probabilities ``input`` against ``label``."""
        return L.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits (stable), with ``weight`` and ``pos_weight``."""

    def __init__(
        self,
        weight: Optional[Tensor] = None,
        reduction: str = "mean",
        pos_weight: Optional[Tensor] = None,
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """BCE of logits ``input`` against ``label``."""
        return L.binary_cross_entropy_with_logits(
            input, label, self.weight, self.reduction, self.pos_weight
        )


class KLDivLoss(_Loss):
    """KL divergence of log-probabilities ``input`` from ``label`` (``"batchmean"`` gives
    the true KL per sample)."""

    _extra = ("batchmean",)

    def __init__(
        self,
        reduction: str = "mean",
        log_target: bool = False,
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.log_target = log_target

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """KL divergence, reduced."""
        return L.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(_Loss):
    """``max(0, -label * (input - other) + margin)``."""

    def __init__(
        self,
        margin: float = 0.0,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.margin = float(margin)

    def forward(self, input: Tensor, other: Tensor, label: Tensor) -> Tensor:
        """The ranking loss of the pair against ``label`` (1 or -1)."""
        return L.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-label * input))``."""

    def __init__(
        self,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """Soft margin loss, reduced."""
        return L.soft_margin_loss(input, label, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for similar pairs (label 1), ``max(0, cos - margin)`` for dissimilar."""

    def __init__(
        self,
        margin: float = 0.0,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.margin = float(margin)

    def forward(self, input1: Tensor, input2: Tensor, label: Tensor) -> Tensor:
        """Cosine embedding loss, reduced."""
        return L.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


__all__ = [
    "L1Loss",
    "HuberLoss",
    "SmoothL1Loss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "SoftMarginLoss",
    "CosineEmbeddingLoss",
]


def __getattr__(name: str) -> type:
    """The other loss layers under this module too (Paddle's ``paddle.nn.loss.MSELoss``,
    ``paddle.nn.loss.CrossEntropyLoss`` in its ``F.mse_loss`` / ``F.cross_entropy``
    examples): any ``nn`` class whose name ends in ``Loss``."""
    if name.endswith("Loss"):
        from .. import nn

        cls = getattr(nn, name, None)
        if isinstance(cls, type):
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
