"""Elementwise closeness and mismatch statistics for ``testing.assert_close``, on NumPy.

The arithmetic runs in the tensors' own precision, as PyTorch's ``isclose`` and its
mismatch report do (``torch/testing/_comparison.py``, ``make_tensor_mismatch_msg``), so the
differences a report prints are the values PyTorch prints. Half-precision values (float16,
bfloat16) are held in float32 and every intermediate result is rounded back, as PyTorch's
CPU kernels compute them.
The comparison itself stays independent of ferrograd's own kernels, so a bug in
``ferrograd.isclose`` cannot hide behind an ``assert_close`` that passes.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from .. import _core


def bf16_round(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) rounded to the nearest bfloat16 value, ties to even, NaN kept."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, out)


def as_numpy(t: Any) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The values of tensor ``t`` and the rounding its dtype applies to a result."""
    values = np.array(t.detach().numpy(), copy=True)
    if t.dtype == _core.bfloat16:
        return values.astype(np.float32), bf16_round
    if t.dtype == _core.float16:
        # PyTorch computes half-precision math in float32 and rounds each result to half
        return values.astype(np.float32), _f16_round
    return values, _identity


def _f16_round(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) rounded to the nearest float16 value, held in float32."""
    return np.asarray(x).astype(np.float16).astype(np.float32)


def _identity(x: np.ndarray) -> np.ndarray:
    """No rounding (the values' own precision is the computation's)."""
    return x


def _kind(values: np.ndarray) -> str:
    """'f' floating, 'c' complex, 'i' integral or boolean."""
    return values.dtype.kind if values.dtype.kind in "fc" else "i"


def isclose(
    a: np.ndarray,
    b: np.ndarray,
    rnd: Callable[[np.ndarray], np.ndarray],
    *,
    rtol: float,
    atol: float,
    equal_nan: bool,
) -> np.ndarray:
    """``torch.isclose(a, b, rtol, atol, equal_nan)`` with PyTorch's arithmetic: equal
    values always match (infinities included); otherwise ``|a - b| <= atol + |rtol * b|``
    with a finite difference, computed in the inputs' precision (integers and booleans in
    the default float32, as PyTorch's ``rtol * other`` promotes them)."""
    with np.errstate(all="ignore"):
        close = np.asarray(a == b)
        if equal_nan and _kind(a) in "fc":
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol == 0 and atol == 0:
            return close
        if _kind(a) == "i":
            f = np.float32
            allowed = f(atol) + np.abs(f(rtol) * b.astype(f))
            actual = np.abs(a.astype(np.int64) - b.astype(np.int64)).astype(f)
        else:
            f = a.real.dtype.type
            allowed = rnd(f(atol) + rnd(np.abs(rnd(f(rtol) * b))))
            actual = rnd(np.abs(rnd(a - b)))
        return close | (np.isfinite(actual) & (actual <= allowed))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The multi-index of flat position ``flat`` in ``shape`` (Python ints)."""
    return tuple(int(i) for i in np.unravel_index(flat, shape))


def _item(x: Any) -> Any:
    """A NumPy scalar as the Python number ``Tensor.item()`` would give."""
    return x.item() if hasattr(x, "item") else x


def mismatch_message(
    *,
    default_identifier: str,
    identifier: Optional[Any],
    extra: Optional[str],
    abs_diff: Any,
    abs_idx: Optional[tuple[int, ...]],
    atol: float,
    rel_diff: Any,
    rel_idx: Optional[tuple[int, ...]],
    rtol: float,
) -> str:
    """PyTorch's report: the header, ``extra``, then the greatest absolute and relative
    differences (with the allowed tolerance unless both tolerances are zero)."""
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, idx: Optional[tuple[int, ...]], tol: float) -> str:
        if idx is None:
            text = f"{kind.title()} difference: {diff}"
        else:
            text = f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += extra.strip() + "\n"
    msg += line("absolute", abs_diff, abs_idx, atol)
    msg += line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def scalar_message(
    actual: Any, expected: Any, *, rtol: float, atol: float, identifier: Any = None
) -> str:
    """The report for two scalars (Python numbers, or 0-dim tensors' ``item()``)."""
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return mismatch_message(
        default_identifier="Scalars",
        identifier=identifier,
        extra=f"Expected {expected} but got {actual}.",
        abs_diff=abs_diff,
        abs_idx=None,
        atol=atol,
        rel_diff=rel_diff,
        rel_idx=None,
        rtol=rtol,
    )


def tensor_message(
    a: np.ndarray,
    b: np.ndarray,
    rnd: Callable[[np.ndarray], np.ndarray],
    matches: np.ndarray,
    *,
    rtol: float,
    atol: float,
    identifier: Any = None,
) -> str:
    """The report for two tensors: how many elements mismatch, and where the greatest
    absolute and relative differences among the mismatches are (first index on a tie;
    NaN counts as the greatest, as ``torch.max`` does)."""
    shape = tuple(matches.shape)
    total = int(matches.size)
    mismatched = total - int(np.count_nonzero(matches))
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    af, bf = a.reshape(-1), b.reshape(-1)
    matched = matches.reshape(-1)
    with np.errstate(all="ignore"):
        if _kind(a) == "i":
            abs_diff = np.abs(af.astype(np.int64) - bf.astype(np.int64))
            abs_diff[matched] = 0
            # int64 / int64 is a true division into the default float32
            rel_diff = abs_diff.astype(np.float32) / np.abs(bf.astype(np.int64)).astype(np.float32)
        else:
            abs_diff = rnd(np.abs(rnd(af - bf)))
            abs_diff[matched] = 0
            rel_diff = rnd(abs_diff / rnd(np.abs(bf)))
        rel_diff[matched] = 0
    i_abs, i_rel = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    return mismatch_message(
        default_identifier="Tensor-likes",
        identifier=identifier,
        extra=extra,
        abs_diff=_item(abs_diff[i_abs]),
        abs_idx=_unravel(i_abs, shape),
        atol=atol,
        rel_diff=_item(rel_diff[i_rel]),
        rel_idx=_unravel(i_rel, shape),
        rtol=rtol,
    )
