"""Tensor memory as NumPy arrays for MPI, without copies: every dtype is viewed through
mpi4py's raw-byte buffer of the tensor's storage (bfloat16 and float16 as their raw 16-bit
patterns, so moving them is exact), and reductions on half types go through float32 (MPI
has no half-precision arithmetic; a float32 sum rounded once is what torch's gloo does)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ferrograd as fg

from ._mpi import mpi

# dtype name -> (NumPy dtype of the raw view, small code used in cross-rank checks)
_RAW = {
    "bool": (np.bool_, 1),
    "int32": (np.int32, 2),
    "int64": (np.int64, 3),
    "float16": (np.uint16, 4),
    "bfloat16": (np.uint16, 5),
    "float32": (np.float32, 6),
    "float64": (np.float64, 7),
    "complex64": (np.complex64, 8),
    "complex128": (np.complex128, 9),
    "uint8": (np.uint8, 10),
    "int8": (np.int8, 11),
    "int16": (np.int16, 12),
}
HALF = ("float16", "bfloat16")


def dtype_name(t: fg.Tensor) -> str:
    """``'float32'`` for ``ferrograd.float32`` etc."""
    return str(t.dtype).rsplit(".", 1)[-1]


def dtype_code(t: fg.Tensor) -> int:
    """A small integer naming the dtype (for cross-rank agreement checks)."""
    return _RAW[dtype_name(t)][1]


def name_of_code(code: int) -> str:
    """The dtype name of a code from :func:`dtype_code`."""
    for k, (_, c) in _RAW.items():
        if c == code:
            return k
    return f"<dtype code {code}>"


def check_tensor(t: Any, what: str) -> fg.Tensor:
    """``t`` if it is a contiguous Tensor, else TypeError / ValueError saying what to do."""
    if not isinstance(t, fg.Tensor):
        raise TypeError(f"{what} must be a ferrograd Tensor, got {type(t).__name__}")
    if not t.is_contiguous():
        raise ValueError(
            f"{what} must be contiguous (collectives work in place on its memory); call "
            ".contiguous() first and use the result"
        )
    return t


def raw_view(t: fg.Tensor) -> np.ndarray:
    """A writable NumPy view of ``t``'s memory (half types as uint16 bit patterns)."""
    np_dtype = _RAW[dtype_name(t)][0]
    if t.numel() == 0:
        return np.zeros(list(t.shape), dtype=np_dtype)
    # detach(): the same memory without the requires-grad flag, which the export rule
    # (docs/reliability.md) would refuse; memory saved for backward still goes out
    # read-only, so a collective can never rewrite it behind autograd's back.
    return np.frombuffer(mpi().buffer(t.detach()), dtype=np_dtype).reshape(list(t.shape))


def half_to_f32(raw: np.ndarray, name: str) -> np.ndarray:
    """float32 values of 16-bit patterns ``raw`` holding ``name`` (float16/bfloat16)."""
    if name == "float16":
        return raw.view(np.float16).astype(np.float32)
    return (raw.astype(np.uint32) << 16).view(np.float32)


def f32_to_half(values: np.ndarray, name: str, out: np.ndarray) -> None:
    """Writes ``values`` (float32) rounded to nearest-even into the 16-bit patterns ``out``."""
    if name == "float16":
        out[...] = values.astype(np.float16).view(np.uint16)
        return
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    nan = np.isnan(values)
    if nan.any():
        rounded[nan] = ((bits[nan] >> 16) | np.uint32(0x0040)).astype(np.uint16)  # quiet NaN
    out[...] = rounded


def mpi_type(arr: np.ndarray) -> Any:
    """The MPI datatype of a raw view's elements."""
    MPI = mpi()
    return {
        np.dtype(np.bool_): MPI.C_BOOL,
        np.dtype(np.int32): MPI.INT32_T,
        np.dtype(np.int64): MPI.INT64_T,
        np.dtype(np.uint16): MPI.UINT16_T,
        np.dtype(np.uint8): MPI.UINT8_T,
        np.dtype(np.int8): MPI.INT8_T,
        np.dtype(np.int16): MPI.INT16_T,
        np.dtype(np.float32): MPI.FLOAT,
        np.dtype(np.float64): MPI.DOUBLE,
        np.dtype(np.complex64): MPI.C_FLOAT_COMPLEX,
        np.dtype(np.complex128): MPI.C_DOUBLE_COMPLEX,
    }[arr.dtype]


def msg(arr: np.ndarray) -> list:
    """An mpi4py buffer spec ``[array, datatype]`` (mpi4py infers the count, and divides
    it by the group size for the gathered/scattered side of a collective)."""
    return [arr, mpi_type(arr)]
