"""Learning-rate schedulers in both dialects.

PyTorch's wrap an optimizer and write each group's ``lr`` on ``step()``:
``StepLR(optimizer, step_size, gamma)``, ``CosineAnnealingLR(optimizer, T_max,
eta_min)``. Paddle's stand alone and are given to the optimizer as its
``learning_rate``: ``StepDecay(learning_rate, step_size, gamma)``,
``CosineAnnealingDecay(learning_rate, T_max, eta_min)``; calling one returns the
current rate. Both kinds share one base class, so either works with any optimizer.
"""

from __future__ import annotations

import math
from typing import Any


def _positive_int(name: str, value: Any) -> int:
    """``value`` when it is a positive ``int`` (not a bool), else a ValueError naming it."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


class LRScheduler:
    """Base class. Subclasses define ``_rate(base_lr, epoch)``: the closed-form rate at
    ``epoch`` for a group that started at ``base_lr``."""

    def __init__(
        self,
        optimizer: Any = None,
        last_epoch: int = -1,
        learning_rate: float | None = None,
        verbose: bool = False,
    ) -> None:
        self.optimizer = optimizer
        self.verbose = verbose
        if optimizer is not None:
            if not hasattr(optimizer, "param_groups"):
                raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
            for g in optimizer.param_groups:
                if last_epoch == -1:
                    # kept when set: a second scheduler on the optimizer (a warm-up,
                    # then a decay) starts from the same base rate, as in PyTorch
                    g.setdefault("initial_lr", g["lr"])
                elif "initial_lr" not in g:
                    raise KeyError(
                        "param 'initial_lr' is not specified in param_groups when resuming "
                        "an optimizer (last_epoch != -1)"
                    )
            self.base_lrs = [float(g["initial_lr"]) for g in optimizer.param_groups]
        else:
            if learning_rate is None:
                raise TypeError("a scheduler needs an optimizer or a learning_rate")
            if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
                raise TypeError(
                    f"learning_rate must be a number, got {type(learning_rate).__name__}"
                )
            self.base_lrs = [float(learning_rate)]
        self.base_lr = self.base_lrs[0]
        self.last_epoch = last_epoch
        self.step()

    def _rate(self, base_lr: float, epoch: int) -> float:
        raise NotImplementedError

    def _rates(self, epoch: int) -> list[float]:
        """The rate of every group at ``epoch`` (schedules that differ per group in more
        than ``base_lr`` override this)."""
        return [self._rate(b, epoch) for b in self.base_lrs]

    def get_lr(self) -> Any:
        """The rates for the current epoch: a list per group (torch) or a float when
        standing alone (Paddle)."""
        rates = self._rates(self.last_epoch)
        return rates if self.optimizer is not None else rates[0]

    def step(self, epoch: int | None = None) -> None:
        """Advances one epoch (or jumps to ``epoch``) and applies the new rate."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        rates = self._rates(self.last_epoch)
        self._last_lr = rates
        self.last_lr = rates[0]
        if self.optimizer is not None:
            for g, r in zip(self.optimizer.param_groups, rates):
                g["lr"] = r
        if self.verbose:
            print(f"Epoch {self.last_epoch}: set learning rate to {rates[0]}.")

    def get_last_lr(self) -> list[float]:
        """The rates set by the last ``step()``, one per group."""
        return list(self._last_lr)

    def __call__(self) -> float:
        """Paddle: the current rate."""
        return self.last_lr

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores ``state_dict()``'s output."""
        self.__dict__.update(state_dict)

    def set_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Paddle's name for ``load_state_dict`` (a subclass's own, when it has one)."""
        self.load_state_dict(state_dict)

    set_dict = set_state_dict


class StepLR(LRScheduler):
    """``lr = base_lr * gamma ** (epoch // step_size)``. torch: ``StepLR(optimizer,
    step_size, gamma=0.1)``."""

    def __init__(
        self,
        optimizer: Any,
        step_size: int,
        gamma: float = 0.1,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self._configure(step_size, gamma)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _configure(self, step_size: int, gamma: float) -> None:
        self.step_size = _positive_int("step_size", step_size)
        self.gamma = float(gamma)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return base_lr * self.gamma ** (epoch // self.step_size)


class CosineAnnealingLR(LRScheduler):
    """``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``.
    torch: ``CosineAnnealingLR(optimizer, T_max, eta_min=0)``."""

    def __init__(
        self,
        optimizer: Any,
        T_max: int,
        eta_min: float = 0.0,  # noqa: N803
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self._configure(T_max, eta_min)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _configure(self, T_max: int, eta_min: float) -> None:  # noqa: N803
        self.T_max = _positive_int("T_max", T_max)
        self.eta_min = float(eta_min)

    def _rate(self, base_lr: float, epoch: int) -> float:
        cos = (1 + math.cos(math.pi * epoch / self.T_max)) / 2
        return self.eta_min + (base_lr - self.eta_min) * cos


class StepDecay(StepLR):
    """Paddle: ``StepDecay(learning_rate, step_size, gamma=0.1)``, given to an optimizer
    as its ``learning_rate``."""

    def __init__(
        self,
        learning_rate: float,
        step_size: int,
        gamma: float = 0.1,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self._configure(step_size, gamma)
        LRScheduler.__init__(self, None, last_epoch, learning_rate, verbose)


class CosineAnnealingDecay(CosineAnnealingLR):
    """Paddle: ``CosineAnnealingDecay(learning_rate, T_max, eta_min=0)``."""

    def __init__(
        self,
        learning_rate: float,
        T_max: int,
        eta_min: float = 0.0,  # noqa: N803
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self._configure(T_max, eta_min)
        LRScheduler.__init__(self, None, last_epoch, learning_rate, verbose)


_LRScheduler = LRScheduler

# the other schedules live in their own files; imported last because they subclass
# LRScheduler from this (by then initialised) module
from .schedules_closed_form import (  # noqa: E402
    ExponentialDecay,
    ExponentialLR,
    LambdaDecay,
    LambdaLR,
    LinearWarmup,
    MultiStepDecay,
    MultiStepLR,
    NoamDecay,
    PiecewiseDecay,
)
from .schedules_cycle_chain import ChainedScheduler, CyclicLR  # noqa: E402
from .schedules_cyclic import OneCycleLR, ReduceLROnPlateau, ReduceOnPlateau  # noqa: E402
from .schedules_more import (  # noqa: E402
    ConstantLR,
    CosineAnnealingWarmRestarts,
    InverseTimeDecay,
    LinearLR,
    MultiplicativeDecay,
    MultiplicativeLR,
    NaturalExpDecay,
    PolynomialDecay,
    PolynomialLR,
    SequentialLR,
)

__all__ = [
    "LRScheduler",
    "StepLR",
    "CosineAnnealingLR",
    "StepDecay",
    "CosineAnnealingDecay",
    "LambdaLR",
    "MultiStepLR",
    "ExponentialLR",
    "OneCycleLR",
    "ReduceLROnPlateau",
    "LambdaDecay",
    "MultiStepDecay",
    "ExponentialDecay",
    "PiecewiseDecay",
    "NoamDecay",
    "LinearWarmup",
    "ReduceOnPlateau",
    "LinearLR",
    "ConstantLR",
    "PolynomialLR",
    "PolynomialDecay",
    "MultiplicativeLR",
    "MultiplicativeDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "CosineAnnealingWarmRestarts",
    "SequentialLR",
    "CyclicLR",
    "ChainedScheduler",
]
