"""Static programs: indexing, stack/split/chunk/unbind, gather/index_select, where,
argmax/argmin, var/std, prod, logsumexp, squeeze/unsqueeze/flatten/expand, all/any.

Every op is built on static Variables, run by an Executor and checked against the same
call on eager tensors (values, dtypes, shapes) and NumPy; gradients through
``static.gradients`` against eager autograd and finite differences; build-time errors;
feeds with varying batch sizes where a dimension is known only at run time."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import numeric_grad
from ferrograd import static
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture(autouse=True)
def static_mode():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    with static.program_guard(main, startup), static.scope_guard(static.Scope()):
        yield main
    fg.disable_static()


def rng(seed=0):
    return np.random.default_rng(seed)


def _listify(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def check(fn, *arrays, dyn=False, grad=True, feeds=None):
    """Builds ``fn`` on data variables shaped like ``arrays`` (first dim -1 when
    ``dyn``), runs it and compares with ``fn`` on eager tensors: values, dtypes, shapes,
    the inferred shapes, and the gradients of a weighted sum of the float outputs.
    ``feeds``: further lists of arrays to run the same program with."""
    with static.program_guard(static.Program(), static.Program()):
        return _check(fn, arrays, dyn, grad, feeds)


def _check(fn, arrays, dyn, grad, feeds):
    main = static.default_main_program()
    xs = [
        static.data(f"in{i}", ([-1] + list(a.shape[1:])) if dyn else list(a.shape), str(a.dtype))
        for i, a in enumerate(arrays)
    ]
    outs = _listify(fn(*xs))
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    weights = [rng(7).standard_normal([max(d, 1) if d >= 0 else 1 for d in o.shape]) for o in outs]
    grads = []
    grad = grad and bool(floats) and any(o.dtype in (fg.float32, fg.float64) for o in outs)
    if grad:
        loss = None
        for o, w in zip(outs, weights):
            if o.dtype in (fg.float32, fg.float64):
                term = (o * fg.to_tensor(w).astype(o.dtype)).sum()
                loss = term if loss is None else loss + term
        grads = static.gradients([loss], [xs[i] for i in floats])
    exe = static.Executor()
    for arrs in [list(arrays)] + list(feeds or []):
        feed = {f"in{i}": a for i, a in enumerate(arrs)}
        got = exe.run(main, feed=feed, fetch_list=outs + [g for g in grads if g is not None])
        eager_in = []
        for i, a in enumerate(arrs):
            t = fg.to_tensor(a, stop_gradient=i not in floats or not grad)
            eager_in.append(t)
        want = _listify(fn(*eager_in))
        assert len(want) == len(outs)
        for o, g, w in zip(outs, got, want):
            w_np = w.numpy()
            assert g.dtype == w_np.dtype, (o, g.dtype, w_np.dtype)
            assert list(g.shape) == list(w_np.shape)
            assert len(o.shape) == g.ndim and all(d in (-1, n) for d, n in zip(o.shape, g.shape)), (
                o.shape,
                g.shape,
            )
            np.testing.assert_allclose(g, w_np, rtol=1e-10, atol=1e-12)
        if grad:
            loss = None
            for w, wt in zip(want, weights):
                if w.dtype in (fg.float32, fg.float64):
                    term = (w * fg.to_tensor(wt).astype(w.dtype)).sum()
                    loss = term if loss is None else loss + term
            loss.backward()
            static_grads = got[len(outs) :]
            k = 0
            for i, g in zip(floats, grads):
                if g is None:
                    assert eager_in[i].grad is None or not np.any(eager_in[i].grad.numpy())
                    continue
                np.testing.assert_allclose(
                    static_grads[k], eager_in[i].grad.numpy(), rtol=1e-10, atol=1e-12
                )
                k += 1
    return outs


# ---------------------------------------------------------------- indexing
@pytest.mark.parametrize(
    "key",
    [
        1,
        -1,
        (slice(None), slice(2, 5)),
        (Ellipsis, None),
        (slice(None, None, -1),),
        (slice(None), slice(4, 0, -2)),
        (None, 1, Ellipsis, slice(1, None)),
        (0, slice(None), 2),
        (slice(1, 3), [0, 2, 2]),
        ([0, 2], slice(None), [1, 3]),
    ],
)
def test_getitem_matches_eager(key):
    a = rng().standard_normal((3, 4, 6))
    check(lambda x: x[key], a)


_bound = st.none() | st.integers(-8, 8)


@given(_bound, _bound, st.sampled_from([None, 1, 2, 3, -1, -2]), st.booleans())
@settings(max_examples=60, deadline=None)
def test_slices_match_numpy_shape_at_build_and_values_at_run(start, stop, step, dyn):
    a = np.arange(12.0).reshape(6, 2)
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1 if dyn else 6, 2], "float64")
        y = x[start:stop:step, ::-1]
        want = a[start:stop:step, ::-1]
        assert y.shape == ([-1, 2] if dyn else list(want.shape))
        (got,) = static.Executor().run(feed={"x": a}, fetch_list=[y])
    np.testing.assert_array_equal(got, want)


def test_getitem_with_index_and_mask_variables():
    a = rng().standard_normal((5, 3))
    idx = np.array([4, 0, -1, 2], dtype=np.int64)
    check(lambda x, i: x[i], a, idx)
    check(lambda x, i: x[:, i[:2]], a, np.array([2, 0, 1], dtype=np.int64))
    mask = np.array([True, False, True, True, False])
    outs = check(lambda x, m: x[m], a, mask)
    assert outs[0].shape == [-1, 3]  # the number of true entries is known at run time


def test_getitem_dynamic_dims_and_batches():
    a = rng().standard_normal((4, 6))
    out = check(lambda x: x[:, 1:4] * 2.0, a, dyn=True, feeds=[[rng(1).standard_normal((7, 6))]])
    assert out[0].shape == [-1, 3]
    out = check(lambda x: x[1:3], a, dyn=True, feeds=[[rng(1).standard_normal((2, 6))]])
    assert out[0].shape == [-1, 6]  # slicing a run-time dim stays unknown


def test_getitem_build_errors():
    x = static.data("x", [3, 4], "float32")
    with pytest.raises(IndexError, match="getitem: index 3 is out of bounds for dimension 0"):
        x[3]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 1, 2]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match="integer .* or bool"):
        x[static.data("f", [2], "float32")]
    with pytest.raises(TypeError, match="unsupported index"):
        x["a"]


def test_iteration_over_known_first_dim():
    a = rng().standard_normal((3, 2))
    check(lambda x: list(x), a)
    y = static.data("y", [-1, 2], "float32")
    with pytest.raises(TypeError, match="first dimension is not known"):
        list(y)


# ---------------------------------------------------------------- stack / split
def test_stack_and_module_function():
    a, b = rng().standard_normal((2, 3)), rng(1).standard_normal((2, 3))
    check(lambda x, y: fg.stack([x, y], axis=1), a, b)
    check(lambda x, y: fg.stack([x, y, x], axis=-1), a, b, dyn=True, feeds=[[a[:1], b[:1]]])
    x = static.data("p", [2, 3], "float32")
    with pytest.raises(ValueError, match="stack: all variables must have the same shape"):
        fg.stack([x, static.data("q", [3, 3], "float32")])
    with pytest.raises(IndexError, match="stack: axis 3 is out of range"):
        fg.stack([x, x], axis=3)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.split(2, dim=1),  # torch: pieces of size 2 (the last smaller)
        lambda x: x.split([1, 4], dim=1),
        lambda x: x.split(num_or_sections=5, axis=1),
        lambda x: fg.split(x, 5, axis=1),  # Paddle: 5 equal sections
        lambda x: fg.split(x, [2, -1], axis=1),
        lambda x: x.chunk(2, axis=1),
        lambda x: x.chunk(4, dim=1),
        lambda x: fg.chunk(x, 3, 1),
        lambda x: x.unbind(1),
        lambda x: fg.unbind(x, axis=0),
    ],
)
def test_split_family_matches_eager(fn):
    check(fn, rng().standard_normal((3, 5)))


def test_split_records_one_multi_output_op():
    x = static.data("x", [-1, 6], "float32")
    a, b, c = fg.split(x, [1, -1, 2], axis=1)
    assert [a.shape, b.shape, c.shape] == [[-1, 1], [-1, 3], [-1, 2]]
    ops = static.default_main_program().current_block().ops
    assert ops.count("split") == 1
    # a run-time dim splits with sizes, one of them -1
    p, q = fg.split(x, [2, -1], axis=0)
    assert p.shape == [2, 6] and q.shape == [-1, 6]
    arr = rng().standard_normal((5, 6)).astype("float32")
    got = static.Executor().run(feed={"x": arr}, fetch_list=[b, p, q])
    np.testing.assert_array_equal(got[0], arr[:, 1:4])
    np.testing.assert_array_equal(got[1], arr[:2])
    np.testing.assert_array_equal(got[2], arr[2:])


def test_split_build_errors():
    x = static.data("x", [-1, 6], "float32")
    with pytest.raises(ValueError, match="cannot be split into 4 equal sections"):
        fg.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="do not add up to the size 6"):
        x.split([2, 2], dim=1)
    with pytest.raises(ValueError, match="known only at run time"):
        x.chunk(2, axis=0)
    with pytest.raises(ValueError, match="unbind: axis 0 .* known only at run time"):
        x.unbind(0)
    with pytest.raises(IndexError, match="split: axis 2 is out of range"):
        x.split([1, -1], dim=2)


# ---------------------------------------------------------------- gather / index_select / where
def test_gather_and_index_select_dialects():
    a = rng().standard_normal((4, 3))
    i1 = np.array([3, 0, 0], dtype=np.int64)
    check(lambda x, i: x.index_select(i, axis=0), a, i1)
    check(lambda x, i: x.index_select(1, i[:2]), a, i1[1:] % 3)  # torch order (dim, index)
    check(lambda x, i: fg.index_select(x, i, 1), a, np.array([2, 2], dtype=np.int64))
    check(lambda x, i: x.gather(i), a, i1)  # Paddle gather(index) = index_select on axis 0
    check(lambda x, i: x.gather(i, 1), a, np.array([1, 0], dtype=np.int64))
    gi = rng().integers(0, 3, (4, 2)).astype(np.int64)
    check(lambda x, i: x.gather(1, i), a, gi)  # torch gather(dim, index)
    check(lambda x, i: fg.gather(x, 1, i), a, gi)
    check(lambda x, i: x.take_along_axis(i, 1), a, gi)
    check(lambda x: x.index_select(fg.to_tensor([1, 1, 0]), axis=0), a)  # eager index tensor


def test_gather_errors():
    x = static.data("x", [4, 3], "float32")
    f = static.data("f", [2], "float32")
    with pytest.raises(TypeError, match="index_select: the index must be an int32 or int64"):
        x.index_select(f, axis=0)
    with pytest.raises(ValueError, match="index_select: the index must be 1-D"):
        x.index_select(static.data("i2", [2, 2], "int64"), axis=0)
    with pytest.raises(ValueError, match="gather: the index .* needs as many dimensions"):
        x.gather(1, static.data("i1", [2], "int64"))


def test_where_broadcasts_and_routes_gradients():
    c = rng().standard_normal((3, 1)) > 0
    a, b = rng(1).standard_normal((3, 4)), rng(2).standard_normal((4,))
    check(lambda cond, x, y: fg.where(cond, x, y), c, a, b)
    check(lambda cond, x: fg.where(cond, x, 0.5), c, a)
    check(lambda cond: fg.where(cond, 1.5, -2.0), c)
    check(lambda x: fg.where(x > 0, x, x * 0.1), a, dyn=True, feeds=[[a[:1]]])
    x = static.data("x", [3, 4], "float32")
    with pytest.raises(ValueError, match="where: the shapes .* cannot be broadcast"):
        fg.where(x > 0, x, static.data("y", [5], "float32"))
    with pytest.raises(ValueError, match="data-dependent"):
        fg.where(x > 0)


# ---------------------------------------------------------------- reductions
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.argmax(),
        lambda x: x.argmax(axis=1),
        lambda x: x.argmin(axis=0, keepdim=True),
        lambda x: fg.argmax(x, -1),
        lambda x: fg.argmin(x, dim=1),
    ],
)
def test_argmax_argmin_int64_no_grad(fn):
    a = rng().standard_normal((3, 5))
    outs = check(fn, a)
    assert outs[0].dtype == fg.int64
    x = static.data("x", [3, 5], "float64")
    assert static.gradients([fn(x).astype("float64").sum() + x.sum()], [x])[0] is not None
    assert static.gradients([fn(x).astype("float64").sum()], [x])[0] is None


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.var(),
        lambda x: x.var(axis=1, unbiased=False),
        lambda x: x.std(1, keepdim=True),
        lambda x: fg.std(x, dim=0, correction=0),
        lambda x: fg.var(x, [0, 1]),
        lambda x: x.prod(),
        lambda x: x.prod(axis=0, keepdim=True),
        lambda x: fg.prod(x, dim=1),
        lambda x: x.logsumexp(),
        lambda x: fg.logsumexp(x, axis=1, keepdim=True),
    ],
)
def test_statistics_match_eager_and_gradients(fn):
    check(fn, rng().standard_normal((3, 4)))


def test_statistics_against_numpy_and_finite_differences():
    a = rng().standard_normal((3, 4))
    x = static.data("x", [-1, 4], "float64")
    outs = [x.var(axis=1), x.std(axis=0, unbiased=False), x.prod(axis=1), x.logsumexp(axis=1)]
    loss = outs[0].sum() + outs[1].sum() + outs[2].sum() + outs[3].sum()
    (g,) = static.gradients([loss], [x])
    got = static.Executor().run(feed={"x": a}, fetch_list=outs + [g])
    np.testing.assert_allclose(got[0], a.var(axis=1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(got[1], a.std(axis=0), rtol=1e-12)
    np.testing.assert_allclose(got[2], a.prod(axis=1), rtol=1e-12)
    np.testing.assert_allclose(got[3], np.log(np.exp(a).sum(axis=1)), rtol=1e-12)

    def f(v):
        return (
            v.var(axis=1, ddof=1).sum()
            + v.std(axis=0).sum()
            + v.prod(axis=1).sum()
            + np.log(np.exp(v).sum(axis=1)).sum()
        )

    np.testing.assert_allclose(got[4], numeric_grad(f, [a])[0], rtol=1e-6, atol=1e-8)


def test_reductions_on_integer_input_and_dtypes():
    a = rng().integers(-3, 4, (3, 4)).astype(np.int64)
    check(lambda x: x.prod(axis=1), a, grad=False)
    check(lambda x: x.var(axis=0), a, grad=False)
    check(lambda x: x.logsumexp(), a.astype(np.int32), grad=False)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.all(),
        lambda x: x.any(axis=1),
        lambda x: fg.all(x, dim=0, keepdim=True),
        lambda x: fg.any(x > 0.5),
    ],
)
def test_all_any_bool(fn):
    a = rng().standard_normal((3, 4))
    a[0, 1] = 0.0
    outs = check(fn, a, grad=False)
    assert outs[0].dtype == fg.bool


def test_reduction_build_errors():
    x = static.data("x", [-1, 4], "float32")
    with pytest.raises(
        IndexError, match="prod: axis 2 is out of range for a variable of 2 dimensions"
    ):
        x.prod(axis=2)
    with pytest.raises(IndexError, match="argmax: axis -3 is out of range"):
        x.argmax(axis=-3)
    with pytest.raises(ValueError, match="var: axis -1 is given twice"):
        x.var(axis=[1, -1])


# ---------------------------------------------------------------- shapes
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.squeeze(),
        lambda x: x.squeeze(axis=1),
        lambda x: fg.squeeze(x, [1, 3]),
        lambda x: x.squeeze(0),  # a listed dim that is not 1 is left alone
        lambda x: x.unsqueeze(0),
        lambda x: x.unsqueeze([0, -1]),
        lambda x: fg.unsqueeze(x, dim=2),
        lambda x: x.flatten(),
        lambda x: x.flatten(1, 2),
        lambda x: fg.flatten(x, start_dim=2),
        lambda x: x.expand(2, 2, 4, 3, 5),
        lambda x: x.expand([2, -1, 3, -1, 5]),
        lambda x: fg.broadcast_to(x, [3, 2, 4, 3, 5]),
    ],
)
def test_shape_ops_match_eager(fn):
    check(fn, rng().standard_normal((2, 1, 3, 1)))


def test_expand_as_and_dynamic_shapes():
    a, b = rng().standard_normal((1, 3)), rng(1).standard_normal((4, 3))
    outs = check(lambda x, y: x.expand_as(y) * y, a, b)
    assert outs[0].shape == [4, 3]
    # run-time batch: flatten of a -1 dim, expand keeping it, unsqueeze and squeeze
    c = rng(2).standard_normal((4, 2, 3))
    outs = check(
        lambda x: [
            x.flatten(),
            x.flatten(1),
            x.unsqueeze(1).squeeze(1),
            x.expand(-1, 2, 3),
            x.reshape([-1, 6]),
        ],
        c,
        dyn=True,
        feeds=[[rng(3).standard_normal((6, 2, 3))]],
    )
    assert [o.shape for o in outs] == [[-1], [-1, 6], [-1, 2, 3], [-1, 2, 3], [-1, 6]]


def test_shape_build_errors():
    x = static.data("x", [-1, 3, 1], "float32")
    with pytest.raises(
        IndexError, match="squeeze: axis 3 is out of range for a variable of 3 dimensions"
    ):
        x.squeeze(3)
    with pytest.raises(ValueError, match="squeeze: axis 0 .* known only at run time"):
        x.squeeze(0)
    assert x.squeeze().shape == [-1, 3]  # only dims known to be 1
    with pytest.raises(IndexError, match="unsqueeze: axis 5 is out of range"):
        x.unsqueeze(5)
    with pytest.raises(ValueError, match="flatten: start axis 2 comes after stop axis 1"):
        x.flatten(2, 1)
    with pytest.raises(ValueError, match="expand: cannot expand 'x' .* dimension 1 has size 3"):
        x.expand(2, 4, 1)
    with pytest.raises(ValueError, match="fewer dimensions"):
        x.expand(3, 1)
    with pytest.raises(ValueError, match="expand_as: cannot expand"):
        x.expand_as(static.data("y", [2, 2, 1], "float32"))


def test_module_functions_restore_in_dynamic_mode():
    fg.disable_static()
    try:
        t = fg.to_tensor(np.arange(6.0).reshape(2, 3))
        assert fg.stack([t, t]).shape == [2, 2, 3]
        assert [p.shape for p in fg.split(t, 3, axis=1)] == [[2, 1]] * 3
        assert fg.where(t > 2, t, 0.0).numpy().tolist() == [[0, 0, 0], [3, 4, 5]]
    finally:
        fg.enable_static()
    # static mode: eager tensors still work through the wrappers
    t = fg.to_tensor(np.arange(6.0).reshape(2, 3))
    assert fg.stack([t, t], axis=0).shape == [2, 2, 3]
    assert len(fg.split(t, 3, axis=1)) == 3
    assert fg.where(t > 2, t, 0.0).shape == [2, 3]
