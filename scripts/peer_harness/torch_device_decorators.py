"""The test decorators of ``torch.testing._internal.common_device_type`` (session 42,
second round), with upstream's meaning for the one device ferrograd has, the CPU.

- ``dtypes(*dtypes)`` (and the per-device ``dtypesIfCPU``; ``dtypesIfCUDA`` /
  ``dtypesIfMPS`` only matter on those devices): ``instantiate_device_type_tests`` makes
  one test per dtype, named ``test_x_cpu_<dtype>`` (``float32``, ``int64``; a tuple of
  dtypes joins their names with ``_``), called with ``dtype=`` (``dtypes=`` for a
  tuple), as upstream. The CPU's own list wins over the ``"all"`` one.
- ``onlyCPU``, ``onlyOnCPUAndCUDA``, ``onlyNativeDeviceTypes``: the test runs (the CPU is
  a native device); ``onlyCUDA``, ``onlyMPS``, ``deviceCountAtLeast(n > 1)``: the test is
  skipped with upstream's reason.
- ``skipCPUIf(cond, reason)`` skips when ``cond`` holds; the decorators that skip or
  mark only on other devices or builds (``skipCUDAIf``, ``skipMeta``,
  ``expectedFailureMeta``, ...) leave the test as it is.
- ``precisionOverride({dtype: atol})``: the test's ``self.precision`` for that dtype.
"""

from __future__ import annotations

import functools
import unittest

from peer_harness.torch_common_utils_more import TEST_WITH_ROCM

__all__ = [
    "TEST_WITH_ROCM",
    "deviceCountAtLeast",
    "dtype_suffix",
    "dtypes",
    "dtypesIfCPU",
    "dtypesIfCUDA",
    "dtypesIfMPS",
    "expectedFailureMeta",
    "expectedFailureMPS",
    "largeTensorTest",
    "onlyCPU",
    "onlyCUDA",
    "onlyMPS",
    "onlyNativeDeviceTypes",
    "onlyOnCPUAndCUDA",
    "precisionOverride",
    "skipCPUIf",
    "skipCUDAIf",
    "skipCUDAIfNoCudnn",
    "skipCUDAIfRocm",
    "skipMeta",
    "skipMPS",
    "tf32_on_and_off",
]


class dtypes:  # noqa: N801  (torch's name)
    """Marks a test to be instantiated once per dtype (see the module docstring)."""

    def __init__(self, *args, device_type: str = "all"):
        for arg in args:
            if isinstance(arg, (list, tuple)):
                if not all(hasattr(d, "is_floating_point") for d in arg):
                    raise TypeError(f"Unknown dtype in {arg}")
            elif not hasattr(arg, "is_floating_point"):
                raise TypeError(f"Unknown dtype {arg}")
        self.args = args
        self.device_type = device_type

    def __call__(self, fn):
        table = dict(getattr(fn, "dtypes", {}) or {})
        if self.device_type in table:
            raise AssertionError(f"dtypes redefinition for {self.device_type}")
        table[self.device_type] = self.args
        fn.dtypes = table
        return fn


def dtypesIfCPU(*args):  # noqa: N802  (torch's name)
    """``dtypes`` for the CPU only (wins over the plain ``dtypes`` there)."""
    return dtypes(*args, device_type="cpu")


def dtypesIfCUDA(*args):  # noqa: N802  (torch's name)
    """``dtypes`` for CUDA only: no effect on the CPU."""
    return dtypes(*args, device_type="cuda")


def dtypesIfMPS(*args):  # noqa: N802  (torch's name)
    """``dtypes`` for Apple's MPS only: no effect on the CPU."""
    return dtypes(*args, device_type="mps")


def _dtype_name(dtype) -> str:
    return str(dtype).split(".")[-1]


def dtype_suffix(dtype) -> str:
    """The name suffix of one dtype case: ``_float32``, or ``_int32_float64`` for a tuple."""
    if isinstance(dtype, (list, tuple)):
        return "_" + "_".join(_dtype_name(d) for d in dtype)
    return "_" + _dtype_name(dtype)


def _only_on(*device_types: str):
    def decorator(fn):
        @functools.wraps(fn)
        def only_fn(self, *args, **kwargs):
            if self.device_type not in device_types:
                raise unittest.SkipTest(f"Only runs on {' or '.join(device_types)}")
            return fn(self, *args, **kwargs)

        return only_fn

    return decorator


onlyCPU = _only_on("cpu")  # noqa: N816  (torch's name)
onlyCUDA = _only_on("cuda")  # noqa: N816  (torch's name)
onlyMPS = _only_on("mps")  # noqa: N816  (torch's name)
# the CPU is one of PyTorch's native device types (cpu, cuda, meta, mps, ...)
onlyOnCPUAndCUDA = _only_on("cpu", "cuda")  # noqa: N816  (torch's name)
onlyNativeDeviceTypes = _only_on("cpu", "cuda", "meta", "mps", "xpu")  # noqa: N816


def deviceCountAtLeast(num_required_devices: int):  # noqa: N802  (torch's name)
    """Upstream passes a list of devices and skips below ``num_required_devices``; with
    one CPU the test gets ``["cpu"]`` and needs no more than one."""

    def decorator(fn):
        @functools.wraps(fn)
        def multi_fn(self, device, *args, **kwargs):
            if num_required_devices > 1:
                raise unittest.SkipTest(f"fewer than {num_required_devices} devices detected")
            return fn(self, [device], *args, **kwargs)

        return multi_fn

    return decorator


def skipCPUIf(condition, reason):  # noqa: N802  (torch's name)
    """Skips the test on the CPU when ``condition`` holds."""

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            if condition:
                raise unittest.SkipTest(reason)
            return fn(self, *args, **kwargs)

        return wrapper

    return decorator


def _no_op_factory(*_args, **_kwargs):
    return lambda fn: fn


def _no_op(fn):
    return fn


# decorators that act only on CUDA / ROCm / cuDNN / meta / MPS or for big memory: no-ops
skipCUDAIf = _no_op_factory  # noqa: N816  (torch's name)
largeTensorTest = _no_op_factory  # noqa: N816  (torch's name)
tf32_on_and_off = _no_op_factory
skipCUDAIfRocm = _no_op  # noqa: N816  (torch's name)
skipCUDAIfNoCudnn = _no_op  # noqa: N816  (torch's name)
skipMeta = _no_op  # noqa: N816  (torch's name)
skipMPS = _no_op  # noqa: N816  (torch's name)
expectedFailureMeta = _no_op  # noqa: N816  (torch's name)
expectedFailureMPS = _no_op  # noqa: N816  (torch's name)


class precisionOverride:  # noqa: N801  (torch's name)
    """``{dtype: atol}``: sets ``self.precision`` while the test of that dtype runs."""

    def __init__(self, d: dict):
        self.d = d

    def __call__(self, fn):
        fn.precision_overrides = dict(self.d)
        return fn
