"""``torch.autograd.forward_ad``: forward-mode AD (dual tensors) on the reverse-mode
engine.

``make_dual(x, t)`` returns ``p = x - s``, where ``s`` is a hidden zero leaf that requires
grad, remembered with the tangent ``t`` by the current level (``x - 0`` keeps every value
exactly, the sign of a zero included). ``p`` keeps ``x``'s reverse-mode history, so
gradients still flow to ``x``. The tangent of any ``y`` computed from dual tensors is
``J_y t``, summed over the level's dual inputs, computed exactly by the double-vjp trick:
``g = grad(y, roots, u, create_graph=True)`` for a zero ``u`` shaped like ``y`` (``g`` is
linear in ``u``), then ``grad(g, u, -t)``, the transpose of that linear map, which is the
forward-mode tangent (for complex tensors too: PyTorch's backward is the adjoint of its
forward-mode derivative under the real inner product ``Re <a, b>``, and the adjoint of the
adjoint is the map itself, so the result is PyTorch's JVP, not its conjugate). Tangents are
computed when ``unpack_dual`` asks for them, from the tangents' values at that moment.

Custom ``autograd.Function`` classes propagate tangents through their ``jvp`` (PyTorch's rule),
see :mod:`._fwd_function`. An op without a double backward cannot take part: ferrograd
raises its create-graph error for it, which this module rewords as forward mode needing
that op's double backward.

Limits (docs/autograd.md, "Forward-mode AD"): a dual tensor (and everything computed from
one) requires grad, and is a new tensor rather than a view of the primal; computations run
under ``no_grad`` / ``inference_mode`` are not recorded, so they carry no tangent
(``unpack_dual`` refuses a tensor without history under ``no_grad`` while the level holds
dual tensors, rather than answer None); unpack before ``backward()`` frees the graph; tensor
hooks on the way run during ``unpack_dual``; one level at a time, as in PyTorch.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple, Optional

from .. import _core
from .._core import Tensor
from ..grad_mode import _DecoratorContextManager, enable_grad, is_grad_enabled
from . import _fwd_function
from .py_layer import Function

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]

#: The current level (-1: none), PyTorch's module global of the same name.
_current_level = -1


class _Level:
    """A level's dual inputs: the hidden zero leaves (roots) and their tangents, and the
    dual tensors ``make_dual`` returned (to give their tangent back as is)."""

    def __init__(self, idx: int) -> None:
        self.idx = idx
        self.roots: list[Tensor] = []
        self.tangents: list[Tensor] = []
        self.root_ids: set[int] = set()
        # id(dual) -> (weak reference, version when made, tangent)
        self.duals: dict[int, tuple[Any, int, Tensor]] = {}

    def add(self, root: Tensor, tangent: Tensor, dual: Tensor) -> None:
        self.roots.append(root)
        self.tangents.append(tangent)
        self.root_ids.add(id(root))
        key = id(dual)
        duals = self.duals
        self.duals[key] = (
            weakref.ref(dual, lambda _r: duals.pop(key, None)),
            dual._version,
            tangent,
        )


_LEVEL: _Level | None = None


def enter_dual_level() -> int:
    """Enters a new forward AD level, which ``make_dual`` / ``unpack_dual`` use by default,
    and returns its index. Only one level can exist at a time (as in PyTorch)."""
    global _current_level, _LEVEL
    if _LEVEL is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _LEVEL = _Level(0)
    _current_level = 0
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Exits the current forward AD level: its dual inputs are dropped, so tensors
    computed in it have no tangent any more."""
    global _current_level, _LEVEL
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    if _LEVEL is None:
        raise RuntimeError(
            "Trying to exit a forward AD level but no level exists; enter_dual_level() "
            "(or dual_level()) first"
        )
    _LEVEL = None
    _current_level = level - 1


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) that enters a forward AD level and exits it at
    the end: ``with dual_level(): ...``; ``as`` gives the level's index. Not nestable, as
    in PyTorch (use ``torch.func.jvp`` for higher-order forward derivatives)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


class _UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Optional[Tensor]


class UnpackedDualTensor(_UnpackedDualTensor):
    """Namedtuple ``(primal, tangent)`` returned by :func:`unpack_dual`."""

    __slots__ = ()


class _ForwardADStop(Function):
    """Identity whose backward passes gradients on, except in unpack_dual's first pass,
    where it passes none: what ``unpack_dual`` returns (a primal, a tangent) carries no
    tangent of the level, as in PyTorch, yet stays backward differentiable."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        if _fwd_function.in_unpack_pass():
            return None
        return grad


_STOP_NODE = "_ForwardADStopBackward"


def _check_level(level: int | None, what: str) -> int:
    if level is None:
        return _current_level
    if level != _current_level or level < 0:
        raise RuntimeError(
            f"Invalid level given to {what}: {level} (the current forward AD level is "
            f"{_current_level}; only one level exists at a time)"
        )
    return level


def _walk(t: Tensor, root_ids: set[int]) -> tuple[bool, bool]:
    """``(reaches a root, reaches another leaf that requires grad)`` along ``t``'s
    history; a root reached only through an unpack_dual result does not count."""
    fn = t.grad_fn
    if fn is None:
        if not t.requires_grad:
            return False, False
        return (id(t) in root_ids, id(t) not in root_ids)
    root_hit = other_hit = False
    stack: list[tuple[Any, bool]] = [(fn, False)]
    seen: dict[tuple[int, bool], Any] = {}  # keeps the node objects alive while walking
    while stack and not (root_hit and other_hit):
        node, blocked = stack.pop()
        key = (id(node), blocked)
        if key in seen:
            continue
        seen[key] = node
        kind = type(node).__name__
        if kind == "AccumulateGrad":
            var = node.variable
            if id(var) in root_ids:
                root_hit = root_hit or not blocked
            elif var is not None and var.requires_grad:
                other_hit = True
            continue
        blocked = blocked or kind == _STOP_NODE
        entries: Any = node.next_functions
        for entry in entries:
            # PyTorch's (node, input_nr) pairs; Paddle code sees Paddle's bare nodes
            nxt = entry[0] if isinstance(entry, tuple) else entry
            if nxt is not None:
                stack.append((nxt, blocked))
    return root_hit, other_hit


def _is_differentiable(t: Tensor) -> bool:
    return bool(t.is_floating_point() or t.is_complex())


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A dual tensor: ``tensor``'s values carrying the forward-mode tangent ``tangent``
    (same shape; both floating or complex; the tangent is used as is, read when a tangent
    is unpacked). Backward differentiable with respect to ``tensor``."""
    level = _check_level(level, "make_dual")
    if level < 0 or _LEVEL is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):
            # ferrograd's sparse tensors are not Tensors: every Tensor is strided
            layout = getattr(t, "layout", None)
            hint = f" (layout {layout}: convert with .to_dense())" if layout is not None else ""
            raise TypeError(
                f"make_dual: the {name} must be a dense Tensor, got {type(t).__name__}{hint}"
            )
        if not _is_differentiable(t):
            raise ValueError(f"Expected {name} to be floating point or complex, but got: {t.dtype}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if tangent.is_complex() and not tensor.is_complex():
        raise ValueError(
            f"make_dual: a complex tangent ({tangent.dtype}) for a real primal "
            f"({tensor.dtype}) is not supported; make the primal complex too"
        )
    lvl = _LEVEL
    if _walk(tensor, lvl.root_ids)[0]:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at "
            f"the same level {level} is not supported."
        )
    if _walk(tangent, lvl.root_ids)[0]:
        raise RuntimeError(
            "Setting a forward grad that itself has a forward gradient at the same level"
            f"{level} is not supported."
        )
    with enable_grad():
        root = _core.zeros(list(tensor.shape), dtype=tensor.dtype, requires_grad=True)
        dual = tensor - root
    lvl.add(root, tangent, dual)
    return dual


def _reword(err: Exception) -> Exception:
    """An engine error met while computing a tangent: a missing double backward said in
    forward-mode terms; any other error as it was."""
    text = str(err)
    if isinstance(err, RuntimeError) and ("double backward" in text or "twice" in text):
        return RuntimeError(
            "forward-mode AD needs the double backward of every op between the dual "
            "inputs and the unpacked tensor (ferrograd computes tangents with two reverse "
            f"passes); one of them has none: {text}"
        )
    return err


def _tangent(y: Tensor, lvl: _Level, reaches_other: bool) -> Tensor | None:
    """``J_y t`` over the level's dual inputs (None when ``y`` depends on none);
    ``reaches_other``: ``y``'s history reaches a leaf that requires grad, not a root."""
    if not lvl.roots or not _is_differentiable(y) or not y.requires_grad:
        return None
    with enable_grad():
        u = _core.zeros(list(y.shape), dtype=y.dtype, requires_grad=True)
        try:
            with _fwd_function.unpack_pass():
                gs = _core.grad(
                    [y],
                    list(lvl.roots),
                    [u],
                    retain_graph=True,
                    create_graph=True,
                    allow_unused=True,
                )
        except RuntimeError as err:
            reworded = _reword(err)
            if reworded is err:
                raise
            raise reworded from err
    live = [(g, lvl.roots[i], lvl.tangents[i]) for i, g in enumerate(gs) if g is not None]
    if not live:
        return None
    pairs = []
    for g, root, t in live:
        if not g.requires_grad:
            continue  # a constant (zero) derivative
        if t.dtype != root.dtype:
            t = t.to(root.dtype)
        pairs.append((g, -t))  # -t: the dual is x - root
    if not pairs:
        return _core.zeros(list(y.shape), dtype=y.dtype)
    # keep a graph only where PyTorch's tangent would be backward differentiable
    keep = is_grad_enabled() and (reaches_other or any(t.requires_grad for _, _, t in live))
    with enable_grad():
        try:
            (out,) = _core.grad(
                [g for g, _ in pairs],
                [u],
                [c for _, c in pairs],
                retain_graph=keep,
                create_graph=keep,
                allow_unused=True,
            )
        except RuntimeError as err:
            reworded = _reword(err)
            if reworded is err:
                raise
            raise reworded from err
        if out is None:
            return _core.zeros(list(y.shape), dtype=y.dtype)
        return _ForwardADStop.apply(out) if keep and out.requires_grad else out.detach()


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor``: its values without the tangent (backward
    differentiable where ``tensor`` is) and its forward-mode tangent at the level (None
    when it has none, or outside any level)."""
    level = _check_level(level, "unpack_dual")
    if level < 0 or _LEVEL is None:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual: expected a Tensor, got {type(tensor).__name__}")
    lvl = _LEVEL
    if tensor.grad_fn is None and not tensor.requires_grad:
        if lvl.roots and not is_grad_enabled():
            raise RuntimeError(
                "unpack_dual: this tensor has no autograd history, and grad mode is off while "
                "the forward AD level holds dual tensors. ferrograd computes forward-mode "
                "tangents through the reverse-mode graph, which no_grad()/inference_mode() "
                "stop recording: if this tensor was computed from dual tensors, its tangent "
                "was lost. Run the computation with grad enabled (torch.enable_grad()) inside "
                "the dual level."
            )
        return UnpackedDualTensor(tensor, None)
    reaches_root, reaches_other = _walk(tensor, lvl.root_ids)
    if not reaches_root:
        return UnpackedDualTensor(tensor, None)
    with enable_grad():
        primal = _ForwardADStop.apply(tensor) if reaches_other else tensor.detach()
    made = lvl.duals.get(id(tensor))
    if made is not None and made[0]() is tensor and made[1] == tensor._version:
        return UnpackedDualTensor(primal, made[2])  # a dual as make_dual made it
    return UnpackedDualTensor(primal, _tangent(tensor, lvl, reaches_other))
