"""Worker processes of the DataLoader: each gets batch requests on its own queue, builds
the batch (fetch the samples, collate), and sends it back as NumPy arrays (ferrograd
tensors are not picklable; the parent turns the arrays back into tensors)."""

from __future__ import annotations

import random
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._core import Tensor

_worker_info: WorkerInfo | None = None


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process: its ``id``, ``num_workers``, ``seed`` and its copy
    of the ``dataset``. None in the main process."""
    return _worker_info


class TensorBox:
    """A ferrograd tensor in transit from a worker: its data as a NumPy array."""

    def __init__(self, t: Tensor) -> None:
        self.array = t.detach().numpy()


class Done:
    """Sent by a worker whose iterable dataset is exhausted."""


class ExceptionWrapper:
    """An exception raised in a worker, with its traceback text. ``reraise`` raises the
    original exception object when it could be pickled, else a RuntimeError."""

    def __init__(self, exc: BaseException, worker_id: int) -> None:
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.worker_id = worker_id
        try:
            import pickle

            pickle.loads(pickle.dumps(exc))
            self.exc: BaseException | None = exc
        except Exception:
            self.exc = None

    def reraise(self) -> None:
        note = f"raised in DataLoader worker process {self.worker_id}; its traceback:\n{self.text}"
        if self.exc is not None:
            if hasattr(self.exc, "add_note"):  # Python >= 3.11
                self.exc.add_note(note)
            else:
                self.exc.__notes__ = [*getattr(self.exc, "__notes__", []), note]
            raise self.exc
        raise RuntimeError(f"Caught an unpicklable exception {note}")


def pack(obj: Any) -> Any:
    """Replaces the ferrograd tensors inside ``obj`` (recursively) by ``TensorBox``es."""
    if isinstance(obj, Tensor):
        return TensorBox(obj)
    if isinstance(obj, dict):
        return type(obj)({k: pack(v) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(pack(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(pack(v) for v in obj)
    return obj


def _seed_everything(seed: int) -> None:
    from ... import seed as fg_seed

    random.seed(seed)
    np.random.seed(seed % 2**32)
    fg_seed(seed % 2**63)


def worker_loop(
    dataset: Any,
    iterable: bool,
    index_queue: Any,
    result_queue: Any,
    collate: Any,
    numpy_default: bool,
    batch_size: int | None,
    drop_last: bool,
    worker_id: int,
    num_workers: int,
    seed: int,
    worker_init_fn: Any,
) -> None:
    """The body of one worker process. Messages in: ``(batch_index, indices)`` (indices
    None for an iterable dataset), ``"reset"`` (a new epoch of an iterable dataset),
    None (stop). Messages out: ``(batch_index, batch, numpy_default)`` where ``batch`` may
    be a ``Done`` or an ``ExceptionWrapper``."""
    global _worker_info
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    # a stop message means the parent wants no more batches: exit without waiting for
    # unread ones to be flushed into the pipe
    result_queue.cancel_join_thread()
    _seed_everything(seed)
    init_error = None
    if worker_init_fn is not None:
        try:
            worker_init_fn(worker_id)
        except Exception as e:
            init_error = ExceptionWrapper(e, worker_id)
    stream = None
    while True:
        msg = index_queue.get()
        if msg is None:
            break
        if msg == "reset":
            stream = None
            continue
        idx, indices = msg
        if init_error is not None:
            result_queue.put((idx, init_error, numpy_default))
            continue
        try:
            if iterable:
                if stream is None:
                    stream = iter(dataset)
                samples = []
                limit = 1 if batch_size is None else batch_size
                for sample in stream:
                    samples.append(sample)
                    if len(samples) == limit:
                        break
                if not samples or (batch_size is not None and drop_last and len(samples) < limit):
                    result_queue.put((idx, Done(), numpy_default))
                    continue
                if batch_size is None:
                    data = collate(samples[0])
                else:
                    data = collate(samples)
            elif batch_size is None:
                data = collate(dataset[indices])
            else:
                data = collate([dataset[i] for i in indices])
            result_queue.put((idx, pack(data), numpy_default))
        except Exception as e:
            result_queue.put((idx, ExceptionWrapper(e, worker_id), numpy_default))
