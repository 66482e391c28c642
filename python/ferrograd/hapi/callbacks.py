"""``paddle.callbacks``: hooks into ``Model.fit`` / ``evaluate`` / ``predict``.

A callback receives ``set_model(model)`` and ``set_params(params)`` first, then the
``on_*`` calls below with a ``logs`` dict (``loss``, the metrics, ``step``,
``batch_size``). ``Model.fit`` adds a ``ProgBarLogger``, an ``LRScheduler`` (stepping the
optimizer's scheduler after every batch, as Paddle does) and, with ``save_dir``, a
``ModelCheckpoint`` unless the list already holds one of that kind.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from typing import Any, Optional

import numpy as np

__all__ = [
    "Callback",
    "EarlyStopping",
    "LRScheduler",
    "ModelCheckpoint",
    "ProgBarLogger",
    "ReduceLROnPlateau",
]


class Callback:
    """Base class: every hook does nothing; override the ones you need."""

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def set_params(self, params: dict[str, Any]) -> None:
        """The run's settings: ``batch_size``, ``epochs``, ``steps``, ``verbose``,
        ``metrics`` (the names logged), ``save_dir``."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """The ``Model`` being run."""
        self.model = model

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        """Before the first epoch of ``fit``."""

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        """After the last epoch of ``fit``."""

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Before each training epoch (``epoch`` counts from 0)."""

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """After each training epoch, with the epoch's last logs."""

    def on_train_batch_begin(self, step: int, logs: Optional[dict] = None) -> None:
        """Before each training batch."""

    def on_train_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        """After each training batch, with its loss and the metrics so far."""

    def on_eval_begin(self, logs: Optional[dict] = None) -> None:
        """Before an evaluation (in ``fit`` or ``evaluate``)."""

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        """After an evaluation, with its results."""

    def on_eval_batch_begin(self, step: int, logs: Optional[dict] = None) -> None:
        """Before each evaluation batch."""

    def on_eval_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        """After each evaluation batch."""

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        """Before ``predict``."""

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        """After ``predict``."""

    def on_predict_batch_begin(self, step: int, logs: Optional[dict] = None) -> None:
        """Before each prediction batch."""

    def on_predict_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        """After each prediction batch."""


def _fmt(v: Any) -> str:
    if isinstance(v, (list, tuple)) and len(v) == 1:
        return _fmt(v[0])
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4f}"
    return str(v)


class ProgBarLogger(Callback):
    """Prints progress: ``verbose=0`` nothing, ``1`` one line per epoch and evaluation,
    ``2`` also every ``log_freq`` steps (``step 10/94 - loss: 0.3121 - acc: 0.9 - 3ms/step``)."""

    def __init__(self, log_freq: int = 1, verbose: int = 2) -> None:
        super().__init__()
        self.log_freq = max(int(log_freq), 1)
        self.verbose = int(verbose)
        self._t0 = 0.0

    def _line(self, step: int, steps: Optional[int], logs: dict, names: list[str]) -> str:
        parts = [f"step {step}" + (f"/{steps}" if steps else "")]
        parts += [f"{k}: {_fmt(logs[k])}" for k in names if k in logs]
        ms = (time.perf_counter() - self._t0) * 1000.0 / max(step, 1)
        return " - ".join(parts) + f" - {ms:.0f}ms/step"

    def _names(self) -> list[str]:
        return ["loss", *self.params.get("metrics", [])]

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._t0 = time.perf_counter()
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.params.get('epochs')}", file=sys.stdout)

    def on_train_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        if self.verbose >= 2 and (step + 1) % self.log_freq == 0:
            print(self._line(step + 1, self.params.get("steps"), logs or {}, self._names()))

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.verbose == 1 and logs:
            print(
                self._line(int(logs.get("step", 0)), self.params.get("steps"), logs, self._names())
            )

    def on_eval_begin(self, logs: Optional[dict] = None) -> None:
        self._t0 = time.perf_counter()
        if self.verbose:
            print("Eval begin...")

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        if self.verbose and logs:
            names = [k for k in logs if k not in ("step", "batch_size", "samples")]
            print(self._line(int(logs.get("step", 0)), None, logs, names))
            print(f"Eval samples: {int(logs.get('samples', 0))}")


class ModelCheckpoint(Callback):
    """Saves the model (``Model.save``) to ``save_dir/<epoch>`` every ``save_freq``
    epochs and to ``save_dir/final`` at the end of training. Epochs count from 0 and the
    first is saved (``epoch % save_freq == 0``: 0, 2, 4 for ``save_freq=2``), as Paddle's
    ``ModelCheckpoint.on_epoch_end``."""

    def __init__(self, save_freq: int = 1, save_dir: Optional[str] = None) -> None:
        super().__init__()
        self.save_freq = max(int(save_freq), 1)
        self.save_dir = save_dir

    def _dir(self) -> Optional[str]:
        return self.save_dir or self.params.get("save_dir")

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        d = self._dir()
        if d and epoch % self.save_freq == 0:
            self.model.save(os.path.join(d, str(epoch)))

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        d = self._dir()
        if d:
            self.model.save(os.path.join(d, "final"))


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (``by_step``,
    Paddle's default) or every epoch (``by_epoch``)."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False) -> None:
        super().__init__()
        if by_step == by_epoch:
            raise ValueError("LRScheduler: exactly one of by_step / by_epoch must be True")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self) -> None:
        opt = getattr(self.model, "_optimizer", None)
        sched = getattr(opt, "_lr_scheduler", None)
        if sched is not None:
            sched.step()

    def on_train_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        if self.by_step:
            self._step()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.by_epoch:
            self._step()


def _monitored(logs: Optional[dict], key: str) -> Optional[float]:
    if not logs or key not in logs:
        return None
    v = logs[key]
    if isinstance(v, (list, tuple, np.ndarray)):
        v = np.asarray(v).reshape(-1)[0]
    return float(v)


class EarlyStopping(Callback):
    """Stops ``fit`` when the evaluated ``monitor`` (``loss`` or a metric name) has not
    improved by more than ``min_delta`` for ``patience`` evaluations; with
    ``save_best_model`` the best model is saved to ``save_dir/best_model``."""

    def __init__(
        self,
        monitor: str = "loss",
        mode: str = "auto",
        patience: int = 0,
        verbose: int = 1,
        min_delta: float = 0.0,
        baseline: Optional[float] = None,
        save_best_model: bool = True,
    ) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.monitor, self.mode, self.patience = monitor, mode, int(patience)
        self.verbose, self.min_delta = verbose, abs(float(min_delta))
        self.baseline, self.save_best_model = baseline, save_best_model
        self.wait_epoch = 0
        self.best_value = math.inf if mode == "min" else -math.inf
        self.stopped_epoch = 0

    def _better(self, v: float, ref: float) -> bool:
        return v < ref - self.min_delta if self.mode == "min" else v > ref + self.min_delta

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait_epoch = 0
        self.best_value = math.inf if self.mode == "min" else -math.inf
        if self.baseline is not None:
            self.best_value = float(self.baseline)

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        v = _monitored(logs, self.monitor)
        if v is None:
            warnings.warn(
                f"EarlyStopping: '{self.monitor}' is not among the evaluation results "
                f"{sorted(logs or {})}; nothing is monitored",
                stacklevel=2,
            )
            return
        if self._better(v, self.best_value):
            self.best_value, self.wait_epoch = v, 0
            save_dir = self.params.get("save_dir")
            if self.save_best_model and save_dir:
                self.model.save(os.path.join(save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience and self.wait_epoch > 0:
            self.model.stop_training = True
            if self.verbose:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.stopped_epoch = epoch


class ReduceLROnPlateau(Callback):
    """Multiplies the optimizer's (constant) learning rate by ``factor`` when the
    evaluated ``monitor`` has not improved for ``patience`` evaluations."""

    def __init__(
        self,
        monitor: str = "loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 1,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0.0,
    ) -> None:
        super().__init__()
        if not 0.0 < factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0, 1), got {factor}")
        self._stop = EarlyStopping(monitor, mode, patience, 0, min_delta, None, False)
        self.factor, self.cooldown, self.min_lr, self.verbose = factor, cooldown, min_lr, verbose
        self._cool = 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._stop.on_train_begin(logs)

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        v = _monitored(logs, self._stop.monitor)
        if v is None:
            return
        if self._cool > 0:
            self._cool -= 1
        if self._stop._better(v, self._stop.best_value):
            self._stop.best_value, self._stop.wait_epoch = v, 0
            return
        self._stop.wait_epoch += 1
        if self._stop.wait_epoch >= self._stop.patience and self._cool == 0:
            opt = self.model._optimizer
            if getattr(opt, "_lr_scheduler", None) is not None:
                warnings.warn(
                    "ReduceLROnPlateau: the optimizer's rate is driven by an LRScheduler; "
                    "the callback leaves it alone",
                    stacklevel=2,
                )
                return
            old = float(opt.get_lr())
            new = max(old * self.factor, self.min_lr)
            if new < old:
                opt.set_lr(new)
                if self.verbose:
                    print(f"ReduceLROnPlateau: learning rate {old:g} -> {new:g}")
            self._cool, self._stop.wait_epoch = self.cooldown, 0
