"""An Ellipsis between advanced indices keeps them apart even when it spans no dimension,
as in NumPy (issue 16, item 9: the result came out transposed)."""

import ferrograd as fg
import numpy as np
import pytest

Z = np.arange(24).reshape(2, 3, 4)
KEYS = [
    (slice(None), 0, ..., [1, 2]),
    (0, ..., [1, 2]),
    ([0, 1], ..., 0),
    (slice(None), [0, 2], ..., [[1], [3]]),
    (0, [0, 1], ..., 0),
    (..., 0, [1, 2]),
    (0, [1, 2], ...),
    (slice(None), 0, None, [1, 2]),
]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_getitem_matches_numpy(key):
    np.testing.assert_array_equal(fg.tensor(Z)[key].numpy(), Z[key])


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_setitem_matches_numpy(key):
    want = Z.copy()
    want[key] = -np.arange(want[key].size).reshape(want[key].shape)
    t = fg.tensor(Z)
    t[key] = fg.tensor(-np.arange(want[key].size).reshape(want[key].shape))
    np.testing.assert_array_equal(t.numpy(), want)
