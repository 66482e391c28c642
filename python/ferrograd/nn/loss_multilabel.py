"""PyTorch's ``nn.MultiLabelMarginLoss`` (the function is ``fn_loss_multilabel.py``)."""

from __future__ import annotations

from typing import Optional

from .. import _core
from .fn_loss_multilabel import multilabel_margin_loss
from .loss import _Loss

Tensor = _core.Tensor


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss (``F.multilabel_margin_loss``): targets are
    class ids padded with -1. torch's ``MultiLabelMarginLoss(size_average=None,
    reduce=None, reduction="mean")``; the deprecated two are mapped to ``reduction`` as
    in PyTorch (with its warning)."""

    def __init__(
        self,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """The multi-label margin loss, reduced."""
        return multilabel_margin_loss(input, target, reduction=self.reduction)
