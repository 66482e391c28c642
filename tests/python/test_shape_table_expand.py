"""The shape table's broadcasts (``src/op_defs/shape.rs``: ``expand``, ``broadcast_to``,
``expand_as``): every spelling of both dialects against NumPy, the view and its node,
the gradient (a sum over the broadcast dims), static programs with run-time dimensions
(``-1`` keeping one, ``expand_as`` reading its second input's run-time shape), and errors
that name the op and the bad size."""

import inspect

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, static
from ferrograd.autograd import gradcheck, gradgradcheck

SHAPE = {row[0]: row for row in _core._shape_op_table()}
A = np.random.default_rng(21).standard_normal((3, 1))
Y = np.zeros((2, 3, 4))


def _x():
    return fg.tensor(A, requires_grad=True)


# every spelling gives the (2, 3, 4) broadcast of the (3, 1) input
CALLS = [
    lambda t: t.expand(2, -1, 4),
    lambda t: t.expand([2, -1, 4]),
    lambda t: t.expand((2, 3, 4)),
    lambda t: t.expand(fg.tensor([2, 3, 4])),
    lambda t: fg.expand(t, shape=[2, -1, 4]),  # Paddle
    lambda t: t.expand(size=(2, 3, 4)),  # torch's keyword
    lambda t: fg.broadcast_to(t, [2, 3, 4]),
    lambda t: fg.broadcast_to(t, shape=[2, -1, 4]),
    lambda t: t.broadcast_to(size=[2, 3, 4]),  # torch
    lambda t: fg.expand_as(t, fg.tensor(Y)),
    lambda t: fg.expand_as(t, y=fg.tensor(Y)),  # Paddle
    lambda t: t.expand_as(other=fg.tensor(Y)),
]


def test_rows_declare_the_broadcasts():
    for name in ("expand", "broadcast_to", "expand_as"):
        _, _, params, keywords, view, static_rule, node, varargs, arity, sig = SHAPE[name]
        assert (view, static_rule, node) == ("Always", False, "ExpandBackward")
        assert arity == (2 if name == "expand_as" else 1)
        ps = list(inspect.signature(getattr(fg.Tensor, name)).parameters)[1:]
        assert ps == ([varargs] if varargs else []) + params + keywords, name
        # (the static method's doc is the same line, in reStructuredText literals)
        doc = getattr(fg.Tensor, name).__doc__
        assert getattr(fg.static.Variable, name).__doc__ == doc.replace("`", "``")


@pytest.mark.parametrize("call", CALLS)
def test_each_spelling_is_a_view_with_a_summed_gradient(call):
    x = _x()
    y = call(x)
    np.testing.assert_array_equal(y.detach().numpy(), np.broadcast_to(A, (2, 3, 4)))
    assert y.data_ptr() == x.data_ptr() and y._base is x
    assert y.stride()[0] == 0 and y.grad_fn.name() == "ExpandBackward0"
    y.backward(fg.ones(2, 3, 4, dtype="float64"))
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 1), 8.0))


def test_gradcheck_and_double_backward():
    assert gradcheck(lambda t: t.expand(2, -1, 4), (_x(),))
    assert gradgradcheck(lambda t: t.expand(2, -1, 4), (_x(),))
    assert gradgradcheck(lambda t: t.expand_as(fg.tensor(Y)), (_x(),))


def test_expand_as_gives_the_other_tensor_no_gradient():
    other = fg.tensor(Y, requires_grad=True)
    _x().expand_as(other).sum().backward()
    assert other.grad is None


@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (lambda t: t.expand(2, 2), ValueError, r"expand: cannot expand .*\[3, 1\].*dimension 0"),
        (lambda t: t.expand(-1, 3, 3), ValueError, "dimension 0 is a new one"),
        (lambda t: t.expand(3, -2), ValueError, "expand: invalid size -2"),
        (lambda t: t.expand(4), ValueError, "fewer dimensions"),
        (lambda t: t.expand([2, 3, 1], shape=[2, 3, 1]), TypeError, "not both"),
        (lambda t: t.broadcast_to([4, 2, 1]), ValueError, "broadcast_to: cannot expand"),
        (lambda t: t.broadcast_to(), TypeError, r"broadcast_to\(\) needs the target shape"),
        (lambda t: t.broadcast_to([2, 3], 7), TypeError, "name must be a str"),
        (lambda t: t.expand_as([2, 3]), TypeError, r"expand_as\(\): other must be a Tensor"),
        (lambda t: t.expand_as(), TypeError, "needs the tensor whose shape"),
        (lambda t: t.expand_as(fg.ones(5)), ValueError, r"to the shape \[5\]"),
    ],
)
def test_eager_errors_name_the_op_and_the_size(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(_x())


def _run(build, feeds, y_shape=None):
    """Runs ``build(x[, y])`` in a static program with a run-time first dimension."""
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 1], "float64")
        args = [x] if y_shape is None else [x, static.data("y", y_shape, "float64")]
        out = build(*args)
        (g,) = static.gradients([(out * out).sum()], [x])
        exe, main = static.Executor(), static.default_main_program()
        names = ["x", "y"][: len(args)]
        runs = [exe.run(main, feed=dict(zip(names, f)), fetch_list=[out, g]) for f in feeds]
        return out.shape, runs


def test_static_minus_one_keeps_a_run_time_dimension():
    shape, runs = _run(lambda x: x.expand(2, -1, 4), [[A], [A[:2]]])
    assert shape == [2, -1, 4]
    for (got, gx), a in zip(runs, [A, A[:2]]):
        np.testing.assert_array_equal(got, np.broadcast_to(a, (2, len(a), 4)))
        np.testing.assert_allclose(gx, 2 * a * 8)
    shape, _ = _run(lambda x: fg.broadcast_to(x, shape=[-1, 5]), [[A]])
    assert shape == [-1, 5]


def test_static_expand_as_reads_the_second_inputs_run_time_shape():
    ys = [np.zeros((2, 3, 4)), np.zeros((5, 3, 2))]
    shape, runs = _run(lambda x, y: x.expand_as(y), [[A, ys[0]], [A, ys[1]]], [-1, -1, -1])
    assert shape == [-1, -1, -1]
    for (got, gx), y in zip(runs, ys):
        np.testing.assert_array_equal(got, np.broadcast_to(A, y.shape))
        np.testing.assert_allclose(gx, 2 * A * y.shape[0] * y.shape[2])
    shape, _ = _run(lambda x, y: fg.expand_as(x, y=y), [[A, ys[0]]], [2, -1, 4])
    assert shape == [2, -1, 4]


def test_static_errors_name_the_variables():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3, 1], "float32")
        with pytest.raises(ValueError, match=r"expand: cannot expand 'x' with shape \[-1, 3, 1\]"):
            x.expand(2, 4, 1)
        with pytest.raises(ValueError, match="dimension 0 is a new one"):
            x.expand(-1, 2, 3, 1)
        y = static.data("y", [2, 2, 1], "float32")
        with pytest.raises(ValueError, match=r"expand_as: .* to the shape \[2, 2, 1\] of 'y'"):
            x.expand_as(y)
        with pytest.raises(TypeError, match="needs the tensor whose shape"):
            x.expand_as()
