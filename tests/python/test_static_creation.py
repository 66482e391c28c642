"""Paddle's creation functions in static mode (``ferrograd/static/creation.py``):
``paddle.zeros`` / ``full`` / ``arange`` / ``rand`` / ... called while building a
program return Variables of the default main program, as in Paddle (its
``python/paddle/tensor/creation.py`` ``fill_constant`` / ``full`` and
``python/paddle/tensor/random.py`` ``uniform`` / ``randint`` append an op to the current
block outside dygraph mode and return the op's output Variable); random ones draw anew
at each ``Executor.run``."""

from __future__ import annotations

import inspect

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd import static


@pytest.fixture(autouse=True)
def _static_mode():
    paddle.enable_static()
    yield
    paddle.disable_static()


def _run(main, fetch, feed=None):
    return static.Executor().run(main, feed=feed or {}, fetch_list=fetch)


def test_constants_are_variables_with_the_eager_values():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        made = {
            "zeros": paddle.zeros([2, 3]),
            "ones": paddle.ones([2], dtype="float64"),
            "full": paddle.full([2, 2], 1.5),
            "full_int": paddle.full([2], 3),  # Paddle code: float32 (its default dtype)
            "arange": paddle.arange(1, 7, 2),
            "linspace": paddle.linspace(0, 1, 5),
            "eye": paddle.eye(3),
            "empty": paddle.empty([2, 4]),
            "fill": paddle.tensor.fill_constant([1], "int64", 2),
        }
    assert all(isinstance(v, static.Variable) for v in made.values())
    assert all(v.stop_gradient for v in made.values())
    got = dict(zip(made, _run(main, list(made.values()))))
    np.testing.assert_array_equal(got["zeros"], np.zeros((2, 3), "float32"))
    assert got["ones"].dtype == np.float64
    np.testing.assert_array_equal(got["full"], np.full((2, 2), 1.5, "float32"))
    assert got["full_int"].dtype == np.float32
    np.testing.assert_array_equal(got["arange"], [1, 3, 5])
    np.testing.assert_allclose(got["linspace"], np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_array_equal(got["eye"], np.eye(3, dtype="float32"))
    assert got["empty"].shape == (2, 4)
    np.testing.assert_array_equal(got["fill"], [2])
    assert made["zeros"].shape == [2, 3] and made["arange"].dtype == paddle.int64


def test_random_ones_draw_anew_at_each_run_and_follow_seed():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        r = paddle.rand([3, 4])
        n = paddle.randn([5], dtype="float64")
        i = paddle.randint(-100, 100, shape=[6], dtype="int32")
        u = paddle.uniform([4], min=-2.0, max=2.0)
        g = paddle.normal(shape=[3])
        gs = paddle.tensor.random.gaussian([3])
    assert [r.shape, n.shape, i.shape] == [[3, 4], [5], [6]]
    assert (n.dtype, i.dtype) == (paddle.float64, paddle.int32)
    first = _run(main, [r, n, i, u, g, gs])
    second = _run(main, [r, n, i, u, g, gs])
    for a, b in zip(first, second):
        assert not np.array_equal(a, b)
    assert (first[3] >= -2).all() and (first[3] < 2).all()
    # a run after seed(n) draws what eager code draws after seed(n)
    paddle.seed(7)
    (a,) = _run(main, [r])
    paddle.seed(7)
    (b,) = _run(main, [r])
    paddle.disable_static()
    paddle.seed(7)
    eager = paddle.rand([3, 4]).numpy()
    paddle.enable_static()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, eager)


def test_building_does_not_move_the_generator():
    paddle.seed(3)
    state = [np.asarray(s) for s in paddle.get_rng_state()]
    with static.program_guard(static.Program(), static.Program()):
        paddle.rand([4]), paddle.randint(0, 5, [3]), paddle.randn([2])
    after = [np.asarray(s) for s in paddle.get_rng_state()]
    assert all(np.array_equal(x, y) for x, y in zip(state, after))


def test_outside_program_guard_they_record_into_the_default_program():
    before = static.default_main_program().current_block().ops
    z = paddle.zeros([2])
    assert isinstance(z, static.Variable)
    assert z.block is static.default_main_program().current_block()
    assert len(static.default_main_program().current_block().ops) == len(before) + 1


def test_dynamic_mode_is_unchanged():
    paddle.disable_static()
    t = paddle.zeros([2, 3])
    assert isinstance(t, paddle.Tensor)
    # Paddle code (this module imports ferrograd as paddle): float32, through the wrapper
    assert paddle.full([2], 3).dtype == paddle.float32
    assert inspect.signature(paddle.linspace) == inspect.signature(paddle.linspace.__wrapped__)
    paddle.enable_static()


def test_mixing_with_data_variables_and_eager_tensors():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 3], "float32")
        y = x + paddle.ones([3]) * 2 + paddle.to_tensor([1.0, 2.0, 3.0])
        zl, ol = paddle.zeros_like(x), paddle.ones_like(x)
        fl = paddle.full_like(x, 4.0)
        rl = paddle.rand_like(x)
    assert zl.shape == [-1, 3] and zl.stop_gradient and rl.stop_gradient
    xs = np.arange(6, dtype="float32").reshape(2, 3)
    got = _run(main, [y, zl, ol, fl, rl], {"x": xs})
    np.testing.assert_allclose(got[0], xs + 2 + np.array([1, 2, 3]))
    np.testing.assert_array_equal(got[1], np.zeros((2, 3)))
    np.testing.assert_array_equal(got[2], np.ones((2, 3)))
    np.testing.assert_array_equal(got[3], np.full((2, 3), 4.0))
    assert got[4].shape == (2, 3)


def test_shapes_given_as_variables():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        two = paddle.tensor.fill_constant([1], "int64", 2)
        s = static.data("s", [2], "int64")
        known = paddle.full(shape=[1, two], fill_value=1.1)  # a constant: read now
        fed = paddle.full(shape=s, fill_value=1.5)  # a fed shape: known at run time
        drawn = paddle.randint(1, 10, shape=[two, 5])
        value = paddle.full([3], fill_value=paddle.tensor.fill_constant([1], "float32", 0.5))
    assert known.shape == [1, 2] and fed.shape == [-1, -1] and drawn.shape == [2, 5]
    got = _run(main, [known, fed, drawn, value], {"s": np.array([3, 2])})
    np.testing.assert_allclose(got[0], np.full((1, 2), 1.1, "float32"))
    np.testing.assert_array_equal(got[1], np.full((3, 2), 1.5, "float32"))
    assert got[2].shape == (2, 5)
    np.testing.assert_array_equal(got[3], [0.5, 0.5, 0.5])


def test_a_float_shape_variable_is_a_type_error():
    # Paddle's check (test_full_op.py TestFullOpError): shape tensors are int32 / int64
    with static.program_guard(static.Program(), static.Program()):
        f = static.data("f", [2], "float32")
        b = static.data("b", [1], "bool")
        with pytest.raises(TypeError, match="int32 or int64"):
            paddle.full(shape=f, fill_value=1, dtype="float32")
        with pytest.raises(TypeError, match="int32 or int64"):
            paddle.zeros([b, 2])
        r = static.data("r", [-1], "int64")
        with pytest.raises(ValueError, match="fixed shape"):
            paddle.ones(r)


def test_append_backward_reaches_a_created_leaf_regression():
    # Paddle's test_index_put_op.py TestIndexPutAPIBackward.test_backward_in_static
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = paddle.zeros((4, 2, 5))
        x.stop_gradient = False
        value = paddle.ones((5,))
        value.stop_gradient = False
        z = paddle.index_put(x + 1, (paddle.to_tensor([0, 1, 3]),), value)
        static.append_backward(z.sum())
    got = _run(main, [z, x.name + "@GRAD", value.name + "@GRAD"])
    want_z = np.ones((4, 2, 5))
    want_z[[0, 1, 3]] = 1
    want_gx = np.ones((4, 2, 5))
    want_gx[[0, 1, 3]] = 0
    np.testing.assert_array_equal(got[0], want_z)
    np.testing.assert_array_equal(got[1], want_gx)
    np.testing.assert_array_equal(got[2], np.full(5, 6.0))


def test_layers_built_in_static_mode_keep_eager_initial_values():
    # a layer's __init__ makes eager tensors (converted when it returns), whatever it calls
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", paddle.ones([2]))
            self.w = paddle.nn.Parameter(paddle.full([2], 3.0))

        def forward(self, x):
            return x * self.w + self.b + paddle.zeros([2])

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        net = Net()
        x = static.data("x", [-1, 2], "float32")
        y = net(x)
    assert isinstance(net.w, static.Variable) and isinstance(net.b, static.Variable)
    exe = static.Executor()
    exe.run(startup)
    (got,) = exe.run(main, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[y])
    np.testing.assert_array_equal(got, [[4.0, 4.0]])


def test_py_func_callbacks_get_eager_tensors():
    seen = []

    def func(a):
        t = paddle.zeros([2])
        seen.append(type(t))
        return np.asarray(a)

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float32")
        out = main.current_block().create_var(name="o", dtype="float32", shape=[2])
        static.nn.py_func(func=func, x=x, out=out)
    _run(main, [out], {"x": np.ones(2, "float32")})
    assert seen == [paddle.Tensor]


def test_save_inference_model_prunes_and_exports_the_new_ops(tmp_path):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        d = static.data("d", [-1, 3], "float32")
        noise = paddle.rand([3])
        out = d * paddle.full([3], 2.0) + paddle.zeros_like(d) + noise * 0
        s = static.data("s", [2], "int64")
        paddle.full(shape=s, fill_value=1.0)  # not needed by out: pruned
        paddle.randn([7])  # pruned
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "model")
    with pytest.warns(UserWarning, match="no persistable"):
        static.save_inference_model(prefix, [d], [out], exe, program=main)
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    assert feeds == ["d"]
    xs = np.arange(6, dtype="float32").reshape(2, 3)
    (got,) = exe.run(program, feed={"d": xs}, fetch_list=fetches)
    np.testing.assert_array_equal(got, xs * 2)
