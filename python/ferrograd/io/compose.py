"""Paddle's ``io.ComposeDataset`` (datasets side by side: item ``i`` is the fields of
every dataset's item ``i`` in one tuple) and ``io.SequenceSampler`` (Paddle's name of
``SequentialSampler``)."""

from __future__ import annotations

from typing import Any

from ..utils.data import Dataset, IterableDataset, SequentialSampler


class ComposeDataset(Dataset):
    """``ComposeDataset(datasets)``: map-style datasets of one length; ``ds[i]`` is the
    concatenation of each dataset's ``ds_k[i]`` fields (a non-tuple item counts as one
    field)."""

    def __init__(self, datasets: list) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: input datasets should not be empty")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ComposeDataset: iterable datasets are not supported")
        n = len(self.datasets[0])
        if any(len(d) != n for d in self.datasets):
            raise ValueError("ComposeDataset: lengths of datasets should be same")

    def __len__(self) -> int:
        return len(self.datasets[0])

    def __getitem__(self, idx: Any) -> tuple:
        out: list = []
        for d in self.datasets:
            item = d[idx]
            out.extend(item if isinstance(item, (tuple, list)) else [item])
        return tuple(out)


class SequenceSampler(SequentialSampler):
    """Paddle's ``SequenceSampler(data_source)``: the indices ``0 .. len - 1`` in order."""


__all__ = ["ComposeDataset", "SequenceSampler"]
