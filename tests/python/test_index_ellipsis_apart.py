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


def test_out_of_range_integer_raises_even_when_broadcast_to_empty():
    # found by the differential fuzzer: NumPy checks an integer index even when an empty
    # mask broadcasts it away
    t = fg.zeros(0, 0)
    with pytest.raises(IndexError):
        t[fg.tensor(np.zeros(0, bool)), 0]
    with pytest.raises(IndexError):
        t[fg.tensor(np.zeros(0, bool)), 0] = 1.0


@pytest.mark.parametrize("setitem", [False, True])
def test_index_array_broadcast_to_empty_is_never_used(setitem):
    # found by the differential fuzzer: an index *array* is checked only where an element
    # is used; NumPy and PyTorch give an empty result for these keys, not an IndexError
    a, t = np.zeros((0, 0)), fg.zeros(0, 0)
    b, u = np.zeros((3, 3)), fg.zeros(3, 3)
    cases = [
        (a, t, (np.zeros(0, bool), [0])),
        (a, t, ([0], np.zeros(0, bool))),
        (b, u, (np.zeros(0, np.int64), [5])),
        (b, u, (np.zeros((0, 1), np.int64), np.array([7]))),
    ]
    for arr, ten, key in cases:
        fkey = tuple(fg.tensor(np.asarray(k)) for k in key)
        if setitem:
            arr[key] = 1.0
            ten[fkey] = 1.0
            np.testing.assert_array_equal(ten.numpy(), arr)
        else:
            assert tuple(ten[fkey].shape) == arr[key].shape
