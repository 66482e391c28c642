"""Keeps non-blocking MPI collectives moving while backward computes.

MPICH (like most MPI libraries without a dedicated progress thread) advances a
non-blocking all-reduce only inside MPI calls on the rank, so an ``Iallreduce`` started
during backward sits still while the Rust engine computes the next gradients, and most
of its work happens in the final wait. The engine releases the GIL while it computes, so
a small Python thread can call ``MPI.Request.Testall`` on what is in flight every
``interval`` seconds; it sleeps (no busy spinning) between polls and waits on a
condition when nothing is in flight. ``FERROGRAD_DDP_PROGRESS=hooks`` turns it off: MPI is
then progressed only when a gradient hook runs.

Every access to the requests goes through one lock: an MPI request must not be tested
from two threads at once.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from ._mpi import mpi


def thread_enabled() -> bool:
    """False when ``FERROGRAD_DDP_PROGRESS=hooks`` asks for progress in hooks only, or
    when MPI was initialised without ``MPI_THREAD_MULTIPLE`` (mpi4py's default level;
    a lower one, set through ``mpi4py.rc.thread_level``, forbids calls from two
    threads)."""
    mode = os.environ.get("FERROGRAD_DDP_PROGRESS", "thread").strip().lower()
    if mode not in ("thread", "hooks"):
        raise ValueError(
            f"FERROGRAD_DDP_PROGRESS={mode!r}: use 'thread' (the default: a background "
            "thread polls MPI during backward) or 'hooks' (poll only in gradient hooks)"
        )
    if mode == "hooks":
        return False
    MPI = mpi()
    return bool(MPI.Query_thread() == MPI.THREAD_MULTIPLE)


class Progress:
    """Requests in flight, polled from the hooks and (optionally) a background thread."""

    def __init__(self, use_thread: bool, interval: float = 2e-4) -> None:
        self._cv = threading.Condition(threading.Lock())
        self._requests: list = []
        self._interval = interval
        self._thread: Any = None
        self._use_thread = use_thread

    def add(self, request: Any, wake: bool = True) -> None:
        """Adds a started request; with ``wake``, the polling thread starts polling."""
        with self._cv:
            self._requests.append(request)
            if not (self._use_thread and wake):
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="ferrograd-ddp-progress", daemon=True
                )
                self._thread.start()
            self._cv.notify()

    def poll(self) -> None:
        """Gives MPI one chance to progress everything in flight (from a hook)."""
        with self._cv:
            self._test_locked()

    def take(self) -> list:
        """Stops polling and returns the requests (the caller waits for them)."""
        with self._cv:
            out, self._requests = self._requests, []
            return out

    def _test_locked(self) -> None:
        if self._requests and mpi().Request.Testall(self._requests):
            self._requests = []

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._requests:
                    self._cv.wait()
                self._test_locked()
            time.sleep(self._interval)
