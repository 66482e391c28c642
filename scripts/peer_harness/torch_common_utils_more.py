"""More of ``torch.testing._internal.common_utils``, for PyTorch's ``test/nn`` files
(session 42): flags, decorators and context managers, each with upstream's meaning on a
CPU-only build without TorchDynamo, written from their observable behaviour.

Re-exported by ``torch_common_utils``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile

import ferrograd
import numpy as np

from peer_harness.torch_parametrize import parametrize

__all__ = [
    "IS_JETSON",
    "TEST_WITH_ROCM",
    "dtype2prec_DONTUSE",
    "TemporaryFileName",
    "numpy_to_torch_dtype_dict",
    "torch_to_numpy_dtype_dict",
    "TEST_NUMPY",
    "TEST_PRIVATEUSE1",
    "TEST_SCIPY",
    "freeze_rng_state",
    "load_tests",
    "markDynamoStrictTest",
    "set_default_dtype",
    "skipIfCrossRef",
    "skipIfNoLapack",
    "swap",
    "xfailIfTorchDynamo",
]

# NumPy and SciPy are installed here; no out-of-tree (PrivateUse1) device is registered
TEST_NUMPY = True
TEST_SCIPY = True
TEST_PRIVATEUSE1 = False
# not a ROCm build, not an NVIDIA Jetson board
TEST_WITH_ROCM = False
IS_JETSON = False


def load_tests(loader, tests, pattern):
    """unittest's ``load_tests`` protocol: upstream's filters the tests for CI sharding
    (and checks they come from the running file); here every test is kept."""
    return tests


def markDynamoStrictTest(cls_or_func=None, nopython=False):  # noqa: N802  (torch's name)
    """Upstream runs the class under TorchDynamo's strict mode when Dynamo is on; without
    Dynamo it returns the class unchanged. Works bare or called with arguments."""
    if cls_or_func is None:
        return lambda c: c
    return cls_or_func


def xfailIfTorchDynamo(fn):  # noqa: N802  (torch's name)
    """Expected to fail only under TorchDynamo (off here): the test runs normally."""
    return fn


def skipIfCrossRef(fn):  # noqa: N802  (torch's name)
    """Skips only in PyTorch's cross-reference CI mode (off here): the test runs."""
    return fn


def skipIfNoLapack(fn):  # noqa: N802  (torch's name)
    """Skips when PyTorch was built without LAPACK; ferrograd's linear algebra is always
    there, so the test runs."""
    return fn


@contextlib.contextmanager
def set_default_dtype(dtype):
    """``torch.set_default_dtype(dtype)`` inside the block, the old default restored."""
    saved = ferrograd.get_default_dtype()
    ferrograd.set_default_dtype(dtype)
    try:
        yield
    finally:
        ferrograd.set_default_dtype(saved)


@contextlib.contextmanager
def freeze_rng_state():
    """Saves the global generator's state and restores it on exit, so that code in the
    block draws the same numbers as code after it (upstream also saves CUDA's)."""
    state = ferrograd.get_rng_state()
    try:
        yield
    finally:
        ferrograd.set_rng_state(state)


def swap(swap_values):
    """Parametrizes a test over ``torch.__future__``'s swap-module-params flag: one test
    per value (named ``..._swap_<value>``), run with the flag set to it and reset to
    False after, as upstream. ``swap=False`` is the default behaviour, so where
    ferrograd has no ``torch.__future__`` flag that variant runs without setting it; the
    ``swap=True`` variant fails there (it needs ``torch.utils.swap_tensors``)."""

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, swap, **kwargs):
            future = getattr(ferrograd, "__future__", None)
            if future is None and not swap:
                return fn(self, *args, **kwargs)
            if future is None:
                raise AttributeError(
                    "torch.__future__.set_swap_module_params_on_conversion is not "
                    "provided (module parameters swapped with torch.utils.swap_tensors)"
                )
            future.set_swap_module_params_on_conversion(swap)
            try:
                return fn(self, *args, **kwargs)
            finally:
                future.set_swap_module_params_on_conversion(False)

        return parametrize("swap", swap_values)(wrapper)

    return decorator


# upstream's tables between NumPy's scalar types and torch's dtypes (the dtypes both
# have; ferrograd has no unsigned type wider than uint8)
numpy_to_torch_dtype_dict = {
    np.bool_: ferrograd.bool,
    np.uint8: ferrograd.uint8,
    np.int8: ferrograd.int8,
    np.int16: ferrograd.int16,
    np.int32: ferrograd.int32,
    np.int64: ferrograd.int64,
    np.float16: ferrograd.float16,
    np.float32: ferrograd.float32,
    np.float64: ferrograd.float64,
    np.complex64: ferrograd.complex64,
    np.complex128: ferrograd.complex128,
}
torch_to_numpy_dtype_dict = {v: k for k, v in numpy_to_torch_dtype_dict.items()}


@contextlib.contextmanager
def TemporaryFileName(*args, **kwargs):  # noqa: N802  (torch's name)
    """The name of a fresh temporary file, removed after the block (upstream's helper)."""
    with tempfile.TemporaryDirectory() as folder:
        yield os.path.join(folder, "tmp")


# upstream's absolute tolerances per floating dtype (kept for older tests, as its name says)
dtype2prec_DONTUSE = {
    ferrograd.float32: 1e-5,
    ferrograd.float64: 1e-5,
    ferrograd.float16: 1e-2,
    ferrograd.bfloat16: 1e-1,
}
