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


def test_empty_list_is_an_integer_index():
    # found by the differential fuzzer: `[]` became a float32 index and was refused
    a = np.zeros((2, 3))
    np.testing.assert_array_equal(fg.tensor(a)[None, []].numpy(), a[None, []])
    assert tuple(fg.tensor(a)[[]].shape) == a[[]].shape


def test_out_of_range_index_raises_even_when_broadcast_to_empty():
    # found by the differential fuzzer: NumPy checks every index, ferrograd skipped those
    # an empty mask broadcast away
    t = fg.zeros(0, 0)
    with pytest.raises(IndexError):
        t[fg.tensor(np.zeros(0, bool)), 0]
