"""Pytrees for ``ferrograd.func`` (PyTorch's ``torch.utils._pytree`` as far as the
transforms need it): a tuple, list or dict (namedtuples and dict subclasses such as
``OrderedDict`` included), nested to any depth, whose other values are the leaves.

``grad`` / ``jacrev`` flatten the arguments they differentiate into their leaves and hand
the gradients back in the same structure; ``vmap`` stacks every leaf of a structured
output (torch/_functorch/eager_transforms.py and vmap.py do the same with
``tree_flatten`` / ``tree_unflatten``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["tree_flatten", "tree_unflatten", "is_node", "rebuild"]

_END = object()
#: A structure: ``None`` for a leaf, else ``(example node, [child structures])``.
Spec = Any


def is_node(x: Any) -> bool:
    """Whether ``x`` is a pytree node (tuple, list or dict) rather than a leaf."""
    return isinstance(x, (tuple, list, dict))


def _children(node: Any) -> list[Any]:
    return list(node.values()) if isinstance(node, dict) else list(node)


def rebuild(node: Any, parts: list[Any]) -> Any:
    """A node of ``node``'s type (and keys, for a dict) holding ``parts``."""
    if isinstance(node, dict):
        pairs = list(zip(node.keys(), parts))
        try:
            return type(node)(pairs)
        except TypeError:  # a dict subclass with another constructor
            return dict(pairs)
    if isinstance(node, tuple) and hasattr(node, "_fields"):  # a namedtuple
        return type(node)(*parts)
    return type(node)(parts)


def tree_flatten(tree: Any) -> tuple[list[Any], Spec]:
    """The leaves of ``tree`` in order (dicts in their key order) and its structure."""
    leaves: list[Any] = []

    def walk(t: Any) -> Spec:
        if not is_node(t):
            leaves.append(t)
            return None
        return (t, [walk(c) for c in _children(t)])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(spec: Spec, leaves: list[Any]) -> Any:
    """The structure ``spec`` (from :func:`tree_flatten`) filled with ``leaves``."""
    it = iter(leaves)

    def build(s: Spec) -> Any:
        if s is None:
            return next(it)
        node, kids = s
        return rebuild(node, [build(k) for k in kids])

    out = build(spec)
    if next(it, _END) is not _END:
        raise ValueError("tree_unflatten: more leaves than the structure holds")
    return out
