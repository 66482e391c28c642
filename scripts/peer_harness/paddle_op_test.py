"""A stand-in for ``op_test``, the helper module of Paddle's test folder, with only its
device helpers: ``get_places`` (the places a test should run on), ``get_device`` (the
device a test adds besides the CPU), ``get_device_place`` (the one place a test runs on)
and ``is_custom_device``, here the CPU alone (ferrograd has no GPU build and no plug-in
devices); and its bfloat16 helpers ``convert_float_to_uint16`` /
``convert_uint16_to_float`` (a bfloat16 value as the upper 16 bits of its float32, the
form Paddle's ``Tensor.numpy()`` gives a bfloat16 tensor in); and, since session 42,
``paddle_static_guard`` (the block in static mode) and the class decorators
``skip_check_grad_ci`` / ``skip_check_inplace_ci`` (markers for ``OpTest``'s checks);
since session 42's second round ``check_out_dtype`` (a public API's output dtype in a
static program, for each input dtype). Its ``OpTest`` class
(static-graph operator checks through Paddle's C++ core) is not provided: a test class
built on it is reported as skipped (one skip per class, naming ``OpTest``), so that the
public-API test classes of the same file still run. The runner installs this module only
when the test folder has no ``op_test.py`` of its own.
"""

from __future__ import annotations

import contextlib
import unittest

import ferrograd
import numpy as np

from peer_harness.paddle_base import CPUPlace


def get_places(string_format: bool = False) -> list:
    """The places to test: ``[CPUPlace()]`` (``["cpu"]`` with ``string_format``)."""
    return ["cpu"] if string_format else [CPUPlace()]


def get_device() -> str:
    """The accelerator a test would add to its places: only ``"cpu"`` exists here."""
    return "cpu"


def get_device_place():
    """The place a test runs on: the CPU (upstream: the GPU when compiled with CUDA)."""
    return CPUPlace()


def is_custom_device() -> bool:
    """Whether a plug-in (custom) device is present: never, here."""
    return False


def convert_float_to_uint16(float_list, data_format: str = "NCHW"):
    """float32 values as bfloat16 bit patterns (uint16: the upper half of each float32,
    truncated, as upstream's helper does). ``data_format="NHWC"`` transposes a 4-D input
    from NCHW first, as upstream."""
    arr = np.asarray(float_list, dtype=np.float32)
    if data_format == "NHWC" and arr.ndim == 4:
        arr = np.transpose(arr, [0, 3, 1, 2])
    return (np.ascontiguousarray(arr).view(np.uint32) >> 16).astype(np.uint16)


def convert_uint16_to_float(in_list):
    """bfloat16 bit patterns (uint16) back to float32 values."""
    arr = np.asarray(in_list, dtype=np.uint16)
    return (arr.astype(np.uint32) << 16).view(np.float32)


@contextlib.contextmanager
def paddle_static_guard():
    """Runs the block in static mode and leaves static mode afterwards, as upstream."""
    try:
        ferrograd.enable_static()
        yield
    finally:
        ferrograd.disable_static()


def _class_marker(flag: str, reason):
    """A class decorator setting ``flag`` (upstream: ``OpTest`` reads it at teardown);
    like upstream, a reason string is required."""
    if not isinstance(reason, str):
        raise AssertionError(f"The reason for {flag} is required.")

    def wrapper(cls):
        setattr(cls, flag, True)
        return cls

    return wrapper


def skip_check_grad_ci(reason=None):
    """Marks an ``OpTest`` class as not needing a gradient check (the tests still run)."""
    return _class_marker("no_need_check_grad", reason)


def skip_check_inplace_ci(reason=None):
    """Marks an ``OpTest`` class as not needing an in-place check."""
    return _class_marker("no_need_check_inplace", reason)


def check_out_dtype(api_fn, in_specs, expect_dtypes, target_index=0, **configs):
    """For each dtype of ``expect_dtypes``: builds a fresh static program whose inputs
    are ``paddle.static.data`` of ``in_specs`` (``(shape,)``: the input at
    ``target_index`` gets the dtype under test, the others float32; ``(shape, dtype)``:
    that dtype), calls ``api_fn(*inputs, **configs)`` and asserts that its output has the
    dtype under test (upstream's contract: a dtype-preserving API)."""
    static = ferrograd.static
    was_dynamic = ferrograd.in_dynamic_mode()
    ferrograd.enable_static()
    try:
        for expect in expect_dtypes:
            with static.program_guard(static.Program()):
                inputs = []
                for k, spec in enumerate(in_specs):
                    if len(spec) == 1:
                        shape, dtype = spec[0], expect if k == target_index else "float32"
                    elif len(spec) == 2:
                        shape, dtype = spec
                    else:
                        raise ValueError(
                            f"in_specs[{k}] should be (shape,) or (shape, dtype), got {spec!r}"
                        )
                    inputs.append(static.data(name=f"data_{k}", shape=shape, dtype=dtype))
                out = api_fn(*inputs, **configs)
                got = str(out.dtype).replace("paddle.", "").replace("ferrograd.", "")
                if got != expect:
                    raise ValueError(
                        f"Expected out.dtype is {expect}, but got {got} from {api_fn.__name__}."
                    )
    finally:
        if was_dynamic:
            ferrograd.disable_static()


class OpTest(unittest.TestCase):
    """Paddle's ``OpTest`` checks one operator through Paddle's C++ core (its kernels
    and the static program's operator descriptions), which ferrograd does not have: each
    class built on it is skipped as a whole."""

    @classmethod
    def setUpClass(cls):
        """Skips the class: ``OpTest`` needs Paddle's C++ operator core."""
        raise unittest.SkipTest(
            "OpTest (op_test.py) checks operators through Paddle's C++ core; "
            "not provided by the peer harness"
        )
