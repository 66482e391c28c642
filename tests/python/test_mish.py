"""``mish``: the op added as one table entry in ``src/op_defs/unary.rs``. Values against
NumPy in float64, first and second derivatives, both dialects, static graphs."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck


def _mish(x):
    softplus = np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))
    return x * np.tanh(softplus)


X = np.array([-30.0, -5.0, -1.5, -0.3, 0.0, 0.4, 1.0, 3.0, 19.0, 25.0])


def test_values_match_numpy_float64():
    got = fg.tensor(X).mish().numpy()
    np.testing.assert_allclose(got, _mish(X), rtol=1e-15, atol=1e-300)


def test_float32_and_integer_input():
    x32 = X.astype("float32")
    got = fg.tensor(x32).mish()
    assert got.dtype == fg.float32
    np.testing.assert_allclose(got.numpy(), _mish(X), rtol=2e-6, atol=1e-6)
    ints = fg.tensor([-2, 0, 3])
    assert ints.mish().dtype == fg.float32  # integers compute in the default float dtype


def test_both_dialects_and_functional_names():
    import ferrograd as paddle
    import ferrograd as torch

    x = paddle.to_tensor([0.5, -1.0])
    want = _mish(np.array([0.5, -1.0]))
    for y in (paddle.nn.functional.mish(x), torch.nn.functional.mish(x), x.mish(), fg.mish(x)):
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)


def test_gradient_is_the_derivative():
    x = fg.tensor(X, requires_grad=True)
    x.mish().sum().backward()
    sp = np.log1p(np.exp(np.minimum(X, 20)))
    t = np.tanh(np.where(X > 20, X, sp))
    sig = 1 / (1 + np.exp(-X))
    np.testing.assert_allclose(x.grad.numpy(), t + X * sig * (1 - t * t), rtol=1e-12)
    assert x.mish().grad_fn.name() == "MishBackward0"


def test_gradcheck_and_gradgradcheck():
    x = fg.tensor(np.linspace(-4, 4, 9), requires_grad=True)
    assert gradcheck(lambda t: t.mish(), (x,))
    assert gradgradcheck(lambda t: t.mish(), (x,))


def test_complex_input_is_a_clear_error():
    with pytest.raises(TypeError, match="mish"):
        fg.tensor([1 + 1j]).mish()


def test_static_graph_records_and_runs_it():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 3], "float64")
            y = fg.nn.functional.mish(x)
            z = fg.mish(x) + x.mish()
    finally:
        fg.disable_static()
    assert y.shape == z.shape
    exe = st.Executor()
    xv = np.array([[-1.0, 0.5, 2.0]])
    got_y, got_z = exe.run(main, feed={"x": xv}, fetch_list=[y, z])
    np.testing.assert_allclose(got_y, _mish(xv), rtol=1e-15)
    np.testing.assert_allclose(got_z, 2 * _mish(xv), rtol=1e-15)
