"""``torch.nn.modules.utils``: the argument helpers custom layers import
(``_single`` / ``_pair`` / ``_triple`` / ``_quadruple`` / ``_ntuple``), as PyTorch defines
them in ``torch/nn/modules/utils.py``: an iterable becomes a tuple of its items (its
length is not checked), anything else is repeated ``n`` times."""

from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any, Callable

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function that turns an iterable into a tuple and repeats a scalar ``n`` times."""

    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Any, n: int) -> tuple:
    """``t`` reversed with each item repeated ``n`` times (``(1, 2)``, 2 -> ``(2, 2, 1, 1)``:
    the padding order ``F.pad`` takes from a convolution's per-dimension padding)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list) -> Any:
    """``out_size`` with each None replaced by the matching trailing entry of ``defaults``
    (an int ``out_size`` is returned as it is; adaptive pooling's output sizes)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict: Any, prefix: str) -> None:
    """Strips ``prefix`` from the keys of ``state_dict`` that start with it, in place (a
    checkpoint saved from ``nn.DataParallel`` or ``DistributedDataParallel`` has keys
    ``module.<name>``: ``consume_prefix_in_state_dict_if_present(sd, "module.")``)."""
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in [k for k in metadata if k == prefix.rstrip(".") or k.startswith(prefix)]:
            new_key = "" if len(key) < len(prefix) else key[len(prefix) :]
            metadata[new_key] = metadata.pop(key)
