"""Paddle's ``BatchSampler`` and ``DataLoader`` signatures over ferrograd's data
utilities."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from .. import _core
from ..utils.data import sampler as _s
from ..utils.data.collate import default_collate
from ..utils.data.dataloader import DataLoader as _TorchDataLoader
from ..utils.data.dataset import IterableDataset

#: Paddle's name for the default collation (arrays and tensors stacked into tensors)
default_collate_fn = default_collate


def _arrays_to_tensors(batch: Any) -> Any:
    """Paddle's DataLoader hands every NumPy array of a batch over as a Tensor, wherever a
    ``collate_fn`` put it (``_flatten_batch`` / ``_restore_batch`` in Paddle's
    ``io/dataloader/flat.py``): lists and tuples come back as lists, dicts as dicts, and
    numbers, strings and Tensors unchanged."""
    if isinstance(batch, np.ndarray):
        # arrays of strings or objects are no tensor; Paddle refuses them, kept here as given
        return _core.to_tensor(batch) if batch.dtype.kind in "biufc" else batch
    if isinstance(batch, (str, bytes, _core.Tensor)):
        return batch
    if isinstance(batch, Mapping):
        return {k: _arrays_to_tensors(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [_arrays_to_tensors(v) for v in batch]
    return batch


class BatchSampler(_s.Sampler):
    """Paddle: ``BatchSampler(dataset=None, sampler=None, shuffle=False, batch_size=1,
    drop_last=False)``: batches of indices, either over ``range(len(dataset))`` (shuffled
    each epoch with ``shuffle=True``) or over the indices of ``sampler``; exactly one of
    the two is given."""

    def __init__(
        self,
        dataset: Any = None,
        sampler: Any = None,
        shuffle: bool = False,
        batch_size: int = 1,
        drop_last: bool = False,
    ) -> None:
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler: give exactly one of dataset and sampler")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                raise ValueError("BatchSampler: an IterableDataset has no indices to sample")
            sampler = _s.RandomSampler(dataset) if shuffle else _s.SequentialSampler(dataset)
        elif shuffle:
            raise ValueError("BatchSampler: shuffle must be False when a sampler is given")
        super().__init__(dataset)
        self.sampler = sampler
        self.shuffle = bool(shuffle)
        self._batches = _s.BatchSampler(sampler, batch_size, bool(drop_last))
        self.batch_size = batch_size
        self.drop_last = bool(drop_last)

    # batches of indices, as torch's/Paddle's BatchSampler yields them
    def __iter__(self) -> Iterator[list[int]]:  # type: ignore[override]
        return iter(self._batches)

    def __len__(self) -> int:
        return len(self._batches)


class DataLoader(_TorchDataLoader):
    """Paddle: ``DataLoader(dataset, feed_list=None, places=None, return_list=True,
    batch_sampler=None, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
    num_workers=0, use_buffer_reader=True, prefetch_factor=2, use_shared_memory=True,
    timeout=0, worker_init_fn=None, persistent_workers=False)``. The same loader as
    ``ferrograd.utils.data.DataLoader`` (see there for worker processes). Eager mode
    always returns lists (``return_list``); ``feed_list``, ``places``,
    ``use_buffer_reader`` and ``use_shared_memory`` are accepted and have no effect."""

    def __init__(
        self,
        dataset: Any,
        feed_list: Any = None,
        places: Any = None,
        return_list: bool = True,
        batch_sampler: Any = None,
        batch_size: int | None = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        num_workers: int = 0,
        use_buffer_reader: bool = True,
        prefetch_factor: int = 2,
        use_shared_memory: bool = True,
        timeout: float = 0,
        worker_init_fn: Callable[[int], Any] | None = None,
        persistent_workers: bool = False,
    ) -> None:
        self.return_list = return_list
        if batch_sampler is not None:
            batch_size, shuffle, drop_last = 1, False, False
        super().__init__(
            dataset,
            batch_size=batch_size,
            shuffle=shuffle or None,
            batch_sampler=batch_sampler,
            num_workers=num_workers,
            collate_fn=collate_fn,
            drop_last=drop_last,
            timeout=timeout,
            worker_init_fn=worker_init_fn,
            prefetch_factor=prefetch_factor if num_workers > 0 else None,
            persistent_workers=persistent_workers,
        )

    def __iter__(self) -> Iterator[Any]:
        """The batches of one epoch; a ``collate_fn``'s NumPy arrays arrive as Tensors,
        as in Paddle (the default collation already makes Tensors)."""
        batches = super().__iter__()
        if self._default_collate:
            return batches
        return (_arrays_to_tensors(b) for b in batches)

    def __call__(self) -> Iterator[Any]:
        """Paddle's ``for x, y in loader():`` spelling: an iterator over one epoch, the
        same as ``iter(loader)``."""
        return iter(self)
