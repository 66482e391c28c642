"""The static section of Paddle's "custom Python operators" guide (``py_func``), sample by sample, with
``import ferrograd as paddle``; then the programs are run and checked."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def static_mode():
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    with paddle.static.program_guard(main, startup):
        yield main
    paddle.disable_static()


# --- the seed's forward and backward functions, verbatim --------------------------------
def tanh(x):
    # 可以直接将 Tensor 作为 np.tanh 的输入参数
    return np.tanh(x)


def element_wise_add(x, y):
    x = np.array(x)
    y = np.array(y)

    if x.shape != y.shape:
        raise AssertionError("the shape of inputs must be the same!")

    result = np.zeros(x.shape, dtype="int32")
    for i in range(len(x)):
        for j in range(len(x[0])):
            result[i][j] = x[i][j] + y[i][j]

    return result


printed = []


def debug_func(x):
    printed.append(np.array(x))
    print(x)


def tanh_grad(x, y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


def tanh_grad_without_x(y, dy):
    return np.array(dy) * (1 - np.square(np.array(y)))


def create_tmp_var(program, name, dtype, shape):
    return program.current_block().create_var(name=name, dtype=dtype, shape=shape)


def _seed_step2():
    in_var = paddle.static.data(name="input", dtype="float32", shape=[-1, 28, 28])
    out_var = create_tmp_var(
        paddle.static.default_main_program(), name="output", dtype="float32", shape=[-1, 28, 28]
    )
    return in_var, out_var


def test_seed_samples_build_as_written():
    in_var, out_var = _seed_step2()
    paddle.static.nn.py_func(func=tanh, x=in_var, out=out_var, backward_func=tanh_grad)
    paddle.static.nn.py_func(
        func=tanh,
        x=in_var,
        out=out_var,
        backward_func=tanh_grad_without_x,
        skip_vars_in_backward_input=in_var,
    )
    assert paddle.static.default_main_program().current_block().ops == ["py_func", "py_func"]


@pytest.mark.parametrize("skip", [False, True])
def test_seed_tanh_runs_and_differentiates(skip):
    in_var, out_var = _seed_step2()
    if skip:
        paddle.static.nn.py_func(
            func=tanh,
            x=in_var,
            out=out_var,
            backward_func=tanh_grad_without_x,
            skip_vars_in_backward_input=in_var,
        )
    else:
        paddle.static.nn.py_func(func=tanh, x=in_var, out=out_var, backward_func=tanh_grad)
    loss = paddle.mean(out_var)
    (g,) = paddle.static.gradients([loss], [in_var])
    exe = paddle.static.Executor()
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal((batch, 28, 28)).astype("float32")
        out, gv = exe.run(feed={"input": x}, fetch_list=[out_var, g])
        np.testing.assert_allclose(out, np.tanh(x), rtol=1e-6)
        np.testing.assert_allclose(gv, (1 - np.tanh(x) ** 2) / x.size, rtol=1e-5)


def test_seed_element_wise_add_and_debug_func(capsys):
    x = paddle.static.data(name="x", shape=[2, 3], dtype="int32")
    y = paddle.static.data(name="y", shape=[2, 3], dtype="int32")
    out = create_tmp_var(paddle.static.default_main_program(), "sum_out", "int32", [2, 3])
    paddle.static.nn.py_func(func=element_wise_add, x=[x, y], out=out)
    paddle.static.nn.py_func(func=debug_func, x=out, out=None)
    xv = np.arange(6, dtype="int32").reshape(2, 3)
    (res,) = paddle.static.Executor().run(feed={"x": xv, "y": xv * 10}, fetch_list=[out])
    np.testing.assert_array_equal(res, xv * 11)
    # the debug py_func has no outputs: it runs as a side effect and prints
    np.testing.assert_array_equal(printed[-1], xv * 11)
    assert "33" in capsys.readouterr().out


def test_seed_dynamic_pylayer_tanh_still_works():
    paddle.disable_static()
    try:
        from ferrograd.autograd import PyLayer

        class cus_tanh(PyLayer):
            @staticmethod
            def forward(ctx, x):
                y = paddle.tanh(x)
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, dy):
                (y,) = ctx.saved_tensor()
                return dy * (1 - paddle.square(y))

        data = paddle.randn([2, 3], dtype="float32")
        data.stop_gradient = False
        z = cus_tanh.apply(data)
        z.mean().backward()
        np.testing.assert_allclose(
            data.grad.numpy(), (1 - np.tanh(data.numpy()) ** 2) / 6, rtol=1e-5
        )
    finally:
        paddle.enable_static()
