"""The ``RNNTLoss`` layer of Paddle (``F.rnnt_loss`` in ``fn_rnnt.py``)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .fn_rnnt import rnnt_loss
from .loss import _Loss

Tensor = _core.Tensor


class RNNTLoss(_Loss):
    """RNN transducer loss (``F.rnnt_loss``). Paddle: ``RNNTLoss(blank=0,
    fastemit_lambda=0.001, reduction='mean')`` called as
    ``loss(input, label, input_lengths, label_lengths)``."""

    def __init__(
        self,
        blank: int = 0,
        fastemit_lambda: float = 0.001,
        reduction: str = "mean",
        name: Optional[str] = None,
    ) -> None:
        super().__init__(reduction)
        self.blank, self.fastemit_lambda = blank, fastemit_lambda

    def forward(self, input: Tensor, label: Any, input_lengths: Any, label_lengths: Any) -> Tensor:
        """The RNN-T loss of logits ``input`` ``[B, Tmax, Umax+1, V]`` against ``label``."""
        return rnnt_loss(
            input, label, input_lengths, label_lengths, self.blank, self.fastemit_lambda,
            self.reduction,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"blank={self.blank}, fastemit_lambda={self.fastemit_lambda}, "
            f"reduction={self.reduction!r}"
        )


__all__ = ["RNNTLoss"]
