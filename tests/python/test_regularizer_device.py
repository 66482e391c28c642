"""Paddle's ``paddle.regularizer`` (L1Decay / L2Decay as ``weight_decay``), and torch's
device idioms on modules and tensors (``model.to(torch.device(...))``, ``is_cuda``)."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import nn


def _train(weight_decay, opt_cls=fg.optimizer.Adam, steps=3):
    fg.seed(0)
    lin = nn.Linear(3, 2)
    opt = opt_cls(learning_rate=0.1, parameters=lin.parameters(), weight_decay=weight_decay)
    x = fg.to_tensor(np.arange(6.0).reshape(2, 3))
    for _ in range(steps):
        (lin(x.astype("float32")) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
    return lin.weight.numpy(), lin.bias.numpy()


@pytest.mark.parametrize("opt_cls", [fg.optimizer.Adam, fg.optimizer.SGD, fg.optimizer.Momentum])
def test_l2decay_is_the_number_weight_decay(opt_cls):
    a = _train(fg.regularizer.L2Decay(0.1), opt_cls)
    b = _train(0.1, opt_cls)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def test_l1decay_adds_coeff_sign_param_to_the_gradient():
    fg.seed(0)
    lin = nn.Linear(3, 2)
    w0 = lin.weight.numpy().copy()
    opt = fg.optimizer.SGD(
        learning_rate=0.1, parameters=lin.parameters(), weight_decay=fg.regularizer.L1Decay(0.5)
    )
    x = fg.to_tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    (lin(x) ** 2).mean().backward()
    g = lin.weight.grad.numpy().copy()
    opt.step()
    np.testing.assert_allclose(lin.weight.numpy(), w0 - 0.1 * (g + 0.5 * np.sign(w0)), rtol=1e-6)
    # and it differs from L2 with the same coefficient
    assert not np.allclose(_train(fg.regularizer.L1Decay(0.5))[0], _train(0.5)[0])


def test_l1decay_in_a_parameter_group_only():
    fg.seed(0)
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    wa, wb = a.weight.numpy().copy(), b.weight.numpy().copy()
    opt = fg.optim.SGD(
        [
            {"params": a.parameters(), "weight_decay": fg.regularizer.L1Decay(1.0)},
            {"params": b.parameters()},
        ],
        lr=0.5,
    )
    for p in [*a.parameters(), *b.parameters()]:
        p.grad = fg.zeros_like(p)
    opt.step()
    np.testing.assert_allclose(a.weight.numpy(), wa - 0.5 * np.sign(wa), rtol=1e-6)
    np.testing.assert_array_equal(b.weight.numpy(), wb)


def test_decoupled_adamw_refuses_l1decay_and_bad_coefficients():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="decoupled"):
        fg.optimizer.AdamW(
            learning_rate=0.1, parameters=lin.parameters(), weight_decay=fg.regularizer.L1Decay(0.1)
        )
    with pytest.raises(ValueError, match=">= 0"):
        fg.regularizer.L2Decay(-1.0)
    with pytest.raises(TypeError, match="number"):
        fg.regularizer.L1Decay("0.1")
    assert repr(fg.regularizer.L2Decay(1e-4)) == "L2Decay(coeff=0.0001)"


def test_static_minimize_refuses_l1decay():
    fg.enable_static()
    try:
        x = fg.static.data("x", [4, 3], "float32")
        loss = nn.Linear(3, 1)(x).mean()
        with pytest.raises(NotImplementedError, match="L1Decay"):
            fg.optimizer.SGD(0.1, weight_decay=fg.regularizer.L1Decay(0.1)).minimize(loss)
    finally:
        fg.disable_static()


def test_module_to_accepts_device_objects_dtypes_and_tensors():
    m = nn.Linear(2, 2)
    assert m.to(fg.device("cpu")) is m
    assert m.to("cpu:0", non_blocking=True) is m
    assert m.to(fg.device("cpu"), fg.float64).weight.dtype == fg.float64
    assert m.to(fg.ones(1, dtype=fg.float32)).weight.dtype == fg.float32
    with pytest.raises(ValueError, match="CPU only"):
        m.to("cuda")
    with pytest.raises(ValueError, match="CPU only"):
        m.to(device="cuda:1")
    with pytest.raises(TypeError, match="unexpected keyword"):
        m.to(devce="cpu")


def test_tensor_device_flags():
    t = fg.ones(2)
    assert t.is_cuda is False and t.is_cpu is True
