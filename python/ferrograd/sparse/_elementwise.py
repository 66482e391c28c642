"""Elementwise ops on sparse tensors: ``add`` / ``subtract`` / ``multiply`` / ``divide``
(Paddle's ``paddle.sparse.*`` and the operators), value-wise unary math that keeps zeros
zero (``abs``, ``sin``, ``sqrt``, ``relu``, ...), ``pow``, ``cast`` and ``transpose``.

Nonlinear value-wise ops coalesce a COO tensor first (``f(a + b) != f(a) + f(b)`` for
duplicates). Ops that would turn implicit zeros into nonzeros (``exp``, ``cos``, adding a
number, ``pow`` with a non-positive exponent) are refused with an error that says so.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor
from ._csr import SparseCsrTensor, coo_to_csr
from ._node import record

Tensor = _core.Tensor


def canonical(x: SparseTensor) -> SparseTensor:
    """``x`` with unique positions: a coalesced COO tensor, or a compressed tensor itself."""
    return x.coalesce() if isinstance(x, SparseCooTensor) else x


def _as_coo(x: SparseTensor) -> SparseCooTensor:
    return x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()  # type: ignore[return-value]


def _like(x: SparseTensor, y: SparseTensor, out: SparseCooTensor) -> SparseTensor:
    """CSR when both operands were CSR, else COO."""
    both_csr = isinstance(x, SparseCsrTensor) and isinstance(y, SparseCsrTensor)
    return coo_to_csr(out) if both_csr else out


def _same_shape(x: SparseTensor, y: SparseTensor, what: str) -> None:
    if list(x.shape) != list(y.shape) or x.sparse_dim() != y.sparse_dim():
        raise ValueError(
            f"{what}: both sparse operands need the same shape and sparse_dim, got "
            f"{list(x.shape)} (sparse_dim {x.sparse_dim()}) and {list(y.shape)} "
            f"(sparse_dim {y.sparse_dim()})"
        )


def _is_scalar(y: Any) -> bool:
    return (isinstance(y, Number) and not isinstance(y, bool)) or (
        isinstance(y, Tensor) and y.ndim == 0
    )


def add(x: Any, y: Any, alpha: Any = 1, name: Any = None) -> Any:
    """``x + alpha * y``: sparse + sparse is sparse (coalesced), sparse + dense dense.

    Adding a number would fill every implicit zero, so it raises: use
    ``x.to_dense() + c``. A sparse result's ``grad_fn`` is ``AddBackward0``
    (``_saved_alpha``).
    """
    return record(_add(x, y, alpha), "AddBackward0", {}, {"alpha": alpha})


def _add(x: Any, y: Any, alpha: Any = 1) -> Any:
    what = "sparse.add"
    if not isinstance(x, SparseTensor):
        x, y = y, x  # dense + sparse
    if alpha != 1:
        y = _multiply(y, alpha) if isinstance(y, SparseTensor) else y * alpha
    if isinstance(y, SparseTensor):
        _same_shape(x, y, what)
        a, b = _as_coo(x), _as_coo(y)
        dtype = fg.promote_types(a.dtype, b.dtype)
        out = SparseCooTensor(
            fg.concat([a.indices(), b.indices()], 1),
            fg.concat([a.values().to(dtype), b.values().to(dtype)], 0),
            a._shape,
        ).coalesce()
        return _like(x, y, out)
    if isinstance(y, Tensor) and y.ndim > 0:
        return x.to_dense() + y
    raise TypeError(
        f"{what}: adding a number to a sparse tensor would make every implicit zero "
        "nonzero; use x.to_dense() + c (or add to x.values() to shift only the stored ones)"
    )


def subtract(x: Any, y: Any, name: Any = None) -> Any:
    """``x - y`` (same rules as :func:`add`; a sparse result's ``grad_fn`` is
    ``SubBackward0``)."""
    neg = y._with_values(-y._vals) if isinstance(y, SparseTensor) else -y
    return record(_add(x, neg), "SubBackward0", {}, {"alpha": 1})


def multiply(x: Any, y: Any, name: Any = None) -> Any:
    """``x * y``: sparse * number or 0-d tensor, sparse * dense (broadcast to ``x``'s
    shape; result sparse with ``x``'s pattern) and sparse * sparse (the intersection of
    the patterns). The result's ``grad_fn`` is ``MulBackward0``, with the operands as
    ``_saved_self`` / ``_saved_other`` (saved through the active saved-tensor hooks)."""
    return record(_multiply(x, y), "MulBackward0", {"self": x, "other": y})


def _multiply(x: Any, y: Any) -> Any:
    what = "sparse.multiply"
    if not isinstance(x, SparseTensor):
        x, y = y, x
    if _is_scalar(y):
        return x._with_values(x.values() * y)
    if isinstance(y, SparseTensor):
        _same_shape(x, y, what)
        return _like(x, y, _intersect(_as_coo(x).coalesce(), _as_coo(y).coalesce()))
    if isinstance(y, Tensor):
        c = _as_coo(x)
        sd = c.sparse_dim()
        positions = 1  # spelled out: -1 cannot be inferred when a dense size is 0
        for n in c.shape[:sd]:
            positions *= int(n)
        flat = fg.broadcast_to(y, list(c.shape)).reshape([positions, *c.shape[sd:]])
        picked = flat.index_select(0, c._keys(what))
        out = c._with_values(c.values() * picked)
        return coo_to_csr(out) if isinstance(x, SparseCsrTensor) else out
    raise TypeError(f"{what}: cannot multiply a sparse tensor by {type(y).__name__}")


def _intersect(a: SparseCooTensor, b: SparseCooTensor) -> SparseCooTensor:
    """Entries present in both coalesced operands, with the product of their values."""
    if a.nnz() == 0 or b.nnz() == 0:
        dense = list(a.values().shape[1:])
        empty = fg.zeros([0, *dense], dtype=fg.promote_types(a.dtype, b.dtype))
        return SparseCooTensor(a.indices()[:, :0], empty, a._shape, coalesced=True)
    ka, kb = a._keys("multiply"), b._keys("multiply")
    pos = fg.searchsorted(ka, kb).clip(max=a.nnz() - 1)
    hit = ka.index_select(0, pos) == kb
    ia = pos[hit]
    ib = fg.arange(b.nnz(), dtype=fg.int64)[hit]
    vals = a.values().index_select(0, ia) * b.values().index_select(0, ib)
    return SparseCooTensor(b.indices().index_select(1, ib), vals, a._shape, coalesced=True)


def divide(x: Any, y: Any, name: Any = None) -> Any:
    """``x / y`` for a number / 0-d tensor ``y``, or a sparse ``y`` with exactly ``x``'s
    pattern (Paddle's same-sparsity ``divide``: the values divided, implicit zeros stay
    zero). Other patterns raise (``0 / 0`` would be NaN at every implicit position).
    The result's ``grad_fn`` is ``DivBackward0`` (``_saved_self``, ``_saved_other``)."""
    return record(_divide(x, y), "DivBackward0", {"self": x, "other": y})


def _divide(x: Any, y: Any) -> Any:
    what = "sparse.divide"
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{what}: the dividend must be the sparse tensor")
    if _is_scalar(y):
        return x._with_values(x.values() / y)
    if isinstance(y, SparseTensor):
        _same_shape(x, y, what)
        a, b = _as_coo(canonical(x)), _as_coo(canonical(y))
        if a.nnz() != b.nnz() or not bool((a.indices() == b.indices()).all()):
            raise ValueError(
                f"{what}: the operands must have the same sparsity pattern (their implicit "
                "zeros would divide to NaN); densify them to divide elementwise"
            )
        return _like(x, y, a._with_values(a.values() / b.values()))
    raise TypeError(
        f"{what}: dividing by a dense tensor is not supported (implicit zeros divided by "
        "zeros would be NaN); use x.to_dense() / y"
    )


def transpose(x: SparseTensor, perm: Any, name: Any = None) -> SparseTensor:
    """Paddle's ``sparse.transpose(x, perm)``: permutes the dimensions.

    Sparse dimensions permute among themselves and dense ones among themselves. A CSR
    tensor stays CSR (PyTorch's ``csr.t()`` would give its CSC layout, which ferrograd
    lacks; the values are the same).
    """
    perm = [int(p) % x.ndim for p in perm]
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"sparse.transpose: {perm} is not a permutation of {x.ndim} dims")
    if isinstance(x, SparseCsrTensor):
        return x if perm == [0, 1] else coo_to_csr(transpose(x.to_sparse_coo(), perm))  # type: ignore[arg-type]
    if not isinstance(x, SparseCooTensor):  # CSC / BSR / BSC / batched CSR: a COO result
        return transpose(x.to_sparse_coo(), perm)
    c: SparseCooTensor = x  # type: ignore[assignment]
    sd = c.sparse_dim()
    if sorted(perm[:sd]) != list(range(sd)):
        raise ValueError(
            f"sparse.transpose: permutation {perm} mixes the {sd} sparse and the "
            f"{c.dense_dim()} dense dimensions; densify first"
        )
    idx = c.indices().index_select(0, fg.tensor(perm[:sd], dtype=fg.int64))
    vals = c.values()
    if c.dense_dim():
        vals = vals.permute([0] + [p - sd + 1 for p in perm[sd:]])
    shape = tuple(c._shape[p] for p in perm)
    keep_order = perm[:sd] == list(range(sd))
    return SparseCooTensor(idx, vals, shape, coalesced=c.is_coalesced() and keep_order)


def _value_wise(fn: Callable[..., Tensor], doc: str) -> Callable[..., SparseTensor]:
    def op(x: SparseTensor, *args: Any, name: Any = None, **kwargs: Any) -> SparseTensor:
        if not isinstance(x, SparseTensor):
            raise TypeError(f"sparse op: expected a sparse tensor, got {type(x).__name__}")
        c = canonical(x)
        return c._with_values(fn(c.values(), *args, **kwargs))

    op.__doc__ = doc + " on the stored values (zeros stay zero); a sparse result."
    return op


def _pow(v: Tensor, factor: Any) -> Tensor:
    if not factor > 0:
        raise ValueError(
            f"sparse.pow: factor {factor} would map implicit zeros to {0.0**factor if factor == 0 else 'inf'}; "
            "only positive exponents keep a sparse tensor sparse (densify first)"
        )
    return v.pow(factor)


def _neg(v: Tensor) -> Tensor:
    return -v


def _cast(v: Tensor, index_dtype: Any = None, value_dtype: Any = None) -> Tensor:
    # indices stay int64 (ferrograd's index dtype); only the values are cast
    return v if value_dtype is None else v.to(value_dtype)


def _fn(name: str) -> Callable[..., Tensor]:
    return lambda v, *a, **k: getattr(fg, name)(v, *a, **k)


def _functional(name: str) -> Callable[..., Tensor]:
    return lambda v, *a, **k: getattr(fg.nn.functional, name)(v, *a, **k)


_MATH = (
    "abs sin tan asin atan sinh tanh asinh atanh sqrt square log1p expm1 deg2rad rad2deg "
    "isnan sign sgn trunc floor ceil round"
).split()

#: the value-wise ops by name (also the sparse tensors' methods of those names)
VALUE_WISE: dict[str, Callable[..., SparseTensor]] = {
    n: _value_wise(_fn(n), f"Elementwise ``{n}``") for n in _MATH
}
VALUE_WISE["neg"] = _value_wise(_neg, "Elementwise negation")
VALUE_WISE["pow"] = _value_wise(_pow, "Elementwise ``x ** factor`` (factor > 0)")
VALUE_WISE["cast"] = _value_wise(_cast, "Paddle's ``cast(x, index_dtype, value_dtype)``")
ACTIVATIONS: dict[str, Callable[..., SparseTensor]] = {
    n: _value_wise(_functional(n), f"``nn.functional.{n}``")
    for n in ("relu", "relu6", "leaky_relu")
}
