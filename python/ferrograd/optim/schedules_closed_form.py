"""Closed-form learning-rate schedules in both dialects: ``LambdaLR`` / ``LambdaDecay``,
``MultiStepLR`` / ``MultiStepDecay``, ``ExponentialLR`` / ``ExponentialDecay``, and
Paddle's ``PiecewiseDecay``, ``NoamDecay`` and ``LinearWarmup``. Each computes the rate
at epoch ``e`` directly (the formula is in each docstring), so ``step(epoch)`` can jump."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from .lr_scheduler import LRScheduler, _positive_int


def _milestones(milestones: Sequence[int]) -> list[int]:
    ms = list(milestones)
    if any(isinstance(m, bool) or not isinstance(m, int) for m in ms):
        raise TypeError(f"milestones must be integers, got {milestones!r}")
    if ms != sorted(ms):
        raise ValueError(f"milestones must be increasing, got {milestones!r}")
    return ms


class LambdaLR(LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)``. torch: ``LambdaLR(optimizer, lr_lambda)`` with
    one function or a list of one per group. The functions are not part of
    ``state_dict()`` (as in PyTorch): rebuild the scheduler with them, then load."""

    def __init__(
        self,
        optimizer: Any,
        lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        n = len(optimizer.param_groups) if hasattr(optimizer, "param_groups") else 1
        self._set_lambdas(lr_lambda, n)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _set_lambdas(self, lr_lambda: Any, n: int) -> None:
        fns = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(fns) != n:
            raise ValueError(f"expected {n} lr_lambdas (one per parameter group), got {len(fns)}")
        if not all(callable(f) for f in fns):
            raise TypeError("lr_lambda must be a function of the epoch (or a list of them)")
        self.lr_lambdas = fns

    def _rates(self, epoch: int) -> list[float]:
        return [b * float(f(epoch)) for b, f in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer and the lambdas."""
        return {k: v for k, v in super().state_dict().items() if k != "lr_lambdas"}


class LambdaDecay(LambdaLR):
    """Paddle: ``LambdaDecay(learning_rate, lr_lambda)``: ``lr = learning_rate *
    lr_lambda(epoch)``."""

    def __init__(
        self,
        learning_rate: float,
        lr_lambda: Callable[[int], float],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self._set_lambdas(lr_lambda, 1)
        LRScheduler.__init__(self, None, last_epoch, learning_rate, verbose)


class MultiStepLR(LRScheduler):
    """``lr = base_lr * gamma ** (number of milestones <= epoch)``. torch:
    ``MultiStepLR(optimizer, milestones, gamma=0.1)``."""

    def __init__(
        self,
        optimizer: Any,
        milestones: Sequence[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.milestones = _milestones(milestones)
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, epoch)


class MultiStepDecay(MultiStepLR):
    """Paddle: ``MultiStepDecay(learning_rate, milestones, gamma=0.1)``."""

    def __init__(
        self,
        learning_rate: float,
        milestones: Sequence[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.milestones = _milestones(milestones)
        if float(gamma) >= 1.0:
            raise ValueError("gamma should be < 1.0")
        self.gamma = float(gamma)
        LRScheduler.__init__(self, None, last_epoch, learning_rate, verbose)


class ExponentialLR(LRScheduler):
    """``lr = base_lr * gamma ** epoch``. torch: ``ExponentialLR(optimizer, gamma)``."""

    def __init__(
        self, optimizer: Any, gamma: float, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch, verbose=verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return base_lr * self.gamma**epoch


class ExponentialDecay(ExponentialLR):
    """Paddle: ``ExponentialDecay(learning_rate, gamma)``."""

    def __init__(
        self, learning_rate: float, gamma: float, last_epoch: int = -1, verbose: bool = False
    ) -> None:
        self.gamma = float(gamma)
        LRScheduler.__init__(self, None, last_epoch, learning_rate, verbose)


class PiecewiseDecay(LRScheduler):
    """Paddle: ``PiecewiseDecay(boundaries, values)``: ``values[i]`` while
    ``boundaries[i-1] <= epoch < boundaries[i]`` (``len(values) == len(boundaries) + 1``)."""

    def __init__(
        self,
        boundaries: Sequence[int],
        values: Sequence[float],
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        self.boundaries = _milestones(boundaries)
        self.values = [float(v) for v in values]
        if len(self.values) != len(self.boundaries) + 1:
            raise ValueError(
                f"PiecewiseDecay needs one more value than boundaries, got "
                f"{len(self.values)} values for {len(self.boundaries)} boundaries"
            )
        LRScheduler.__init__(self, None, last_epoch, self.values[0], verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        return self.values[bisect.bisect_right(self.boundaries, epoch)]


class NoamDecay(LRScheduler):
    """Paddle: ``NoamDecay(d_model, warmup_steps, learning_rate=1.0)`` (the Transformer
    schedule): ``lr = learning_rate * d_model ** -0.5 * min(a, epoch * warmup_steps **
    -1.5)`` with ``a = epoch ** -0.5`` (1 at epoch 0)."""

    def __init__(
        self,
        d_model: float,
        warmup_steps: int,
        learning_rate: float = 1.0,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        if float(d_model) <= 0:
            raise ValueError(f"d_model must be positive, got {d_model}")
        self.d_model = float(d_model)
        self.warmup_steps = _positive_int("warmup_steps", warmup_steps)
        LRScheduler.__init__(self, None, last_epoch, learning_rate, verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        a = 1.0 if epoch == 0 else epoch**-0.5
        b = self.warmup_steps**-1.5 * epoch
        return base_lr * self.d_model**-0.5 * min(a, b)


class LinearWarmup(LRScheduler):
    """Paddle: ``LinearWarmup(learning_rate, warmup_steps, start_lr, end_lr)``. For
    ``epoch < warmup_steps`` the rate goes linearly from ``start_lr`` to ``end_lr``:
    ``start_lr + (end_lr - start_lr) * epoch / warmup_steps``; afterwards it is
    ``learning_rate`` (a float) or the rate of ``learning_rate`` (a scheduler) stepped to
    ``epoch - warmup_steps``."""

    def __init__(
        self,
        learning_rate: float | LRScheduler,
        warmup_steps: int,
        start_lr: float,
        end_lr: float,
        last_epoch: int = -1,
        verbose: bool = False,
    ) -> None:
        if not isinstance(learning_rate, LRScheduler) and (
            isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float))
        ):
            raise TypeError(
                "learning_rate must be a number or an LRScheduler, got "
                f"{type(learning_rate).__name__}"
            )
        self.learning_rate = learning_rate
        self.warmup_steps = _positive_int("warmup_steps", warmup_steps)
        self.start_lr, self.end_lr = float(start_lr), float(end_lr)
        LRScheduler.__init__(self, None, last_epoch, self.start_lr, verbose)

    def _rate(self, base_lr: float, epoch: int) -> float:
        if epoch < self.warmup_steps:
            frac = epoch / self.warmup_steps
            return (self.end_lr - self.start_lr) * frac + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(epoch - self.warmup_steps)
            return float(self.learning_rate())
        return float(self.learning_rate)

    def state_dict(self) -> dict[str, Any]:
        """Own state, with a wrapped scheduler's ``state_dict()`` nested."""
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out["learning_rate"] = {"LinearWarmup_LR": self.learning_rate.state_dict()}
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores ``state_dict()``'s output (into the wrapped scheduler too)."""
        state = dict(state_dict)
        inner = state.pop("learning_rate", None)
        if isinstance(inner, dict) and isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.load_state_dict(inner["LinearWarmup_LR"])
        elif inner is not None:
            state["learning_rate"] = inner
        super().load_state_dict(state)
