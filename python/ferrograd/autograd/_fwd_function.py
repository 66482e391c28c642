"""Forward-mode AD (:mod:`.forward_ad`) through custom ``autograd.Function`` classes.

ferrograd computes a forward-mode tangent with two reverse passes (the double-vjp
trick): the first pass, run by ``unpack_dual``, differentiates the output with respect
to the level's hidden zero leaves, with a vector ``u`` as the cotangent, recording a graph
that is linear in ``u``; the second pass transposes that linear map back. While the first
pass runs (:func:`unpack_pass`), each custom ``Function`` node on the way answers with the
*transpose of its* ``jvp`` instead of its ``backward``, so the tangent that comes out is
the one ``jvp`` defines, as in PyTorch, where ``jvp`` (never ``backward``) propagates
forward-mode tangents. A ``Function`` without ``jvp`` raises PyTorch's "You must implement
the jvp function ..." there, as PyTorch does when a tangent reaches it.

To build the transpose, ``jvp`` runs on fresh zero tangents that require grad; their
shapes come from the forward call, which a ``Function`` defining ``jvp`` records on its
``ctx`` (its ``forward``, or ``setup_context``, is wrapped at class creation; such a ctx
also gets ``save_for_forward``). Every user ``Function`` subclass is registered at class
creation; during the pass the Rust node calls :func:`_node_backward` for it (outside the
pass the node checks one flag and calls ``backward`` directly, with no wrapper).
ferrograd's own Functions (and Paddle-style ``PyLayer`` classes, which have no ``jvp``)
are not registered: their tangents come from their backward, which must then be
differentiable.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from .. import _core
from .._core import Tensor
from ..grad_mode import enable_grad

__all__ = ["install", "unpack_pass", "in_unpack_pass", "default_jvp"]

# > 0 while unpack_dual's first reverse pass runs. Process-wide, as PyTorch's forward AD
# levels are: forward AD on one thread while another runs a backward through the same
# custom Function is not supported.
_PASS = [0]

_WRAPPED = "_fg_fwdad_original"
_JVP_DEFAULT_MESSAGE = (
    "You must implement the jvp function for custom autograd.Function to use it with "
    "forward mode AD."
)


def default_jvp(ctx: Any, *grad_inputs: Any) -> Any:
    """``Function.jvp``'s default: computes the outputs' forward-mode tangents from the
    inputs' (one per forward argument, None for those without); a subclass overrides it to
    use the Function with ``autograd.forward_ad``."""
    raise NotImplementedError(_JVP_DEFAULT_MESSAGE)


def _is_default(jvp: Any) -> bool:
    """Whether ``jvp`` is ``Function``'s own (which marks itself), not a subclass's."""
    return getattr(jvp, "_fg_default_jvp", False) is True


class unpack_pass:
    """Context manager marking unpack_dual's first reverse pass (see the module docs):
    custom layers' nodes then call :func:`_node_backward` (the Rust node checks one flag,
    ``src/python/pylayer/forward_ad.rs``) instead of their ``backward``."""

    def __enter__(self) -> None:
        _PASS[0] += 1
        _core._forward_ad_pass(True, _node_backward)

    def __exit__(self, *exc: Any) -> None:
        _PASS[0] -= 1
        _core._forward_ad_pass(False, _node_backward)


def in_unpack_pass() -> bool:
    """Whether unpack_dual's first reverse pass is running."""
    return _PASS[0] > 0


def _is_differentiable(t: Any) -> bool:
    return isinstance(t, Tensor) and (t.is_floating_point() or t.is_complex())


def _input_metas(args: Any) -> list[Any]:
    """Per forward argument: ``(shape, dtype)`` for a Tensor that can carry a tangent
    (floating or complex, requiring grad), else None."""
    return [
        (tuple(a.shape), a.dtype) if _is_differentiable(a) and a.requires_grad else None
        for a in args
    ]


def _record(ctx: Any, args: Any) -> None:
    """Stores what the transposed ``jvp`` needs on ``ctx`` and gives it
    ``save_for_forward`` (a closure over a box, so ctx holds no cycle to itself)."""
    ctx._fg_jvp_inputs = _input_metas(args)
    box: list[Any] = []
    ctx._fg_saved_for_forward = box

    def save_for_forward(*tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_forward expects all arguments to be Tensors or None; but "
                    f"got {type(t).__name__}"
                )
        box[:] = [tuple(tensors)]

    ctx.save_for_forward = save_for_forward


def _wrap_forward(cls: Any) -> None:
    """Wraps the forward (or setup_context) of ``cls`` to record its inputs' shapes."""
    if cls._fg_uses_setup_context:
        original = cls.setup_context
        if getattr(original, _WRAPPED, None) is not None:
            return

        @functools.wraps(original)
        def setup_context(ctx: Any, inputs: Any, output: Any) -> Any:
            _record(ctx, inputs)
            return original(ctx, inputs, output)

        setattr(setup_context, _WRAPPED, original)
        cls.setup_context = staticmethod(setup_context)
        return
    original = cls.forward
    if getattr(original, _WRAPPED, None) is not None:
        return

    @functools.wraps(original)
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            from .py_layer import _ordered_arguments

            _record(ctx, _ordered_arguments(cls, args, kwargs, True))
        else:
            _record(ctx, args)
        return original(ctx, *args, **kwargs)

    setattr(forward, _WRAPPED, original)
    cls.forward = staticmethod(forward)


class _JvpCtx:
    """The ctx ``jvp`` sees: the forward's ctx, except that ``saved_tensors`` gives what
    ``save_for_forward`` saved, when it was called (PyTorch's rule)."""

    __slots__ = ("_fg_ctx",)

    def __init__(self, ctx: Any) -> None:
        object.__setattr__(self, "_fg_ctx", ctx)

    @property
    def saved_tensors(self) -> Any:
        """The tensors given to ``save_for_forward`` (else ``save_for_backward``'s)."""
        box = getattr(self._fg_ctx, "_fg_saved_for_forward", None)
        if box:
            return box[0]
        return self._fg_ctx.saved_tensors

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fg_ctx, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._fg_ctx, name, value)


def _transposed_jvp(cls: Any, ctx: Any, grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """The first pass's answer for a node of ``cls``: ``grads`` pulled back through the
    linear map ``jvp`` defines (its transpose), differentiably in ``grads``."""
    jvp = cls.jvp
    if _is_default(jvp):
        raise NotImplementedError(_JVP_DEFAULT_MESSAGE)
    metas = getattr(ctx, "_fg_jvp_inputs", None)
    if metas is None:
        raise RuntimeError(
            f"forward-mode AD through {cls.__name__}: its jvp cannot be used because its "
            "forward ran before jvp was defined on the class; define jvp in the class body"
        )
    leaves: dict[int, Tensor] = {}
    tangents: list[Any] = []
    with enable_grad():
        for pos, meta in enumerate(metas):
            if meta is None:
                tangents.append(None)
                continue
            leaf = _core.zeros(list(meta[0]), dtype=meta[1], requires_grad=True)
            leaves[pos] = leaf
            # a clone: a jvp for an in-place forward modifies its tangent in place
            tangents.append(leaf.clone())
        outs = jvp(_JvpCtx(ctx), *tangents)
    outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    if len(outs) != len(grads):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(grads)} but got {len(outs)})"
        )
    pairs = []
    for k, (o, g) in enumerate(zip(outs, grads)):
        if not isinstance(o, Tensor) or not isinstance(g, Tensor):
            continue
        if tuple(o.shape) != tuple(g.shape):
            raise RuntimeError(
                f"{cls.__name__}.jvp returned a tangent of shape {list(o.shape)} for output "
                f"{k}, whose shape is {list(g.shape)}"
            )
        if o.requires_grad:
            pairs.append((o, g))
    result: list[Any] = [None] * len(metas)
    if pairs and leaves:
        got = _core.grad(
            [o for o, _ in pairs],
            list(leaves.values()),
            [g for _, g in pairs],
            retain_graph=True,
            create_graph=True,
            allow_unused=True,
        )
        for pos, gi in zip(leaves, got):
            result[pos] = gi
    return tuple(result)


# the user Function classes (not ferrograd's own) whose nodes answer with their jvp
_USER_FUNCTIONS: weakref.WeakSet[type] = weakref.WeakSet()


def _node_backward(cls: Any, backward: Any, ctx: Any, *grads: Any) -> Any:
    """A custom layer node's call during the pass: a user ``Function``'s transposed
    ``jvp``; ``backward`` itself for ferrograd's own Functions and for ``PyLayer``s."""
    if cls in _USER_FUNCTIONS:
        return _transposed_jvp(cls, ctx, grads)
    return backward(ctx, *grads)


def install(cls: Any) -> None:
    """Called for every ``Function`` subclass at creation (see the module docs). ferrograd's
    own Functions (linalg, fft, ...) are left alone: like built-in ops, their tangents come
    from their (differentiable) backward."""
    module = cls.__module__ or ""
    if module == "ferrograd" or module.startswith("ferrograd."):
        return
    _USER_FUNCTIONS.add(cls)
    if not _is_default(cls.jvp):
        _wrap_forward(cls)
