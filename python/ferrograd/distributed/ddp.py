"""Data-parallel training: ``DistributedDataParallel`` (torch) and ``DataParallel``
(Paddle), one class underneath.

How it works (as PyTorch's reducer):

* at wrap time every rank checks that it holds the same parameters (count, shapes,
  dtypes) and takes rank 0's values (broadcast of parameters and buffers);
* parameters are grouped into buckets of about ``bucket_cap_mb`` in reverse registration
  order (roughly the order backward produces their gradients), one dtype per bucket; the
  first bucket closes at 1 MB (as PyTorch's), so its all-reduce starts early;
* a post-accumulate-grad hook on each parameter (``register_post_accumulate_grad_hook``)
  counts ready gradients; when a bucket is complete, its gradients are copied into one
  flat buffer and a non-blocking all-reduce starts at once, so communication overlaps the
  rest of the backward pass. Buckets start in index order on every rank (a bucket ready
  early waits for its predecessors), so all ranks issue the same collectives in the same
  order. MPI advances a non-blocking all-reduce only inside MPI calls, so the hooks
  and a background thread (``_progress.py``; it runs while the engine computes with the
  GIL released) keep testing what is in flight;
* the first hook of a pass queues a callback that runs when backward ends
  (``queue_callback``): it waits for what is still in flight, averages, and writes the
  results back into each ``.grad`` in place. The optimizer then sees averaged gradients.

``no_sync()`` skips all of this (gradients accumulate locally; the next synchronised
backward reduces the sum). With ``find_unused_parameters=True`` the graph is walked after
each forward and parameters it does not reach count as ready (their contribution is
zero); a parameter no rank used keeps its ``.grad`` unchanged.
"""

from __future__ import annotations

import contextlib
import time
import zlib
from typing import Any, Iterator, Optional

import numpy as np

import ferrograd as fg
from ferrograd import _core, nn

from . import _buffers as B
from ._mpi import mpi
from ._progress import Progress, thread_enabled
from .errors import CollectiveMismatchError, DistributedError
from .group import ProcessGroup, resolve, wait_all

FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    """Parameters reduced together: one flat buffer (float32 for half types)."""

    def __init__(self, index: int, params: list, dtype: str) -> None:
        self.index = index
        self.params = params  # list of (param index, param)
        self.dtype = dtype
        sizes = [p.numel() for _, p in params]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        acc = np.float32 if dtype in B.HALF else B._RAW[dtype][0]
        self.flat: np.ndarray = np.zeros(int(self.offsets[-1]), dtype=acc)
        self.ready = 0
        self.request: Any = None


def _graph_leaves(outputs: Any) -> set:
    """ids of the parameters reachable from the autograd graph of ``outputs``."""
    stack: list[Any] = []
    seen: set = set()
    found: set = set()

    def collect(o: Any) -> None:
        if isinstance(o, fg.Tensor):
            if o.grad_fn is not None:
                stack.append(o.grad_fn)
            elif o.requires_grad:
                found.add(_tensor_key(o))
        elif isinstance(o, (list, tuple)):
            for x in o:
                collect(x)
        elif isinstance(o, dict):
            for x in o.values():
                collect(x)

    collect(outputs)
    while stack:
        node = stack.pop()
        if node in seen:  # node wrappers compare (and hash) by the node they wrap
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.add(_tensor_key(variable))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return found


def _tensor_key(t: fg.Tensor) -> Any:
    """A key naming the tensor's storage and layout (Python wrappers are not unique)."""
    return (t.data_ptr() if t.numel() else id(t), tuple(t.shape), str(t.dtype))


class DistributedDataParallel(nn.Module):
    """Wraps ``module`` for data-parallel training over the ranks of ``process_group``:
    call it like the module, ``loss.backward()`` averages gradients across ranks.
    ``last_reduce_wait_s``: how long the end of the last synchronised backward waited for
    communication (seconds)."""

    def __init__(
        self,
        module: nn.Module,
        device_ids: Any = None,
        output_device: Any = None,
        broadcast_buffers: bool = True,
        process_group: Optional[ProcessGroup] = None,
        bucket_cap_mb: float = 25,
        find_unused_parameters: bool = False,
        **_unused: Any,
    ) -> None:
        super().__init__()
        self.module = module
        g = resolve(process_group)
        object.__setattr__(self, "_group", g)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.require_backward_grad_sync = True
        self.broadcast_buffers = broadcast_buffers
        seen: set = set()
        params = []
        for name, p in module.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append((name, p))
        object.__setattr__(self, "_params", params)
        self._check_same_parameters()
        self._broadcast_state()
        first_mb = float(_unused.get("_first_bucket_mb", FIRST_BUCKET_BYTES / 2**20))
        object.__setattr__(self, "_buckets", self._make_buckets(bucket_cap_mb, first_mb))
        where = {}
        for b in self._buckets:
            for k, (i, _) in enumerate(b.params):
                where[i] = (b, k)
        object.__setattr__(self, "_where", where)
        self._armed = False
        self._queued = False
        self._next_bucket = 0
        self.last_reduce_wait_s = 0.0
        object.__setattr__(self, "_progress", Progress(thread_enabled()))
        self._handles = [
            p.register_post_accumulate_grad_hook(self._make_hook(i))
            for i, (_, p) in enumerate(params)
        ]

    # ---- wrap time -------------------------------------------------------------------

    def _check_same_parameters(self) -> None:
        """Raises CollectiveMismatchError when ranks hold different parameter lists."""
        g = self._group
        sig = [(tuple(p.shape), B.dtype_name(p)) for _, p in self._params]
        digest = np.array([len(sig), zlib.crc32(repr(sig).encode())], dtype=np.int64)
        allsig = np.empty((g.size(), 2), dtype=np.int64)
        req = g.comm.Iallgather([digest, mpi().INT64_T], [allsig, mpi().INT64_T])
        wait_all([req], g, "DistributedDataParallel construction")
        bad = [r for r in range(g.size()) if not (allsig[r] == digest).all()]
        if bad:
            raise CollectiveMismatchError(
                f"rank {g.ranks[g.rank()]}: DistributedDataParallel: rank {g.ranks[bad[0]]} "
                f"wraps a model with different parameters ({int(allsig[bad[0]][0])} vs "
                f"{len(sig)} here, or different shapes/dtypes); every rank must build the "
                "same model"
            )

    def _broadcast_state(self) -> None:
        """Every rank takes rank 0's parameters and buffers (in place)."""
        g = self._group
        tensors = [p for _, p in self._params] + list(self.module.buffers())
        reqs = [g.comm.Ibcast(B.msg(B.raw_view(t)), root=0) for t in tensors if t.numel()]
        wait_all(reqs, g, "DistributedDataParallel: broadcast of rank 0's parameters")

    def _make_buckets(self, cap_mb: float, first_mb: float) -> list:
        cap = max(1, int(cap_mb * 1024 * 1024))
        # the first bucket (the last layers, whose gradients come first) is small, as
        # PyTorch's 1 MB first bucket: its all-reduce starts early in backward
        first_cap = min(cap, max(1, int(first_mb * 1024 * 1024)))
        buckets: list = []
        current: dict = {}  # dtype -> (params, bytes)
        for i in reversed(range(len(self._params))):
            p = self._params[i][1]
            dt = B.dtype_name(p)
            ps, size = current.get(dt, ([], 0))
            ps.append((i, p))
            size += p.numel() * (4 if dt in B.HALF else p.element_size())
            current[dt] = (ps, size)
            if size >= (first_cap if not buckets else cap):
                buckets.append(_Bucket(len(buckets), ps, dt))
                del current[dt]
        for dt, (ps, _) in current.items():
            buckets.append(_Bucket(len(buckets), ps, dt))
        return buckets

    # ---- forward / backward ----------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the module; arms the gradient reduction of the next backward pass."""
        if self._armed and any(b.ready for b in self._buckets):
            raise DistributedError(
                f"rank {self._group.ranks[self._group.rank()]}: the previous backward pass "
                "did not finish reducing gradients (an error interrupted it?); call "
                "zero_grad() and run forward again after fixing the cause"
            )
        out = self.module(*args, **kwargs)
        sync = self.require_backward_grad_sync and fg.is_grad_enabled()
        self._armed = sync
        self._queued = False
        self._next_bucket = 0
        for b in self._buckets:
            b.ready = 0
            b.request = None
        self._used = np.ones(len(self._params), dtype=np.int32)
        if sync and self.find_unused_parameters:
            reached = _graph_leaves(out)
            for i, (_, p) in enumerate(self._params):
                if _tensor_key(p) not in reached:
                    self._used[i] = 0
                    self._mark_ready(i)
        return out

    def _make_hook(self, i: int) -> Any:
        def hook(_param: fg.Tensor) -> None:
            if self._armed:
                self._mark_ready(i)

        return hook

    def _mark_ready(self, i: int) -> None:
        if not self._queued:
            try:
                _core._queue_callback(self._finalize)
                self._queued = True
            except RuntimeError:
                pass  # called from forward (unused parameter): the first hook queues it
        b, _ = self._where[i]
        b.ready += 1
        # launch buckets in index order only, so every rank issues the same sequence
        while self._next_bucket < len(self._buckets):
            nb = self._buckets[self._next_bucket]
            if nb.ready < len(nb.params):
                break
            self._launch(nb)
            self._next_bucket += 1
        # give MPI a chance to progress what is already in flight (the progress thread
        # also does, while the engine computes)
        self._progress.poll()

    def _launch(self, b: _Bucket) -> None:
        for k, (i, p) in enumerate(b.params):
            dst = b.flat[b.offsets[k] : b.offsets[k + 1]]
            g = p.grad
            if g is not None and not isinstance(g, _core.Tensor):
                raise RuntimeError(
                    "DistributedDataParallel: a parameter's .grad is sparse "
                    "(nn.Embedding(sparse=True)), which is not supported here; use sparse=False"
                )
            if g is None or not self._used[i]:
                dst[...] = 0
            elif b.dtype in B.HALF:
                dst[...] = B.half_to_f32(B.raw_view(g.contiguous()), b.dtype).reshape(-1)
            else:
                dst[...] = B.raw_view(g.contiguous()).reshape(-1)
        b.request = self._group.comm.Iallreduce(mpi().IN_PLACE, B.msg(b.flat), mpi().SUM)
        # the last bucket is waited for right away by the end of backward: no need to
        # wake the progress thread for it
        self._progress.add(b.request, wake=b.index + 1 < len(self._buckets))

    def _finalize(self) -> None:
        """End of backward: wait for the buckets, average, write back into ``.grad``."""
        if not self._armed:
            return
        self._armed = False
        self._progress.take()  # this thread waits from here on
        g = self._group
        missing = [
            self._params[i][0]
            for b in self._buckets[self._next_bucket :]
            for i, p in b.params
            if p.grad is None or b.ready < len(b.params)
        ]
        if self._next_bucket < len(self._buckets):
            pending = [b.request for b in self._buckets if b.request is not None]
            if pending:
                wait_all(pending, g, "DistributedDataParallel gradient all-reduce")
            raise DistributedError(
                f"rank {g.ranks[g.rank()]}: DistributedDataParallel: these parameters got "
                f"no gradient in this backward pass: {missing[:10]}; if the model does not "
                "use every parameter in every step, pass find_unused_parameters=True"
            )
        reqs = [b.request for b in self._buckets]
        used = None
        if self.find_unused_parameters:
            used = self._used.copy()
            reqs.append(g.comm.Iallreduce(mpi().IN_PLACE, [used, mpi().INT32_T], mpi().SUM))
        t0 = time.perf_counter()
        wait_all(reqs, g, "DistributedDataParallel gradient all-reduce")
        # how long the end of backward waited for communication (benches/distributed.py)
        self.last_reduce_wait_s = time.perf_counter() - t0
        n = g.size()
        for b in self._buckets:
            b.request = None
            b.ready = 0
            n_ = b.flat.dtype.type(n)
            for k, (i, p) in enumerate(b.params):
                if used is not None and used[i] == 0:
                    continue  # no rank used it: leave .grad as it was
                total = b.flat[b.offsets[k] : b.offsets[k + 1]].reshape(list(p.shape))
                grad = p.grad
                if grad is None or not grad.is_contiguous():
                    grad = fg.zeros(list(p.shape), dtype=p.dtype)
                    p.grad = grad
                raw = B.raw_view(grad)
                if b.dtype in B.HALF:
                    B.f32_to_half(total / n_, b.dtype, raw)
                else:
                    np.divide(total, n_, out=raw)  # average straight into .grad: one pass

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward passes accumulate gradients locally without communicating; the
        first synchronised backward after it reduces the accumulated sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def remove_hooks(self) -> None:
        """Unregisters the gradient hooks (the module trains locally again)."""
        for h in self._handles:
            h.remove()
        self._handles = []

    @property
    def process_group(self) -> ProcessGroup:
        """The group gradients are averaged over."""
        return self._group

    def bucket_sizes(self) -> list:
        """Number of parameters in each bucket, in launch order."""
        return [len(b.params) for b in self._buckets]


class DataParallel(DistributedDataParallel):
    """Paddle's ``paddle.DataParallel(layers)``: the same reducer; ``comm_buffer_size`` is
    the bucket size in MB, ``last_comm_buffer_size`` that of the bucket reduced first (the
    last layers'); ``state_dict`` has the wrapped layer's keys (no prefix)."""

    def __init__(
        self,
        layers: nn.Module,
        strategy: Any = None,
        comm_buffer_size: float = 25,
        last_comm_buffer_size: float = 1,
        find_unused_parameters: bool = False,
        group: Optional[ProcessGroup] = None,
    ) -> None:
        super().__init__(
            layers,
            process_group=group,
            bucket_cap_mb=comm_buffer_size,
            find_unused_parameters=find_unused_parameters,
            _first_bucket_mb=last_comm_buffer_size,
        )

    @property
    def _layers(self) -> nn.Module:
        return self.module

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        """The wrapped layer's state dict."""
        return self.module.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict: Any, *args: Any, **kwargs: Any) -> Any:
        """Loads into the wrapped layer."""
        return self.module.set_state_dict(state_dict, *args, **kwargs)

    def load_state_dict(self, state_dict: Any, *args: Any, **kwargs: Any) -> Any:
        """Loads into the wrapped layer."""
        return self.module.load_state_dict(state_dict, *args, **kwargs)
