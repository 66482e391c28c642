"""``torch.testing.assert_close`` and the deprecated ``assert_allclose``.

PyTorch's rules (``torch/testing/_comparison.py``, ``assert_close`` and its ``Pair``
classes): nested sequences and mappings are compared element by element; each pair of
leaves is taken by the first of None, booleans, Python / NumPy numbers and tensor-likes
(tensors, NumPy arrays and what ``as_tensor`` accepts, of directly related types) that can
handle it; tensors must agree in shape, and (unless switched off) dtype, layout, device and
stride; values match when ``|actual - expected| <= atol + rtol * |expected|`` with
per-dtype default tolerances. Failures raise PyTorch's ``AssertionError`` text.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from .. import _core
from . import _values

__all__ = ["assert_close", "assert_allclose"]

# {dtype: (rtol, atol)}: torch/testing/_comparison.py `_DTYPE_PRECISIONS`; other dtypes
# (integers, bool) compare exactly
_DTYPE_PRECISIONS = {
    _core.float16: (0.001, 1e-5),
    _core.bfloat16: (0.016, 1e-5),
    _core.float32: (1.3e-6, 1e-5),
    _core.float64: (1e-7, 1e-7),
    _core.complex64: (1.3e-6, 1e-5),
    _core.complex128: (1e-7, 1e-7),
}
# the dtype PyTorch gives each Python number type (NumberPair._TYPE_TO_DTYPE)
_NUMBER_DTYPES = {int: _core.int64, float: _core.float64, complex: _core.complex128}


class _Failure(Exception):
    """An internal failure: the exception type to raise, its message and the item path."""

    def __init__(self, kind: type, msg: str, path: tuple = ()) -> None:
        super().__init__(msg)
        self.kind = kind
        self.msg = msg
        self.path = path

    def to_error(self, msg: Optional[Union[str, Callable[[str], str]]] = None) -> Exception:
        """The user-facing exception; ``msg`` (a string, or a callable given the generated
        message) replaces the generated text."""
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([k]) for k in self.path)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This pair type cannot handle these inputs; the next one is tried."""


def _tolerances(dtypes: list, rtol: Optional[float], atol: Optional[float], path: tuple):
    """``(rtol, atol)``: both given, or the loosest defaults of ``dtypes``."""
    if (rtol is None) != (atol is None):
        raise _Failure(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            path,
        )
    if rtol is not None and atol is not None:
        if rtol < 0 or atol < 0:
            raise _Failure(ValueError, f"rtol and atol must be >= 0, got {rtol=} and {atol=}", path)
        return rtol, atol
    pairs = [_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


# ---------------------------------------------------------------------------- leaf pairs


def _none_pair(actual: Any, expected: Any, path: tuple, opts: dict) -> Callable[[], None]:
    if actual is not None and expected is not None:
        raise _Unsupported

    def compare() -> None:
        if not (actual is None and expected is None):
            raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}", path)

    return compare


def _bool_pair(actual: Any, expected: Any, path: tuple, opts: dict) -> Callable[[], None]:
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    a, e = bool(actual), bool(expected)

    def compare() -> None:
        if a is not e:
            raise _Failure(AssertionError, f"Booleans mismatch: {a} is not {e}", path)

    return compare


def _number_pair(actual: Any, expected: Any, path: tuple, opts: dict) -> Callable[[], None]:
    kinds = (int, float, complex, np.number)
    if not all(isinstance(x, kinds) for x in (actual, expected)):
        raise _Unsupported
    a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    dtypes = [_NUMBER_DTYPES.get(type(x), _core.int64) for x in (a, e)]
    rtol, atol = _tolerances(dtypes, opts["rtol"], opts["atol"], path)

    def compare() -> None:
        if opts["check_dtype"] and type(a) is not type(e):
            raise _Failure(
                AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", path
            )
        if a == e:
            return
        if opts["equal_nan"] and cmath.isnan(a) and cmath.isnan(e):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(e):
            return
        raise _Failure(AssertionError, _values.scalar_message(a, e, rtol=rtol, atol=atol), path)

    return compare


def _is_tensor_family(x: Any) -> bool:
    """A ferrograd tensor: dense, or one of the sparse layouts' classes."""
    return isinstance(x, _core.Tensor) or (
        hasattr(x, "to_dense") and hasattr(x, "_nnz") and hasattr(x, "layout")
    )


def _to_tensor(x: Any) -> Any:
    if _is_tensor_family(x):
        return x
    from .._conveniences import as_tensor

    try:
        return as_tensor(x)
    except Exception:
        raise _Unsupported from None


def _tensor_pair(actual: Any, expected: Any, path: tuple, opts: dict) -> Callable[[], None]:
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related and not (_is_tensor_family(actual) and _is_tensor_family(expected)):
        raise _Unsupported
    if not opts["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    a, e = _to_tensor(actual), _to_tensor(expected)
    rtol, atol = _tolerances([a.dtype, e.dtype], opts["rtol"], opts["atol"], path)

    def fail(attribute: str, x: Any, y: Any) -> NoReturn:
        raise _Failure(
            AssertionError,
            f"The values for attribute '{attribute}' do not match: {x} != {y}.",
            path,
        )

    def compare() -> None:
        x, y = a, e
        if tuple(x.shape) != tuple(y.shape):
            fail("shape", x.shape, y.shape)
        if x.layout != y.layout:
            if opts["check_layout"]:
                fail("layout", x.layout, y.layout)
            x = x.to_dense() if _is_sparse(x) else x
            y = y.to_dense() if _is_sparse(y) else y
        elif opts["check_stride"] and not _is_sparse(x) and x.stride() != y.stride():
            fail("stride()", x.stride(), y.stride())
        if opts["check_device"] and str(x.device) != str(y.device):
            fail("device", x.device, y.device)
        if opts["check_dtype"] and x.dtype != y.dtype:
            fail("dtype", x.dtype, y.dtype)
        if x.dtype != y.dtype:
            common = _core_promote(x.dtype, y.dtype)
            x, y = x.to(common), y.to(common)
        if _is_sparse(x):
            _compare_sparse(x, y, rtol, atol, opts["equal_nan"], path)
        else:
            _compare_dense(x, y, rtol, atol, opts["equal_nan"], path)

    return compare


def _core_promote(a: Any, b: Any) -> Any:
    from .._dtype_info import promote_types

    return promote_types(a, b)


def _is_sparse(t: Any) -> bool:
    return not isinstance(t, _core.Tensor)


def _compare_dense(
    x: Any,
    y: Any,
    rtol: float,
    atol: float,
    equal_nan: bool,
    path: tuple,
    identifier: Any = None,
) -> None:
    """Raises the mismatch report when the values of ``x`` and ``y`` are not close."""
    a, rnd = _values.as_numpy(x)
    b, _ = _values.as_numpy(y)
    matches = _values.isclose(a, b, rnd, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(np.all(matches)):
        return
    if a.ndim == 0:
        msg = _values.scalar_message(
            x.item(), y.item(), rtol=rtol, atol=atol, identifier=identifier
        )
    else:
        msg = _values.tensor_message(
            a, b, rnd, matches, rtol=rtol, atol=atol, identifier=identifier
        )
    raise _Failure(AssertionError, msg, path)


def _compare_sparse(x: Any, y: Any, rtol: float, atol: float, equal_nan: bool, path: tuple) -> None:
    """Sparse tensors of one layout: equal counts of stored values, equal indices, close
    values (PyTorch's ``_compare_sparse_coo_values`` / ``_compare_sparse_compressed_values``)."""
    name = "COO" if "coo" in str(x.layout) else "CSR"
    if x._nnz() != y._nnz():
        raise _Failure(
            AssertionError,
            f"The number of specified values in sparse {name} tensors does not match: "
            f"{x._nnz()} != {y._nnz()}",
            path,
        )
    if name == "COO":
        x, y = x.coalesce(), y.coalesce()
        index_parts = [("indices", x.indices(), y.indices())]
    else:
        index_parts = [
            ("crow_indices", x.crow_indices(), y.crow_indices()),
            ("col_indices", x.col_indices(), y.col_indices()),
        ]
    for label, xi, yi in index_parts:
        ident = f"Sparse {name} {label}"
        _compare_dense(xi, yi, 0, 0, False, path, identifier=ident)
    ident = f"Sparse {name} values"
    _compare_dense(x.values(), y.values(), rtol, atol, equal_nan, path, identifier=ident)


_PAIR_TYPES = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _originate(actual: Any, expected: Any, path: tuple, opts: dict) -> list:
    """The comparisons for ``actual`` and ``expected``, recursing through sequences (not
    strings) and mappings; structure mismatches fail here, before any value is compared."""
    seq = collections.abc.Sequence
    if (
        isinstance(actual, seq)
        and not isinstance(actual, str)
        and isinstance(expected, seq)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                path,
            )
        out: list = []
        for i in range(len(actual)):
            out += _originate(actual[i], expected[i], (*path, i), opts)
        return out
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        keys_a, keys_e = set(actual.keys()), set(expected.keys())
        if keys_a != keys_e:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(keys_e - keys_a)}\n"
                f"Additional keys in the actual mapping: {sorted(keys_a - keys_e)}",
                path,
            )
        keys: Any = keys_a
        with contextlib.suppress(Exception):  # a deterministic order where keys sort
            keys = sorted(keys)
        out = []
        for k in keys:
            out += _originate(actual[k], expected[k], (*path, k), opts)
        return out
    for pair in _PAIR_TYPES:
        try:
            return [pair(actual, expected, path, opts)]
        except _Unsupported:
            continue
    raise _Failure(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} "
        f"and {type(expected)}.",
        path,
    )


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: Optional[Union[str, Callable[[str], str]]] = None,
) -> None:
    """Asserts that ``actual`` and ``expected`` are close (``torch.testing.assert_close``).

    Tensors (and NumPy arrays, of directly related types) must have the same shape, and
    unless switched off the same dtype, layout and device (and stride with
    ``check_stride=True``); their values match where
    ``|actual - expected| <= atol + rtol * |expected|`` (infinities only when equal, NaN
    only with ``equal_nan=True``). ``rtol`` and ``atol`` are given together or not at all;
    the defaults per dtype are PyTorch's (float16 1e-3 / 1e-5, bfloat16 1.6e-2 / 1e-5,
    float32 1.3e-6 / 1e-5, float64 1e-7 / 1e-7, complex as its float, integers and bool
    exact). Python and NumPy scalars compare as numbers (their types must match unless
    ``check_dtype=False``); sequences and mappings element by element. A mismatch raises
    ``AssertionError`` with PyTorch's report, which ``msg`` replaces (a string) or
    rewrites (a callable given the report).
    """
    __tracebackhide__ = True
    opts = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_layout": check_layout,
        "check_stride": check_stride,
    }
    try:
        comparisons = _originate(actual, expected, (), opts)
    except _Failure as failure:
        raise failure.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None


# float16 / float32 / float64 defaults of the deprecated assert_allclose
_ALLCLOSE_PRECISIONS = {
    _core.float16: (1e-3, 1e-3),
    _core.float32: (1e-4, 1e-5),
    _core.float64: (1e-5, 1e-8),
}


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """Deprecated since PyTorch 1.12 (a ``FutureWarning``): ``assert_close`` with
    ``check_dtype=False``, ``equal_nan=True`` and looser default tolerances; non-tensor
    inputs become tensors (``expected`` in ``actual``'s dtype)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, _core.Tensor):
        actual = _core.tensor(actual)
    if not isinstance(expected, _core.Tensor):
        expected = _core.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_PRECISIONS.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
