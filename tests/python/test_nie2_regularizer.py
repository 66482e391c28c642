"""Paddle's per-parameter regularizers (``ParamAttr(regularizer=...)``),
``Momentum(rescale_grad=)`` and ``LBFGS(weight_decay=, grad_clip=)``, which ferrograd
refused with NotImplementedError until session 24 (issue #17). Expected values are
Paddle 3.3.1's (float64, CPU) unless a test says otherwise."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.regularizer import L1Decay, L2Decay

W0 = np.array([[0.5, -1.5], [2.0, -0.25]])
B0 = np.array([0.3, -0.7])
X = np.array([[1.0, 2.0], [-3.0, 0.5]])


@pytest.fixture(autouse=True)
def _float64():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    yield
    paddle.set_default_dtype(old)


def _linear(reg=None):
    init = paddle.nn.initializer.Assign
    return paddle.nn.Linear(
        2,
        2,
        weight_attr=paddle.ParamAttr(regularizer=reg, initializer=init(W0.copy())),
        bias_attr=paddle.ParamAttr(initializer=init(B0.copy())),
    )


def _train(make_opt, reg=None, steps=2):
    lin = _linear(reg)
    opt = make_opt(lin.parameters())
    x = paddle.to_tensor(X)
    for _ in range(steps):
        loss = (lin(x) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
    return lin.weight.numpy(), lin.bias.numpy()


OPT = paddle.optimizer
CLIP = paddle.nn.ClipGradByGlobalNorm

# (optimizer, weight's regularizer, clip?) -> Paddle's weight and bias after two steps
PADDLE_CASES = [
    (
        lambda p: OPT.SGD(0.01, parameters=p, weight_decay=0.1),
        L2Decay(0.5),
        [[0.29996049999999996, -0.995287], [1.62372, -0.11340499999999999]],
        [0.12476429999999997, -0.7291742],
    ),
    (
        lambda p: OPT.SGD(0.01, parameters=p, weight_decay=0.1, grad_clip=CLIP(1.0)),
        L2Decay(0.5),
        [[0.48919424958272806, -1.4702536076052437], [1.9698006412053983, -0.24365927003631996]],
        [0.2944257344101132, -0.699647102259342],
    ),
    (
        lambda p: OPT.SGD(0.01, parameters=p, weight_decay=0.1),
        L1Decay(0.5),
        [[0.294858, -0.9984145], [1.63232, -0.10583624999999998]],
        [0.12441429999999999, -0.7294617],
    ),
    (
        lambda p: OPT.SGD(0.01, parameters=p, weight_decay=0.1, grad_clip=CLIP(1.0)),
        L1Decay(0.5),
        [[0.4841831016456219, -1.4751757791937254], [1.9797205719272912, -0.23615383768019613]],
        [0.294419344528642, -0.6996542781450953],
    ),
    (
        lambda p: OPT.SGD(0.01, parameters=p, grad_clip=CLIP(1.0)),
        L2Decay(0.5),
        [[0.48919451154423904, -1.470254205321375], [1.9698001167062007, -0.24365827196808612]],
        [0.29502256592788273, -0.7010461768962567],
    ),
    (
        lambda p: OPT.Momentum(0.01, parameters=p, weight_decay=0.1),
        L2Decay(0.5),
        [[0.20051050263434647, -0.7414870067229867], [1.4437200047685952, -0.04815500172905621]],
        [0.04169430218919812, -0.7460941995216711],
    ),
    (
        lambda p: OPT.Momentum(0.01, parameters=p, weight_decay=0.1, grad_clip=CLIP(1.0)),
        L1Decay(0.5),
        [[0.47705736973254337, -1.464002043730871], [1.9706012286563792, -0.22992158402812185]],
        [0.2919126098287144, -0.6994983686373883],
    ),
    (
        lambda p: OPT.Adam(0.01, parameters=p, weight_decay=L1Decay(0.1)),
        L2Decay(0.5),
        [[0.4800044794270838, -1.4800024708337896], [1.9800020331255248, -0.2300018637370072]],
        [0.2800014415017095, -0.7199954045110086],
    ),
    (
        lambda p: OPT.Adam(0.01, parameters=p, weight_decay=L1Decay(0.1), grad_clip=CLIP(1.0)),
        L2Decay(0.5),
        [[0.4800037912242036, -1.4800006776083894], [1.980000864103593, -0.2300068852447863]],
        [0.27999956776734347, -0.680011780655469],
    ),
    (  # AdamW's decoupled decay stays; the regularizer is added to the gradient besides
        lambda p: OPT.AdamW(0.01, parameters=p, weight_decay=0.1),
        L2Decay(0.5),
        [[0.47901528621213896, -1.4770142581441665], [1.9760143160571917, -0.22951239501871387]],
        [0.27941203478207055, -0.7185860528486948],
    ),
]


@pytest.mark.parametrize("make_opt,reg,want_w,want_b", PADDLE_CASES)
def test_param_regularizer_replaces_weight_decay(make_opt, reg, want_w, want_b):
    # the weight's own regularizer replaces weight_decay for it, the bias keeps the
    # optimizer's; clipping sees the raw gradients (regularization comes after it)
    w, b = _train(make_opt, reg)
    # Paddle keeps Momentum's mu and Adam's hyper-parameters in float32: 1e-8 apart
    np.testing.assert_allclose(w, want_w, rtol=0, atol=1e-7)
    np.testing.assert_allclose(b, want_b, rtol=0, atol=1e-7)


def test_param_regularizer_sgd_exact():
    # SGD: p -= lr * (g + term), the weight with its own L2 coefficient, the bias with 0.1
    lin = _linear(L2Decay(0.5))
    opt = OPT.SGD(0.01, parameters=lin.parameters(), weight_decay=0.1)
    y = X @ W0 + B0  # Paddle's Linear: x @ W, W is [in, out]
    gw, gb = 2 * X.T @ y, 2 * y.sum(0)
    (lin(paddle.to_tensor(X)) ** 2).sum().backward()
    opt.step()
    np.testing.assert_allclose(lin.weight.numpy(), W0 - 0.01 * (gw + 0.5 * W0), rtol=1e-15)
    np.testing.assert_allclose(lin.bias.numpy(), B0 - 0.01 * (gb + 0.1 * B0), rtol=1e-15)


def test_param_regularizer_leaves_grad_and_is_kept():
    lin = _linear(L1Decay(0.5))
    assert isinstance(lin.weight.regularizer, L1Decay) and lin.weight.regularizer.coeff == 0.5
    opt = OPT.SGD(0.01, parameters=lin.parameters(), weight_decay=0.1)
    (lin(paddle.to_tensor(X)) ** 2).sum().backward()
    before = lin.weight.grad.numpy().copy()
    opt.step()
    # as Paddle: the regularized gradient feeds the update, p.grad stays as backward left it
    np.testing.assert_array_equal(lin.weight.grad.numpy(), before)


def test_param_regularizer_with_maximize_pulls_towards_zero():
    p = paddle.create_parameter([2], "float64", attr=paddle.ParamAttr(regularizer=L2Decay(0.5)))
    with paddle.no_grad():
        p.copy_(paddle.to_tensor([1.0, -2.0]))
    opt = paddle.optim.SGD([p], lr=0.1, maximize=True)
    p.grad = paddle.to_tensor([0.25, 0.5], dtype="float64")
    opt.step()
    # maximize ascends the loss but the decay term still shrinks the weight
    np.testing.assert_allclose(p.numpy(), [1.0 + 0.1 * (0.25 - 0.5), -2.0 + 0.1 * (0.5 + 1.0)])


def test_param_attr_regularizer_must_be_a_regularizer():
    with pytest.raises(TypeError, match="L2Decay"):
        paddle.ParamAttr(regularizer=0.1)


def test_param_regularizer_refused_in_static_mode():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [2, 3], "float64")
            attr = paddle.ParamAttr(regularizer=L2Decay(0.1))
            with pytest.raises(NotImplementedError, match="regularizer"):
                paddle.static.nn.fc(x, 2, weight_attr=attr)
            with pytest.raises(NotImplementedError, match="regularizer"):
                paddle.nn.Linear(3, 2, weight_attr=attr)(x)
    finally:
        paddle.disable_static()


def _momentum_reference(rescale, wd=None, reg=None, nesterov=False, clip=5.0, steps=2):
    """Paddle's momentum kernel with rescale_grad (its GPU kernel: Paddle's CPU kernel
    does not read rescale_grad): grad = clip(g) [+ L1 term] * rescale [+ L2 term]."""
    w, b = W0.copy(), B0.copy()
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(steps):
        y = X @ w + b
        gw, gb = 2 * X.T @ y, 2 * y.sum(0)
        if clip is not None:
            norm = np.sqrt((gw**2).sum() + (gb**2).sum())
            scale = clip / max(norm, clip)
            gw, gb = gw * scale, gb * scale
        out = []
        for p, g, v, own in ((w, gw, vw, reg), (b, gb, vb, None)):
            term = own if own is not None else wd
            if isinstance(term, L1Decay):
                g = g + term.coeff * np.sign(p)
            g = g * rescale
            if isinstance(term, L2Decay):
                g = g + term.coeff * p
            v[...] = 0.9 * v + g
            out.append(p - 0.01 * (g + 0.9 * v if nesterov else v))
        w, b = out
    return w, b


@pytest.mark.parametrize(
    "wd,reg,nesterov",
    [
        (L2Decay(0.1), None, False),
        (L1Decay(0.1), None, False),
        (L2Decay(0.1), L1Decay(0.5), False),
        (None, L2Decay(0.5), True),
    ],
)
def test_momentum_rescale_grad(wd, reg, nesterov):
    w, b = _train(
        lambda p: OPT.Momentum(
            0.01,
            momentum=0.9,
            parameters=p,
            weight_decay=wd,
            rescale_grad=0.25,
            use_nesterov=nesterov,
            grad_clip=CLIP(5.0),
        ),
        reg,
    )
    want_w, want_b = _momentum_reference(0.25, wd, reg, nesterov)
    np.testing.assert_allclose(w, want_w, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(b, want_b, rtol=1e-13, atol=1e-15)


def test_momentum_rescale_grad_one_is_plain_momentum():
    # Paddle's numbers (rescale_grad=1): weight_decay=0.1, two steps
    w, b = _train(lambda p: OPT.Momentum(0.01, parameters=p, weight_decay=0.1, rescale_grad=1.0))
    want_w, want_b = _momentum_reference(1.0, L2Decay(0.1), clip=None)
    np.testing.assert_allclose(w, want_w, rtol=1e-13)
    np.testing.assert_allclose(b, want_b, rtol=1e-13)


def test_momentum_rescale_grad_checks():
    lin = _linear()
    with pytest.raises(TypeError, match="rescale_grad"):
        OPT.Momentum(0.01, parameters=lin.parameters(), rescale_grad="2")
    with pytest.raises(ValueError, match="finite"):
        OPT.Momentum(0.01, parameters=lin.parameters(), rescale_grad=float("nan"))


# Paddle's LBFGS(learning_rate=0.5, max_iter=3) on sum((x W^T + b)^2) + sum(W): the same
# result with weight_decay=0.5, grad_clip=ClipGradByGlobalNorm(0.1) or L1Decay(0.3)
LBFGS_W = [[0.11899807981802574, -0.7309267793156725], [1.1175302891485175, 0.02190532390324096]]
LBFGS_B = [-0.13094943190169736, -0.6859667507140904]


@pytest.mark.parametrize(
    "kwargs", [{}, {"weight_decay": 0.5}, {"grad_clip": CLIP(0.1)}, {"weight_decay": L1Decay(0.3)}]
)
def test_lbfgs_accepts_weight_decay_and_grad_clip_as_paddle(kwargs, recwarn):
    lin = _linear()
    opt = OPT.LBFGS(learning_rate=0.5, max_iter=3, parameters=lin.parameters(), **kwargs)
    if kwargs:  # Paddle ignores them silently; ferrograd says so
        assert any("not applied" in str(w.message) for w in recwarn.list)
    x = paddle.to_tensor(X)

    def closure():
        opt.clear_grad()
        loss = (lin(x) ** 2).sum() + lin.weight.sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(lin.weight.numpy(), LBFGS_W, rtol=1e-12)
    np.testing.assert_allclose(lin.bias.numpy(), LBFGS_B, rtol=1e-12)


def test_lbfgs_grad_clip_type_checked():
    lin = _linear()
    with pytest.raises(TypeError, match="grad_clip"):
        OPT.LBFGS(parameters=lin.parameters(), grad_clip=1.0)


def test_bad_regularizer_object_leaves_gradients_alone():
    lin = _linear()
    lin.weight.regularizer = 0.5  # not a regularizer object (set by hand)
    opt = OPT.SGD(0.01, parameters=lin.parameters(), weight_decay=0.1)
    (lin(paddle.to_tensor(X)) ** 2).sum().backward()
    before = lin.bias.grad.numpy().copy()
    with pytest.raises(TypeError, match="L2Decay or L1Decay"):
        opt.step()
    np.testing.assert_array_equal(lin.bias.grad.numpy(), before)
    np.testing.assert_array_equal(lin.weight.numpy(), W0)
