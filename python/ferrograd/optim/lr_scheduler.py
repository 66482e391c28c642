"""Learning-rate schedulers in both dialects.

PyTorch's wrap an optimizer and write each group's ``lr`` on ``step()``:
``StepLR(optimizer, step_size, gamma)``, ``CosineAnnealingLR(optimizer, T_max,
eta_min)``. Paddle's stand alone and are given to the optimizer as its
``learning_rate``: ``StepDecay(learning_rate, step_size, gamma)``,
``CosineAnnealingDecay(learning_rate, T_max, eta_min)``; calling one returns the
current rate. Both kinds share one base class, so either works with any optimizer.
"""

from __future__ import annotations

import functools
import math
import warnings
import weakref
from typing import Any

# PyTorch's words (torch/optim/lr_scheduler.py), warned by a PyTorch-style scheduler's
# ``step(epoch)``
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


_HOW_TO = (
    "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


class _TrackedStep:
    """An optimizer's ``step`` that records being called (``optimizer._opt_called``),
    as PyTorch's ``patch_track_step_called`` wrapper does. It holds the optimizer only
    weakly (no reference cycle) and pickles as a new wrapper of the same method, so
    that an optimizer saved whole still pickles."""

    _wrapped_by_lr_sched = True

    def __init__(self, optimizer: Any, func: Any) -> None:
        self._opt_ref = weakref.ref(optimizer)
        self._func = func
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        opt = self._opt_ref()
        opt._opt_called = True  # type: ignore[union-attr]
        return self._func(opt, *args, **kwargs)

    def __reduce__(self) -> tuple[Any, tuple[Any, Any]]:
        return (_TrackedStep, (self._opt_ref(), self._func))


def _track_step_called(optimizer: Any) -> None:
    """Wraps the optimizer instance's ``step`` in a ``_TrackedStep`` (once); an optimizer
    whose ``step`` is not a bound Python method is left as it is."""
    step = getattr(optimizer, "step", None)
    if step is None or hasattr(step, "_wrapped_by_lr_sched"):
        return
    func = getattr(step, "__func__", None)
    if func is None:
        return
    optimizer.step = _TrackedStep(optimizer, func)


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
            for i, g in enumerate(optimizer.param_groups):
                if last_epoch == -1:
                    # kept when set: a second scheduler on the optimizer (a warm-up,
                    # then a decay) starts from the same base rate, as in PyTorch; a
                    # tensor rate is copied, so that writing the group's lr in place
                    # leaves it (torch/optim/lr_scheduler.py, LRScheduler.__init__)
                    lr = g["lr"]
                    g.setdefault("initial_lr", lr.clone() if hasattr(lr, "clone") else lr)
                elif "initial_lr" not in g:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0"
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
        if optimizer is not None:
            _track_step_called(optimizer)
        self._step_count = 0
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
        """Advances one epoch (or jumps to ``epoch``) and applies the new rate. A
        PyTorch-style scheduler (one given an optimizer) warns, as PyTorch does, that
        ``epoch`` is deprecated there (``EPOCH_DEPRECATION_WARNING``)."""
        if self.optimizer is not None:
            self._warn_step_order()
            if epoch is not None:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._step_count = getattr(self, "_step_count", 0) + 1
        self._step_to(epoch)

    def _warn_step_order(self) -> None:
        """PyTorch's check at the first ``step()`` after construction: the optimizer
        should have stepped first (else the schedule's first rate is skipped)."""
        if getattr(self, "_step_count", 0) != 1:
            return
        if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
            warnings.warn(
                "Seems like `optimizer.step()` has been overridden after learning rate "
                "scheduler initialization. Please, make sure to call `optimizer.step()` "
                f"before `lr_scheduler.step()`. {_HOW_TO}",
                UserWarning,
                stacklevel=3,
            )
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                "will result in PyTorch skipping the first value of the learning rate "
                f"schedule. {_HOW_TO}",
                UserWarning,
                stacklevel=3,
            )

    def _uses_own_get_lr(self) -> bool:
        """A subclass outside ferrograd that defines PyTorch's ``get_lr()`` (the rates
        of the epoch just reached, usually from each group's current ``lr``) and none of
        the closed-form hooks: its ``get_lr()`` gives the rates, as in PyTorch."""
        cls = type(self)
        return (
            cls.get_lr is not LRScheduler.get_lr
            and cls._rates is LRScheduler._rates
            and cls._rate is LRScheduler._rate
        )

    def _step_to(self, epoch: int | None = None) -> None:
        """``step(epoch)`` without the deprecation warning (for ferrograd's own calls)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        if self._uses_own_get_lr():
            rates = list(self.get_lr())
        else:
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
