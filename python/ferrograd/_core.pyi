"""Type stubs for ``ferrograd._core``, the Rust extension module (PyO3).

The module defines names that shadow builtins (``bool`` is a dtype, ``Tensor`` has
methods called ``float``, ``int`` and ``bool``), so every annotation here spells the
builtin types through the ``_bool`` / ``_int`` / ``_float`` / ``_complex`` aliases.
"""

import builtins
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Literal, SupportsIndex, final, overload

import numpy as np
from numpy.typing import DTypeLike, NDArray
from typing_extensions import Self, TypeAlias, disjoint_base

from ferrograd._size import Size, SizeOrNumel

__all__ = [
    "dtype",
    "bool",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "Tensor",
    "Node",
    "AccumulateGrad",
    "SavedTensor",
    "RemovableHandle",
    "_set_size_class",
    "tensor",
    "to_tensor",
    "from_numpy",
    # BEGIN generated: creation __all__ (scripts/gen_op_bindings.py from src/python/creation.rs)
    "zeros",
    "ones",
    "empty",
    "zeros_like",
    "ones_like",
    "empty_like",
    "rand",
    "randn",
    # END generated: creation __all__
    "full",
    "full_like",
    "arange",
    "linspace",
    "eye",
    "randint",
    "seed",
    "Generator",
    "concat",
    "stack",
    "split",
    "where",
    "backward",
    "grad",
    "is_grad_enabled",
    "_set_grad_enabled",
    "is_inference_mode_enabled",
    "is_inference",
    "_set_inference_mode",
    "_restore_inference_mode",
]

# ---- aliases ------------------------------------------------------------------------

_bool: TypeAlias = builtins.bool
_int: TypeAlias = builtins.int
_float: TypeAlias = builtins.float
_complex: TypeAlias = builtins.complex

# A Python scalar accepted as an operand or fill value.
_Scalar: TypeAlias = _bool | _int | _float | _complex
# What ``item()`` gives (complex tensors give a ``complex``; see ``Tensor.item``).
_Number: TypeAlias = _bool | _int | _float
# A dtype argument: a ferrograd dtype, its name, a NumPy dtype or scalar type, or one of
# Python's ``bool``, ``int``, ``float``, ``complex``.
_DTypeLike: TypeAlias = dtype | str | type[Any] | np.dtype[Any]
# Anything a binary op converts to a tensor.
_Operand: TypeAlias = Tensor | _Scalar | NDArray[Any] | Sequence[Any]
# A shape given as one sequence (entries: ints, NumPy ints or one-element tensors).
_ShapeLike: TypeAlias = Sequence[SupportsIndex]
# A ``clip`` bound: a real number, a one-element tensor, or None for no bound.
_Bound: TypeAlias = _float | Tensor | None
# An ``axis``/``dim`` argument of a reduction: one axis, several, or all (None).
_Axis: TypeAlias = _int | Sequence[_int] | None
# An integer (or bool) index tensor, or something convertible to one.
_IndexLike: TypeAlias = Tensor | Sequence[Any] | NDArray[Any]
# One item of a ``t[...]`` key.
_KeyItem: TypeAlias = (
    SupportsIndex | slice | builtins.ellipsis | None | Tensor | Sequence[Any] | NDArray[Any]
)
_Key: TypeAlias = _KeyItem | tuple[_KeyItem, ...]

# ---- dtypes -------------------------------------------------------------------------

@final
class dtype:
    """A tensor element type as a Python object."""

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``"float32"``."""
    @property
    def itemsize(self) -> _int:
        """Bytes per element."""
    @property
    def is_floating_point(self) -> _bool:
        """True for float16, bfloat16, float32, float64."""
    @property
    def is_complex(self) -> _bool:
        """True for complex64 and complex128."""
    def __eq__(self, other: object, /) -> _bool:
        """Equal to the same dtype, its name, or a NumPy dtype of that name."""
    def __ne__(self, other: object, /) -> _bool: ...
    def __hash__(self) -> _int:
        """Hash of the name, so that ``dtype == name`` implies equal hashes."""
    def __reduce__(self) -> tuple[Callable[[str], dtype], tuple[str]]:
        """Pickle support: rebuilt by ``ferrograd.dtype_from_name(name)``."""

_DType: TypeAlias = dtype

bool: dtype
uint8: dtype
int8: dtype
int16: dtype
int32: dtype
int64: dtype
float16: dtype
bfloat16: dtype
float32: dtype
float64: dtype
complex64: dtype
complex128: dtype

# ---- autograd graph objects ---------------------------------------------------------

@final
class Node:
    """A node of the backward graph, as seen from Python (``tensor.grad_fn``); each node
    is an instance of a subclass named after it (``MulBackward0``)."""

    def __new__(cls, other: Node) -> Self:
        """Rewraps another node object (used to build the named subclasses' instances)."""

    def name(self) -> str:
        """The node's name, e.g. ``MulBackward0``; from Paddle code, Paddle's (``MultiplyGradNode``)."""
    @property
    def next_functions(
        self,
    ) -> tuple[tuple[Node | AccumulateGrad | None, _int], ...] | list[Node | AccumulateGrad | None]:
        """``((node_or_None, input_nr), ...)``, one per forward input; from Paddle code,
        Paddle's list of the nodes alone."""
    def __eq__(self, other: object, /) -> _bool: ...
    def __hash__(self) -> _int: ...
    def __call__(self, *grad_outputs: Tensor | None) -> Any:
        """Runs the node's backward formula on one gradient per forward output and returns
        its input gradients (one tensor, or a tuple when the op had several inputs)."""
    def register_prehook(self, hook: Callable[[tuple[Tensor | None, ...]], Any]) -> RemovableHandle:
        """Registers ``hook(grad_outputs)``, run before this node's backward; returning a
        tuple replaces the gradients flowing in."""
    def register_hook(
        self, hook: Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], Any]
    ) -> RemovableHandle:
        """Registers ``hook(grad_inputs, grad_outputs)``, run after this node's backward;
        returning a tuple replaces the gradients it computed."""
    def _register_post_hook(
        self, hook: Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], Any]
    ) -> RemovableHandle:
        """Paddle's spelling of ``register_hook``."""
    @property
    def metadata(self) -> dict[Any, Any]:
        """PyTorch's per-node dict, empty unless anomaly mode recorded the forward
        traceback (``"traceback_"``) and the creating node (``"parent_"``)."""
    def __getattr__(self, attr: str, /) -> Any:
        """``_saved_<name>`` (a saved tensor, unpacked: ``self``, ``other``, ``result``,
        ...) and ``_raw_saved_<name>`` (the saved slot, a ``SavedTensor``)."""

@final
class SavedTensor:
    """One tensor a built-in node saved (``grad_fn._raw_saved_self``), PyTorch's
    ``SavedVariable``."""

    def register_hooks(
        self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]
    ) -> None:
        """Packs the saved tensor now with ``pack_hook``; ``unpack_hook`` gives it back."""
    @property
    def data(self) -> Any:
        """What ``pack_hook`` returned, as it is; without hooks the saved input itself
        or a detached copy of a saved output."""
    @property
    def unpack_hook(self) -> Callable[[Any], Tensor] | None:
        """The hook that will unpack this save, or None."""

@final
class AccumulateGrad:
    """The sink a leaf's gradient flows into (appears in ``next_functions``)."""

    def name(self) -> str:
        """``"AccumulateGrad"``."""
    @property
    def variable(self) -> Tensor:
        """The leaf tensor."""
    @property
    def next_functions(self) -> tuple[()] | list[None]:
        """No further nodes: ``()``; from Paddle code, Paddle's ``[None]``."""
    def register_prehook(self, hook: Callable[[tuple[Tensor | None, ...]], Any]) -> RemovableHandle:
        """Registers ``hook(grad_outputs)``, run before the gradient is accumulated (after
        the tensor's own hooks); a returned 1-tuple replaces the gradient."""
    def register_hook(
        self, hook: Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], Any]
    ) -> RemovableHandle:
        """Registers ``hook((), grad_outputs)``, run after the accumulation and the
        post-accumulate-grad hooks."""

@final
class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def remove(self) -> _bool:
        """Unregisters the hook; True when it was registered, False when already removed."""

# ---- NumPy export -------------------------------------------------------------------

#: whether ``memoryview(tensor)`` works (False in the abi3 wheel, which has no buffer protocol)
_HAS_BUFFER_PROTOCOL: _bool

@final
class _ArrayExport:
    """Owns a tensor's storage while a NumPy array views it (the array's ``base``)."""

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy's array interface (version 3): pointer, read-only flag, shape, strides."""

# ---- Tensor -------------------------------------------------------------------------

@disjoint_base
class Tensor:
    """A multi-dimensional array with reverse-mode autograd."""

    # Set by ``ferrograd._dialect_aliases``: NumPy defers to Tensor's reflected operators.
    __array_priority__: ClassVar[_int]

    def __new__(cls, *args: Any, dtype: _DTypeLike | None = None) -> Self:
        """``Tensor(data)``: a tensor of ``data`` (float32 unless ``dtype``); ``Tensor(2, 3)``
        or ``Tensor(Size)``: zeros of that shape; ``Tensor()``: empty."""

    # -- properties --
    @property
    def shape(self) -> Size:
        """Dimensions as a ``Size`` (equal to both a tuple and a list)."""
    @property
    def dtype(self) -> _DType:
        """Element type."""
    @property
    def ndim(self) -> _int:
        """Number of dimensions."""
    @property
    def place(self) -> str:
        """Where the tensor lives (always the CPU)."""
    @property
    def device(self) -> str:
        """Device (always the CPU)."""
    @property
    def T(self) -> Tensor:
        """All dims reversed."""
    @property
    def mT(self) -> Tensor:
        """Last two dims swapped."""
    @property
    def requires_grad(self) -> _bool:
        """Whether gradients are tracked (the inverse of ``stop_gradient``)."""
    @requires_grad.setter
    def requires_grad(self, flag: _bool) -> None: ...
    @property
    def stop_gradient(self) -> _bool:
        """Paddle's view of the same flag: ``stop_gradient == not requires_grad``."""
    @stop_gradient.setter
    def stop_gradient(self, flag: _bool) -> None: ...
    @property
    def is_leaf(self) -> _bool:
        """True for tensors without a ``grad_fn``."""
    @property
    def grad_fn(self) -> Node | None:
        """The node that produced this tensor (None for leaves)."""
    @property
    def output_nr(self) -> _int:
        """Which output of its ``grad_fn`` this tensor is (0 for leaves)."""
    @property
    def grad(self) -> Tensor | None:
        """Accumulated gradient (None until a backward pass reaches this tensor)."""
    @grad.setter
    def grad(self, value: Tensor | None) -> None: ...
    @property
    def _version(self) -> _int:
        """Number of in-place writes to this tensor's memory so far."""
    @property
    def _base(self) -> Tensor | None:
        """The tensor a view shares its memory with (the root of a chain of views; the
        same Python object while it is alive); None for a tensor that is not a view."""

    # -- size and layout --
    @property
    def size(self) -> SizeOrNumel:
        """Number of elements (Paddle); ``size()`` -> shape, ``size(dim)`` -> that
        dimension (PyTorch)."""
    def dim(self) -> _int:
        """Number of dimensions (torch spelling)."""
    # -- sparse conversions and layout queries (ferrograd/sparse/_create.py; typed Any:
    # importing ferrograd.sparse here would make the stubs import the package) --
    @property
    def is_sparse(self) -> Any:
        """False for a dense tensor: ``x.is_sparse`` (PyTorch) or ``x.is_sparse()`` (Paddle)."""
    @property
    def is_sparse_coo(self) -> Any:
        """False for a dense tensor (property or method)."""
    @property
    def is_sparse_csr(self) -> Any:
        """False for a dense tensor (property or method)."""
    @property
    def layout(self) -> Any:
        """``ferrograd.strided``: every ``Tensor`` is dense."""
    def to_sparse(
        self,
        sparse_dim: Any = None,
        *,
        layout: Any = None,
        blocksize: Any = None,
        dense_dim: Any = None,
    ) -> Any:
        """The COO form, or ``layout`` (CSR / CSC / BSR / BSC); see docs/sparse.md."""
    def to_sparse_coo(self, sparse_dim: Any = None) -> Any:
        """Paddle's ``x.to_sparse_coo(sparse_dim)``: the COO form of the nonzeros."""
    def to_sparse_csr(self, dense_dim: Any = None) -> Any:
        """The CSR form (batched for more than 2 dims + ``dense_dim``)."""
    def to_sparse_csc(self, dense_dim: Any = None) -> Any:
        """The CSC form."""
    def to_sparse_bsr(self, blocksize: Any, dense_dim: Any = None) -> Any:
        """The BSR form with blocks of ``blocksize = (bh, bw)``."""
    def to_sparse_bsc(self, blocksize: Any, dense_dim: Any = None) -> Any:
        """The BSC form with blocks of ``blocksize = (bh, bw)``."""
    def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
        """Itself (a dense tensor's dense form; cast when ``dtype`` is given)."""
    def numel(self) -> _int:
        """Number of elements (an int; in Paddle code a 0-d int64 tensor)."""
    @overload
    def stride(self, dim: None = None) -> tuple[_int, ...]:
        """Element strides (all, or of one dim)."""
    @overload
    def stride(self, dim: _int) -> _int: ...
    def is_contiguous(self, *, memory_format: Any = None) -> _bool:
        """True when elements are row-major without gaps (``memory_format=torch.channels_last``:
        in ``N, H, W, C`` order; installed by ``_memory_format_api``)."""
    def data_ptr(self) -> _int:
        """Address of the first element."""
    def element_size(self) -> _int:
        """Bytes per element."""
    @property
    def itemsize(self) -> _int:
        """Bytes per element (PyTorch's ``x.itemsize``; installed by ``_dropin``)."""
    @property
    def nbytes(self) -> _int:
        """Bytes of the elements, ``numel() * element_size()`` (installed by ``_dropin``)."""
    def cpu(self) -> Self:
        """Itself (ferrograd tensors live on the CPU)."""
    def __len__(self) -> _int: ...

    # -- autograd --
    def requires_grad_(self, requires_grad: _bool = True) -> Self:
        """Sets ``requires_grad`` in place and returns the tensor."""
    def clear_grad(self, set_to_zero: _bool = True) -> None:
        """Zeros the accumulated gradient in place, or drops it (``set_to_zero=False``)."""
    def clear_gradient(self, set_to_zero: _bool = True) -> None:
        """Same as ``clear_grad``."""
    def _inplace_version(self) -> _int:
        """Paddle's spelling of ``_version``."""
    def _increment_version(self) -> None:
        """Adds one to the version counter without writing anything."""
    def detach(self) -> Tensor:
        """Same data, no history, never requires grad (shares storage)."""
    def detach_(self) -> Self:
        """Detaches this tensor from its graph in place."""
    def retain_grad(self) -> None:
        """Keeps the gradient of this non-leaf in ``.grad`` during backward."""
    def retain_grads(self) -> None:
        """Paddle spelling of ``retain_grad``."""
    def _retain_grads_in_order(self) -> None:
        """Paddle's ``retain_grads()``: the gradient as it is at this point of the hooks."""
    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Runs ``hook(grad)`` when this gradient is computed; a Tensor return replaces it.
        When the tensor's node runs without a gradient for it, ``hook(None)`` (PyTorch)."""
    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Runs ``hook(tensor)`` right after backward has accumulated this leaf's gradient
        into ``.grad``; the hook must return None."""
    # (native; ``inputs=`` goes through ``autograd.backward_inputs.backward``)
    def backward(
        self,
        gradient: _Operand | None = None,
        retain_graph: _bool | None = None,
        create_graph: _bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
        grad_tensor: _Operand | None = None,
    ) -> None:
        """Runs backward from this tensor (seed: ones of its shape unless given); with
        ``inputs``, gradients accumulate into those tensors only."""
    # -- added at import by ``ferrograd._dropin_fixes.install`` --
    def put(self, index: Tensor, source: Tensor, accumulate: _bool = False) -> Tensor:
        """``self`` with ``source`` written at the flat positions ``index``."""
    def put_(self, index: Tensor, source: Tensor, accumulate: _bool = False) -> Tensor:
        """In-place ``put``; returns ``self``."""
    def unfold(self, dimension: _int, size: _int, step: _int) -> Tensor:
        """Every window of ``size`` elements along ``dimension``, ``step`` apart."""
    # -- added at import by ``ferrograd._dropin.install_tensor_methods`` --
    def gradient(self) -> NDArray[Any] | None:
        """Paddle: the gradient as a NumPy array, or None when there is none."""
    def _grad_ivar(self) -> Tensor | None:
        """Paddle's private spelling of ``.grad``."""
    def is_inference(self) -> _bool:
        """PyTorch: allocated inside ``inference_mode()`` (a constant to autograd)."""
    def _is_view(self) -> _bool:
        """PyTorch: whether the tensor is a view of another one (its ``_base``)."""
    @property
    def name(self) -> str:
        """Paddle: the tensor's name (``eager_tmp_<n>`` unless assigned; a str)."""
    @name.setter
    def name(self, value: str) -> None: ...
    @property
    def inplace_version(self) -> _int:
        """Paddle: the number of in-place writes to the tensor's memory (``_version``)."""
    def select(self, dim: _int, index: _int) -> Tensor:
        """PyTorch: the view at ``index`` along ``dim``, without that dimension."""
    # -- added at import by ``ferrograd._signal_stft`` --
    def stft(
        self,
        n_fft: _int,
        hop_length: _int | None = None,
        win_length: _int | None = None,
        window: Tensor | None = None,
        center: _bool = True,
        pad_mode: str = "reflect",
        normalized: _bool = False,
        onesided: _bool | None = None,
        return_complex: _bool | None = None,
        align_to_window: _bool | None = None,
    ) -> Tensor:
        """PyTorch: the short-time Fourier transform (``ferrograd.stft``)."""
    def istft(
        self,
        n_fft: _int,
        hop_length: _int | None = None,
        win_length: _int | None = None,
        window: Tensor | None = None,
        center: _bool = True,
        normalized: _bool = False,
        onesided: _bool | None = None,
        length: _int | None = None,
        return_complex: _bool = False,
    ) -> Tensor:
        """PyTorch: the inverse short-time Fourier transform (``ferrograd.istft``)."""
    # -- scans, sorting, searching (Rust: src/python/tensor/scan.rs) --
    def cumsum(
        self,
        axis: _int | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
    ) -> Tensor:
        """Cumulative sum along ``axis``/``dim`` (None: of the flattened tensor)."""
    def cumprod(
        self,
        dim: _int | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        axis: _int | None = None,
    ) -> Tensor:
        """Cumulative product along ``dim``/``axis`` (None: flattened)."""
    def logcumsumexp(
        self,
        axis: _int | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
    ) -> Tensor:
        """``log(cumsum(exp(x)))`` along ``axis``/``dim`` (None: flattened)."""
    def argsort(
        self,
        axis: _int = ...,
        descending: _bool = False,
        stable: _bool = False,
        name: str | None = None,
        *,
        dim: _int | None = None,
    ) -> Tensor:
        """Positions (int64) that sort the tensor along ``axis``/``dim`` (default: the
        last; stable)."""
    def _cum_extreme(self, dim: _int | None, is_max: _bool) -> tuple[Tensor, Tensor]: ...
    def _sort_topk(
        self, dim: _int, k: _int | None, descending: _bool, op: str
    ) -> tuple[Tensor, Tensor]: ...
    def _select(
        self, dim: _int, pick: str, k: _int = 1, keepdim: _bool = False
    ) -> tuple[Tensor, Tensor]: ...
    def _searchsorted(self, values: Tensor, right: _bool) -> Tensor: ...
    # -- added at import by ``ferrograd._sort_scan.install_tensor_methods`` --
    def cummax(
        self, axis: Any = None, dtype: Any = "int64", name: Any = None, *, dim: Any = None
    ) -> Any:
        """Running maximum: ``(values, indices)``."""
    def cummin(
        self, axis: Any = None, dtype: Any = "int64", name: Any = None, *, dim: Any = None
    ) -> Any:
        """Running minimum: ``(values, indices)``."""
    def sort(
        self,
        dim: Any = -1,
        descending: _bool = False,
        stable: _bool = False,
        name: Any = None,
        *,
        axis: Any = None,
    ) -> Any:
        """PyTorch's ``(values, indices)``; the values alone with Paddle's ``axis=``."""
    def topk(
        self,
        k: Any,
        axis: Any = None,
        largest: _bool = True,
        sorted: _bool = True,
        name: Any = None,
        *,
        dim: Any = None,
    ) -> Any:
        """The ``k`` largest (or smallest) elements and their positions."""
    def kthvalue(
        self, k: Any, axis: Any = None, keepdim: _bool = False, name: Any = None, *, dim: Any = None
    ) -> Any:
        """The ``k``-th smallest element and its position."""
    def median(
        self,
        axis: Any = None,
        keepdim: _bool = False,
        mode: str | None = None,
        name: Any = None,
        *,
        dim: Any = None,
    ) -> Any:
        """Paddle's median (mean of the middle two); PyTorch's with ``dim=``."""
    def nanmedian(
        self,
        axis: Any = None,
        keepdim: _bool = False,
        mode: str | None = None,
        name: Any = None,
        *,
        dim: Any = None,
    ) -> Any:
        """``median`` ignoring NaNs."""
    def mode(
        self, axis: Any = -1, keepdim: _bool = False, name: Any = None, *, dim: Any = None
    ) -> Any:
        """The most frequent value and its last position."""
    def unique(
        self,
        return_index: _bool = False,
        return_inverse: _bool = False,
        return_counts: _bool = False,
        axis: Any = None,
        dtype: Any = "int64",
        name: Any = None,
        *,
        sorted: _bool = True,
        dim: Any = None,
    ) -> Any:
        """The sorted unique elements (and index, inverse, counts as asked)."""
    def unique_consecutive(
        self,
        return_inverse: _bool = False,
        return_counts: _bool = False,
        axis: Any = None,
        dtype: Any = "int64",
        name: Any = None,
        *,
        dim: Any = None,
    ) -> Any:
        """Runs of equal consecutive elements collapsed (inverse, counts as asked)."""
    def histc(self, bins: _int = 100, min: float = 0, max: float = 0) -> Tensor:
        """Histogram counts in the input's float dtype."""
    def histogram(
        self,
        bins: Any = 100,
        min: Any = 0,
        max: Any = 0,
        weight: Any = None,
        density: Any = False,
        name: Any = None,
        *,
        range: Any = None,
    ) -> Any:
        """Paddle's int64 counts, or PyTorch's ``(hist, bin_edges)`` (``_shared_spellings``)."""
    # -- added at import by ``ferrograd._ops_math.install_tensor_methods`` --
    def fmod(
        self,
        y: Tensor | _Number | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> Tensor:
        """C's remainder (sign of ``self``); exact."""
    def hypot(
        self,
        y: Tensor | _Number | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> Tensor:
        """``sqrt(self**2 + y**2)`` without overflow."""
    def logaddexp(
        self,
        y: Tensor | _Number | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> Tensor:
        """``log(exp(self) + exp(y))``, stably."""
    def logaddexp2(
        self,
        y: Tensor | _Number | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> Tensor:
        """``log2(2**self + 2**y)``, stably."""
    def xlogy(
        self,
        y: Tensor | _Number | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> Tensor:
        """``self * log(y)``, 0 where ``self == 0``."""
    def lerp(
        self,
        y: Tensor | _Number | None = None,
        weight: Tensor | _Number | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        end: Tensor | _Number | None = None,
    ) -> Tensor:
        """``self + weight * (y - self)``."""
    def nan_to_num(
        self,
        nan: _float = 0.0,
        posinf: _float | None = None,
        neginf: _float | None = None,
        name: object = None,
        *,
        input: Tensor | None = None,
        out: None = None,
    ) -> Tensor:
        """NaN and infinities replaced by finite values."""
    def isclose(
        self,
        y: Tensor | _Number | None = None,
        rtol: _float = 1e-05,
        atol: _float = 1e-08,
        equal_nan: _bool = False,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> Tensor:
        """Elementwise closeness as a bool tensor."""
    def allclose(
        self,
        y: Tensor | _Number | None = None,
        rtol: _float = 1e-05,
        atol: _float = 1e-08,
        equal_nan: _bool = False,
        name: object = None,
        *,
        input: Tensor | None = None,
        other: Tensor | _Number | None = None,
    ) -> _bool:
        """True when every element pair is close."""
    # -- added at import by ``ferrograd._ops_gamma.install_tensor_methods`` --
    def polygamma(self, n: _int, name: object = None) -> Tensor:
        """``polygamma(n, self)``: the ``n``-th derivative of ``digamma``."""
    def mvlgamma(self, p: _int, name: object = None) -> Tensor:
        """``mvlgamma(self, p)``: the multivariate log-gamma of dimension ``p``."""
    def multigammaln(self, p: _int, name: object = None) -> Tensor:
        """``mvlgamma(self, p)``: the multivariate log-gamma of dimension ``p``."""
    # -- added at import by ``ferrograd.random_gen.install_tensor_methods`` --
    def normal_(
        self,
        mean: _float = 0.0,
        std: _float = 1.0,
        *,
        generator: Generator | None = None,
        name: object = None,
    ) -> Self:
        """Fills with normal samples."""
    def uniform_(
        self,
        *args: _float,
        generator: Generator | None = None,
        seed: _int = 0,
        name: object = None,
        **bounds: _float,
    ) -> Self:
        """Fills with samples uniform in ``[from, to)`` (default [0, 1))."""
    def exponential_(
        self,
        lambd: _float = 1.0,
        *,
        generator: Generator | None = None,
        lam: _float | None = None,
        name: object = None,
    ) -> Self:
        """Fills with exponential samples of rate ``lambd``."""
    def bernoulli_(self, p: _float | Tensor = 0.5, *, generator: Generator | None = None) -> Self:
        """Fills with 0/1 samples, 1 with probability ``p``."""
    def random_(self, *args: _int, generator: Generator | None = None, **kw: _int) -> Self:
        """Fills with integers uniform in ``[from, to)``."""
    def bernoulli(self, p: _float | None = None, *, generator: Generator | None = None) -> Tensor:
        """0/1 samples with the probabilities in ``self``."""
    def multinomial(
        self, num_samples: _int, replacement: _bool = False, *, generator: Generator | None = None
    ) -> Tensor:
        """Category indices drawn with the weights in ``self``."""
    # -- added at import by ``ferrograd._conveniences.install_tensor_methods`` --
    @overload
    def type(self, dtype: None = None, non_blocking: _bool = False, **_: Any) -> str:
        """torch's type name, or a cast to ``dtype``."""
    @overload
    def type(self, dtype: _DTypeLike, non_blocking: _bool = False, **_: Any) -> Tensor: ...
    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        """Always a RuntimeError: ferrograd has no GPU build."""
    def set_value(self, value: Any) -> None:
        """Paddle: overwrites the values in place."""
    # -- added at import by ``ferrograd._tensor_extras`` --
    def greater(x, other: Any, *, out: Any = ...) -> Tensor:
        """``x > other`` elementwise (bool): PyTorch's and Paddle's alias of ``gt``."""
    def less(x, other: Any, *, out: Any = ...) -> Tensor:
        """``x < other`` elementwise (bool): PyTorch's and Paddle's alias of ``lt``."""
    def get_device(self) -> int:
        """-1: the tensor is in CPU memory (both peers' answer for a CPU tensor)."""
    def is_signed(self) -> _bool:
        """Whether the dtype holds negative values (False for bool and uint8)."""
    def is_integer(x) -> _bool:
        """Paddle: whether ``x``'s dtype is an integer one (bool excluded)."""
    def is_pinned(self) -> _bool:
        """False: ferrograd has no pinned (page-locked) memory."""
    def bincount(self, weights: Any = ..., minlength: _int = ...) -> Tensor:
        """``bincount(self, weights, minlength)``: counts of each non-negative integer."""
    def diagflat(self, offset: _int = ...) -> Tensor:
        """``diagflat(self, offset)``: a 2-D tensor with the flattened input on a diagonal."""
    # -- added at import by ``ferrograd._paddle_docex_names`` (Paddle's method names)
    def bitwise_invert(self, out: Any = ..., name: Any = ...) -> Tensor:
        """``bitwise_invert()``: Paddle's alias of ``bitwise_not`` (``~x``)."""
    def bucketize(
        self,
        sorted_sequence: Tensor,
        out_int32: _bool = ...,
        right: _bool = ...,
        name: Any = ...,
    ) -> Tensor:
        """``x.bucketize(sorted_sequence)``: the bucket of each element among the 1-D
        ``sorted_sequence`` (``paddle.bucketize``)."""
    # -- added at import by ``ferrograd._names_s42_tensor`` / ``_names_s42_paddle`` --
    def cfloat(self, memory_format: Any = None) -> Tensor:
        """``x.to(complex64)``."""
    def cdouble(self, memory_format: Any = None) -> Tensor:
        """``x.to(complex128)``."""
    def hardshrink(self, lambd: _float = 0.5) -> Tensor:
        """``F.hardshrink(x, lambd)``."""
    def is_shared(self) -> _bool:
        """False: not in shared memory."""
    def share_memory_(self) -> Tensor:
        """A no-op returning ``x``."""
    def has_names(self) -> _bool:
        """False: no named dimensions."""
    @property
    def names(self) -> tuple[None, ...]:
        """``(None,) * ndim``."""
    @property
    def is_meta(self) -> _bool:
        """Always False."""
    @property
    def is_xla(self) -> _bool:
        """Always False."""
    @property
    def is_xpu(self) -> _bool:
        """Always False."""
    @property
    def is_ipu(self) -> _bool:
        """Always False."""
    @property
    def is_mps(self) -> _bool:
        """Always False."""
    @property
    def is_mtia(self) -> _bool:
        """Always False."""
    @property
    def is_maia(self) -> _bool:
        """Always False."""
    @property
    def is_nested(self) -> _bool:
        """Always False."""
    @property
    def is_mkldnn(self) -> _bool:
        """Always False."""
    @property
    def is_vulkan(self) -> _bool:
        """Always False."""
    @property
    def is_quantized(self) -> _bool:
        """Always False."""
    def floor_mod(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.floor_mod(x, ...)``."""
    def isin(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.isin(x, ...)``."""
    def equal_all(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.equal_all(x, ...)``."""
    def is_empty(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.is_empty(x, ...)``."""
    def is_tensor(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.is_tensor(x, ...)``."""
    def tensordot(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.tensordot(x, ...)``."""
    def index_sample(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.index_sample(x, ...)``."""
    def rank(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.rank(x, ...)``."""
    def as_complex(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.as_complex(x, ...)``."""
    def as_real(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.as_real(x, ...)``."""
    def trapezoid(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.trapezoid(x, ...)``."""
    def cumulative_trapezoid(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.cumulative_trapezoid(x, ...)``."""
    def polar(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.polar(x, ...)``."""
    def vander(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.vander(x, ...)``."""
    def atleast_1d(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.atleast_1d(x, ...)``."""
    def atleast_2d(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.atleast_2d(x, ...)``."""
    def atleast_3d(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.atleast_3d(x, ...)``."""
    def combinations(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.combinations(x, ...)``."""
    def reduce_as(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.reduce_as(x, ...)``."""
    def increment(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.increment(x, ...)``."""
    def cdist(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.cdist(x, ...)``."""
    def histogram_bin_edges(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.histogram_bin_edges(x, ...)``."""
    def histogramdd(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.histogramdd(x, ...)``."""
    def where_(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.where_(x, ...)``."""
    def scatter_nd(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.scatter_nd(x, ...)``."""
    def bitwise_invert_(self, *args: Any, **kwargs: Any) -> Any:
        """``paddle.bitwise_invert_(x, ...)``."""
    # -- added at import by ``ferrograd._dense_tensor`` (Paddle's handle on the storage) --
    def get_tensor(self) -> Any: ...
    # -- added at import by ``ferrograd._tensor_peer_names`` --
    def split_with_sizes(self, split_sizes: Sequence[_int], dim: _int = 0) -> list[Tensor]:
        """Splits along ``dim`` into pieces of the given sizes."""
    def sum_to_size(self, *size: Any) -> Tensor:
        """Sums down to ``size`` (which must broadcast to this shape)."""
    @property
    def retains_grad(self) -> _bool:
        """Whether ``retain_grad()`` was called on this non-leaf tensor."""
    @property
    def H(self) -> Tensor:
        """The conjugate transpose of a matrix."""
    @property
    def mH(self) -> Tensor:
        """The conjugate transpose of the last two dimensions."""
    def adjoint(self) -> Tensor:
        """``self.mH``."""
    def cauchy_(
        self,
        median: _float = 0.0,
        sigma: _float = 1.0,
        *,
        generator: Generator | None = None,
        loc: Any = None,
        scale: Any = None,
        name: Any = None,
    ) -> Self:
        """Fills with Cauchy samples."""
    def log_normal_(
        self,
        mean: _float = 1.0,
        std: _float = 2.0,
        *,
        generator: Generator | None = None,
        name: Any = None,
    ) -> Self:
        """Fills with log-normal samples."""
    def geometric_(
        self,
        p: Any = None,
        *,
        generator: Generator | None = None,
        probs: Any = None,
        name: Any = None,
    ) -> Self:
        """Fills with geometric samples of success probability ``p``."""
    def cast_(x, dtype: Any) -> Tensor:
        """Paddle's in-place ``cast``."""
    def gammaln(self, name: Any = None) -> Tensor:
        """``lgamma(self)`` (Paddle's name)."""
    def gammainc(self, y: Any, name: Any = None) -> Tensor:
        """The regularized lower incomplete gamma function ``P(self, y)``."""
    def gammaincc(self, y: Any, name: Any = None) -> Tensor:
        """The regularized upper incomplete gamma function ``Q(self, y)``."""
    def igamma(self, other: Any) -> Tensor:
        """``igamma(self, other)``."""
    def igammac(self, other: Any) -> Tensor:
        """``igammac(self, other)``."""
    def igamma_(self, y: Any, name: Any = None) -> Self:
        """``igamma`` in place."""
    def igammac_(self, y: Any, name: Any = None) -> Self:
        """``igammac`` in place."""
    def gammaln_(self, name: Any = None) -> Self:
        """``gammaln`` in place."""
    def gammainc_(self, y: Any, name: Any = None) -> Self:
        """``gammainc`` in place."""
    def gammaincc_(self, y: Any, name: Any = None) -> Self:
        """``gammaincc`` in place."""
    def reverse(x, axis: Any, name: Any = None) -> Tensor:
        """Paddle's ``reverse``: ``flip(x, axis)``."""
    def stanh(x, scale_a: _float = 0.67, scale_b: _float = 1.7159, name: Any = None) -> Tensor:
        """Paddle's ``scale_b * tanh(scale_a * x)``."""
    # -- added at import by ``ferrograd._ops_shift`` --
    def __rshift__(self, other: Any) -> Tensor:
        """Arithmetic right shift of an integer tensor."""
    def __lshift__(self, other: Any) -> Tensor:
        """Left shift of an integer tensor."""
    def __rlshift__(self, other: Any) -> Tensor:
        """``other << self``."""
    def __rrshift__(self, other: Any) -> Tensor:
        """``other >> self``."""
    def bitwise_left_shift(
        self, other: Any, is_arithmetic: _bool = True, name: Any = None
    ) -> Tensor:
        """``self << other``."""
    def bitwise_right_shift(
        self, other: Any, is_arithmetic: _bool = True, name: Any = None
    ) -> Tensor:
        """``self >> other``."""
    def bitwise_left_shift_(
        self, other: Any, is_arithmetic: _bool = True, name: Any = None
    ) -> Self:
        """``self << other`` in place."""
    def bitwise_right_shift_(
        self, other: Any, is_arithmetic: _bool = True, name: Any = None
    ) -> Self:
        """``self >> other`` in place."""
    # -- added at import by ``ferrograd._inplace_math`` (in-place elementwise math) --
    def abs_(self) -> Self:
        """``abs`` written into this tensor in place (returns it)."""
    def absolute_(self) -> Self:
        """``absolute`` written into this tensor in place (returns it)."""
    def acos_(self) -> Self:
        """``acos`` written into this tensor in place (returns it)."""
    def acosh_(self) -> Self:
        """``acosh`` written into this tensor in place (returns it)."""
    def addbmm_(self, *args: Any, **kwargs: Any) -> Self:
        """``addbmm`` written into this tensor in place (returns it)."""
    def addmm_(self, *args: Any, **kwargs: Any) -> Self:
        """``addmm`` written into this tensor in place (returns it)."""
    def addmv_(self, *args: Any, **kwargs: Any) -> Self:
        """``addmv`` written into this tensor in place (returns it)."""
    def addr_(self, *args: Any, **kwargs: Any) -> Self:
        """``addr`` written into this tensor in place (returns it)."""
    def arccos_(self) -> Self:
        """``arccos`` written into this tensor in place (returns it)."""
    def arccosh_(self) -> Self:
        """``arccosh`` written into this tensor in place (returns it)."""
    def arcsin_(self) -> Self:
        """``arcsin`` written into this tensor in place (returns it)."""
    def arcsinh_(self) -> Self:
        """``arcsinh`` written into this tensor in place (returns it)."""
    def arctan2_(self, *args: Any, **kwargs: Any) -> Self:
        """``arctan2`` written into this tensor in place (returns it)."""
    def arctan_(self) -> Self:
        """``arctan`` written into this tensor in place (returns it)."""
    def arctanh_(self) -> Self:
        """``arctanh`` written into this tensor in place (returns it)."""
    def asin_(self) -> Self:
        """``asin`` written into this tensor in place (returns it)."""
    def asinh_(self) -> Self:
        """``asinh`` written into this tensor in place (returns it)."""
    def atan2_(self, *args: Any, **kwargs: Any) -> Self:
        """``atan2`` written into this tensor in place (returns it)."""
    def atan_(self) -> Self:
        """``atan`` written into this tensor in place (returns it)."""
    def atanh_(self) -> Self:
        """``atanh`` written into this tensor in place (returns it)."""
    def baddbmm_(self, *args: Any, **kwargs: Any) -> Self:
        """``baddbmm`` written into this tensor in place (returns it)."""
    def bitwise_and_(self, *args: Any, **kwargs: Any) -> Self:
        """``bitwise_and`` written into this tensor in place (returns it)."""
    def bitwise_not_(self) -> Self:
        """``bitwise_not`` written into this tensor in place (returns it)."""
    def bitwise_or_(self, *args: Any, **kwargs: Any) -> Self:
        """``bitwise_or`` written into this tensor in place (returns it)."""
    def bitwise_xor_(self, *args: Any, **kwargs: Any) -> Self:
        """``bitwise_xor`` written into this tensor in place (returns it)."""
    def ceil_(self) -> Self:
        """``ceil`` written into this tensor in place (returns it)."""
    def clamp_max_(self, *args: Any, **kwargs: Any) -> Self:
        """``clamp_max`` written into this tensor in place (returns it)."""
    def clamp_min_(self, *args: Any, **kwargs: Any) -> Self:
        """``clamp_min`` written into this tensor in place (returns it)."""
    def copysign_(self, *args: Any, **kwargs: Any) -> Self:
        """``copysign`` written into this tensor in place (returns it)."""
    def cos_(self) -> Self:
        """``cos`` written into this tensor in place (returns it)."""
    def cosh_(self) -> Self:
        """``cosh`` written into this tensor in place (returns it)."""
    def cumprod_(self, *args: Any, **kwargs: Any) -> Self:
        """``cumprod`` written into this tensor in place (returns it)."""
    def cumsum_(self, *args: Any, **kwargs: Any) -> Self:
        """``cumsum`` written into this tensor in place (returns it)."""
    def deg2rad_(self) -> Self:
        """``deg2rad`` written into this tensor in place (returns it)."""
    def digamma_(self) -> Self:
        """``digamma`` written into this tensor in place (returns it)."""
    def divide_(self, *args: Any, **kwargs: Any) -> Self:
        """``divide`` written into this tensor in place (returns it)."""
    def eq_(self, *args: Any, **kwargs: Any) -> Self:
        """``eq`` written into this tensor in place (returns it)."""
    def equal_(self, *args: Any, **kwargs: Any) -> Self:
        """``eq`` written into this tensor in place (returns it)."""
    def erf_(self) -> Self:
        """``erf`` written into this tensor in place (returns it)."""
    def erfc_(self) -> Self:
        """``erfc`` written into this tensor in place (returns it)."""
    def erfinv_(self) -> Self:
        """``erfinv`` written into this tensor in place (returns it)."""
    def exp2_(self) -> Self:
        """``exp2`` written into this tensor in place (returns it)."""
    def expm1_(self) -> Self:
        """``expm1`` written into this tensor in place (returns it)."""
    def fix_(self) -> Self:
        """``fix`` written into this tensor in place (returns it)."""
    def float_power_(self, *args: Any, **kwargs: Any) -> Self:
        """``float_power`` written into this tensor in place (returns it)."""
    def floor_(self) -> Self:
        """``floor`` written into this tensor in place (returns it)."""
    def floor_divide_(self, *args: Any, **kwargs: Any) -> Self:
        """``floor_divide`` written into this tensor in place (returns it)."""
    def floor_mod_(self, *args: Any, **kwargs: Any) -> Self:
        """``remainder`` written into this tensor in place (returns it)."""
    def fmod_(self, *args: Any, **kwargs: Any) -> Self:
        """``fmod`` written into this tensor in place (returns it)."""
    def frac_(self) -> Self:
        """``frac`` written into this tensor in place (returns it)."""
    def gcd_(self, *args: Any, **kwargs: Any) -> Self:
        """``gcd`` written into this tensor in place (returns it)."""
    def ge_(self, *args: Any, **kwargs: Any) -> Self:
        """``ge`` written into this tensor in place (returns it)."""
    def greater_(self, *args: Any, **kwargs: Any) -> Self:
        """``gt`` written into this tensor in place (returns it)."""
    def greater_equal_(self, *args: Any, **kwargs: Any) -> Self:
        """``ge`` written into this tensor in place (returns it)."""
    def greater_than_(self, *args: Any, **kwargs: Any) -> Self:
        """``gt`` written into this tensor in place (returns it)."""
    def gt_(self, *args: Any, **kwargs: Any) -> Self:
        """``gt`` written into this tensor in place (returns it)."""
    def heaviside_(self, *args: Any, **kwargs: Any) -> Self:
        """``heaviside`` written into this tensor in place (returns it)."""
    def hypot_(self, *args: Any, **kwargs: Any) -> Self:
        """``hypot`` written into this tensor in place (returns it)."""
    def i0_(self) -> Self:
        """``i0`` written into this tensor in place (returns it)."""
    def lcm_(self, *args: Any, **kwargs: Any) -> Self:
        """``lcm`` written into this tensor in place (returns it)."""
    def ldexp_(self, *args: Any, **kwargs: Any) -> Self:
        """``ldexp`` written into this tensor in place (returns it)."""
    def le_(self, *args: Any, **kwargs: Any) -> Self:
        """``le`` written into this tensor in place (returns it)."""
    def lerp_(self, *args: Any, **kwargs: Any) -> Self:
        """``lerp`` written into this tensor in place (returns it)."""
    def less_(self, *args: Any, **kwargs: Any) -> Self:
        """``lt`` written into this tensor in place (returns it)."""
    def less_equal_(self, *args: Any, **kwargs: Any) -> Self:
        """``le`` written into this tensor in place (returns it)."""
    def less_than_(self, *args: Any, **kwargs: Any) -> Self:
        """``lt`` written into this tensor in place (returns it)."""
    def lgamma_(self) -> Self:
        """``lgamma`` written into this tensor in place (returns it)."""
    def log10_(self) -> Self:
        """``log10`` written into this tensor in place (returns it)."""
    def log1p_(self) -> Self:
        """``log1p`` written into this tensor in place (returns it)."""
    def log2_(self) -> Self:
        """``log2`` written into this tensor in place (returns it)."""
    def log_(self) -> Self:
        """``log`` written into this tensor in place (returns it)."""
    def logical_and_(self, *args: Any, **kwargs: Any) -> Self:
        """``logical_and`` written into this tensor in place (returns it)."""
    def logical_not_(self) -> Self:
        """``logical_not`` written into this tensor in place (returns it)."""
    def logical_or_(self, *args: Any, **kwargs: Any) -> Self:
        """``logical_or`` written into this tensor in place (returns it)."""
    def logical_xor_(self, *args: Any, **kwargs: Any) -> Self:
        """``logical_xor`` written into this tensor in place (returns it)."""
    def logit_(self, *args: Any, **kwargs: Any) -> Self:
        """``logit`` written into this tensor in place (returns it)."""
    def lt_(self, *args: Any, **kwargs: Any) -> Self:
        """``lt`` written into this tensor in place (returns it)."""
    def mod_(self, *args: Any, **kwargs: Any) -> Self:
        """``remainder`` written into this tensor in place (returns it)."""
    def multigammaln_(self, *args: Any, **kwargs: Any) -> Self:
        """``mvlgamma`` written into this tensor in place (returns it)."""
    def mvlgamma_(self, *args: Any, **kwargs: Any) -> Self:
        """``mvlgamma`` written into this tensor in place (returns it)."""
    def nan_to_num_(self, *args: Any, **kwargs: Any) -> Self:
        """``nan_to_num`` written into this tensor in place (returns it)."""
    def ne_(self, *args: Any, **kwargs: Any) -> Self:
        """``ne`` written into this tensor in place (returns it)."""
    def neg_(self) -> Self:
        """``neg`` written into this tensor in place (returns it)."""
    def negative_(self) -> Self:
        """``negative`` written into this tensor in place (returns it)."""
    def nextafter_(self, *args: Any, **kwargs: Any) -> Self:
        """``nextafter`` written into this tensor in place (returns it)."""
    def not_equal_(self, *args: Any, **kwargs: Any) -> Self:
        """``ne`` written into this tensor in place (returns it)."""
    def polygamma_(self, *args: Any, **kwargs: Any) -> Self:
        """``polygamma`` written into this tensor in place (returns it)."""
    def pow_(self, *args: Any, **kwargs: Any) -> Self:
        """``pow`` written into this tensor in place (returns it)."""
    def rad2deg_(self) -> Self:
        """``rad2deg`` written into this tensor in place (returns it)."""
    def reciprocal_(self) -> Self:
        """``reciprocal`` written into this tensor in place (returns it)."""
    def relu_(self) -> Self:
        """``relu`` written into this tensor in place (returns it)."""
    def remainder_(self, *args: Any, **kwargs: Any) -> Self:
        """``remainder`` written into this tensor in place (returns it)."""
    def renorm_(self, *args: Any, **kwargs: Any) -> Self:
        """``renorm`` written into this tensor in place (returns it)."""
    def round_(self, *args: Any, **kwargs: Any) -> Self:
        """``round`` written into this tensor in place (returns it)."""
    def rsqrt_(self) -> Self:
        """``rsqrt`` written into this tensor in place (returns it)."""
    def selu_(self) -> Self:
        """``selu`` written into this tensor in place (returns it)."""
    def sgn_(self) -> Self:
        """``sgn`` written into this tensor in place (returns it)."""
    def sigmoid_(self) -> Self:
        """``sigmoid`` written into this tensor in place (returns it)."""
    def sign_(self) -> Self:
        """``sign`` written into this tensor in place (returns it)."""
    def sin_(self) -> Self:
        """``sin`` written into this tensor in place (returns it)."""
    def sinc_(self) -> Self:
        """``sinc`` written into this tensor in place (returns it)."""
    def sinh_(self) -> Self:
        """``sinh`` written into this tensor in place (returns it)."""
    def sqrt_(self) -> Self:
        """``sqrt`` written into this tensor in place (returns it)."""
    def square_(self) -> Self:
        """``square`` written into this tensor in place (returns it)."""
    def subtract_(self, *args: Any, **kwargs: Any) -> Self:
        """``subtract`` written into this tensor in place (returns it)."""
    def tan_(self) -> Self:
        """``tan`` written into this tensor in place (returns it)."""
    def tanh_(self) -> Self:
        """``tanh`` written into this tensor in place (returns it)."""
    def true_divide_(self, *args: Any, **kwargs: Any) -> Self:
        """``true_divide`` written into this tensor in place (returns it)."""
    def trunc_(self) -> Self:
        """``trunc`` written into this tensor in place (returns it)."""
    def xlogy_(self, *args: Any, **kwargs: Any) -> Self:
        """``xlogy`` written into this tensor in place (returns it)."""
    # -- added at import by ``ferrograd._ops_more_math`` / ``_ops_compose_more`` (composed of the ops above) --
    def addbmm(x, batch1: Any, batch2: Any, *, beta: Any = ..., alpha: Any = ...) -> Tensor:
        """``beta * x + alpha * sum_b(batch1[b] @ batch2[b])``."""
    def addcdiv(x, tensor1: Any, tensor2: Any, *, value: Any = ...) -> Tensor:
        """``x + value * tensor1 / tensor2`` (broadcasting); integer division is refused, as in ..."""
    def addcdiv_(self, t1: Any, t2: Any, *, value: Any = ...) -> Self:
        """In-place ``addcdiv``."""
    def addcmul(x, tensor1: Any, tensor2: Any, *, value: Any = ...) -> Tensor:
        """``x + value * tensor1 * tensor2`` (broadcasting)."""
    def addcmul_(self, t1: Any, t2: Any, *, value: Any = ...) -> Self:
        """In-place ``addcmul``."""
    def addr(x, vec1: Any, vec2: Any, *, beta: Any = ..., alpha: Any = ...) -> Tensor:
        """``beta * x + alpha * outer(vec1, vec2)``."""
    def aminmax(x, *, dim: Any = ..., keepdim: Any = ...) -> tuple[Tensor, Tensor]:
        """``(min, max)`` over ``dim`` (all elements by default) as a named tuple."""
    def argwhere(x) -> Tensor:
        """Indices of the non-zero elements, one row per element (``[N, x.ndim]``)."""
    def diagonal_scatter(
        x, src: Any, offset: Any = ..., dim1: Any = ..., dim2: Any = ...
    ) -> Tensor:
        """A copy of ``x`` with its diagonal ``offset`` (of the ``dim1``, ``dim2`` planes) ..."""
    def diff(
        x,
        n: Any = ...,
        dim: Any = ...,
        prepend: Any = ...,
        append: Any = ...,
        *,
        axis: Any = ...,
        name: Any = ...,
    ) -> Tensor:
        """The ``n``-th forward difference along ``dim`` (``out[i] = x[i+1] - x[i]``), after ..."""
    def dsplit(
        x, indices_or_sections: Any = ..., *, num_or_indices: Any = ..., name: Any = ...
    ) -> tuple[Tensor, ...]:
        """``tensor_split`` along dimension 2 of a tensor with at least 3 dimensions (Paddle's
        keyword: ``num_or_indices``)."""
    def fill_diagonal_(self, fill_value: Any, wrap: Any = ...) -> Tensor:
        """Writes ``fill_value`` on the main diagonal in place (all dimensions equal, or a tall ..."""
    def fliplr(x) -> Tensor:
        """``x`` reversed along dimension 1."""
    def flipud(x) -> Tensor:
        """``x`` reversed along dimension 0."""
    def float_power(x, exponent: Any) -> Tensor:
        """``x ** exponent`` computed in double precision (complex128 for complex input)."""
    def fmax(x, other: Any) -> Tensor:
        """Elementwise maximum that ignores NaN (NaN only where both are NaN)."""
    def fmin(x, other: Any) -> Tensor:
        """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    def gcd(x, other: Any) -> Tensor:
        """Elementwise greatest common divisor of integer tensors (not differentiable)."""
    def heaviside(x, values: Any) -> Tensor:
        """The step function: 0 where ``x < 0``, 1 where ``x > 0``, ``values`` where ``x == 0``."""
    def hsplit(
        x, indices_or_sections: Any = ..., *, num_or_indices: Any = ..., name: Any = ...
    ) -> tuple[Tensor, ...]:
        """``tensor_split`` along dimension 1 (0 for a 1-d tensor); an int must divide evenly
        (Paddle's keyword: ``num_or_indices``)."""
    def index_copy(x, dim: Any, index: Any, source: Any) -> Tensor:
        """A copy of ``x`` with the slices ``index`` along ``dim`` replaced by ``source``'s."""
    def index_copy_(self, dim: Any, index: Any, source: Any) -> Self:
        """In-place ``index_copy``."""
    def isreal(x) -> Tensor:
        """True where an element has no imaginary part (every element of a real tensor)."""
    def lcm(x, other: Any) -> Tensor:
        """Elementwise least common multiple of integer tensors (not differentiable)."""
    def ldexp(x, other: Any) -> Tensor:
        """``x * 2 ** other``."""
    def logit(x, eps: Any = ..., name: Any = ...) -> Tensor:
        """``log(x / (1 - x))``, with ``x`` first clamped to ``[eps, 1 - eps]`` when ``eps`` is ..."""
    def msort(x) -> Tensor:
        """``x`` sorted along its first dimension (values only)."""
    def nanquantile(
        x,
        q: Any,
        dim: Any = ...,
        keepdim: Any = ...,
        *,
        interpolation: Any = ...,
        axis: Any = ...,
        name: Any = ...,
    ) -> Tensor:
        """``quantile`` ignoring NaN values (an all-NaN slice gives NaN)."""
    def narrow_copy(x, dim: Any, start: Any, length: Any) -> Tensor:
        """``narrow`` as a new tensor (not a view)."""
    def ndimension(self) -> _int:
        """Number of dimensions (``dim``)."""
    def nelement(self) -> _int:
        """Number of elements (``numel``)."""
    def new_empty(self, *size: Any, dtype: Any = ..., **_: Any) -> Tensor:
        """A new tensor of ``size`` with this tensor's dtype (zeros)."""
    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = ..., **_: Any) -> Tensor:
        """A new tensor of ``size`` filled with ``fill_value``."""
    def new_tensor(
        self, data: Any, *, dtype: Any = ..., requires_grad: Any = ..., **_: Any
    ) -> Tensor:
        """A new tensor from ``data`` (this tensor's dtype by default)."""
    def positive(x) -> Tensor:
        """``x`` itself (``+x``); refused for bool tensors, as in PyTorch."""
    def quantile(
        x,
        q: Any,
        dim: Any = ...,
        keepdim: Any = ...,
        *,
        interpolation: Any = ...,
        axis: Any = ...,
        name: Any = ...,
    ) -> Tensor:
        """The ``q``-th quantiles of ``x`` over ``dim`` (all elements by default); ``q`` a number ..."""
    def renorm(x, p: Any, dim: Any, maxnorm: Any) -> Tensor:
        """Each slice along ``dim`` rescaled so its ``p``-norm is at most ``maxnorm``."""
    def frexp(x, name: str | None = None) -> tuple[Tensor, Tensor]:
        """The decomposition ``x = mantissa * 2 ** exponent`` (``0.5 <= |mantissa| < 1``)."""
    def view_as_real(x, name: str | None = None) -> Tensor:
        """A complex tensor as real numbers with a trailing axis of 2 (a new tensor)."""
    def view_as_complex(x, name: str | None = None) -> Tensor:
        """A real tensor with a trailing axis of 2 as complex numbers (a new tensor)."""
    def reshape_as(self, other: Any) -> Tensor:
        """Reshaped to ``other``'s shape."""
    def resolve_conj(x) -> Tensor:
        """``x`` itself: ferrograd's ``conj()`` already materialises, so nothing is pending."""
    def resolve_neg(x) -> Tensor:
        """``x`` itself (no lazy negation in ferrograd)."""
    def select_scatter(x, src: Any, dim: Any, index: Any) -> Tensor:
        """A copy of ``x`` with ``x.select(dim, index)`` replaced by ``src``."""
    def sinc(x) -> Tensor:
        """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (differentiable, also at 0)."""
    def slice_scatter(
        x, src: Any, dim: Any = ..., start: Any = ..., end: Any = ..., step: Any = ...
    ) -> Tensor:
        """A copy of ``x`` with ``x[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    def take_along_dim(x, indices: Any, dim: Any = ...) -> Tensor:
        """Values of ``x`` at ``indices`` along ``dim`` (both broadcast against each other in the ..."""
    def tensor_split(
        x,
        indices_or_sections: Any = ...,
        dim: Any = ...,
        *,
        axis: Any = ...,
        num_or_indices: Any = ...,
        name: Any = ...,
    ) -> tuple[Tensor, ...]:
        """Views of ``x`` split along ``dim``: into ``n`` nearly equal parts (an int: the first ..."""
    def vdot(x, y: Any) -> Tensor:
        """Dot product of two 1-d tensors, conjugating the first when complex."""
    def nextafter(x, y: Any, name: Any = None) -> Tensor:
        """The next floating-point value after each element toward ``y`` (not
        differentiable: backward raises ``NotImplementedError``)."""
    def vsplit(
        x, indices_or_sections: Any = ..., *, num_or_indices: Any = ..., name: Any = ...
    ) -> tuple[Tensor, ...]:
        """``tensor_split`` along dimension 0 of a tensor with at least 2 dimensions (Paddle's
        keyword: ``num_or_indices``)."""
    def where(self, condition: Any, other: Any = None, y: Any = None) -> Tensor:
        """``where(condition, self, other)`` (``y``: a second name of ``other``)."""
    @property
    def is_cuda(self) -> _bool:
        """False: ferrograd tensors live on the CPU."""
    @property
    def is_cpu(self) -> _bool:
        """True: ferrograd tensors live on the CPU."""
    @property
    def data(self) -> Tensor:
        """The values outside autograd, sharing this tensor's memory."""
    @data.setter
    def data(self, value: Tensor) -> None: ...
    def view_as(self, other: Tensor) -> Tensor:
        """``self.view(other.shape)``."""
    def _repoint_data(
        self, value: Tensor, keep_version: _bool = False, new_accumulator: _bool = False
    ) -> None:
        """``x.data = value``: this object shows ``value``'s memory from now on, with its
        own version counter (``keep_version``, PyTorch) or ``value``'s (Paddle), and its
        gradient accumulator kept when shape and dtype stay (a new one with
        ``new_accumulator``, ``x.set_(value)``)."""
    def _become_view(self, view: Tensor, op: str) -> None:
        """Finishes in-place view op ``op``: this object becomes ``view``."""
    def transpose_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``transpose``: this tensor takes the new shape; returns it."""
    def t_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``t``: this tensor takes the new shape; returns it."""
    def swapaxes_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``swapaxes``: this tensor takes the new shape; returns it."""
    def swapdims_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``swapdims``: this tensor takes the new shape; returns it."""
    def as_strided_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``as_strided``: this tensor becomes that view of its memory; returns it."""
    # -- added at import by ``ferrograd._torch_more_creation`` / ``_torch_more_grad`` --
    def new_empty_strided(
        self,
        size: Any,
        stride: Any,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: _bool = False,
        **options: Any,
    ) -> Tensor:
        """A new tensor of shape ``size`` with strides ``stride`` (this tensor's dtype)."""
    def nonzero_static(self, *, size: _int, fill_value: _int = -1) -> Tensor:
        """``nonzero()`` cut or padded with ``fill_value`` rows to ``size`` rows."""
    def is_conj(input) -> _bool:
        """False: ferrograd has no lazy conjugate bit."""
    def is_neg(input) -> _bool:
        """False: ferrograd has no lazy negative bit."""
    def as_strided_scatter(
        self, src: Tensor, size: Any, stride: Any, storage_offset: _int | None = None
    ) -> Tensor:
        """A copy with ``self.as_strided(size, stride, storage_offset)`` replaced by ``src``."""
    # -- added at import by ``ferrograd._ops_strided.install`` (Rust core: strided.rs) --
    def as_strided(
        self,
        size: Any = None,
        stride: Any = None,
        *args: Any,
        storage_offset: Any = None,
        name: str | None = None,
        shape: Any = None,
        offset: Any = None,
    ) -> Tensor:
        """The view of this tensor's memory with sizes ``size`` and strides ``stride``."""
    def _as_strided(
        self, size: Sequence[_int], stride: Sequence[_int], offset: _int | None = None
    ) -> Tensor:
        """The core of ``as_strided``: sizes, strides and offset in elements."""
    def storage_offset(self) -> _int:
        """Where the first element sits in the memory, in elements from its start."""
    def _storage_key(self) -> tuple[_int, _int]:
        """``(identity, length in elements)`` of this tensor's memory."""
    def _storage_tensor(self, size: Sequence[_int], stride: Sequence[_int], offset: _int) -> Tensor:
        """A detached tensor over this tensor's memory with any checked layout."""
    def squeeze_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``squeeze``: this tensor takes the new shape; returns it."""
    def unsqueeze_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``unsqueeze``: this tensor takes the new shape; returns it."""
    def reshape_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``reshape`` (Paddle): this tensor takes the new shape; returns it."""
    def flatten_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``flatten`` (Paddle): this tensor takes the new shape; returns it."""
    def resize_(self, *sizes: Any, memory_format: Any = None, fill_zero: _bool = False) -> Tensor:
        """This tensor takes the shape ``sizes``; elements kept in row-major order, new ones zero."""
    def resize_as_(self, other: Tensor, memory_format: Any = None) -> Tensor:
        """``self.resize_(other.shape)``."""
    def set_(self, source: Tensor | None = None, *args: Any, **kwargs: Any) -> Tensor:
        """``x.set_(source)`` (PyTorch): ``x`` shares ``source``'s memory, shape and
        strides; ``x.set_()`` makes it empty. Returns ``x``."""
    def new(self, *args: Any) -> Tensor:
        """``Tensor(*args)`` with this tensor's dtype."""

    # -- conversions --
    def numpy(self, *args: Any, force: _bool = False) -> NDArray[Any]:
        """The values as a NumPy array: a copy (Paddle's rule); in PyTorch code an array
        sharing the tensor's memory, read-only while autograd needs the values."""
    def __array__(self, dtype: DTypeLike | None = None, copy: _bool | None = None) -> NDArray[Any]:
        """NumPy array protocol: a copy (``np.asarray`` prefers the buffer protocol, which
        shares memory; this is its fallback for bfloat16)."""
    def __buffer__(self, flags: _int, /) -> memoryview:
        """Buffer protocol: a strided view of the tensor's memory (no copy)."""
    def __release_buffer__(self, buffer: memoryview, /) -> None:
        """Releases a buffer obtained through ``__buffer__``."""
    def __dlpack__(
        self,
        *,
        stream: _int | None = None,
        max_version: tuple[_int, _int] | None = None,
        dl_device: tuple[_int, _int] | None = None,
        copy: _bool | None = None,
    ) -> Any:
        """A DLPack capsule sharing this tensor's memory (versioned when ``max_version``
        is at least ``(1, 0)``); tensors that require grad must be detached first."""
    def __dlpack_device__(self) -> tuple[_int, _int]:
        """``(1, 0)``: DLPack's CPU device."""
    def tolist(self) -> Any:
        """Nested Python lists (a Python scalar for 0-d tensors)."""
    def item(self) -> _Number:
        """The single element as a Python scalar (a ``complex`` for complex dtypes)."""
    def __float__(self) -> _float: ...
    def __int__(self) -> _int: ...
    def __index__(self) -> _int: ...
    def __bool__(self) -> _bool: ...
    def __complex__(self) -> _complex: ...
    def __hash__(self) -> _int: ...

    # -- indexing --
    def __getitem__(self, key: _Key, /) -> Tensor: ...
    def __setitem__(self, key: _Key, value: _Operand, /) -> None: ...
    def __iter__(self) -> Iterator[Tensor]:
        """Iterates over dim 0, yielding ``self[0]``, ``self[1]``, ...; TypeError for 0-d."""
    @overload
    def index_select(
        self,
        index: _IndexLike,
        axis: _int | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
    ) -> Tensor:
        """Slices along ``axis`` picked by a 1-D integer index (either dialect's order)."""
    @overload
    def index_select(self, dim: _int, index: _IndexLike, /) -> Tensor: ...
    @overload
    def gather(self, dim: _int, index: _IndexLike, /, *, sparse_grad: _bool = False) -> Tensor:
        """torch ``gather(dim, index, *, sparse_grad=False)``, or Paddle ``gather(index,
        axis=None)``; ``sparse_grad=True`` gives the input a sparse COO gradient."""
    @overload
    def gather(self, *, dim: _int, index: _IndexLike, sparse_grad: _bool = False) -> Tensor: ...
    @overload
    def gather(self, index: _IndexLike, axis: _int | None = None, /) -> Tensor: ...
    @overload
    def gather(self, index: _IndexLike, /, *, axis: _int | None = None) -> Tensor: ...
    @overload
    def gather(self, *, index: _IndexLike, axis: _int | None = None) -> Tensor: ...
    def take_along_axis(self, indices: _IndexLike, axis: _int, broadcast: _bool = True) -> Tensor:
        """Elementwise gather along ``axis`` (Paddle ``take_along_axis``, torch ``gather``)."""
    @overload
    def nonzero(self, as_tuple: Literal[False] = False) -> Tensor:
        """Indices of non-zero elements: ``[n, ndim]`` int64, or a tuple of 1-D tensors."""
    @overload
    def nonzero(self, as_tuple: Literal[True]) -> tuple[Tensor, ...]: ...
    @overload
    def nonzero(self, as_tuple: _bool) -> Tensor | tuple[Tensor, ...]: ...
    def masked_select(self, mask: _IndexLike) -> Tensor:
        """1-D tensor of the elements where ``mask`` is true."""
    def split(
        self,
        split_size_or_sections: _int | Sequence[_int] | None = None,
        *axis_or_dim: _int,
        dim: _int | None = None,
        num_or_sections: _int | Sequence[_int] | None = None,
        axis: _int | None = None,
    ) -> list[Tensor]:
        """torch ``split(size or sizes, dim)``, or Paddle ``num_or_sections=``/``axis=``."""
    def chunk(
        self, chunks: _int, axis: _int = 0, name: str | None = None, *, dim: _int | None = None
    ) -> list[Tensor]:
        """``chunks`` nearly equal pieces along ``axis``."""
    def unbind(self, axis: _int = 0, *, dim: _int | None = None) -> list[Tensor]:
        """The slices along ``axis``, as a list."""

    # -- shape --
    # BEGIN generated: shape Tensor methods (scripts/gen_op_bindings.py from src/op_defs/shape.rs)
    def squeeze(self, axis: _Axis = None, name: str | None = None, *, dim: _Axis = None) -> Tensor:
        """Removes size-1 dims: all of them, or those in ``axis``/``dim`` (a listed dim that is not 1 is left alone)."""
    def unsqueeze(
        self, axis: _Axis = None, name: str | None = None, *, dim: _Axis = None
    ) -> Tensor:
        """Inserts size-1 dims at ``axis``/``dim`` (an int or a list; positions in the result)."""
    def flatten(
        self,
        start_axis: _int = 0,
        stop_axis: _int = -1,
        name: str | None = None,
        *,
        start_dim: _int | None = None,
        end_dim: _int | None = None,
    ) -> Tensor:
        """Flattens dims ``start_axis..=stop_axis`` (torch ``start_dim..=end_dim``) into one."""
    @overload
    def reshape(
        self,
        *sizes: SupportsIndex,
        shape: _ShapeLike | SupportsIndex | None = None,
        name: str | None = None,
    ) -> Tensor:
        """Same elements in a new shape (one dim may be -1): ``reshape(2, 3)``, ``reshape([2, 3])`` or ``reshape(shape=[2, 3])``."""
    @overload
    def reshape(
        self,
        sizes: _ShapeLike,
        /,
        *,
        shape: _ShapeLike | SupportsIndex | None = None,
        name: str | None = None,
    ) -> Tensor: ...
    @overload
    def permute(self, *args: SupportsIndex, dims: _ShapeLike | None = None) -> Tensor:
        """Reorders dims (``permute(1, 0)``, ``permute([1, 0])`` or torch's ``permute(dims=[1, 0])``)."""
    @overload
    def permute(self, args: _ShapeLike, /, *, dims: _ShapeLike | None = None) -> Tensor: ...
    @overload
    def transpose(
        self,
        *args: SupportsIndex,
        perm: _ShapeLike | None = None,
        dim0: _int | None = None,
        dim1: _int | None = None,
        name: str | None = None,
    ) -> Tensor:
        """``transpose(perm)`` (Paddle: a full permutation, also ``perm=``) or ``transpose(d0, d1)`` (torch, also ``dim0=``, ``dim1=``)."""
    @overload
    def transpose(
        self,
        args: _ShapeLike,
        /,
        *,
        perm: _ShapeLike | None = None,
        dim0: _int | None = None,
        dim1: _int | None = None,
        name: str | None = None,
    ) -> Tensor: ...
    @overload
    def expand(
        self,
        *sizes: SupportsIndex,
        shape: _ShapeLike | SupportsIndex | None = None,
        size: _ShapeLike | SupportsIndex | None = None,
        name: str | None = None,
    ) -> Tensor:
        """Broadcast view to a shape (``expand(2, -1, 3)``, ``expand([2, -1, 3])``, Paddle's ``shape=``); -1 keeps a dimension."""
    @overload
    def expand(
        self,
        sizes: _ShapeLike,
        /,
        *,
        shape: _ShapeLike | SupportsIndex | None = None,
        size: _ShapeLike | SupportsIndex | None = None,
        name: str | None = None,
    ) -> Tensor: ...
    def broadcast_to(
        self,
        shape: _ShapeLike | SupportsIndex | None = None,
        name: str | None = None,
        *,
        size: _ShapeLike | SupportsIndex | None = None,
    ) -> Tensor:
        """Broadcast view to ``shape`` (torch: ``size``); -1 keeps a dimension."""
    def expand_as(
        self, other: Tensor | None = None, name: str | None = None, *, y: Tensor | None = None
    ) -> Tensor:
        """Broadcast view to the shape of ``other`` (Paddle: ``y``)."""
    # END generated: shape Tensor methods
    @overload
    def view(self, *shape: SupportsIndex) -> Tensor:
        """Same as ``reshape``; ``view(dtype)`` converts to ``dtype``."""
    @overload
    def view(self, shape: _ShapeLike, /) -> Tensor: ...
    @overload
    def view(self, dtype: _DTypeLike, /) -> Tensor: ...
    def t(self) -> Tensor:
        """Transpose of a matrix (0-d and 1-d unchanged)."""
    def clone(self, *, memory_format: Any = None) -> Tensor:
        """A copy with its own memory; differentiable (keeps a dense tensor's strides unless
        ``memory_format`` says otherwise; installed by ``_memory_format_api``)."""
    def contiguous(self, *, memory_format: Any = None) -> Tensor:
        """Itself if contiguous (in ``memory_format``), else a contiguous copy (installed by
        ``_memory_format_api``)."""

    # -- dtype conversion --
    def astype(self, dtype: _DTypeLike) -> Tensor:
        """Converts to ``dtype``."""
    def cast(self, dtype: _DTypeLike) -> Tensor:
        """Same as ``astype``."""
    def to(
        self,
        *args: _DTypeLike | Tensor | _bool,
        dtype: _DTypeLike | None = None,
        device: object = None,
        non_blocking: _bool = False,
        copy: _bool = False,
    ) -> Tensor:
        """``to(dtype)`` / ``to(other)`` / ``to("cpu", dtype)``; ``copy=True`` copies."""
    def float(self) -> Tensor:
        """Converts to float32."""
    def double(self) -> Tensor:
        """Converts to float64."""
    def half(self) -> Tensor:
        """Converts to float16."""
    def bfloat16(self) -> Tensor:
        """Converts to bfloat16."""
    def int(self) -> Tensor:
        """Converts to int32."""
    def long(self) -> Tensor:
        """Converts to int64."""
    def byte(self) -> Tensor:
        """Converts to uint8 (values outside 0..=255 wrap, as in PyTorch)."""
    def char(self) -> Tensor:
        """Converts to int8 (values outside -128..=127 wrap, as in PyTorch)."""
    def short(self) -> Tensor:
        """Converts to int16 (values outside -32768..=32767 wrap, as in PyTorch)."""
    def bool(self) -> Tensor:
        """Converts to bool."""
    def is_floating_point(self) -> _bool:
        """True for floating dtypes."""
    def is_complex(self) -> _bool:
        """True for complex dtypes."""

    # -- complex parts (gradients follow PyTorch's conjugate Wirtinger convention) --
    def conj(self) -> Tensor:
        """Complex conjugate (the tensor itself for real dtypes)."""
    def conj_physical(self) -> Tensor:
        """Complex conjugate, always materialised."""
    @property
    def real(self) -> Tensor:
        """Real part."""
    @property
    def imag(self) -> Tensor:
        """Imaginary part (zeros for real dtypes)."""
    def _view_as_real(self) -> Tensor:
        """``view_as_real``'s view (no argument checks)."""
    def _view_as_complex(self) -> Tensor:
        """``view_as_complex``'s view."""
    def angle(self) -> Tensor:
        """Phase angle in radians."""

    # -- operators --
    def __add__(self, other: _Operand, /) -> Tensor: ...
    def __radd__(self, other: _Operand, /) -> Tensor: ...
    def __sub__(self, other: _Operand, /) -> Tensor: ...
    def __rsub__(self, other: _Operand, /) -> Tensor: ...
    def __mul__(self, other: _Operand, /) -> Tensor: ...
    def __rmul__(self, other: _Operand, /) -> Tensor: ...
    def __truediv__(self, other: _Operand, /) -> Tensor: ...
    def __rtruediv__(self, other: _Operand, /) -> Tensor: ...
    def __floordiv__(self, other: _Operand, /) -> Tensor: ...
    def __rfloordiv__(self, other: _Operand, /) -> Tensor: ...
    def __mod__(self, other: _Operand, /) -> Tensor: ...
    def __rmod__(self, other: _Operand, /) -> Tensor: ...
    def __pow__(self, other: _Operand, modulo: None = None, /) -> Tensor: ...
    def __rpow__(self, other: _Operand, modulo: None = None, /) -> Tensor: ...
    def __matmul__(self, other: _Operand, /) -> Tensor: ...
    def __rmatmul__(self, other: _Operand, /) -> Tensor: ...
    def __and__(self, other: _Operand, /) -> Tensor: ...
    def __rand__(self, other: _Operand, /) -> Tensor: ...
    def __or__(self, other: _Operand, /) -> Tensor: ...
    def __ror__(self, other: _Operand, /) -> Tensor: ...
    def __xor__(self, other: _Operand, /) -> Tensor: ...
    def __rxor__(self, other: _Operand, /) -> Tensor: ...
    def __iadd__(self, other: _Operand, /) -> Self: ...
    def __isub__(self, other: _Operand, /) -> Self: ...
    def __imul__(self, other: _Operand, /) -> Self: ...
    def __itruediv__(self, other: _Operand, /) -> Self: ...
    def __neg__(self) -> Tensor: ...
    def __pos__(self) -> Self: ...
    def __abs__(self) -> Tensor: ...
    def __invert__(self) -> Tensor:
        """Bitwise not of integers, logical not of bools (``bitwise_not``)."""
    def __eq__(self, other: object, /) -> Tensor:  # type: ignore[override]
        """Elementwise ``==`` (a bool tensor); ``t == None`` is ``False``."""
    def __ne__(self, other: object, /) -> Tensor:  # type: ignore[override]
        """Elementwise ``!=`` (a bool tensor); ``t != None`` is ``True``."""
    def __lt__(self, other: _Operand, /) -> Tensor: ...
    def __le__(self, other: _Operand, /) -> Tensor: ...
    def __gt__(self, other: _Operand, /) -> Tensor: ...
    def __ge__(self, other: _Operand, /) -> Tensor: ...

    # -- binary ops (method and module-function forms) --
    # BEGIN generated: binary Tensor methods (scripts/gen_op_bindings.py from src/op_defs/binary.rs)
    def add(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        y: _Operand | None = None,
        alpha: _Scalar | None = None,
    ) -> Tensor:
        """Elementwise ``self + other`` (broadcasting; Paddle's ``y=`` also accepted)."""
    def subtract(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        y: _Operand | None = None,
        alpha: _Scalar | None = None,
    ) -> Tensor:
        """Elementwise ``self - other`` (broadcasting; Paddle's ``y=`` also accepted)."""
    def sub(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        y: _Operand | None = None,
        alpha: _Scalar | None = None,
    ) -> Tensor:
        """Elementwise ``self - other`` (broadcasting; Paddle's ``y=`` also accepted)."""
    def multiply(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self * other`` (broadcasting; Paddle's ``y=`` also accepted)."""
    def mul(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self * other`` (broadcasting; Paddle's ``y=`` also accepted)."""
    def divide(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        y: _Operand | None = None,
        rounding_mode: str | None = None,
    ) -> Tensor:
        """Elementwise true division ``self / other`` (Paddle's ``y=`` also accepted)."""
    def div(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        y: _Operand | None = None,
        rounding_mode: str | None = None,
    ) -> Tensor:
        """Elementwise true division ``self / other`` (Paddle's ``y=`` also accepted)."""
    def true_divide(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        y: _Operand | None = None,
        rounding_mode: str | None = None,
    ) -> Tensor:
        """Elementwise true division ``self / other`` (Paddle's ``y=`` also accepted)."""
    def floor_divide(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self // other`` (rounding toward minus infinity)."""
    def remainder(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self % other``, with the sign of the divisor (Python's ``%``)."""
    def mod(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self % other``, with the sign of the divisor (Python's ``%``)."""
    def pow(
        self,
        other: _Operand | None = None,
        name: str | None = None,
        *,
        exponent: _Operand | None = None,
        y: _Operand | None = None,
    ) -> Tensor:
        """Elementwise ``self ** other`` (torch's ``exponent=`` and Paddle's ``y=`` also accepted)."""
    def maximum(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise maximum of ``self`` and ``other`` (NaN propagates)."""
    def minimum(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise minimum of ``self`` and ``other`` (NaN propagates)."""
    def equal(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Any:
        """Elementwise ``self == other``, as a bool tensor."""
    def eq(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self == other``, as a bool tensor."""
    def not_equal(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self != other``, as a bool tensor."""
    def ne(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self != other``, as a bool tensor."""
    def less_than(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self < other``, as a bool tensor."""
    def lt(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self < other``, as a bool tensor."""
    def less_equal(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self <= other``, as a bool tensor."""
    def le(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self <= other``, as a bool tensor."""
    def greater_than(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self > other``, as a bool tensor."""
    def gt(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self > other``, as a bool tensor."""
    def greater_equal(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self >= other``, as a bool tensor."""
    def ge(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``self >= other``, as a bool tensor."""
    def logical_and(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise logical AND of the truth values, as a bool tensor."""
    def logical_or(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise logical OR of the truth values, as a bool tensor."""
    def logical_xor(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise logical XOR of the truth values, as a bool tensor."""
    def bitwise_and(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise bitwise AND of integer or bool tensors (``&``)."""
    def bitwise_or(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise bitwise OR of integer or bool tensors (``|``)."""
    def bitwise_xor(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise bitwise XOR of integer or bool tensors (``^``)."""
    def copysign(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise ``|self|`` with the sign of ``other`` (IEEE ``copysign``; ``-0.0`` counts as negative)."""
    def atan2(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise angle of the point ``(other, self)``: ``atan(self / other)`` in the right quadrant, in ``[-pi, pi]``."""
    def arctan2(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Elementwise angle of the point ``(other, self)``: ``atan(self / other)`` in the right quadrant, in ``[-pi, pi]``."""
    def zeta(
        self, other: _Operand | None = None, name: str | None = None, *, q: _Operand | None = None
    ) -> Tensor:
        """Elementwise Hurwitz zeta function ``sum_k (other + k) ** -self`` (NaN for ``self < 1``; differentiable in ``other`` only)."""
    def chebyshev_polynomial_t(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise Chebyshev polynomial of the first kind ``T_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def chebyshev_polynomial_u(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise Chebyshev polynomial of the second kind ``U_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def chebyshev_polynomial_v(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise Chebyshev polynomial of the third kind ``V_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def chebyshev_polynomial_w(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise Chebyshev polynomial of the fourth kind ``W_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def shifted_chebyshev_polynomial_t(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise shifted Chebyshev polynomial of the first kind ``T_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def shifted_chebyshev_polynomial_u(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise shifted Chebyshev polynomial of the second kind ``U_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def shifted_chebyshev_polynomial_v(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise shifted Chebyshev polynomial of the third kind ``V_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def shifted_chebyshev_polynomial_w(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise shifted Chebyshev polynomial of the fourth kind ``W_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def hermite_polynomial_h(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise physicists' Hermite polynomial ``H_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def hermite_polynomial_he(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise probabilists' Hermite polynomial ``He_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def laguerre_polynomial_l(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise Laguerre polynomial ``L_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    def legendre_polynomial_p(
        self, other: _Operand | None = None, name: str | None = None, *, n: _Operand | None = None
    ) -> Tensor:
        """Elementwise Legendre polynomial ``P_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
    # END generated: binary Tensor methods
    # -- unary ops --
    # BEGIN generated: unary Tensor methods (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
    def neg(self, name: str | None = None) -> Tensor:
        """Elementwise negation ``-self``."""
    def negative(self, name: str | None = None) -> Tensor:
        """Elementwise negation ``-self``."""
    def abs(self, name: str | None = None) -> Tensor:
        """Elementwise absolute value (the modulus for complex tensors)."""
    def absolute(self, name: str | None = None) -> Tensor:
        """Elementwise absolute value (the modulus for complex tensors)."""
    def sign(self, name: str | None = None) -> Tensor:
        """Elementwise sign: -1, 0 or 1."""
    def sgn(self, name: str | None = None) -> Tensor:
        """Elementwise sign: -1, 0 or 1."""
    def exp(self, name: str | None = None) -> Tensor:
        """Elementwise ``e ** self``."""
    def log(self, name: str | None = None) -> Tensor:
        """Elementwise natural logarithm."""
    def log1p(self, name: str | None = None) -> Tensor:
        """Elementwise ``log(1 + self)``, accurate near zero."""
    def expm1(self, name: str | None = None) -> Tensor:
        """Elementwise ``exp(self) - 1``, accurate near zero."""
    def sqrt(self, name: str | None = None) -> Tensor:
        """Elementwise square root."""
    def rsqrt(self, name: str | None = None) -> Tensor:
        """Elementwise reciprocal square root ``1 / sqrt(self)``."""
    def square(self, name: str | None = None) -> Tensor:
        """Elementwise ``self * self``."""
    def reciprocal(self, name: str | None = None) -> Tensor:
        """Elementwise ``1 / self``."""
    def sin(self, name: str | None = None) -> Tensor:
        """Elementwise sine."""
    def cos(self, name: str | None = None) -> Tensor:
        """Elementwise cosine."""
    def tan(self, name: str | None = None) -> Tensor:
        """Elementwise tangent."""
    def tanh(self, name: str | None = None) -> Tensor:
        """Elementwise hyperbolic tangent."""
    def sigmoid(self, name: str | None = None) -> Tensor:
        """Elementwise logistic sigmoid ``1 / (1 + exp(-self))``."""
    def relu(self, name: str | None = None) -> Tensor:
        """Elementwise ``max(self, 0)``."""
    def gelu(self, name: str | None = None) -> Tensor:
        """Elementwise GELU (the exact, erf-based form)."""
    def gelu_tanh(self, name: str | None = None) -> Tensor:
        """Elementwise GELU, tanh approximation ``0.5 * self * (1 + tanh(sqrt(2/pi) * (self + 0.044715 * self**3)))``."""
    def softplus(self, name: str | None = None) -> Tensor:
        """Elementwise ``log(1 + exp(self))`` (linear above 20, as torch)."""
    def mish(self, name: str | None = None) -> Tensor:
        """Elementwise Mish ``self * tanh(softplus(self))``."""
    def erf(self, name: str | None = None) -> Tensor:
        """Elementwise Gauss error function."""
    def floor(self, name: str | None = None) -> Tensor:
        """Elementwise rounding down."""
    def ceil(self, name: str | None = None) -> Tensor:
        """Elementwise rounding up."""
    def round(self, decimals: _int | None = None, name: str | None = None) -> Tensor:
        """Elementwise rounding to the nearest integer, or with ``decimals`` to that many decimal places (halves to even, as NumPy)."""
    def silu(self, name: str | None = None) -> Tensor:
        """Elementwise SiLU (swish) ``self * sigmoid(self)``."""
    def selu(self, name: str | None = None) -> Tensor:
        """Elementwise SELU ``scale * (self if self > 0 else alpha * (exp(self) - 1))``."""
    def relu6(self, name: str | None = None) -> Tensor:
        """Elementwise ``min(max(self, 0), 6)``."""
    def hardsigmoid(self, name: str | None = None) -> Tensor:
        """Elementwise hard sigmoid ``relu6(self + 3) / 6``."""
    def hardswish(self, name: str | None = None) -> Tensor:
        """Elementwise hard swish ``self * relu6(self + 3) / 6``."""
    def softsign(self, name: str | None = None) -> Tensor:
        """Elementwise ``self / (1 + |self|)``."""
    def tanhshrink(self, name: str | None = None) -> Tensor:
        """Elementwise ``self - tanh(self)``."""
    def log_sigmoid(self, name: str | None = None) -> Tensor:
        """Elementwise ``log(sigmoid(self))``, computed stably."""
    def logical_not(self, name: str | None = None) -> Tensor:
        """Elementwise logical NOT of the truth values, as a bool tensor."""
    def bitwise_not(self, name: str | None = None) -> Tensor:
        """Elementwise bitwise NOT ``~self`` of integers (logical NOT of bools)."""
    def isnan(self, name: str | None = None) -> Tensor:
        """Elementwise test for NaN, as a bool tensor (complex: either part)."""
    def isinf(self, name: str | None = None) -> Tensor:
        """Elementwise test for +inf or -inf, as a bool tensor (complex: either part)."""
    def isfinite(self, name: str | None = None) -> Tensor:
        """Elementwise test for a finite value (not NaN, not infinite), as a bool tensor."""
    def isposinf(self, name: str | None = None) -> Tensor:
        """Elementwise test for +inf, as a bool tensor."""
    def isneginf(self, name: str | None = None) -> Tensor:
        """Elementwise test for -inf, as a bool tensor."""
    def asin(self, name: str | None = None) -> Tensor:
        """Elementwise inverse sine (NaN outside [-1, 1])."""
    def arcsin(self, name: str | None = None) -> Tensor:
        """Elementwise inverse sine (NaN outside [-1, 1])."""
    def acos(self, name: str | None = None) -> Tensor:
        """Elementwise inverse cosine (NaN outside [-1, 1])."""
    def arccos(self, name: str | None = None) -> Tensor:
        """Elementwise inverse cosine (NaN outside [-1, 1])."""
    def atan(self, name: str | None = None) -> Tensor:
        """Elementwise inverse tangent."""
    def arctan(self, name: str | None = None) -> Tensor:
        """Elementwise inverse tangent."""
    def sinh(self, name: str | None = None) -> Tensor:
        """Elementwise hyperbolic sine."""
    def cosh(self, name: str | None = None) -> Tensor:
        """Elementwise hyperbolic cosine."""
    def asinh(self, name: str | None = None) -> Tensor:
        """Elementwise inverse hyperbolic sine."""
    def arcsinh(self, name: str | None = None) -> Tensor:
        """Elementwise inverse hyperbolic sine."""
    def acosh(self, name: str | None = None) -> Tensor:
        """Elementwise inverse hyperbolic cosine (NaN below 1)."""
    def arccosh(self, name: str | None = None) -> Tensor:
        """Elementwise inverse hyperbolic cosine (NaN below 1)."""
    def atanh(self, name: str | None = None) -> Tensor:
        """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1])."""
    def arctanh(self, name: str | None = None) -> Tensor:
        """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1])."""
    def log2(self, name: str | None = None) -> Tensor:
        """Elementwise base-2 logarithm."""
    def log10(self, name: str | None = None) -> Tensor:
        """Elementwise base-10 logarithm."""
    def exp2(self, name: str | None = None) -> Tensor:
        """Elementwise ``2 ** self``."""
    def erfc(self, name: str | None = None) -> Tensor:
        """Elementwise complementary error function ``1 - erf(self)``, accurate for large inputs."""
    def erfinv(self, name: str | None = None) -> Tensor:
        """Elementwise inverse error function (NaN outside [-1, 1], +-inf at +-1)."""
    def trunc(self, name: str | None = None) -> Tensor:
        """Elementwise rounding toward zero."""
    def fix(self, name: str | None = None) -> Tensor:
        """Elementwise rounding toward zero."""
    def frac(self, name: str | None = None) -> Tensor:
        """Elementwise fractional part ``self - trunc(self)`` (keeps the sign; 0 for integers)."""
    def deg2rad(self, name: str | None = None) -> Tensor:
        """Elementwise conversion of degrees to radians."""
    def rad2deg(self, name: str | None = None) -> Tensor:
        """Elementwise conversion of radians to degrees."""
    def lgamma(self, name: str | None = None) -> Tensor:
        """Elementwise natural logarithm of the absolute value of the gamma function (+inf at the poles 0, -1, -2, ...)."""
    def digamma(self, name: str | None = None) -> Tensor:
        """Elementwise digamma function, the derivative of ``lgamma`` (-inf at 0, NaN at negative integers)."""
    def i0(self, name: str | None = None) -> Tensor:
        """Elementwise modified Bessel function of the first kind of order 0."""
    def i0e(self, name: str | None = None) -> Tensor:
        """Elementwise exponentially scaled modified Bessel function ``i0(self) * exp(-|self|)``."""
    def i1(self, name: str | None = None) -> Tensor:
        """Elementwise modified Bessel function of the first kind of order 1."""
    def i1e(self, name: str | None = None) -> Tensor:
        """Elementwise exponentially scaled modified Bessel function ``i1(self) * exp(-|self|)``."""
    def erfcx(self, name: str | None = None) -> Tensor:
        """Elementwise scaled complementary error function ``exp(self**2) * erfc(self)``, accurate for large inputs."""
    def bessel_j0(self, name: str | None = None) -> Tensor:
        """Elementwise Bessel function of the first kind of order 0 (not differentiable)."""
    def bessel_j1(self, name: str | None = None) -> Tensor:
        """Elementwise Bessel function of the first kind of order 1 (not differentiable)."""
    def bessel_y0(self, name: str | None = None) -> Tensor:
        """Elementwise Bessel function of the second kind of order 0 (-inf at 0, NaN below; not differentiable)."""
    def bessel_y1(self, name: str | None = None) -> Tensor:
        """Elementwise Bessel function of the second kind of order 1 (-inf at 0, NaN below; not differentiable)."""
    def modified_bessel_k0(self, name: str | None = None) -> Tensor:
        """Elementwise modified Bessel function of the second kind of order 0 (+inf at 0, NaN below; not differentiable)."""
    def modified_bessel_k1(self, name: str | None = None) -> Tensor:
        """Elementwise modified Bessel function of the second kind of order 1 (+inf at 0, NaN below; not differentiable)."""
    def scaled_modified_bessel_k0(self, name: str | None = None) -> Tensor:
        """Elementwise exponentially scaled ``modified_bessel_k0(self) * exp(self)`` (not differentiable)."""
    def scaled_modified_bessel_k1(self, name: str | None = None) -> Tensor:
        """Elementwise exponentially scaled ``modified_bessel_k1(self) * exp(self)`` (not differentiable)."""
    def spherical_bessel_j0(self, name: str | None = None) -> Tensor:
        """Elementwise spherical Bessel function of the first kind of order 0, ``sin(self) / self`` (not differentiable)."""
    def airy_ai(self, name: str | None = None) -> Tensor:
        """Elementwise Airy function of the first kind ``Ai(self)`` (not differentiable)."""
    def signbit(self, name: str | None = None) -> Tensor:
        """Elementwise test of the sign bit (true for negative numbers and -0.0), as a bool tensor."""
    # END generated: unary Tensor methods
    # -- linear algebra and clipping --
    def matmul(
        self,
        other: _Operand | None = None,
        transpose_x: _bool = False,
        transpose_y: _bool = False,
        name: str | None = None,
        *,
        y: _Operand | None = None,
    ) -> Tensor:
        """Matrix product (optionally transposing either operand's last two dims)."""
    def mm(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """2-D matrix product (torch ``mm``)."""
    def bmm(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Batched matrix product (torch ``bmm``)."""
    def dot(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Inner product of 1-D tensors."""
    def outer(
        self, other: _Operand | None = None, name: str | None = None, *, y: _Operand | None = None
    ) -> Tensor:
        """Outer product of 1-D tensors."""
    def clip(
        self,
        min: _Bound = None,
        max: _Bound = None,
        name: str | None = None,
        *,
        input: Tensor | None = None,
    ) -> Tensor:
        """Clamps values into ``[min, max]`` (numbers or tensors that broadcast)."""
    def clamp(
        self,
        min: _Bound = None,
        max: _Bound = None,
        name: str | None = None,
        *,
        out: None = None,
        x: Tensor | None = None,
    ) -> Tensor:
        """Same as ``clip``."""

    # -- reductions --
    # BEGIN generated: reduction Tensor methods (scripts/gen_op_bindings.py from src/op_defs/reduce.rs)
    @overload
    def sum(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Sum over ``axis``/``dim`` (all by default); torch's ``sum(dim, keepdim, dtype)`` or Paddle's ``sum(axis, dtype, keepdim)`` positionally."""
    @overload
    def sum(
        self,
        axis: _Axis,
        dtype: _DTypeLike | None,
        keepdim: _bool | None = None,
        /,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor: ...
    def mean(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
        dtype: _DTypeLike | None = None,
    ) -> Tensor:
        """Mean over ``axis``/``dim`` (all by default; integers give the default float)."""
    def prod(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
        dtype: _DTypeLike | None = None,
    ) -> Tensor:
        """Product over ``axis``/``dim`` (all by default)."""
    def max(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Any:
        """Maximum over ``axis``/``dim``: the values (Paddle); PyTorch's ``(values, indices)`` for one ``dim=``, or one dimension in code that imports ferrograd as ``torch`` (python/ferrograd/_shared_spellings.py)."""
    def min(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Any:
        """Minimum over ``axis``/``dim``: the values (Paddle); PyTorch's ``(values, indices)`` for one ``dim=``, or one dimension in code that imports ferrograd as ``torch`` (python/ferrograd/_shared_spellings.py)."""
    def amax(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Maximum over ``axis``/``dim`` (same as ``max``; ties share the gradient)."""
    def amin(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Minimum over ``axis``/``dim`` (same as ``min``; ties share the gradient)."""
    def argmax(
        self,
        axis: _int | None = None,
        keepdim: _bool | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Index of the maximum along ``axis`` (flattened when None), int64."""
    def argmin(
        self,
        axis: _int | None = None,
        keepdim: _bool | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Index of the minimum along ``axis`` (flattened when None), int64."""
    def var(
        self,
        axis: _Axis = None,
        unbiased: _bool | None = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
        correction: _float | None = None,
    ) -> Tensor:
        """Variance over ``axis``/``dim`` (``unbiased=True`` divides by N-1; ``correction`` overrides)."""
    def std(
        self,
        axis: _Axis = None,
        unbiased: _bool | None = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
        correction: _float | None = None,
    ) -> Tensor:
        """Standard deviation over ``axis``/``dim`` (same arguments as ``var``)."""
    def logsumexp(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """``log(sum(exp(x)))`` over ``axis``/``dim``, stable."""
    def all(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """True where all elements along ``axis`` are non-zero."""
    def any(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """True where any element along ``axis`` is non-zero."""
    def count_nonzero(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Number of non-zero elements (int64) over ``axis``/``dim`` (all by default)."""
    @overload
    def nansum(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor:
        """Sum over ``axis``/``dim`` treating NaN as zero (NaN positions get no gradient)."""
    @overload
    def nansum(
        self,
        axis: _Axis,
        dtype: _DTypeLike | None,
        keepdim: _bool | None = None,
        /,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
    ) -> Tensor: ...
    def nanmean(
        self,
        axis: _Axis = None,
        keepdim: _bool | None = None,
        name: str | None = None,
        *,
        dim: _Axis = None,
        keepdims: _bool | None = None,
        dtype: _DTypeLike | None = None,
    ) -> Tensor:
        """Mean over ``axis``/``dim`` of the non-NaN elements (NaN where all are NaN)."""
    # END generated: reduction Tensor methods
    def _sum_squares(self, dims: Sequence[_int] | None = None, keepdim: _bool = False) -> Tensor:
        """``sum(self * self)`` over ``dims`` (None: all) of a float32/float64 tensor in one
        pass, without a graph: the kernel of the 2-norm."""
    def _extreme_pair(self, dim: _int, keepdim: _bool, is_max: _bool) -> tuple[Tensor, Tensor]:
        """PyTorch's ``max(dim)`` / ``min(dim)`` pair ``(values, int64 indices)`` (the
        first extreme element or NaN; the gradient to it alone): ``max``'s kernel."""
    def softmax(
        self,
        axis: _int = -1,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
    ) -> Tensor:
        """Softmax along ``axis`` (default: last)."""
    def log_softmax(
        self,
        axis: _int = -1,
        dtype: _DTypeLike | None = None,
        name: str | None = None,
        *,
        dim: _int | None = None,
    ) -> Tensor:
        """Log-softmax along ``axis`` (default: last)."""

    # -- in-place --
    def add_(
        self,
        other: _Operand | None = None,
        *,
        y: _Operand | None = None,
        alpha: _Scalar | None = None,
    ) -> Self:
        """In-place ``self += other`` (Paddle's ``y=``; torch's ``alpha=`` scales ``other``)."""
    def sub_(
        self,
        other: _Operand | None = None,
        *,
        y: _Operand | None = None,
        alpha: _Scalar | None = None,
    ) -> Self:
        """In-place ``self -= other`` (Paddle's ``y=``; torch's ``alpha=`` scales ``other``)."""
    def mul_(self, other: _Operand | None = None, *, y: _Operand | None = None) -> Self:
        """In-place ``self *= other`` (Paddle's ``y=`` also accepted)."""
    def div_(self, other: _Operand | None = None, *, y: _Operand | None = None) -> Self:
        """In-place ``self /= other`` (Paddle's ``y=`` also accepted)."""
    def zero_(self) -> Self:
        """Fills with zeros in place."""
    def fill_(self, value: _Scalar | Tensor) -> Self:
        """Fills with ``value`` in place (a number or a one-element tensor)."""
    def copy_(self, src: _Operand, non_blocking: _bool = False) -> Self:
        """Copies ``src`` into this tensor in place (broadcast, cast)."""
    def clip_(self, min: _Bound = None, max: _Bound = None, name: str | None = None) -> Self:
        """Clamps in place."""
    def clamp_(self, min: _Bound = None, max: _Bound = None, name: str | None = None) -> Self:
        """Same as ``clip_``."""
    def exp_(self) -> Self:
        """``e ** x`` in place."""
    def scale_(
        self, scale: _float = 1.0, bias: _float = 0.0, bias_after_scale: _bool = True
    ) -> Self:
        """``x = scale * x + bias`` (or ``scale * (x + bias)``) in place (Paddle)."""
    def scale(
        self,
        scale: _float = 1.0,
        bias: _float = 0.0,
        bias_after_scale: _bool = True,
        act: str | None = None,
        name: str | None = None,
    ) -> Tensor:
        """``scale * x + bias`` (or ``scale * (x + bias)``) (Paddle)."""

    # -- aliases installed by ``ferrograd._dialect_aliases`` on import --
    def multiply_(self, other: _Operand | None = None, *, y: _Operand | None = None) -> Self:
        """Same as ``mul_``."""
    def clamp_min(self, min: _float | Tensor) -> Tensor:
        """``clip(min=min)``."""
    def clamp_max(self, max: _float | Tensor) -> Tensor:
        """``clip(max=max)``."""
    def ravel(self) -> Tensor:
        """``reshape(-1)``."""
    def type_as(self, other: Tensor) -> Tensor:
        """Converts to ``other``'s dtype."""
    @overload
    def new_zeros(self, *shape: SupportsIndex, dtype: _DTypeLike | None = None) -> Tensor:
        """Zeros of ``shape`` with this tensor's dtype unless ``dtype``."""
    @overload
    def new_zeros(self, shape: _ShapeLike, /, *, dtype: _DTypeLike | None = None) -> Tensor: ...
    @overload
    def new_ones(self, *shape: SupportsIndex, dtype: _DTypeLike | None = None) -> Tensor:
        """Ones of ``shape`` with this tensor's dtype unless ``dtype``."""
    @overload
    def new_ones(self, shape: _ShapeLike, /, *, dtype: _DTypeLike | None = None) -> Tensor: ...

    # -- scatter / masking / index-put and shape ops, installed on import by
    # ``ferrograd._ops_index_put.install`` and ``ferrograd._ops_shape.install`` (issue 19) --
    def _scatter_add(
        self, dim: _int, index: Tensor, src: Tensor, refuse: str | None = None
    ) -> Tensor:
        """Out-of-place torch ``scatter_add`` primitive (differentiable); ``refuse``: an op
        name to refuse an index below 0 with PyTorch's IndexError (None: from the end)."""
    def _scatter_set(
        self, dim: _int, index: Tensor, src: Tensor, refuse: str | None = None
    ) -> Tensor:
        """Out-of-place overwriting torch ``scatter`` primitive (last duplicate wins);
        ``refuse``: as ``_scatter_add``'s."""
    def _masked_fill(self, mask: Tensor, value: Tensor) -> Tensor:
        """``value`` (one element, this dtype) where the bool ``mask`` is True."""
    def _scatter_reduce_raw(
        self,
        dim: _int,
        index: Tensor,
        src: Tensor,
        reduce: str,
        include_self: _bool,
        refuse: str | None = None,
    ) -> Tensor:
        """Scatter-reduce with ``prod`` / ``amax`` / ``amin``; records no gradient;
        ``refuse``: as ``_scatter_add``'s."""
    def scatter(x, *args: Any, **kwargs: Any) -> Tensor:
        """torch ``scatter(dim, index, src | value, reduce=None)`` or Paddle
        ``scatter(index, updates, overwrite=True)``."""
    def scatter_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``scatter``."""
    def scatter_add(x, dim: _int, index: Any, src: Tensor) -> Tensor:
        """torch ``scatter_add``: ``src`` added at ``index`` along ``dim``."""
    def scatter_add_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``scatter_add``."""
    def scatter_reduce(
        x, dim: _int, index: Any, src: Tensor, reduce: str, *, include_self: _bool = True
    ) -> Tensor:
        """torch ``scatter_reduce`` (``sum``, ``prod``, ``mean``, ``amax``, ``amin``)."""
    def scatter_reduce_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``scatter_reduce``."""
    def index_add(x, *args: Any, **kwargs: Any) -> Tensor:
        """torch ``index_add(dim, index, source, alpha=1)`` or Paddle
        ``index_add(index, axis, value)``."""
    def index_add_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``index_add``."""
    def index_reduce(
        x, dim: _int, index: Any, source: Tensor, reduce: str, *, include_self: _bool = True
    ) -> Tensor:
        """torch ``index_reduce`` (``prod``, ``mean``, ``amax``, ``amin``)."""
    def index_reduce_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``index_reduce``."""
    def index_fill(x, *args: Any, **kwargs: Any) -> Tensor:
        """torch ``index_fill(dim, index, value)`` or Paddle ``index_fill(index, axis, value)``."""
    def index_fill_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``index_fill``."""
    def put_along_axis(
        arr,
        indices: Any,
        values: Any,
        axis: _int,
        reduce: str = "assign",
        include_self: _bool = True,
        broadcast: _bool = True,
        name: Any = None,
    ) -> Tensor:
        """Paddle ``put_along_axis`` (``assign``, ``add``, ``mul``, ``mean``, ``amax``, ``amin``)."""
    def put_along_axis_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``put_along_axis``."""
    def masked_fill(x, mask: Any, value: Any, name: Any = None) -> Tensor:
        """``value`` where the bool ``mask`` (broadcast) is True, ``self`` elsewhere."""
    def masked_fill_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``masked_fill``."""
    def masked_scatter(
        x, mask: Any, value: Any = None, name: Any = None, *, source: Any = None
    ) -> Tensor:
        """``value``'s elements written where ``mask`` is True."""
    def masked_scatter_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``masked_scatter``."""
    def index_put(
        x, indices: Any, values: Any, accumulate: _bool = False, name: Any = None
    ) -> Tensor:
        """``values`` written (or added) at ``self[indices]``."""
    def index_put_(self, *args: Any, **kwargs: Any) -> Tensor:
        """In-place ``index_put``."""
    def take(x, index: Any, mode: str = "raise", name: Any = None) -> Tensor:
        """Elements of the flattened tensor at ``index``."""
    def gather_nd(x, index: Any, name: Any = None) -> Tensor:
        """Paddle ``gather_nd``."""
    def scatter_nd_add(x, index: Any, updates: Tensor, name: Any = None) -> Tensor:
        """Paddle ``scatter_nd_add``."""
    def flip(x, *args: Any, **kwargs: Any) -> Tensor:
        """A copy reversed along ``dims`` / ``axis``."""
    def roll(x, shifts: Any, dims: Any = None, *, axis: Any = None, name: Any = None) -> Tensor:
        """Elements shifted (wrapping) along ``dims`` / ``axis``."""
    def rot90(x, k: _int = 1, dims: Any = None, *, axes: Any = None, name: Any = None) -> Tensor:
        """Rotation by ``k`` quarter turns in the plane of ``dims`` / ``axes``."""
    def tile(x, *args: Any, **kwargs: Any) -> Tensor:
        """Repeated along each dimension (``dims`` / ``repeat_times``)."""
    def repeat(x, *sizes: Any, **kwargs: Any) -> Tensor:
        """PyTorch's ``Tensor.repeat``: ``tile`` with a count per dimension."""
    def repeat_interleave(
        x,
        repeats: Any = None,
        dim: Any = None,
        *,
        axis: Any = None,
        output_size: Any = None,
        name: Any = None,
    ) -> Tensor:
        """Each element (or slice along ``dim``) repeated in place."""
    def tril(x, diagonal: _int = 0, name: Any = None) -> Tensor:
        """Lower triangle of the last two dimensions."""
    def triu(x, diagonal: _int = 0, name: Any = None) -> Tensor:
        """Upper triangle of the last two dimensions."""
    def tril_(self, diagonal: _int = 0) -> Tensor:
        """In-place ``tril``."""
    def triu_(self, diagonal: _int = 0) -> Tensor:
        """In-place ``triu``."""
    def diag(
        x,
        diagonal: _int = 0,
        padding_value: Any = 0,
        name: Any = None,
        *,
        offset: Any = None,
    ) -> Tensor:
        """Vector to diagonal matrix, or matrix to its diagonal."""
    def diag_embed(
        x, offset: _int = 0, dim1: _int = -2, dim2: _int = -1, name: Any = None
    ) -> Tensor:
        """Matrices with the last dimension on a diagonal."""
    def diagonal(
        x,
        offset: _int = 0,
        dim1: Any = None,
        dim2: Any = None,
        *,
        axis1: Any = None,
        axis2: Any = None,
        name: Any = None,
    ) -> Tensor:
        """A diagonal, as the last dimension."""
    def trace(x, offset: _int = 0, axis1: _int = 0, axis2: _int = 1, name: Any = None) -> Tensor:
        """Sum of a diagonal."""
    def narrow(x, dim: _int, start: Any, length: _int) -> Tensor:
        """The view ``start:start+length`` along ``dim``."""
    def movedim(x, source: Any, destination: Any, name: Any = None) -> Tensor:
        """Dimensions moved (a view)."""
    def moveaxis(x, source: Any, destination: Any, name: Any = None) -> Tensor:
        """Same as ``movedim``."""
    def swapaxes(x, axis0: _int, axis1: _int) -> Tensor:
        """Two dimensions exchanged (a view)."""
    def swapdims(x, axis0: _int, axis1: _int) -> Tensor:
        """Same as ``swapaxes``."""
    def unflatten(
        x,
        dim: Any = None,
        sizes: Any = None,
        name: Any = None,
        *,
        axis: Any = None,
        shape: Any = None,
    ) -> Tensor:
        """Dimension ``dim`` split into ``sizes``."""
    def unstack(x, axis: _int = 0, num: Any = None, name: Any = None) -> list[Tensor]:
        """Slices along ``axis`` as a list (Paddle)."""
    # -- linear algebra, installed by ``ferrograd.linalg._toplevel`` on import --
    def norm(
        self,
        p: Any = "fro",
        dim: Any = None,
        keepdim: _bool = False,
        out: Any = None,
        dtype: Any = None,
        *,
        x: Any = None,
        axis: Any = None,
        name: Any = None,
    ) -> Tensor:
        """``torch.norm`` / ``paddle.norm`` (see ``ferrograd.linalg``)."""
    def dist(
        self, other: Any = None, p: Any = 2, *, x: Any = None, y: Any = None, name: Any = None
    ) -> Tensor:
        """The p-norm of ``self - other``."""
    def det(self, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
        """Determinant (``linalg.det``)."""
    def logdet(self, *, x: Any = None, name: Any = None) -> Tensor:
        """``log(det(self))``."""
    def slogdet(self, *, x: Any = None, out: Any = None, name: Any = None) -> Any:
        """``(sign, logabsdet)``."""
    def inverse(self, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
        """Matrix inverse (``linalg.inv``)."""
    def cholesky(
        self, upper: _bool = False, *, x: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """Cholesky factor (``linalg.cholesky``)."""
    def matrix_power(
        self, n: _int | None = None, *, x: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """``self`` to the integer power ``n``."""
    def pinverse(self, rcond: _float = 1e-15, *, x: Any = None, name: Any = None) -> Tensor:
        """Pseudo-inverse (``torch.pinverse``)."""
    def svd(self, some: _bool = True, compute_uv: _bool = True, *, out: Any = None) -> Any:
        """``torch.svd``: ``(U, S, V)``."""
    def qr(self, some: _bool = True, *, out: Any = None) -> Any:
        """``torch.qr``: ``(Q, R)``."""
    def matrix_exp(self, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
        """Matrix exponential (``linalg.matrix_exp``)."""
    def lu(self, pivot: _bool = True, get_infos: _bool = False, *, out: Any = None) -> Any:
        """``torch.lu``: ``(LU, pivots[, infos])``."""
    def lu_solve(self, LU_data: Any = None, LU_pivots: Any = None, *, out: Any = None) -> Tensor:
        """``torch.lu_solve``: ``X`` with ``A X = self`` from ``A``'s ``lu_factor``."""
    def triangular_solve(
        self,
        A: Any = None,
        upper: _bool = True,
        transpose: _bool = False,
        unitriangular: _bool = False,
        *,
        out: Any = None,
    ) -> Any:
        """``torch.triangular_solve``: ``(X, A.clone())`` with ``A X = self``."""
    def orgqr(self, tau: Any = None, *, x: Any = None, out: Any = None, name: Any = None) -> Tensor:
        """``torch.orgqr``: ``linalg.householder_product(self, tau)``."""
    def ormqr(
        self, tau: Any = None, *args: Any, y: Any = None, other: Any = None, **kw: Any
    ) -> Tensor:
        """``op(Q)`` times a matrix for ``Q`` in Householder form: torch's
        ``ormqr(tau, other, left=True, transpose=False)`` or Paddle's ``(tau, y, ...)``."""
    def pca_lowrank(
        self,
        q: Any = None,
        center: _bool = True,
        niter: Any = 2,
        *,
        x: Any = None,
        name: Any = None,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Randomized PCA (``paddle.linalg.pca_lowrank``): ``(U, S, V)``."""
    def svd_lowrank(
        self, q: Any = None, niter: Any = 2, M: Any = None, name: Any = None
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Randomized low-rank SVD (``paddle.linalg.svd_lowrank``): ``(U, S, V)``."""
    def cholesky_solve(
        self,
        input2: Any = None,
        upper: _bool = False,
        *,
        x: Any = None,
        y: Any = None,
        out: Any = None,
        name: Any = None,
    ) -> Tensor:
        """``X`` with ``(L Lᵀ) X = self`` for the Cholesky factor ``input2`` (``y``)."""
    def cholesky_inverse(
        self, upper: _bool = False, *, x: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """``(L Lᵀ)⁻¹`` from the Cholesky factor ``self``."""
    def matrix_transpose(self, name: Any = None) -> Tensor:
        """``self`` with its last two dims swapped (Paddle's ``matrix_transpose``)."""
    def cov(self, *args: Any, **kw: Any) -> Tensor:
        """Covariance matrix: torch's ``cov(*, correction, fweights, aweights)`` or
        Paddle's ``cov(rowvar, ddof, fweights, aweights)``."""
    def corrcoef(self, *args: Any, **kw: Any) -> Tensor:
        """Pearson correlation coefficients (Paddle's ``rowvar=`` accepted)."""
    def mv(
        self, vec: Any = None, *, x: Any = None, y: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """Matrix-vector product."""
    def cross(
        self,
        other: Any = None,
        dim: Any = None,
        *,
        x: Any = None,
        y: Any = None,
        axis: Any = None,
        out: Any = None,
        name: Any = None,
    ) -> Tensor:
        """3-D cross product along ``dim``."""
    def kron(
        self, other: Any = None, *, x: Any = None, y: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """Kronecker product."""
    def inner(
        self, other: Any = None, *, x: Any = None, y: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """Sum of products over the last dims."""
    def ger(
        self, vec2: Any = None, *, x: Any = None, y: Any = None, out: Any = None, name: Any = None
    ) -> Tensor:
        """Outer product of two vectors."""
    def addmm(
        self,
        mat1: Any = None,
        mat2: Any = None,
        beta: Any = 1,
        alpha: Any = 1,
        *,
        x: Any = None,
        y: Any = None,
        out: Any = None,
        name: Any = None,
    ) -> Tensor:
        """``beta * self + alpha * (mat1 @ mat2)``."""
    def baddbmm(
        self,
        batch1: Any = None,
        batch2: Any = None,
        beta: Any = 1,
        alpha: Any = 1,
        *,
        x: Any = None,
        y: Any = None,
        out: Any = None,
        name: Any = None,
    ) -> Tensor:
        """``beta * self + alpha * (batch1 @ batch2)``."""
    def addmv(
        self,
        mat: Any = None,
        vec: Any = None,
        beta: Any = 1,
        alpha: Any = 1,
        *,
        x: Any = None,
        y: Any = None,
        out: Any = None,
        name: Any = None,
    ) -> Tensor:
        """``beta * self + alpha * (mat @ vec)``."""

# ---- creation -----------------------------------------------------------------------

def tensor(
    data: _Operand,
    dtype: _DTypeLike | None = None,
    device: object = None,
    requires_grad: _bool = False,
    pin_memory: _bool = False,
    *,
    stop_gradient: _bool | None = None,
    name: str | None = None,
) -> Tensor:
    """Builds a tensor from data (torch dialect), copying."""

def to_tensor(
    data: _Operand,
    dtype: _DTypeLike | None = None,
    place: object = None,
    stop_gradient: _bool | None = True,
    *,
    requires_grad: _bool = False,
    device: object = None,
    name: str | None = None,
) -> Tensor:
    """Builds a tensor from data (Paddle dialect), copying; ``stop_gradient=True``."""

def from_numpy(a: NDArray[Any]) -> Tensor:
    """A tensor sharing memory with the NumPy array ``a`` (writes show on both sides)."""

def from_dlpack(x: Any, *, device: Any = None, copy: _bool | None = None) -> Tensor:
    """A tensor sharing the memory of ``x``: an object with ``__dlpack__`` (NumPy array,
    torch tensor, ...) or a DLPack capsule; ``copy=True`` copies. CPU memory only."""

# BEGIN generated: creation factories (scripts/gen_op_bindings.py from src/python/creation.rs)
@overload
def zeros(
    *dims: SupportsIndex,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    memory_format: Any = None,
    shape: _ShapeLike | SupportsIndex | None = None,
    size: _ShapeLike | None = None,
) -> Tensor:
    """Zeros of the given shape (float32 unless ``dtype``)."""

@overload
def zeros(
    paddle_shape: _ShapeLike,
    paddle_dtype: _DTypeLike | None = None,
    paddle_name: str | None = None,
    /,
    *,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    memory_format: Any = None,
) -> Tensor: ...
@overload
def ones(
    *dims: SupportsIndex,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    memory_format: Any = None,
    shape: _ShapeLike | SupportsIndex | None = None,
    size: _ShapeLike | None = None,
) -> Tensor:
    """Ones of the given shape (float32 unless ``dtype``)."""

@overload
def ones(
    paddle_shape: _ShapeLike,
    paddle_dtype: _DTypeLike | None = None,
    paddle_name: str | None = None,
    /,
    *,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    memory_format: Any = None,
) -> Tensor: ...
@overload
def empty(
    *dims: SupportsIndex,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    memory_format: Any = None,
    shape: _ShapeLike | SupportsIndex | None = None,
    size: _ShapeLike | None = None,
) -> Tensor:
    """An uninitialised tensor (ferrograd zero-fills it)."""

@overload
def empty(
    paddle_shape: _ShapeLike,
    paddle_dtype: _DTypeLike | None = None,
    paddle_name: str | None = None,
    /,
    *,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    memory_format: Any = None,
) -> Tensor: ...
def zeros_like(
    x: Tensor,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
    memory_format: Any = None,
) -> Tensor:
    """Zeros shaped like ``x``."""

def ones_like(
    x: Tensor,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
    memory_format: Any = None,
) -> Tensor:
    """Ones shaped like ``x``."""

def empty_like(
    x: Tensor,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
    memory_format: Any = None,
) -> Tensor:
    """An (zero-filled) tensor shaped like ``x``."""

@overload
def rand(
    *dims: SupportsIndex,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    generator: Generator | None = None,
    shape: _ShapeLike | SupportsIndex | None = None,
    size: _ShapeLike | None = None,
) -> Tensor:
    """Uniform samples in [0, 1) (from ``generator``, or the default generator)."""

@overload
def rand(
    paddle_shape: _ShapeLike,
    paddle_dtype: _DTypeLike | None = None,
    paddle_name: str | None = None,
    /,
    *,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    generator: Generator | None = None,
) -> Tensor: ...
@overload
def randn(
    *dims: SupportsIndex,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    generator: Generator | None = None,
    shape: _ShapeLike | SupportsIndex | None = None,
    size: _ShapeLike | None = None,
) -> Tensor:
    """Standard normal samples (from ``generator``, or the default generator)."""

@overload
def randn(
    paddle_shape: _ShapeLike,
    paddle_dtype: _DTypeLike | None = None,
    paddle_name: str | None = None,
    /,
    *,
    dtype: _DTypeLike | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    name: str | None = None,
    device: object = None,
    generator: Generator | None = None,
) -> Tensor: ...

# END generated: creation factories
def full(
    shape: _ShapeLike | SupportsIndex | None = None,
    fill_value: _Scalar | Tensor | None = None,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    size: _ShapeLike | SupportsIndex | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
) -> Tensor:
    """A tensor of ``shape`` (PyTorch: ``size=``) filled with ``fill_value`` (dtype
    inferred from the value)."""

def full_like(
    x: Tensor,
    fill_value: _Scalar | Tensor,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
) -> Tensor:
    """A tensor shaped like ``x`` filled with ``fill_value``."""

def arange(
    start: _float | Tensor | None = None,
    end: _float | Tensor | None = None,
    step: _float | Tensor | None = None,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
) -> Tensor:
    """``arange(end)`` or ``arange(start, end, step)``; int64 for integer arguments."""

def linspace(
    start: _float,
    stop: _float,
    num: _int,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""

def eye(
    num_rows: _int,
    num_columns: _int | None = None,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
) -> Tensor:
    """Identity matrix ``num_rows x num_columns`` (square by default)."""

def randint(
    low: _int = 0,
    high: _int | _ShapeLike | None = None,
    size: _ShapeLike | SupportsIndex | None = None,
    dtype: _DTypeLike | None = None,
    name: str | None = None,
    *,
    shape: _ShapeLike | SupportsIndex | None = None,
    requires_grad: _bool = False,
    stop_gradient: _bool | None = None,
    device: object = None,
    generator: Generator | None = None,
) -> Tensor:
    """Integers uniform in ``[low, high)``: ``randint(high, shape)`` or ``(low, high, shape)``."""

def seed(seed: _int) -> None:
    """Seeds the random generator (``seed`` in Paddle, ``manual_seed`` in torch)."""

def _rng_state() -> tuple[_int, _int, _int, _int]:
    """The random generator's state (``utils.checkpoint.get_rng_state`` wraps it)."""

def _set_rng_state(state: tuple[_int, _int, _int, _int]) -> None:
    """Restores a state from ``_rng_state`` (the all-zero state is rejected)."""

# ---- random generators and samplers (ferrograd.random_gen wraps them) -----------------

@final
class Generator:
    """A random number generator, independent of the default one (``seed``)."""

    def __new__(cls, device: object = None) -> Self: ...
    def manual_seed(self, seed: _int) -> Self:
        """Seeds the generator and returns it."""
    def seed(self) -> _int:
        """Seeds from the OS's randomness and returns that seed."""
    def initial_seed(self) -> _int:
        """The seed last given."""
    def get_state(self) -> Tensor:
        """The state (an int64 tensor of 5 words), for ``set_state``."""
    def set_state(self, state: Tensor | Sequence[_int]) -> Self:
        """Restores a state from ``get_state``; returns the generator."""
    @property
    def device(self) -> str:
        """Always ``"cpu"``."""

def _caller_dialect(depth: _int = 2) -> str | None:
    """``"torch"`` / ``"paddle"``: the dialect of the code ``depth`` frames up (None when
    it names neither); the rule of ``ferrograd._dialect.caller_dialect``, in Rust."""

def _default_generator() -> Generator: ...
def _uniform(
    shape: Sequence[_int],
    low: _float,
    high: _float,
    dtype: _DTypeLike,
    generator: Generator | None = None,
) -> Tensor: ...
def _normal(
    shape: Sequence[_int],
    mean: _float,
    std: _float,
    dtype: _DTypeLike,
    generator: Generator | None = None,
) -> Tensor: ...
def _exponential(
    shape: Sequence[_int], lambd: _float, dtype: _DTypeLike, generator: Generator | None = None
) -> Tensor: ...
def _randint(
    low: _int,
    high: _int,
    shape: Sequence[_int],
    dtype: _DTypeLike,
    generator: Generator | None = None,
) -> Tensor: ...
def _bernoulli(p: Tensor, generator: Generator | None = None) -> Tensor: ...
def _bernoulli_scalar(
    shape: Sequence[_int], p: _float, dtype: _DTypeLike, generator: Generator | None = None
) -> Tensor: ...
def _randperm(n: _int, dtype: _DTypeLike, generator: Generator | None = None) -> Tensor: ...
def _multinomial(
    probs: Tensor, num_samples: _int, replacement: _bool, generator: Generator | None = None
) -> Tensor: ...
def _set_default_dtype(dtype: _DTypeLike) -> None: ...
def _get_default_dtype() -> dtype: ...
def _num_threads() -> _int:
    """The number of threads of the kernels' pool (fixed at import)."""

def _set_print_options(options: dict[str, Any] | None = None) -> None: ...

# ---- joining, splitting, selecting --------------------------------------------------

def concat(
    x: Iterable[_Operand], axis: _int = 0, name: str | None = None, *, dim: _int | None = None
) -> Tensor:
    """Concatenates along an existing axis (``concat`` in Paddle, ``cat`` in torch)."""

def stack(
    x: Iterable[_Operand], axis: _int = 0, name: str | None = None, *, dim: _int | None = None
) -> Tensor:
    """Stacks along a new axis."""

def split(
    x: Tensor,
    num_or_sections: _int | Sequence[_int] | None = None,
    axis: _int = 0,
    name: str | None = None,
    *,
    split_size_or_sections: _int | Sequence[_int] | None = None,
    dim: _int | None = None,
) -> list[Tensor]:
    """Paddle ``split(x, num_or_sections, axis)``; torch's meaning with its keywords."""

@overload
def where(condition: _IndexLike, x: _Operand, y: _Operand, name: str | None = None) -> Tensor:
    """``condition ? x : y`` elementwise (PyTorch's keywords: ``input`` / ``other``); with
    only ``condition``, its non-zero indices."""

@overload
def where(condition: _IndexLike, *, input: _Operand, other: _Operand) -> Tensor: ...
@overload
def where(
    condition: _IndexLike, x: None = None, y: None = None, name: str | None = None
) -> tuple[Tensor, ...]: ...

# ---- autograd -----------------------------------------------------------------------

def backward(
    tensors: Tensor | Any | Sequence[Tensor | Any],
    grad_tensors: Tensor | Sequence[_Operand | None] | None = None,
    retain_graph: _bool | None = None,
    create_graph: _bool = False,
    grad_variables: Tensor | Sequence[_Operand | None] | None = None,
    inputs: Tensor | Any | Iterable[Tensor | Any] | None = None,
) -> None:
    """Accumulates gradients of ``tensors`` into the leaves' ``.grad`` (with ``inputs``:
    into those tensors' ``.grad`` only). ``tensors`` and ``inputs`` may hold
    ``GradientEdge``s; ``grad_variables`` is PyTorch's old name of ``grad_tensors``."""

def _gradient_edge(t: Tensor) -> tuple[Node | AccumulateGrad, _int]:
    """``(node, output_nr)`` of ``t``'s gradient edge (``get_gradient_edge``)."""

@overload
def grad(
    outputs: Tensor | Any | Sequence[Tensor | Any],
    inputs: Tensor | Any | Sequence[Tensor | Any],
    grad_outputs: Tensor | Sequence[_Operand | None] | None = None,
    retain_graph: _bool | None = None,
    create_graph: _bool = False,
    only_inputs: _bool = True,
    allow_unused: Literal[False] | None = None,
    no_grad_vars: Tensor | Sequence[Tensor] | None = None,
    materialize_grads: _bool = False,
    is_grads_batched: Literal[False] = False,
) -> tuple[Tensor, ...]:
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned without touching ``.grad``
    (either may hold ``GradientEdge``s; ``is_grads_batched``: the first dimension of each
    grad_output is a batch, one backward pass per sample, results stacked)."""

@overload
def grad(
    outputs: Tensor | Any | Sequence[Tensor | Any],
    inputs: Tensor | Any | Sequence[Tensor | Any],
    grad_outputs: Tensor | Sequence[_Operand | None] | None = None,
    retain_graph: _bool | None = None,
    create_graph: _bool = False,
    only_inputs: _bool = True,
    allow_unused: _bool | None = None,
    no_grad_vars: Tensor | Sequence[Tensor] | None = None,
    materialize_grads: _bool = False,
    is_grads_batched: _bool = False,
) -> tuple[Tensor | None, ...]: ...
def is_grad_enabled() -> _bool:
    """True when ops on this thread record history."""

def is_inference_mode_enabled() -> _bool:
    """True inside ``inference_mode()`` on this thread."""

def is_inference(t: Tensor) -> _bool:
    """Whether ``t`` is an inference tensor: its memory was allocated inside
    ``inference_mode()`` (views of it are inference tensors too). Autograd treats
    inference tensors as constants."""

def _set_grad_enabled(mode: _bool) -> _bool:
    """Sets this thread's grad mode; returns the previous mode."""

def _set_autocast(dtype: dtype | str | None, mask: _int = 3) -> tuple[str, _int] | None:
    """Sets this thread's autocast (low dtype and op families: 1 matmul, 2 linear);
    returns the previous ``(dtype name, mask)`` or None."""

def _get_autocast() -> tuple[str, _int] | None:
    """This thread's autocast setting: ``(dtype name, mask)`` or None."""

def _set_inference_mode(mode: _bool) -> tuple[_bool, _bool]:
    """Sets inference mode (grad mode off too); returns ``(prev_inference, prev_grad)``."""

def _restore_inference_mode(prev_inference: _bool, prev_grad: _bool) -> None:
    """Restores what ``_set_inference_mode`` returned."""

def _set_size_class(cls: type[Size]) -> None:
    """Installs the ``Size`` class used by ``.shape``."""

# ---- profiler (ferrograd.profiler builds on these) --------------------------------------

@final
class ProfilerRange:
    """An open user range of the profiler; ``end()`` records it (once)."""

    def end(self) -> None:
        """Ends the range (recording it if its session is still on)."""

def _profiler_start(record_shapes: _bool = False) -> None:
    """Starts recording ops; a RuntimeError while a session is on."""

def _profiler_stop() -> list[
    tuple[str, _int, _int, _int, list[list[_int]] | None, Literal["op", "backward", "range"]]
]:
    """Stops recording; the events ``(name, thread_id, start_ns, duration_ns, input_shapes,
    kind)``."""

def _profiler_enabled() -> _bool:
    """Whether a profiler session is on."""

def _profiler_now() -> _int:
    """The profiler's clock in nanoseconds."""

def _profiler_range(name: str) -> ProfilerRange | None:
    """Opens a user range on this thread; ``None`` when no profiler is on."""

# ---- memory ---------------------------------------------------------------------------

def set_buffer_cache_limit(nbytes: _int) -> _int:
    """Sets the most bytes of freed large buffers kept for reuse (0 disables the cache);
    returns the previous limit."""

def empty_buffer_cache() -> None:
    """Frees every buffer the cache holds (the limit stays), and the small freed blocks the
    calling thread keeps for reuse."""

def buffer_cache_info() -> dict[str, _int]:
    """``bytes``, ``buffers``, ``limit``, ``hits`` and ``misses`` of the buffer cache, and
    ``suspended_by``: the number of live saved tensors held by pack hooks (while any is,
    the cache keeps nothing)."""

def _set_packs_suspend_cache(on: _bool) -> _bool:
    """Whether tensors packed by saved-tensor hooks on this thread suspend the buffer cache
    (default true); returns the previous setting."""

def _tofile(tensor: Tensor, path: str | os.PathLike[str]) -> None:
    """Writes the elements row-major as raw native-endian bytes to ``path``."""

def _linalg(op: str, a: Tensor, b: Tensor | None = None, flag: _bool = False) -> list[Tensor]:
    """Runs the dense factorization ``op`` (inv, solve, det, cholesky, qr, eigh, eigvalsh,
    svd, svdvals, lu_factor, solve_tril, solve_triu, inv_ex, cholesky_ex, eig, eigvals)
    without history; ``ferrograd.linalg`` adds the gradients. ``flag``: complete Q (qr),
    lower triangle (eigh), full matrices (svd), unit diagonal (solve_tril/solve_triu)."""

# --- static graphs (ferrograd.static) --------------------------------------------------

@final
class OpFunction:
    """A module function dispatching on its arguments' type: a Tensor first runs
    ``__wrapped__``; otherwise the ``__ferrograd_function__(name, args, kwargs)`` of an
    argument's type handles the call (static Variables record it). Made by
    ``_op_function``."""

    @property
    def __wrapped__(self) -> Any: ...
    @property
    def __name__(self) -> str: ...
    @property
    def __qualname__(self) -> str: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

def _op_function(target: Any, name: str, doc: Any) -> OpFunction:
    """An ``OpFunction`` running ``target`` on tensors and handing other calls to
    ``__ferrograd_function__(name, args, kwargs)``."""

@final
class _Program:
    """The Rust side of a static program: variables and op records."""

    def __new__(cls) -> Self: ...
    def duplicate(self) -> _Program:
        """A copy with its own identity."""
    @property
    def id(self) -> int:
        """Process-unique id."""
    @property
    def version(self) -> int:
        """Changes with every edit."""
    def num_vars(self) -> int:
        """Number of variables."""
    def op_types(self) -> list[str]:
        """Op names in execution order."""
    def create_var(
        self, name: str, dtype: _DTypeLike, shape: Sequence[int | None], kind: str
    ) -> int:
        """Declares a variable (kind: data, parameter, temp, declared, grad); returns its id."""
    def var_info(self, id: int) -> tuple[str, str, list[int], str]:
        """``(name, dtype name, shape with -1 for run-time dims, kind)``."""
    def find_var(self, name: str) -> int | None:
        """The id of the variable called ``name``."""
    def append_op(self, op: str, inputs: Sequence[int], **attrs: Any) -> int:
        """Appends an op; infers the output's shape and dtype; returns its id."""
    def append_op_multi(self, op: str, inputs: Sequence[int], **attrs: Any) -> list[int]:
        """Appends an op with several outputs (``split``, ``unbind``); returns their ids."""
    def append_optimizer_step(
        self,
        rule: str,
        params: Sequence[int],
        grads: Sequence[int],
        steps: Sequence[int],
        buffers: Sequence[int],
        lr: int,
        **hyper: Any,
    ) -> None:
        """Appends an optimizer update (``rule`` "sgd" or "adam") of ``params``."""
    def append_constant(self, value: Any, like: int | None = None) -> int:
        """Appends a constant (Tensor, or scalar typed like variable ``like``)."""
    def append_init(
        self, param: int, kind: str, a: float = 0.0, b: float = 0.0, value: Tensor | None = None
    ) -> None:
        """Appends a parameter initialisation (constant, uniform, normal, value)."""
    def append_assign(self, src: int, dst: int) -> None:
        """Appends ``dst = src``."""
    def append_py_func(
        self,
        func: Callable[..., Any],
        backward_func: Callable[..., Any] | None,
        inputs: Sequence[int],
        outputs: Sequence[int],
        skip: Sequence[int],
    ) -> None:
        """Appends a ``py_func`` op."""
    def append_traced(
        self, func: Callable[..., Any], inputs: Sequence[int], outputs: Sequence[int]
    ) -> None:
        """Appends a traced op: ``func`` runs an eager function on the input values
        (recorded by autograd) when the program runs."""
    def append_gradients(
        self,
        targets: Sequence[int],
        wrt: Sequence[int],
        target_grads: Sequence[int] = ...,
        blocked: Sequence[int] = ...,
    ) -> list[int | None]:
        """Appends the backward section; one gradient id (or None) per ``wrt``."""
    def describe(self) -> str:
        """A readable listing."""

@final
class _Scope:
    """Named parameter values."""

    def __new__(cls) -> Self: ...
    def get(self, name: str) -> Tensor | None:
        """The value called ``name``."""
    def set(self, name: str, value: Any) -> None:
        """Sets ``name`` (copied)."""
    def names(self) -> list[str]:
        """Names held."""
    def clear(self) -> None:
        """Removes every value."""

@final
class _Executor:
    """Runs programs with a plan cache."""

    def __new__(cls) -> Self: ...
    def cached_plans(self) -> int:
        """Number of cached plans."""
    def plan_summary(self, program: _Program, fetch: Sequence[int]) -> tuple[int, int]:
        """``(steps, fused_steps)`` of the plan for ``program`` and ``fetch``."""
    def run(
        self,
        program: _Program,
        feed: dict[str, Any] | None,
        fetch: Sequence[int],
        scope: _Scope,
        return_numpy: _bool = True,
    ) -> list[Any]:
        """Runs ``program``; returns the fetched values."""

def _py_func_eager(
    func: Callable[..., Any],
    backward_func: Callable[..., Any] | None,
    inputs: Sequence[Tensor],
    out_specs: Sequence[tuple[str, Any, Sequence[int]]],
    skip_inputs: Sequence[_bool],
    skip_outputs: Sequence[_bool],
) -> list[Tensor]:
    """Dynamic-mode ``py_func``: runs now and records a node."""

def complex(real: Tensor, imag: Tensor, name: str | None = None) -> Tensor:
    """``real + i * imag`` (float32 pair to complex64, float64 pair to complex128)."""

@final
class ParamGroupState:
    """One optimizer parameter group with its state buffers; ``sgd_step`` /
    ``adam_step`` update every parameter that has a gradient in one call."""

    def __new__(cls, params: Sequence[Tensor]) -> Self: ...
    def __len__(self) -> _int: ...
    def sgd_step(
        self,
        lr: _float,
        momentum: _float = 0.0,
        dampening: _float = 0.0,
        weight_decay: _float = 0.0,
        nesterov: _bool = False,
        maximize: _bool = False,
    ) -> _int:
        """One SGD step; returns how many parameters were updated."""
    def adam_step(
        self,
        lr: _float,
        beta1: _float = 0.9,
        beta2: _float = 0.999,
        eps: _float = 1e-8,
        weight_decay: _float = 0.0,
        decoupled: _bool = False,
        amsgrad: _bool = False,
        maximize: _bool = False,
    ) -> _int:
        """One Adam (AdamW with ``decoupled``) step; returns how many were updated."""
    def rmsprop_step(
        self,
        lr: _float,
        alpha: _float = 0.99,
        eps: _float = 1e-8,
        weight_decay: _float = 0.0,
        momentum: _float = 0.0,
        centered: _bool = False,
        maximize: _bool = False,
        paddle: _bool = False,
    ) -> _int:
        """One RMSprop step (Paddle's eps/rate placement with ``paddle``)."""
    def adagrad_step(
        self,
        lr: _float,
        lr_decay: _float = 0.0,
        weight_decay: _float = 0.0,
        eps: _float = 1e-10,
        initial_accumulator_value: _float = 0.0,
        maximize: _bool = False,
    ) -> _int:
        """One Adagrad step; new ``sum`` buffers start at ``initial_accumulator_value``."""
    def adadelta_step(
        self,
        lr: _float,
        rho: _float = 0.9,
        eps: _float = 1e-6,
        weight_decay: _float = 0.0,
        maximize: _bool = False,
    ) -> _int:
        """One Adadelta step."""
    def adamax_step(
        self,
        lr: _float,
        beta1: _float = 0.9,
        beta2: _float = 0.999,
        eps: _float = 1e-8,
        weight_decay: _float = 0.0,
        maximize: _bool = False,
        paddle: _bool = False,
    ) -> _int:
        """One Adamax step (Paddle's eps placement with ``paddle``)."""
    def sparse_grads(self) -> list[_int]:
        """The indices of the parameters whose ``.grad`` is a sparse gradient."""
    def zero_grad(self, set_to_none: _bool = True) -> None:
        """Drops every gradient, or zeros it in place."""
    def params(self) -> list[Tensor]:
        """The parameters."""
    def buffers(self, i: _int) -> list[Tensor]:
        """Parameter ``i``'s state buffers (shared)."""
    def step_count(self, i: _int) -> _int:
        """Steps taken by parameter ``i``."""
    def set_state(self, i: _int, buffers: Sequence[Tensor], step: _int) -> None:
        """Replaces parameter ``i``'s state (buffers are copied)."""

def _install_sigint_hook() -> _bool:
    """Chains ferrograd's Ctrl-C counter in front of the current SIGINT handler; True
    when installed. Done at import; call again after ``signal.signal(SIGINT, ...)``."""

def _debug_panic(message: str, where_: str = "here") -> None:
    """Test hook: panics in Rust (``"here"``, ``"worker"`` or ``"detached"``)."""

# ---- op declarations ------------------------------------------------------------------
def _unary_op_table() -> list[tuple[list[str], list[str], str, str, _bool, str | None]]:
    """The unary op declarations: ``(methods, functional names, doc, dtype rule,
    has_gradient, extra keyword)`` per op (read by ``scripts/gen_op_bindings.py``)."""

def _binary_op_table() -> list[tuple[list[str], list[str], list[str], str, str, _bool]]:
    """The binary op declarations: ``(methods, operators, operand keywords, doc, dtype
    rule, has_gradient)`` per op (read by ``scripts/gen_op_bindings.py``)."""

def _reduce_op_table() -> list[
    tuple[str, str, list[str], list[str], list[str], str, str, _bool, str]
]:
    """The reduction declarations: ``(name, doc, params, keyword-only params, the other
    dialect's positional order, dtype rule, axes kind, has_gradient, backward node)`` per
    op (read by ``scripts/gen_op_bindings.py``)."""

def _creation_op_table() -> list[tuple[str, str, str]]:
    """The table-declared factories: ``(name, family macro, doc)`` per factory (read by
    ``scripts/gen_op_bindings.py``)."""

def _shape_op_table() -> list[
    tuple[str, str, list[str], list[str], str, _bool, str, str, _int, str]
]:
    """The shape-op declarations: ``(name, doc, params, keyword-only params, view kind,
    has a static rule, backward node, varargs name ("" if none), arity, Python signature)``
    per op (read by ``scripts/gen_op_bindings.py``)."""

# ---- custom layers (PyLayer / autograd.Function) and saved-tensor hooks --------------
@disjoint_base
class FunctionCtx:
    """The ``ctx`` of a custom layer: saved tensors, flags, and any attribute."""

    def __init__(self) -> None: ...
    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Saves tensors for backward (``pack`` hooks run here)."""
    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The saved tensors (``()`` when none were saved)."""
    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        """PyTorch's old name for ``saved_tensors`` (warns ``DeprecationWarning``)."""
    def saved_tensor(self) -> tuple[Tensor | None, ...] | None:
        """Paddle's form: the saved tensors, or ``None`` when none were saved."""
    @property
    def needs_input_grad(self) -> tuple[_bool, ...]:
        """Per argument of ``apply``: whether it is a tensor that needs a gradient."""
    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs that get no gradient."""
    def mark_dirty(self, *tensors: Tensor) -> None:
        """Inputs that forward modified in place."""
    def mark_not_inplace(self, *tensors: Tensor) -> None:
        """Inputs returned unchanged by forward (returned as new views)."""
    def set_materialize_grads(self, value: _bool) -> None:
        """Whether missing output gradients reach backward as zeros (default) or None."""
    def set_grad_in_dtype_consistent(self, value: _bool) -> None:
        """Paddle: with ``False``, the gradients backward receives keep the dtype they were
        computed in instead of being cast to the dtypes of forward's outputs (``True``)."""
    @property
    def materialize_grads(self) -> _bool:
        """See ``set_materialize_grads``."""
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any, /) -> None: ...
    def __delattr__(self, name: str, /) -> None: ...

def _apply_paddle(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``PyLayer.apply``."""

def _apply_torch(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``autograd.Function.apply``."""

def _lazy_dict_active() -> dict[str, _bool | None]:
    """Whether tensors and ctx objects are made without the eager instance dict."""

def _bind_apply(cls: type, torch: _bool) -> Any:
    """``cls.apply`` as a builtin function bound to ``cls`` (no method object, no tuple)."""

def _delayed_error(outputs: list[Any], inputs: list[Tensor], message: str) -> list[Any]:
    """Views of ``outputs`` whose backward raises ``message`` (``once_differentiable``)."""

def _forward_ad_pass(entering: _bool, hook: Any) -> None:
    """Enters or leaves forward-mode AD's reverse pass, where custom layers' nodes call
    ``hook(cls, backward, ctx, *grads)`` instead of ``backward`` (``_fwd_function``)."""

def _ctx_output_attribute(ctx: FunctionCtx, name: str) -> Any:
    """Reads a ctx attribute that holds one of the layer's outputs (held weakly)."""

def _ctx_forget_output_attribute(ctx: FunctionCtx, name: str) -> _bool:
    """Drops the weakly held output attribute ``name``; true if there was one."""

@disjoint_base
class saved_tensors_hooks:
    """``autograd.graph.saved_tensors_hooks``: installs ``(pack_hook, unpack_hook)`` on
    this thread for the ``with`` block."""

    pack_hook: Callable[[Tensor], Any]
    unpack_hook: Callable[[Any], Tensor]
    _pack_once: _bool
    _keep_leaves: _bool
    _keep_held_leaves: _bool
    _in_memory: _bool
    def __new__(cls, *_args: Any, **_kwargs: Any) -> Self: ...
    def __init__(
        self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]
    ) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(
        self, _exc_type: Any = None, _exc_value: Any = None, _traceback: Any = None
    ) -> None: ...

def _push_saved_tensors_hooks(
    pack_hook: Callable[[Tensor], Any],
    unpack_hook: Callable[[Any], Tensor],
    once: _bool = False,
    keep_leaves: _bool = False,
    keep_held_leaves: _bool = False,
) -> None:
    """Enters a ``saved_tensors_hooks`` level on this thread. ``once``: a view of a
    storage this level already packed reuses what ``pack_hook`` returned; ``keep_leaves``:
    leaves that require grad are saved as they are instead of being packed;
    ``keep_held_leaves``: so are leaves without grad that a Python object holds when
    saved (the caller's input)."""

def _queue_callback(callback: Callable[[], Any]) -> None:
    """Queues ``callback()`` to run once the backward pass now running on this thread has
    finished; only valid from a hook during backward."""

def _pop_saved_tensors_hooks() -> None:
    """Leaves the innermost ``saved_tensors_hooks`` level on this thread."""

def _saved_tensors_hooks_depth() -> _int:
    """Number of active hook levels on this thread."""

def _set_saved_tensors_hooks_disabled(message: str | None) -> str | None:
    """Disables hooks on this thread with ``message`` (None re-enables); returns the
    previous setting."""

def _set_anomaly_enabled(enabled: _bool, check_nan: _bool) -> None:
    """Switches anomaly mode (process-wide)."""

def _is_anomaly_enabled() -> _bool:
    """Whether anomaly mode is on."""

def _is_anomaly_check_nan_enabled() -> _bool:
    """Whether anomaly mode checks backward results for NaN."""

def _set_warn_always(enabled: _bool) -> None:
    """``torch.set_warn_always``'s core."""

def _is_warn_always_enabled() -> _bool:
    """``torch.is_warn_always_enabled``'s core."""

# --- sliding windows: convolution and pooling (nn/fn_conv.py, nn/fn_pool.py) -----------

def _unfold(
    x: Tensor,
    kernel: Sequence[_int],
    stride: Sequence[_int],
    dilation: Sequence[_int],
    pad_lo: Sequence[_int],
    pad_hi: Sequence[_int],
) -> Tensor:
    """im2col: ``[N, C, *S]`` → ``[N, C*prod(kernel), L]`` (differentiable)."""

def _fold(
    cols: Tensor,
    spatial: Sequence[_int],
    kernel: Sequence[_int],
    stride: Sequence[_int],
    dilation: Sequence[_int],
    pad_lo: Sequence[_int],
    pad_hi: Sequence[_int],
) -> Tensor:
    """col2im: ``[N, C*prod(kernel), L]`` → ``[N, C, *spatial]``, overlaps summed."""

def _max_pool_indices(
    x: Tensor,
    kernel: Sequence[_int],
    stride: Sequence[_int],
    dilation: Sequence[_int],
    pad_lo: Sequence[_int],
    pad_hi: Sequence[_int],
) -> Tensor:
    """Max pooling's positions: int64 ``[N, C, *out]`` within each ``[N, C]`` plane."""

def _take_in_planes(x: Tensor, index: Tensor) -> Tensor:
    """``x`` read at per-plane positions ``index`` (differentiable)."""

def _unpool_put(x: Tensor, index: Tensor, size: Sequence[_int]) -> Tensor:
    """Zeros ``[N, C, *size]`` with ``x`` written at per-plane positions ``index``."""

# --- 2-D grid sampling behind nn.functional.grid_sample (src/python/tensor/grid_sample.rs)

def _grid_sample_2d(
    input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: _bool
) -> Tensor:
    """``input`` ``[N, C, H, W]`` sampled at ``grid`` ``[N, Ho, Wo, 2]`` (no graph)."""

def _grid_sample_2d_backward(
    grad: Tensor,
    input: Tensor,
    grid: Tensor,
    mode: str,
    padding_mode: str,
    align_corners: _bool,
    need_input: _bool,
    need_grid: _bool,
) -> tuple[Tensor | None, Tensor | None]:
    """The input's and the grid's gradients of ``_grid_sample_2d`` (None unless asked)."""

# --- fused network ops behind nn.functional (src/python/tensor/fused.rs) ----------------

def _layer_norm(
    x: Tensor,
    normalized_ndim: _int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: _float = 1e-05,
) -> Tensor:
    """Layer norm over the last ``normalized_ndim`` dims (one graph node)."""

def _class_loss(
    x: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: _int,
    reduction: str,
    label_smoothing: _float,
    log_softmax: _bool,
) -> Tensor:
    """Cross entropy (``log_softmax``) or NLL of class ids (one graph node)."""

def _dropout(x: Tensor, p: _float, upscale: _bool) -> Tensor:
    """Dropout with ``0 < p < 1`` (one graph node; mask from the default generator)."""

def _linear(x: Tensor, weight: Tensor, bias: Tensor | None = None, in_out: _bool = False) -> Tensor:
    """``x @ weight.T + bias`` with ``weight`` ``[out, in]``, or with ``in_out``
    ``x @ weight + bias`` with ``weight`` ``[in, out]`` (one graph node)."""

# --- fused recurrent layer (nn/rnn.py) ------------------------------------------------

def _rnn_layer(
    xp: Tensor, w_hh: Tensor, h0: Tensor, extra: Tensor | None, mode: str, reverse: _bool
) -> Tensor:
    """One LSTM / GRU / RNN_TANH / RNN_RELU layer over all steps: the states
    ``[S, T, B, H]`` (``extra``: the LSTM's ``c0`` or the GRU's ``b_hh``)."""

# --- fused attention (nn/fn_attention.py, src/python/tensor/attention.rs) ---------------

def _sdpa(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    dropout_p: _float = 0.0,
    is_causal: _bool = False,
    scale: _float | None = None,
) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` as one graph node (memory-saving backward)."""

# --- fused batch norm (nn/fn_norm.py, src/python/tensor/batch_norm.rs) -----------------

def _batch_norm(
    x: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_batch_stats: _bool,
    eps: _float,
    cdim: _int,
) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """Batch norm over every dim but ``cdim`` (one graph node); with batch statistics
    also returns the batch mean and biased variance."""

# --- fused convolution (nn/fn_conv.py) ---------------------------------------------------

def _conv(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[_int],
    dilation: Sequence[_int],
    pad_lo: Sequence[_int],
    pad_hi: Sequence[_int],
    groups: _int,
    path: str = "auto",
) -> Tensor:
    """Convolution ``[N, C, *S]`` x ``[O, C/groups, *k]`` (+ bias ``[O]``) → ``[N, O, *out]``
    as one op; ``path``: "auto", "gemm" (im2col), "shift" (one product per kernel row
    over the padded input, where the stride is 1; else as "gemm") or "direct"."""
