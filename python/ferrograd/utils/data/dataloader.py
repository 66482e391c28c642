"""``DataLoader``: batches from a dataset, in the main process or in worker processes."""

from __future__ import annotations

import multiprocessing as mp
import queue
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import _worker
from ._random import fresh_seed, make_rng
from .collate import default_collate, default_convert, numpy_collate, to_tensors
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

# how long the parent waits for a batch before checking that the workers are alive
_POLL_S = 1.0


def _identity(x: Any) -> Any:
    return x


def _unpack(obj: Any, convert_arrays: bool) -> Any:
    """A worker's batch back in the parent: boxed tensors (and, for the default collate,
    all NumPy arrays) become ferrograd tensors sharing the received memory."""
    if isinstance(obj, _worker.TensorBox):
        return to_tensors(obj.array)
    if isinstance(obj, (np.ndarray, np.generic)):
        return to_tensors(obj) if convert_arrays else obj
    if isinstance(obj, dict):
        return type(obj)({k: _unpack(v, convert_arrays) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_unpack(v, convert_arrays) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unpack(v, convert_arrays) for v in obj)
    return obj


class DataLoader:
    """Iterates over ``dataset`` in batches.

    torch: ``DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False,
    drop_last=False, timeout=0, worker_init_fn=None, multiprocessing_context=None,
    generator=None, prefetch_factor=None, persistent_workers=False)``.

    Map-style datasets are visited in the order of ``sampler`` (sequential, or random
    with ``shuffle=True``), grouped by ``batch_sampler`` (``batch_size`` indices each; the
    last batch shorter unless ``drop_last``). ``batch_size=None`` yields single samples.
    Batches are made by ``collate_fn`` (``default_collate``: stacked ferrograd tensors).

    With ``num_workers > 0`` the batches are built in that many worker processes (the
    platform's default start method, fork on Linux): each worker fetches and collates
    whole batches and sends them back as NumPy arrays, which become tensors in this
    process without another copy; batches come out in order, ``prefetch_factor`` per
    worker in flight. ``worker_init_fn(worker_id)`` runs first in each worker, whose
    Python, NumPy and ferrograd generators are seeded with ``base_seed + worker_id``;
    ``get_worker_info()`` tells a dataset which worker it runs in. An exception raised in
    a worker is re-raised here with the worker's traceback as a note.
    ``persistent_workers=True`` keeps the workers between epochs. ``pin_memory`` is
    accepted and ignored: ferrograd is CPU-only, there is no pinned memory to use.
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], Any] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"num_workers must be a non-negative integer, got {num_workers!r}")
        if timeout < 0:
            raise ValueError(f"timeout must be non-negative, got {timeout}")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing; "
                "let num_workers > 0 to enable multiprocessing"
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor < 1:
            raise ValueError(f"prefetch_factor must be at least 1, got {prefetch_factor}")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.persistent_workers = persistent_workers
        self._iterable = isinstance(dataset, IterableDataset)

        if self._iterable:
            if shuffle:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None or batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler and "
                    "batch_sampler options"
                )
        else:
            if sampler is not None and shuffle:
                raise ValueError("sampler option is mutually exclusive with shuffle")
            if batch_sampler is not None:
                if batch_size != 1 or shuffle or sampler is not None or drop_last:
                    raise ValueError(
                        "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                        "sampler, and drop_last"
                    )
                batch_size, drop_last = None, False
            elif batch_size is None and drop_last:
                raise ValueError(
                    "batch_size=None option disables auto-batching and is mutually exclusive "
                    "with drop_last"
                )
            if sampler is None:
                sampler = (
                    RandomSampler(dataset, generator=generator)
                    if shuffle
                    else SequentialSampler(dataset)
                )
            if batch_size is not None and batch_sampler is None:
                batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        auto = batch_size is not None or batch_sampler is not None
        self._default_collate = collate_fn is None
        if collate_fn is None:
            collate_fn = default_collate if auto else default_convert
        self.collate_fn = collate_fn
        self._persistent_iter: _WorkerIterator | None = None

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def _index_batches(self) -> Iterator[Any]:
        """Per step: a list of indices (auto-batching) or one index."""
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            return self._single_process()
        if self.persistent_workers:
            if self._persistent_iter is None:
                self._persistent_iter = _WorkerIterator(self)
            else:
                self._persistent_iter.new_epoch()
            return self._persistent_iter
        return _WorkerIterator(self)

    def _single_process(self) -> Iterator[Any]:
        collate = self.collate_fn
        if self._iterable:
            stream = iter(self.dataset)
            if self.batch_size is None:
                for sample in stream:
                    yield collate(sample)
                return
            batch: list[Any] = []
            for sample in stream:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield collate(batch)
                    batch = []
            if batch and not self.drop_last:
                yield collate(batch)
            return
        auto = self.batch_sampler is not None
        for idx in self._index_batches():
            if auto:
                yield collate([self.dataset[i] for i in idx])
            else:
                yield collate(self.dataset[idx])


class _WorkerIterator:
    """One pass (or, with persistent workers, every pass) over the batches made by the
    DataLoader's worker processes."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context()
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        n = loader.num_workers
        collate: Callable[[Any], Any]
        if loader._default_collate:
            collate = (
                numpy_collate
                if loader.batch_size is not None or (loader.batch_sampler is not None)
                else _identity
            )
        else:
            collate = loader.collate_fn
        numpy_default = loader._default_collate
        base_seed = (
            int(make_rng(loader.generator).integers(0, 2**62))
            if loader.generator is not None
            else fresh_seed()
        )
        self._result_queue = ctx.Queue()
        self._index_queues = []
        self._workers = []
        for w in range(n):
            iq = ctx.Queue()
            p = ctx.Process(
                target=_worker.worker_loop,
                args=(
                    loader.dataset,
                    loader._iterable,
                    iq,
                    self._result_queue,
                    collate,
                    numpy_default,
                    # iterable: the batch size; map-style: 0 when the messages carry
                    # lists of indices, None when single indices (no auto-batching)
                    loader.batch_size
                    if loader._iterable
                    else (None if loader.batch_sampler is None else 0),
                    loader.drop_last,
                    w,
                    n,
                    base_seed + w,
                    loader.worker_init_fn,
                ),
                daemon=True,
            )
            p.start()
            self._index_queues.append(iq)
            self._workers.append(p)
        self._shutdown = False
        self._start_epoch()

    def _start_epoch(self) -> None:
        loader = self._loader
        self._indices = None if loader._iterable else loader._index_batches()
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_worker: dict[int, int] = {}
        self._reorder: dict[int, Any] = {}
        self._active = [True] * len(self._workers)
        self._next_worker = 0
        self._exhausted = False
        for _ in range(loader.prefetch_factor * len(self._workers)):
            self._send_one()

    def new_epoch(self) -> None:
        """Persistent workers: starts the next pass (the previous one must be finished)."""
        # a pass left early: drop the batches still in flight
        for _ in range(self._send_idx - self._rcvd_idx - len(self._reorder)):
            self._get()
        if self._loader._iterable:
            for iq in self._index_queues:
                iq.put("reset")
        self._start_epoch()

    def _send_one(self) -> None:
        if self._exhausted:
            return
        n = len(self._workers)
        for _ in range(n):  # the next worker that still has data
            w = self._next_worker
            self._next_worker = (self._next_worker + 1) % n
            if self._active[w]:
                break
        else:
            self._exhausted = True
            return
        if self._indices is not None:
            try:
                indices = next(self._indices)
            except StopIteration:
                self._exhausted = True
                return
        else:
            indices = None
        self._index_queues[w].put((self._send_idx, indices))
        self._task_worker[self._send_idx] = w
        self._send_idx += 1

    def _get(self) -> tuple[int, Any, bool]:
        waited = 0.0
        timeout = self._loader.timeout
        while True:
            try:
                return self._result_queue.get(timeout=_POLL_S)
            except queue.Empty:
                waited += _POLL_S
                dead = [p for p in self._workers if not p.is_alive()]
                if dead:
                    pids = ", ".join(str(p.pid) for p in dead)
                    self.shutdown()
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                    ) from None
                if timeout and waited >= timeout:
                    self.shutdown()
                    raise RuntimeError(
                        f"DataLoader timed out after {timeout} seconds waiting for a batch"
                    ) from None

    def __iter__(self) -> _WorkerIterator:
        return self

    def __next__(self) -> Any:
        while True:
            if self._rcvd_idx >= self._send_idx:
                if not self._loader.persistent_workers:
                    self.shutdown()
                raise StopIteration
            if self._rcvd_idx in self._reorder:
                data, convert = self._reorder.pop(self._rcvd_idx)
            else:
                idx, data, convert = self._get()
                if idx != self._rcvd_idx:
                    self._reorder[idx] = (data, convert)
                    continue
            w = self._task_worker.pop(self._rcvd_idx)
            self._rcvd_idx += 1
            if isinstance(data, _worker.Done):
                self._active[w] = False
                self._send_one()
                continue
            if isinstance(data, _worker.ExceptionWrapper):
                self.shutdown()
                data.reraise()
            self._send_one()
            return _unpack(data, convert)

    def shutdown(self) -> None:
        """Stops the worker processes."""
        if self._shutdown:
            return
        self._shutdown = True
        for iq in self._index_queues:
            try:
                iq.put(None)
            except (OSError, ValueError):
                pass
        for p in self._workers:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1)
        for q in [self._result_queue, *self._index_queues]:
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self.shutdown()
        except Exception:
            pass
