"""Paddle's ``paddle.incubate.autograd``: ``Jacobian(func, xs, is_batched=False)``,
``Hessian(func, xs, is_batched=False)``, ``vjp(func, xs, v=None)`` and
``jvp(func, xs, v=None)``, as ``python/paddle/incubate/autograd/functional.py`` defines
them (dygraph).

``xs`` is one tensor or a sequence of tensors, passed to ``func`` as its positional
arguments after being separated from the caller's graph (a copy on the graph for a tensor
that requires grad, ``paddle.assign``; a detached view that does otherwise). Unlike
``paddle.autograd.jacobian(ys, xs)``, inputs and outputs of any rank are flattened and
concatenated: without a batch the matrix is ``[len(flat ys), len(flat xs)]``; with
``is_batched=True`` the first axis is the batch, ``[B, N, M]``. Indexing takes ints and
slices (no Ellipsis, as Paddle); the results stay differentiable (``create_graph``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import _core
from .._core import Tensor
from ..autograd import grad as _autograd_grad

__all__ = ["Hessian", "Jacobian", "jvp", "vjp"]


def _as_tuple(xs: Any) -> tuple[Any, ...]:
    return tuple(xs) if isinstance(xs, Sequence) else (xs,)


def _separate(xs: Any) -> Any:
    """Paddle's ``_separate``: each tensor cut from other paths of the caller's graph."""

    def one(x: Any) -> Any:
        if x is None:
            return x
        if x.requires_grad:
            return x.clone()  # paddle.assign: a copy that stays differentiable
        y = x.detach()
        y.stop_gradient = False
        return y

    return tuple(one(x) for x in xs) if isinstance(xs, Sequence) else one(xs)


def _check(func: Any, xs: Any, v: Any = None) -> None:
    if not callable(func):
        raise TypeError(f"Expected 'func' to be callable, but got {type(func).__name__}")
    for name, val, none_ok in (("xs", xs, False), ("v", v, True)):
        if val is None and none_ok:
            continue
        items = val if isinstance(val, Sequence) else (val,)
        if not all(isinstance(t, Tensor) for t in items):
            raise TypeError(f"Expected '{name}' to be a Tensor or a sequence of Tensors")


def _check_v_shape(v: Any, refs: Any) -> None:
    if v is None:
        return
    vs, rs = _as_tuple(v), _as_tuple(refs)
    if len(vs) != len(rs):
        raise RuntimeError(f"v must hold {len(rs)} tensors, got {len(vs)}")
    for i, (a, b) in enumerate(zip(vs, rs)):
        if list(a.shape) != list(b.shape):
            raise RuntimeError(f"v[{i}] must have shape {list(b.shape)}, got {list(a.shape)}")


def _grad(ys: Any, xs: Any, v: Any = None) -> Any:
    """``paddle.grad(ys, xs, v, create_graph=True, allow_unused=True)`` with zeros for
    unused inputs; a single tensor for a single ``xs``."""
    out = _autograd_grad(
        list(_as_tuple(ys)),
        list(_as_tuple(xs)),
        None if v is None else list(_as_tuple(v)),
        create_graph=True,
        allow_unused=True,
    )
    filled = tuple(_core.zeros_like(x) if g is None else g for g, x in zip(out, _as_tuple(xs)))
    return filled if isinstance(xs, Sequence) else filled[0]


def vjp(func: Callable[..., Any], xs: Any, v: Any = None) -> tuple[Any, Any]:
    """``(func(xs), v^T J)``: the vector-Jacobian product (``v`` defaults to ones)."""
    _check(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = func(*xs) if isinstance(xs, Sequence) else func(xs)
    _check_v_shape(v, ys)
    return ys, _grad(ys, xs, v)


def jvp(func: Callable[..., Any], xs: Any, v: Any = None) -> tuple[Any, Any]:
    """``(func(xs), J v)``: the Jacobian-vector product by the double-backward trick
    (``v`` defaults to ones)."""
    _check(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = func(*xs) if isinstance(xs, Sequence) else func(xs)
    _check_v_shape(v, xs)
    if isinstance(ys, Sequence):
        ys_grad: Any = tuple(_zeros_requiring_grad(y) for y in ys)
    else:
        ys_grad = _zeros_requiring_grad(ys)
    xs_grad = _grad(ys, xs, ys_grad)
    return ys, _grad(xs_grad, ys_grad, v)


def _zeros_requiring_grad(y: Tensor) -> Tensor:
    z = _core.zeros_like(y)
    z.stop_gradient = False
    return z


def _positive_index(indexes: Any, shape: Sequence[int]) -> tuple[Any, ...]:
    """Paddle's ``_multi_index``: ints and slices only, missing trailing ones filled."""
    idx = tuple(indexes) if isinstance(indexes, Sequence) else (indexes,)
    if any(i is Ellipsis for i in idx):
        raise IndexError("Ellipsis index currently is not supported.")
    if len(idx) > len(shape):
        raise IndexError(f"too many indices ({len(idx)}) for a Jacobian of shape {list(shape)}")
    for i in idx:
        if isinstance(i, bool) or not isinstance(i, (int, slice)):
            raise TypeError(f"Not supported index type {i!r}.")
    return idx


class Jacobian:
    """Paddle's ``incubate.autograd.Jacobian(func, xs, is_batched=False)``: the Jacobian
    of ``func`` at ``xs``, ``[N, M]`` (flattened outputs by flattened inputs) or
    ``[B, N, M]`` with ``is_batched=True``; index it (``J[:]``, ``J[i, :]``, ...)."""

    def __init__(self, func: Callable[..., Any], xs: Any, is_batched: bool = False) -> None:
        _check(func, xs)
        self._batched = bool(is_batched)
        self._xs = _separate(xs)
        self._ys = func(*_as_tuple(self._xs))
        self._flat_xs = self._flatten(_as_tuple(self._xs))
        self._flat_ys = self._flatten(_as_tuple(self._ys))
        self._full: Tensor | None = None

    def _flatten(self, items: tuple[Any, ...]) -> Tensor:
        if self._batched:
            return _core.concat([t.reshape([t.shape[0], -1]) for t in items], 1)
        return _core.concat([t.reshape([-1]) for t in items], 0)

    @property
    def shape(self) -> list[int]:
        """The shape of the flattened Jacobian matrix."""
        if self._batched:
            return [self._flat_xs.shape[0], self._flat_ys.shape[1], self._flat_xs.shape[1]]
        return [self._flat_ys.shape[0], self._flat_xs.shape[0]]

    def _matrix(self) -> Tensor:
        if self._full is None:
            if self._batched:
                rows = [
                    self._flatten(_as_tuple(_grad(self._flat_ys[:, i], self._xs)))
                    for i in range(self._flat_ys.shape[1])
                ]
                self._full = _core.stack(rows, 1)
            else:
                rows = [
                    self._flatten(_as_tuple(_grad(self._flat_ys[i], self._xs)))
                    for i in range(self._flat_ys.shape[0])
                ]
                self._full = _core.stack(rows, 0)
        return self._full

    def __getitem__(self, indexes: Any) -> Tensor:
        return self._matrix()[_positive_index(indexes, self.shape)]


class Hessian:
    """Paddle's ``incubate.autograd.Hessian(func, xs, is_batched=False)``: the Jacobian
    of the gradient of ``func``, which must return one element (``[1]``, or ``[B, 1]``
    with ``is_batched=True``)."""

    def __init__(self, func: Callable[..., Any], xs: Any, is_batched: bool = False) -> None:
        def jac_func(*inner: Any) -> Tensor:
            jac = Jacobian(func, inner, is_batched=is_batched)
            if (is_batched and jac.shape[1] != 1) or (not is_batched and jac.shape[0] != 1):
                raise RuntimeError(
                    "The function given to Hessian should return as single element Tensor "
                    "or batched single element Tensor."
                )
            return jac[:, 0, :] if is_batched else jac[0, :]

        self.symbolic = Jacobian(jac_func, xs, is_batched=is_batched)

    @property
    def shape(self) -> list[int]:
        """The shape of the flattened Hessian matrix."""
        return self.symbolic.shape

    def __getitem__(self, indexes: Any) -> Tensor:
        return self.symbolic[indexes]
