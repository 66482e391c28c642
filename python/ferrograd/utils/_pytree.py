"""``torch.utils._pytree``: flatten nested containers to a list of leaves and back.

PyTorch's rules (``torch/utils/_pytree.py``): lists, tuples, dicts, namedtuples,
``OrderedDict``, ``defaultdict`` and ``deque`` are nodes (a dict's children in insertion
order); everything else is a leaf, ``None`` included (``tree_map(f, {'z': None})`` calls
``f(None)``); more node types can be registered. A ``TreeSpec`` records the structure and
prints as PyTorch's (``TreeSpec(list, None, [*, *])``).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Iterable, Iterator
from typing import Any, Callable, NamedTuple, Optional

__all__ = [
    "PyTree",
    "TreeSpec",
    "LeafSpec",
    "register_pytree_node",
    "tree_is_leaf",
    "tree_flatten",
    "tree_unflatten",
    "tree_iter",
    "tree_leaves",
    "tree_structure",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_all",
    "tree_any",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
]

PyTree = Any
Context = Any


class NodeDef(NamedTuple):
    """A registered node type: how to split it into children and context, and rebuild it."""

    type: type
    flatten_fn: Callable[[Any], tuple[list, Context]]
    unflatten_fn: Callable[[Iterable, Context], Any]


SUPPORTED_NODES: dict[Any, NodeDef] = {}


def register_pytree_node(
    cls: type,
    flatten_fn: Callable[[Any], tuple[list, Context]],
    unflatten_fn: Callable[[Iterable, Context], Any],
    **_serialization: Any,
) -> None:
    """Registers ``cls`` as a node: ``flatten_fn(x) -> (children, context)`` and
    ``unflatten_fn(children, context) -> x``. (PyTorch's serialization options are
    accepted and unused.) A type registered twice is a ``ValueError``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def is_namedtuple_class(cls: Any) -> bool:
    """True for a namedtuple class (a tuple subclass with ``_fields`` and ``_make``)."""
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(type(f) is str for f in getattr(cls, "_fields", ()))
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple(obj: Any) -> bool:
    """True for a namedtuple instance or class."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_namedtuple_instance(obj: Any) -> bool:
    """True for a namedtuple instance."""
    return is_namedtuple_class(type(obj))


def _node_type(tree: Any) -> Any:
    # every namedtuple class is one node type, keyed by the `namedtuple` factory
    return namedtuple if is_namedtuple_class(type(tree)) else type(tree)


_BUILTIN = {tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque}
_DICTS = {dict, OrderedDict, defaultdict}
register_pytree_node(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))
register_pytree_node(list, lambda t: (list(t), None), lambda v, c: list(v))
register_pytree_node(
    dict, lambda d: (list(d.values()), list(d.keys())), lambda v, c: dict(zip(c, v))
)
register_pytree_node(namedtuple, lambda t: (list(t), type(t)), lambda v, c: c(*v))  # type: ignore[arg-type]
register_pytree_node(
    OrderedDict,
    lambda d: (list(d.values()), list(d.keys())),
    lambda v, c: OrderedDict(zip(c, v)),
)
register_pytree_node(
    defaultdict,
    lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
    lambda v, c: defaultdict(c[0], zip(c[1], v)),
)
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda v, c: deque(v, maxlen=c))


def tree_is_leaf(tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None) -> bool:
    """True when ``tree`` is not a registered node (or ``is_leaf(tree)`` says so)."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


@dataclasses.dataclass(frozen=True, repr=False)
class TreeSpec:
    """The structure of a pytree: the root's node type, its context (dict keys, the
    namedtuple class, ...) and one spec per child."""

    type: Any
    context: Context
    children_specs: list

    @property
    def num_children(self) -> int:
        """How many children the root has."""
        return len(self.children_specs)

    @property
    def num_leaves(self) -> int:
        """How many leaves the tree holds."""
        return sum(c.num_leaves for c in self.children_specs)

    @property
    def num_nodes(self) -> int:
        """How many nodes the tree has, leaves included."""
        return 1 + sum(c.num_nodes for c in self.children_specs)

    def is_leaf(self) -> bool:
        """True for the spec of a single leaf."""
        return False

    def __repr__(self, indent: int = 0) -> str:
        head = f"TreeSpec({self.type.__name__}, {self.context}, ["
        if not self.children_specs:
            return head + "])"
        indent += 2
        parts = [c.__repr__(indent) for c in self.children_specs]
        body = parts[0] + ("," if len(parts) > 1 else "")
        body += ",".join("\n" + " " * indent + p for p in parts[1:])
        return head + body + "])"

    def unflatten(self, leaves: Iterable) -> PyTree:
        """The pytree of this structure holding ``leaves`` in order."""
        leaves = leaves if isinstance(leaves, (list, tuple)) else list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self})."
            )
        if self.is_leaf():
            return leaves[0]
        children, start = [], 0
        for spec in self.children_specs:
            children.append(spec.unflatten(leaves[start : start + spec.num_leaves]))
            start += spec.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self.context)

    def flatten_up_to(self, tree: PyTree) -> list:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have this spec
        as a prefix; dicts of the standard kinds may differ in kind and key order)."""
        out: list = []
        self._flatten_up_to(tree, out)
        return out

    def _flatten_up_to(self, tree: PyTree, out: list) -> None:
        if self.is_leaf():
            out.append(tree)
            return
        node = _node_type(tree)
        both_dicts = self.type in _DICTS and node in _DICTS
        if not both_dicts and node != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {node!r}.")
        if len(tree) != self.num_children:
            raise ValueError(
                f"Node arity mismatch; expected {self.num_children}, but got {len(tree)}."
            )
        if both_dicts:
            keys = self.context[1] if self.type is defaultdict else self.context
            if set(tree) != set(keys):
                raise ValueError(
                    f"Node keys mismatch; expected key(s) {sorted(map(repr, keys))}, got "
                    f"{sorted(map(repr, tree))}."
                )
            children = [tree[k] for k in keys]
        else:
            children, context = SUPPORTED_NODES[node].flatten_fn(tree)
            if node is not deque and context != self.context:
                raise ValueError(
                    f"Node context mismatch for node type {self.type!r}; expected "
                    f"{self.context!r}, but got {context!r}."
                )
        for child, spec in zip(children, self.children_specs):
            spec._flatten_up_to(child, out)


@dataclasses.dataclass(frozen=True, repr=False)
class LeafSpec(TreeSpec):
    """The spec of a single leaf (prints as ``*``)."""

    type: Any = None
    context: Context = None
    children_specs: list = dataclasses.field(default_factory=list)

    @property
    def num_leaves(self) -> int:
        """One."""
        return 1

    def is_leaf(self) -> bool:
        """True."""
        return True

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF = LeafSpec()


def tree_flatten(
    tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None
) -> tuple[list, TreeSpec]:
    """``(leaves, spec)``: the leaves in order and the structure to rebuild ``tree``."""
    leaves: list = []

    def walk(node: Any) -> TreeSpec:
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF
        kind = _node_type(node)
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        return TreeSpec(kind, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: Iterable, treespec: TreeSpec) -> PyTree:
    """The pytree of structure ``treespec`` holding ``leaves`` (inverse of ``tree_flatten``)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            "tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec "
            f"but got item of type {type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None) -> Iterator:
    """The leaves of ``tree``, lazily."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None) -> list:
    """The leaves of ``tree`` in order."""
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None) -> TreeSpec:
    """The ``TreeSpec`` of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(
    func: Callable[..., Any],
    tree: PyTree,
    *rests: PyTree,
    is_leaf: Optional[Callable[[PyTree], bool]] = None,
) -> PyTree:
    """A pytree of ``tree``'s structure with ``func(leaf, *matching_rests)`` at each leaf;
    each of ``rests`` must have ``tree``'s structure as a prefix."""
    leaves, spec = tree_flatten(tree, is_leaf)
    columns = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *columns))


def tree_map_(
    func: Callable[..., Any],
    tree: PyTree,
    *rests: PyTree,
    is_leaf: Optional[Callable[[PyTree], bool]] = None,
) -> PyTree:
    """Calls ``func`` on each leaf (for its side effect) and returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    columns = [leaves] + [spec.flatten_up_to(r) for r in rests]
    deque(map(func, *columns), maxlen=0)
    return tree


def _only(types_or_pred: Any, func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``func`` on the leaves that are instances of ``types_or_pred`` (or satisfy it, a
    predicate); other leaves pass through."""
    if isinstance(types_or_pred, (type, tuple)):

        def pred(x: Any) -> bool:
            return isinstance(x, types_or_pred)

    elif callable(types_or_pred):
        pred = types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")
    return lambda x: func(x) if pred(x) else x


def tree_map_only(
    type_or_types_or_pred: Any,
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: Optional[Callable[[PyTree], bool]] = None,
) -> PyTree:
    """``tree_map`` applying ``func`` only to leaves of the given type(s) or predicate."""
    return tree_map(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_all(
    pred: Callable[[Any], bool], tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None
) -> bool:
    """True when ``pred`` holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(
    pred: Callable[[Any], bool], tree: PyTree, is_leaf: Optional[Callable[[PyTree], bool]] = None
) -> bool:
    """True when ``pred`` holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))
