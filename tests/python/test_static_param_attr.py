"""Static ``fc`` / ``create_parameter`` with Paddle's parameter attributes: a
``ParamAttr`` (its ``initializer`` and ``name``) and the eager ``nn.initializer`` objects
(``Constant``, ``Uniform``...) as initializers, checked against NumPy."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import static


@pytest.fixture(autouse=True)
def static_mode():
    main, startup = static.Program(), static.Program()
    fg.enable_static()
    with static.program_guard(main, startup), static.scope_guard(static.Scope()):
        yield main
    fg.disable_static()


def _run(fetch, feed):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(feed=feed, fetch_list=fetch)


def test_fc_bias_attr_param_attr_with_nn_initializer():
    x = static.data("x", [-1, 3], "float32")
    w_init = fg.nn.initializer.Constant(value=0.5)
    b_attr = fg.ParamAttr(name="fc_b", initializer=fg.nn.initializer.Constant(value=1.0))
    y = static.nn.fc(x, size=2, weight_attr=fg.ParamAttr(initializer=w_init), bias_attr=b_attr)
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = _run([y], {"x": xv})
    np.testing.assert_allclose(out, xv @ np.full((3, 2), 0.5, np.float32) + 1.0, rtol=1e-6)
    assert static.default_main_program().global_block().var("fc_b") is not None


def test_create_parameter_with_nn_initializer_object():
    p = static.create_parameter(
        [2, 3], "float64", default_initializer=fg.nn.initializer.Constant(2.5)
    )
    (out,) = _run([p], None)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.full((2, 3), 2.5))


def test_create_parameter_with_uniform_nn_initializer_is_in_range():
    init = fg.nn.initializer.Uniform(low=-0.25, high=0.25)
    p = static.create_parameter([50], "float32", default_initializer=init)
    (out,) = _run([p], None)
    assert out.shape == (50,)
    assert np.all(out >= -0.25) and np.all(out < 0.25) and np.std(out) > 0


def test_fc_untrainable_weight_attr_is_not_trained():
    x = static.data("x", [-1, 3], "float64")
    y = static.nn.fc(
        x,
        size=2,
        weight_attr=fg.ParamAttr(name="w_fixed", trainable=False),
        bias_attr=fg.ParamAttr(name="b_trained"),
    )
    loss = fg.mean(y)
    fg.optimizer.SGD(learning_rate=0.5).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    block = static.default_main_program().global_block()
    w, b = block.var("w_fixed"), block.var("b_trained")
    assert not w.trainable and b.trainable
    w0, b0 = (scope.find_var(v.name).numpy() for v in (w, b))
    exe.run(feed={"x": np.ones((4, 3))}, fetch_list=[loss])
    w1, b1 = (scope.find_var(v.name).numpy() for v in (w, b))
    np.testing.assert_array_equal(w0, w1)
    np.testing.assert_allclose(b1, b0 - 0.5 * 0.5)  # d mean / d b = 1/2 per column


def test_param_attr_learning_rate_is_refused():
    x = static.data("x", [-1, 3], "float32")
    with pytest.raises(NotImplementedError, match="parameter group"):
        static.nn.fc(x, size=2, bias_attr=fg.ParamAttr(learning_rate=0.1))
