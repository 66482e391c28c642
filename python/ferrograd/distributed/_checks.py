"""Cross-rank agreement check run before each user-facing collective: every rank shares a
short signature (which collective, dtype, shape, reduce op, root) and all compare, so a
mismatch raises CollectiveMismatchError naming the ranks and the difference instead of
hanging or reducing garbage. Costs one small all-gather; set
``FERROGRAD_DISTRIBUTED_CHECKS=0`` to skip it (DDP's bucket all-reduces never run it:
their layout is checked once when the model is wrapped)."""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from ._buffers import name_of_code
from ._mpi import mpi
from .errors import CollectiveMismatchError
from .group import ProcessGroup, wait_all

OPS = [
    "all_reduce",
    "broadcast",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "gather",
    "scatter",
    "barrier",
]
_MAXDIM = 6
_LEN = 5 + _MAXDIM


def enabled() -> bool:
    """False when ``FERROGRAD_DISTRIBUTED_CHECKS=0``."""
    return os.environ.get("FERROGRAD_DISTRIBUTED_CHECKS", "1") != "0"


def _describe(row: np.ndarray, reduce_names: list) -> str:
    op, dtype, red, root, ndim = (int(v) for v in row[:5])
    text = OPS[op]
    if op == OPS.index("barrier"):
        return text
    shape = [int(d) for d in row[5 : 5 + min(ndim, _MAXDIM)]]
    text += f" on a {name_of_code(dtype)} tensor of shape {shape}"
    if red >= 0:
        text += f" with op={reduce_names[red]}"
    if root >= 0:
        text += f", root {root}"
    return text


def agree(
    group: ProcessGroup,
    op: str,
    dtype: int = 0,
    shape: tuple = (),
    reduce_op: int = -1,
    root: int = -1,
    reduce_names: Optional[list] = None,
) -> None:
    """Raises CollectiveMismatchError unless every rank of ``group`` passes the same
    arguments (with ``op`` naming the collective)."""
    if not enabled() or group.size() == 1:
        return
    mine = np.full(_LEN, -1, dtype=np.int64)
    mine[:5] = [OPS.index(op), dtype, reduce_op, root, len(shape)]
    mine[5 : 5 + min(len(shape), _MAXDIM)] = list(shape)[:_MAXDIM]
    everyone = np.empty((group.size(), _LEN), dtype=np.int64)
    MPI = mpi()
    req = group.comm.Iallgather([mine, MPI.INT64_T], [everyone, MPI.INT64_T])
    wait_all([req], group, f"{op} (checking that all ranks agree)")
    if (everyone == mine).all():
        return
    names = reduce_names or ["SUM", "AVG", "MAX", "MIN", "PRODUCT"]
    me = group.rank()
    other = next(r for r in range(group.size()) if not (everyone[r] == mine).all())
    raise CollectiveMismatchError(
        f"rank {group.ranks[me]}: collective mismatch: this rank called "
        f"{_describe(mine, names)}, but rank {group.ranks[other]} called "
        f"{_describe(everyone[other], names)}; every rank must make the same collective "
        "calls in the same order with tensors of the same shape and dtype"
    )
