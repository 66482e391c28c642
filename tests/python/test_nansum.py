"""``nansum`` and ``nanmean``: the reductions added as single entries of the reduction
table (``src/op_defs/reduce.rs``): values against NumPy in float64, gradients (NaN
positions get none), both dialects' argument spellings and a static program."""

import warnings

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

X = np.array([[1.5, np.nan, -2.0], [np.nan, np.nan, np.nan], [0.25, 3.0, 4.0]])


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_values_match_numpy(axis, keepdim):
    x = fg.tensor(X)
    np.testing.assert_allclose(
        fg.nansum(x, axis, keepdim=keepdim).numpy(), np.nansum(X, axis, keepdims=keepdim)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (all-NaN slices)
        want = np.nanmean(X, axis, keepdims=keepdim)
    np.testing.assert_allclose(x.nanmean(dim=axis, keepdim=keepdim).numpy(), want)


def test_dtypes_follow_sum_and_mean():
    i = fg.tensor([[1, 2], [3, 4]], dtype="int32")
    assert i.nansum().dtype == fg.int64 and i.nansum().item() == 10
    assert i.nanmean().dtype == fg.float32 and i.nanmean().item() == 2.5
    f = fg.tensor([1.0, float("nan")], dtype="float32")
    assert f.nansum().dtype == fg.float32
    assert f.nansum(dtype="float64").dtype == fg.float64
    # Paddle's positional order nansum(x, axis, dtype, keepdim) and torch's (dim, keepdim)
    assert fg.nansum(f, 0, "float64", True).shape == [1]
    assert fg.nansum(f, 0, True).shape == [1]


def test_nan_positions_get_no_gradient():
    x = fg.tensor(X, requires_grad=True)
    fg.nansum(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.where(np.isnan(X), 0.0, 1.0))
    assert fg.nansum(x).grad_fn.name() == "SumBackward0"
    y = fg.tensor(X, requires_grad=True)
    y.nanmean(axis=1).sum().backward()
    counts = (~np.isnan(X)).sum(1, keepdims=True)
    want = np.where(np.isnan(X), 0.0, 1.0 / np.maximum(counts, 1))
    np.testing.assert_allclose(y.grad.numpy(), want)


def test_gradcheck_and_gradgradcheck():
    data = np.array([[0.3, np.nan, 1.2], [-0.7, 0.4, np.nan]])
    for op in (fg.nansum, fg.nanmean):

        def f(t, op=op):
            return op(t, 1) ** 2

        x = fg.tensor(np.nan_to_num(data, nan=0.5), requires_grad=True)
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


def test_static_program():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [3, 3], "float64")
            s = fg.nansum(x, axis=1)
            m = x.nanmean(0, True)
    finally:
        fg.disable_static()
    assert s.shape == [3] and m.shape == [1, 3]
    got_s, got_m = st.Executor().run(main, feed={"x": X}, fetch_list=[s, m])
    np.testing.assert_allclose(got_s, np.nansum(X, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (all-NaN slices)
        np.testing.assert_allclose(got_m, np.nanmean(X, 0, keepdims=True))
