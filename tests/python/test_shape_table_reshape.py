"""The shape table's ``reshape`` row (``src/op_defs/shape.rs``): the generated method
taking ``*shape`` (ints, one list/tuple, a 1-d tensor; one ``-1`` inferred), ``view`` (a
wrapper of it, plus ``view(dtype)``), ``unflatten`` (composed from it), a view when the
strides allow and a copy otherwise, gradients, static programs with run-time
dimensions, and errors for bad or huge sizes (checked arithmetic, nothing allocated)."""

import inspect

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, static
from ferrograd.autograd import gradcheck, gradgradcheck

SHAPE = {row[0]: row for row in _core._shape_op_table()}


def _x(shape=(2, 3, 4)):
    a = np.random.default_rng(31).standard_normal(shape)
    return fg.tensor(a, requires_grad=True)


def test_row_and_signatures():
    assert SHAPE["reshape"][4] == "WhenPossible" and SHAPE["reshape"][6] == "ReshapeBackward"
    assert str(inspect.signature(fg.Tensor.reshape)) == "(self, /, *sizes, shape=None, name=None)"
    assert str(inspect.signature(fg.Tensor.view)) == "(self, /, *shape)"
    assert fg.Tensor.reshape.__doc__.startswith("Same elements in a new shape")


# (call, the NumPy shape it means)
CALLS = [
    (lambda t: t.reshape(4, 6), (4, 6)),
    (lambda t: t.reshape([4, -1]), (4, 6)),
    (lambda t: t.reshape((-1,)), (24,)),
    (lambda t: t.reshape(fg.tensor([6, 4])), (6, 4)),
    (lambda t: fg.reshape(t, [2, 12]), (2, 12)),
    (lambda t: t.view(3, -1, 2), (3, 4, 2)),
    (lambda t: fg.view(t, [24]), (24,)),
    (lambda t: t.unflatten(2, [2, 2]), (2, 3, 2, 2)),
    (lambda t: fg.unflatten(t, -1, (4, 1)), (2, 3, 4, 1)),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_values_views_nodes_and_gradients(i):
    call, shape = CALLS[i]
    x = _x()
    y = call(x)
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy().reshape(shape))
    assert y.grad_fn.name() == "ReshapeBackward0"
    assert y._is_view() and y._base is x and y.data_ptr() == x.data_ptr()
    assert gradcheck(call, (x,))
    assert gradgradcheck(call, (x,))


def test_the_own_shape_is_a_no_op_view_and_strides_may_force_a_copy():
    x = _x()
    y = x.reshape(2, 3, 4)
    assert y.grad_fn.name() == "ViewBackward0" and y._base is x
    t = x.transpose(0, 2)
    c = t.reshape(-1)
    assert c._base is None and c.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(c.detach().numpy(), x.detach().numpy().transpose(2, 1, 0).ravel())
    assert c.grad_fn.name() == "ReshapeBackward0"
    assert gradgradcheck(lambda a: a.transpose(0, 2).reshape(-1), (x,))
    assert x.view("float32").dtype == fg.float32  # view(dtype) stays a conversion
    z = fg.zeros(0, 3)
    assert z.reshape(3, 0).shape == [3, 0] and z.reshape(-1, 5).shape == [0, 5]
    assert fg.tensor(7.0).reshape(1, 1).shape == [1, 1] and fg.ones(1).reshape([]).shape == []


def test_a_write_through_a_reshaped_view_reaches_its_base():
    x = fg.tensor(np.zeros((2, 3)))
    before = x._version
    x.reshape(6)[4].add_(1.0)
    assert x._version > before and x.numpy()[1, 1] == 1.0


@pytest.mark.parametrize(
    "shape,exc,pattern",
    [
        ((5, -1), ValueError, r"reshape: cannot reshape a tensor of shape \[2, 3, 4\] \(24"),
        ((-1, -1), ValueError, r"reshape: only one dimension can be -1"),
        ((2, -3, 4), ValueError, r"reshape: invalid dimension -3"),
        ((0, 5), ValueError, r"reshape: .*\[0, 5\]"),  # Paddle's 0: [2, 5], still not 24
        ((2**40, 2**40), ValueError, r"reshape: shape .* is too large"),
        ((2**62,), ValueError, r"reshape: cannot reshape .* \(24 elements\)"),
        ((2**63 - 1, 3), ValueError, r"too large"),
        ((2**63,), TypeError, r"shape entries must be integers"),
        ((-(2**63),), ValueError, r"invalid dimension"),
        (("a",), TypeError, r"shape entries must be integers"),
    ],
)
def test_eager_errors(shape, exc, pattern):
    t = fg.zeros(2, 3, 4)
    with pytest.raises(exc, match=pattern):
        t.reshape(*shape)
    with pytest.raises(exc, match=pattern):
        t.view(list(shape))


# (Variable call, the shape it means for a value of shape (n, 3, 4))
STATIC = [
    (lambda v: v.reshape([-1, 12]), lambda n: (n, 12)),
    (lambda v: v.reshape(-1, 2, 6), lambda n: (n, 2, 6)),
    (lambda v: v.view([0 + 3, -1]), lambda n: (3, 4 * n)),
    (lambda v: fg.reshape(v, [-1]), lambda n: (12 * n,)),
]


@pytest.mark.parametrize("i", range(len(STATIC)))
def test_static_programs_match_eager_with_a_run_time_dimension(i):
    call, shape = STATIC[i]
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3, 4], "float64")
        y = call(x)
        (g,) = static.gradients([(y * y).sum()], [x])
        exe, main = static.Executor(), static.default_main_program()
        assert "reshape" in main.current_block().ops
        for n in (3, 6):
            a = np.random.default_rng(n).standard_normal((n, 3, 4))
            got, gx = exe.run(main, feed={"x": a}, fetch_list=[y, g])
            np.testing.assert_array_equal(got, a.reshape(shape(n)))
            np.testing.assert_allclose(gx, 2 * a)
            assert all(d in (-1, w) for d, w in zip(y.shape, shape(n)))


def test_static_shapes_are_inferred_when_known():
    with static.program_guard(static.Program(), static.Program()):
        w = static.data("w", [3, 4], "float32")
        assert w.reshape(-1).shape == [12] and w.reshape(2, -1).shape == [2, 6]
        x = static.data("x", [-1, 4], "float32")
        assert x.reshape(2, -1).shape == [2, -1]


@pytest.mark.parametrize(
    "shape,pattern",
    [
        ([7, -1], r"reshape: cannot reshape 'w' with shape \[3, 4\] \(12 elements\)"),
        ([-1, -1], r"reshape: only one dimension can be -1"),
        ([2**40, 2**40], r"reshape: shape .* is too large"),
        ([2**62, -1, 4], r"reshape: shape .* is too large"),
        ([-5], r"reshape: invalid dimension -5"),
    ],
)
def test_static_errors_name_the_op_and_the_variable(shape, pattern):
    with static.program_guard(static.Program(), static.Program()):
        w = static.data("w", [3, 4], "float32")
        with pytest.raises(ValueError, match=pattern):
            w.reshape(shape)
        x = static.data("x", [-1, 4], "float32")
        if "cannot reshape" not in pattern:
            with pytest.raises(ValueError, match=pattern):
                x.reshape(shape)
