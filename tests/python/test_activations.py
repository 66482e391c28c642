"""Activations: the registry kernels (silu, selu, relu6, hardsigmoid, hardswish, softsign,
tanhshrink, log_sigmoid) and the parametrised compositions of ``nn.functional``, their
layers in both dialects. Values against NumPy in float64, gradcheck / gradgradcheck."""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946


def _sig(x):
    return np.exp(-np.logaddexp(0.0, -x))  # accurate, no overflow at -800


def _relu6(x):
    return np.minimum(np.maximum(x, 0.0), 6.0)


# name -> NumPy reference (float64)
KERNELS = {
    "silu": lambda x: x * _sig(x),
    "selu": lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(np.minimum(x, 0))),
    "relu6": _relu6,
    "hardsigmoid": lambda x: _relu6(x + 3) / 6,
    "hardswish": lambda x: x * _relu6(x + 3) / 6,
    "softsign": lambda x: x / (1 + np.abs(x)),
    "tanhshrink": lambda x: x - np.tanh(x),
    "log_sigmoid": lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
}

X = np.array([-800.0, -30.0, -5.0, -3.0, -2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.9, 3.0, 6.0, 7.5, 40.0])
# points away from the kinks, for finite differences
SMOOTH = np.array([-4.0, -2.2, -0.7, -0.2, 0.3, 1.1, 2.6, 4.5, 6.8])


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_values_match_numpy(name):
    got = getattr(fg.tensor(X), name)().numpy()
    np.testing.assert_allclose(got, KERNELS[name](X), rtol=1e-14, atol=1e-300)
    # float32 and the 0-d / empty shapes
    x32 = fg.tensor(X.astype("float32"))
    y32 = getattr(x32, name)()
    assert y32.dtype == fg.float32
    np.testing.assert_allclose(y32.numpy(), KERNELS[name](X), rtol=2e-6, atol=1e-6)
    assert getattr(fg.tensor(0.5), name)().shape == []
    assert getattr(fg.zeros([0, 3]), name)().shape == [0, 3]
    assert getattr(fg.tensor([1, -2]), name)().dtype == fg.float32  # ints compute in float


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_gradcheck_and_gradgradcheck(name):
    x = fg.tensor(SMOOTH, requires_grad=True)
    fn = getattr(fg, name)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_kernel_gradients_at_the_kinks_follow_torch():
    x = fg.tensor([-3.0, 0.0, 3.0, 6.0], dtype="float64", requires_grad=True)
    x.relu6().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 1, 0])  # strictly inside (0, 6)
    x.clear_grad()
    x.hardsigmoid().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1 / 6, 0, 0])
    x.clear_grad()
    x.hardswish().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.5, 0.5, 1.5, 1.0])


def test_large_inputs_keep_finite_gradients():
    x = fg.tensor([-800.0, 800.0], requires_grad=True)
    for name in ("selu", "silu", "log_sigmoid", "softsign", "tanhshrink"):
        (g,) = fg.grad(getattr(x, name)().sum(), [x], create_graph=True)
        (gg,) = fg.grad(g.sum(), [x])
        assert np.isfinite(g.numpy()).all() and np.isfinite(gg.numpy()).all(), name


def test_kernel_names_in_both_dialects():
    import ferrograd as paddle
    import ferrograd as torch

    x = fg.tensor(SMOOTH)
    same = [
        (torch.nn.functional.silu, paddle.nn.functional.silu, paddle.nn.functional.swish),
        (torch.nn.functional.logsigmoid, paddle.nn.functional.log_sigmoid),
        (torch.nn.functional.softsign, paddle.nn.functional.softsign),
        (torch.nn.functional.tanhshrink, paddle.nn.functional.tanhshrink),
        (torch.nn.functional.selu, paddle.nn.functional.selu, torch.selu),
        (torch.nn.functional.relu6, paddle.nn.functional.relu6),
        (torch.nn.functional.hardswish, paddle.nn.functional.hardswish),
        (torch.nn.functional.hardsigmoid,),
    ]
    for fns in same:
        want = fns[0](x).numpy()
        for f in fns[1:]:
            np.testing.assert_array_equal(f(x).numpy(), want)
    assert x.silu().grad_fn is None and fg.tensor([1.0], requires_grad=True).silu().grad_fn.name()


def test_complex_input_is_a_type_error():
    with pytest.raises(TypeError, match="silu"):
        fg.tensor([1 + 1j]).silu()


# ------------------------------------------------------------------ parametrised functions


def _elu(x, a=1.0):
    return np.where(x > 0, x, a * np.expm1(np.minimum(x, 0)))


def _softplus(x, beta=1.0, threshold=20.0):
    z = beta * x
    return np.where(z > threshold, x, np.logaddexp(0, z) / beta)


PARAM = {
    "elu": (lambda t: F.elu(t, 0.7), lambda x: _elu(x, 0.7)),
    "celu": (
        lambda t: F.celu(t, 1.5),
        lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(np.minimum(x, 0) / 1.5)),
    ),
    "selu_custom": (lambda t: F.selu(t, 1.2, 1.4), lambda x: 1.2 * _elu(x, 1.4)),
    "softplus": (lambda t: F.softplus(t, 2.0, 5.0), lambda x: _softplus(x, 2.0, 5.0)),
    "softplus_default": (lambda t: F.softplus(t), _softplus),
    "hardtanh": (lambda t: F.hardtanh(t, -2.0, 1.5), lambda x: np.clip(x, -2.0, 1.5)),
    "hardsigmoid_paddle": (
        lambda t: F.hardsigmoid(t, 0.2, 0.4),
        lambda x: np.clip(0.2 * x + 0.4, 0, 1),
    ),
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "rrelu_eval": (lambda t: F.rrelu(t, 0.1, 0.3), lambda x: np.where(x >= 0, x, 0.2 * x)),
    "threshold": (lambda t: F.threshold(t, 0.5, -1.0), lambda x: np.where(x > 0.5, x, -1.0)),
    "thresholded_relu": (lambda t: F.thresholded_relu(t), lambda x: np.where(x > 1.0, x, 0.0)),
    "hardshrink": (lambda t: F.hardshrink(t, 0.6), lambda x: np.where(np.abs(x) > 0.6, x, 0)),
    "softshrink": (
        lambda t: F.softshrink(t, 0.6),
        lambda x: np.where(x > 0.6, x - 0.6, np.where(x < -0.6, x + 0.6, 0)),
    ),
}


@pytest.mark.parametrize("name", sorted(PARAM))
def test_parametrised_values_and_gradients(name):
    fn, ref = PARAM[name]
    np.testing.assert_allclose(fn(fg.tensor(X)).numpy(), ref(X), rtol=1e-13, atol=1e-300)
    assert fn(fg.tensor(-0.5)).shape == []
    assert fn(fg.zeros([2, 0])).shape == [2, 0]
    x = fg.tensor(SMOOTH, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_elu_and_softplus_stay_finite_for_huge_inputs():
    x = fg.tensor([-1000.0, 1000.0], requires_grad=True)
    for fn in (F.elu, F.celu, lambda t: F.softplus(t, 0.5, 1e6)):
        (g,) = fg.grad(fn(x).sum(), [x], create_graph=True)
        (gg,) = fg.grad(g.sum(), [x])
        assert np.isfinite(g.numpy()).all() and np.isfinite(gg.numpy()).all()


def test_hardtanh_gradient_is_strict_and_paddle_names():
    x = fg.tensor([-1.0, 0.0, 1.0, 2.0], requires_grad=True)
    F.hardtanh(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1, 0, 0])
    np.testing.assert_array_equal(F.hardtanh(x, min=-0.5, max=0.5).numpy(), [-0.5, 0.0, 0.5, 0.5])
    with pytest.raises(ValueError, match="min_val"):
        F.hardtanh(x, 1.0, -1.0)


def test_glu():
    a = np.random.default_rng(0).standard_normal((2, 4, 3))
    want = a[:, :2] * _sig(a[:, 2:])
    np.testing.assert_allclose(F.glu(fg.tensor(a), 1).numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(F.glu(fg.tensor(a), axis=1).numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(nn.GLU(dim=1)(fg.tensor(a)).numpy(), want, rtol=1e-14)
    x = fg.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: F.glu(t, 1), (x,))
    assert gradgradcheck(lambda t: F.glu(t, 1), (x,))
    with pytest.raises(ValueError, match="even"):
        F.glu(fg.tensor(a))  # last dim 3


def test_prelu_per_channel_and_channel_last():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4))
    w = np.array([0.1, 0.2, 0.3])
    want = np.where(a > 0, a, w[None, :, None] * a)
    np.testing.assert_allclose(F.prelu(fg.tensor(a), fg.tensor(w)).numpy(), want, rtol=1e-14)
    nlc = np.transpose(a, (0, 2, 1))
    got = F.prelu(fg.tensor(nlc), fg.tensor(w), data_format="NLC").numpy()
    np.testing.assert_allclose(got, np.transpose(want, (0, 2, 1)), rtol=1e-14)
    x = fg.tensor(a, requires_grad=True)
    wt = fg.tensor(w, requires_grad=True)
    assert gradcheck(F.prelu, (x, wt))
    assert gradgradcheck(F.prelu, (x, wt))
    with pytest.raises(ValueError, match="channels"):
        F.prelu(fg.tensor(a), fg.tensor([0.1, 0.2]))


def test_prelu_layer_learns_its_slope():
    import ferrograd as paddle
    import ferrograd as torch

    for layer in (torch.nn.PReLU(), paddle.nn.PReLU(num_parameters=3, init=0.1)):
        x = fg.tensor([[[-1.0, 2.0]] * 3])
        layer(x).sum().backward()
        assert layer.weight.grad is not None
        assert float(layer.weight.numpy()[0]) in (0.25, np.float32(0.1))
        assert list(layer.state_dict()) == ["weight"]


def test_rrelu_training_draws_slopes_in_range():
    fg.seed(3)
    x = fg.full([1000], -1.0)
    y = F.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert ((y <= -0.1 + 1e-7) & (y >= -0.3 - 1e-7)).all() and y.std() > 0.01
    layer = nn.RReLU(0.1, 0.3)
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), -0.2, rtol=1e-6)


def test_bad_arguments_are_clear_errors():
    x = fg.tensor([1.0])
    with pytest.raises(TypeError, match="alpha"):
        F.elu(x, "1")
    with pytest.raises(ValueError, match="alpha"):
        F.celu(x, 0.0)
    with pytest.raises(ValueError, match="beta"):
        F.softplus(x, 0.0)
    with pytest.raises(ValueError, match="lower"):
        F.rrelu(x, 0.5, 0.1)
    # inplace=True is supported (tests/python/test_nn_inplace_activations.py)


MODULES = [
    # (torch class, Paddle class, functional reference)
    ("SiLU", "Silu", lambda t: t.silu()),
    ("SiLU", "Swish", lambda t: t.silu()),
    ("Mish", "Mish", lambda t: t.mish()),
    ("Hardswish", "Hardswish", lambda t: t.hardswish()),
    ("Hardsigmoid", "Hardsigmoid", lambda t: t.hardsigmoid()),
    ("ReLU6", "ReLU6", lambda t: t.relu6()),
    ("Softsign", "Softsign", lambda t: t.softsign()),
    ("Tanhshrink", "Tanhshrink", lambda t: t.tanhshrink()),
    ("LogSigmoid", "LogSigmoid", lambda t: t.log_sigmoid()),
    ("SELU", "SELU", lambda t: t.selu()),
    ("ELU", "ELU", F.elu),
    ("CELU", "CELU", F.celu),
    ("Softplus", "Softplus", F.softplus),
    ("Hardtanh", "Hardtanh", F.hardtanh),
    ("LeakyReLU", "LeakyReLU", F.leaky_relu),
    ("Hardshrink", "Hardshrink", F.hardshrink),
    ("Softshrink", "Softshrink", F.softshrink),
    ("Threshold", "ThresholdedReLU", lambda t: F.threshold(t, 1.0, 0.0)),
]


@pytest.mark.parametrize("torch_name,paddle_name,ref", MODULES)
def test_layers_in_both_dialects(torch_name, paddle_name, ref):
    x = fg.tensor(X)
    want = ref(x).numpy()
    for layer in (getattr(nn, torch_name)(), getattr(nn, paddle_name)()):
        np.testing.assert_array_equal(layer(x).numpy(), want)
        assert list(layer.state_dict()) == []


def test_layer_arguments_in_both_spellings():
    x = fg.tensor(X)
    np.testing.assert_allclose(nn.ELU(0.5)(x).numpy(), _elu(X, 0.5))
    np.testing.assert_allclose(nn.Hardtanh(min=-2.0, max=2.0)(x).numpy(), np.clip(X, -2, 2))
    np.testing.assert_allclose(nn.Hardtanh(-2.0, 2.0)(x).numpy(), np.clip(X, -2, 2))
    np.testing.assert_allclose(
        nn.Softplus(beta=2.0, threshold=10.0)(x).numpy(), _softplus(X, 2.0, 10.0)
    )
    np.testing.assert_allclose(nn.SELU(scale=1.1, alpha=1.5)(x).numpy(), 1.1 * _elu(X, 1.5))
    np.testing.assert_allclose(
        nn.Hardshrink(threshold=2.0)(x).numpy(), np.where(np.abs(X) > 2, X, 0)
    )
    np.testing.assert_allclose(
        nn.Hardsigmoid(slope=0.2, offset=0.5)(x).numpy(), np.clip(0.2 * X + 0.5, 0, 1)
    )


def test_static_graph_records_the_registry_kernels():
    st = fg.static
    main, startup = st.Program(), st.Program()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 4], "float64")
            outs = [F.swish(x), x.selu(), F.softsign(x), F.log_sigmoid(x), x.hardswish()]
            outs += [F.silu(x), F.selu(x), F.relu6(x), F.hardswish(x), F.hardsigmoid(x)]
            outs += [F.logsigmoid(x), F.tanhshrink(x)]
    finally:
        fg.disable_static()
    xv = np.array([[-4.0, -0.5, 0.5, 4.0]])
    got = st.Executor().run(main, feed={"x": xv}, fetch_list=outs)
    names = ["silu", "selu", "softsign", "log_sigmoid", "hardswish", "silu", "selu", "relu6"]
    names += ["hardswish", "hardsigmoid", "log_sigmoid", "tanhshrink"]
    assert len(got) == len(names)
    for g, name in zip(got, names):
        np.testing.assert_allclose(g, KERNELS[name](xv), rtol=1e-14)


def test_paddle_layers_take_a_positional_name():
    import ferrograd as paddle

    x = paddle.to_tensor([-1.0, 2.0])
    for layer in (
        paddle.nn.Silu("act"),
        paddle.nn.ELU(1.0, "elu"),
        paddle.nn.Hardtanh(-1.0, 1.0, "h"),
    ):
        assert layer(x).shape == [2]
