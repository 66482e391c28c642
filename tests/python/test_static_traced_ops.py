"""Static programs: the functions recorded as traced ops (static/eager_ops.py) — einsum,
the scatter family, masked_select/nonzero, cumprod/cummax/cummin/logcumsumexp,
median/mode/unique/kthvalue, the diagonal ops, rot90/repeat_interleave — called as
``ferrograd`` functions and as Variable methods, compared with eager (values, dtypes,
shapes, inferred shapes, gradients through ``static.gradients``) by ``check``."""

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


def a(seed=0, shape=(3, 4)):
    return np.random.default_rng(seed).standard_normal(shape)


IDX = np.array([[0, 2, 1, 0], [2, 1, 0, 1]], dtype=np.int64)


@pytest.mark.parametrize(
    "fn, arrays",
    [
        (lambda x, y: fg.einsum("ij,jk->ik", x, y), (a(0), a(1, (4, 2)))),
        (lambda x, y: fg.einsum("bij,bjk->bik", x, y), (a(0, (2, 3, 4)), a(1, (2, 4, 5)))),
        (lambda x: fg.einsum("ii->i", x), (a(0, (3, 3)),)),
        (lambda x, s: fg.scatter(x, 0, fg.to_tensor(IDX[:, :4]), s), (a(0), a(1, (2, 4)))),
        (lambda x, s: x.scatter_add(0, fg.to_tensor(IDX), s), (a(0), a(1, (2, 4)))),
        (
            lambda x, s: fg.scatter_reduce(x, 0, fg.to_tensor(IDX), s, "sum"),
            (a(0), a(1, (2, 4))),
        ),
        (
            lambda x, s: fg.index_add(x, 0, fg.to_tensor(np.array([2, 0])), s),
            (a(0), a(1, (2, 4))),
        ),
        (lambda x: fg.index_fill(x, 1, fg.to_tensor(np.array([0, 3])), -1.5), (a(0),)),
        (
            lambda x, v: fg.index_put(x, (fg.to_tensor(np.array([0, 2])),), v),
            (a(0), a(1, (4,))),
        ),
        (
            lambda x, s: fg.masked_scatter(x, fg.to_tensor(a(2) > 0), s),
            (a(0), a(1, (12,))),
        ),
        (
            lambda i, u: fg.scatter_nd(i, u, [5, 4]),
            (np.array([[1], [3], [1]]), a(1, (3, 4))),
        ),
        (
            lambda x, u: fg.scatter_nd_add(x, fg.to_tensor(np.array([[1, 2], [0, 0]])), u),
            (a(0), a(1, (2,))),
        ),
        (lambda x: fg.gather_nd(x, fg.to_tensor(np.array([[1, 2], [0, 3]]))), (a(0),)),
        (lambda x: fg.take(x, fg.to_tensor(np.array([[0, 11], [5, 5]]))), (a(0),)),
        (
            lambda x, v: fg.put_along_axis(x, fg.to_tensor(IDX[:, :1].T), v, 1),
            (a(0, (1, 4)), a(1, (1, 2))),
        ),
        (lambda x: fg.cumprod(x, 1), (a(0),)),
        (lambda x: x.cumprod(dim=0), (a(0),)),
        (lambda x: fg.cummax(x, 1), (a(0),)),
        (lambda x: fg.cummin(x, axis=0), (a(0),)),
        (lambda x: fg.logcumsumexp(x, 1), (a(0),)),
        (lambda x: fg.median(x), (a(0, (3, 5)),)),
        (lambda x: fg.median(x, 1), (a(0, (3, 5)),)),
        (lambda x: x.median(axis=0, keepdim=True), (a(0, (3, 5)),)),
        (lambda x: fg.mode(fg.round(x * 2.0), 1), (a(0, (3, 6)),)),
        (lambda x: fg.kthvalue(x, 2, 1), (a(0),)),
        (lambda x: fg.diag(x), (a(0),)),
        (lambda x: fg.diag(x, 1), (a(0, (4,)),)),
        (lambda x: fg.diagonal(x, 0, 0, 1), (a(0),)),
        (lambda x: fg.diag_embed(x), (a(0),)),
        (lambda x: fg.trace(x), (a(0),)),
        (lambda x: fg.rot90(x, 1, [0, 1]), (a(0),)),
        (lambda x: x.repeat_interleave(2, 1), (a(0),)),
    ],
)
def test_traced_ops_match_eager(fn, arrays):
    check(fn, *arrays)


def test_traced_ops_with_a_run_time_batch_dimension():
    # -1 dims: inferred as -1 where the result depends on them, fixed elsewhere
    check(lambda x: fg.cumprod(x, 1), a(0), dyn=True, feeds=[[a(3, (7, 4))]])
    check(lambda x: fg.einsum("bi,bj->bij", x, x), a(0), dyn=True, feeds=[[a(3, (2, 4))]])
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 4], "float64")
        assert fg.einsum("bi->i", x).shape == [4]
        assert fg.diagonal(x).shape == [-1]
        values, idx = fg.kthvalue(x, 2, 1)
        assert values.shape == [-1] and idx.dtype == fg.int64


def test_data_dependent_shapes_are_recorded_as_minus_one():
    m = a(2) > 0.3
    check(lambda x: fg.masked_select(x, fg.to_tensor(m)), a(0))
    check(lambda x: x.nonzero(), (a(2) > 0).astype(np.int64), grad=False)
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [3, 4], "float64")
        mask = static.data("m", [3, 4], "bool")
        sel = fg.masked_select(x, mask)
        nz = fg.nonzero(mask)
        out, counts = fg.unique(fg.round(x), return_counts=True)
        assert sel.shape == [-1] and nz.shape == [-1, 2] and out.shape == [-1]
        assert counts.shape == [-1]
        # constant repeats: a known size; repeats fed at run time: -1
        assert fg.repeat_interleave(x, fg.to_tensor(np.array([1, 0, 2])), 0).shape == [3, 4]
        r = static.data("r", [3], "int64")
        rep = fg.repeat_interleave(x, r, 0)
        assert rep.shape == [-1, 4]
        (loss,) = [(sel * sel).sum()]
        (gx,) = static.gradients([loss], [x])
        exe = static.Executor()
        xv = a(0)
        for mv in (m, ~m, np.zeros_like(m)):
            feed = {"x": xv, "m": mv, "r": np.array([1, 0, 2])}
            got = exe.run(feed=feed, fetch_list=[sel, nz, out, counts, rep, gx])
            np.testing.assert_array_equal(got[0], xv[mv])
            np.testing.assert_array_equal(got[1], np.argwhere(mv))
            u, c = np.unique(np.round(xv), return_counts=True)
            np.testing.assert_array_equal(got[2], u)
            np.testing.assert_array_equal(got[3], c)
            np.testing.assert_array_equal(got[4], np.repeat(xv, [1, 0, 2], 0))
            np.testing.assert_allclose(got[5], np.where(mv, 2 * xv, 0.0))


def test_a_traced_op_keeps_the_eager_error_when_recorded():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [3, 4], "float64")
        y = static.data("y", [5, 2], "float64")
        with pytest.raises(Exception, match="einsum") as info:
            fg.einsum("ij,jk->ik", x, y)
        assert any("static program" in n for n in getattr(info.value, "__notes__", []))


def _eager_rand():
    # (in static mode fg.rand records an op, as Paddle's creation functions do:
    # static/creation.py; the eager draw is made in dynamic mode)
    fg.disable_static()
    try:
        return fg.rand([3]).numpy()
    finally:
        fg.enable_static()


def test_recording_does_not_advance_the_random_generator():
    fg.seed(5)
    want = _eager_rand()
    fg.seed(5)
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 4], "float64")
        fg.nn.functional.dropout(x, 0.5)
    np.testing.assert_array_equal(_eager_rand(), want)


def test_every_traced_tensor_op_is_a_variable_method_and_a_dispatching_function():
    from ferrograd._traced_op_names import FUNCTION_ONLY, FUNCTIONAL_OPS, TENSOR_OPS

    for name in TENSOR_OPS:
        assert isinstance(getattr(fg, name), fg._core.OpFunction), name
        assert (name in FUNCTION_ONLY) != hasattr(static.Variable, name), name
    for name in FUNCTIONAL_OPS:
        assert isinstance(getattr(fg.nn.functional, name), fg._core.OpFunction), name
