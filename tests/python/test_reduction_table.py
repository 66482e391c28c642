"""The reduction table's primitives (``src/op_defs/reduce.rs``: a ``kernel``, ``saves`` and
``grad`` column each): every declared formula against finite differences, to second
order; ``mean`` as one node; and ``count_nonzero``, added as one primitive entry: values
against NumPy, both dialects' spellings, no gradient, a static program."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(18)

# (name, axes kind, backward node) of every entry, from the table itself
REDUCE = {row[0]: row for row in _core._reduce_op_table()}
PRIMITIVES_WITH_FORMULA = ["sum", "mean", "prod", "max", "min", "amax", "amin", "logsumexp"]


def _x(shape=(2, 3)):
    # distinct values (max/min have no ties), away from zero (prod's regular formula)
    a = RNG.permutation(np.arange(1, 1 + int(np.prod(shape)))).reshape(shape) * 0.37
    return fg.tensor(a.astype(np.float64), requires_grad=True)


def test_the_primitives_are_the_ones_listed_here():
    # a primitive with a formula names its own node (a composite shows the node of the
    # op it ends in); the list above must follow the table
    with_own_node = [n for n, r in REDUCE.items() if r[7] and r[8].startswith(n.capitalize())]
    assert set(with_own_node) <= set(PRIMITIVES_WITH_FORMULA)


@pytest.mark.parametrize("name", PRIMITIVES_WITH_FORMULA)
@pytest.mark.parametrize("axis,keepdim", [(None, False), (1, False), (0, True), ([0, 1], True)])
def test_declared_formula_passes_gradcheck_and_gradgradcheck(name, axis, keepdim):
    x = _x()

    def f(t):
        return getattr(t, name)(axis, keepdim=keepdim)

    assert f(x).grad_fn.name() == REDUCE[name][8] + "0"
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_prod_formula_is_exact_at_zeros_to_second_order():
    x = fg.tensor(np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0]]), requires_grad=True)
    (g,) = fg.autograd.grad(x.prod(1).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert gradgradcheck(lambda t: t.prod(1), (x,))


def test_ties_share_the_max_gradient():
    x = fg.tensor(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]), requires_grad=True)
    x.amax(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_mean_is_one_node_with_the_values_of_sum_over_count():
    x = _x((3, 4))
    y = x.mean(1)
    assert y.grad_fn.name() == "MeanBackward0"
    assert [f for f, _ in y.grad_fn.next_functions][0].name() == "AccumulateGrad"
    xs = x.detach().numpy()
    assert y.detach().numpy().tobytes() == (x.detach().sum(1) / 4.0).numpy().tobytes()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full_like(xs, 0.25))
    i = fg.tensor([[1, 2], [3, 5]])
    assert i.mean().dtype == fg.float32 and i.mean().item() == 2.75


def test_logsumexp_of_an_empty_dimension_is_minus_infinity():
    x = fg.tensor(np.zeros((2, 0)), requires_grad=True)
    y = x.logsumexp(1)
    assert y.shape == [2] and np.all(np.isneginf(y.detach().numpy()))
    y.sum().backward()
    assert x.grad.shape == [2, 0]


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_count_nonzero_matches_numpy(axis, keepdim):
    a = RNG.integers(-1, 2, size=(3, 4)).astype(np.float32)
    a[0, 0] = np.nan  # NaN is non-zero
    got = fg.count_nonzero(fg.tensor(a), axis, keepdim=keepdim)
    want = np.count_nonzero(a, axis=axis, keepdims=keepdim)
    assert got.dtype == fg.int64
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float64", "complex64"])
def test_count_nonzero_of_every_dtype(dtype):
    a = np.array([[0, 1, 2], [0, 0, 3]])
    x = fg.tensor(a).astype(dtype)
    np.testing.assert_array_equal(x.count_nonzero(1).numpy(), np.count_nonzero(a, axis=1))


def test_count_nonzero_spellings_and_no_gradient():
    x = fg.tensor(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0]]), requires_grad=True)
    assert fg.count_nonzero(x).item() == 2
    assert fg.count_nonzero(x, 1).tolist() == [1, 1]  # torch's count_nonzero(x, dim)
    assert fg.count_nonzero(x, dim=0).tolist() == [1, 1, 0]
    assert fg.count_nonzero(x, axis=[0, 1], keepdim=True).shape == [1, 1]  # Paddle's
    assert x.count_nonzero(0, True, None).shape == [1, 3]
    assert fg.count_nonzero(fg.zeros([0])).item() == 0
    assert not x.count_nonzero().requires_grad
    with pytest.raises(IndexError):
        x.count_nonzero(2)


def test_count_nonzero_in_a_static_program():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [2, 3], "float32")
            y = fg.count_nonzero(x, 1, keepdim=True)
            assert list(y.shape) == [2, 1]
    finally:
        fg.disable_static()
    a = np.array([[0, 1, 2], [0, 0, 0]], dtype=np.float32)
    (got,) = st.Executor().run(main, feed={"x": a}, fetch_list=[y])
    np.testing.assert_array_equal(got, [[2], [0]])
    assert got.dtype == np.int64
