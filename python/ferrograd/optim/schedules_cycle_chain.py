"""``CyclicLR`` (PyTorch's and Paddle's, one class) and PyTorch's ``ChainedScheduler``."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from .lr_scheduler import CosineAnnealingLR, LRScheduler, StepLR, _positive_int
from .schedules_closed_form import ExponentialLR, MultiStepLR
from .schedules_cyclic import _momentum_key, _per_group
from .schedules_more import ConstantLR, LinearLR, MultiplicativeLR, PolynomialLR, _ComposedState

_MODES: dict[str, tuple[Callable[[float], float], str]] = {
    "triangular": (lambda x: 1.0, "cycle"),
    "triangular2": (lambda x: 1.0 / (2.0 ** (x - 1)), "cycle"),
}


class CyclicLR(LRScheduler):
    """The rate goes linearly from ``base_lr`` up to ``max_lr`` in ``step_size_up``
    steps and back down in ``step_size_down`` (default: as many), the swing scaled by
    ``scale_fn`` of the cycle number (``scale_mode='cycle'``, counted from 1) or of the
    step (``'iterations'``). Modes: ``'triangular'`` (no scaling), ``'triangular2'``
    (halved each cycle), ``'exp_range'`` (``gamma ** step``).

    torch: ``CyclicLR(optimizer, base_lr, max_lr, step_size_up=2000,
    step_size_down=None, mode='triangular', gamma=1.0, scale_fn=None, scale_mode='cycle',
    cycle_momentum=True, base_momentum=0.8, max_momentum=0.9)``; with ``cycle_momentum``
    the momentum (or Adam's ``beta1``) swings the other way, from ``max_momentum`` to
    ``base_momentum``. Paddle: ``CyclicLR(base_learning_rate, max_learning_rate,
    step_size_up, step_size_down=None, mode='triangular', exp_gamma=1.0, scale_fn=None,
    scale_mode='cycle')``, standing alone."""

    def __init__(
        self,
        optimizer: Any = None,
        base_lr: Any = None,
        max_lr: Any = None,
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: Any = 0.8,
        max_momentum: Any = 0.9,
        last_epoch: int = -1,
        verbose: bool = False,
        *,
        base_learning_rate: float | None = None,
        max_learning_rate: float | None = None,
        exp_gamma: float | None = None,
    ) -> None:
        torch_style = hasattr(optimizer, "param_groups")
        if not torch_style:
            # Paddle: CyclicLR(base_learning_rate, max_learning_rate, step_size_up, ...)
            positional = [optimizer, base_lr, max_lr]
            if base_learning_rate is None:
                base_learning_rate = positional.pop(0)
            if max_learning_rate is None:
                max_learning_rate = positional.pop(0)
            if positional and positional[0] is not None:
                step_size_up = positional[0]
            optimizer, base_lr, max_lr = None, base_learning_rate, max_learning_rate
            cycle_momentum = False
            if exp_gamma is not None:
                gamma = exp_gamma
        if base_lr is None or max_lr is None:
            raise TypeError("CyclicLR needs base_lr and max_lr")
        up = float(_positive_int("step_size_up", step_size_up))
        down = (
            up if step_size_down is None else float(_positive_int("step_size_down", step_size_down))
        )
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if scale_fn is None:
            if mode == "exp_range":
                rate = float(gamma)
                self._scale_fn: Callable[[float], float] = lambda x: rate**x
                self.scale_mode = "iterations"
            elif mode in _MODES:
                self._scale_fn, self.scale_mode = _MODES[mode]
            else:
                raise ValueError(
                    f"mode must be 'triangular', 'triangular2' or 'exp_range', got {mode!r}"
                )
        else:
            if scale_mode not in ("cycle", "iterations"):
                raise ValueError(f"scale_mode must be 'cycle' or 'iterations', got {scale_mode!r}")
            self._scale_fn, self.scale_mode = scale_fn, scale_mode
        self.mode = mode
        n = len(optimizer.param_groups) if torch_style else 1
        lows = _per_group(base_lr, n, "base_lr")
        self.max_lrs = _per_group(max_lr, n, "max_lr")
        self.cycle_momentum = bool(cycle_momentum)
        self._mom_key: str | None = None
        if self.cycle_momentum:
            self._mom_key = _momentum_key(optimizer)
            self.base_momentums = _per_group(base_momentum, n, "base_momentum")
            self.max_momentums = _per_group(max_momentum, n, "max_momentum")
        if torch_style:
            if last_epoch == -1:
                for i, (group, lo) in enumerate(zip(optimizer.param_groups, lows)):
                    group["initial_lr"] = lo
                    group["lr"] = lo
                    if self._mom_key is not None:
                        self._set_momentum(group, self.max_momentums[i])
            LRScheduler.__init__(self, optimizer, last_epoch, verbose=verbose)
        else:
            LRScheduler.__init__(self, None, last_epoch, lows[0], verbose)

    def _set_momentum(self, group: dict[str, Any], m: float) -> None:
        if self._mom_key == "betas":
            group["betas"] = (m, *group["betas"][1:])
        else:
            group["momentum"] = m

    def _swing(self, epoch: int) -> float:
        """The fraction of the full swing at ``epoch``, scaled."""
        cycle = math.floor(1 + epoch / self.total_size)
        x = 1.0 + epoch / self.total_size - cycle
        if x <= self.step_ratio:
            frac = x / self.step_ratio
        else:
            frac = (x - 1) / (self.step_ratio - 1)
        return frac * self._scale_fn(cycle if self.scale_mode == "cycle" else epoch)

    def _rates(self, epoch: int) -> list[float]:
        s = self._swing(epoch)
        return [lo + (hi - lo) * s for lo, hi in zip(self.base_lrs, self.max_lrs)]

    def step(self, epoch: int | None = None) -> None:
        """Advances one batch; also swings the momentum when ``cycle_momentum``."""
        super().step(epoch)
        if self._mom_key is not None and self.optimizer is not None:
            s = self._swing(self.last_epoch)
            for g, lo, hi in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                self._set_momentum(g, hi - (hi - lo) * s)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer and the scale function (as in PyTorch)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_scale_fn")}


# schedules whose rate is base_lr times a factor of the epoch alone, so that chaining
# them multiplies their factors (what PyTorch's chainable forms compute)
_CHAINABLE = (
    StepLR,
    MultiStepLR,
    ExponentialLR,
    ConstantLR,
    LinearLR,
    PolynomialLR,
    MultiplicativeLR,
)


class ChainedScheduler(_ComposedState, LRScheduler):
    """PyTorch's ``ChainedScheduler(schedulers, optimizer=None)``: every ``step()`` steps
    each scheduler in turn, and each updates the rate the previous one left, as
    PyTorch's recursive ``get_lr`` forms do: the multiplicative schedules (``StepLR``,
    ``MultiStepLR``, ``ExponentialLR``, ``ConstantLR``, ``LinearLR``, ``PolynomialLR``,
    ``MultiplicativeLR``) multiply it by their own step's factor, and
    ``CosineAnnealingLR`` applies PyTorch's recursion ``(1 + cos(pi e / T)) / (1 +
    cos(pi (e - 1) / T)) * (lr - eta_min) + eta_min``, adding ``(base_lr - eta_min) *
    (1 - cos(pi / T)) / 2`` at the epochs past ``T_max`` where that ratio is undefined
    (so past ``T_max`` the chain is not a product of closed forms). Other schedules raise
    a ``TypeError`` rather than give another rate."""

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Any = None) -> None:
        scheds = list(schedulers)
        if not scheds:
            raise ValueError("ChainedScheduler expects at least one scheduler")
        optimizer = scheds[0].optimizer if optimizer is None else optimizer
        for i, s in enumerate(scheds):
            if getattr(s, "optimizer", None) is not optimizer:
                raise ValueError(
                    f"ChainedScheduler expects all schedulers to belong to the same optimizer, "
                    f"but got scheduler {type(s).__name__} at index {i} with a different one"
                )
            chainable = isinstance(s, (*_CHAINABLE, CosineAnnealingLR))
            if not chainable:
                raise TypeError(
                    f"ChainedScheduler: {type(s).__name__} is not a multiplicative schedule; "
                    "ferrograd chains StepLR, MultiStepLR, ExponentialLR, ConstantLR, LinearLR, "
                    "PolynomialLR, MultiplicativeLR and CosineAnnealingLR"
                )
        self._schedulers = scheds
        self.optimizer = optimizer
        self.verbose = False
        self.base_lrs = [float(g["initial_lr"]) for g in optimizer.param_groups]
        self.base_lr = self.base_lrs[0]
        self.last_epoch = scheds[0].last_epoch
        self._apply()

    def _apply(self) -> None:
        # at construction: each scheduler's epoch-0 factor, applied in turn
        rates = list(self.base_lrs)
        for s in self._schedulers:
            for i, (r, b) in enumerate(zip(s.get_last_lr(), s.base_lrs)):
                rates[i] *= r / b if b != 0 else 0.0
        self._set(rates)

    def _set(self, rates: list[float]) -> None:
        for g, r in zip(self.optimizer.param_groups, rates):
            g["lr"] = r
        self._last_lr = rates
        self.last_lr = rates[0]

    def step(self, epoch: int | None = None) -> None:
        """Steps every scheduler in turn, each updating the rate the previous one set
        (PyTorch's recursive rule; see the class docstring)."""
        if epoch is not None:
            raise TypeError("ChainedScheduler.step() takes no epoch (as in PyTorch)")
        rates = list(self._last_lr)
        for s in self._schedulers:
            before = s.get_last_lr()
            s.step()
            rates = [_chained(s, i, lr, b) for i, (lr, b) in enumerate(zip(rates, before))]
        self.last_epoch += 1
        self._set(rates)

    def _rates(self, epoch: int) -> list[float]:
        return list(self._last_lr)


def _chained(s: LRScheduler, group: int, lr: float, before: float) -> float:
    """The rate after scheduler ``s``'s step, from the rate ``lr`` the chain had
    (``before``: ``s``'s own rate before its step)."""
    e = s.last_epoch
    if isinstance(s, CosineAnnealingLR):
        t, eta = s.T_max, s.eta_min
        if e == 0:
            return lr
        if (e - 1 - t) % (2 * t) == 0:
            return lr + (s.base_lrs[group] - eta) * (1 - math.cos(math.pi / t)) / 2
        ratio = (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
        return ratio * (lr - eta) + eta
    after = s.get_last_lr()[group]
    # a multiplicative schedule: its own step's factor (none once its rate reached 0)
    return lr * (after / before) if before != 0 else lr
