"""Process groups over MPI: the world group made by ``init_process_group``, sub-groups
from ``new_group``, waiting for MPI requests with a timeout, and telling the other ranks
when this one fails (so they raise instead of waiting forever).

Failure protocol: ``init_process_group`` installs a ``sys.excepthook`` that, after printing
the traceback, sends a short notice (the exception's text) to every other rank on a
private communicator and exits (after giving the peers up to 5 s to read it). Every rank polls for such notices while it waits for a
collective, and raises :class:`RankFailedError` naming the failed rank. A rank that dies
without running Python code (killed) cannot send one; the others then raise
:class:`DistributedTimeoutError` once the group's ``timeout`` has passed. After either
error the group is unusable, and the process ends through ``MPI_Abort`` at exit (status
1) rather than ``MPI_Finalize``, which could wait forever on the failed rank.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
import traceback
from typing import Any, Optional, Sequence, Union

from ._mpi import mpi
from .errors import DistributedTimeoutError, RankFailedError

DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # torch's default for CPU backends
_NOTICE_TAG = 31_337
_BACKENDS = ("mpi", "gloo")

Timeout = Union[datetime.timedelta, float, int, None]


def _seconds(timeout: Timeout) -> float:
    if timeout is None:
        return DEFAULT_TIMEOUT.total_seconds()
    s = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else float(timeout)
    if not s > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    return s


class ProcessGroup:
    """A set of ranks with their own MPI communicator and a timeout for their collectives."""

    def __init__(self, comm: Any, ranks: list[int], timeout: float) -> None:
        self.comm = comm
        self.ranks = ranks  # global ranks, in group-rank order
        self.timeout = timeout

    def rank(self) -> int:
        """This process's rank in the group."""
        return self.comm.Get_rank()

    def size(self) -> int:
        """Number of ranks in the group."""
        return self.comm.Get_size()

    def __repr__(self) -> str:
        return f"ProcessGroup(ranks={self.ranks}, timeout={self.timeout:g} s)"


class _State:
    world: Optional[ProcessGroup] = None
    notices: Any = None  # private communicator for failure notices
    failed: set = set()
    prev_hook: Any = None


def is_available() -> bool:
    """True when mpi4py is installed (MPI can be used)."""
    from ._mpi import available

    return available()


def is_initialized() -> bool:
    """True between ``init_process_group`` and ``destroy_process_group``."""
    return _State.world is not None


def init_process_group(
    backend: str = "mpi",
    init_method: Optional[str] = None,
    timeout: Timeout = None,
    world_size: int = -1,
    rank: int = -1,
    **_unused: Any,
) -> None:
    """Joins the ranks started by ``mpiexec`` into the default group. ``backend`` is
    ``"mpi"`` (``"gloo"`` is accepted as an alias: the transport is MPI either way);
    ``world_size``/``rank``, when given, must match what mpiexec set; ``timeout`` bounds
    every collective's wait (default 30 minutes)."""
    if backend not in _BACKENDS:
        raise ValueError(
            f"backend {backend!r} is not available; ferrograd runs its collectives on MPI: "
            'use backend="mpi" ("gloo" is accepted as an alias)'
        )
    if _State.world is not None:
        raise RuntimeError("init_process_group() was already called in this process")
    secs = _seconds(timeout)
    MPI = mpi()
    world = MPI.COMM_WORLD
    if world_size not in (-1, world.Get_size()):
        raise ValueError(
            f"world_size={world_size} but mpiexec started {world.Get_size()} ranks; "
            "leave world_size out (MPI knows it) or start that many ranks"
        )
    if rank not in (-1, world.Get_rank()):
        raise ValueError(f"rank={rank} but MPI says this process is rank {world.Get_rank()}")
    _State.notices = world.Dup()
    _State.failed = set()
    _State.world = ProcessGroup(world.Dup(), list(range(world.Get_size())), secs)
    if _State.prev_hook is None:
        _State.prev_hook = sys.excepthook
        sys.excepthook = _excepthook


def init_parallel_env() -> None:
    """Paddle's spelling: ``init_process_group("mpi")`` (once; later calls do nothing)."""
    if _State.world is None:
        init_process_group("mpi")


def destroy_process_group(group: Optional[ProcessGroup] = None) -> None:
    """Frees ``group`` (default: everything; ``init_process_group`` may be called again)."""
    if group is not None and group is not _State.world:
        if group.comm is not None:
            group.comm.Free()
            group.comm = None
        return
    if _State.world is not None:
        _State.world.comm.Free()
        _State.notices.Free()
        _State.world = None
        _State.notices = None
    if _State.prev_hook is not None:
        sys.excepthook = _State.prev_hook
        _State.prev_hook = None


def world() -> ProcessGroup:
    """The default group; RuntimeError when ``init_process_group`` has not run."""
    if _State.world is None:
        raise RuntimeError(
            "the default process group is not initialized: call "
            'ferrograd.distributed.init_process_group("mpi") (Paddle: '
            "init_parallel_env()) first, in every rank started by mpiexec"
        )
    return _State.world


def resolve(group: Optional[ProcessGroup]) -> ProcessGroup:
    """``group``, or the default group for None; errors for a group this rank is not in."""
    g = world() if group is None else group
    if g.comm is None:
        raise ValueError(
            f"rank {world().rank()}: this process group was destroyed, or this rank is not "
            f"one of its members {g.ranks}"
        )
    return g


def _env_int(names: Sequence[str], default: int) -> int:
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    return default


def get_rank(group: Optional[ProcessGroup] = None) -> int:
    """This process's rank (in ``group``). Before initialization: the rank mpiexec set in
    the environment, or 0 (as Paddle's ``get_rank``)."""
    if _State.world is None and group is None:
        return _env_int(("PMI_RANK", "OMPI_COMM_WORLD_RANK"), 0)
    return resolve(group).rank()


def get_world_size(group: Optional[ProcessGroup] = None) -> int:
    """Number of ranks (in ``group``). Before initialization: from mpiexec's environment,
    or 1."""
    if _State.world is None and group is None:
        return _env_int(("PMI_SIZE", "OMPI_COMM_WORLD_SIZE"), 1)
    return resolve(group).size()


def new_group(
    ranks: Optional[Sequence[int]] = None, timeout: Timeout = None, backend: Any = None
) -> ProcessGroup:
    """A group of the given global ``ranks`` (default all). Every rank of the default group
    must call it, members or not; a non-member gets a group it cannot use."""
    w = world()
    ranks = list(range(w.size())) if ranks is None else sorted(int(r) for r in ranks)
    bad = [r for r in ranks if not 0 <= r < w.size()]
    if bad or len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: ranks {ranks} must be distinct ranks in [0, {w.size()})")
    mpi_group = w.comm.Get_group().Incl(ranks)
    comm = w.comm.Create(mpi_group)
    mpi_group.Free()
    secs = w.timeout if timeout is None else _seconds(timeout)
    return ProcessGroup(None if comm == mpi().COMM_NULL else comm, ranks, secs)


def _mark_broken() -> None:
    """Makes this process end through ``MPI_Abort`` instead of ``MPI_Finalize`` at exit.

    Once a peer failed or a collective timed out, requests to the failed rank can never
    complete, and ``MPI_Finalize`` (which mpi4py calls at interpreter exit) may wait on
    them, or on the process manager, forever: a job whose rank caught the error and
    exited was seen to hang. mpi4py's ``_set_abort_status`` (the hook behind
    ``python -m mpi4py``) makes its exit handler call ``MPI_Abort`` instead, which ends
    the whole job with exit status 1 whatever the script passed to ``sys.exit``.
    """
    set_status = getattr(mpi(), "_set_abort_status", None)
    if set_status is not None:
        set_status(1)


def _check_notices() -> None:
    """Raises RankFailedError when another rank has reported a failure."""
    comm = _State.notices
    if comm is None:
        return
    MPI = mpi()
    status = MPI.Status()
    if comm.Iprobe(source=MPI.ANY_SOURCE, tag=_NOTICE_TAG, status=status):
        src = status.Get_source()
        buf = bytearray(status.Get_count(MPI.BYTE))
        comm.Recv([buf, MPI.BYTE], source=src, tag=_NOTICE_TAG)
        _State.failed.add(src)
        _mark_broken()
        raise RankFailedError(
            f"rank {comm.Get_rank()}: rank {src} failed, so this collective cannot complete "
            f"(rank {src} reported: {buf.decode(errors='replace')})"
        )


def wait_all(requests: list, group: ProcessGroup, what: str, timeout: Optional[float] = None):
    """Waits for MPI ``requests`` (the GIL is free while sleeping between polls); raises
    RankFailedError if a peer reports a failure, DistributedTimeoutError after the
    timeout."""
    MPI = mpi()
    if MPI.Request.Testall(requests):
        return
    limit = group.timeout if timeout is None else timeout
    start = time.monotonic()
    deadline = start + limit
    delay = 1e-5
    while True:
        _check_notices()
        now = time.monotonic()
        if now >= deadline:
            _mark_broken()
            raise DistributedTimeoutError(
                f"rank {world().rank()}: {what} did not complete within the timeout of "
                f"{limit:g} s (a rank may have died, stopped, or not called it); the group "
                "is unusable now"
            )
        time.sleep(min(delay, deadline - now))
        # short sleeps while the wait is young (a step's all-reduce takes micro- to
        # milliseconds; a long sleep would add its length), longer ones for long waits
        delay = min(delay * 2, 2e-4 if now - start < 0.1 else 2e-3)
        if MPI.Request.Testall(requests):
            return


def _notify_failure(text: str) -> None:
    """Sends ``text`` to every other rank still thought alive; waits ≤ 2 s for the sends."""
    comm = _State.notices
    if comm is None:
        return
    MPI = mpi()
    me = comm.Get_rank()
    data = text.encode()[:4000]
    reqs = [
        comm.Isend([data, MPI.BYTE], dest=r, tag=_NOTICE_TAG)
        for r in range(comm.Get_size())
        if r != me and r not in _State.failed
    ]
    deadline = time.monotonic() + 2.0
    while reqs and not MPI.Request.Testall(reqs) and time.monotonic() < deadline:
        time.sleep(1e-3)


def _excepthook(tp: Any, value: Any, tb: Any) -> None:
    """Prints the error, tells the other ranks, and leaves (without MPI_Finalize, which
    could wait forever on collectives the others will never finish)."""
    me = _State.notices.Get_rank() if _State.notices is not None else "?"
    prev = _State.prev_hook or sys.__excepthook__
    prev(tp, value, tb)
    if _State.notices is not None:
        last = "".join(traceback.format_exception_only(tp, value)).strip()
        _notify_failure(f"{last} (uncaught in rank {me})")
        sys.stdout.flush()
        sys.stderr.flush()
        _give_peers_time()
        os._exit(1)


def _give_peers_time(limit: float = 5.0) -> None:
    """Waits (at most ``limit`` s) before the failed rank exits: its exit makes mpiexec end
    the whole job at once, which could kill a peer before it has read the notice and
    reported the failure (seen in the tests). A peer that reads it raises, and its exit
    (through ``MPI_Abort``) ends the job, this rank included; peers that failed too (they
    sent their own notice) are not waited for."""
    comm = _State.notices
    MPI = mpi()
    alive = set(range(comm.Get_size())) - {comm.Get_rank()} - _State.failed
    end = time.monotonic() + limit
    status = MPI.Status()
    while alive and time.monotonic() < end:
        while comm.Iprobe(source=MPI.ANY_SOURCE, tag=_NOTICE_TAG, status=status):
            src = status.Get_source()
            buf = bytearray(status.Get_count(MPI.BYTE))
            comm.Recv([buf, MPI.BYTE], source=src, tag=_NOTICE_TAG)
            alive.discard(src)
        time.sleep(0.01)
