"""``paddle.Model``: the training loop, evaluation and prediction of Paddle's high-level
API for a network (an ``nn.Layer``), run eagerly.

Each batch from the data is flattened to a list (nested lists, tuples and dicts walked, as
Paddle's ``paddle.utils.flatten``); its first ``len(inputs)`` items feed the network and
the rest are the labels given to the loss and the metrics after the network's outputs.
Without ``inputs`` the count is the number of positional parameters of the network's
``forward``.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, Callable, Optional

import numpy as np

from .. import _core
from ..amp import GradScaler, auto_cast
from ..grad_mode import no_grad
from . import callbacks as cbks

__all__ = ["Model"]


def _to_list(x: Any) -> list[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _flatten(data: Any) -> list[Any]:
    """A batch's leaves in order, as ``paddle.utils.flatten`` gives them to Paddle's
    ``Model`` loops: nested lists and tuples are walked, a dict's values are taken in
    sorted key order, anything else (a Tensor, an array, a number) is one leaf. So both
    ``[x1, x2, y]`` and ``([x1, x2], [y])`` (a ``collate_fn`` returning inputs and labels
    apart) feed ``x1, x2`` to the network and ``y`` to the loss."""
    if isinstance(data, dict):
        return [leaf for k in sorted(data) for leaf in _flatten(data[k])]
    if isinstance(data, (list, tuple)):
        return [leaf for item in data for leaf in _flatten(item)]
    return [data]


def _tensor(x: Any) -> Any:
    return x if isinstance(x, _core.Tensor) else _core.to_tensor(np.asarray(x))


_SCALER_KEYS = frozenset(
    {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
     "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling"}
)  # fmt: skip
_LIST_KEYS = ("custom_white_list", "custom_black_list")


def _amp_settings(amp_configs: Any) -> tuple[str, dict, dict]:
    """Paddle's ``prepare(amp_configs=...)``: ``(level, auto_cast lists, GradScaler
    arguments)`` from ``'O0'``/``'O1'``/``'O2'`` or a dict (``level`` defaults to
    ``'O1'``), with Paddle's checks as ``ValueError``."""
    if not amp_configs:
        return "O0", {}, {}
    levels = ("O0", "O1", "O2")
    if isinstance(amp_configs, str):
        if amp_configs not in levels:
            raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
        return amp_configs, {}, {}
    if not isinstance(amp_configs, dict):
        raise TypeError(f"amp_configs must be a str or a dict, got {type(amp_configs).__name__}")
    level = amp_configs.get("level", "O1")
    if level not in levels:
        raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
    keys = set(amp_configs) - {"level"}
    if "use_pure_fp16" in keys:
        raise ValueError(
            "'use_pure_fp16' is an invalid parameter, the level of mixed precision training "
            "only depends on 'O1' or 'O2'."
        )
    unknown = keys - _SCALER_KEYS - set(_LIST_KEYS)
    if unknown:  # custom_black_varnames and use_fp16_guard are static-graph options
        raise ValueError(
            "Except for 'level', the keys of 'amp_configs' must be accepted by the dynamic "
            f"mode's mixed precision APIs, but {tuple(sorted(unknown))} could not be recognized."
        )
    lists = {k: amp_configs[k] for k in _LIST_KEYS if k in keys}
    return level, lists, {k: amp_configs[k] for k in keys & _SCALER_KEYS}


def _forward_arity(network: Any) -> int:
    """Positional parameters of ``network.forward`` (Paddle counts every one of them)."""
    try:
        sig = inspect.signature(network.forward)
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    n = sum(1 for p in sig.parameters.values() if p.kind in kinds)
    return max(n, 1)


class Model:
    """Paddle's ``Model(network, inputs=None, labels=None)``: ``prepare`` it with an
    optimizer, a loss and metrics, then ``fit`` / ``evaluate`` / ``predict`` on datasets
    or data loaders, and ``save`` / ``load`` its parameters (``.pdparams``) and optimizer
    state (``.pdopt``). ``inputs`` / ``labels`` (``InputSpec`` or lists of them) only say
    how many items of a batch are inputs and labels."""

    def __init__(self, network: Any, inputs: Any = None, labels: Any = None) -> None:
        if not callable(network) or not hasattr(network, "parameters"):
            raise TypeError(f"Model: network must be an nn.Layer, got {type(network).__name__}")
        self.network = network
        self._n_inputs = len(_to_list(inputs)) if inputs is not None else _forward_arity(network)
        self._n_labels = len(_to_list(labels)) if labels is not None else None
        self._inputs, self._labels = _to_list(inputs), _to_list(labels)
        self._optimizer: Any = None
        self._loss: Optional[Callable] = None
        self._metrics: list[Any] = []
        self.stop_training = False
        self._amp: tuple[str, dict, dict] = ("O0", {}, {})
        self._scaler: Any = None

    # ---- setup ---------------------------------------------------------------------

    def prepare(
        self, optimizer: Any = None, loss: Any = None, metrics: Any = None, amp_configs: Any = None
    ) -> None:
        """Sets the optimizer (needed by ``fit``), the loss (a callable taking the
        network's outputs then the labels) and the metrics (``paddle.metric.Metric``
        objects). ``amp_configs`` (``'O1'``, ``'O2'`` or a dict with ``level``, the
        ``auto_cast`` lists and ``GradScaler`` arguments): training batches run the
        network under ``amp.auto_cast`` and scale the loss with one ``amp.GradScaler``,
        as Paddle's dynamic mode does."""
        self._amp, self._scaler = _amp_settings(amp_configs), None
        if loss is not None and not callable(loss):
            raise TypeError(
                f"prepare: loss must be callable (e.g. nn.CrossEntropyLoss()), got {loss!r}"
            )
        ms = _to_list(metrics)
        for m in ms:
            missing = [
                a for a in ("compute", "update", "accumulate", "reset", "name") if not hasattr(m, a)
            ]
            if missing:
                raise TypeError(
                    f"prepare: metric {m!r} lacks {missing}; use a paddle.metric.Metric subclass"
                )
        self._optimizer, self._loss, self._metrics = optimizer, loss, ms

    def parameters(self, *args: Any, **kwargs: Any) -> Any:
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    def summary(self, input_size: Any = None, dtype: Any = None) -> Any:
        """``paddle.summary`` of the network."""
        from ..nn.summary import summary

        if input_size is None and self._inputs:
            input_size = [tuple(1 if d in (None, -1) else d for d in s.shape) for s in self._inputs]
            input_size = input_size[0] if len(input_size) == 1 else input_size
        return summary(self.network, input_size, dtypes=dtype)

    # ---- one batch -----------------------------------------------------------------

    def _split(self, data: Any) -> tuple[list[Any], list[Any]]:
        items = [_tensor(d) for d in _flatten(data)]
        n = self._n_inputs
        if len(items) < n:
            raise ValueError(
                f"a batch holds {len(items)} item(s) but the network takes {n} input(s); "
                "pass inputs=[InputSpec(...)] to Model to say how many items are inputs"
            )
        labels = items[n:] if self._n_labels is None else items[n : n + self._n_labels]
        return items[:n], labels

    def _losses(self, outputs: list[Any], labels: list[Any]) -> list[Any]:
        if self._loss is None:
            raise RuntimeError("no loss: call Model.prepare(optimizer, loss, metrics) first")
        return _to_list(self._loss(*(outputs + labels)))

    def _update_metrics(self, outputs: list[Any], labels: list[Any]) -> list[Any]:
        results = []
        for m in self._metrics:
            out = m.compute(*(outputs + labels))
            vals = [v.numpy() if isinstance(v, _core.Tensor) else v for v in _to_list(out)]
            results.append(m.update(*vals))
        return results

    def train_batch(self, inputs: Any, labels: Any = None, update: bool = True) -> Any:
        """One training step on a batch: forward, loss, backward and (``update``) the
        optimizer step with the gradients cleared. Returns the losses as NumPy values
        (and the metrics' batch results when there are metrics)."""
        if self._optimizer is None and update:
            raise RuntimeError("no optimizer: call Model.prepare(optimizer, loss, metrics) first")
        self.network.train()
        ins, labs = [_tensor(x) for x in _to_list(inputs)], [_tensor(x) for x in _to_list(labels)]
        level, lists, scaler_args = self._amp
        amp = level != "O0"
        if amp and self._scaler is None:  # one scaler for the whole training (Paddle's)
            self._scaler = GradScaler(**scaler_args)
        with auto_cast(enable=amp, level=level, **lists):
            outputs = _to_list(self.network(*ins))
        losses = self._losses(outputs, labs)
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        (self._scaler.scale(total) if amp else total).backward()
        if update:
            if amp:
                self._scaler.minimize(self._optimizer)
            else:
                self._optimizer.step()
            self._optimizer.clear_grad()
        with no_grad():
            metrics = self._update_metrics([o.detach() for o in outputs], labs)
        vals = [loss.numpy() for loss in losses]
        return (vals, metrics) if self._metrics else vals

    @no_grad()
    def eval_batch(self, inputs: Any, labels: Any = None) -> Any:
        """The losses (and metric results) of a batch in eval mode, without gradients."""
        self.network.eval()
        ins, labs = [_tensor(x) for x in _to_list(inputs)], [_tensor(x) for x in _to_list(labels)]
        outputs = _to_list(self.network(*ins))
        vals = [loss.numpy() for loss in self._losses(outputs, labs)] if self._loss else []
        metrics = self._update_metrics(outputs, labs)
        return (vals, metrics) if self._metrics else vals

    @no_grad()
    def predict_batch(self, inputs: Any) -> list[np.ndarray]:
        """The network's outputs for a batch, in eval mode, as NumPy arrays."""
        self.network.eval()
        outputs = _to_list(self.network(*[_tensor(x) for x in _to_list(inputs)]))
        return [o.numpy() for o in outputs]

    # ---- loops ---------------------------------------------------------------------

    @staticmethod
    def _loader(
        data: Any, batch_size: int, shuffle: bool, drop_last: bool, num_workers: int
    ) -> Any:
        from ..io import DataLoader, Dataset

        if data is None:
            return None
        if isinstance(data, Dataset) or (
            hasattr(data, "__getitem__")
            and hasattr(data, "__len__")
            and not hasattr(data, "batch_size")
        ):
            return DataLoader(
                data,
                batch_size=batch_size,
                shuffle=shuffle,
                drop_last=drop_last,
                num_workers=num_workers,
            )
        return data  # a DataLoader or any iterable of batches

    def _metric_logs(self, logs: dict[str, Any]) -> None:
        for m in self._metrics:
            names, vals = _to_list(m.name()), _to_list(m.accumulate())
            for k, v in zip(names, vals):
                logs[k] = v

    def _metric_names(self) -> list[str]:
        return [k for m in self._metrics for k in _to_list(m.name())]

    def _run_eval(
        self, loader: Any, callbacks: list[Any], num_samples: Optional[int] = None
    ) -> dict:
        for m in self._metrics:
            m.reset()
        for c in callbacks:
            c.on_eval_begin()
        losses: list[np.ndarray] = []
        logs: dict[str, Any] = {}
        samples, step = 0, 0
        for step, data in enumerate(loader, 1):
            for c in callbacks:
                c.on_eval_batch_begin(step - 1, logs)
            ins, labs = self._split(data)
            out = self.eval_batch(ins, labs)
            vals = out[0] if self._metrics else out
            if vals:
                losses.append(np.array([float(np.asarray(v).reshape(-1)[0]) for v in vals]))
            samples += int(ins[0].shape[0]) if ins and ins[0].ndim else 1
            logs = {"step": step, "batch_size": int(ins[0].shape[0]) if ins and ins[0].ndim else 1}
            if losses:
                logs["loss"] = [float(v) for v in np.mean(losses, axis=0)]
            self._metric_logs(logs)
            for c in callbacks:
                c.on_eval_batch_end(step - 1, logs)
            if num_samples is not None and samples >= num_samples:
                break
        logs["samples"] = samples
        for c in callbacks:
            c.on_eval_end(logs)
        result = {k: v for k, v in logs.items() if k not in ("step", "batch_size", "samples")}
        return result

    def _callbacks(
        self,
        callbacks: Any,
        verbose: int,
        log_freq: int,
        save_dir: Optional[str],
        save_freq: int,
        train: bool,
    ) -> list[Any]:
        cs = _to_list(callbacks)
        if not any(isinstance(c, cbks.ProgBarLogger) for c in cs):
            cs.insert(0, cbks.ProgBarLogger(log_freq, verbose))
        if train and not any(isinstance(c, cbks.LRScheduler) for c in cs):
            cs.append(cbks.LRScheduler())
        if train and save_dir and not any(isinstance(c, cbks.ModelCheckpoint) for c in cs):
            cs.append(cbks.ModelCheckpoint(save_freq, save_dir))
        for c in cs:
            if not isinstance(c, cbks.Callback):
                raise TypeError(f"callbacks must be paddle.callbacks.Callback objects, got {c!r}")
            c.set_model(self)
        return cs

    def fit(
        self,
        train_data: Any = None,
        eval_data: Any = None,
        batch_size: int = 1,
        epochs: int = 1,
        eval_freq: int = 1,
        log_freq: int = 10,
        save_dir: Optional[str] = None,
        save_freq: int = 1,
        verbose: int = 2,
        drop_last: bool = False,
        shuffle: bool = True,
        num_workers: int = 0,
        callbacks: Any = None,
        accumulate_grad_batches: int = 1,
        num_iters: Optional[int] = None,
    ) -> None:
        """Trains for ``epochs`` over ``train_data`` (a Dataset, batched here with
        ``batch_size``/``shuffle``/``drop_last``, or a DataLoader), evaluating on
        ``eval_data`` every ``eval_freq`` epochs; ``accumulate_grad_batches`` sums the
        gradients of that many batches per optimizer step; ``num_iters`` stops after that
        many steps in all."""
        if train_data is None:
            raise ValueError("fit: train_data is required")
        if accumulate_grad_batches < 1:
            raise ValueError(
                f"fit: accumulate_grad_batches must be >= 1, got {accumulate_grad_batches}"
            )
        loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cs = self._callbacks(callbacks, verbose, log_freq, save_dir, save_freq, train=True)
        try:
            steps: Optional[int] = len(loader)
        except TypeError:
            steps = None
        params = {
            "batch_size": batch_size,
            "epochs": epochs,
            "steps": steps,
            "verbose": verbose,
            "metrics": self._metric_names(),
            "save_dir": save_dir,
        }
        for c in cs:
            c.set_params(params)
        self.stop_training = False
        for c in cs:
            c.on_train_begin()
        done = 0
        for epoch in range(epochs):
            for m in self._metrics:
                m.reset()
            for c in cs:
                c.on_epoch_begin(epoch)
            logs: dict[str, Any] = {}
            for step, data in enumerate(loader):
                for c in cs:
                    c.on_train_batch_begin(step, logs)
                ins, labs = self._split(data)
                update = (step + 1) % accumulate_grad_batches == 0 or (
                    steps is not None and step + 1 == steps
                )
                out = self.train_batch(ins, labs, update=update)
                vals = out[0] if self._metrics else out
                logs = {
                    "loss": [float(np.asarray(v).reshape(-1)[0]) for v in vals],
                    "step": step + 1,
                    "batch_size": int(ins[0].shape[0]) if ins[0].ndim else 1,
                }
                self._metric_logs(logs)
                for c in cs:
                    c.on_train_batch_end(step, logs)
                done += 1
                if self.stop_training or (num_iters is not None and done >= num_iters):
                    break
            for c in cs:
                c.on_epoch_end(epoch, logs)
            if eval_loader is not None and (epoch + 1) % max(eval_freq, 1) == 0:
                self._run_eval(eval_loader, cs)
            if self.stop_training or (num_iters is not None and done >= num_iters):
                break
        for c in cs:
            c.on_train_end()

    def evaluate(
        self,
        eval_data: Any,
        batch_size: int = 1,
        log_freq: int = 10,
        verbose: int = 2,
        num_workers: int = 0,
        callbacks: Any = None,
        num_samples: Optional[int] = None,
    ) -> dict[str, Any]:
        """Evaluates on ``eval_data``: ``{'loss': [mean loss per loss output], <metric
        name>: value, ...}``."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cs = self._callbacks(callbacks, verbose, log_freq, None, 1, train=False)
        for c in cs:
            c.set_params(
                {"batch_size": batch_size, "verbose": verbose, "metrics": self._metric_names()}
            )
        return self._run_eval(loader, cs, num_samples)

    def predict(
        self,
        test_data: Any,
        batch_size: int = 1,
        num_workers: int = 0,
        stack_outputs: bool = False,
        verbose: int = 1,
        callbacks: Any = None,
    ) -> list[Any]:
        """The network's outputs over ``test_data``: one list per output holding each
        batch's array (``stack_outputs``: one concatenated array per output). A batch's
        items beyond the network's inputs (labels) are ignored."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cs = self._callbacks(callbacks, 0 if verbose < 2 else verbose, 10, None, 1, train=False)
        for c in cs:
            c.on_predict_begin()
        outs: list[list[np.ndarray]] = []
        for step, data in enumerate(loader):
            for c in cs:
                c.on_predict_batch_begin(step)
            items = [_tensor(d) for d in _flatten(data)]
            res = self.predict_batch(items[: self._n_inputs])
            if not outs:
                outs = [[] for _ in res]
            for acc, r in zip(outs, res):
                acc.append(r)
            for c in cs:
                c.on_predict_batch_end(step)
        for c in cs:
            c.on_predict_end()
        if stack_outputs:
            return [np.concatenate(o, axis=0) for o in outs]
        return outs

    # ---- persistence ---------------------------------------------------------------

    def save(self, path: str, training: bool = True) -> None:
        """Saves the parameters to ``path + '.pdparams'`` and, with ``training`` and an
        optimizer, its state to ``path + '.pdopt'``."""
        from ..serialization import save

        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        save(self.network.state_dict(), path + ".pdparams")
        if training and self._optimizer is not None:
            save(self._optimizer.state_dict(), path + ".pdopt")

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False) -> None:
        """Loads what ``save`` wrote (``path`` with or without ``.pdparams``); with
        ``skip_mismatch`` parameters whose shape differs are left as they are."""
        from ..serialization import load

        base = path[: -len(".pdparams")] if path.endswith(".pdparams") else path
        state = load(base + ".pdparams")
        if skip_mismatch:
            own = self.network.state_dict()
            state = {
                k: v
                for k, v in state.items()
                if k in own and list(own[k].shape) == list(np.shape(v))
            }
        self.network.set_state_dict(state)
        if not reset_optimizer and self._optimizer is not None and os.path.exists(base + ".pdopt"):
            self._optimizer.set_state_dict(load(base + ".pdopt"))
