"""``memory_budget(nbytes)``: keep saved tensors in memory up to a budget, then trade
memory for time region by region.

While the budget has room, everything forward saves stays in memory (as without hooks).
Once the bytes held reach ``nbytes``, the next ``checkpoint`` region recomputes in
backward (a region that starts with room left keeps its tensors in memory and is not
recomputed), and a tensor saved outside any checkpointed region goes to disk
(``save_on_disk``). Bytes are given back to the budget when the graph holding them is
freed. ``report()`` says what was done.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from .graph import save_on_disk, saved_tensors_hooks

__all__ = ["memory_budget"]

_active = threading.local()


def current_budget() -> memory_budget | None:
    """The innermost ``memory_budget`` entered on this thread, if any."""
    stack = getattr(_active, "stack", None)
    return stack[-1] if stack else None


class _Kept:
    """A tensor kept in memory under the budget; gives its bytes back when freed."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor


def _nbytes(t: Any) -> int:
    return t.numel() * t.element_size()


class memory_budget(saved_tensors_hooks):
    """Context in which saved tensors stay in memory until ``nbytes`` are held, then
    checkpointed regions recompute and other saved tensors go to disk (``directory``, a
    temporary one by default). A tensor saved by several nodes is counted once."""

    _pack_once = True
    _keep_leaves = True  # parameters are in memory anyway: not charged to the budget

    def __init__(self, nbytes: int, directory: str | None = None) -> None:
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
            raise ValueError(f"memory_budget: nbytes must be an int >= 0, got {nbytes!r}")
        self.nbytes = nbytes
        self.held = 0
        self.peak_held = 0
        self.kept = [0, 0]  # tensors, bytes kept in memory outside checkpointed regions
        self.on_disk = [0, 0]  # tensors, bytes written to disk
        self.regions_kept = 0
        self.regions_recomputed = 0
        self.region_bytes_kept = 0
        self._lock = threading.Lock()
        self._disk = save_on_disk(directory)

        def pack(t: Any) -> Any:
            n = _nbytes(t)
            if self.has_room():
                self.kept[0] += 1
                self.kept[1] += n
                return self.keep(t)
            self.on_disk[0] += 1
            self.on_disk[1] += n
            return self._disk.pack_hook(t)

        def unpack(obj: Any) -> Any:
            return obj.tensor if isinstance(obj, _Kept) else self._disk.unpack_hook(obj)

        super().__init__(pack, unpack)

    def has_room(self) -> bool:
        """Whether the bytes held are below the budget."""
        return self.held < self.nbytes

    def keep(self, t: Any) -> _Kept:
        """Charges ``t`` to the budget and returns a holder that refunds it when freed."""
        n = _nbytes(t)
        with self._lock:
            self.held += n
            self.peak_held = max(self.peak_held, self.held)
        k = _Kept(t)
        weakref.finalize(k, self._refund, n)
        return k

    def _refund(self, n: int) -> None:
        with self._lock:
            self.held -= n

    def region_started(self, keep: bool) -> None:
        """Called by ``checkpoint`` when a region starts under this budget."""
        if keep:
            self.regions_kept += 1
        else:
            self.regions_recomputed += 1

    def __enter__(self) -> memory_budget:
        super().__enter__()
        if not hasattr(_active, "stack"):
            _active.stack = []
        _active.stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _active.stack.pop()
        super().__exit__(*exc)

    def report(self) -> str:
        """What the budget did, in words: tensors kept in memory, written to disk, and
        checkpointed regions kept or recomputed."""
        mb = 2**20
        return (
            f"memory_budget({self.nbytes / mb:.1f} MB): peak held {self.peak_held / mb:.1f} MB; "
            f"outside checkpointed regions {self.kept[0]} tensors ({self.kept[1] / mb:.1f} MB) "
            f"kept in memory, {self.on_disk[0]} ({self.on_disk[1] / mb:.1f} MB) written to "
            f"disk; checkpointed regions: {self.regions_kept} kept in memory "
            f"({self.region_bytes_kept / mb:.1f} MB), {self.regions_recomputed} recomputed"
        )
