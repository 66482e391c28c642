"""Session 40: Paddle user scripts (CRNN + CTC, detection losses, geometric message
passing, KWS on log-mel features, ``paddle.Model`` with callbacks, PyLayer + AMP +
to_static, PPO with ``paddle.distribution``, a PaddleNLP-style BERT) run with only the
import changed. The ``*_regression`` tests pin what the scripts found (each failed on the
code before its fix); the rest are exact values the scripts print, checked against closed
forms. See docs/user-scripts.md, "Session 40"."""

from __future__ import annotations

import math
import os

import ferrograd as paddle
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import PyLayer
from ferrograd.distribution import Categorical, Normal, kl_divergence
from ferrograd.io import DataLoader, Dataset, IterableDataset
from ferrograd.static import InputSpec

# ---------------------------------------------------------------- data loading


class _Pairs(Dataset):
    def __init__(self, n: int = 10) -> None:
        rng = np.random.RandomState(0)
        self.x = rng.randn(n, 3).astype("float32")
        self.y = (self.x.sum(1) > 0).astype("int64")

    def __getitem__(self, i: int):
        return self.x[i], self.y[i]

    def __len__(self) -> int:
        return len(self.x)


def _collate_nested(batch):
    xs = np.stack([x for x, _ in batch])
    mask = np.ones(xs.shape[:1], dtype="float32")
    ys = np.array([[y] for _, y in batch], dtype="int64")
    return ([xs, mask], ys, {"n": np.array(len(batch)), "tag": "b", "k": 3})


def test_dataloader_collate_fn_arrays_become_tensors_regression():
    # Paddle's DataLoader flattens what collate_fn returns, turns every ndarray into a
    # Tensor and restores the nesting (lists for sequences, dicts for mappings; numbers
    # and strings as they are): _flatten_batch / _restore_batch in
    # python/paddle/io/dataloader/flat.py. ferrograd handed the NumPy arrays over as is.
    loader = DataLoader(_Pairs(), batch_size=4, collate_fn=_collate_nested)
    (x, mask), y, extra = next(iter(loader))
    assert isinstance(x, paddle.Tensor) and x.shape == [4, 3] and x.dtype == paddle.float32
    assert isinstance(mask, paddle.Tensor) and isinstance(y, paddle.Tensor)
    assert y.dtype == paddle.int64 and y.shape == [4, 1]
    assert isinstance(extra["n"], paddle.Tensor) and int(extra["n"]) == 4
    assert extra["tag"] == "b" and extra["k"] == 3
    np.testing.assert_array_equal(x.numpy(), _Pairs().x[:4])
    # the loader() spelling goes through the same conversion
    batch = next(loader())
    assert isinstance(batch[1], paddle.Tensor)


def test_dataloader_default_collate_unchanged():
    x, y = next(iter(DataLoader(_Pairs(), batch_size=4)))
    assert isinstance(x, paddle.Tensor) and x.shape == [4, 3]
    assert isinstance(y, paddle.Tensor) and y.shape == [4]


class _Stream(IterableDataset):
    def __iter__(self):
        rng = np.random.RandomState(1)
        for _ in range(24):
            x = rng.randn(3).astype("float32")
            yield x, int(x.sum() > 0)


class _TwoInputNet(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x, mask):
        return self.fc(x) * mask.unsqueeze(-1)


def _collate_split(batch):
    xs = np.stack([x for x, _ in batch])
    return [xs, np.ones(len(batch), dtype="float32")], np.array([[y] for _, y in batch])


def test_model_fit_flattens_nested_batches_regression():
    # Paddle's Model._run_one_epoch calls paddle.utils.flatten(data) on each batch, so a
    # collate_fn giving ([x, mask], label) feeds x, mask to the network and label to the
    # loss (python/paddle/hapi/model.py, "custumed iterator yield separated inputs and
    # labels"); ferrograd tried to make one tensor of [x, mask] and raised.
    paddle.seed(0)
    net = _TwoInputNet()
    model = paddle.Model(
        net,
        inputs=[InputSpec([None, 3], "float32", "x"), InputSpec([None], "float32", "mask")],
        labels=[InputSpec([None, 1], "int64", "label")],
    )
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    model.prepare(opt, nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    loader = DataLoader(_Stream(), batch_size=8, collate_fn=_collate_split)
    model.fit(loader, epochs=2, verbose=0)
    res = model.evaluate(loader, verbose=0)
    assert set(res) == {"loss", "acc"}
    preds = model.predict(loader, stack_outputs=True, verbose=0)
    assert preds[0].shape == (24, 2)


def test_model_checkpoint_epochs_regression(tmp_path):
    # Paddle's ModelCheckpoint.on_epoch_end saves when `self.epoch % self.save_freq == 0`
    # (epochs count from 0; python/paddle/hapi/callbacks.py), so save_freq=2 over 5 epochs
    # writes 0, 2, 4 and final. ferrograd wrote 1, 3 ((epoch + 1) % save_freq).
    paddle.seed(0)
    model = paddle.Model(nn.Linear(3, 2), inputs=[InputSpec([None, 3], "float32", "x")])
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    model.prepare(opt, nn.CrossEntropyLoss())
    cb = paddle.callbacks.ModelCheckpoint(save_freq=2, save_dir=str(tmp_path))
    model.fit(_Pairs(8), batch_size=4, epochs=5, verbose=0, callbacks=[cb])
    names = sorted(f for f in os.listdir(tmp_path) if f.endswith(".pdparams"))
    assert names == ["0.pdparams", "2.pdparams", "4.pdparams", "final.pdparams"]


# ---------------------------------------------------------------- AMP


def test_grad_scaler_paddle_get_set_regression():
    # paddle.amp.GradScaler's get/set pairs (AmpScaler in python/paddle/amp/grad_scaler.py)
    s = paddle.amp.GradScaler(init_loss_scaling=1024.0, incr_every_n_steps=20)
    assert s.get_init_loss_scaling() == 1024.0
    assert s.get_incr_ratio() == 2.0 and s.get_decr_ratio() == 0.5
    assert s.get_incr_every_n_steps() == 20 and s.get_decr_every_n_nan_or_inf() == 1
    s.set_incr_ratio(3.0)
    s.set_decr_ratio(0.25)
    s.set_incr_every_n_steps(5)
    s.set_decr_every_n_nan_or_inf(2)
    assert (s.get_incr_ratio(), s.get_decr_ratio()) == (3.0, 0.25)
    assert (s.get_incr_every_n_steps(), s.get_decr_every_n_nan_or_inf()) == (5, 2)
    s.set_init_loss_scaling(256.0)
    assert s.get_init_loss_scaling() == 256.0 and float(s.get_loss_scaling()) == 256.0
    with pytest.raises(ValueError, match="> 1.0"):
        s.set_incr_ratio(1.0)
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        s.set_decr_ratio(1.5)


def test_grad_scaler_init_scaling_stays_after_growth():
    p = paddle.create_parameter([2], "float32")
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[p])
    s = paddle.amp.GradScaler(init_loss_scaling=8.0, incr_every_n_steps=1)
    for _ in range(2):
        s.scale((p * p).sum()).backward()
        s.minimize(opt)
        opt.clear_grad()
    assert float(s.get_loss_scaling()) == 32.0 and s.get_init_loss_scaling() == 8.0


def _bf16_logits():
    rng = np.random.RandomState(3)
    x = paddle.to_tensor(rng.randn(4, 5).astype("float32")).astype("bfloat16")
    x.stop_gradient = False
    return x


def test_autocast_losses_compute_in_float32_regression():
    # Inside autocast both peers compute the classification losses in float32: PyTorch's
    # CPU autocast has KERNEL_CPU(cross_entropy_loss / nll_loss / mse_loss, fp32)
    # (aten/src/ATen/autocast_mode.cpp), Paddle's O1 black list cross_entropy,
    # softmax_with_cross_entropy, nll_loss (python/paddle/amp/amp_lists.py). ferrograd
    # computed the loss of bfloat16 logits in bfloat16 (2.265625 where 2.2579 was due).
    x = _bf16_logits()
    lab = paddle.to_tensor([0, 1, 2, 3])
    ref = F.cross_entropy(x.astype("float32"), lab)
    with paddle.amp.auto_cast(dtype="bfloat16"):
        loss = F.cross_entropy(x, lab)
        nll = F.nll_loss(F.log_softmax(x.astype("float32"), -1).astype("bfloat16"), lab)
        swce = F.softmax_with_cross_entropy(x, lab.unsqueeze(-1))
        mse = F.mse_loss(x, paddle.zeros([4, 5]).astype("bfloat16"))
    assert loss.dtype == paddle.float32 and float(loss) == float(ref)
    assert nll.dtype == paddle.float32 and swce.dtype == paddle.float32
    assert mse.dtype == paddle.float32
    assert float(mse) == pytest.approx(float((x.astype("float32") ** 2).mean()), rel=1e-6)
    loss.backward()
    assert x.grad.dtype == paddle.bfloat16  # the gradient comes back in the input's dtype
    # outside autocast the dtype of the inputs decides, as before
    assert F.cross_entropy(x, lab).dtype == paddle.bfloat16


def test_autocast_linear_then_loss_float32():
    paddle.seed(0)
    fc = nn.Linear(6, 3)
    with paddle.amp.auto_cast(dtype="float16"):
        out = fc(paddle.randn([2, 6]))
        loss = nn.CrossEntropyLoss()(out, paddle.to_tensor([[1], [2]]))
    assert out.dtype == paddle.float16 and loss.dtype == paddle.float32


# ---------------------------------------------------------------- paddle.tensor


def test_paddle_tensor_package_reexports_functions_regression():
    # paddle/tensor/__init__.py imports the tensor functions (normal, matmul, reshape, ...)
    # from its submodules; PaddleNLP's init_weights calls paddle.tensor.normal(mean=0.0,
    # std=initializer_range, shape=...), and older model code paddle.tensor.matmul.
    paddle.seed(0)
    w = paddle.tensor.normal(mean=0.0, std=0.02, shape=[64, 64])
    assert w.shape == [64, 64] and abs(float(w.std()) - 0.02) < 0.002
    a = paddle.to_tensor([[1.0, 2.0]])
    np.testing.assert_array_equal(paddle.tensor.matmul(a, a, transpose_y=True).numpy(), [[5.0]])
    assert paddle.tensor.reshape(a, [2, 1]).shape == [2, 1]
    assert paddle.tensor([1, 2]).shape == [2]  # still the creation function when called
    with pytest.raises(AttributeError, match="paddle.tensor"):
        paddle.tensor.nn  # noqa: B018  (submodules are not re-exported)
    with pytest.raises(AttributeError):
        paddle.tensor.no_such_function  # noqa: B018


# ---------------------------------------------------------------- exact values


def test_ctc_loss_mean_divides_by_label_lengths():
    # Paddle's F.ctc_loss takes logits (softmax inside) and its 'mean' divides each loss
    # by its label length before averaging. Zero logits: every symbol 1/3 per frame; for
    # label [1] (T=2) the paths 11, 01, 10 give 3/9, for [1, 2] only 12 gives 1/9, so
    # mean = (ln 3 / 1 + ln 9 / 2) / 2 = ln 3.
    logits = paddle.zeros([2, 2, 3])
    labels = paddle.to_tensor([[1, 0], [1, 2]], dtype="int32")
    il = paddle.to_tensor([2, 2], dtype="int64")
    ll = paddle.to_tensor([1, 2], dtype="int64")
    none = nn.CTCLoss(blank=0, reduction="none")(logits, labels, il, ll)
    np.testing.assert_allclose(none.numpy(), [math.log(3), math.log(9)], rtol=1e-6)
    mean = nn.CTCLoss(blank=0, reduction="mean")(logits, labels, il, ll)
    assert float(mean) == pytest.approx(math.log(3), rel=1e-6)


def _box_iou_giou(b1, b2):
    lt = paddle.maximum(b1[..., :2], b2[..., :2])
    rb = paddle.minimum(b1[..., 2:], b2[..., 2:])
    wh = (rb - lt).clip(min=0)
    inter = wh[..., 0] * wh[..., 1]
    a1 = (b1[..., 2] - b1[..., 0]) * (b1[..., 3] - b1[..., 1])
    a2 = (b2[..., 2] - b2[..., 0]) * (b2[..., 3] - b2[..., 1])
    union = a1 + a2 - inter
    iou = inter / union
    enc = paddle.clip(
        paddle.maximum(b1[..., 2:], b2[..., 2:]) - paddle.minimum(b1[..., :2], b2[..., :2]), min=0
    )
    area_c = enc[..., 0] * enc[..., 1]
    return iou, iou - (area_c - union) / area_c


def test_iou_giou_closed_form_and_assignment():
    b1 = paddle.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0]], stop_gradient=False)
    b2 = paddle.to_tensor([[1.0, 1.0, 3.0, 3.0], [2.0, 2.0, 3.0, 3.0]])
    iou, giou = _box_iou_giou(b1, b2)
    np.testing.assert_allclose(iou.numpy(), [1 / 7, 0.0], rtol=1e-6)
    np.testing.assert_allclose(giou.numpy(), [1 / 7 - 2 / 9, -7 / 9], rtol=1e-6)
    (1 - giou).sum().backward()
    assert np.isfinite(b1.grad.numpy()).all()
    # target assignment with where / gather / nonzero / gather_nd / masked_select
    ious = paddle.to_tensor([[0.1, 0.5], [0.05, 0.02], [0.3, 0.2]])
    pos = ious.max(axis=1) >= 0.2
    arg = ious.argmax(axis=1)
    cls = paddle.where(pos, paddle.gather(paddle.to_tensor([1, 2]), arg), paddle.zeros_like(arg))
    np.testing.assert_array_equal(cls.numpy(), [2, 0, 1])
    idx = paddle.nonzero(pos)
    assert idx.shape == [2, 1]
    np.testing.assert_array_equal(
        paddle.gather_nd(paddle.to_tensor([[0.0], [1.0], [2.0]]), idx).numpy(), [[0.0], [2.0]]
    )
    np.testing.assert_allclose(paddle.masked_select(ious.max(axis=1), pos).numpy(), [0.5, 0.3])


def test_sigmoid_focal_loss_closed_form():
    rng = np.random.RandomState(0)
    x = rng.randn(5, 3).astype("float32")
    t = (rng.rand(5, 3) > 0.5).astype("float32")
    out = F.sigmoid_focal_loss(
        paddle.to_tensor(x), paddle.to_tensor(t), normalizer=paddle.to_tensor(2.0),
        reduction="none",
    ).numpy()  # fmt: skip
    p = 1 / (1 + np.exp(-x))
    ce = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    pt = p * t + (1 - p) * (1 - t)
    np.testing.assert_allclose(out, (0.25 * t + 0.75 * (1 - t)) * ce * (1 - pt) ** 2 / 2, atol=1e-6)


def test_geometric_message_passing_values():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], stop_gradient=False)
    s = paddle.to_tensor([0, 1, 2, 0], dtype="int32")
    d = paddle.to_tensor([1, 2, 1, 0], dtype="int32")
    expect = {
        "sum": [[1, 2], [6, 8], [3, 4]],
        "mean": [[1, 2], [3, 4], [3, 4]],
        "max": [[1, 2], [5, 6], [3, 4]],
        "min": [[1, 2], [1, 2], [3, 4]],
    }
    for op, want in expect.items():
        got = paddle.geometric.send_u_recv(x, s, d, reduce_op=op).numpy()
        np.testing.assert_array_equal(got, want)
    paddle.geometric.send_u_recv(x, s, d, reduce_op="mean").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.5, 1.5], [1.0, 1.0], [0.5, 0.5]])
    e = paddle.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    ue = paddle.geometric.send_ue_recv(x, e, s, d, message_op="mul", reduce_op="sum")
    np.testing.assert_array_equal(ue.numpy(), [[4, 8], [16, 20], [6, 8]])
    uv = paddle.geometric.send_uv(x, x, s, d, message_op="add")
    np.testing.assert_array_equal(uv.numpy(), [[4, 6], [8, 10], [8, 10], [2, 4]])
    seg = paddle.to_tensor([0, 0, 1])
    np.testing.assert_array_equal(paddle.geometric.segment_mean(x, seg).numpy(), [[2, 3], [5, 6]])
    np.testing.assert_array_equal(paddle.geometric.segment_max(x, seg).numpy(), [[3, 4], [5, 6]])


def test_categorical_follows_paddle_conventions():
    # Paddle's Categorical(logits): probs / log_prob normalise by the sum, entropy and
    # kl_divergence use softmax(logits); a 1-D value against [B, C] takes every value for
    # every row (take_along_axis with value reshaped to [1, -1]), giving [B, len(value)];
    # kl keeps a size-1 last dim (python/paddle/distribution/categorical.py).
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    c = Categorical(paddle.to_tensor(p.astype("float32")))
    np.testing.assert_allclose(
        c.probs(paddle.to_tensor([2, 0])).numpy(), [[0.7, 0.1], [0.25, 0.5]], rtol=1e-6
    )
    lp = c.log_prob(paddle.to_tensor([[2], [0]])).numpy()
    np.testing.assert_allclose(lp, np.log([[0.7], [0.5]]), rtol=1e-6)
    sm = np.exp(p) / np.exp(p).sum(-1, keepdims=True)
    np.testing.assert_allclose(c.entropy().numpy(), -(sm * np.log(sm)).sum(-1), rtol=1e-5)
    q = np.array([[0.3, 0.3, 0.4], [0.5, 0.25, 0.25]])
    sq = np.exp(q) / np.exp(q).sum(-1, keepdims=True)
    kl = kl_divergence(c, Categorical(paddle.to_tensor(q.astype("float32")))).numpy()
    assert kl.shape == (2, 1)
    np.testing.assert_allclose(kl[:, 0], (sm * np.log(sm / sq)).sum(-1), rtol=1e-5, atol=1e-7)


def test_normal_kl_and_entropy_closed_form():
    n1 = Normal(paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([1.0, 2.0]))
    n2 = Normal(paddle.to_tensor([1.0]), paddle.to_tensor([1.5]))
    # log(s2 / s1) + (s1^2 + (m1 - m2)^2) / (2 s2^2) - 1/2
    want = np.log(1.5 / np.array([1.0, 2.0])) + (np.array([1.0, 4.0]) + [1.0, 0.0]) / 4.5 - 0.5
    np.testing.assert_allclose(kl_divergence(n1, n2).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(
        n1.entropy().numpy(), 0.5 + 0.5 * np.log(2 * np.pi) + np.log([1.0, 2.0]), rtol=1e-6
    )


class _Swish(PyLayer):
    @staticmethod
    def forward(ctx, x, beta=1.0):
        ctx.save_for_backward(x)
        ctx.beta = beta
        return x * F.sigmoid(beta * x)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        s = F.sigmoid(ctx.beta * x)
        return dy * (s + ctx.beta * x * s * (1 - s))


class _TopKMask(PyLayer):
    @staticmethod
    def forward(ctx, x, k):
        vals, idx = paddle.topk(x, k, axis=-1)
        mask = paddle.zeros_like(x).put_along_axis(idx, paddle.ones_like(vals), axis=-1)
        ctx.save_for_backward(mask)
        ctx.mark_non_differentiable(idx)
        return x * mask, idx

    @staticmethod
    def backward(ctx, dy, didx=None):
        (mask,) = ctx.saved_tensor()
        return dy * mask


def test_pylayer_save_for_backward_exact():
    z = paddle.to_tensor([0.3, -0.7], dtype="float64", stop_gradient=False)
    (g,) = paddle.grad(_Swish.apply(z, 2.0).sum(), z)
    v = np.array([0.3, -0.7])
    s = 1 / (1 + np.exp(-2 * v))
    np.testing.assert_allclose(g.numpy(), s + 2 * v * s * (1 - s), rtol=1e-12)
    x = paddle.to_tensor([[3.0, 1.0, 2.0, 0.5]], stop_gradient=False)
    out, idx = _TopKMask.apply(x, 2)
    (out * paddle.to_tensor([[1.0, 2.0, 3.0, 4.0]])).sum().backward()
    np.testing.assert_array_equal(out.numpy(), [[3.0, 0.0, 2.0, 0.0]])
    np.testing.assert_array_equal(idx.numpy(), [[0, 2]])
    assert idx.stop_gradient
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 0.0, 3.0, 0.0]])
