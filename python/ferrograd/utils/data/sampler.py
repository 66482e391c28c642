"""Samplers: what order the DataLoader visits a map-style dataset in, and how indices
are grouped into batches."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ._random import make_rng


class Sampler:
    """Base class: an iterable of dataset indices (``__iter__``), usually with a
    ``__len__``."""

    def __init__(self, data_source: Any = None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class _Seeded:
    """Holds the ``generator=`` argument: a NumPy generator made once (so that a seed
    gives a different order each epoch, reproducibly), or None for a fresh draw from
    ferrograd's global generator each epoch."""

    def _init_rng(self, generator: Any) -> None:
        self.generator = generator
        self._rng = None if generator is None else make_rng(generator)

    def _epoch_rng(self) -> np.random.Generator:
        return self._rng if self._rng is not None else make_rng(None)


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler, _Seeded):
    """A random permutation of the indices each epoch, or with ``replacement=True``
    ``num_samples`` indices drawn uniformly with replacement."""

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        super().__init__(data_source)
        self.replacement = bool(replacement)
        self._num_samples = num_samples
        if num_samples is not None and (
            isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0
        ):
            raise ValueError(f"num_samples should be a positive integer, got {num_samples!r}")
        self._init_rng(generator)

    @property
    def num_samples(self) -> int:
        """How many indices one epoch yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = self._epoch_rng()
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        out: list[int] = []
        while len(out) < self.num_samples:
            out.extend(rng.permutation(n).tolist())
        return iter(out[: self.num_samples])

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler, _Seeded):
    """The given ``indices`` in a random order each epoch."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        super().__init__(None)
        self.indices = list(indices)
        self._init_rng(generator)

    def __iter__(self) -> Iterator[int]:
        perm = self._epoch_rng().permutation(len(self.indices))
        return iter([self.indices[i] for i in perm])

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler, _Seeded):
    """``num_samples`` indices in ``[0, len(weights))``, index ``i`` drawn with probability
    ``weights[i] / sum(weights)`` (with or without replacement)."""

    def __init__(
        self,
        weights: Any,
        num_samples: int,
        replacement: bool = True,
        generator: Any = None,
    ) -> None:
        super().__init__(None)
        w = np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, np.float64)
        if w.ndim != 1 or w.size == 0:
            raise ValueError(f"weights must be a non-empty 1-D sequence, got shape {w.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError("weights must be finite, non-negative and not all zero")
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer, got {num_samples!r}")
        if not replacement and num_samples > np.count_nonzero(w):
            raise ValueError(
                f"cannot draw {num_samples} samples without replacement from "
                f"{np.count_nonzero(w)} non-zero weights"
            )
        self.weights = w
        self.num_samples = num_samples
        self.replacement = bool(replacement)
        self._init_rng(generator)

    def __iter__(self) -> Iterator[int]:
        p = self.weights / self.weights.sum()
        idx = self._epoch_rng().choice(len(p), self.num_samples, replace=self.replacement, p=p)
        return iter(idx.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one
    shorter unless ``drop_last``). torch: ``BatchSampler(sampler, batch_size, drop_last)``.
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer, got {batch_size!r}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a bool, got {drop_last!r}")
        super().__init__(None)
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    # torch's BatchSampler yields lists of indices, not indices
    def __iter__(self) -> Iterator[list[int]]:  # type: ignore[override]
        batch: list[int] = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
