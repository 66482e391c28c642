"""PyTorch creation functions and small queries that its docstring examples call:
``asarray``, ``frombuffer``, ``empty_strided`` / ``Tensor.new_empty_strided``,
``empty_permuted``, ``nonzero_static`` and ``is_conj`` / ``is_neg``.

Sharing follows PyTorch (torch/csrc/utils/tensor_new.cpp, ``asarray`` and
``tensor_frombuffer``): a Tensor, NumPy array or buffer is aliased unless a copy is asked
for (``copy=True``) or needed (another dtype); ``copy=False`` where a copy is needed
raises. Buffers and arrays are shared the way ``from_numpy`` shares them.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import numpy as np

from . import _core
from ._dtype_info import _dtype

Tensor = _core.Tensor

__all__ = [
    "asarray",
    "empty_permuted",
    "empty_strided",
    "frombuffer",
    "is_conj",
    "is_neg",
    "nonzero_static",
]


def _check_device(op: str, device: Any) -> None:
    """Refuses any device but the CPU, as the factories do."""
    if device is not None and str(device).split(":")[0] != "cpu":
        raise ValueError(f"{op}: ferrograd runs on the CPU only; got device '{device}'")


def _ints(op: str, what: str, v: Any) -> list[int]:
    """A list of ints from a tuple / list / Size (or one int), else a TypeError."""
    if isinstance(v, (list, tuple)):
        try:
            return [operator.index(e) for e in v]
        except TypeError:
            pass
    else:
        try:
            return [operator.index(v)]
        except TypeError:
            pass
    raise TypeError(f"{op}(): argument '{what}' must be a tuple of ints, got {v!r}")


def _np_dtype(op: str, dt: Any) -> np.dtype:
    """The NumPy dtype with the same memory layout as ferrograd dtype ``dt``."""
    try:
        return np.dtype(dt.name)
    except TypeError:
        raise TypeError(
            f"{op}: dtype {dt} has no NumPy equivalent, so its memory cannot be shared; "
            "read the buffer with another dtype and convert with .to(dtype)"
        ) from None


def frombuffer(
    buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """``torch.frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False)``:
    a 1-D tensor sharing the memory of an object with the buffer protocol (bytes,
    bytearray, array.array, memoryview, ...): ``count`` elements of ``dtype`` (-1: all
    that fit) starting ``offset`` bytes in. Writes show on both sides; a read-only buffer
    gives a read-only tensor. Errors as PyTorch's (ValueError)."""
    dt = _dtype(dtype)
    count, offset = operator.index(count), operator.index(offset)
    try:
        nbytes = memoryview(buffer).nbytes
    except TypeError:
        raise TypeError(
            f"frombuffer: could not retrieve buffer from object of type {type(buffer).__name__}"
        ) from None
    size = dt.itemsize
    # the checks and messages of PyTorch's tensor_frombuffer
    if nbytes <= 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if not 0 <= offset < nbytes:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({nbytes} bytes) minus 1"
        )
    if count < 0 and (nbytes - offset) % size:
        raise ValueError(
            f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be "
            f"a multiple of element size ({size})"
        )
    n = (nbytes - offset) // size if count < 0 else count
    if offset + n * size > nbytes:
        raise ValueError(
            f"requested buffer length ({n} * {size} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({nbytes} bytes)"
        )
    arr = np.frombuffer(buffer, dtype=_np_dtype("frombuffer", dt), count=n, offset=offset)
    out = _core.from_numpy(arr)
    return out.requires_grad_(True) if requires_grad else out


def _asarray_tensor(x: Tensor, dt: Any, copy: Optional[bool], requires_grad: bool) -> Tensor:
    """``asarray`` of a Tensor: the same memory unless a copy is asked for or needed."""
    wrong_dtype = dt is not None and dt != x.dtype
    if copy is False and wrong_dtype:
        raise ValueError(f"can't alias tensor with dtype '{x.dtype}' into dtype '{dt}'.")
    if copy or wrong_dtype:
        out = x.detach().to(dt if dt is not None else x.dtype)
        if not wrong_dtype:
            out = out.clone()
        return out.requires_grad_(True) if requires_grad else out
    if requires_grad and x.requires_grad and not x.is_leaf:
        return x  # PyTorch keeps a non-leaf that requires grad as it is
    # an alias that is a new leaf (PyTorch flips the flag on the input itself instead)
    out = x.detach()
    return out.requires_grad_(True) if requires_grad else out


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: Optional[bool] = None,
    requires_grad: bool = False,
) -> Tensor:
    """``torch.asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False)``:
    ``obj`` (a Tensor, NumPy array or scalar, object with the buffer protocol, or
    nested sequence / Python scalar) as a tensor. Tensors, arrays and buffers share their
    memory unless ``copy=True`` or another ``dtype`` needs a copy; ``copy=False`` then
    raises ValueError, as it does for a sequence or NumPy scalar, which always copy.
    A buffer without ``dtype`` is read as the default dtype (PyTorch's rule)."""
    _check_device("asarray", device)
    dt = None if dtype is None else _dtype(dtype)
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"asarray(): argument 'copy' must be bool or None, not {type(copy)}")
    if isinstance(obj, Tensor):
        return _asarray_tensor(obj, dt, copy, requires_grad)
    if isinstance(obj, np.generic):
        if copy is False:
            raise ValueError(
                "can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray."
            )
        return _asarray_tensor(_core.tensor(np.asarray(obj)), dt, None, requires_grad)
    if isinstance(obj, np.ndarray):
        try:
            shared = _core.from_numpy(obj)
        except (TypeError, ValueError) as e:
            if copy is False:
                raise ValueError(
                    f"asarray(copy=False): cannot share this array's memory: {e}"
                ) from e
            shared = _core.tensor(obj)
            copy = False  # already a fresh copy
        return _asarray_tensor(shared, dt, copy, requires_grad)
    if not isinstance(obj, (str, list, tuple)):
        try:
            memoryview(obj)
        except TypeError:
            pass
        else:
            buf = frombuffer(obj, dtype=_dtype(dt))  # None: the default dtype
            return _asarray_tensor(buf, None, copy, requires_grad)
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    out = _core.tensor(obj) if dt is None else _core.tensor(obj, dtype=dt)
    return out.requires_grad_(True) if requires_grad else out


def _finish(op: str, out: Tensor, device: Any, requires_grad: bool, options: dict) -> Tensor:
    """Checks the factory keywords PyTorch accepts and applies ``requires_grad``."""
    _check_device(op, device)
    unknown = set(options) - {"layout", "pin_memory", "memory_format"}
    if unknown:
        raise TypeError(f"{op}() got unexpected keyword arguments {sorted(unknown)}")
    return out.requires_grad_(True) if requires_grad else out


def _strided_fresh(op: str, size: Any, stride: Any, dt: Any) -> Tensor:
    """A fresh zero-filled buffer of the needed extent, viewed with ``size`` / ``stride``."""
    sizes, strides = _ints(op, "size", size), _ints(op, "stride", stride)
    if len(sizes) != len(strides):
        raise RuntimeError(
            f"{op}: mismatch in length of strides and shape: got {len(sizes)} sizes and "
            f"{len(strides)} strides"
        )
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{op}: negative dimension in size {sizes}")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"{op}: negative strides are not supported, got {strides}")
    extent = 0 if 0 in sizes else 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    _check_extent(op, sizes, strides, extent, dt)
    # zeros, not garbage: "empty" promises nothing, and zeros are deterministic
    return _core.zeros([extent], dtype=dt)._as_strided(sizes, strides, 0)


_INT64_MAX = 2**63 - 1


def _check_extent(op: str, sizes: list[int], strides: list[int], extent: int, dt: Any) -> None:
    """PyTorch's overflow checks (c10 ``computeStorageNbytes``: "Storage size calculation
    overflowed"; ``safe_compute_numel``): a size, stride, element count or byte count past
    int64 is a RuntimeError naming the overflow, not a TypeError about a huge number. A
    count that fits but is too big for this machine is left to the allocation's
    MemoryError."""
    itemsize = (_core._get_default_dtype() if dt is None else dt).itemsize
    numel = 1
    for n in sizes:
        numel *= n
    if (
        any(v > _INT64_MAX for v in (*sizes, *strides))
        or numel > _INT64_MAX
        or extent * itemsize > _INT64_MAX
    ):
        raise RuntimeError(
            f"{op}: Storage size calculation overflowed with sizes={sizes} and "
            f"strides={strides}: the view's {numel} elements or the storage's {extent} "
            f"elements of {itemsize} bytes do not fit in int64; use smaller sizes or strides"
        )


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **options: Any,
) -> Tensor:
    """``torch.empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False)``:
    a new tensor of shape ``size`` with exactly the strides ``stride`` (in elements) over
    fresh memory of the needed extent (zero-filled here). Overlapping strides (0) are
    allowed, negative ones refused."""
    out = _strided_fresh("empty_strided", size, stride, _dtype(dtype))
    return _finish("empty_strided", out, device, requires_grad, options)


def _new_empty_strided(
    self: Tensor,
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **options: Any,
) -> Tensor:
    """``x.new_empty_strided(size, stride, *, dtype=None, ...)``: ``empty_strided`` with
    ``x``'s dtype unless ``dtype`` is given."""
    dt = _dtype(dtype) if dtype is not None else self.dtype
    out = _strided_fresh("new_empty_strided", size, stride, dt)
    return _finish("new_empty_strided", out, device, requires_grad, options)


_new_empty_strided.__name__ = _new_empty_strided.__qualname__ = "new_empty_strided"


def empty_permuted(
    size: Any,
    physical_layout: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **options: Any,
) -> Tensor:
    """``torch.empty_permuted(size, physical_layout, *, dtype=None, ...)``: a new
    tensor of logical shape ``size`` whose memory is laid out with its dims in the order
    ``physical_layout`` (a permutation; ``(0, 2, 3, 1)`` is channels-last for NCHW), so
    ``empty_permuted(s, p)`` has the strides of ``empty([s[i] for i in p]).permute(inv(p))``."""
    sizes = _ints("empty_permuted", "size", size)
    perm = _ints("empty_permuted", "physical_layout", physical_layout)
    if len(perm) != len(sizes):
        raise RuntimeError(
            f"empty_permuted: Number of dimensions in size does not match the length of the "
            f"physical_layout; i.e. len(size) = {len(sizes)} is not equal to "
            f"len(physical_layout) = {len(perm)}"
        )
    if sorted(perm) != list(range(len(sizes))):
        raise RuntimeError(
            f"empty_permuted: physical_layout {perm} must be a permutation of "
            f"0..{len(sizes) - 1}, each dim once"
        )
    strides = [0] * len(sizes)
    running = 1
    for d in reversed(perm):  # the last physical dim is the fastest
        strides[d] = running
        running *= max(sizes[d], 1)
    out = _strided_fresh("empty_permuted", sizes, strides, _dtype(dtype))
    return _finish("empty_permuted", out, device, requires_grad, options)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``torch.nonzero_static(input, *, size, fill_value=-1)``: ``nonzero(input)`` (int64,
    shape ``(n, input.ndim)``) cut or padded with rows of ``fill_value`` to exactly
    ``size`` rows."""
    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero_static(): expects a Tensor input, got {type(input).__name__}")
    n, fill = operator.index(size), operator.index(fill_value)
    if n < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.detach().nonzero().numpy()[:n]
    out = np.full((n, input.ndim), fill, dtype=np.int64)
    out[: found.shape[0]] = found
    return _core.tensor(out)


def is_conj(input: Tensor) -> bool:
    """``torch.is_conj(x)``: False. ferrograd has no lazy conjugate bit: ``conj()`` of a
    complex tensor is computed, as PyTorch's after ``resolve_conj()``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_conj(): argument 'input' must be Tensor, not {type(input).__name__}")
    return False


def is_neg(input: Tensor) -> bool:
    """``torch.is_neg(x)``: False. ferrograd has no lazy negative bit (PyTorch's after
    ``resolve_neg()``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_neg(): argument 'input' must be Tensor, not {type(input).__name__}")
    return False


def _nonzero_static_method(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``x.nonzero_static(*, size, fill_value=-1)``: see ``ferrograd.nonzero_static``."""
    return nonzero_static(self, size=size, fill_value=fill_value)


_nonzero_static_method.__name__ = _nonzero_static_method.__qualname__ = "nonzero_static"


def install_tensor_methods() -> None:
    """Adds ``new_empty_strided``, ``nonzero_static``, ``is_conj`` and ``is_neg`` to
    ``Tensor``."""
    Tensor.new_empty_strided = _new_empty_strided  # type: ignore[method-assign]
    Tensor.nonzero_static = _nonzero_static_method  # type: ignore[method-assign]
    Tensor.is_conj = is_conj  # type: ignore[method-assign]
    Tensor.is_neg = is_neg  # type: ignore[method-assign]


# installed on import (the package imports this module through _namespace_composed.py)
install_tensor_methods()
