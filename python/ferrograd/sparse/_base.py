"""What COO and CSR sparse tensors share: shape and dtype queries, autograd flags, the
leaf's ``.grad``, operators, and the value-wise methods (which dispatch to the sparse ops).

A sparse tensor here is a Python object over dense ferrograd tensors: integer index
tensors and a ``values`` tensor, which is what autograd sees. Every op is a composition
of differentiable dense ops on ``values`` (gather, ``index_add``, ...), so gradients reach
the values (and any dense operand) through ferrograd's engine.

A *leaf* sparse tensor (built with ``requires_grad=True`` / ``stop_gradient=False``, or
after ``requires_grad_()``) owns a leaf values tensor; its ``.grad`` is a sparse tensor of
the same layout and pattern holding ``values.grad``, as PyTorch gives.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from .._size import Size, SizeOrNumel
from ._layout import Flag
from ._value_methods import ValueWiseMethods

Tensor = _core.Tensor


class SparseTensor(ValueWiseMethods):
    """Base of :class:`SparseCooTensor` and :class:`SparseCsrTensor` (not built directly)."""

    _vals: Tensor
    _shape: tuple[int, ...]
    _leaf: bool
    #: the node an arithmetic op recorded for this result (``_node.py``), else None
    _node: Any = None
    #: lets NumPy and Tensor operators hand ``dense op sparse`` to our reflected methods
    __array_priority__ = 1000

    # -- shape and type ---------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The full (sparse and dense) shape."""
        return Size(self._shape)

    @property
    def size(self) -> SizeOrNumel:
        """``x.size()`` / ``x.size(d)`` (PyTorch) or the element count ``x.size`` (Paddle)."""
        return SizeOrNumel(Size(self._shape))

    @property
    def ndim(self) -> int:
        """The number of dimensions (sparse and dense)."""
        return len(self._shape)

    def dim(self) -> int:
        """The number of dimensions (sparse and dense)."""
        return len(self._shape)

    def numel(self) -> int:
        """The number of elements of the dense equivalent."""
        n = 1
        for s in self._shape:
            n *= s
        return n

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d sparse tensor")
        return self._shape[0]

    @property
    def dtype(self) -> Any:
        """The dtype of the values."""
        return self._vals.dtype

    @property
    def device(self) -> Any:
        """Where the values live (always the CPU)."""
        return self._vals.device

    @property
    def place(self) -> Any:
        """Paddle's name for :attr:`device`."""
        return self._vals.place

    @property
    def is_sparse(self) -> Flag:
        """True: ``x.is_sparse`` (PyTorch) or ``x.is_sparse()`` (Paddle)."""
        return Flag(True)

    def is_floating_point(self) -> bool:
        """Whether the values are floating point."""
        return self._vals.is_floating_point()

    # -- per layout (overridden) ------------------------------------------------------
    def sparse_dim(self) -> int:
        """How many leading dimensions are indexed."""
        raise NotImplementedError

    def dense_dim(self) -> int:
        """How many trailing dimensions each stored value has."""
        raise NotImplementedError

    def values(self) -> Tensor:
        """The stored values."""
        raise NotImplementedError

    def to_dense(self) -> Tensor:
        """The dense tensor."""
        raise NotImplementedError

    def to_sparse_coo(self, sparse_dim: Any = None) -> Any:
        """The COO form."""
        raise NotImplementedError

    def to_sparse(
        self, sparse_dim: Any = None, *, layout: Any = None, blocksize: Any = None,
        dense_dim: Any = None,
    ) -> Any:  # fmt: skip
        """This tensor in ``layout`` (COO by default; ``blocksize`` for BSR / BSC)."""
        from ._compressed import to_layout

        if layout is None:
            return self.to_sparse_coo(sparse_dim)
        return to_layout(self, layout, blocksize, dense_dim)

    def to_sparse_csr(self, dense_dim: Any = None) -> Any:
        """The CSR form (batch dims: the sparse dims but the last two)."""
        from ._layout import sparse_csr

        return self.to_sparse(layout=sparse_csr, dense_dim=dense_dim)

    def to_sparse_csc(self, dense_dim: Any = None) -> Any:
        """The CSC form."""
        from ._layout import sparse_csc

        return self.to_sparse(layout=sparse_csc, dense_dim=dense_dim)

    def to_sparse_bsr(self, blocksize: Any, dense_dim: Any = None) -> Any:
        """The BSR form with blocks of ``blocksize = (bh, bw)``."""
        from ._layout import sparse_bsr

        return self.to_sparse(layout=sparse_bsr, blocksize=blocksize, dense_dim=dense_dim)

    def to_sparse_bsc(self, blocksize: Any, dense_dim: Any = None) -> Any:
        """The BSC form with blocks of ``blocksize = (bh, bw)``."""
        from ._layout import sparse_bsc

        return self.to_sparse(layout=sparse_bsc, blocksize=blocksize, dense_dim=dense_dim)

    def nnz(self) -> int:
        """The number of stored entries (duplicates of an uncoalesced COO tensor count)."""
        return int(self._vals.shape[0])

    _nnz = nnz

    # -- autograd -----------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether the values take part in autograd."""
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    @property
    def stop_gradient(self) -> bool:
        """Paddle's spelling: ``not requires_grad``."""
        return not self._vals.requires_grad

    @stop_gradient.setter
    def stop_gradient(self, flag: bool) -> None:
        self.requires_grad_(not flag)

    @property
    def is_leaf(self) -> bool:
        """True unless the tensor is the result of a recorded op."""
        return self._leaf or not self._vals.requires_grad

    @property
    def grad_fn(self) -> Any:
        """The node that produced this tensor (None for a leaf): for the result of
        sparse arithmetic, PyTorch's node with the saved operands (``MulBackward0``,
        ``_saved_self``; see ``_node.py``), otherwise the node of the values."""
        if self.is_leaf:
            return None
        node = self._node
        # (the values may have been replaced since, e.g. by requires_grad_ on a copy)
        if node is not None and node._values_node is self._vals.grad_fn:
            return node
        return self._vals.grad_fn

    def requires_grad_(self, requires_grad: bool = True) -> SparseTensor:
        """Makes this sparse tensor a leaf whose values collect gradients (in place)."""
        if not self.is_leaf:
            raise RuntimeError(
                "requires_grad_: this sparse tensor is the result of a differentiable op; "
                "only a leaf can change requires_grad (use .detach() first)"
            )
        if requires_grad and not self._vals.requires_grad:
            self._vals = self._vals.detach()
            self._vals.requires_grad_(True)
            self._leaf = True
        elif not requires_grad:
            self._vals = self._vals.detach()
        return self

    @property
    def grad(self) -> SparseTensor | None:
        """The gradient of a leaf: a sparse tensor with this one's layout and pattern.

        Its values are ``d loss / d x`` at the stored positions (an uncoalesced COO leaf
        gets the coalesced pattern, as in PyTorch). None for a non-leaf and before a
        backward pass; the dense per-entry gradient is ``x.values().grad``.
        """
        if not self._leaf:
            return None
        g = self._vals.grad
        return None if g is None else self._grad_from_values(g)

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is not None:
            raise TypeError(
                "grad: only None can be assigned to a sparse tensor's .grad "
                "(set .values().grad to a dense tensor instead)"
            )
        self._vals.grad = None

    def _grad_from_values(self, g: Tensor) -> SparseTensor:
        raise NotImplementedError  # each layout builds its own

    def detach(self) -> SparseTensor:
        """The same entries, cut from the graph."""
        return self._with_values(self._vals.detach())

    def clone(self) -> SparseTensor:
        """A copy with its own values (and the values' history)."""
        return self._with_values(self._vals.clone())

    def _with_values(self, values: Tensor) -> SparseTensor:
        raise NotImplementedError

    # -- dtype conversions ----------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> SparseTensor:
        """Casts the values (``to(dtype)``; a device argument must be the CPU)."""
        return self._with_values(self._vals.to(*args, **kwargs))

    def astype(self, dtype: Any) -> SparseTensor:
        """Casts the values (Paddle's name)."""
        return self._with_values(self._vals.astype(dtype))

    def type(self, dtype: Any) -> SparseTensor:
        """Casts the values (PyTorch's ``x.type(dtype)``)."""
        return self._with_values(self._vals.to(dtype))

    def double(self) -> SparseTensor:
        """Casts the values to float64."""
        return self._with_values(self._vals.to(_core.float64))

    def float(self) -> SparseTensor:
        """Casts the values to float32."""
        return self._with_values(self._vals.to(_core.float32))

    def cpu(self) -> SparseTensor:
        """Itself: ferrograd runs on the CPU."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> SparseTensor:
        """The dense tensors' answer: ferrograd has no GPU build (an error)."""
        return self._with_values(self._vals.cuda(*args, **kwargs))

    @property
    def is_cuda(self) -> bool:
        """False: ferrograd runs on the CPU."""
        return False

    def numpy(self) -> Any:
        """Not defined for sparse tensors: densify first."""
        raise TypeError(
            "numpy: a sparse tensor has no NumPy form; call .to_dense().numpy() "
            "(or build a scipy.sparse matrix from .indices() and .values())"
        )

    def tolist(self) -> Any:
        """Not defined for sparse tensors: densify first."""
        raise TypeError("tolist: call .to_dense().tolist() on a sparse tensor")

    def __bool__(self) -> bool:
        raise RuntimeError(
            "bool() of a sparse tensor is ambiguous; reduce it first (sparse.sum(x) != 0)"
        )

    # -- operators and ops (ops.py, products.py) ---------------------------------------
    def __add__(self, other: Any) -> Any:
        from ._elementwise import add

        return add(self, other)

    def __radd__(self, other: Any) -> Any:
        from ._elementwise import add

        return add(self, other)

    def __sub__(self, other: Any) -> Any:
        from ._elementwise import subtract

        return subtract(self, other)

    def __rsub__(self, other: Any) -> Any:
        from ._elementwise import add

        return add(-self, other)

    def __mul__(self, other: Any) -> Any:
        from ._elementwise import multiply

        return multiply(self, other)

    def __rmul__(self, other: Any) -> Any:
        from ._elementwise import multiply

        return multiply(other, self)  # ``other`` stays PyTorch's ``self``

    def __truediv__(self, other: Any) -> Any:
        from ._elementwise import divide

        return divide(self, other)

    def add(self, other: Any, alpha: Any = 1) -> Any:
        """``self + alpha * other`` (``ferrograd.sparse.add``)."""
        from ._elementwise import add

        return add(self, other, alpha)

    def sub(self, other: Any) -> Any:
        """``self - other`` (``ferrograd.sparse.subtract``)."""
        from ._elementwise import subtract

        return subtract(self, other)

    def mul(self, other: Any) -> Any:
        """``self * other`` (``ferrograd.sparse.multiply``)."""
        from ._elementwise import multiply

        return multiply(self, other)

    def div(self, other: Any) -> Any:
        """``self / other`` (``ferrograd.sparse.divide``)."""
        from ._elementwise import divide

        return divide(self, other)

    subtract, multiply, divide = sub, mul, div

    def __neg__(self) -> SparseTensor:
        from ._node import record

        return record(self._with_values(-self._vals), "NegBackward0", {})

    def __matmul__(self, other: Any) -> Any:
        from ._products import matmul

        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        from ._products import matmul

        return matmul(other, self)

    def mm(self, other: Any) -> Any:
        """``self @ other`` (``torch.Tensor.mm``)."""
        from ._products import mm

        return mm(self, other)

    def matmul(self, other: Any) -> Any:
        """``self @ other``."""
        from ._products import matmul

        return matmul(self, other)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        """``ferrograd.sparse.sum(self, ...)``."""
        from ._reduce import sum as sparse_sum

        return sparse_sum(self, *args, **kwargs)

    def t(self) -> SparseTensor:
        """Swaps the two dimensions of a 2-D sparse tensor."""
        if self.ndim != 2:
            raise RuntimeError(f"t: expects a 2-D sparse tensor, got {self.ndim}-D; use transpose")
        return self.transpose(0, 1)

    def transpose(self, *dims: Any) -> SparseTensor:
        """``transpose(dim0, dim1)`` (PyTorch) or ``transpose(perm)`` (Paddle)."""
        from ._elementwise import transpose

        if len(dims) == 2:
            perm = list(range(self.ndim))
            a, b = (d % self.ndim if self.ndim else d for d in dims)
            perm[a], perm[b] = perm[b], perm[a]
            return transpose(self, perm)
        if len(dims) == 1:
            return transpose(self, dims[0])
        raise TypeError("transpose: expects (dim0, dim1) or a permutation list")

    # -- indexing (COO; _shape_ops.py) ---------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        """``x[i]``, ``x[i, j]``, ``x[a:b]``, ``x[[i, j]]`` on COO (see ``select``)."""
        from ._shape_ops import getitem

        return getitem(self, key)

    def select(self, dim: Any, index: Any) -> Any:
        """The slice at ``index`` along ``dim`` (sparse for a sparse dim, as PyTorch)."""
        from ._shape_ops import select

        return select(self, dim, index)

    def index_select(self, dim: Any, index: Any) -> Any:
        """The slices at ``index`` (1-D integers, repeats allowed) along ``dim``."""
        from ._shape_ops import index_select

        return index_select(self, dim, index)

    def reshape(self, *shape: Any) -> Any:
        """``paddle.sparse.reshape(self, shape)`` (only the sparse dims change)."""
        from ._shape_ops import reshape

        dims = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
        return reshape(self, dims)
