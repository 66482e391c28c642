"""``torch.func.vjp``, ``jvp``, ``linearize`` and ``hessian`` (re-exported by
:mod:`ferrograd.func`): the linear maps of a function at a point, on the reverse-mode
engine. ``jvp`` and ``linearize`` contract the vector-Jacobian product with the tangents
(the double-vjp trick of ``autograd.functional.jvp``, as ``autograd.forward_ad`` does), so
they cost two reverse passes; ``hessian`` is ``jacfwd(jacrev(f))``.

Composition follows :mod:`ferrograd.func`: a graph is kept on the results when grad mode
is on and an argument requires grad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

from . import _core
from ._core import Tensor
from .autograd import functional as _functional
from .grad_mode import enable_grad


def _outputs(out: Any, what: str) -> list[Tensor]:
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{what}: the function must return Tensors, got {type(o).__name__}")
    return outs


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), vjp_fn)`` (and ``aux`` with ``has_aux``): ``vjp_fn(cotangents)``,
    with ``cotangents`` shaped as the output (a tuple for a tuple output), returns the
    tuple of vector-Jacobian products, one per primal; it can be called again."""
    from .func import _detach_tree, _leaf, _split_aux, _tracking

    keep = _tracking(primals)
    xs = [_leaf(p, keep, "vjp") for p in primals]
    with enable_grad():
        out, aux = _split_aux(func(*xs), has_aux, "vjp")
    outs = _outputs(out, "vjp")
    tupled = isinstance(out, (tuple, list))

    def vjp_fn(cotangents: Any) -> tuple[Tensor, ...]:
        cts = list(cotangents) if tupled else [cotangents]
        if len(cts) != len(outs):
            raise RuntimeError(
                f"vjp_fn: expected {len(outs)} cotangents (one per output), got {len(cts)}"
            )
        for i, (o, c) in enumerate(zip(outs, cts)):
            if not isinstance(c, Tensor) or tuple(c.shape) != tuple(o.shape):
                got = list(c.shape) if isinstance(c, Tensor) else type(c).__name__
                raise RuntimeError(
                    f"vjp_fn: cotangent {i} must be a Tensor of the output's shape "
                    f"{list(o.shape)}, got {got}"
                )
        pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        gs: list[Any] = [None] * len(xs)
        if pairs:
            with enable_grad():
                gs = list(
                    _core.grad(
                        [o for o, _ in pairs],
                        xs,
                        [c for _, c in pairs],
                        retain_graph=True,
                        create_graph=keep,
                        allow_unused=True,
                    )
                )
        return tuple(
            _detach_tree(g, keep) if g is not None else _core.zeros_like(x) for g, x in zip(gs, xs)
        )

    value = _detach_tree(out, keep)
    return (value, vjp_fn, _detach_tree(aux, keep)) if has_aux else (value, vjp_fn)


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """``(func(*primals), J @ tangents)`` (and ``aux`` with ``has_aux``); ``primals`` and
    ``tangents`` are tuples of tensors of equal shapes (PyTorch's signature)."""
    from .func import _detach_tree, _split_aux, _tracking

    for name, v in (("primals", primals), ("tangents", tangents)):
        if not isinstance(v, (tuple, list)):
            raise RuntimeError(f"jvp: expected {name} to be a tuple, got {type(v).__name__}")
    if len(primals) != len(tangents):
        raise RuntimeError(
            f"jvp: {len(primals)} primals but {len(tangents)} tangents (one per primal)"
        )
    keep = _tracking(primals)
    aux_box: list[Any] = []

    def plain(*xs: Tensor) -> Any:
        out, aux = _split_aux(func(*xs), has_aux, "jvp")
        aux_box.append(aux)
        return tuple(out) if isinstance(out, list) else out

    out, jv = _functional.jvp(plain, tuple(primals), tuple(tangents), keep, strict)
    if has_aux:
        return out, jv, _detach_tree(aux_box[-1], keep)
    return out, jv


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product
    at ``primals`` (computed anew at each call, by two reverse passes)."""
    from .func import _detach_tree, _tracking

    # the value alone: a jvp here would run its two reverse passes for nothing
    out = _detach_tree(func(*primals), _tracking(primals))

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


def hessian(
    func: Callable[..., Any], argnums: Union[int, tuple[int, ...]] = 0
) -> Callable[..., Any]:
    """The Hessian of ``func`` (a single-element output) with respect to argument(s)
    ``argnums``: ``jacfwd(jacrev(func, argnums), argnums)``, shape ``input.shape * 2``."""
    from .func import jacfwd, jacrev

    return jacfwd(jacrev(func, argnums), argnums)
