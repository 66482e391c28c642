"""The ``CTCLoss`` layer of both peers (``F.ctc_loss`` in ``fn_ctc.py``)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .fn_ctc import ctc_loss
from .loss import _Loss

Tensor = _core.Tensor


class CTCLoss(_Loss):
    """Connectionist Temporal Classification loss (``F.ctc_loss``). torch:
    ``CTCLoss(blank=0, reduction='mean', zero_infinity=False)`` called as
    ``loss(log_probs, targets, input_lengths, target_lengths)``; Paddle: ``CTCLoss(blank=0,
    reduction='mean')`` called as ``loss(log_probs, labels, input_lengths, label_lengths,
    norm_by_times=False)``."""

    def __init__(
        self,
        blank: int = 0,
        reduction: str = "mean",
        zero_infinity: bool = False,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(reduction)
        self.blank, self.zero_infinity = int(blank), bool(zero_infinity)

    def forward(
        self,
        log_probs: Tensor,
        targets: Any = None,
        input_lengths: Any = None,
        target_lengths: Any = None,
        norm_by_times: bool = False,
        *,
        labels: Any = None,
        label_lengths: Any = None,
    ) -> Tensor:
        """The CTC loss of ``log_probs`` ``[T, B, C]`` against the targets."""
        return ctc_loss(
            log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
            self.zero_infinity, labels=labels, label_lengths=label_lengths,
            norm_by_times=norm_by_times,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return f"blank={self.blank}, reduction={self.reduction!r}"


__all__ = ["CTCLoss"]
