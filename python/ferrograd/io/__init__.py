"""``ferrograd.io`` (``paddle.io``): Paddle's names for the data-loading utilities of
:mod:`ferrograd.utils.data`, with Paddle's ``BatchSampler`` and ``DataLoader`` keyword
names."""

from __future__ import annotations

from ..distributed.sampler import DistributedBatchSampler
from ..utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    get_worker_info,
    random_split,
)
from .compose import ComposeDataset, SequenceSampler
from .loader import BatchSampler, DataLoader, default_collate_fn

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
    "DistributedBatchSampler",
    "DataLoader",
    "default_collate_fn",
    "get_worker_info",
    "ComposeDataset",
    "SequenceSampler",
]
