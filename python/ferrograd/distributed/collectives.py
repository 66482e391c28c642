"""Collectives on tensors, in place on their memory (no copy through pickle; half types
are reduced through a float32 copy), with the GIL released while they wait. Each takes
``async_op=True`` (torch; Paddle: ``sync_op=False``) to return a :class:`Work` handle
instead of waiting."""

from __future__ import annotations

import enum
from typing import Any, Callable, Optional, Sequence

import numpy as np

import ferrograd as fg

from . import _buffers as B
from . import _checks
from ._mpi import mpi
from .group import ProcessGroup, resolve, wait_all


class ReduceOp(enum.IntEnum):
    """Reduction of ``all_reduce``/``reduce_scatter`` (Paddle's ``PROD`` = ``PRODUCT``)."""

    SUM = 0
    AVG = 1
    MAX = 2
    MIN = 3
    PRODUCT = 4
    PROD = 4


_NAMES = ["SUM", "AVG", "MAX", "MIN", "PRODUCT"]


class Work:
    """A collective in flight: ``wait()`` blocks until it is done (GIL free, with the
    group's timeout) and finishes it (copies results out, divides for AVG);
    ``is_completed()`` asks without blocking."""

    def __init__(
        self,
        requests: list,
        group: ProcessGroup,
        what: str,
        finish: Optional[Callable[[], Any]] = None,
    ) -> None:
        self._requests = requests
        self._group = group
        self._what = what
        self._finish = finish
        self._result: Any = None
        self._done = False

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            self._result = self._finish()
            self._finish = None

    def is_completed(self) -> bool:
        """True when the collective has finished (finishing it if so)."""
        if not self._done and mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def wait(self, timeout: Any = None) -> bool:
        """Waits for completion; ``timeout`` (seconds or timedelta) overrides the group's."""
        if not self._done:
            secs = None
            if timeout is not None:
                secs = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
            wait_all(self._requests, self._group, self._what, secs)
            self._complete()
        return True

    def result(self) -> Any:
        """What the collective produced (the sender's rank for ``irecv``)."""
        self.wait()
        return self._result


def _run(work: Work, async_op: bool, sync_op: Optional[bool]) -> Optional[Work]:
    if sync_op is not None:
        async_op = not sync_op
    if async_op:
        return work
    work.wait()
    return None


def _mpi_op(op: ReduceOp, dtype: str) -> Any:
    MPI = mpi()
    op = ReduceOp(op)
    if dtype == "bool":
        if op == ReduceOp.AVG:
            raise TypeError("all_reduce: op=AVG is not defined for bool tensors")
        return MPI.LOR if op in (ReduceOp.SUM, ReduceOp.MAX) else MPI.LAND
    if dtype.startswith("complex") and op in (ReduceOp.MAX, ReduceOp.MIN):
        raise TypeError(f"all_reduce: op={op.name} is not defined for complex tensors")
    if dtype.startswith(("int", "uint")) and op == ReduceOp.AVG:
        raise TypeError(
            "all_reduce: op=AVG on an integer tensor would truncate; use op=SUM and divide, "
            "or convert to a floating dtype"
        )
    return {
        ReduceOp.SUM: MPI.SUM,
        ReduceOp.AVG: MPI.SUM,
        ReduceOp.MAX: MPI.MAX,
        ReduceOp.MIN: MPI.MIN,
        ReduceOp.PRODUCT: MPI.PROD,
    }[op]


def _start_allreduce(tensor: fg.Tensor, op: ReduceOp, g: ProcessGroup, what: str) -> Work:
    """Starts an in-place all-reduce of ``tensor`` (no agreement check)."""
    name = B.dtype_name(tensor)
    mop = _mpi_op(op, name)
    raw = B.raw_view(tensor)
    n = g.size()
    avg = ReduceOp(op) == ReduceOp.AVG
    MPI = mpi()
    if name in B.HALF:
        f32 = B.half_to_f32(raw, name)
        req = g.comm.Iallreduce(MPI.IN_PLACE, B.msg(f32), mop)

        def finish() -> None:
            B.f32_to_half(f32 / np.float32(n) if avg else f32, name, raw)

        return Work([req], g, what, finish)
    req = g.comm.Iallreduce(MPI.IN_PLACE, B.msg(raw), mop)

    def finish_avg() -> None:
        raw[...] /= n

    return Work([req], g, what, finish_avg if avg else None)


def all_reduce(
    tensor: fg.Tensor,
    op: ReduceOp = ReduceOp.SUM,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
    sync_op: Optional[bool] = None,
) -> Optional[Work]:
    """Reduces ``tensor`` across ranks, in place: every rank ends with the result."""
    g = resolve(group)
    B.check_tensor(tensor, "all_reduce: tensor")
    _mpi_op(op, B.dtype_name(tensor))  # type errors before the check
    _checks.agree(g, "all_reduce", B.dtype_code(tensor), tuple(tensor.shape), int(op), -1, _NAMES)
    return _run(_start_allreduce(tensor, op, g, "all_reduce"), async_op, sync_op)


def _group_rank(g: ProcessGroup, rank: int, what: str) -> int:
    if rank not in g.ranks:
        raise ValueError(f"{what}: rank {rank} is not in the group (ranks {g.ranks})")
    return g.ranks.index(rank)


def broadcast(
    tensor: fg.Tensor,
    src: int = 0,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
    sync_op: Optional[bool] = None,
) -> Optional[Work]:
    """Copies rank ``src``'s ``tensor`` into every other rank's ``tensor``, in place."""
    g = resolve(group)
    B.check_tensor(tensor, "broadcast: tensor")
    root = _group_rank(g, src, "broadcast")
    _checks.agree(g, "broadcast", B.dtype_code(tensor), tuple(tensor.shape), root=src)
    req = g.comm.Ibcast(B.msg(B.raw_view(tensor)), root=root)
    return _run(Work([req], g, "broadcast"), async_op, sync_op)


def _like_all(tensor: fg.Tensor, others: Sequence[fg.Tensor], what: str) -> None:
    for i, t in enumerate(others):
        B.check_tensor(t, f"{what}: tensor {i} of the list")
        if tuple(t.shape) != tuple(tensor.shape) or t.dtype != tensor.dtype:
            raise ValueError(
                f"{what}: tensor {i} of the list is {t.dtype} {list(t.shape)}, but the "
                f"input is {tensor.dtype} {list(tensor.shape)}; they must match"
            )


def all_gather(
    tensor_list: list,
    tensor: fg.Tensor,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
    sync_op: Optional[bool] = None,
) -> Optional[Work]:
    """Every rank's ``tensor`` into ``tensor_list[rank]`` (an empty list is filled, as in
    Paddle)."""
    g = resolve(group)
    B.check_tensor(tensor, "all_gather: tensor")
    n = g.size()
    if len(tensor_list) == 0:
        tensor_list.extend(fg.empty(list(tensor.shape), dtype=tensor.dtype) for _ in range(n))
    if len(tensor_list) != n:
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors, need {n}")
    _like_all(tensor, tensor_list, "all_gather")
    _checks.agree(g, "all_gather", B.dtype_code(tensor), tuple(tensor.shape))
    send = B.raw_view(tensor)
    recv = np.empty((n, *send.shape), dtype=send.dtype)
    req = g.comm.Iallgather(B.msg(send), B.msg(recv))

    def finish() -> None:
        for i, t in enumerate(tensor_list):
            B.raw_view(t)[...] = recv[i]

    return _run(Work([req], g, "all_gather", finish), async_op, sync_op)


def all_gather_into_tensor(
    output_tensor: fg.Tensor,
    input_tensor: fg.Tensor,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
) -> Optional[Work]:
    """Every rank's input concatenated (or stacked) into ``output_tensor`` (first dim
    ``world_size`` times the input's, or a new leading dim of ``world_size``)."""
    g = resolve(group)
    B.check_tensor(input_tensor, "all_gather_into_tensor: input_tensor")
    B.check_tensor(output_tensor, "all_gather_into_tensor: output_tensor")
    n = g.size()
    if (
        output_tensor.dtype != input_tensor.dtype
        or output_tensor.numel() != n * input_tensor.numel()
    ):
        raise ValueError(
            f"all_gather_into_tensor: output is {output_tensor.dtype} {list(output_tensor.shape)}"
            f"; it must have the input's dtype ({input_tensor.dtype}) and {n} times its "
            f"{input_tensor.numel()} elements"
        )
    _checks.agree(
        g, "all_gather_into_tensor", B.dtype_code(input_tensor), tuple(input_tensor.shape)
    )
    req = g.comm.Iallgather(B.msg(B.raw_view(input_tensor)), B.msg(B.raw_view(output_tensor)))
    return _run(Work([req], g, "all_gather_into_tensor"), async_op, None)


def reduce_scatter(
    output: fg.Tensor,
    input_list: Sequence[fg.Tensor],
    op: ReduceOp = ReduceOp.SUM,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
) -> Optional[Work]:
    """Reduces ``input_list[i]`` across ranks into rank ``i``'s ``output``."""
    g = resolve(group)
    B.check_tensor(output, "reduce_scatter: output")
    n = g.size()
    if len(input_list) != n:
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors, need {n}")
    _like_all(output, input_list, "reduce_scatter")
    name = B.dtype_name(output)
    mop = _mpi_op(op, name)
    _checks.agree(
        g, "reduce_scatter", B.dtype_code(output), tuple(output.shape), int(op), -1, _NAMES
    )
    out = B.raw_view(output)
    half = name in B.HALF
    parts = [B.raw_view(t) for t in input_list]
    send = np.stack([B.half_to_f32(p, name) for p in parts] if half else parts)
    recv = np.empty(out.shape, dtype=send.dtype)
    req = g.comm.Ireduce_scatter_block(B.msg(send), B.msg(recv), mop)
    avg = ReduceOp(op) == ReduceOp.AVG

    def finish() -> None:
        vals = recv / send.dtype.type(n) if avg else recv
        if half:
            B.f32_to_half(vals, name, out)
        else:
            out[...] = vals

    return _run(Work([req], g, "reduce_scatter", finish), async_op, None)


def gather(
    tensor: fg.Tensor,
    gather_list: Optional[list] = None,
    dst: int = 0,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
) -> Optional[Work]:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (None elsewhere)."""
    g = resolve(group)
    B.check_tensor(tensor, "gather: tensor")
    root = _group_rank(g, dst, "gather")
    me = g.rank()
    n = g.size()
    if me == root:
        if gather_list is None or len(gather_list) != n:
            raise ValueError(f"gather: rank {dst} (dst) needs a gather_list of {n} tensors")
        _like_all(tensor, gather_list, "gather")
    _checks.agree(g, "gather", B.dtype_code(tensor), tuple(tensor.shape), root=dst)
    send = B.raw_view(tensor)
    recv = np.empty((n, *send.shape), dtype=send.dtype) if me == root else None
    req = g.comm.Igather(B.msg(send), B.msg(recv) if recv is not None else None, root=root)

    def finish() -> None:
        if recv is not None and gather_list is not None:
            for i, t in enumerate(gather_list):
                B.raw_view(t)[...] = recv[i]

    return _run(Work([req], g, "gather", finish), async_op, None)


def scatter(
    tensor: fg.Tensor,
    scatter_list: Optional[Sequence[fg.Tensor]] = None,
    src: int = 0,
    group: Optional[ProcessGroup] = None,
    async_op: bool = False,
) -> Optional[Work]:
    """Rank ``src``'s ``scatter_list[i]`` into rank ``i``'s ``tensor``."""
    g = resolve(group)
    B.check_tensor(tensor, "scatter: tensor")
    root = _group_rank(g, src, "scatter")
    n = g.size()
    send = None
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != n:
            raise ValueError(f"scatter: rank {src} (src) needs a scatter_list of {n} tensors")
        _like_all(tensor, scatter_list, "scatter")
        send = np.stack([B.raw_view(t) for t in scatter_list])
    _checks.agree(g, "scatter", B.dtype_code(tensor), tuple(tensor.shape), root=src)
    req = g.comm.Iscatter(
        B.msg(send) if send is not None else None, B.msg(B.raw_view(tensor)), root=root
    )
    return _run(Work([req], g, "scatter"), async_op, None)


def barrier(group: Optional[ProcessGroup] = None, async_op: bool = False) -> Optional[Work]:
    """Waits until every rank of the group has called ``barrier``."""
    g = resolve(group)
    _checks.agree(g, "barrier")
    return _run(Work([g.comm.Ibarrier()], g, "barrier"), async_op, None)
