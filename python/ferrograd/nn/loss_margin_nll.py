"""Loss layers for ``nn.fn_loss_margin`` and ``nn.fn_loss_nll``, in both dialects:
``TripletMarginLoss``, ``TripletMarginWithDistanceLoss``, ``HingeEmbeddingLoss``,
``MultiMarginLoss``, ``MultiLabelSoftMarginLoss``, ``PoissonNLLLoss`` and
``GaussianNLLLoss``. torch's ``eps`` is Paddle's ``epsilon``; ``weight`` tensors are
buffers (in ``state_dict``, as in torch)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from .. import _core
from . import fn_loss_margin as M
from . import fn_loss_nll as N
from .loss import _Loss

Tensor = _core.Tensor


def _either(eps: Optional[float], epsilon: Optional[float], default: float, what: str) -> float:
    return N._eps(eps, epsilon, default, what)


class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the ``p``-norm distance
    (``F.triplet_margin_loss``)."""

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        epsilon: Optional[float] = None,
        swap: bool = False,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
        eps: Optional[float] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.margin, self.p, self.swap = float(margin), float(p), bool(swap)
        self.eps = _either(eps, epsilon, 1e-6, "TripletMarginLoss")

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """The triplet loss of anchors ``input``."""
        return M.triplet_margin_loss(
            input, positive, negative, self.margin, self.p, None, self.swap, self.reduction,
            eps=self.eps,
        )  # fmt: skip


class TripletMarginWithDistanceLoss(_Loss):
    """:class:`TripletMarginLoss` with any ``distance_function(x1, x2)``."""

    def __init__(
        self,
        distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
        name: Optional[str] = None,
    ) -> None:
        super().__init__(reduction)
        if not margin > 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: margin must be positive, got {margin}"
            )
        self.distance_function, self.margin, self.swap = distance_function, float(margin), swap

    def forward(self, input: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """The triplet loss of anchors ``input``."""
        return M.triplet_margin_with_distance_loss(
            input, positive, negative, self.distance_function, self.margin, self.swap,
            self.reduction,
        )  # fmt: skip


class HingeEmbeddingLoss(_Loss):
    """``x`` for label 1, ``max(0, margin - x)`` for label -1."""

    def __init__(
        self,
        margin: float = 1.0,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.margin = float(margin)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """The hinge embedding loss, reduced."""
        return M.hinge_embedding_loss(input, label, self.margin, self.reduction)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss (``F.multi_margin_loss``), ``p`` 1 or 2."""

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Optional[Tensor] = None,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: p must be 1 or 2, got {p!r}")
        self.p, self.margin = p, float(margin)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """The multi-margin loss, reduced."""
        return M.multi_margin_loss(input, label, self.p, self.margin, self.weight, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Multi-label one-vs-all logistic loss (``F.multilabel_soft_margin_loss``)."""

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
        """The multi-label soft margin loss, reduced."""
        return M.multilabel_soft_margin_loss(input, label, self.weight, self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood (``F.poisson_nll_loss``): torch's
    ``PoissonNLLLoss(log_input, full, eps=...)``, Paddle's ``(log_input, full, epsilon)``."""

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        epsilon: Optional[float] = None,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        size_average: Optional[bool] = None,
        reduce: Optional[bool] = None,
        eps: Optional[float] = None,
    ) -> None:
        super().__init__(reduction, size_average=size_average, reduce=reduce)
        self.log_input, self.full = bool(log_input), bool(full)
        self.eps = _either(eps, epsilon, 1e-8, "PoissonNLLLoss")

    def forward(self, input: Tensor, label: Tensor) -> Tensor:
        """The Poisson NLL of ``label`` given rates ``input``."""
        return N.poisson_nll_loss(
            input, label, self.log_input, self.full, None, self.reduction, eps=self.eps
        )


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood (``F.gaussian_nll_loss``): torch's
    ``GaussianNLLLoss(full=False, eps=1e-6, reduction)``, Paddle's ``(full, epsilon,
    reduction)``; ``forward(input, label, variance)``."""

    def __init__(
        self,
        full: bool = False,
        epsilon: Optional[float] = None,
        reduction: str = "mean",
        name: Optional[str] = None,
        *,
        eps: Optional[float] = None,
    ) -> None:
        super().__init__(reduction)
        self.full = bool(full)
        self.eps = _either(eps, epsilon, 1e-6, "GaussianNLLLoss")

    def forward(self, input: Tensor, label: Tensor, variance: Any) -> Tensor:
        """The Gaussian NLL of ``label`` given means ``input`` and ``variance``."""
        return N.gaussian_nll_loss(
            input, label, variance, self.full, None, self.reduction, eps=self.eps
        )


__all__ = [
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "HingeEmbeddingLoss",
    "MultiMarginLoss",
    "MultiLabelSoftMarginLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
]
