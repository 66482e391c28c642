"""``torch.multiprocessing``: Python's ``multiprocessing`` plus ``spawn``.

As PyTorch's module (``torch/multiprocessing/__init__.py``, ``spawn.py``), everything of the
standard library's ``multiprocessing`` is here (``Process``, ``Queue``, ``get_context``,
``set_start_method``, ``cpu_count``, ...); ferrograd tensors pickle by value, so they pass
through queues and process arguments as they are. ``spawn(fn, args, nprocs)`` starts
``nprocs`` processes running ``fn(i, *args)`` and re-raises a child's exception in the
parent as ``ProcessRaisedException`` (its traceback in the message).
"""

from __future__ import annotations

import multiprocessing as _mp
import multiprocessing.connection as _connection
import os
import pickle
import signal
import sys
import tempfile
import warnings
from multiprocessing import (  # PyTorch re-exports the whole module
    Array,
    AuthenticationError,
    Barrier,
    BoundedSemaphore,
    BufferTooShort,
    Condition,
    Event,
    JoinableQueue,
    Lock,
    Manager,
    Pipe,
    Pool,
    Process,
    ProcessError,
    Queue,
    RawArray,
    RawValue,
    RLock,
    Semaphore,
    SimpleQueue,
    TimeoutError,
    Value,
    active_children,
    allow_connection_pickling,
    cpu_count,
    current_process,
    freeze_support,
    get_all_start_methods,
    get_context,
    get_logger,
    get_start_method,
    log_to_stderr,
    parent_process,
    reducer,
    set_executable,
    set_forkserver_preload,
    set_start_method,
)
from typing import Any, Callable, Optional

# the standard library's multiprocessing.__all__ (Python 3.9 to 3.13), then PyTorch's names
__all__ = [
    "Array",
    "AuthenticationError",
    "Barrier",
    "BoundedSemaphore",
    "BufferTooShort",
    "Condition",
    "Event",
    "JoinableQueue",
    "Lock",
    "Manager",
    "Pipe",
    "Pool",
    "Process",
    "ProcessError",
    "Queue",
    "RLock",
    "RawArray",
    "RawValue",
    "Semaphore",
    "SimpleQueue",
    "TimeoutError",
    "Value",
    "active_children",
    "allow_connection_pickling",
    "cpu_count",
    "current_process",
    "freeze_support",
    "get_all_start_methods",
    "get_context",
    "get_logger",
    "get_start_method",
    "log_to_stderr",
    "parent_process",
    "reducer",
    "set_executable",
    "set_forkserver_preload",
    "set_start_method",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
]

_STRATEGIES = {"file_descriptor", "file_system"} if sys.platform != "darwin" else {"file_system"}
_strategy = "file_descriptor" if "file_descriptor" in _STRATEGIES else "file_system"


def set_sharing_strategy(new_strategy: str) -> None:
    """Records how tensors would be shared between processes (ferrograd pickles tensors by
    value, so the strategy changes nothing); an unknown name is a ``ValueError``."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(
            f"set_sharing_strategy: unknown strategy {new_strategy!r}; choose one of "
            f"{sorted(_STRATEGIES)}"
        )
    _strategy = new_strategy


def get_sharing_strategy() -> str:
    """The current sharing strategy's name."""
    return _strategy


def get_all_sharing_strategies() -> set:
    """The sharing strategies this platform has."""
    return set(_STRATEGIES)


class ProcessException(Exception):
    """A spawned process failed: ``error_index`` is its index, ``pid`` its process id."""

    def __init__(self, msg: str, error_index: int, pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal."""

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int,
        exit_code: int,
        signal_name: Optional[str] = None,
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> Any:
        return (
            type(self),
            (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name),
        )


def _wrap(fn: Callable, i: int, args: tuple, error_file: str) -> None:
    """The child's entry point: ``fn(i, *args)``; an exception's traceback goes to
    ``error_file`` and the child exits with code 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent terminated this process
    except Exception:
        import traceback

        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The processes ``spawn(..., join=False)`` started; ``join`` waits for them."""

    def __init__(self, processes: list, error_files: list) -> None:
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list:
        """The process ids."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: Optional[float] = None, grace_period: Optional[float] = None) -> bool:
        """Waits (up to ``timeout`` seconds) for processes to end. True once all have ended
        well; if one failed, the others are terminated and its error is raised
        (``ProcessRaisedException`` or ``ProcessExitedException``)."""
        if not self.sentinels:
            return True
        ready = _connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)  # type: ignore[call-overload]
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.join(grace_period or 0)
            if p.is_alive():
                p.terminate()
            p.join()
        return self._raise(failed)

    def _raise(self, index: int) -> bool:
        proc = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = proc.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(
                    f"process {index:d} terminated with signal {name}",
                    index,
                    proc.pid,
                    code,
                    name,
                )
            raise ProcessExitedException(
                f"process {index:d} terminated with exit code {code:d}", index, proc.pid, code
            )
        with open(self.error_files[index], "rb") as fh:
            trace = pickle.load(fh)
        os.unlink(self.error_files[index])
        msg = f"\n\n-- Process {index:d} terminated with the following error:\n" + trace
        raise ProcessRaisedException(msg, index, proc.pid)


def start_processes(
    fn: Callable,
    args: tuple = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> Optional[ProcessContext]:
    """Starts ``nprocs`` processes (with ``start_method``) running ``fn(i, *args)``; with
    ``join=True`` waits for all and returns None, else returns the ``ProcessContext``."""
    ctx: Any = _mp.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        # a fresh path per process: the child writes it only when fn raised
        fd, path = tempfile.mkstemp(prefix="ferrograd-errorfile-", suffix=".pickle")
        os.close(fd)
        os.unlink(path)
        proc = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        proc.start()
        processes.append(proc)
        error_files.append(path)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(
    fn: Callable,
    args: tuple = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> Optional[ProcessContext]:
    """Spawns ``nprocs`` processes running ``fn(i, *args)`` (``fn`` defined at a module's
    top level, so the children can import it). With ``join=True`` waits for all; a child's
    exception is re-raised as ``ProcessRaisedException``. Always uses the ``spawn`` start
    method (another ``start_method`` warns, as PyTorch: use ``start_processes``)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
