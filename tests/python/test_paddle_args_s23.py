"""Paddle arguments ferrograd refused with NotImplementedError until session 23 (issue
#17): the legacy ``UniformInitializer``'s diagonal (``diag_num``, ``diag_step``,
``diag_val``; expected values follow Paddle's documented rule, checked on Paddle 3.3.1's
static-graph ``uniform_random`` op), ``F.dropout(axis=...)`` (Paddle's masks shared
along the dims not named) and ``weight_*_attr=False`` on the recurrent layers (Paddle's
frozen weight of ones)."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest

UniformInitializer = paddle.nn.initializer.UniformInitializer


@pytest.mark.parametrize(
    "shape, num, step, where",
    [
        ([3, 4], 3, 4, [(0, 0), (1, 1), (2, 2)]),  # the diagonal of a [3, 4] matrix
        ([2, 3], 2, 1, [(0, 0), (0, 2)]),  # flat positions 0 and 2 (Paddle 3.3.1's)
        ([4], 2, 2, [(0,), (3,)]),
    ],
)
def test_uniform_initializer_diagonal(shape, num, step, where):
    init = UniformInitializer(-0.1, 0.1, 0, diag_num=num, diag_step=step, diag_val=5.0)
    w = paddle.create_parameter(shape, "float64", default_initializer=init)
    a = w.numpy()
    diag = np.zeros(shape, dtype=bool)
    for ix in where:
        diag[ix] = True
    assert (a[diag] == 5.0).all()
    assert (np.abs(a[~diag]) <= 0.1).all() and a[~diag].std() > 0
    assert not w.stop_gradient  # still a trainable parameter, with no recorded history


def test_uniform_initializer_diagonal_through_param_attr():
    init = UniformInitializer(-0.1, 0.1, diag_num=3, diag_step=3, diag_val=7.0)
    lin = paddle.nn.Linear(3, 3, weight_attr=paddle.ParamAttr(initializer=init))
    w = lin.weight.numpy()
    np.testing.assert_array_equal(np.diag(w), [7.0] * 3)
    assert np.abs(w[~np.eye(3, dtype=bool)]).max() <= 0.1


def test_uniform_initializer_argument_errors():
    with pytest.raises(ValueError, match="both be > 0"):
        UniformInitializer(diag_num=2)
    with pytest.raises(ValueError, match="both be > 0"):
        UniformInitializer(diag_step=2)
    with pytest.raises(ValueError, match="diag_num must be an int >= 0"):
        UniformInitializer(diag_num=-1, diag_step=2)
    with pytest.raises(ValueError, match="high \\(0\\) must be >= low \\(1\\)"):
        UniformInitializer(low=1, high=0)
    # Paddle's check: (diag_num - 1) * (diag_step + 1) must lie inside the parameter
    init = UniformInitializer(diag_num=3, diag_step=5)
    with pytest.raises(ValueError, match="position 12"):
        paddle.create_parameter([3, 4], "float32", default_initializer=init)
    # no diagonal: the plain uniform draw
    p = paddle.create_parameter([50], "float32", default_initializer=UniformInitializer(-2, 2))
    assert np.abs(p.numpy()).max() <= 2 and p.numpy().std() > 0.5


# ---- F.dropout(axis=...): Paddle's masks shared along the other dims ----

F = paddle.nn.functional


def _kept_pattern(out: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The output reduced over the non-``axes`` dims, checking it is constant there."""
    other = tuple(i for i in range(out.ndim) if i not in axes)
    lo, hi = out.min(axis=other), out.max(axis=other)
    np.testing.assert_array_equal(lo, hi)
    return lo


@pytest.mark.parametrize("axis", [1, [0, 2], (1,), [0, 1, 2]])
def test_dropout_axis_shares_the_mask(axis):
    paddle.seed(3)
    x = paddle.ones([6, 40, 5], dtype="float64")
    x.stop_gradient = False
    out = F.dropout(x, 0.5, axis=axis)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    kept = _kept_pattern(out.numpy(), axes)
    assert set(np.unique(kept)) == {0.0, 2.0}  # dropped, or kept and scaled by 1/(1-p)
    assert 0.25 < (kept == 0).mean() < 0.75
    out.sum().backward()  # the gradient is the mask times the scale
    np.testing.assert_array_equal(x.grad.numpy(), out.numpy())


def test_dropout_axis_modes_training_and_inplace():
    paddle.seed(5)
    x = paddle.to_tensor(np.arange(1.0, 25.0).reshape(2, 3, 4))
    down = F.dropout(x, 0.25, axis=[0, 1], mode="downscale_in_infer").numpy()
    keep = down / x.numpy()
    assert set(np.unique(keep)) <= {0.0, 1.0}  # not rescaled in training
    _kept_pattern(keep, (0, 1))
    np.testing.assert_allclose(
        F.dropout(x, 0.25, axis=1, training=False, mode="downscale_in_infer").numpy(),
        x.numpy() * 0.75,
    )
    np.testing.assert_array_equal(F.dropout(x, 0.25, axis=1, training=False).numpy(), x.numpy())
    np.testing.assert_array_equal(F.dropout(x, 1.0, axis=1).numpy(), np.zeros((2, 3, 4)))
    np.testing.assert_array_equal(F.dropout(x, 0.0, axis=1).numpy(), x.numpy())
    y = paddle.ones([3, 50])
    assert F.dropout(y, 0.5, inplace=True, axis=1) is y
    _kept_pattern(y.numpy(), (1,))
    layer = paddle.nn.Dropout(0.5, axis=0)
    out = layer(paddle.ones([30, 4]))
    _kept_pattern(out.numpy(), (0,))
    layer.eval()
    np.testing.assert_array_equal(layer(paddle.ones([30, 4])).numpy(), np.ones((30, 4)))


def test_dropout_axis_errors():
    x = paddle.ones([2, 3])
    with pytest.raises(ValueError, match="in \\[0, 2\\)"):
        F.dropout(x, 0.5, axis=-1)  # Paddle's rule: axes are counted from 0
    with pytest.raises(ValueError, match="in \\[0, 2\\)"):
        F.dropout(x, 0.5, axis=[0, 2])
    with pytest.raises(TypeError, match="axis must be an int"):
        F.dropout(x, 0.5, axis="1")
    # Paddle's positional order (x, p, axis, training) is not PyTorch's (x, p, training)
    with pytest.raises(TypeError, match="pass Paddle's axis by keyword"):
        F.dropout(x, 0.5, 1)
    with pytest.raises(TypeError, match="training must be a bool"):
        F.dropout(x, 0.5, [0])


# ---- weight_*_attr=False on Paddle's recurrent layers: a frozen weight of ones ----


@pytest.mark.parametrize(
    "make, frozen",
    [
        (lambda: paddle.nn.SimpleRNNCell(3, 4, weight_ih_attr=False), ["weight_ih"]),
        (lambda: paddle.nn.LSTMCell(3, 4, weight_hh_attr=False), ["weight_hh"]),
        (lambda: paddle.nn.GRU(3, 4, weight_ih_attr=False), ["weight_ih_l0"]),
        (
            lambda: paddle.nn.LSTM(3, 4, 2, "bidirect", weight_hh_attr=False),
            ["weight_hh_l0", "weight_hh_l0_reverse", "weight_hh_l1", "weight_hh_l1_reverse"],
        ),
    ],
)
def test_recurrent_weight_attr_false_is_a_frozen_weight_of_ones(make, frozen):
    """Paddle 3.3.1's parameters: the weight stays (in the state_dict too), all ones,
    stop_gradient=True; the others train."""
    m = make()
    params = dict(m.named_parameters())
    for name in frozen:
        assert params[name].stop_gradient and (params[name].numpy() == 1).all()
        assert name in m.state_dict()
    x = paddle.randn([2, 3]) if "Cell" in type(m).__name__ else paddle.randn([2, 5, 3])
    m(x)[0].sum().backward()
    for name, p in params.items():
        assert (p.grad is None) == (name in frozen)


def test_simple_rnn_cell_with_frozen_input_weight_values():
    cell = paddle.nn.SimpleRNNCell(3, 4, weight_ih_attr=False)
    x, h = np.random.default_rng(0).standard_normal((2, 2, 3)), np.zeros((2, 4))
    out, _ = cell(paddle.to_tensor(x[0], dtype="float32"))
    w_hh, b_ih, b_hh = (cell.weight_hh.numpy(), cell.bias_ih.numpy(), cell.bias_hh.numpy())
    want = np.tanh(x[0] @ np.ones((4, 3)).T + b_ih + h @ w_hh.T + b_hh)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", ["SimpleRNNCell", "GRUCell", "LSTMCell"])
def test_cell_bias_attr_false_is_a_frozen_bias_of_zeros(cls):
    """Paddle 3.3.1's cells keep `bias_ih` / `bias_hh` with `bias_*_attr=False`: zeros,
    stop_gradient=True, in the state_dict (so a Paddle checkpoint loads); the output is
    the cell's without that bias."""
    cell = getattr(paddle.nn, cls)(3, 4, bias_ih_attr=False, bias_hh_attr=False)
    for name in ("bias_ih", "bias_hh"):
        p = getattr(cell, name)
        assert p.stop_gradient and (p.numpy() == 0).all() and name in cell.state_dict()
    out = cell(paddle.randn([2, 3]))[0]
    out.sum().backward()
    assert cell.bias_ih.grad is None and cell.weight_ih.grad is not None


# ---- paddle.Model.prepare(amp_configs=...) ----


def _amp_model(amp_configs):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 3))
    model = paddle.Model(net)
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    model.prepare(opt, paddle.nn.CrossEntropyLoss(), amp_configs=amp_configs)
    return net, model


def test_model_amp_configs_trains_under_auto_cast_with_a_scaler():
    x = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
    y = np.arange(8).reshape(8, 1) % 3
    net0, plain = _amp_model(None)
    net1, amp = _amp_model({"level": "O1", "init_loss_scaling": 128.0})
    seen = []
    net1.register_forward_post_hook(lambda layer, inp, out: seen.append(out.dtype))
    for _ in range(3):
        l0 = plain.train_batch([x], [y])[0]
        l1 = amp.train_batch([x], [y])[0]
        np.testing.assert_allclose(l1, l0, rtol=2e-2)  # float16 matmuls
    assert seen == [paddle.float16] * 3  # the network ran under auto_cast
    assert amp._scaler.get_scale() == 128.0  # one scaler, from the dict's arguments
    for a, b in zip(net0.parameters(), net1.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=2e-2, atol=2e-3)
    _, o0 = _amp_model("O0")
    assert o0._scaler is None and o0.train_batch([x], [y])


def test_model_amp_configs_errors():
    with pytest.raises(ValueError, match="'O0', 'O1' or 'O2'"):
        _amp_model("O3")
    with pytest.raises(ValueError, match="should be 'O0', 'O1' or 'O2'"):
        _amp_model({"level": "fp16"})
    with pytest.raises(ValueError, match="use_pure_fp16"):
        _amp_model({"level": "O2", "use_pure_fp16": True})
    with pytest.raises(ValueError, match="could not be recognized"):
        _amp_model({"level": "O1", "use_fp16_guard": True})
