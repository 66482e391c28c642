"""More learning-rate schedules in both dialects: warm-up and decay factors
(``LinearLR``, ``ConstantLR``, ``PolynomialLR`` / ``PolynomialDecay``,
``MultiplicativeLR`` / ``MultiplicativeDecay``, Paddle's ``NaturalExpDecay`` and
``InverseTimeDecay``), ``CosineAnnealingWarmRestarts`` (SGDR) and PyTorch's
``SequentialLR``, which runs one schedule after another.

Each rate is computed from the epoch in closed form (formula in each docstring), as the
other schedules here do. ``LinearLR`` and ``CosineAnnealingWarmRestarts`` take either an
optimizer first (PyTorch) or a learning rate (Paddle's signature)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

from .lr_scheduler import LRScheduler, _positive_int


def _is_optimizer(obj: object) -> bool:
    return hasattr(obj, "param_groups")


def _factor(name: str, value: Any) -> float:
    f = float(value)
    if not math.isfinite(f) or f < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return f


class LinearLR(LRScheduler):
    """``lr = base_lr * (start + (end - start) * min(epoch, total) / total)``: a linear
    warm-up (or decay) of the factor. torch: ``LinearLR(optimizer, start_factor=1/3,
    end_factor=1.0, total_iters=5)``; Paddle: ``LinearLR(learning_rate, total_steps,
    start_factor=1/3, end_factor=1.0)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        first = args[0] if args else kwargs.get("optimizer")
        if _is_optimizer(first):
            opt, lr, start, end, total, last_epoch, verbose = _torch_linear(*args, **kwargs)
        else:
            lr, total, start, end, last_epoch, verbose = _paddle_linear(*args, **kwargs)
            opt = None
        self.start_factor = _factor("start_factor", start)
        self.end_factor = _factor("end_factor", end)
        if not 0 < self.start_factor <= 1 or not 0 <= self.end_factor <= 1:
            raise ValueError(
                f"LinearLR: start_factor must be in (0, 1] and end_factor in [0, 1], got "
                f"{self.start_factor} and {self.end_factor}"
            )
        self.total_iters = _positive_int("total_iters", total)
        LRScheduler.__init__(self, opt, last_epoch, lr, verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        t = min(max(epoch, 0), self.total_iters) / self.total_iters
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * t)


def _torch_linear(
    optimizer: Any,
    start_factor: float = 1.0 / 3,
    end_factor: float = 1.0,
    total_iters: int = 5,
    last_epoch: int = -1,
    verbose: bool = False,
) -> tuple[Any, None, float, float, int, int, bool]:
    """PyTorch's ``LinearLR`` arguments."""
    return optimizer, None, start_factor, end_factor, total_iters, last_epoch, verbose


def _paddle_linear(
    learning_rate: float,
    total_steps: int,
    start_factor: float = 1.0 / 3,
    end_factor: float = 1.0,
    last_epoch: int = -1,
    verbose: bool = False,
) -> tuple[float, int, float, float, int, bool]:
    """Paddle's ``LinearLR`` arguments."""
    return learning_rate, total_steps, start_factor, end_factor, last_epoch, verbose


class ConstantLR(LRScheduler):
    """``lr = base_lr * factor`` for the first ``total_iters`` epochs, then ``base_lr``.
    torch: ``ConstantLR(optimizer, factor=1/3, total_iters=5)``."""

    def __init__(
        self,
        optimizer: Any,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.factor = _factor("factor", factor)
        if self.factor > 1:
            raise ValueError(f"ConstantLR: factor must be in [0, 1], got {self.factor}")
        self.total_iters = int(total_iters)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return base_lr * (self.factor if epoch < self.total_iters else 1.0)


class PolynomialLR(LRScheduler):
    """``lr = base_lr * (1 - min(epoch, total_iters) / total_iters) ** power``. torch:
    ``PolynomialLR(optimizer, total_iters=5, power=1.0)``."""

    def __init__(
        self,
        optimizer: Any,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.total_iters = _positive_int("total_iters", total_iters)
        self.power = float(power)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        t = min(max(epoch, 0), self.total_iters)
        return base_lr * (1.0 - t / self.total_iters) ** self.power


class PolynomialDecay(LRScheduler):
    """Paddle: ``PolynomialDecay(learning_rate, decay_steps, end_lr=1e-4, power=1.0,
    cycle=False)``: ``lr = (base - end_lr) * (1 - e / steps) ** power + end_lr`` with
    ``e = min(epoch, decay_steps)``; with ``cycle`` the horizon grows to the next
    multiple of ``decay_steps`` instead of stopping."""

    def __init__(
        self,
        learning_rate: float,
        decay_steps: int,
        end_lr: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.decay_steps = _positive_int("decay_steps", decay_steps)
        self.end_lr = float(end_lr)
        self.power = float(power)
        self.cycle = bool(cycle)
        super().__init__(None, last_epoch, learning_rate, verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        e = max(epoch, 0)
        steps = self.decay_steps
        if self.cycle:
            steps *= max(1, math.ceil(e / self.decay_steps))
        else:
            e = min(e, steps)
        return (base_lr - self.end_lr) * (1.0 - e / steps) ** self.power + self.end_lr


class NaturalExpDecay(LRScheduler):
    """Paddle: ``NaturalExpDecay(learning_rate, gamma)``: ``lr = base * exp(-gamma *
    epoch)``."""

    def __init__(
        self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        self.gamma = float(gamma)
        super().__init__(None, last_epoch, learning_rate, verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return base_lr * math.exp(-self.gamma * epoch)


class InverseTimeDecay(LRScheduler):
    """Paddle: ``InverseTimeDecay(learning_rate, gamma)``: ``lr = base / (1 + gamma *
    epoch)``."""

    def __init__(
        self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        self.gamma = float(gamma)
        super().__init__(None, last_epoch, learning_rate, verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return base_lr / (1.0 + self.gamma * epoch)


class MultiplicativeLR(LRScheduler):
    """``lr = base_lr * lr_lambda(1) * ... * lr_lambda(epoch)``: each epoch multiplies
    the rate by ``lr_lambda(epoch)``. torch: ``MultiplicativeLR(optimizer, lr_lambda)``
    (one function or one per group). The functions are not part of ``state_dict()``."""

    def __init__(
        self,
        optimizer: Any,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        n = len(optimizer.param_groups) if _is_optimizer(optimizer) else 1
        fns: list[Any] = (
            list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        )
        if len(fns) != n or not all(callable(f) for f in fns):
            # PyTorch's words (torch/optim/lr_scheduler.py, MultiplicativeLR)
            raise TypeError(
                f"lr_lambda should be a function of the epoch (or {n}: one per group), "
                f"got {type(lr_lambda).__name__}"
            )
        self.lr_lambdas = fns
        self._products: list[float] = [1.0] * n  # the factor product at _products_epoch
        self._products_epoch = 0
        LRScheduler.__init__(
            self,
            optimizer if _is_optimizer(optimizer) else None,
            last_epoch,
            None if _is_optimizer(optimizer) else optimizer,
            verbose,
        )

    def _rates(self, epoch: int) -> list[float]:
        if epoch < self._products_epoch:  # a jump back: start the product again
            self._products, self._products_epoch = [1.0] * len(self.lr_lambdas), 0
        for e in range(self._products_epoch + 1, epoch + 1):
            self._products = [p * float(f(e)) for p, f in zip(self._products, self.lr_lambdas)]
        self._products_epoch = max(epoch, 0)
        return [b * p for b, p in zip(self.base_lrs, self._products)]

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer and the lambdas."""
        return {k: v for k, v in super().state_dict().items() if k != "lr_lambdas"}


class MultiplicativeDecay(MultiplicativeLR):
    """Paddle: ``MultiplicativeDecay(learning_rate, lr_lambda)``: each epoch multiplies
    the rate by ``lr_lambda(epoch)``."""

    def __init__(
        self,
        learning_rate: float,
        lr_lambda: Callable[[int], float],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        super().__init__(learning_rate, lr_lambda, last_epoch, verbose)


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine annealing from ``base_lr`` to ``eta_min`` over ``T_i`` epochs, then a
    restart; ``T_0`` epochs first, each period ``T_mult`` times the previous one:
    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2``.
    torch: ``CosineAnnealingWarmRestarts(optimizer, T_0, T_mult=1, eta_min=0)``, whose
    ``step(epoch)`` also takes a fractional epoch; Paddle: the same with
    ``learning_rate`` first."""

    def __init__(
        self,
        optimizer: Any = None,
        T_0: int = 0,  # noqa: N803
        T_mult: int = 1,  # noqa: N803
        eta_min: float = 0.0,
        last_epoch: int = -1,
        verbose: bool = False,
        *,
        learning_rate: Any = None,
    ) -> None:
        if learning_rate is not None:
            if optimizer is not None:
                raise TypeError("CosineAnnealingWarmRestarts: give an optimizer or a learning_rate")
            optimizer = learning_rate
        self.T_0 = _positive_int("T_0", T_0)
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"T_mult must be an integer >= 1, got {T_mult!r}")
        self.T_mult = T_mult
        self.eta_min = float(eta_min)
        # the epoch of the last step(epoch) when it was fractional: a plain step() goes on
        # from it (torch's T_cur += 1), not from the whole epoch below it
        self._fractional_epoch: float | None = None
        if _is_optimizer(optimizer):
            LRScheduler.__init__(self, optimizer, last_epoch, None, verbose)
        else:
            LRScheduler.__init__(self, None, last_epoch, optimizer, verbose)

    def _period(self, epoch: float) -> tuple[float, float]:
        """``(T_cur, T_i)``: the position within the current period and its length. The
        periods are summed in integers (a logarithm put restarts one period early where
        it rounded down: log(1000, 10) is 2.9999999999999996)."""
        if epoch < self.T_0:
            return max(epoch, 0.0), float(self.T_0)
        if self.T_mult == 1:
            return math.fmod(epoch, self.T_0), float(self.T_0)
        start, t_i = 0, self.T_0
        while epoch >= start + t_i:
            start += t_i
            t_i *= self.T_mult
        return epoch - start, float(t_i)

    def _rate(self, base_lr: float, epoch: Any) -> float:
        t_cur, t_i = self._period(epoch)
        return self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2

    def step(self, epoch: Any = None) -> None:
        """Advances one epoch, or jumps to ``epoch`` (which may be fractional, e.g.
        ``epoch + i / iters`` inside an epoch)."""
        frac = getattr(self, "_fractional_epoch", None)
        if epoch is None and frac is not None:
            epoch = frac + 1
        if epoch is None or float(epoch) == int(epoch):
            self._fractional_epoch = None
            # PyTorch's CosineAnnealingWarmRestarts takes an epoch without warning
            self._step_to(None if epoch is None else int(epoch))
            return
        if float(epoch) < 0:
            raise ValueError(f"expected a non-negative epoch, got {epoch}")
        self._fractional_epoch = float(epoch)
        self.last_epoch = math.floor(epoch)
        rates = [self._rate(b, float(epoch)) for b in self.base_lrs]
        self._last_lr = rates
        self.last_lr = rates[0]
        if self.optimizer is not None:
            for g, r in zip(self.optimizer.param_groups, rates):
                g["lr"] = r


class _ComposedState:
    """``state_dict`` / ``load_state_dict`` of a schedule made of others
    (``self._schedulers``): its own fields and each scheduler's state."""

    _schedulers: list[Any]

    def state_dict(self) -> dict[str, Any]:
        """Its own state and each scheduler's."""
        own = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        own["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return own

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores ``state_dict()``'s output (the schedulers' too)."""
        state = dict(state_dict)
        for s, sd in zip(self._schedulers, state.pop("_schedulers", [])):
            s.load_state_dict(sd)
        self.__dict__.update(state)


class SequentialLR(_ComposedState, LRScheduler):
    """PyTorch's ``SequentialLR(optimizer, schedulers, milestones)``: ``schedulers[i]``
    drives the rate from ``milestones[i-1]`` on (the first until ``milestones[0]``), each
    restarting at its own epoch 0 when it takes over (e.g. a ``LinearLR`` warm-up, then
    a cosine schedule)."""

    def __init__(
        self,
        optimizer: Any,
        schedulers: Sequence[LRScheduler],
        milestones: Sequence[int],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        scheds = list(schedulers)
        if not scheds:
            raise ValueError("SequentialLR expects at least one scheduler")
        for i, s in enumerate(scheds):
            if getattr(s, "optimizer", None) is not optimizer:
                raise ValueError(
                    f"SequentialLR: scheduler {i} ({type(s).__name__}) drives another "
                    "optimizer than the one given"
                )
        ms = [int(m) for m in milestones]
        if len(ms) != len(scheds) - 1:
            raise ValueError(
                f"SequentialLR: expected {len(scheds) - 1} milestones for {len(scheds)} "
                f"schedulers, got {len(ms)}"
            )
        self._schedulers = scheds
        self._milestones = ms
        self.optimizer = optimizer
        self.verbose = verbose
        self.base_lrs = [float(g["initial_lr"]) for g in optimizer.param_groups]
        self.base_lr = self.base_lrs[0]
        self.last_epoch = last_epoch + 1
        # the schedulers each took a step when built; start again from the first one
        for s in scheds:
            s.last_epoch = -1
        scheds[0].step()
        self._last_lr = scheds[0].get_last_lr()
        self.last_lr = self._last_lr[0]

    def step(self, epoch: int | None = None) -> None:
        """Advances one epoch: the scheduler whose turn it is takes a step (or restarts
        at 0 on its milestone)."""
        if epoch is not None:
            raise TypeError("SequentialLR.step() takes no epoch (as in PyTorch)")
        self.last_epoch += 1
        idx = bisect.bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            # a restart, not a user's epoch: no deprecation warning
            getattr(sched, "_step_to", sched.step)(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()
        self.last_lr = self._last_lr[0]

    def get_lr(self) -> Any:
        """The rates set by the last step."""
        return list(self._last_lr)
