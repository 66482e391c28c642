"""``copysign``: the op added as one table entry in ``src/op_defs/binary.rs``. Values
against NumPy in float64 (signed zeros, infinities, NaN, broadcasting, number operands),
first and second derivatives, both dialects, static graphs."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

A = np.array([-3.0, -0.0, 0.0, 1.5, np.inf, -np.inf, np.nan, 2.0])
B = np.array([1.0, 1.0, -0.0, -2.0, -1.0, 0.0, -1.0, np.nan])


def _same(got, want):
    """Equal values, NaN where NaN, and the same sign bit (zeros included)."""
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_values_match_numpy_float64():
    _same(fg.tensor(A).copysign(fg.tensor(B)).numpy(), np.copysign(A, B))


def test_broadcasting_and_number_operands():
    a = np.linspace(-2, 2, 6).reshape(2, 3)
    b = np.array([-1.0, 0.0, -0.0])
    _same(fg.copysign(fg.tensor(a), fg.tensor(b)).numpy(), np.copysign(a, b))
    _same(fg.tensor(a).copysign(-1.0).numpy(), np.copysign(a, -1.0))
    _same(fg.tensor(a).copysign(y=2).numpy(), np.copysign(a, 2.0))


def test_dtypes():
    x32 = fg.tensor(A.astype("float32"))
    assert x32.copysign(fg.tensor(B.astype("float32"))).dtype == fg.float32
    got = fg.tensor([3, -2, 0]).copysign(fg.tensor([-1, 1, -1]))
    assert got.dtype == fg.float32  # integers compute in the default float dtype
    _same(got.numpy(), np.copysign([3, -2, 0], [-1, 1, -1]).astype("float32"))


def test_complex_input_is_a_clear_error():
    with pytest.raises(TypeError, match="copysign"):
        fg.tensor([1 + 1j]).copysign(fg.tensor([1.0]))


def test_gradient_is_the_sign_ratio():
    a = fg.tensor(np.array([-3.0, -0.5, 0.0, 1.5, 2.0]), requires_grad=True)
    b = fg.tensor(np.array([1.0, -1.0, -1.0, -2.0, 3.0]), requires_grad=True)
    y = a.copysign(b)
    assert y.grad_fn.name() == "CopysignBackward0"
    y.sum().backward()
    # d/da = sign(a) * sign(b) away from a == 0 (0 there, as torch); nothing flows to b
    np.testing.assert_array_equal(a.grad.numpy(), [-1.0, 1.0, 0.0, -1.0, 1.0])
    np.testing.assert_array_equal(b.grad.numpy(), np.zeros(5))


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(0)
    a = fg.tensor(rng.uniform(0.2, 2, (2, 3)) * [[1, -1, 1]], requires_grad=True)
    b = fg.tensor(rng.uniform(0.2, 2, (3,)) * [-1, 1, -1], requires_grad=True)
    assert gradcheck(lambda x, y: x.copysign(y), (a, b))
    assert gradgradcheck(lambda x, y: x.copysign(y), (a, b))
    assert gradcheck(lambda x: x.copysign(-1.0), (a,))


def test_both_dialects():
    import ferrograd as paddle
    import ferrograd as torch

    x, y = paddle.to_tensor([0.5, -1.0]), paddle.to_tensor([-2.0, 3.0])
    want = np.copysign([0.5, -1.0], [-2.0, 3.0])
    for got in (paddle.copysign(x, y), torch.copysign(x, y), x.copysign(y), x.copysign(y=y)):
        np.testing.assert_array_equal(got.numpy(), want.astype("float32"))


def test_static_graph_records_runs_and_differentiates_it():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 3], "float64")
            s = st.data("s", [3], "float64")
            y = fg.copysign(x, s)
            z = x.copysign(s) * 2.0
    finally:
        fg.disable_static()
    assert y.shape == [-1, 3] and z.shape == [-1, 3]
    xv, sv = np.array([[-1.0, 0.5, 2.0]]), np.array([1.0, -1.0, -0.0])
    got_y, got_z = st.Executor().run(main, feed={"x": xv, "s": sv}, fetch_list=[y, z])
    _same(got_y, np.copysign(xv, sv))
    _same(got_z, 2 * np.copysign(xv, sv))
