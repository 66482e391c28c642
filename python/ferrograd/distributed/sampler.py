"""Samplers that give each rank its own share of a dataset's indices, as torch's
``DistributedSampler`` and Paddle's ``DistributedBatchSampler``. Standalone iterables of
indices (or index batches), usable with any data loader that takes a sampler."""

from __future__ import annotations

import math
from typing import Any, Iterator, Optional

import numpy as np

from .group import get_rank, get_world_size


def _length(dataset: Any) -> int:
    try:
        return len(dataset)
    except TypeError:
        raise TypeError(
            f"a distributed sampler needs a dataset with len(), got {type(dataset).__name__}"
        ) from None


def _check_rank(rank: int, replicas: int) -> None:
    if replicas < 1 or not 0 <= rank < replicas:
        raise ValueError(f"invalid rank {rank} for {replicas} replicas (need 0 <= rank < replicas)")


class DistributedSampler:
    """Indices of this rank's share of ``dataset`` (torch's ``DistributedSampler``).

    Every rank sees ``ceil(len / num_replicas)`` indices (``drop_last=True``: floor),
    padded by repeating the first indices so all ranks do the same number of steps;
    ``shuffle`` permutes with ``seed + epoch``, so call ``set_epoch(e)`` each epoch."""

    def __init__(
        self,
        dataset: Any,
        num_replicas: Optional[int] = None,
        rank: Optional[int] = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        self.dataset = dataset
        self.num_replicas = get_world_size() if num_replicas is None else int(num_replicas)
        self.rank = get_rank() if rank is None else int(rank)
        _check_rank(self.rank, self.num_replicas)
        self.shuffle = shuffle
        self.seed = int(seed)
        self.drop_last = drop_last
        self.epoch = 0
        n = _length(dataset)
        if drop_last:
            self.num_samples = n // self.num_replicas
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas

    def _indices(self) -> np.ndarray:
        n = _length(self.dataset)
        if self.shuffle:
            idx = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            idx = np.arange(n)
        if self.total_size > n and n > 0:
            idx = np.resize(idx, self.total_size)  # pads by repeating from the start
        idx = idx[: self.total_size]
        return idx[self.rank : self.total_size : self.num_replicas]

    def __iter__(self) -> Iterator[int]:
        return iter(int(i) for i in self._indices())

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which seeds the shuffle (same on every rank)."""
        self.epoch = int(epoch)


class DistributedBatchSampler:
    """Batches of this rank's share of ``dataset`` (Paddle's ``DistributedBatchSampler``):
    an iterable of index lists of ``batch_size``. The indices are padded so every rank has
    the same number; ``shuffle`` uses ``epoch`` (``set_epoch``) as the seed."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        num_replicas: Optional[int] = None,
        rank: Optional[int] = None,
        shuffle: bool = False,
        drop_last: bool = False,
    ) -> None:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        self.batch_size = batch_size
        self.drop_last = drop_last
        self._sampler = DistributedSampler(
            dataset, num_replicas, rank, shuffle=shuffle, seed=0, drop_last=False
        )
        self.nranks = self._sampler.num_replicas
        self.local_rank = self._sampler.rank
        self.dataset = dataset
        self.shuffle = shuffle
        self.epoch = 0

    def __iter__(self) -> Iterator[list]:
        batch: list = []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = self._sampler.num_samples
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which seeds the shuffle (same on every rank)."""
        self.epoch = int(epoch)
        self._sampler.set_epoch(epoch)
