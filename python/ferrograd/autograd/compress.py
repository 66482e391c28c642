"""Compressed saved tensors: saved-tensor hooks that keep what forward saves in fewer
bytes. ``save_compressed`` rounds floating tensors to 16 bits (lossy, bounded);
``save_lossless`` keeps exact values as a bit mask plus the non-zero entries when that is
smaller (ReLU outputs, dropout masks, mostly-zero tensors).

Both pack a tensor saved by several nodes (e.g. ``tanh``'s output, saved by ``tanh`` and
by the matmul that reads it) once: the hook level remembers which views it packed. Both
save parameters (leaves that require grad) as they are: those stay in memory anyway. So
is a leaf without grad that the caller holds when it is saved (the model's input): the
caller keeps it alive, so a packed copy would add memory instead of saving it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .graph import saved_tensors_hooks

__all__ = ["save_compressed", "save_lossless"]

# float16's largest finite value: larger magnitudes would round to inf
_F16_MAX = 65504.0
_WIDE_FLOATS = frozenset(["float32", "float64"])


class _CompressingHooks(saved_tensors_hooks):
    """Shared bookkeeping: how many tensors were packed and their bytes before/after."""

    _pack_once = True
    _keep_leaves = True  # parameters stay alive anyway: a packed copy would only add memory
    _keep_held_leaves = True  # so does the caller's input (a leaf its Python object holds)

    def __init__(self, pack: Any, unpack: Any) -> None:
        self.tensors = 0
        self.bytes_in = 0
        self.bytes_out = 0
        super().__init__(pack, unpack)

    def _count(self, t: Any, nbytes_out: int) -> None:
        self.tensors += 1
        self.bytes_in += t.numel() * t.element_size()
        self.bytes_out += nbytes_out

    def stats(self) -> dict:
        """``tensors`` packed (each view once), ``bytes_in`` (their size as saved) and
        ``bytes_out`` (what the packed forms hold)."""
        return {"tensors": self.tensors, "bytes_in": self.bytes_in, "bytes_out": self.bytes_out}


class save_compressed(_CompressingHooks):
    """Keeps every float32/float64 saved tensor as ``dtype`` (``"bfloat16"`` or
    ``"float16"``) and converts it back on unpack; other tensors are kept as they are.

    Error bound (round to nearest): each unpacked value ``x'`` differs from the saved
    ``x`` by at most ``|x| * 2**-8`` for bfloat16 (same range as float32, so nothing
    overflows) and ``|x| * 2**-11`` for float16 when ``|x| >= 2**-14``; smaller float16
    values have an absolute error of at most ``2**-25``. A tensor with a finite value
    beyond float16's range (65504) is kept uncompressed instead of becoming inf. The
    error then enters the gradient through the backward formulas that read the value.
    """

    _in_memory = True  # the copies stay in RAM: the buffer cache stays on (docs/memory.md)

    def __init__(self, dtype: str = "bfloat16") -> None:
        name = getattr(dtype, "name", dtype)
        if name not in ("bfloat16", "float16"):
            raise ValueError(
                f"save_compressed: dtype must be 'bfloat16' or 'float16', got {dtype!r} "
                "(use save_lossless() for exact compression)"
            )
        self.dtype = name
        check_range = name == "float16"

        def pack(t: Any) -> Any:
            if t.dtype.name not in _WIDE_FLOATS:
                self._count(t, t.numel() * t.element_size())
                return (t, None)
            if check_range and t.numel():
                a = t.abs()
                big = (a > _F16_MAX).logical_and(a != float("inf")).any().item()
                if big:
                    self._count(t, t.numel() * t.element_size())
                    return (t, None)
            c = t.astype(name)
            self._count(t, c.numel() * c.element_size())
            return (c, t.dtype)

        def unpack(packed: Any) -> Any:
            c, dtype = packed
            return c if dtype is None else c.astype(dtype)

        super().__init__(pack, unpack)


class _Sparse:
    """Exact values as a bit mask of the non-zero entries (``-0.0`` counts as non-zero,
    so signs survive) plus those entries, or one repeated value when all are equal."""

    __slots__ = ("bits", "values", "shape", "np_dtype", "dtype", "size")

    bits: np.ndarray
    values: np.ndarray
    shape: tuple[int, ...]
    np_dtype: np.dtype
    dtype: Any
    size: int

    def nbytes(self) -> int:
        return self.bits.nbytes + self.values.nbytes


class save_lossless(_CompressingHooks):
    """Keeps saved tensors exactly, in fewer bytes where possible: a tensor whose
    non-zero entries (``-0.0`` included) are at most ``max_density`` of its elements is
    stored as a bit mask plus those entries, and one whose non-zero entries all hold the
    same value (a ReLU/dropout mask, ``{0, 1/(1-p)}``) as the bit mask plus that value.
    Other tensors (and complex ones) are kept as they are. Unpacking gives back the same
    bits. Packing reads the tensor once through NumPy, so it costs a pass per tensor."""

    _in_memory = True  # what it packs stays in RAM: the buffer cache stays on

    def __init__(self, max_density: float = 0.75) -> None:
        if not 0.0 <= max_density <= 1.0:
            raise ValueError(f"save_lossless: max_density must be in [0, 1], got {max_density}")
        self.max_density = max_density

        def pack(t: Any) -> Any:
            n = t.numel()
            if n == 0 or t.dtype.name.startswith("complex"):
                self._count(t, n * t.element_size())
                return t
            # a view of the tensor's memory where NumPy can read it (a float32 copy for
            # bfloat16); the raw bits decide "non-zero" (-0.0 has its sign bit: non-zero)
            # and "the same value" (equal bits, NaN included), one bool temporary each
            a = np.ascontiguousarray(np.asarray(t)).reshape(-1)
            bits = a.view(f"u{a.dtype.itemsize}")
            nz = bits != 0
            nnz = int(np.count_nonzero(nz))
            itemsize = t.element_size()
            first = int(np.argmax(nz))
            if nnz and np.count_nonzero(bits == bits[first]) == nnz:
                values = a[first : first + 1]  # one repeated value (a mask)
            elif nnz <= self.max_density * n:
                values = a[nz]
            else:
                values = None  # dense: kept as it is
            if values is None or (n + 7) // 8 + values.size * a.dtype.itemsize >= n * itemsize:
                self._count(t, n * itemsize)
                return t
            s = _Sparse()
            s.bits, s.values, s.shape = np.packbits(nz), values.copy(), tuple(t.shape)
            s.np_dtype, s.dtype, s.size = a.dtype, t.dtype, n
            self._count(t, s.nbytes())
            return s

        def unpack(packed: Any) -> Any:
            if not isinstance(packed, _Sparse):
                return packed
            nz = np.unpackbits(packed.bits, count=packed.size).astype(bool)
            a = np.zeros(packed.size, dtype=packed.np_dtype)
            a[nz] = packed.values
            t = _core.from_numpy(a.reshape(packed.shape))
            return t if t.dtype == packed.dtype else t.astype(packed.dtype)

        super().__init__(pack, unpack)
