"""Differential fuzzer for indexing: random keys of integers, slices (negative steps
included), None, Ellipsis, integer lists/tensors and boolean masks, read (``t[key]``) and
written (``t[key] = v``) against NumPy on tensors seen through random views. Where NumPy
refuses a key, ferrograd must raise a Python exception (never a panic).
Budget: ``FERROGRAD_FUZZ_EXAMPLES`` (see fuzz_support.py)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from fuzz_support import CALLS, FUZZ, assert_same, viewed
from hypothesis import given
from hypothesis import strategies as st


@st.composite
def index_item(draw, size: int | None):
    """One entry of an index tuple for a dim of `size` (None: no dim left)."""
    n = size if size is not None else 3
    kinds = ["int", "slice", "none", "list", "array"]
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        return draw(st.integers(-n - 1, n))  # out of range sometimes: must raise
    if kind == "slice":
        step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, -3])))
        lo = draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))
        hi = draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))
        return slice(lo, hi, step)
    if kind == "none":
        return None
    k = draw(st.integers(0, 3))
    vals = draw(st.lists(st.integers(-n, max(n - 1, -n)), min_size=k, max_size=k))
    if kind == "list":
        return vals
    return np.array(vals, dtype=draw(st.sampled_from([np.int64, np.int32])))


@st.composite
def keys(draw, shape):
    """An index tuple for `shape`: one item per dim for a random prefix of the dims, with
    an Ellipsis or a boolean mask sometimes in between."""
    nd = len(shape)
    used = draw(st.integers(0, nd))
    items = [draw(index_item(shape[i])) for i in range(used)]
    if draw(st.booleans()) and items is not None:
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    if nd and draw(st.integers(0, 4)) == 0:
        # a boolean mask over the leading dims (replaces the first items)
        k = draw(st.integers(1, nd))
        mask = draw(
            st.lists(
                st.booleans(), min_size=int(np.prod(shape[:k])), max_size=int(np.prod(shape[:k]))
            )
        )
        items = [np.array(mask, dtype=bool).reshape(shape[:k])] + [
            it for it in items[k:] if it is not Ellipsis
        ]
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


def to_ferrograd(key):
    """The same key with NumPy arrays turned into tensors (lists stay lists)."""
    conv = lambda k: fg.tensor(k) if isinstance(k, np.ndarray) else k  # noqa: E731
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


@FUZZ
@given(st.data())
def test_getitem_against_numpy(data):
    a, t = data.draw(viewed(dtype=data.draw(st.sampled_from(["int64", "float64", "bool"]))))
    key = data.draw(keys(a.shape))
    try:
        want = a[key]
    except (IndexError, ValueError, TypeError):
        CALLS["index-error"] += 1
        with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
            t[to_ferrograd(key)]
        return
    CALLS["getitem"] += 1
    got = t[to_ferrograd(key)]
    assert_same(got, want, str(a.dtype), f"{a.shape}[{key!r}]")


@FUZZ
@given(st.data())
def test_setitem_against_numpy(data):
    a, t = data.draw(viewed(dtype=data.draw(st.sampled_from(["int64", "float64"]))))
    t = t.clone()  # expanded views are not writable in place
    key = data.draw(keys(a.shape))
    want = np.array(a, copy=True)
    try:
        region = want[key]
        vals = np.arange(region.size, dtype=want.dtype).reshape(region.shape) - 7
        want[key] = vals
    except (IndexError, ValueError, TypeError):
        CALLS["index-error"] += 1
        with pytest.raises(Exception):  # noqa: B017 - any Python exception, never a panic
            t[to_ferrograd(key)] = 1
        return
    if not isinstance(key, tuple):
        key = (key,)
    # NumPy writes repeated advanced indices last-wins; ferrograd promises no order there
    adv = [k for k in key if isinstance(k, (list, np.ndarray)) and np.asarray(k).dtype != bool]
    if any(len(set(np.asarray(k).ravel().tolist())) != np.asarray(k).size for k in adv):
        return
    CALLS["setitem"] += 1
    t[to_ferrograd(key)] = fg.tensor(vals)
    assert_same(t, want, str(a.dtype), f"{a.shape}[{key!r}] = ...")
