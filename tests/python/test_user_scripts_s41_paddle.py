"""Session 41: Paddle user scripts in new domains (PaddleSeg-style UNet, PaddleRec CTR
models, a PaddleScience PINN, PaddleTS forecasting, PaddleClas training tricks, a
PaddleSpeech CTC model, an SNGAN, ArcFace + triplet metric learning) run with only the
import changed. The ``*_regression`` tests pin what the scripts found; the rest are exact
values the scripts print, checked against closed forms. See docs/user-scripts.md,
"Session 41: eight Paddle scripts in new domains"."""

from __future__ import annotations

import math

import ferrograd as paddle
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.nn.utils import spectral_norm

# ------------------------------------------------ Paddle's x= keyword on native functions


def test_paddle_x_keyword_on_native_functions_regression():
    # Paddle names the tensor operand x (python/paddle/tensor/stat.py `def mean(x, axis=None,
    # keepdim=False, name=None)`, math.py `def add(x, y, name=None)`), and PaddleRec's models
    # call paddle.mean(x=cost), paddle.add(x=wide, y=deep). The functions backed by a Tensor
    # method raised "unbound method Tensor.mean() needs an argument".
    a = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = paddle.to_tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    assert float(paddle.mean(x=a)) == 3.5
    np.testing.assert_array_equal(paddle.add(x=a, y=b).numpy(), a.numpy() + b.numpy())
    np.testing.assert_array_equal(paddle.multiply(x=a, y=b).numpy(), a.numpy() * b.numpy())
    np.testing.assert_array_equal(paddle.sum(x=a, axis=1).numpy(), [6.0, 15.0])
    np.testing.assert_array_equal(
        paddle.reshape(x=a, shape=[3, 2]).numpy(), a.numpy().reshape(3, 2)
    )
    np.testing.assert_array_equal(paddle.cast(x=a, dtype="int64").numpy(), a.numpy().astype(int))
    np.testing.assert_array_equal(F.relu(x=a - 3).numpy(), np.maximum(a.numpy() - 3, 0))
    # torch's input= (torch.sum(input, dim)) and Paddle's arr= (take_along_axis(arr, ...))
    np.testing.assert_array_equal(paddle.sum(input=a, dim=0).numpy(), [5.0, 7.0, 9.0])
    idx = paddle.to_tensor([[2], [0]])
    np.testing.assert_array_equal(
        paddle.take_along_axis(arr=a, indices=idx, axis=1).numpy(), [[3.0], [4.0]]
    )
    # the gradient flows as for the positional call
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    paddle.mean(x=w * w).backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


def test_paddle_x_keyword_other_calls_unchanged():
    a = paddle.to_tensor([1.0, -2.0])
    assert paddle.concat(x=[a, a], axis=0).shape == [4]
    # a non-tensor x= keeps the method's own error
    with pytest.raises(TypeError):
        paddle.mean(x=[1.0, 2.0])


# ------------------------------------------------------------- spectral normalisation


def _np_sigma(mat: np.ndarray, u: np.ndarray, v: np.ndarray, iters: int, eps: float = 1e-12):
    # Paddle's CalcMatrixSigmaAndNormWeight (paddle/phi/kernels/funcs/spectral_norm.h)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.sqrt((v * v).sum()) + eps)
        u = mat @ v
        u = u / (np.sqrt((u * u).sum()) + eps)
    return float(u @ (mat @ v)), u, v


def test_spectral_norm_of_paddle_linear_uses_output_dim_regression():
    # Paddle's nn.utils.spectral_norm picks dim=1 for Linear (its weight is [in, out]):
    # python/paddle/nn/utils/spectral_norm_hook.py, spectral_norm(). ferrograd took dim=0,
    # so weight_u / weight_v had the shapes [in] / [out] (a Paddle checkpoint did not fit)
    # and the power iteration ran on the transposed matrix.
    layer = spectral_norm(nn.Linear(3, 5))
    assert layer.weight_orig.shape == [3, 5]
    assert layer.weight_u.shape == [5] and layer.weight_v.shape == [3]
    mat = layer.weight_orig.numpy().T  # dim 1 moved to the front
    u0, v0 = layer.weight_u.numpy().copy(), layer.weight_v.numpy().copy()
    layer(paddle.ones([2, 3]))
    sigma, u1, _ = _np_sigma(mat.astype(np.float64), u0, v0, 1)
    np.testing.assert_allclose(layer.weight.numpy(), layer.weight_orig.numpy() / sigma, rtol=1e-5)
    np.testing.assert_allclose(layer.weight_u.numpy(), u1, rtol=1e-5, atol=1e-6)
    # conv layers keep dim 0
    conv = spectral_norm(nn.Conv2D(2, 4, 3))
    assert conv.weight_u.shape == [4] and conv.weight_v.shape == [18]


def test_nn_spectral_norm_layer_regression():
    # Paddle's nn.SpectralNorm(weight_shape, dim=0, power_iters=1, eps=1e-12) layer
    # (python/paddle/nn/layer/norm.py) was missing. Its kernel iterates copies of weight_u
    # / weight_v (never written back) and divides by sigma = u . (W v)
    # (paddle/phi/kernels/impl/spectral_norm_kernel_impl.h).
    sn = nn.SpectralNorm([2, 3, 2], dim=1, power_iters=3)
    assert sn.weight_u.shape == [3] and sn.weight_v.shape == [4]
    assert sn.weight_u.stop_gradient and sn.weight_v.stop_gradient
    u0, v0 = sn.weight_u.numpy().copy(), sn.weight_v.numpy().copy()
    w_np = np.arange(12, dtype=np.float64).reshape(2, 3, 2) - 5.0
    w = paddle.to_tensor(w_np, dtype="float32", stop_gradient=False)
    out = sn(w)
    mat = np.moveaxis(w_np, 1, 0).reshape(3, -1)
    sigma, u, v = _np_sigma(mat, u0.astype(np.float64), v0.astype(np.float64), 3)
    np.testing.assert_allclose(out.numpy(), w_np / sigma, rtol=1e-5)
    np.testing.assert_array_equal(sn.weight_u.numpy(), u0)  # not written back
    # gradient with u, v constant (spectral_norm_grad_kernel_impl.h):
    # (G - u v^T sum(G * W / sigma)) / sigma, in the [h, w] view
    g = np.linspace(-1, 1, 12).reshape(2, 3, 2)
    (out * paddle.to_tensor(g, dtype="float32")).sum().backward()
    gm = np.moveaxis(g, 1, 0).reshape(3, -1)
    expect = (gm - np.outer(u, v) * (gm * mat / sigma).sum()) / sigma
    expect = np.moveaxis(expect.reshape(3, 2, 2), 0, 1)
    np.testing.assert_allclose(w.grad.numpy(), expect, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="weight_shape"):
        sn(paddle.ones([3, 4]))
    with pytest.raises(ValueError, match="dim"):
        nn.SpectralNorm([3, 4], dim=2)


# ------------------------------------------------------------------------ CTR models


def test_adam_lazy_mode_updates_only_looked_up_rows_regression():
    # PaddleRec's wide_deep / DeepFM configs train nn.Embedding(sparse=True) with
    # paddle.optimizer.Adam(lazy_mode=True): Paddle's sparse Adam kernel updates the
    # moments and values of the rows present in the SelectedRows gradient only
    # (python/paddle/optimizer/adam.py, lazy_mode). Rows not looked up stay unchanged.
    emb = nn.Embedding(4, 2, sparse=True)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=emb.parameters(), lazy_mode=True)
    emb(paddle.to_tensor([0, 1])).sum().backward()
    opt.step()
    opt.clear_grad()
    before = emb.weight.numpy().copy()
    emb(paddle.to_tensor([2])).sum().backward()
    opt.step()
    after = emb.weight.numpy()
    np.testing.assert_array_equal(after[[0, 1, 3]], before[[0, 1, 3]])
    # row 2's first update, at step 2 (the step count advances for the whole parameter:
    # Paddle's beta1_pow / beta2_pow): g = 1, m = 0.1, v = 0.001
    m_hat, v_hat = 0.1 / (1 - 0.9**2), 0.001 / (1 - 0.999**2)
    np.testing.assert_allclose(
        after[2], before[2] - 0.1 * m_hat / (math.sqrt(v_hat) + 1e-8), rtol=1e-6
    )
    # the untouched rows kept their moments too: a third step on row 0 alone
    opt.clear_grad()
    emb(paddle.to_tensor([0])).sum().backward()
    opt.step()
    np.testing.assert_array_equal(emb.weight.numpy()[[1, 2, 3]], after[[1, 2, 3]])


def test_adam_lazy_mode_dense_cases():
    # a coupled L2 decay makes Paddle's gradient dense (add_n of the rows and the decay
    # term, Optimizer._create_regularization_of_grad): every row moves
    emb = nn.Embedding(4, 2, sparse=True)
    opt = paddle.optimizer.Adam(
        learning_rate=0.1, parameters=emb.parameters(), lazy_mode=True, weight_decay=0.01
    )
    before = emb.weight.numpy().copy()
    emb(paddle.to_tensor([0])).sum().backward()
    opt.step()
    assert not np.any(emb.weight.numpy() == before)
    # AdamW: the decoupled decay shrinks every row, the Adam step only the looked-up ones
    # (phi/kernels/selected_rows/cpu/adamw_kernel.cc decays the whole parameter first)
    emb = nn.Embedding(4, 2, sparse=True)
    opt = paddle.optimizer.AdamW(
        learning_rate=0.1, parameters=emb.parameters(), lazy_mode=True, weight_decay=0.5
    )
    before = emb.weight.numpy().copy()
    emb(paddle.to_tensor([3])).sum().backward()
    opt.step()
    after = emb.weight.numpy()
    np.testing.assert_allclose(after[:3], before[:3] * (1 - 0.1 * 0.5), rtol=1e-6)
    np.testing.assert_allclose(after[3], before[3] * (1 - 0.1 * 0.5) - 0.1, rtol=1e-5)
    # sparse=False: a dense gradient and the ordinary update (rows with a zero gradient
    # and zero moments do not move)
    emb = nn.Embedding(4, 2)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=emb.parameters(), lazy_mode=True)
    before = emb.weight.numpy().copy()
    emb(paddle.to_tensor([1])).sum().backward()
    opt.step()
    np.testing.assert_array_equal(emb.weight.numpy()[[0, 2, 3]], before[[0, 2, 3]])


def test_deepfm_second_order_term_and_auc():
    # 0.5 * ((sum e)^2 - sum e^2) summed over the embedding dim = sum over pairs e_i . e_j
    e = paddle.to_tensor([[[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]])
    s = paddle.sum(e, 1)
    y2 = 0.5 * paddle.sum(paddle.square(s) - paddle.sum(paddle.square(e), 1), 1, keepdim=True)
    e_np = e.numpy()[0]
    pairs = sum(e_np[i] @ e_np[j] for i in range(3) for j in range(i + 1, 3))
    assert float(y2) == pytest.approx(pairs)
    m = paddle.metric.Auc()
    preds = np.array([[0.9, 0.1], [0.4, 0.6], [0.65, 0.35], [0.2, 0.8]], "float32")
    m.update(preds=preds, labels=np.array([[0], [1], [1], [0]], "int64"))
    assert m.accumulate() == 0.5  # 2 of the 4 positive/negative pairs ordered


# ------------------------------------------------------------------------ segmentation


def test_seg_cross_entropy_ignore_index_and_miou():
    logits = paddle.to_tensor(np.zeros((1, 3, 2, 2), "float32"))
    label = paddle.to_tensor([[[0, 1], [255, 2]]])
    # mean over the 3 kept pixels of ln 3 (uniform logits); the ignored one counts nowhere
    loss = nn.CrossEntropyLoss(axis=1, ignore_index=255)(logits, label)
    assert float(loss) == pytest.approx(math.log(3), rel=1e-6)
    pred = paddle.to_tensor([[[0, 1], [1, 1]]])
    mask = label != 255
    inter = [
        int(
            paddle.sum(
                paddle.cast(
                    paddle.logical_and(paddle.logical_and(pred == i, mask), label == i), "int64"
                )
            )
        )
        for i in range(3)
    ]
    assert inter == [1, 1, 0]
    cm = paddle.bincount(
        paddle.masked_select(label, mask) * 3 + paddle.masked_select(pred, mask), minlength=9
    ).reshape([3, 3])
    np.testing.assert_array_equal(cm.numpy(), [[1, 0, 0], [0, 1, 0], [0, 1, 0]])


def test_seg_upsampling_shapes():
    x = paddle.rand([1, 4, 5, 7])
    up = nn.Conv2DTranspose(4, 2, kernel_size=2, stride=2)(x)
    assert up.shape == [1, 2, 10, 14]
    y = F.interpolate(x, size=[10, 14], mode="bilinear", align_corners=False)
    assert y.shape == [1, 4, 10, 14]
    # half-pixel bilinear: a constant image stays constant
    c = F.interpolate(paddle.full([1, 1, 3, 3], 2.5), scale_factor=2, mode="bilinear")
    np.testing.assert_array_equal(c.numpy(), np.full((1, 1, 6, 6), 2.5, "float32"))


# ------------------------------------------------------------------------------ PINN


def test_pinn_second_derivative_and_autograd_jacobian_hessian():
    x = paddle.to_tensor([[0.5], [1.0]], dtype="float64", stop_gradient=False)
    u = paddle.sin(math.pi * x)
    du = paddle.grad(u, x, create_graph=True)[0]
    d2u = paddle.grad(du, x, create_graph=True)[0]
    np.testing.assert_allclose(d2u.numpy(), -(math.pi**2) * np.sin(math.pi * x.numpy()), atol=1e-12)
    v = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    J = paddle.autograd.jacobian(v * v[[1, 2, 0]], v)
    np.testing.assert_array_equal(J[:].numpy(), [[2, 1, 0], [0, 3, 2], [3, 0, 1]])
    H = paddle.autograd.hessian(paddle.sum(v**3), v)
    np.testing.assert_array_equal(H[:].numpy(), np.diag([6.0, 12.0, 18.0]))
    # Paddle refuses 2-D ys / xs without batch_axis (python/paddle/autograd/autograd.py)
    with pytest.raises(ValueError):
        paddle.autograd.jacobian(paddle.ones([2, 2]) * v[0], paddle.ones([2, 2]))


def test_incubate_autograd_jacobian_hessian_regression():
    # paddle.incubate.autograd (Jacobian / Hessian / vjp / jvp of a function,
    # python/paddle/incubate/autograd/functional.py) was missing; the values are the
    # examples in Paddle's docstrings. Inputs and outputs are flattened and concatenated.
    from ferrograd.incubate.autograd import Hessian, Jacobian, jvp, vjp

    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    J = Jacobian(lambda a, b: paddle.matmul(a, b), [x, x])
    assert J.shape == [4, 8]
    expect = [
        [1, 3, 0, 0, 1, 0, 2, 0],
        [2, 4, 0, 0, 0, 1, 0, 2],
        [0, 0, 1, 3, 3, 0, 4, 0],
        [0, 0, 2, 4, 0, 3, 0, 4],
    ]
    np.testing.assert_array_equal(J[:, :].numpy(), expect)
    np.testing.assert_array_equal(J[0, :].numpy(), expect[0])
    np.testing.assert_array_equal(J[:, 0].numpy(), [1, 2, 0, 0])
    with pytest.raises(IndexError, match="Ellipsis"):
        J[..., 0]
    h = Hessian(lambda t: paddle.sum(t * t), paddle.rand([2, 2]))
    np.testing.assert_array_equal(h[:].numpy(), 2 * np.eye(4))
    ones = paddle.ones([2, 2])
    v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
    for fn in (vjp, jvp):
        np.testing.assert_array_equal(
            fn(lambda t: paddle.matmul(t, t), ones)[1].numpy(), [[4, 4], [4, 4]]
        )
        np.testing.assert_array_equal(
            fn(lambda t: paddle.matmul(t, t), ones, v)[1].numpy(), [[2, 1], [1, 0]]
        )
    # batched: [B, N, M], the per-sample Hessian of sum(t^3) is diag(6 t)
    Hb = Hessian(lambda t: (t**3).sum(1, keepdim=True), x, is_batched=True)
    assert Hb.shape == [2, 2, 2]
    np.testing.assert_array_equal(Hb[:].numpy(), [np.diag([6.0, 12.0]), np.diag([18.0, 24.0])])
    with pytest.raises(RuntimeError, match="single element"):
        Hessian(lambda t: t * 2, paddle.ones([2]))[:]


# ------------------------------------------------------------------------ forecasting


def test_forecasting_windows_and_channel_last_padding():
    x = paddle.arange(10, dtype="float32")
    np.testing.assert_array_equal(
        x.unfold(0, 4, 3).numpy(), [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]]
    )
    p = F.pad(paddle.ones([1, 3, 2]), [1, 2], data_format="NLC")
    assert p.shape == [1, 6, 2]
    np.testing.assert_array_equal(p[0, :, 0].numpy(), [0, 1, 1, 1, 0, 0])
    conv = nn.Conv1D(1, 1, 3, bias_attr=False)
    conv.weight.set_value(paddle.ones([1, 1, 3]))
    np.testing.assert_array_equal(conv(x.reshape([1, 1, 10])).numpy()[0, 0], 3 * np.arange(1, 9))


# ------------------------------------------------------------------- training tricks


def test_linear_warmup_cosine_and_label_smooth():
    cos = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.1, T_max=40)
    lr = paddle.optimizer.lr.LinearWarmup(
        learning_rate=cos, warmup_steps=8, start_lr=0.0, end_lr=0.1
    )
    seen = []
    for _ in range(10):
        seen.append(lr())
        lr.step()
    np.testing.assert_allclose(seen[:9], [0.0125 * i for i in range(9)], rtol=1e-12)
    assert seen[9] == pytest.approx(0.05 * (1 + math.cos(math.pi / 40)))
    soft = F.label_smooth(F.one_hot(paddle.to_tensor([1]), 4), epsilon=0.1)
    np.testing.assert_allclose(soft.numpy(), [[0.025, 0.925, 0.025, 0.025]], rtol=1e-6)


# ---------------------------------------------------------------------------- CTC


def test_ctc_zero_logits_closed_form_and_norm_by_times():
    # uniform probabilities over 3 symbols for T = 5 frames: "1 2" has C(7, 4) = 35
    # alignments and "1 1" C(6, 4) = 15, each of probability 3^-5
    logits = paddle.zeros([5, 2, 3])
    logits.stop_gradient = False
    lab = paddle.to_tensor([[1, 2], [1, 1]], dtype="int32")
    il = paddle.to_tensor([5, 5], dtype="int64")
    ll = paddle.to_tensor([2, 2], dtype="int64")
    none = F.ctc_loss(logits, lab, il, ll, blank=0, reduction="none")
    np.testing.assert_allclose(
        none.numpy().reshape(-1), [math.log(243 / 35), math.log(243 / 15)], rtol=1e-6
    )
    F.ctc_loss(logits, lab, il, ll, blank=0, reduction="sum").backward()
    g = logits.grad.numpy().copy()
    logits.clear_grad()
    nbt = F.ctc_loss(logits, lab, il, ll, blank=0, reduction="sum", norm_by_times=True)
    assert float(nbt) == pytest.approx(float(none.sum()))  # the loss is not scaled
    nbt.backward()
    np.testing.assert_allclose(logits.grad.numpy(), g / 5, rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ metric learning


def test_triplet_and_arcface_values():
    a, p, n = (paddle.to_tensor([v]) for v in ([0.0, 0.0], [3.0, 4.0], [1.0, 0.0]))
    # Paddle's distance is |a - p + eps| (eps 1e-6), as PyTorch's pairwise_distance
    d_ap = math.hypot(3 - 1e-6, 4 - 1e-6)
    d_an = math.hypot(1 - 1e-6, 1e-6)
    assert float(nn.TripletMarginLoss(margin=1.0)(a, p, n)) == pytest.approx(
        d_ap - d_an + 1, rel=1e-6
    )
    cos = paddle.to_tensor([[0.6, -0.2]])
    one_hot = F.one_hot(paddle.to_tensor([0]), 2)
    m = 0.5
    sin = paddle.sqrt(1.0 - paddle.square(cos))
    phi = cos * math.cos(m) - sin * math.sin(m)
    phi = paddle.where(cos > math.cos(math.pi - m), phi, cos - math.sin(math.pi - m) * m)
    out = one_hot * phi + (1.0 - one_hot) * cos
    np.testing.assert_allclose(out.numpy(), [[math.cos(math.acos(0.6) + m), -0.2]], rtol=1e-6)
    assert float(paddle.acos(paddle.to_tensor(0.5))) == pytest.approx(math.pi / 3)
