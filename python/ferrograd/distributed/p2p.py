"""Point-to-point: ``send``/``recv`` and their non-blocking forms. Each message is a
small header (dtype, shape) then the data, so a receiver whose tensor does not match
what was sent raises CollectiveMismatchError naming both instead of truncating."""

from __future__ import annotations

from typing import Optional

import numpy as np

import ferrograd as fg

from . import _buffers as B
from ._mpi import mpi
from .collectives import Work
from .errors import CollectiveMismatchError
from .group import ProcessGroup, resolve, wait_all

_HEADER = 10  # dtype code, sender's group rank, ndim, up to 7 dims
_DATA_TAG_OFFSET = 1 << 20  # data messages use tag + this, headers use tag


def _header(t: fg.Tensor, sender: int) -> np.ndarray:
    h = np.full(_HEADER, -1, dtype=np.int64)
    shape = list(t.shape)[:7]
    h[0], h[1], h[2] = B.dtype_code(t), sender, len(t.shape)
    h[3 : 3 + len(shape)] = shape
    return h


def _describe(h: np.ndarray) -> str:
    ndim = int(h[2])
    return f"{B.name_of_code(int(h[0]))} {[int(d) for d in h[3 : 3 + min(ndim, 7)]]}"


def isend(tensor: fg.Tensor, dst: int, group: Optional[ProcessGroup] = None, tag: int = 0) -> Work:
    """Starts sending ``tensor`` to rank ``dst``."""
    g = resolve(group)
    B.check_tensor(tensor, "send: tensor")
    if dst not in g.ranks:
        raise ValueError(f"send: dst {dst} is not in the group (ranks {g.ranks})")
    peer = g.ranks.index(dst)
    h = _header(tensor, g.rank())
    raw = B.raw_view(tensor)
    r1 = g.comm.Isend([h, mpi().INT64_T], dest=peer, tag=tag)
    r2 = g.comm.Isend(B.msg(raw), dest=peer, tag=tag + _DATA_TAG_OFFSET)
    return Work([r1, r2], g, f"send to rank {dst}")


def send(tensor: fg.Tensor, dst: int, group: Optional[ProcessGroup] = None, tag: int = 0) -> None:
    """Sends ``tensor`` to rank ``dst`` (returns once it is sent)."""
    isend(tensor, dst, group, tag).wait()


def irecv(
    tensor: fg.Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0
) -> Work:
    """Starts receiving into ``tensor`` from rank ``src`` (None: any rank); the work's
    ``result()`` is the sender's rank."""
    g = resolve(group)
    B.check_tensor(tensor, "recv: tensor")
    MPI = mpi()
    if src is not None and src not in g.ranks:
        raise ValueError(f"recv: src {src} is not in the group (ranks {g.ranks})")
    source = MPI.ANY_SOURCE if src is None else g.ranks.index(src)
    h = np.empty(_HEADER, dtype=np.int64)
    req = g.comm.Irecv([h, MPI.INT64_T], source=source, tag=tag)
    raw = B.raw_view(tensor)

    def finish() -> int:
        sender = int(h[1])
        if not (h == _header(tensor, sender)).all():
            raise CollectiveMismatchError(
                f"rank {g.ranks[g.rank()]}: recv into a {B.dtype_name(tensor)} "
                f"{list(tensor.shape)} tensor, but rank {g.ranks[sender]} sent "
                f"{_describe(h)}; sender and receiver tensors must match"
            )
        data = g.comm.Irecv(B.msg(raw), source=sender, tag=tag + _DATA_TAG_OFFSET)
        wait_all([data], g, f"recv from rank {g.ranks[sender]}")
        return g.ranks[sender]

    return Work([req], g, "recv" + ("" if src is None else f" from rank {src}"), finish)


def recv(
    tensor: fg.Tensor, src: Optional[int] = None, group: Optional[ProcessGroup] = None, tag: int = 0
) -> int:
    """Receives into ``tensor`` from rank ``src`` (None: any); returns the sender's rank."""
    return irecv(tensor, src, group, tag).result()
