"""The shape table's reorderings (``src/op_defs/shape.rs``: ``permute``, ``transpose``):
generated methods taking ``*args`` in both dialects' forms, values against NumPy,
gradients, views, node names, static programs (``permute``/``transpose``/``swapaxes``
on Variables record the table's ``transpose`` row) and errors."""

import inspect

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core, static
from ferrograd.autograd import gradcheck, gradgradcheck

SHAPE = {row[0]: row for row in _core._shape_op_table()}


def _x(shape=(2, 3, 4)):
    a = np.random.default_rng(21).standard_normal(shape)
    return fg.tensor(a, requires_grad=True)


def test_rows_signatures_and_module_functions():
    assert SHAPE["permute"][4] == SHAPE["transpose"][4] == "Always"
    assert SHAPE["permute"][6] == SHAPE["transpose"][6] == "PermuteBackward"
    assert str(inspect.signature(fg.Tensor.permute)) == "(self, /, *args, dims=None)"
    assert (
        str(inspect.signature(fg.Tensor.transpose))
        == "(self, /, *args, perm=None, dim0=None, dim1=None, name=None)"
    )
    assert fg.Tensor.permute.__doc__.startswith("Reorders dims")
    assert fg.permute(_x(), 2, 0, 1).shape == [4, 2, 3]
    assert fg.transpose(_x(), [2, 0, 1]).shape == [4, 2, 3]
    assert fg.transpose(_x(), 0, 2).shape == [4, 3, 2]


# (call, the NumPy permutation it means)
CALLS = [
    (lambda t: t.permute(2, 0, 1), (2, 0, 1)),
    (lambda t: t.permute([2, 0, 1]), (2, 0, 1)),
    (lambda t: t.permute((-1, 0, 1)), (2, 0, 1)),
    (lambda t: t.permute(dims=[1, 2, 0]), (1, 2, 0)),
    (lambda t: t.permute(fg.tensor([1, 0, 2])), (1, 0, 2)),
    (lambda t: fg.permute(t, [0, 2, 1]), (0, 2, 1)),
    (lambda t: t.transpose([2, 1, 0]), (2, 1, 0)),
    (lambda t: t.transpose(perm=[1, 2, 0]), (1, 2, 0)),
    (lambda t: fg.transpose(t, perm=(0, 2, 1)), (0, 2, 1)),
    (lambda t: t.transpose(0, 2), (2, 1, 0)),
    (lambda t: t.transpose(-1, 1), (0, 2, 1)),
    (lambda t: t.transpose(dim0=0, dim1=1), (1, 0, 2)),
    (lambda t: t.transpose(1, dim1=0), (1, 0, 2)),
    (lambda t: fg.swapaxes(t, 0, 1), (1, 0, 2)),
    (lambda t: fg.movedim(t, 0, 2), (1, 2, 0)),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_values_views_nodes_and_gradients(i):
    call, perm = CALLS[i]
    x = _x()
    y = call(x)
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy().transpose(perm))
    assert y.grad_fn.name() == "PermuteBackward0"
    assert y._is_view() and y._base is x and y.data_ptr() == x.data_ptr()
    assert gradcheck(call, (x,))
    assert gradgradcheck(call, (x,))


def test_matrix_forms_and_no_op_swaps_keep_their_nodes():
    m = _x((2, 3))
    for y in (m.t(), m.T, m.mT):
        np.testing.assert_array_equal(y.detach().numpy(), m.detach().numpy().T)
        assert y.grad_fn.name() == "PermuteBackward0" and y._base is m
    v, s = _x((3,)), _x(())
    assert v.transpose(0, 0).grad_fn.name() == "TransposeBackward0"
    assert v.transpose(5, 5).grad_fn.name() == "TransposeBackward0"  # nothing to swap
    assert v.transpose(0, -1).grad_fn.name() == "PermuteBackward0"
    assert s.transpose(0, -1).grad_fn.name() == "TransposeBackward0"
    assert s.permute().grad_fn.name() == "PermuteBackward0"
    for y in (v.transpose(0, 0), s.transpose(0, -1)):
        assert y._base is not None
        assert gradgradcheck(lambda t: t.transpose(0, 0), (y.detach().requires_grad_(),))
    # 0-d / 1-D t(): PyTorch's transpose(0, 0), an alias view with its own node (a write
    # through it is recorded on the base), not the tensor itself
    for y in (v.t(), s.t()):
        assert y._base is not None and y.grad_fn is not None
    assert v.t()._base is v and v.t().data_ptr() == v.data_ptr()


def test_a_write_through_a_permuted_view_reaches_its_base():
    x = fg.tensor(np.zeros((2, 3)))
    before = x._version
    x.transpose(0, 1)[2].add_(1.0)
    assert x._version > before
    np.testing.assert_array_equal(x.numpy()[:, 2], [1.0, 1.0])


@pytest.mark.parametrize(
    "call,exc,pattern",
    [
        (lambda t: t.permute(0, 0, 1), ValueError, r"permute.*\[2, 3, 4\].*\[0, 0, 1\]"),
        (lambda t: t.permute(0, 1), ValueError, r"permute.*\[0, 1\]"),
        (lambda t: t.permute(0, 1, 5), IndexError, r"permute: dimension 5 is out of range"),
        (lambda t: t.permute(0, 1, 2**62), IndexError, r"permute: dimension"),
        (lambda t: t.permute(0, 1, 2**63), TypeError, r"integers"),
        (lambda t: t.permute(0, 1, "a"), TypeError, r"integers"),
        (lambda t: t.permute(0, 1, dims=[0, 1, 2]), TypeError, r"permute\(\).*not both"),
        (lambda t: t.transpose([2, 1]), ValueError, r"transpose: cannot permute"),
        (lambda t: t.transpose(0, 1, 2), TypeError, r"transpose\(\) takes a permutation"),
        (lambda t: t.transpose(), TypeError, r"transpose\(\) takes a permutation"),
        (lambda t: t.transpose(0, 9), IndexError, r"transpose: dimension 9 is out of range"),
        (lambda t: t.transpose(0, -(2**63)), IndexError, r"transpose: dimension"),
        (lambda t: t.transpose(0, perm=[0]), TypeError, r"transpose\(\) takes perm="),
        (lambda t: t.transpose(dim0="a", dim1=0), TypeError, r"transpose\(\): dim0 must be"),
        (lambda t: t.transpose(0, 2**64), TypeError, r"transpose\(\): dim1 must be an int"),
    ],
)
def test_eager_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(fg.zeros(2, 3, 4))


# (Variable call, the NumPy permutation it means)
STATIC = [
    (lambda v: v.transpose([2, 0, 1]), (2, 0, 1)),
    (lambda v: v.transpose(perm=[1, 2, 0]), (1, 2, 0)),
    (lambda v: v.transpose(0, 2), (2, 1, 0)),
    (lambda v: v.permute(1, 0, 2), (1, 0, 2)),
    (lambda v: v.permute([-1, 1, 0]), (2, 1, 0)),
    (lambda v: v.swapaxes(-1, 0), (2, 1, 0)),
    (lambda v: fg.transpose(v, [0, 2, 1]), (0, 2, 1)),
    (lambda v: fg.swapaxes(v, 0, 1), (1, 0, 2)),
]


@pytest.mark.parametrize("i", range(len(STATIC)))
def test_static_programs_match_eager_with_a_run_time_dimension(i):
    call, perm = STATIC[i]
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3, 4], "float64")
        y = call(x)
        assert y.shape == [[-1, 3, 4][k] for k in perm]
        (g,) = static.gradients([(y * y).sum()], [x])
        exe, main = static.Executor(), static.default_main_program()
        # (each method records its own row: permute -> permute, transpose/swapaxes -> transpose)
        assert {"transpose", "permute"} & set(main.current_block().ops)
        for n in (2, 5):
            a = np.random.default_rng(n).standard_normal((n, 3, 4))
            got, gx = exe.run(main, feed={"x": a}, fetch_list=[y, g])
            np.testing.assert_array_equal(got, a.transpose(perm))
            np.testing.assert_allclose(gx, 2 * a)


def test_static_matrix_forms():
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3], "float32")
        assert x.t().shape == x.T.shape == [3, -1]


@pytest.mark.parametrize(
    "call,exc,pattern",
    [
        (lambda v: v.transpose([0, 0, 1]), ValueError, r"transpose: cannot permute .*'x'"),
        (lambda v: v.permute(0, 1), ValueError, r"permute: .*\[0, 1\]"),
        # (as eager: three ints are neither Paddle's one permutation nor torch's two dims)
        (lambda v: v.transpose(2, 0, 1), TypeError, r"transpose\(\) takes a permutation"),
        (lambda v: v.swapaxes(0, 3), IndexError, r"transpose: axis 3 is out of range .*'x'"),
        (lambda v: v.permute(0, 1, 2**62), IndexError, r"axis .* is out of range"),
    ],
)
def test_static_errors_name_the_op_and_the_variable(call, exc, pattern):
    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [-1, 3, 4], "float32")
        with pytest.raises(exc, match=pattern):
            call(x)
