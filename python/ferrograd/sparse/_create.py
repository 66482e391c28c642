"""Building sparse tensors: ``sparse_coo_tensor`` / ``sparse_csr_tensor`` in both
dialects' signatures (validated: a bad index is an error, never a wrong tensor), and the
dense ``Tensor`` methods ``to_sparse`` / ``to_sparse_coo`` / ``to_sparse_csr`` /
``to_dense`` / ``is_sparse`` / ``layout``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ferrograd as fg

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor, linear_keys
from ._csr import SparseCsrTensor
from ._layout import Flag, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided

Tensor = _core.Tensor


def _index_tensor(obj: Any, what: str, name: str) -> Tensor:
    if not isinstance(obj, Tensor):
        arr = np.asarray(obj)
        obj = fg.tensor(arr.astype(np.int64) if arr.size == 0 else arr)
    t = obj
    if t.is_floating_point() or t.is_complex() or t.dtype == fg.bool:
        raise TypeError(f"{what}: {name} must hold integers, got dtype {t.dtype}")
    return t.to(fg.int64)


def _values_tensor(obj: Any, dtype: Any) -> Tensor:
    t = obj if isinstance(obj, Tensor) else fg.tensor(obj)
    return t if dtype is None else t.to(dtype)


def _grad_flag(requires_grad: Any, stop_gradient: Any) -> bool:
    if requires_grad is not None:
        return bool(requires_grad)
    return not bool(stop_gradient)


def _own_values(values: Tensor, make_leaf: bool, what: str) -> tuple[Tensor, bool]:
    """The values a new sparse tensor keeps, and whether it is a gradient leaf."""
    if values.requires_grad:
        # an alias inside the graph: the sparse tensor is then a non-leaf result whose
        # gradient reaches `values` (and its .grad stays None), as in PyTorch, also when
        # requires_grad=True is passed as well
        return values.reshape(list(values.shape)), False
    if make_leaf:
        if not (values.is_floating_point() or values.is_complex()):
            raise TypeError(f"{what}: only floating and complex values can require grad")
        leaf = values.detach()
        leaf.requires_grad_(True)
        return leaf, True
    return values, False


def _check_size(size: Any, shape: Any) -> Any:
    if size is not None and shape is not None:
        raise TypeError("pass the shape once: size= (PyTorch) or shape= (Paddle)")
    size = size if size is not None else shape
    return None if size is None else [int(s) for s in size]


def sparse_coo_tensor(
    indices: Any,
    values: Any,
    size: Any = None,
    dtype: Any = None,
    place: Any = None,
    stop_gradient: bool = True,
    *,
    shape: Any = None,
    device: Any = None,
    requires_grad: Any = None,
    is_coalesced: Any = None,
    check_invariants: Any = None,
    pin_memory: bool = False,
) -> SparseCooTensor:
    """A COO sparse tensor from ``indices`` [sparse_dim, nnz] and ``values`` [nnz, ...].

    PyTorch: ``sparse_coo_tensor(indices, values, size=None, *, dtype, requires_grad,
    is_coalesced)``; Paddle: ``sparse.sparse_coo_tensor(indices, values, shape=None,
    dtype=None, place=None, stop_gradient=True)``. Without a size, each sparse dimension
    is one past its largest index and the dense dimensions are ``values.shape[1:]``.
    Duplicate indices are kept (summed by ``coalesce`` / ``to_dense``). Indices that are
    negative or out of range raise ``IndexError``. ``requires_grad=True`` (or
    ``stop_gradient=False``) makes a leaf whose ``.grad`` is sparse; values that already
    require grad keep their graph (the result is then not a leaf).
    """
    what = "sparse_coo_tensor"
    idx = _index_tensor(indices, what, "indices")
    vals = _values_tensor(values, dtype)
    if idx.ndim != 2:
        raise ValueError(
            f"{what}: indices must be 2-D [sparse_dim, nnz], got shape {list(idx.shape)}"
        )
    if vals.ndim < 1 or vals.shape[0] != idx.shape[1]:
        raise ValueError(
            f"{what}: values must be [nnz, *dense_shape] with nnz = indices.shape[1] = "
            f"{idx.shape[1]}, got values of shape {list(vals.shape)}"
        )
    sd, nnz = int(idx.shape[0]), int(idx.shape[1])
    dense = [int(s) for s in vals.shape[1:]]
    top = [int(v) for v in idx.amax(1).tolist()] if nnz else [-1] * sd
    if nnz and int(idx.amin()) < 0:
        raise IndexError(f"{what}: indices must be non-negative, found {int(idx.amin())}")
    sizes = _check_size(size, shape)
    if sizes is None:
        sizes = [t + 1 for t in top] + dense
    else:
        if len(sizes) != sd + len(dense) or sizes[sd:] != dense:
            raise ValueError(
                f"{what}: size {sizes} does not fit indices with sparse_dim {sd} and "
                f"values of shape {list(vals.shape)} (expected {sd} sparse sizes followed "
                f"by the values' trailing dims {dense})"
            )
        for d in range(sd):
            if top[d] >= sizes[d]:
                raise IndexError(
                    f"{what}: index {top[d]} in sparse dimension {d} is out of range for "
                    f"size {sizes[d]}"
                )
    coalesced = False
    if is_coalesced:
        keys = linear_keys(idx, tuple(sizes[:sd]), what)
        if nnz > 1 and not bool((keys[1:] > keys[:-1]).all()):
            raise ValueError(f"{what}: is_coalesced=True but the indices are not sorted and unique")
        coalesced = True
    if device is not None:
        vals = vals.to(device)  # the CPU, or the dense tensors' device error
    vals, leaf = _own_values(vals, _grad_flag(requires_grad, stop_gradient), what)
    return SparseCooTensor(idx, vals, tuple(sizes), coalesced=coalesced, leaf=leaf)


def sparse_csr_tensor(
    crow_indices: Any,
    col_indices: Any,
    values: Any,
    size: Any = None,
    dtype: Any = None,
    place: Any = None,
    stop_gradient: bool = True,
    *,
    shape: Any = None,
    device: Any = None,
    requires_grad: Any = None,
    check_invariants: Any = None,
    pin_memory: bool = False,
    layout: Any = None,
) -> SparseTensor:
    """A CSR sparse tensor from row pointers, column indices and values.

    PyTorch: ``sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype,
    requires_grad)``; Paddle: ``sparse.sparse_csr_tensor(crows, cols, values, shape,
    dtype=None, place=None, stop_gradient=True)``. Checked: ``crow[0] == 0``,
    non-decreasing, ``crow[-1] == nnz``, columns in range and strictly increasing within
    each row. Batched (``crow_indices`` [*batch, n + 1], the same nnz in every batch) and
    hybrid (``values`` [nnz, *dense]) CSR go to :func:`sparse_compressed_tensor`.
    """
    what = "sparse_csr_tensor"
    crow = _index_tensor(crow_indices, what, "crow_indices")
    col = _index_tensor(col_indices, what, "col_indices")
    vals = _values_tensor(values, dtype)
    if device is not None:
        vals = vals.to(device)
    sizes = _check_size(size, shape)
    if crow.ndim != 1 or vals.ndim != 1 or (sizes is not None and len(sizes) != 2):
        # batched (crow_indices [*batch, n + 1]) or hybrid (values [nnz, *dense]) CSR
        from ._create_compressed import sparse_compressed_tensor

        return sparse_compressed_tensor(
            crow, col, vals, sizes, layout=sparse_csr,
            requires_grad=_grad_flag(requires_grad, stop_gradient),
        )  # fmt: skip
    if col.ndim != 1 or col.shape[0] != vals.shape[0]:
        raise ValueError(
            f"{what}: col_indices and values must be 1-D of the same length, got "
            f"{list(col.shape)} and {list(vals.shape)}"
        )
    nnz, n = int(col.shape[0]), int(crow.shape[0]) - 1
    if n < 0:
        raise ValueError(f"{what}: crow_indices must have at least one entry (0)")
    if sizes is None:
        sizes = [n, int(col.amax()) + 1 if nnz else 0]
    if sizes[0] != n:
        raise ValueError(
            f"{what}: crow_indices has {n + 1} entries; size {sizes} needs {sizes[0] + 1}"
        )
    if int(crow[0]) != 0 or int(crow[-1]) != nnz or (n and bool((crow[1:] < crow[:-1]).any())):
        raise ValueError(
            f"{what}: crow_indices must start at 0, never decrease and end at nnz = {nnz}; "
            f"got {crow.tolist() if n < 20 else 'a pointer array that does not'}"
        )
    if nnz and (int(col.amin()) < 0 or int(col.amax()) >= sizes[1]):
        raise IndexError(f"{what}: a column index is outside [0, {sizes[1]})")
    out = SparseCsrTensor(crow, col, vals, tuple(sizes))
    rows = out._rows()
    if nnz > 1 and bool(((rows[1:] == rows[:-1]) & (col[1:] <= col[:-1])).any()):
        raise ValueError(
            f"{what}: col_indices must be strictly increasing within each row (sort them, "
            "or build a COO tensor and call .to_sparse_csr())"
        )
    vals, out._leaf = _own_values(vals, _grad_flag(requires_grad, stop_gradient), what)
    out._vals = vals
    return out


def dense_to_coo(x: Tensor, sparse_dim: Any = None) -> SparseCooTensor:
    """The COO form of a dense tensor: its nonzeros (rows with any nonzero, for a hybrid
    ``sparse_dim < ndim``); the values are gathered differentiably from ``x``."""
    if x.ndim == 0:
        raise ValueError("to_sparse: a 0-d tensor has no sparse form here; reshape it to 1-d")
    sd = x.ndim if sparse_dim is None else int(sparse_dim)
    if not 1 <= sd <= x.ndim:
        raise ValueError(
            f"to_sparse: sparse_dim must be in [1, {x.ndim}] for this tensor, got {sd}"
        )
    mask = x != 0
    if sd < x.ndim:
        # the trailing size spelled out: -1 cannot be inferred when a sparse size is 0
        per_entry = int(np.prod([int(s) for s in x.shape[sd:]], dtype=np.int64))
        mask = mask.reshape([*x.shape[:sd], per_entry]).any(-1)
    idx = mask.nonzero().t()
    vals = x[tuple(idx[d] for d in range(sd))]
    return SparseCooTensor(idx, vals, tuple(x.shape), coalesced=True)


def _to_sparse(
    self: Tensor,
    sparse_dim: Any = None,
    *,
    layout: Any = None,
    blocksize: Any = None,
    dense_dim: Any = None,
) -> SparseTensor:
    """The sparse form of a dense tensor: COO by default, or ``layout`` (``sparse_csr`` /
    ``csc`` / ``bsr`` / ``bsc``; ``blocksize=(bh, bw)`` for the block layouts)."""
    from ._compressed import to_layout

    if layout is None or layout is sparse_coo:
        return dense_to_coo(self, sparse_dim)
    return to_layout(self, layout, blocksize, dense_dim)


def _to_sparse_coo(self: Tensor, sparse_dim: Any = None) -> SparseCooTensor:
    """Paddle's ``x.to_sparse_coo(sparse_dim)``: the COO form of a dense tensor."""
    return dense_to_coo(self, sparse_dim)


def _to_sparse_csr(self: Tensor, dense_dim: Any = None) -> SparseTensor:
    """The CSR form of a dense tensor (batched for more than 2 dims + ``dense_dim``)."""
    return _to_sparse(self, layout=sparse_csr, dense_dim=dense_dim)


def _to_sparse_csc(self: Tensor, dense_dim: Any = None) -> SparseTensor:
    """The CSC form of a dense tensor."""
    return _to_sparse(self, layout=sparse_csc, dense_dim=dense_dim)


def _to_sparse_bsr(self: Tensor, blocksize: Any, dense_dim: Any = None) -> SparseTensor:
    """The BSR form of a dense tensor (blocks of ``blocksize = (bh, bw)``)."""
    return _to_sparse(self, layout=sparse_bsr, blocksize=blocksize, dense_dim=dense_dim)


def _to_sparse_bsc(self: Tensor, blocksize: Any, dense_dim: Any = None) -> SparseTensor:
    """The BSC form of a dense tensor (blocks of ``blocksize = (bh, bw)``)."""
    return _to_sparse(self, layout=sparse_bsc, blocksize=blocksize, dense_dim=dense_dim)


def _to_dense(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """A dense tensor's dense form: itself (cast when ``dtype`` is given)."""
    return self if dtype is None else self.to(dtype)


def install_tensor_methods() -> None:
    """Adds the sparse conversions and layout queries to the dense ``Tensor``."""
    false = property(lambda self: Flag(False), doc="False: a dense tensor (property or method).")
    methods: dict[str, Any] = {
        "to_sparse": _to_sparse,
        "to_sparse_coo": _to_sparse_coo,
        "to_sparse_csr": _to_sparse_csr,
        "to_sparse_csc": _to_sparse_csc,
        "to_sparse_bsr": _to_sparse_bsr,
        "to_sparse_bsc": _to_sparse_bsc,
        "to_dense": _to_dense,
        "is_sparse": false,
        "is_sparse_coo": false,
        "is_sparse_csr": false,
        "layout": property(lambda self: strided, doc="ferrograd.strided (dense)."),
    }
    for name, attr in methods.items():
        setattr(Tensor, name, attr)


def _legacy(dtype_name: str) -> Any:
    def build(*args: Any, size: Any = None) -> SparseCooTensor:
        dtype = getattr(fg, dtype_name)
        if len(args) >= 2 and not isinstance(args[0], int):
            # (indices, values[, size])
            shape = args[2] if len(args) > 2 else size
            return sparse_coo_tensor(args[0], args[1], shape, dtype=dtype)
        # (size...) or (): an empty sparse tensor of that shape
        dims = [
            int(d) for d in (args[0] if len(args) == 1 and not isinstance(args[0], int) else args)
        ]
        if size is not None:
            dims = [int(d) for d in size]
        empty_idx = fg.zeros([len(dims), 0], dtype=fg.int64)
        return sparse_coo_tensor(empty_idx, fg.zeros([0], dtype=dtype), dims)

    name = {"float32": "FloatTensor", "float64": "DoubleTensor"}[dtype_name]
    build.__name__ = build.__qualname__ = name
    build.__doc__ = (
        f"PyTorch's legacy ``torch.sparse.{name}(indices, values, size)`` (a {dtype_name} COO "
        f"tensor) or ``torch.sparse.{name}(*size)`` (an empty one)."
    )
    return build


#: ``torch.sparse.FloatTensor`` / ``DoubleTensor`` (legacy constructors, e.g. in pygcn)
FloatTensor = _legacy("float32")
DoubleTensor = _legacy("float64")
