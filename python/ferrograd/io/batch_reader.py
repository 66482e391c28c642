"""``paddle.batch``: Paddle's reader decorator that groups a sample reader's items into
lists of ``batch_size`` (the reader-based data pipeline of Paddle's static-graph code)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["batch"]


def batch(
    reader: Callable[[], Iterable[Any]], batch_size: int, drop_last: bool = False
) -> Callable[[], Iterator[list[Any]]]:
    """Returns a reader (a function of no arguments) whose every call iterates
    ``reader()`` and yields its samples in lists of ``batch_size``; the last, shorter
    list is yielded too unless ``drop_last``. ``batch_size`` must be a positive int."""
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, numbers.Integral)
        or batch_size <= 0
    ):
        raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
    size = int(batch_size)

    def batch_reader() -> Iterator[list[Any]]:
        items: list[Any] = []
        for item in reader():
            items.append(item)
            if len(items) == size:
                yield items
                items = []
        if items and not drop_last:
            yield items

    return batch_reader
