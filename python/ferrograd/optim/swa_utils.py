"""``ferrograd.optim.swa_utils``: PyTorch's weight averaging (SWA, Izmailov et al.) and
exponential moving averages of a model: ``AveragedModel``, the ``SWALR`` schedule,
``update_bn`` and the ``get_ema_*`` / ``get_swa_*`` averaging functions.

``AveragedModel(model)`` keeps a deep copy whose parameters (and buffers with
``use_buffers=True``) ``update_parameters(model)`` averages in: by default the running
mean ``avg + (p - avg) / (n + 1)`` over the ``n`` models seen, or any ``avg_fn(avg, p, n)``
(a new tensor) or ``multi_avg_fn(avgs, ps, n)`` (in place over lists)."""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import _core
from ..grad_mode import no_grad
from ..nn.module import Module
from .lr_scheduler import LRScheduler

Tensor = _core.Tensor

__all__ = [
    "AveragedModel",
    "SWALR",
    "update_bn",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
]


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """``avg_fn`` for an exponential moving average: ``decay * avg + (1 - decay) * p``."""

    def ema(avg: Tensor, p: Tensor, n: Any) -> Tensor:
        return avg * decay + p * (1.0 - decay)

    return ema


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[list[Tensor], list[Tensor], Any], None]:
    """``multi_avg_fn`` for an exponential moving average, in place over the lists."""

    def ema(avgs: list[Tensor], ps: list[Tensor], n: Any) -> None:
        for a, p in zip(avgs, ps):
            a.copy_(a * decay + p * (1.0 - decay))

    return ema


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """``avg_fn`` for the equal-weight running mean of the models seen."""

    def swa(avg: Tensor, p: Tensor, n: Any) -> Tensor:
        return avg + (p - avg) / (int(n) + 1)

    return swa


def get_swa_multi_avg_fn() -> Callable[[list[Tensor], list[Tensor], Any], None]:
    """``multi_avg_fn`` for the equal-weight running mean, in place over the lists."""

    def swa(avgs: list[Tensor], ps: list[Tensor], n: Any) -> None:
        for a, p in zip(avgs, ps):
            a.copy_(a + (p - a) / (int(n) + 1))

    return swa


class AveragedModel(Module):
    """A running average of a model's weights (SWA by default; EMA with
    ``multi_avg_fn=get_ema_multi_avg_fn(decay)``). ``module`` is the averaged copy and
    ``n_averaged`` (a buffer) counts the updates; calling it runs the copy.
    ``device`` is accepted for PyTorch's signature (CPU only)."""

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable[[Tensor, Tensor, Any], Tensor] | None = None,
        multi_avg_fn: Callable[[list[Tensor], list[Tensor], Any], None] | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise ValueError("AveragedModel: give avg_fn or multi_avg_fn, not both")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", _core.tensor(0, dtype=_core.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged copy applied to the inputs."""
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> list[Tensor]:
        own: Iterable[Tensor] = model.parameters()
        if self.use_buffers:
            own = itertools.chain(own, (b for b in model.buffers() if b is not None))
        return list(own)

    def update_parameters(self, model: Module) -> None:
        """Averages ``model``'s current weights into the copy (the first call copies), as
        PyTorch's (torch/optim/swa_utils.py, on the CPU): every tensor averaged, integer
        buffers (``num_batches_tracked``) too, the average written back with ``copy_``
        (so an integer one is truncated toward zero); ``multi_avg_fn`` is called once per
        dtype group; without ``use_buffers`` the buffers are copied from ``model``."""
        avgs = self._tensors(self.module)
        news = [p.detach() for p in self._tensors(model)]
        if len(avgs) != len(news):
            raise ValueError(
                f"AveragedModel.update_parameters: the model has {len(news)} tensors to "
                f"average, the averaged copy {len(avgs)}; pass the model it was built from"
            )
        n = int(self.n_averaged)
        with no_grad():
            if n == 0:
                for a, p in zip(avgs, news):
                    a.copy_(p)
            elif self.multi_avg_fn is not None or self.avg_fn is None:
                # PyTorch groups the tensors by (device, dtype); the CPU has no foreach
                # kernels there, so the default is get_swa_avg_fn tensor by tensor
                groups: dict[Any, tuple[list[Tensor], list[Tensor]]] = {}
                for a, p in zip(avgs, news):
                    group = groups.setdefault(str(a.dtype), ([], []))
                    group[0].append(a)
                    group[1].append(p)
                for group_avgs, group_news in groups.values():
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(group_avgs, group_news, self.n_averaged)
                        continue
                    swa = get_swa_avg_fn()
                    for a, p in zip(group_avgs, group_news):
                        a.copy_(swa(a, p, self.n_averaged))
            else:
                for a, p in zip(avgs, news):
                    a.copy_(self.avg_fn(a, p, self.n_averaged))
            if not self.use_buffers:
                # PyTorch keeps the copy's buffers in sync with the source model
                mine = [b for b in self.module.buffers() if b is not None]
                for b, src in zip(mine, [b for b in model.buffers() if b is not None]):
                    b.copy_(src.detach())
            self.n_averaged.fill_(n + 1)


@no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recomputes the batch-norm running statistics of ``model`` with one pass over
    ``loader`` (its batches, or their first element when they are lists or tuples),
    as a plain average over the batches; the model's train/eval mode is restored."""
    norms = [m for m in model.modules() if hasattr(m, "running_mean") and hasattr(m, "momentum")]
    norms = [m for m in norms if getattr(m, "running_mean", None) is not None]
    if not norms:
        return
    momenta = {}
    for m in norms:
        m.reset_running_stats()
        momenta[m] = m.momentum
        m.momentum = None  # a cumulative average over the batches
    was_training = model.training
    model.train()
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        model(batch)
    for m, mom in momenta.items():
        m.momentum = mom
    model.train(was_training)


class SWALR(LRScheduler):
    """PyTorch's ``SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos')``:
    moves each group's rate from its value when the schedule starts to ``swa_lr`` over
    ``anneal_epochs`` steps (cosine or linear), then holds it. ``swa_lr`` may be one
    number or one per group."""

    def __init__(
        self,
        optimizer: Any,
        swa_lr: Any,
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        groups = optimizer.param_groups
        rates = list(swa_lr) if isinstance(swa_lr, (list, tuple)) else [swa_lr] * len(groups)
        if len(rates) != len(groups):
            raise ValueError(f"SWALR: expected {len(groups)} swa_lr values, got {len(rates)}")
        for g, r in zip(groups, rates):
            g["swa_lr"] = float(r)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"SWALR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}"
            )
        if (
            isinstance(anneal_epochs, bool)
            or not isinstance(anneal_epochs, int)
            or anneal_epochs < 0
        ):
            raise ValueError(f"SWALR: anneal_epochs must be an integer >= 0, got {anneal_epochs!r}")
        self.anneal_epochs = anneal_epochs
        self.anneal_strategy = anneal_strategy
        super().__init__(optimizer, last_epoch)

    def _alpha(self, t: float) -> float:
        if self.anneal_strategy == "linear":
            return t
        return (1 - math.cos(math.pi * t)) / 2

    def _rates(self, epoch: int) -> list[float]:
        # PyTorch's recursion: undo the previous step's mix on the group's current rate
        # (so another schedule may have moved it before SWA starts), then mix again
        step = max(1, epoch) if self.anneal_epochs == 0 else epoch
        prev_alpha = self._alpha(max(0.0, min(1.0, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self._alpha(max(0.0, min(1.0, step / max(1, self.anneal_epochs))))
        out = []
        for g in self.optimizer.param_groups:
            swa = g["swa_lr"]
            start = swa if prev_alpha == 1 else (g["lr"] - prev_alpha * swa) / (1 - prev_alpha)
            out.append(swa * alpha + start * (1 - alpha))
        return out
