"""``static.nn.py_func``: forward/backward NumPy callbacks in a static program —
gradients against finite differences, the skip rules, ``None`` gradients, missing
backward, contract checks on the outputs, exceptions, training, and dynamic mode."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from conftest import numeric_grad
from ferrograd import static


@pytest.fixture(autouse=True)
def static_mode():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    with static.program_guard(main, startup), static.scope_guard(static.Scope()):
        yield main
    fg.disable_static()


def out_var(name, shape, dtype="float64"):
    return (
        static.default_main_program()
        .current_block()
        .create_var(name=name, dtype=dtype, shape=shape)
    )


def mul_add(x, y):
    x, y = np.array(x), np.array(y)
    return x * y, x + 1


def test_backward_argument_order_and_none_grad():
    seen = []

    def bwd(*args):
        seen.append([None if a is None else np.array(a) for a in args])
        x, y, o1, o2, d1, d2 = (None if a is None else np.array(a) for a in args)
        return d1 * y, d1 * x

    x = static.data("x", [2], "float64")
    y = static.data("y", [2], "float64")
    o1, o2 = out_var("o1", [2]), out_var("o2", [2])
    outs = static.nn.py_func(func=mul_add, x=[x, y], out=[o1, o2], backward_func=bwd)
    assert outs[0] is o1 and outs[1] is o2
    loss = fg.mean(o1)
    gx, gy = static.gradients([loss], [x, y])
    xv, yv = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    a, b = static.Executor().run(feed={"x": xv, "y": yv}, fetch_list=[gx, gy])
    np.testing.assert_allclose(a, [1.5, 2.0])
    np.testing.assert_allclose(b, [0.5, 1.0])
    args = seen[-1]
    assert len(args) == 6
    np.testing.assert_allclose(args[2], [3.0, 8.0])
    np.testing.assert_allclose(args[3], [2.0, 3.0])
    np.testing.assert_allclose(args[4], [0.5, 0.5])
    assert args[5] is None  # the unused output's gradient arrives as None


def test_skip_vars_remove_arguments():
    seen = []

    def bwd(*args):
        seen.append(len(args))
        y, o1, d1, d2 = args
        return np.array(d1) * np.array(y), np.zeros(2)

    x = static.data("x", [2], "float64")
    y = static.data("y", [2], "float64")
    o1, o2 = out_var("o1", [2]), out_var("o2", [2])
    static.nn.py_func(
        func=mul_add, x=[x, y], out=[o1, o2], backward_func=bwd, skip_vars_in_backward_input=[x, o2]
    )
    (gx,) = static.gradients([fg.sum(o1)], [x])
    (a,) = static.Executor().run(feed={"x": np.ones(2), "y": np.array([3.0, 4.0])}, fetch_list=[gx])
    np.testing.assert_allclose(a, [3.0, 4.0])
    assert seen == [4]


def test_skip_var_not_input_or_output_is_a_build_error():
    x = static.data("x", [2], "float64")
    z = static.data("z", [2], "float64")
    o = out_var("o", [2])
    with pytest.raises(ValueError, match="'z' is not found in the forward inputs and outputs"):
        static.nn.py_func(
            func=np.tanh, x=x, out=o, backward_func=lambda *a: None, skip_vars_in_backward_input=z
        )


def test_no_backward_func_means_no_gradient():
    x = static.data("x", [2], "float64")
    o = out_var("o", [2])
    static.nn.py_func(func=np.tanh, x=x, out=o)
    w = static.data("w", [2], "float64")
    assert static.gradients([fg.sum(o)], [x]) == [None]
    # other paths still differentiate
    gx, gw = static.gradients([fg.sum(o * w + x)], [x, w])
    a, b = static.Executor().run(
        feed={"x": np.array([0.5, 1.0]), "w": np.ones(2)}, fetch_list=[gx, gw]
    )
    np.testing.assert_allclose(a, [1.0, 1.0])
    np.testing.assert_allclose(b, np.tanh([0.5, 1.0]))


def test_none_returned_for_an_input_gives_zero_gradient():
    x = static.data("x", [2], "float64")
    y = static.data("y", [2], "float64")
    o = out_var("o", [2])
    static.nn.py_func(
        func=lambda a, b: np.array(a) * np.array(b),
        x=[x, y],
        out=o,
        backward_func=lambda a, b, o, d: (None, np.array(d) * np.array(a)),
    )
    gx, gy = static.gradients([fg.sum(o)], [x, y])
    a, b = static.Executor().run(
        feed={"x": np.array([2.0, 3.0]), "y": np.ones(2)}, fetch_list=[gx, gy]
    )
    np.testing.assert_allclose(a, [0.0, 0.0])
    np.testing.assert_allclose(b, [2.0, 3.0])


def test_bare_none_for_several_inputs_is_an_error():
    x = static.data("x", [2], "float64")
    y = static.data("y", [2], "float64")
    o = out_var("o", [2])
    static.nn.py_func(
        func=lambda a, b: np.array(a) + np.array(b), x=[x, y], out=o, backward_func=lambda *a: None
    )
    gx, _ = static.gradients([fg.sum(o)], [x, y])
    with pytest.raises(ValueError, match="returned None, but the op has 2 inputs"):
        static.Executor().run(feed={"x": np.ones(2), "y": np.ones(2)}, fetch_list=[gx])


@pytest.mark.parametrize("batch", [1, 4])
def test_gradients_through_py_func_match_finite_differences(batch):
    def cube(x):
        return np.array(x) ** 3

    def cube_grad(x, y, dy):
        return 3 * np.array(x) ** 2 * np.array(dy)

    x = static.data("x", [-1, 3], "float64")
    w = static.data("w", [3, 2], "float64")
    h = out_var("h", [-1, 3])
    static.nn.py_func(func=cube, x=x, out=h, backward_func=cube_grad)
    loss = fg.sum(fg.tanh(h @ w))
    gx, gw = static.gradients([loss], [x, w])
    exe = static.Executor()
    rs = np.random.default_rng(batch)
    xv, wv = rs.standard_normal((batch, 3)), rs.standard_normal((3, 2))
    got = exe.run(feed={"x": xv, "w": wv}, fetch_list=[gx, gw])

    def f(a, b):
        return float(exe.run(feed={"x": a, "w": b}, fetch_list=[loss])[0])

    for g, want in zip(got, numeric_grad(f, [xv, wv])):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7)


def test_output_contract_errors():
    x = static.data("x", [2, 3], "float32")
    exe = static.Executor()
    feed = {"x": np.ones((2, 3), "float32")}

    o = out_var("bad_shape", [3, 2], "float32")
    static.nn.py_func(func=lambda a: np.array(a), x=x, out=o)
    with pytest.raises(
        ValueError, match=r"'bad_shape'.*shape \[2, 3\].*declared with shape \[3, 2\]"
    ):
        exe.run(feed=feed, fetch_list=[o])

    o2 = out_var("bad_dtype", [2, 3], "float32")
    static.nn.py_func(func=lambda a: np.array(a, dtype="float64"), x=x, out=o2)
    with pytest.raises(TypeError, match=r"\('bad_dtype'\) has dtype float64.*float32"):
        exe.run(feed=feed, fetch_list=[o2])

    o3, o4 = out_var("a3", [2, 3], "float32"), out_var("a4", [2, 3], "float32")
    static.nn.py_func(func=lambda a: np.array(a), x=x, out=[o3, o4])
    with pytest.raises(ValueError, match="returned 1 value"):
        exe.run(feed=feed, fetch_list=[o3])


def test_callback_exceptions_come_out_unchanged():
    class Boom(Exception):
        pass

    def fwd(a):
        raise Boom("forward failed")

    x = static.data("x", [1], "float32")
    o = out_var("o", [1], "float32")
    static.nn.py_func(func=fwd, x=x, out=o)
    with pytest.raises(Boom, match="forward failed"):
        static.Executor().run(feed={"x": np.ones(1, "float32")}, fetch_list=[o])


def test_func_receives_numpy_readable_tensors_and_may_return_tensors():
    got = []

    def fwd(a):
        got.append(type(a))
        arr = np.asarray(a)
        return fg.to_tensor(arr * 2)  # a tensor is accepted too

    x = static.data("x", [3], "float32")
    o = out_var("o", [3], "float32")
    static.nn.py_func(func=fwd, x=x, out=o)
    (ov,) = static.Executor().run(feed={"x": np.arange(3, dtype="float32")}, fetch_list=[o])
    np.testing.assert_allclose(ov, [0.0, 2.0, 4.0])
    assert got == [fg.Tensor]


def test_py_func_tanh_trains_a_small_model():
    def tanh(x):
        return np.tanh(x)

    def tanh_grad(y, dy):
        return np.array(dy) * (1 - np.square(np.array(y)))

    rs = np.random.default_rng(7)
    x = static.data("x", [-1, 2], "float64")
    t = static.data("t", [-1, 1], "float64")
    w1 = static.create_parameter([2, 8], "float64", name="w1")
    b1 = static.create_parameter([8], "float64", name="b1", is_bias=True)
    w2 = static.create_parameter([8, 1], "float64", name="w2")
    pre = x @ w1 + b1
    h = out_var("h", [-1, 8])
    static.nn.py_func(
        func=tanh, x=pre, out=h, backward_func=tanh_grad, skip_vars_in_backward_input=pre
    )
    loss = fg.mean((h @ w2 - t) ** 2)
    grads = static.gradients([loss], [w1, b1, w2])
    for p, g in zip([w1, b1, w2], grads):
        static.assign(p - 0.2 * g, output=p)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    losses = []
    for _ in range(300):
        xv = rs.uniform(-1, 1, (16, 2))
        tv = (np.sin(2 * xv[:, :1]) * xv[:, 1:]) * 0.5
        (lv,) = exe.run(feed={"x": xv, "t": tv}, fetch_list=[loss])
        losses.append(float(lv))
    assert np.mean(losses[-20:]) < 0.5 * np.mean(losses[:20])


def test_dynamic_mode_py_func_records_a_node():
    fg.disable_static()
    try:
        x = fg.to_tensor([0.5, -1.0], dtype="float64", stop_gradient=False)
        out = fg.zeros([2], dtype="float64")
        y = static.nn.py_func(
            func=lambda a: np.tanh(np.array(a)),
            x=x,
            out=out,
            backward_func=lambda a, o, d: np.array(d) * (1 - np.array(o) ** 2),
        )
        assert "PyFuncBackward" in y.grad_fn.name()
        (y * y).sum().backward()
        t = np.tanh([0.5, -1.0])
        np.testing.assert_allclose(x.grad.numpy(), 2 * t * (1 - t**2))
        with pytest.raises(ValueError, match="declared with shape"):
            static.nn.py_func(func=lambda a: np.zeros(3), x=x, out=out)
    finally:
        fg.enable_static()
