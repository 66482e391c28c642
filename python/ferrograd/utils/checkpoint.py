"""Activation checkpointing: keep only a region's inputs during forward and recompute the
rest when backward needs it (``torch.utils.checkpoint`` and Paddle's ``recompute``).

Built on the saved-tensor hooks (as PyTorch's non-reentrant checkpoint is): while the
region runs, every tensor a recorded node saves is packed into a small handle that holds
no data, only the tensor's shape and dtype and its position in the region. The first
unpack during backward re-runs the region once (grad mode on, RNG state restored) under a
hook that hands each saved tensor to its handle; each handle gives its tensor up when its
node unpacks it, and a handle is freed with its node, so a recomputed tensor lives only
until the node that needs it has run. The engine re-attaches every unpacked tensor to the
original graph, so ``create_graph=True`` and nested regions differentiate as without
checkpointing.

Recomputation does only what backward cannot get otherwise. A saved tensor that is the
region's own input, unchanged when backward needs it, is served as it is (the region
keeps its inputs); so is one of its outputs while the caller still holds that output
object, unchanged (in a chain of regions it is the next region's input, held by it).
Outputs are held weakly: once the caller drops one, its memory is freed at once, and
backward recomputes the part of the region that produces it. Parameters are saved as
they are (they stay alive anyway); and the recomputation stops as soon as every handle
that still needs a tensor has one (PyTorch's early stop), so the ops after the last
needed save do not run again.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any, Callable, Iterable, Iterator

from .. import _core
from ..autograd.budget import current_budget
from ..autograd.graph import saved_tensors_hooks
from ..grad_mode import enable_grad, is_grad_enabled

__all__ = [
    "checkpoint",
    "noop_context_fn",
    "checkpoint_sequential",
    "get_rng_state",
    "set_rng_state",
    "recompute",
    "recompute_sequential",
]


def get_rng_state() -> tuple[int, int, int, int]:
    """The state of ferrograd's random generator (``rand``, ``randn``, dropout), for
    :func:`set_rng_state`. An opaque tuple of four 64-bit words."""
    return _core._rng_state()


def set_rng_state(state: Iterable[int]) -> None:
    """Restores a state returned by :func:`get_rng_state`: the draws that followed it
    are drawn again."""
    words = tuple(int(w) for w in state)
    if len(words) != 4:
        raise ValueError(
            f"set_rng_state: expected the 4-word state from get_rng_state(), got {len(words)} values"
        )
    _core._set_rng_state(words)


_recomputing = threading.local()


class _in_memory_hooks(saved_tensors_hooks):
    """The recomputing hooks of this module: what they pack (a data-less handle, a
    recomputed tensor) stays in RAM, so they leave the buffer cache on (large recomputed
    and backward tensors then reuse freed buffers instead of faulting in fresh pages).
    Parameters are saved as they are: they stay alive anyway, and recomputing them
    would only cost a pack and an unpack call each."""

    _in_memory = True
    _keep_leaves = True


class _StopRecompute(Exception):
    """Raised by the recomputing pack hook once every handle that needs a tensor has
    one: the rest of the region need not run again."""


def _view_key(t: Any) -> tuple | None:
    """What identifies the memory and values of ``t`` while it is alive: two live tensors
    with the same key read the same elements (None for empty tensors, whose address
    means nothing)."""
    if t.numel() == 0:
        return None
    return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype, t._version)


class _Held:
    """What a node recorded during recomputation saved: the tensor itself (used only if
    the region runs a backward of its own, e.g. ``autograd.grad`` inside ``fn``)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor


class _Handle:
    """One tensor saved in a checkpointed region: no data until recomputation fills
    ``value``; freed with the node that saved it."""

    __slots__ = ("frame", "index", "value", "output", "kept", "__weakref__")

    def __init__(self, frame: _Frame, index: int) -> None:
        self.frame, self.index, self.value = frame, index, None
        # a weak reference to the region's output object this handle saved, if any:
        # served while the caller holds it, recomputed once the caller has dropped it
        self.output: weakref.ref | None = None
        # that output's data, given by _relay when the later region that took the output
        # as its input is freed: kept until this handle's node has run, as a plain save
        self.kept: Any = None


# The region outputs that handles refer to weakly, by object id: (a weak reference to the
# output, weak references to the handles that saved it). A later region that takes such
# an output as its input holds it strongly; when that region's frame is freed (in
# backward: once its nodes have run), _relay gives the output's data to the handles
# still waiting for it, so that the region that produced it is not recomputed for it.
_weak_outputs: dict[int, tuple[weakref.ref, list[weakref.ref]]] = {}
_weak_outputs_lock = threading.RLock()  # reentrant: a weak callback may run inside (gc)


def _forget(key: int) -> Callable[[weakref.ref], None]:
    def drop(ref: weakref.ref) -> None:
        with _weak_outputs_lock:
            entry = _weak_outputs.get(key)
            if entry is not None and entry[0] is ref:
                del _weak_outputs[key]

    return drop


def _register_output(out: Any, handle: _Handle) -> None:
    """Makes ``handle`` refer weakly to the region output ``out`` (TypeError if ``out``
    takes no weak references)."""
    key = id(out)
    with _weak_outputs_lock:
        entry = _weak_outputs.get(key)
        if entry is None or entry[0]() is not out:
            entry = (weakref.ref(out, _forget(key)), [])
            _weak_outputs[key] = entry
        entry[1].append(weakref.ref(handle))
    handle.output = entry[0]


def _relay(tensors: list) -> None:
    """Called when a frame whose inputs include region outputs is freed: the handles
    that saved those outputs keep their data from now on (until their nodes run)."""
    for t in tensors:
        tensor: Any = t  # (the identity test below would narrow `t` to the weakref's result)
        with _weak_outputs_lock:
            entry = _weak_outputs.get(id(t))
            if entry is None or entry[0]() is not t:
                continue
            refs = list(entry[1])
        data = None
        for ref in refs:
            h = ref()
            if h is not None and h.kept is None:
                if data is None:
                    data = tensor.detach()  # data only: no cycle node -> handle -> output -> node
                h.kept = data


def _region_name(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"checkpoint region {name!r}"


class _Frame:
    """One call of a checkpointed function: its inputs, the RNG state it started from,
    and what its nodes saved (specs and weak links to the handles)."""

    def __init__(self, fn: Callable, args: tuple, kwargs: dict, preserve_rng_state: bool):
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.name = _region_name(fn)
        self.rng_state = get_rng_state() if preserve_rng_state else None
        # inputs modified in place after forward would make recomputation silently differ
        self.versions = [
            (i, a, a._version) for i, a in enumerate(args) if isinstance(a, _core.Tensor)
        ]
        self.specs: list[tuple[tuple, Any]] = []
        self.handles: list[weakref.ref] = []
        # the saved tensors themselves, only until the forward ends (finish_forward)
        self.pending: list[Any] = []
        # index -> (key, where): a saved tensor that is an input (int: its position in
        # args) or an output (None: the handle refers to it weakly) of the region, served
        # as it is while it is alive and unchanged
        self.sources: dict[int, tuple[tuple, Any]] = {}
        # index -> the later indices that saved the same view (one recomputed tensor
        # fills them all, so the recomputation can stop at the first)
        self.aliases: dict[int, list[int]] = {}
        self.forward_done = False
        #: ``context_fn``'s second context manager, entered around each recomputation
        self.recompute_context: Any = None
        self.lock = threading.RLock()
        outputs_taken = [
            a
            for a in (*args, *kwargs.values())
            if isinstance(a, _core.Tensor) and id(a) in _weak_outputs
        ]
        if outputs_taken:  # earlier regions' outputs, held by this frame until it is freed
            weakref.finalize(self, _relay, outputs_taken).atexit = False

    def pack(self, t: Any) -> _Handle:
        h = _Handle(self, len(self.specs))
        self.specs.append((tuple(t.shape), t.dtype))
        self.handles.append(weakref.ref(h))
        self.pending.append(t)
        return h

    def finish_forward(self, out: Any) -> None:
        """Records which saved tensors are the region's inputs or outputs, or the same
        view saved twice, while all of them are alive (equal keys then mean the same
        memory), and lets go of the saved tensors."""
        inputs: dict[Any, int] = {}
        for i, a in enumerate(self.args):
            if isinstance(a, _core.Tensor) and (k := _view_key(a)) is not None:
                inputs.setdefault(k, i)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        outputs: dict[Any, Any] = {}
        for o in outs:
            if isinstance(o, _core.Tensor) and (k := _view_key(o)) is not None:
                outputs.setdefault(k, o)
        first: dict[tuple, int] = {}
        for i, t in enumerate(self.pending):
            k = _view_key(t)
            if k is None:
                continue
            if k in inputs:
                self.sources[i] = (k, inputs[k])
            elif k in outputs and (h := self.handles[i]()) is not None:
                # weakly: holding the output would keep one activation per region that
                # nothing else needs (the last region's output once the loss is computed)
                # and tie the node that saved it to itself (node -> handle -> output ->
                # node), a cycle nothing collects
                try:
                    _register_output(outputs[k], h)
                except TypeError:  # an output type without weak references: recompute it
                    pass
                else:
                    self.sources[i] = (k, None)
            if k in first:
                self.aliases.setdefault(first[k], []).append(i)
            else:
                first[k] = i
        self.pending = []
        self.forward_done = True

    def served(self, i: int) -> Any:
        """Saved tensor ``i`` without recomputing, if it is an input of the region or an
        output the caller still holds, unchanged; else None."""
        src = self.sources.get(i)
        if src is None:
            return None
        key, where = src
        if where is None:
            h = self.handles[i]()
            t = None if h is None else h.kept
            if t is None and h is not None and h.output is not None:
                t = h.output()
        else:
            t = self.args[where]
        if t is None or _view_key(t) != key:
            return None  # dropped by the caller, or changed in place since: recompute it
        # an output detached: the engine re-attaches it to the node that saved it
        return t.detach() if where is None else t

    def check_inputs(self) -> None:
        for i, a, v in self.versions:
            if a._version != v:
                raise RuntimeError(
                    f"{self.name}: input {i} was modified in place after the forward "
                    f"(version {v} -> {a._version}), so recomputation would not reproduce the "
                    "saved tensors; clone the input before modifying it"
                )

    def recompute(self) -> None:
        """Runs the region again, until every live handle that cannot be served otherwise
        has its tensor."""
        if not self.forward_done:
            raise RuntimeError(
                f"{self.name}: a tensor saved inside the region was needed before the region's "
                "forward finished (a backward or autograd.grad inside the checkpointed "
                "function); run that part outside checkpoint()"
            )
        self.check_inputs()
        needed = set()
        for i, ref in enumerate(self.handles):
            h = ref()
            if h is not None and h.value is None and self.served(i) is None:
                needed.add(i)
        count = 0
        stopped = False

        def pack(t: Any) -> _Held:
            nonlocal count, stopped
            i = count
            count += 1
            if stopped:  # fn caught _StopRecompute and went on: nothing more is needed
                raise _StopRecompute()
            if i >= len(self.specs):
                raise RuntimeError(
                    f"{self.name}: recomputation saved more tensors than the forward "
                    f"({len(self.specs)}); the checkpointed function must do the same "
                    "operations each time it runs (no data-dependent control flow on state "
                    "that changes between forward and backward)"
                )
            shape, dtype = tuple(t.shape), t.dtype
            if (shape, dtype) != self.specs[i]:
                raise RuntimeError(
                    f"{self.name}: recomputation differs from the forward: saved tensor {i} "
                    f"is a {dtype} tensor of shape {list(shape)}, but the forward saved a "
                    f"{self.specs[i][1]} tensor of shape {list(self.specs[i][0])}; the "
                    "checkpointed function must compute the same thing each time it runs"
                )
            for j in (i, *self.aliases.get(i, ())):
                h = self.handles[j]()
                if h is not None and h.value is None:  # None: its node ran and was freed
                    h.value = t
                needed.discard(j)
            if not needed:
                stopped = True
                raise _StopRecompute()
            return _Held(t)

        outer = get_rng_state() if self.rng_state is not None else None
        was_recomputing = getattr(_recomputing, "on", False)
        _recomputing.on = True  # nested regions decide as in forward, not by a budget
        try:
            if self.rng_state is not None:
                set_rng_state(self.rng_state)
            context = self.recompute_context
            with _in_memory_hooks(pack, _unpack), enable_grad():
                with context if context is not None else contextlib.nullcontext():
                    self.fn(*self.args, **self.kwargs)
        except _StopRecompute:
            if not stopped:
                raise
        finally:
            _recomputing.on = was_recomputing
            if outer is not None:
                set_rng_state(outer)
        if not stopped and count != len(self.specs):
            raise RuntimeError(
                f"{self.name}: recomputation saved {count} tensors but the forward saved "
                f"{len(self.specs)}; the checkpointed function must do the same operations "
                "each time it runs"
            )


def _unpack(obj: Any) -> Any:
    if isinstance(obj, _Held):
        return obj.tensor
    frame = obj.frame
    with frame.lock:
        if obj.value is None:
            t = frame.served(obj.index)
            if t is not None:
                frame.check_inputs()  # as a recomputation would
                return t
            frame.recompute()
        t, obj.value = obj.value, None  # handed over: freed once its node has run
    return t


def noop_context_fn() -> tuple[Any, Any]:
    """PyTorch's default ``context_fn``: two contexts that do nothing."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _contexts(context_fn: Any, use_reentrant: bool | None) -> tuple[Any, Any] | None:
    """``context_fn()``'s (forward, recompute) context managers; None for no
    ``context_fn`` (or PyTorch's ``noop_context_fn``). As PyTorch, a ``context_fn``
    needs ``use_reentrant=False``."""
    if context_fn is None or context_fn is noop_context_fn:
        return None
    if use_reentrant is not False:
        raise ValueError(
            "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only "
            "supported when use_reentrant=False."
        )
    if not callable(context_fn):
        raise TypeError(f"checkpoint: context_fn must be callable, got {type(context_fn).__name__}")
    pair = context_fn()
    if not (
        isinstance(pair, tuple)
        and len(pair) == 2
        and all(hasattr(c, "__enter__") and hasattr(c, "__exit__") for c in pair)
    ):
        raise TypeError(
            "checkpoint: context_fn must return a tuple of two context managers (one for the "
            f"forward, one for the recomputation), got {pair!r}"
        )
    return pair


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    context_fn: Any = None,
    determinism_check: str = "default",
    debug: bool = False,
    **kwargs: Any,
) -> Any:
    """Runs ``function(*args, **kwargs)`` keeping only its inputs for backward; what its
    operations save is recomputed (once per backward) when backward first needs it.

    ``preserve_rng_state`` restores the generator state for the recomputation, so dropout
    draws the same mask. ``use_reentrant`` is accepted for PyTorch compatibility: both
    values run this hook-based implementation, which supports ``autograd.grad``,
    ``create_graph=True``, nested regions, keyword arguments and inputs that do not
    require grad. Outside grad mode this is a plain call. ``context_fn`` (with
    ``use_reentrant=False``, as PyTorch requires) returns two context managers: the first
    is entered around the forward, the second around each recomputation (PyTorch's
    selective checkpointing, ``create_selective_checkpoint_contexts``, is not
    implemented). ``debug`` is not supported (a ``NotImplementedError`` says so);
    ``determinism_check`` accepts ``"default"`` (shapes and dtypes of the recomputed
    tensors are checked) and ``"none"``.
    """
    if debug:
        raise NotImplementedError("checkpoint: debug=True is not supported by ferrograd")
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"checkpoint: determinism_check must be 'default' or 'none', got {determinism_check!r}"
        )
    if not callable(function):
        raise TypeError(f"checkpoint: function must be callable, got {type(function).__name__}")
    contexts = _contexts(context_fn, use_reentrant)
    if not is_grad_enabled():
        return function(*args, **kwargs)  # as PyTorch: context_fn called, not entered
    forward_context = contextlib.nullcontext() if contexts is None else contexts[0]
    budget = None if getattr(_recomputing, "on", False) else current_budget()
    if budget is not None:
        keep = budget.has_room()
        budget.region_started(keep)
        if keep:  # memory_budget has room: keep this region's tensors, no recomputation
            with _forward_guard(forward_context):
                return _run_kept(budget, function, args, kwargs)
    frame = _Frame(function, args, kwargs, preserve_rng_state)
    if contexts is not None:
        frame.recompute_context = contexts[1]
    try:
        with _in_memory_hooks(frame.pack, _unpack), _forward_guard(forward_context):
            out = function(*args, **kwargs)
    except BaseException:
        frame.pending = []  # a partial graph may outlive the error: keep no tensors
        raise
    frame.finish_forward(out)
    return out


@contextlib.contextmanager
def _forward_guard(context: Any) -> Iterator[None]:
    """Enters ``context_fn``'s forward context; as PyTorch, one that swallows the
    forward's exception is an error (there is no output to return)."""
    raised = False
    with context:
        try:
            yield
        except BaseException:
            raised = True
            raise
    if raised:
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed "
            "an exception raised during the checkpointed forward. This is not supported "
            "because checkpoint cannot return a value for a failed forward."
        )


def _run_kept(budget: Any, function: Callable, args: tuple, kwargs: dict) -> Any:
    def pack(t: Any) -> Any:
        budget.region_bytes_kept += t.numel() * t.element_size()
        return budget.keep(t)

    hooks = saved_tensors_hooks(pack, lambda k: k.tensor)
    # kept in RAM: the buffer cache stays on (as for checkpoint's own hooks)
    hooks._pack_once = hooks._keep_leaves = hooks._in_memory = True
    with hooks:
        return function(*args, **kwargs)


def _as_list(functions: Any) -> list:
    if isinstance(functions, (list, tuple)):
        return list(functions)
    try:
        return list(functions)  # nn.Sequential iterates over its layers
    except TypeError:
        raise TypeError(
            "checkpoint_sequential: functions must be a Sequential or a list of callables, "
            f"got {type(functions).__name__}"
        ) from None


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
) -> Any:
    """Runs a sequence of layers split into ``segments`` chunks of ``len // segments``
    layers; every chunk but the last runs under :func:`checkpoint`, the last one (with
    the remaining layers) runs plainly, as its activations are needed at once by
    backward."""
    fns = _as_list(functions)
    if not isinstance(segments, int) or isinstance(segments, bool) or segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be an int >= 1, got {segments!r}")
    size = len(fns) // segments
    if size == 0:  # more segments than layers: one layer each, the last one plain
        size, segments = 1, len(fns)

    def run(chunk: list) -> Callable:
        def segment(x: Any) -> Any:
            for f in chunk:
                x = f(x)
            return x

        segment.__qualname__ = f"checkpoint_sequential segment of {len(chunk)} layers"
        return segment

    end = size * (segments - 1)
    for start in range(0, end, size):
        input = checkpoint(
            run(fns[start : start + size]),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve_rng_state,
        )
    return run(fns[end:])(input)


def recompute(function: Callable, *args: Any, **kwargs: Any) -> Any:
    """Paddle's ``distributed.fleet.utils.recompute(function, *args, **kwargs)``:
    :func:`checkpoint` with Paddle's keywords ``preserve_rng_state`` (default True) and
    ``use_reentrant`` (accepted; both values run the hook-based implementation, so
    keyword arguments for ``function`` work either way)."""
    preserve = kwargs.pop("preserve_rng_state", True)
    use_reentrant = kwargs.pop("use_reentrant", True)
    return checkpoint(
        function, *args, use_reentrant=use_reentrant, preserve_rng_state=preserve, **kwargs
    )


def recompute_sequential(ctx: dict, functions: Any, *args: Any, **kwargs: Any) -> Any:
    """Paddle's ``recompute_sequential(ctx, functions, *args)``: ``ctx`` holds
    ``segments`` (default 1) and ``preserve_rng_state`` (default True); layers are split
    as in :func:`checkpoint_sequential` and each chunk but the last is recomputed."""
    if not isinstance(ctx, dict):
        raise TypeError(f"recompute_sequential: ctx must be a dict, got {type(ctx).__name__}")
    if len(args) != 1 or kwargs:
        raise ValueError(
            "recompute_sequential: pass exactly one input (the first layer's argument) and no "
            "keyword arguments"
        )
    return checkpoint_sequential(
        functions,
        ctx.get("segments", 1),
        args[0],
        preserve_rng_state=ctx.get("preserve_rng_state", True),
    )


from .._missing import missing_attribute as _missing_attribute  # noqa: E402

#: PyTorch's selective-checkpointing names raise an AttributeError saying they are missing
__getattr__ = _missing_attribute(__name__)
