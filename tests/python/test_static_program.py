"""Static programs: building (shape/dtype inference and build-time errors), running
with feeds of varying batch size, fetching intermediates, plan reuse, parameters and
the startup program, gradients against NumPy and finite differences, training."""

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


def test_mode_switch_and_dispatch_restored():
    assert not fg.in_dynamic_mode()
    fg.disable_static()
    assert fg.in_dynamic_mode()
    tanh = fg.tanh  # (the switch no longer replaces module functions: they dispatch on
    fg.enable_static()  # the argument type; see test_static_dispatch.py)
    assert fg.tanh is tanh and fg.tanh.__wrapped__ is fg.Tensor.tanh
    # eager tensors keep working in static mode
    np.testing.assert_allclose(fg.tanh(fg.to_tensor([0.5])).numpy(), np.tanh([0.5]), rtol=1e-6)


def test_build_records_and_infers_shapes():
    x = static.data("x", [-1, 4], "float32")
    w = static.create_parameter([4, 3], "float32")
    h = fg.tanh(x @ w + 1.0)
    assert h.shape == [-1, 3] and h.dtype == fg.float32
    s = h.sum(axis=1, keepdim=True)
    assert s.shape == [-1, 1]
    m = fg.mean(h)
    assert m.shape == []
    r = h.reshape([-1, 3, 1])
    assert r.shape == [-1, 3, 1]
    t = r.transpose([2, 0, 1])
    assert t.shape == [1, -1, 3]
    c = fg.concat([h, h], axis=1)
    assert c.shape == [-1, 6]
    assert (x > 0).dtype == fg.bool
    assert x.astype("float64").dtype == fg.float64
    ops = static.default_main_program().current_block().ops
    assert ops[:3] == ["matmul", "constant", "add"]


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda x, y: x + y, "add"),
        (lambda x, y: x @ y, "matmul"),
        (lambda x, y: fg.concat([x, y.reshape([3, 5])], axis=0), "concat"),
        (lambda x, y: y.reshape([7, -1]), "reshape"),
        (lambda x, y: x.sum(axis=3), "sum"),
        (lambda x, y: x.transpose([0, 0]), "transpose"),
    ],
)
def test_build_time_errors_name_the_op(build, message):
    x = static.data("x", [-1, 4], "float32")
    y = static.data("y", [5, 3], "float32")
    with pytest.raises((ValueError, IndexError), match=message):
        build(x, y)


def test_build_errors_dtypes_and_programs():
    x = static.data("x", [2], "float32")
    with pytest.raises(TypeError, match="bitwise"):
        fg.bitwise_and(x, x)
    other = static.Program()
    with static.program_guard(other):
        z = static.data("z", [2], "float32")
    with pytest.raises(ValueError, match="another program"):
        x + z
    with pytest.raises(ValueError, match="already exists"):
        static.data("x", [3], "float32")
    with pytest.raises(TypeError, match="not known while the program is being built"):
        bool(x)


def test_run_with_varying_batch_sizes_reuses_plan():
    x = static.data("x", [-1, 3], "float32")
    y = fg.exp(x) * 2.0 - x
    exe = static.Executor()
    for batch in (1, 5, 2, 5):
        xv = rng(batch).standard_normal((batch, 3)).astype("float32")
        (out,) = exe.run(feed={"x": xv}, fetch_list=[y])
        assert isinstance(out, np.ndarray) and out.shape == (batch, 3)
        np.testing.assert_allclose(out, np.exp(xv) * 2 - xv, rtol=1e-5)
    assert exe._core.cached_plans() == 1
    # an edited program is recompiled (and the stale plan dropped)
    z = y + 1.0
    (zv,) = exe.run(feed={"x": np.ones((1, 3), "float32")}, fetch_list=[z])
    np.testing.assert_allclose(zv, np.exp(1.0) * 2, rtol=1e-6)
    assert exe._core.cached_plans() == 1


def test_fetch_intermediates_and_by_name():
    x = static.data("x", [2, 2], "float64")
    a = x * x
    b = fg.sum(a, axis=0)
    c = fg.softmax(b)
    xv = np.array([[1.0, 2.0], [3.0, 4.0]])
    av, bv, cv, cv2 = static.Executor().run(feed={"x": xv}, fetch_list=[a, b, c, c.name])
    np.testing.assert_allclose(av, xv * xv)
    np.testing.assert_allclose(bv, (xv * xv).sum(0))
    e = np.exp(bv - bv.max())
    np.testing.assert_allclose(cv, e / e.sum())
    np.testing.assert_allclose(cv2, cv)
    (t,) = static.Executor().run(feed={"x": xv}, fetch_list=[a], return_numpy=False)
    assert isinstance(t, fg.Tensor)


def test_feed_errors():
    x = static.data("x", [-1, 3], "float32")
    y = x + 1.0
    exe = static.Executor()
    with pytest.raises(ValueError, match="not fed"):
        exe.run(feed={}, fetch_list=[y])
    with pytest.raises(TypeError, match="dtype float32"):
        exe.run(feed={"x": np.ones((2, 3), "float64")}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"shape \[-1, 3\]"):
        exe.run(feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])
    with pytest.raises(ValueError, match="not a data variable"):
        exe.run(feed={"x": np.ones((2, 3), "float32"), "typo": 1}, fetch_list=[y])
    with pytest.raises(ValueError, match="no variable named"):
        exe.run(feed={"x": np.ones((2, 3), "float32")}, fetch_list=["nope"])
    # a fetch that does not need x runs without feeding it
    c = static.assign(np.array([1.0, 2.0], "float32"))
    (cv,) = exe.run(fetch_list=[c])
    np.testing.assert_allclose(cv, [1.0, 2.0])


def test_parameters_need_the_startup_program():
    w = static.create_parameter(
        [2, 2], "float32", name="w", default_initializer=static.initializer.Constant(0.5)
    )
    y = w * 2.0
    exe = static.Executor()
    with pytest.raises(RuntimeError, match="startup program"):
        exe.run(fetch_list=[y])
    exe.run(static.default_startup_program())
    (yv,) = exe.run(fetch_list=[y])
    np.testing.assert_allclose(yv, np.full((2, 2), 1.0))
    np.testing.assert_allclose(static.global_scope().find_var("w").numpy(), np.full((2, 2), 0.5))


def test_initializers():
    u = static.create_parameter([200, 100], "float32", name="u")
    b = static.create_parameter([100], "float32", name="b", is_bias=True)
    v = static.create_parameter(
        [3], "float64", name="v", default_initializer=np.array([1.0, 2.0, 3.0])
    )
    n = static.create_parameter(
        [1000], "float64", name="n", default_initializer=static.initializer.Normal(2.0, 0.5)
    )
    static.Executor().run(static.default_startup_program())
    scope = static.global_scope()
    uv = scope.find_var("u").numpy()
    limit = np.sqrt(6 / 300)
    assert np.abs(uv).max() <= limit and np.abs(uv).max() > 0.9 * limit
    np.testing.assert_array_equal(scope.find_var("b").numpy(), np.zeros(100))
    np.testing.assert_array_equal(scope.find_var("v").numpy(), [1.0, 2.0, 3.0])
    assert abs(scope.find_var("n").numpy().mean() - 2.0) < 0.1
    assert {u.name, b.name, v.name, n.name} <= set(scope.names())


def _run_fn(program_out, feeds):
    exe = static.Executor()
    return exe.run(feed=feeds, fetch_list=program_out)


OPS = {
    "tanh_matmul": (lambda x, y: fg.tanh(x @ y).sum(), [(3, 4), (4, 2)]),
    "broadcast_mul_div": (
        lambda x, y: (x * y.sum(axis=0) / (y * y + 1.0).sum(axis=0)).mean(),
        [(3, 4), (4, 4)],
    ),
    "softmax_log_softmax": (
        lambda x, y: (fg.log_softmax(x, axis=1) * fg.softmax(y, axis=0)).sum(),
        [(3, 4), (3, 4)],
    ),
    "exp_sigmoid_reshape": (
        lambda x, y: (fg.exp(x).reshape([-1]) * fg.sigmoid(y).reshape([-1])).sum(),
        [(2, 3), (3, 2)],
    ),
    "max_transpose_concat": (
        lambda x, y: (fg.concat([x, y.transpose([1, 0])], axis=0).max(axis=1) ** 2).sum(),
        [(2, 3), (3, 4)],
    ),
    "remainder_both_sides": (lambda x, y: fg.remainder(x * 3.0, y.abs() + 0.5).sum(), [(4,), (4,)]),
    "pow_sqrt_clip": (
        lambda x, y: (fg.sqrt(x * x + 1.0) + fg.clip(y, -0.5, 0.5) ** 3).sum(),
        [(3,), (3,)],
    ),
}


@pytest.mark.parametrize("name", list(OPS))
def test_gradients_match_finite_differences(name):
    build, shapes = OPS[name]
    x = static.data("x", list(shapes[0]), "float64")
    y = static.data("y", list(shapes[1]), "float64")
    loss = build(x, y)
    gx, gy = static.gradients([loss], [x, y])
    exe = static.Executor()
    xv, yv = rng(1).standard_normal(shapes[0]), rng(2).standard_normal(shapes[1])

    def f(a, b):
        return float(exe.run(feed={"x": a, "y": b}, fetch_list=[loss])[0])

    got_x, got_y = exe.run(feed={"x": xv, "y": yv}, fetch_list=[gx, gy])
    want_x, want_y = numeric_grad(f, [xv, yv])
    np.testing.assert_allclose(got_x, want_x, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-7)


def test_gradients_against_numpy_mlp_and_intermediate():
    x = static.data("x", [-1, 4], "float64")
    w = static.create_parameter([4, 3], "float64", name="w")
    h = x @ w
    a = fg.tanh(h)
    loss = fg.mean(a * a)
    gw, gh, gx = static.gradients(loss, [w, h, x])
    exe = static.Executor()
    exe.run(static.default_startup_program())
    wv = static.global_scope().find_var("w").numpy()
    xv = rng(3).standard_normal((5, 4))
    got_w, got_h, got_x = exe.run(feed={"x": xv}, fetch_list=[gw, gh, gx])
    hv = xv @ wv
    dh = 2 * np.tanh(hv) * (1 - np.tanh(hv) ** 2) / hv.size
    np.testing.assert_allclose(got_h, dh, rtol=1e-10)
    np.testing.assert_allclose(got_w, xv.T @ dh, rtol=1e-10)
    np.testing.assert_allclose(got_x, dh @ wv.T, rtol=1e-10)
    assert gw.name == "w@GRAD" and gw.shape == [4, 3]


def test_gradients_none_for_unreachable_and_target_gradients():
    x = static.data("x", [3], "float64")
    y = static.data("y", [3], "float64")
    i = static.data("i", [3], "int64")
    z = x * 3.0
    flag = (y > 0).astype("float64")  # comparison: no gradient to y
    gx, gy, gi = static.gradients([z * flag], [x, y, i])
    assert gx is not None and gy is None and gi is None
    tg = static.data("tg", [3], "float64")
    (gx2,) = static.gradients([z], [x], target_gradients=[tg])
    xv, yv = np.array([1.0, 2.0, 3.0]), np.array([1.0, -1.0, 2.0])
    a, b = static.Executor().run(
        feed={"x": xv, "y": yv, "tg": np.array([1.0, 10.0, 100.0])}, fetch_list=[gx, gx2]
    )
    np.testing.assert_allclose(a, 3.0 * (yv > 0))
    np.testing.assert_allclose(b, [3.0, 30.0, 300.0])


def test_append_backward_and_sgd_training_converges():
    rs = rng(4)
    true_w = rs.standard_normal((3, 1))
    x = static.data("x", [-1, 3], "float64")
    t = static.data("t", [-1, 1], "float64")
    w = static.create_parameter([3, 1], "float64", name="w")
    b = static.create_parameter([1], "float64", name="b", is_bias=True)
    loss = fg.mean((x @ w + b - t) ** 2)
    params_grads = static.append_backward(loss)
    assert [p.name for p, _ in params_grads] == ["w", "b"]
    for p, g in params_grads:
        static.assign(p - 0.1 * g, output=p)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    losses = []
    for step in range(200):
        xv = rs.standard_normal((8 + step % 3, 3))
        (lv,) = exe.run(feed={"x": xv, "t": xv @ true_w + 0.5}, fetch_list=[loss])
        losses.append(float(lv))
    assert losses[-1] < 1e-6 < losses[0]
    np.testing.assert_allclose(static.global_scope().find_var("w").numpy(), true_w, atol=1e-3)
    np.testing.assert_allclose(static.global_scope().find_var("b").numpy(), [0.5], atol=1e-3)


def test_fc_builds_a_layer():
    x = static.data("x", [-1, 5], "float32")
    y = static.nn.fc(x, 4, activation="relu")
    assert y.shape == [-1, 4]
    exe = static.Executor()
    exe.run(static.default_startup_program())
    (yv,) = exe.run(feed={"x": np.ones((2, 5), "float32")}, fetch_list=[y])
    assert yv.shape == (2, 4) and (yv >= 0).all()


def test_program_listing_and_clone():
    x = static.data("x", [2], "float32")
    y = fg.relu(x)
    prog = static.default_main_program()
    assert "relu" in str(prog) and "x" in str(prog)
    clone = prog.clone()
    assert clone.current_block().ops == ["relu"]
    (yv,) = static.Executor().run(
        clone, feed={"x": np.array([-1.0, 2.0], "float32")}, fetch_list=[y.name]
    )
    np.testing.assert_allclose(yv, [0.0, 2.0])


_UNARY = ["tanh", "exp", "sigmoid", "relu", "square", "sin", "abs"]
_BINARY = ["add", "subtract", "multiply", "maximum"]


@settings(max_examples=40, deadline=None)
@given(
    ops=st.lists(
        st.tuples(st.sampled_from(_UNARY + _BINARY), st.floats(-2, 2, allow_nan=False)),
        min_size=1,
        max_size=6,
    ),
    batches=st.lists(st.integers(1, 5), min_size=1, max_size=3),
)
def test_static_program_equals_eager(ops, batches):
    """A random chain of ops, built once and run with several batch sizes, gives the
    eager result and the eager gradient."""
    fg.disable_static()  # build each example in a fresh program
    fg.enable_static()
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3], "float64")
        y = x
        for op, c in ops:
            y = getattr(fg, op)(y) if op in _UNARY else getattr(fg, op)(y, x * c)
        loss = fg.sum(y)
        (gx,) = static.gradients([loss], [x]) if loss.dtype == fg.float64 else (None,)
        exe = static.Executor()
        for n in batches:
            xv = np.random.default_rng(n).standard_normal((n, 3))
            fetch = [y] + ([gx] if gx is not None else [])
            got = exe.run(static.default_main_program(), feed={"x": xv}, fetch_list=fetch)
            fg.disable_static()
            try:
                xt = fg.tensor(xv, requires_grad=True)
                yt = xt
                for op, c in ops:
                    yt = getattr(fg, op)(yt) if op in _UNARY else getattr(fg, op)(yt, xt * c)
                np.testing.assert_allclose(got[0], yt.numpy(), rtol=1e-12, atol=1e-12)
                if gx is not None:
                    (want,) = fg.grad(yt.sum(), [xt], allow_unused=True)
                    want_np = np.zeros_like(xv) if want is None else want.numpy()
                    np.testing.assert_allclose(got[1], want_np, rtol=1e-10, atol=1e-12)
            finally:
                fg.enable_static()


def test_no_grad_set_stops_gradients():
    x = static.data("x", [2], "float64")
    h = x * 2.0
    loss = fg.sum(h * x)
    (full,) = static.gradients([loss], [x])
    (cut,) = static.gradients([loss], [x], no_grad_set=[h])
    assert static.gradients([loss], [x], no_grad_set=[x]) == [None]
    assert static.gradients([fg.sum(h)], [x], no_grad_set=[h.name]) == [None]
    xv = np.array([1.0, 3.0])
    a, b = static.Executor().run(feed={"x": xv}, fetch_list=[full, cut])
    np.testing.assert_allclose(a, 4 * xv)  # d(2x^2)/dx
    np.testing.assert_allclose(b, 2 * xv)  # h treated as a constant
