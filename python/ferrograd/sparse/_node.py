"""The ``grad_fn`` of a sparse result of arithmetic: PyTorch's node for the op
(``MulBackward0``, ``DivBackward0``, ``AddBackward0``, ``SubBackward0``, ``NegBackward0``)
with the operands it saved, ``grad_fn._saved_self`` / ``_saved_other`` (sparse operands
come back sparse) and ``_saved_alpha``.

A sparse tensor is a Python object over dense tensors, and the graph autograd runs is
that of its values (see ``_base.py``). The op's gradients stay those of that dense
composition; this module only adds what PyTorch's node shows:

* the saved operands go through the active saved-tensor hooks (``save_on_cpu``,
  ``saved_tensors_hooks``): they are saved by a one-input pass-through custom
  ``Function`` placed on the result's values, whose ``ctx.save_for_backward`` packs
  them. A sparse operand is saved as its parts (index tensors, then values), so every
  dense pack hook handles it; reading ``_saved_self`` unpacks the parts and rebuilds the
  sparse tensor (the caller's own object when nothing was packed). After backward freed
  the graph, reading raises the "freed" error, as for any saved tensor.
* :class:`SparseNode` is a Python object, not a ``ferrograd.autograd.Node``: its name is
  PyTorch's and every other attribute (``next_functions``, ``register_hook``,
  ``register_prehook``, ``metadata``, calling it) is the node of the result's values,
  which sees dense per-entry gradients.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from .. import _core
from ..autograd.py_layer import Function
from ._base import SparseTensor

Tensor = _core.Tensor


def _index_parts(s: SparseTensor) -> tuple[Tensor, ...]:
    """The index tensors that, with the values, define ``s`` (per layout)."""
    from ._compressed import SparseCompressedTensor
    from ._coo import SparseCooTensor
    from ._csr import SparseCsrTensor

    if isinstance(s, SparseCooTensor):
        return (s._idx,)
    if isinstance(s, SparseCsrTensor):
        return (s._crow, s._col)
    if isinstance(s, SparseCompressedTensor):
        return (s._cidx, s._pidx)
    raise TypeError(f"sparse autograd: unknown sparse layout {type(s).__name__}")


def _builder(s: SparseTensor) -> Callable[[tuple[Tensor, ...], Tensor], SparseTensor]:
    """Rebuilds a tensor of ``s``'s layout and shape from unpacked parts and values
    (keeps no reference to ``s``'s tensors: a pack hook may have moved them out)."""
    from ._compressed import SparseCompressedTensor
    from ._coo import SparseCooTensor
    from ._csr import SparseCsrTensor

    shape = s._shape
    if isinstance(s, SparseCooTensor):
        coalesced = s._coalesced
        return lambda p, v: SparseCooTensor(p[0], v, shape, coalesced=coalesced)
    if isinstance(s, SparseCsrTensor):
        return lambda p, v: SparseCsrTensor(p[0], p[1], v, shape)
    assert isinstance(s, SparseCompressedTensor)
    layout = s._layout
    return lambda p, v: SparseCompressedTensor(p[0], p[1], v, shape, layout)


class _SaveOperands(Function):
    """Passes the result's values through unchanged and saves the operands' tensors with
    ``ctx.save_for_backward`` (so the active pack hook runs on them now)."""

    @staticmethod
    def forward(ctx: Any, values: Tensor, to_save: list, holder: list) -> Tensor:  # type: ignore[override]
        ctx.save_for_backward(*to_save)
        holder.append(ctx)
        return values

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:  # type: ignore[override]
        return grad, None, None


_SAVERS: dict[str, type[_SaveOperands]] = {}


def _saver(name: str) -> type[_SaveOperands]:
    """The pass-through ``Function`` whose node is called ``name`` (one class per name)."""
    cls = _SAVERS.get(name)
    if cls is None:
        cls = type(f"_Save{name}", (_SaveOperands,), {})
        cls._fg_node_name = name  # type: ignore[attr-defined]
        _SAVERS[name] = cls
    return cls


class SparseNode:
    """The ``grad_fn`` of a sparse arithmetic result (see the module docs). Built by
    :func:`record`; ``type(node).__name__`` is PyTorch's node name."""

    _INTERNAL = frozenset(("_values_node", "_ctx", "_slots", "_plain"))

    def __init__(
        self, values_node: Any, ctx: Any, slots: dict[str, Any], plain: dict[str, Any]
    ) -> None:
        self._values_node = values_node
        self._ctx = ctx
        self._slots = slots
        self._plain = plain

    def name(self) -> str:
        """PyTorch's name of the node (``MulBackward0``)."""
        return type(self).__name__

    def __getattr__(self, attr: str) -> Any:
        if attr in SparseNode._INTERNAL or attr.startswith("__"):
            raise AttributeError(attr)
        if attr.startswith("_saved_"):
            key = attr[len("_saved_") :]
            if key in self._plain:
                return self._plain[key]
            if key in self._slots:
                return self._unpack(self._slots[key])
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
        # next_functions, register_hook, metadata, ...: the values' node
        return getattr(self._values_node, attr)

    def __call__(self, *grads: Any) -> Any:
        """Runs the values' node on dense per-entry gradients."""
        return self._values_node(*grads)

    def _unpack(self, slot: tuple) -> Any:
        saved = self._ctx.saved_tensors  # raises once backward freed them
        if slot[0] == "dense":
            return saved[slot[1]]
        _, start, count, build, ref = slot
        parts, values = tuple(saved[start : start + count - 1]), saved[start + count - 1]
        own = ref() if ref is not None else None
        if (
            own is not None
            and own._vals is values
            and all(p is q for p, q in zip(_index_parts(own), parts))
        ):
            return own  # nothing was packed: the caller's own object (PyTorch)
        return build(parts, values)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object>"


_NODE_CLASSES: dict[str, type] = {}


def _node_class(name: str) -> type:
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = type(name, (SparseNode,), {"__module__": "ferrograd.sparse"})
        _NODE_CLASSES[name] = cls
    return cls


def record(out: Any, name: str, saved: dict[str, Any], plain: dict[str, Any] | None = None) -> Any:
    """Gives the sparse result ``out`` a :class:`SparseNode` called ``name`` when autograd
    recorded it (its values have a node); returns ``out`` (unchanged when dense).

    ``saved`` maps names to operands: a sparse or dense tensor is saved through the
    hooks; a Python number is kept by value as a 0-d tensor (numbers are never packed).
    ``plain`` holds other attributes (``alpha``), kept as they are.
    """
    if not isinstance(out, SparseTensor) or out._vals.grad_fn is None:
        return out  # nothing recorded (no grad mode, no operand needing grad)
    plain = dict(plain or {})
    to_save: list[Tensor] = []
    slots: dict[str, Any] = {}
    for key, operand in saved.items():
        if isinstance(operand, SparseTensor):
            parts = _index_parts(operand)
            build = _builder(operand)
            slots[key] = ("sparse", len(to_save), len(parts) + 1, build, weakref.ref(operand))
            to_save.extend((*parts, operand._vals))
        elif isinstance(operand, Tensor):
            slots[key] = ("dense", len(to_save))
            to_save.append(operand)
        elif isinstance(operand, (bool, int, float, complex)):
            plain[key] = _core.tensor(operand)
    ctx = None
    if to_save:
        holder: list = []
        values = _saver(name).apply(out._vals, to_save, holder)
        if holder and values.grad_fn is not None:
            ctx = holder[0]
            out = out._with_values(values)
        else:  # nothing recorded: keep no slots
            slots = {}
    out._node = _node_class(name)(out._vals.grad_fn, ctx, slots, plain)
    return out
