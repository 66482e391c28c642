"""``OneCycleLR`` (both dialects in one class) and the metric-driven
``ReduceLROnPlateau`` (torch) / ``ReduceOnPlateau`` (Paddle)."""

from __future__ import annotations

import math
from typing import Any

from .lr_scheduler import LRScheduler, _positive_int


def _anneal(strategy: str) -> Any:
    if strategy == "cos":
        return lambda start, end, pct: end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
    if strategy == "linear":
        return lambda start, end, pct: (end - start) * pct + start
    raise ValueError(f"anneal_strategy must be 'cos' or 'linear', got {strategy!r}")


def _momentum_key(optimizer: Any) -> str:
    """The hyper-parameter a cycling schedule moves with the rate: ``momentum`` (SGD,
    RMSprop) or ``betas`` (Adam's beta1)."""
    defaults = optimizer.defaults
    if "momentum" in defaults:
        return "momentum"
    if "betas" in defaults:
        return "betas"
    raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` enabled")


def _per_group(value: Any, n: int, name: str) -> list[float]:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"expected {n} values of {name} (one per group), got {len(value)}")
        return [float(v) for v in value]
    return [float(value)] * n


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate rises from ``initial = max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of ``total_steps``, then anneals (cosine or
    linear) to ``min_lr``; with ``three_phase`` it first returns to ``initial``.
    Phase ends: ``pct_start * total - 1`` (and ``2 * pct_start * total - 2``), then
    ``total - 1``; within a phase ``pct = (step - phase start) / phase length``.

    torch: ``OneCycleLR(optimizer, max_lr, total_steps=None, epochs=None,
    steps_per_epoch=None, pct_start=0.3, anneal_strategy='cos', cycle_momentum=True,
    base_momentum=0.85, max_momentum=0.95, div_factor=25.0, final_div_factor=1e4,
    three_phase=False)``, ``min_lr = initial / final_div_factor``; momentum (or Adam's
    ``beta1``) cycles inversely between ``max_momentum`` and ``base_momentum``.
    Paddle: ``OneCycleLR(max_learning_rate, total_steps, divide_factor=25.0,
    end_learning_rate=1e-4, phase_pct=0.3, anneal_strategy='cos', three_phase=False)``,
    ``min_lr = end_learning_rate``.
    """

    def __init__(
        self,
        optimizer: Any = None,
        max_lr: Any = None,
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: str = "cos",
        cycle_momentum: bool = True,
        base_momentum: Any = 0.85,
        max_momentum: Any = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
        verbose: bool = False,
        *,
        max_learning_rate: float | None = None,
        divide_factor: float | None = None,
        end_learning_rate: float | None = None,
        phase_pct: float | None = None,
    ) -> None:
        torch_style = hasattr(optimizer, "param_groups")
        if not torch_style:
            # Paddle: OneCycleLR(max_learning_rate, total_steps, ...)
            if max_learning_rate is None:
                max_learning_rate, optimizer = optimizer, None
                if total_steps is None and max_lr is not None:
                    total_steps, max_lr = max_lr, None
            if max_learning_rate is None:
                raise TypeError("OneCycleLR needs an optimizer (torch) or max_learning_rate")
            max_lr = max_learning_rate
            cycle_momentum = False
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError(
                    "You must define either total_steps OR (epochs AND steps_per_epoch)"
                )
            total_steps = _positive_int("epochs", epochs) * _positive_int(
                "steps_per_epoch", steps_per_epoch
            )
        self.total_steps = _positive_int("total_steps", total_steps)
        pct = float(phase_pct if phase_pct is not None else pct_start)
        if not 0.0 <= pct <= 1.0:
            raise ValueError(f"pct_start must be in [0, 1], got {pct}")
        div = float(divide_factor if divide_factor is not None else div_factor)
        self.anneal_strategy = anneal_strategy
        _anneal(anneal_strategy)
        t = self.total_steps
        if three_phase:
            self._ends = [pct * t - 1, 2 * pct * t - 2, t - 1]
        else:
            self._ends = [pct * t - 1, t - 1]
        n = len(optimizer.param_groups) if torch_style else 1
        maxes = _per_group(max_lr, n, "max_lr")
        initials = [m / div for m in maxes]
        if torch_style:
            mins = [i / float(final_div_factor) for i in initials]
        else:
            end = 1e-4 if end_learning_rate is None else float(end_learning_rate)
            mins = [end]
        # per group: the rate at each phase boundary
        self._lr_points = [
            [i, m, i, lo] if three_phase else [i, m, lo] for i, m, lo in zip(initials, maxes, mins)
        ]
        self.cycle_momentum = bool(cycle_momentum)
        self._mom_points: list[list[float]] = []
        self._mom_key = None
        if self.cycle_momentum:
            self._mom_key = _momentum_key(optimizer)
            lows = _per_group(base_momentum, n, "base_momentum")
            highs = _per_group(max_momentum, n, "max_momentum")
            self._mom_points = [
                [h, lo, h, h] if three_phase else [h, lo, h] for lo, h in zip(lows, highs)
            ]
        if torch_style and last_epoch == -1:
            for g, i in zip(optimizer.param_groups, initials):
                g["initial_lr"] = i
                g["lr"] = i
        if torch_style:
            LRScheduler.__init__(self, optimizer, last_epoch, verbose=verbose)
        else:
            LRScheduler.__init__(self, None, last_epoch, initials[0], verbose)

    def _at(self, points: list[float], step: int) -> float:
        anneal = _anneal(self.anneal_strategy)
        start = 0.0
        for i, end in enumerate(self._ends):
            if step <= end or i == len(self._ends) - 1:
                span = end - start
                frac = (step - start) / span if span != 0 else 1.0
                return anneal(points[i], points[i + 1], frac)
            start = end
        raise AssertionError("unreachable")

    def _rates(self, epoch: int) -> list[float]:
        if epoch > self.total_steps:
            raise ValueError(
                f"Tried to step {epoch} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        return [self._at(points, epoch) for points in self._lr_points]

    def step(self, epoch: int | None = None) -> None:
        """Advances one batch; also cycles the momentum when ``cycle_momentum``."""
        super().step(epoch)
        if self.cycle_momentum and self.optimizer is not None:
            for g, points in zip(self.optimizer.param_groups, self._mom_points):
                m = self._at(points, self.last_epoch)
                if self._mom_key == "betas":
                    g["betas"] = (m, *g["betas"][1:])
                else:
                    g["momentum"] = m


class ReduceLROnPlateau(LRScheduler):
    """Lowers the rate by ``factor`` when a metric has stopped improving for more than
    ``patience`` epochs. torch: ``ReduceLROnPlateau(optimizer, mode='min', factor=0.1,
    patience=10, threshold=1e-4, threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8)``;
    call ``step(metric)`` once per epoch. Improvement ('min', 'rel'):
    ``metric < best * (1 - threshold)`` ('abs': ``metric < best - threshold``; 'max'
    mirrored). A reduction ``lr -> max(lr * factor, min_lr)`` is skipped if smaller than
    ``eps``; ``cooldown`` epochs after one, bad epochs are not counted."""

    #: set by a subclass before ``__init__`` when it is built without an optimizer
    _initial_lr: float

    _paddle = False

    def __init__(
        self,
        optimizer: Any,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: Any = 0.0,
        eps: float = 1e-8,
        verbose: bool = False,
    ) -> None:
        if float(factor) >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode!r} is unknown: use 'min' or 'max'")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode!r} is unknown: use 'rel' or 'abs'")
        self.optimizer = optimizer
        if optimizer is not None:
            if not hasattr(optimizer, "param_groups"):
                raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
            lrs = [float(g["lr"]) for g in optimizer.param_groups]
        else:
            lrs = [float(self._initial_lr)]
        self.min_lrs = _per_group(min_lr, len(lrs), "min_lr")
        self.mode, self.factor, self.patience = mode, float(factor), int(patience)
        self.threshold, self.threshold_mode = float(threshold), threshold_mode
        self.cooldown, self.eps, self.verbose = int(cooldown), float(eps), verbose
        self.base_lrs = lrs
        self.base_lr = lrs[0]
        self._last_lr = list(lrs)
        self.last_lr = lrs[0]
        self.last_epoch = 0
        self.cooldown_counter = 0
        self.num_bad_epochs = 0
        self.best = math.inf if mode == "min" else -math.inf

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            bound = (
                best * (1 - self.threshold)
                if self.threshold_mode == "rel"
                else best - self.threshold
            )
            return a < bound
        bound = (
            best * (1 + self.threshold) if self.threshold_mode == "rel" else best + self.threshold
        )
        return a > bound

    def step(self, metrics: Any = None, epoch: int | None = None) -> None:  # type: ignore[override]
        """Records this epoch's metric (a number or a one-element tensor)."""
        if metrics is None:
            raise TypeError("ReduceLROnPlateau.step() needs the metric: step(val_loss)")
        current = float(metrics.item() if hasattr(metrics, "item") else metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        if self._paddle and self.cooldown_counter > 0:
            # Paddle: the metric is not looked at during the cooldown
            self.cooldown_counter -= 1
        else:
            if self._is_better(current, self.best):
                self.best = current
                self.num_bad_epochs = 0
            else:
                self.num_bad_epochs += 1
            if not self._paddle and self.cooldown_counter > 0:
                self.cooldown_counter -= 1
                self.num_bad_epochs = 0
            if self.num_bad_epochs > self.patience:
                self._reduce()
                self.cooldown_counter = self.cooldown
                self.num_bad_epochs = 0
        if self.optimizer is not None:
            self._last_lr = [float(g["lr"]) for g in self.optimizer.param_groups]
        self.last_lr = self._last_lr[0]

    def _reduce(self) -> None:
        current = (
            [float(g["lr"]) for g in self.optimizer.param_groups]
            if self.optimizer is not None
            else list(self._last_lr)
        )
        for i, old in enumerate(current):
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                current[i] = new
                if self.optimizer is not None:
                    self.optimizer.param_groups[i]["lr"] = new
                if self.verbose:
                    print(
                        f"Epoch {self.last_epoch}: reducing learning rate of group {i} to {new:.4e}."
                    )
        self._last_lr = current

    @property
    def in_cooldown(self) -> bool:
        """True while bad epochs are not being counted."""
        return self.cooldown_counter > 0


class ReduceOnPlateau(ReduceLROnPlateau):
    """Paddle: ``ReduceOnPlateau(learning_rate, mode='min', factor=0.1, patience=10,
    threshold=1e-4, threshold_mode='rel', cooldown=0, min_lr=0, epsilon=1e-8)``, given to
    an optimizer as its ``learning_rate``; ``step(metrics)`` once per epoch. As Paddle
    does, the metric is not looked at during the cooldown epochs."""

    _paddle = True

    def __init__(
        self,
        learning_rate: float,
        mode: str = "min",
        factor: float = 0.1,
        patience: int = 10,
        threshold: float = 1e-4,
        threshold_mode: str = "rel",
        cooldown: int = 0,
        min_lr: float = 0.0,
        epsilon: float = 1e-8,
        verbose: bool = False,
    ) -> None:
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
            raise TypeError(f"learning_rate must be a number, got {type(learning_rate).__name__}")
        self._initial_lr = float(learning_rate)
        super().__init__(
            None,
            mode,
            factor,
            patience,
            threshold,
            threshold_mode,
            cooldown,
            min_lr,
            epsilon,
            verbose,
        )
