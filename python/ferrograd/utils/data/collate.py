"""Collation: a list of samples into one batch. Samples are walked recursively (dicts,
tuples, lists, named tuples); NumPy arrays, ferrograd tensors and numbers at the leaves
are stacked with ``np.stack`` into one new buffer, which becomes a tensor without a
further copy (``from_numpy`` shares it). Strings and other leaves stay as lists."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from ..._core import Tensor, from_numpy


def _as_array(x: Any) -> np.ndarray:
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _is_leaf_array(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic, Tensor)) or (
        isinstance(x, numbers.Number) and not isinstance(x, str)
    )


def _number_array(batch: list[Any]) -> np.ndarray:
    """Python numbers as torch types them: bool, int64, float64 or complex128."""
    elem = batch[0]
    if isinstance(elem, bool):
        return np.array(batch, dtype=np.bool_)
    if isinstance(elem, int):
        return np.array(batch, dtype=np.int64)
    if isinstance(elem, float):
        return np.array(batch, dtype=np.float64)
    return np.array(batch)


def numpy_collate(batch: Sequence[Any]) -> Any:
    """Collates ``batch`` into NumPy arrays (what worker processes send back)."""
    if len(batch) == 0:
        raise ValueError("cannot collate an empty batch")
    elem = batch[0]
    if isinstance(elem, (np.ndarray, np.generic, Tensor)):
        arrays = [_as_array(b) for b in batch]
        shapes = {a.shape for a in arrays}
        if len(shapes) != 1:
            raise RuntimeError(
                f"stack expects each sample to have the same shape, got {sorted(shapes)}; "
                "pad the samples or pass a collate_fn"
            )
        return np.stack(arrays)
    if isinstance(elem, numbers.Number):
        return _number_array(list(batch))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, Mapping):
        try:
            # the batch's own mapping class, when it takes a dict (a TypeError otherwise)
            return cast(Any, type(elem))({k: numpy_collate([d[k] for d in batch]) for k in elem})
        except TypeError:
            return {k: numpy_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # named tuple
        return type(elem)(*(numpy_collate(s) for s in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [numpy_collate(list(s)) for s in zip(*batch)]
    raise TypeError(
        "default_collate: batch must contain tensors, NumPy arrays, numbers, dicts or lists; "
        f"found {type(elem).__name__}"
    )


def to_tensors(obj: Any) -> Any:
    """NumPy arrays inside ``obj`` (recursively) become ferrograd tensors sharing their
    memory."""
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return obj
        return from_numpy(np.ascontiguousarray(obj))
    if isinstance(obj, np.generic):
        return from_numpy(np.asarray(obj))
    if isinstance(obj, Mapping):
        try:
            # the object's own mapping class, when it takes a dict (a TypeError otherwise)
            return cast(Any, type(obj))({k: to_tensors(v) for k, v in obj.items()})
        except TypeError:
            return {k: to_tensors(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(to_tensors(v) for v in obj))
    if isinstance(obj, list):
        return [to_tensors(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(to_tensors(v) for v in obj)
    return obj


def default_collate(batch: Sequence[Any]) -> Any:
    """Stacks a list of samples into a batch of ferrograd tensors: arrays and tensors are
    stacked along a new first dimension, numbers become 1-D tensors (int64, float64 or
    bool), dicts / tuples / lists are collated field by field (tuples come back as lists,
    as in PyTorch), strings stay lists."""
    return to_tensors(numpy_collate(batch))


def default_convert(data: Any) -> Any:
    """Without batching (``batch_size=None``): NumPy arrays inside ``data`` become
    tensors, tuples (not named tuples) become lists, as PyTorch's ``default_convert``
    ("for backwards compatibility"), everything else is left as it is."""
    if isinstance(data, tuple) and not hasattr(data, "_fields"):
        return [default_convert(v) for v in data]
    if isinstance(data, tuple):
        return type(data)(*(default_convert(v) for v in data))
    if isinstance(data, list):
        return [default_convert(v) for v in data]
    if isinstance(data, Mapping):
        try:
            return cast(Any, type(data))({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    return to_tensors(data)
