"""Shared dtype lists of the creation and API tests (test_creation*.py, test_api_polish.py)."""

from __future__ import annotations

import numpy as np

ALL_DTYPES = [
    "bool",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]

# NumPy dtypes that ferrograd stores as they are (bfloat16 has no NumPy counterpart).
NUMPY_NATIVE = [
    np.bool_,
    np.int32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]
