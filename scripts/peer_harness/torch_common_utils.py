"""A small stand-in for ``torch.testing._internal.common_utils``.

PyTorch's own tests import their ``TestCase`` (an ``assertEqual`` that compares tensors,
numbers and nested sequences with dtype-dependent tolerances), ``run_tests`` and a few
decorators from this internal module. This file provides the pieces the extracted
autograd tests use, written from their observable behaviour, comparing through NumPy.
"""

from __future__ import annotations

import contextlib
import gc
import re
import sys
import unittest
import warnings

import ferrograd
import numpy as np
from ferrograd.autograd.gradcheck import gradcheck as _gradcheck
from ferrograd.autograd.gradcheck import gradgradcheck as _gradgradcheck

from peer_harness.torch_common_utils_more import (
    IS_JETSON,
    TEST_NUMPY,
    TEST_PRIVATEUSE1,
    TEST_SCIPY,
    TEST_WITH_ROCM,
    TemporaryFileName,
    dtype2prec_DONTUSE,
    freeze_rng_state,
    load_tests,
    markDynamoStrictTest,
    numpy_to_torch_dtype_dict,
    set_default_dtype,
    skipIfCrossRef,
    skipIfNoLapack,
    swap,
    torch_to_numpy_dtype_dict,
    xfailIfTorchDynamo,
)
from peer_harness.torch_parametrize import (
    HardwareClassification,
    instantiate_parametrized_tests,
    parametrize,
    subtest,
)

__all__ = [
    "IS_JETSON",
    "TEST_WITH_ROCM",
    "_assertGradAndGradgradChecks",
    "dtype2prec_DONTUSE",
    "TestCase",
    "run_tests",
    "gradcheck",
    "gradgradcheck",
    "disable_gc",
    "set_warn_always_context",
    "skipIfTorchDynamo",
    "slowTest",
    "TEST_WITH_TORCHDYNAMO",
    "IS_WINDOWS",
    "IS_MACOS",
    "HardwareClassification",
    "instantiate_parametrized_tests",
    "parametrize",
    "subtest",
    "TEST_NUMPY",
    "TemporaryFileName",
    "numpy_to_torch_dtype_dict",
    "torch_to_numpy_dtype_dict",
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

TEST_WITH_TORCHDYNAMO = False
IS_WINDOWS = False
IS_MACOS = False

# (rtol, atol) per dtype name, as torch.testing.assert_close's defaults
_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


def gradcheck(fn, inputs, **kwargs):
    """``torch.autograd.gradcheck`` as the tests call it (extra flags ignored)."""
    kwargs = {k: v for k, v in kwargs.items() if k in ("eps", "atol", "rtol", "raise_exception")}
    return _gradcheck(fn, inputs, **kwargs)


def gradgradcheck(fn, inputs, grad_outputs=None, **kwargs):
    """``torch.autograd.gradgradcheck`` as the tests call it (extra flags ignored)."""
    kwargs = {k: v for k, v in kwargs.items() if k in ("eps", "atol", "rtol", "raise_exception")}
    return _gradgradcheck(fn, inputs, grad_outputs, **kwargs)


def _assertGradAndGradgradChecks(test_case, apply_fn, inputs, **kwargs):  # noqa: N802
    """Upstream's: asserts ``gradcheck`` and then ``gradgradcheck`` of ``apply_fn``."""
    test_case.assertTrue(gradcheck(apply_fn, inputs, **kwargs))
    test_case.assertTrue(gradgradcheck(apply_fn, inputs, **kwargs))


@contextlib.contextmanager
def set_warn_always_context(new_val: bool):
    """Sets ``set_warn_always(new_val)`` inside the block, restoring the old value after."""
    old = ferrograd.is_warn_always_enabled()
    ferrograd.set_warn_always(new_val)
    try:
        yield
    finally:
        ferrograd.set_warn_always(old)


@contextlib.contextmanager
def disable_gc():
    """Turns Python's cyclic garbage collector off inside the block."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def skipIfTorchDynamo(msg=""):  # noqa: N802  (torch's name)
    """No TorchDynamo here: the test always runs."""

    def decorator(fn):
        return fn

    return decorator


def slowTest(fn):  # noqa: N802  (torch's name)
    """PyTorch runs the tests marked slow in a separate CI job; here they always run."""
    return fn


def _is_sparse(x) -> bool:
    # not a class: on ``type(t)`` the attribute is a descriptor, not a flag
    return (
        not isinstance(x, type) and bool(getattr(x, "is_sparse", False)) and hasattr(x, "to_dense")
    )


def _is_tensor(x) -> bool:
    return isinstance(x, ferrograd.Tensor) or _is_sparse(x)


def _as_array(x):
    if _is_sparse(x):  # torch compares sparse tensors by their values (coalesced)
        x = x.to_dense()
    if _is_tensor(x):
        return x.detach().numpy()
    return np.asarray(x)


def _tolerance(a, b, rtol, atol):
    if rtol is not None and atol is not None:
        return rtol, atol
    names = [t.dtype.name for t in (a, b) if _is_tensor(t)]
    r, t = max((_TOLERANCES.get(n, (0.0, 0.0)) for n in names), default=(0.0, 0.0))
    if not names:
        r, t = 1.3e-6, 1e-5
    return (rtol if rtol is not None else r), (atol if atol is not None else t)


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with torch's tensor-aware ``assertEqual``."""

    # upstream's per-test tolerances (``precisionOverride`` sets ``precision``): when
    # set, they raise the default absolute / relative tolerance of ``assertEqual``
    precision = 0.0
    rel_tol = 0.0

    def _compare(self, x, y, rtol, atol, exact_dtype):
        if x is None or y is None:
            return x is y, f"{x!r} is not {y!r}"
        if isinstance(x, (str, bytes)) or isinstance(y, (str, bytes)):
            return x == y, f"{x!r} != {y!r}"
        if (
            isinstance(x, (list, tuple))
            and isinstance(y, (list, tuple))
            and not (_is_tensor(x) or _is_tensor(y))
        ):
            if len(x) != len(y):
                return False, f"lengths differ: {len(x)} != {len(y)}"
            for i, (xi, yi) in enumerate(zip(x, y)):
                ok, why = self._compare(xi, yi, rtol, atol, exact_dtype)
                if not ok:
                    return False, f"at index {i}: {why}"
            return True, ""
        numeric = (int, float, complex, np.number, np.ndarray, np.bool_)
        if not any(_is_tensor(v) or isinstance(v, numeric) for v in (x, y)):
            return x == y, f"{x!r} != {y!r}"  # types, dtypes, other objects: plain ==
        if exact_dtype and _is_tensor(x) and _is_tensor(y) and x.dtype != y.dtype:
            return False, f"dtypes differ: {x.dtype} != {y.dtype}"
        r, t = _tolerance(x, y, rtol, atol)
        try:
            xa, ya = _as_array(x), _as_array(y)
        except Exception as e:  # not array-like
            return x == y, f"{x!r} != {y!r} ({e})"
        if _is_tensor(x) and _is_tensor(y) and xa.shape != ya.shape:
            return False, f"shapes differ: {list(xa.shape)} != {list(ya.shape)}"
        try:
            xb, yb = np.broadcast_arrays(xa, ya)
        except ValueError:
            return False, f"shapes differ: {list(xa.shape)} != {list(ya.shape)}"
        if xb.dtype.kind in "biu" and yb.dtype.kind in "biu":
            return bool(np.array_equal(xb, yb)), f"{xa} != {ya}"
        ok = bool(np.allclose(xb, yb, rtol=r, atol=t, equal_nan=True))
        return ok, f"{xa} != {ya} (rtol={r}, atol={t})"

    def assertEqual(self, x, y, msg=None, *, atol=None, rtol=None, exact_dtype=True, **kwargs):  # noqa: N802
        """Equal values: tensors/arrays elementwise within dtype tolerances, sequences
        item by item, everything else with ``==``."""
        # older revisions' spellings: ``prec`` (an absolute tolerance), ``message``
        if atol is None and kwargs.get("prec") is not None:
            atol, rtol = kwargs["prec"], 0.0 if rtol is None else rtol
        msg = msg if msg is not None else kwargs.get("message")
        if atol is None and rtol is None and (self.precision or self.rel_tol):
            r, t = _tolerance(x, y, None, None)
            rtol, atol = max(r, self.rel_tol), max(t, self.precision)
        ok, why = self._compare(x, y, rtol, atol, exact_dtype)
        if not ok:
            raise self.failureException(msg or why)

    def assertNotEqual(self, x, y, msg=None, *, atol=None, rtol=None, **kwargs):  # noqa: N802
        """The negation of :meth:`assertEqual`."""
        ok, _ = self._compare(x, y, rtol, atol, False)
        if ok:
            raise self.failureException(msg or f"{x!r} == {y!r}")

    def assertExpected(self, s, subname=None):  # noqa: N802
        """Compares with torch's recorded expect files, which are not available here."""
        raise unittest.SkipTest("assertExpected needs torch's recorded expect files")

    @contextlib.contextmanager
    def maybeWarnsRegex(self, category, regex=""):  # noqa: N802
        """Upstream's (older revisions'): the block may warn; if it warns ``category``,
        one of the messages must match ``regex``."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        found = [w for w in caught if issubclass(w.category, category)]
        if found and not any(re.search(regex, str(w.message)) for w in found):
            self.fail(f"no {category.__name__} matching {regex!r} among {found}")

    def assertFail(self, msg=None):  # noqa: N802
        """Fails unconditionally (torch's helper)."""
        self.fail(msg)


def run_tests():
    """Runs the calling module's tests (``unittest.main``)."""
    unittest.main()


def _register_common_nn() -> None:
    # ``torch.testing._internal.common_nn`` (``NNTestCase`` ...), beside this module:
    # the runner registers ``common_utils`` itself; this registers its sibling
    from peer_harness import torch_common_nn

    sys.modules["torch.testing._internal.common_nn"] = torch_common_nn
    internal = sys.modules.get("torch.testing._internal")
    if internal is not None:
        internal.common_nn = torch_common_nn  # type: ignore[attr-defined]


_register_common_nn()
