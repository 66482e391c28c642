"""Static programs: flip, roll, tile, tril/triu, masked_fill, cumsum, sort/argsort/topk,
bmm/dot/outer, clip, called as ``ferrograd`` functions and as Variable methods. Each is
run by an Executor and compared with the same call on eager tensors (values, dtypes,
shapes) and its gradient through ``static.gradients`` with eager autograd (the
``check`` helper of test_static_ops_more)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static
from test_static_ops_more import check


@pytest.fixture(autouse=True)
def static_mode():
    fg.enable_static()
    with static.scope_guard(static.Scope()):
        yield
    fg.disable_static()


def a3(seed=0, shape=(3, 4, 5)):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: fg.flip(x, [0, 2]),
        lambda x: fg.flip(x, axis=-1),
        lambda x: x.flip(1),
        lambda x: fg.roll(x, 2, 1),
        lambda x: fg.roll(x, [-1, 7], [0, 2]),
        lambda x: fg.roll(x, 3),
        lambda x: x.roll(shifts=1, axis=0),
        lambda x: fg.tile(x, [2, 1, 3]),
        lambda x: fg.tile(x, [2]),
        lambda x: fg.tile(x, [2, 1, 1, 2]),
        lambda x: x.tile(1, 0, 1),
        lambda x: fg.tril(x),
        lambda x: fg.triu(x, 1),
        lambda x: x.tril(-2),
        lambda x: fg.triu(x, diagonal=-1),
        lambda x: fg.clip(x, -0.5, 0.5),
        lambda x: fg.clamp(x, min=0.0),
    ],
)
def test_layout_ops_match_eager(fn):
    check(fn, a3())


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_cumsum_matches_eager(axis):
    check(lambda x: fg.cumsum(x, axis), a3(1))
    check(lambda x: x.cumsum(dim=axis) if axis is not None else x.cumsum(), a3(2, (2, 9)))


def test_cumsum_of_integers_is_int64_as_eager():
    check(lambda x: fg.cumsum(x, 0), np.arange(6, dtype=np.int32).reshape(3, 2), grad=False)


def test_cumsum_keeps_infinities_and_nans_where_eager_does():
    a = np.array([[1.0, np.inf, 2.0, -np.inf, 3.0], [np.nan, 1.0, 2.0, 3.0, 4.0]])
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [2, 5], "float64")
        y = fg.cumsum(x, 1)
        (got,) = static.Executor().run(feed={"x": a}, fetch_list=[y])
    np.testing.assert_array_equal(got, fg.cumsum(fg.to_tensor(a), 1).numpy())


def test_cumsum_needs_a_known_axis_size():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3], "float64")
        fg.cumsum(x, 1)  # fine: that axis is known
        with pytest.raises(ValueError, match="known only at run time"):
            fg.cumsum(x, 0)


def test_masked_fill_matches_eager():
    mask = a3(3) > 0.3
    check(lambda x: fg.masked_fill(x, fg.to_tensor(mask), 2.5), a3())
    check(lambda x, m: x.masked_fill(m, -1.0), a3(), mask, grad=True)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: fg.sort(x, 1),
        lambda x: fg.sort(x, descending=True),
        lambda x: fg.sort(x, axis=0),
        lambda x: fg.argsort(x, axis=1, descending=True),
        lambda x: x.argsort(),
        lambda x: fg.topk(x, 2),
        lambda x: fg.topk(x, 3, axis=0, largest=False),
        lambda x: x.topk(1, dim=1),
    ],
)
def test_sorting_matches_eager(fn):
    a = a3(4)
    a[0, 0, :2] = a[0, 0, 2]  # ties keep their order, as in eager
    check(fn, a)


def test_sorting_works_with_a_run_time_batch():
    check(lambda x: fg.topk(x, 2, axis=-1), a3(5), dyn=True, feeds=[[a3(6, (7, 4, 5))]])


def test_products_match_eager():
    check(lambda x, y: fg.bmm(x, y), a3(0, (2, 3, 4)), a3(1, (2, 4, 5)))
    check(lambda x, y: fg.dot(x, y), a3(0, (4,)), a3(1, (4,)))
    check(lambda x, y: fg.outer(x, y), a3(0, (3,)), a3(1, (4,)))
    check(lambda x, y: fg.matmul(x, y, transpose_y=True), a3(0, (2, 3)), a3(1, (5, 3)))


def test_unsupported_ops_say_so():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [3, 3], "float64")
        with pytest.raises(TypeError, match="not supported in static programs"):
            fg.clone(x)
        with pytest.raises(ValueError, match="at least 2 dimensions"):
            fg.tril(x[0])
