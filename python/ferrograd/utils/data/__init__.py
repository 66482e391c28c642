"""``ferrograd.utils.data`` (``torch.utils.data``): datasets, samplers, collation and
the ``DataLoader`` with optional worker processes."""

from __future__ import annotations

from . import distributed as distributed  # noqa: E402
from ._worker import WorkerInfo, get_worker_info
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler  # noqa: E402
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "DistributedSampler",
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
    "default_collate",
    "default_convert",
    "DataLoader",
    "get_worker_info",
    "WorkerInfo",
]
