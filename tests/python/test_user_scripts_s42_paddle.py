"""Session 42: Paddle user scripts in new domains (ESPCN super-resolution, an SSD-style
detector on ``paddle.vision.ops``, a static-graph training loop, ``jit.to_static`` +
``jit.save`` / ``jit.load``, LoRA fine-tuning with hooks and ``ParamAttr``, a
Mixture-of-Experts block, ``paddle.Model`` with binary metrics and callbacks, AMP O2)
run with only the import changed. The ``*_regression`` tests pin what the scripts found;
the rest are exact values the scripts print, checked against closed forms. See
docs/user-scripts.md, "Session 42: eight Paddle scripts in new domains"."""

from __future__ import annotations

import os

import ferrograd as paddle
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import ferrograd.static as static
import numpy as np
import pytest
from ferrograd.vision.ops import box_coder, nms, prior_box, roi_align, yolo_box


@pytest.fixture
def static_mode():
    paddle.enable_static()
    try:
        with static.scope_guard(static.Scope()):
            yield
    finally:
        paddle.disable_static()


# ------------------------------------------------ static graphs


def test_metric_accuracy_in_static_mode_regression(static_mode):
    # Paddle's static tutorials fetch `paddle.metric.accuracy(input=, label=, k=)` built in
    # the program (python/paddle/metric/metrics.py `accuracy`: outside dygraph it appends
    # top_k and accuracy ops). ferrograd read the Variable's value while building and
    # raised "has no value while the program is being built".
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 4], dtype="float32")
        y = static.data(name="y", shape=[None, 1], dtype="int64")
        acc1 = paddle.metric.accuracy(input=x, label=y, k=1)
        acc2 = paddle.metric.accuracy(input=x, label=y, k=2)
    exe = static.Executor()
    exe.run(startup)
    xv = np.array(
        [[0.1, 0.5, 0.2, 0.2], [0.9, 0.0, 0.05, 0.05], [0.2, 0.3, 0.4, 0.1], [0.3, 0.2, 0.1, 0.4]],
        dtype="float32",
    )
    yv = np.array([[1], [1], [1], [0]], dtype="int64")
    a1, a2 = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[acc1, acc2])
    # top-1 hits: row 0 only; top-2 hits: rows 0, 2 (0.3 is 2nd), 3 (0.3 is 2nd)
    assert float(a1) == 0.25
    assert float(a2) == 0.75
    # the same values as the dygraph function
    paddle.disable_static()
    try:
        assert (
            float(paddle.metric.accuracy(paddle.to_tensor(xv), paddle.to_tensor(yv), k=2)) == 0.75
        )
    finally:
        paddle.enable_static()


def test_scope_find_var_get_tensor_regression(static_mode):
    # Paddle's static code reads parameters as
    # `np.array(static.global_scope().find_var(name).get_tensor())` and writes them with
    # `.get_tensor().set(array, place)` (Tensor.get_tensor returns the DenseTensor); the
    # tensor ferrograd's scope returns had no get_tensor.
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 2], dtype="float32")
        w = static.create_parameter([2, 1], "float32", name="w_s42")
        out = paddle.matmul(x, w)
    exe = static.Executor()
    exe.run(startup)
    handle = static.global_scope().find_var("w_s42").get_tensor()
    handle.set(np.array([[2.0], [3.0]], dtype="float32"), paddle.CPUPlace())
    np.testing.assert_array_equal(np.array(handle), [[2.0], [3.0]])
    assert handle.shape() == [2, 1]
    (o,) = exe.run(main, feed={"x": np.array([[1.0, 1.0]], "float32")}, fetch_list=[out])
    np.testing.assert_array_equal(o, [[5.0]])
    with pytest.raises(ValueError, match="shape"):
        handle.set(np.zeros(3, "float32"), paddle.CPUPlace())
    # dygraph: the handle shares the tensor's storage
    paddle.disable_static()
    try:
        t = paddle.to_tensor([1.0, 2.0])
        h = t.get_tensor()
        h.set(np.array([4.0, 5.0]), paddle.CPUPlace())
        np.testing.assert_array_equal(t.numpy(), [4.0, 5.0])
    finally:
        paddle.enable_static()


def test_save_load_inference_model_regression(static_mode, tmp_path):
    # python/paddle/static/io.py `save_inference_model(path_prefix, feed_vars, fetch_vars,
    # executor, **kwargs)` / `load_inference_model(path_prefix, executor)` returning
    # [program, feed_target_names, fetch_targets]
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data(name="x", shape=[None, 3], dtype="float32")
        out = static.nn.fc(x, size=2)
    exe = static.Executor()
    exe.run(startup)
    xv = np.ones((2, 3), "float32")
    (ref,) = exe.run(main, feed={"x": xv}, fetch_list=[out])
    prefix = os.path.join(str(tmp_path), "m")
    static.save_inference_model(prefix, [x], [out], exe)
    prog, feeds, fetches = static.load_inference_model(prefix, exe)
    (got,) = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
    np.testing.assert_array_equal(got, ref)


# ------------------------------------------------ jit.save of a Paddle Embedding


def test_jit_save_embedding_with_padding_idx_regression(tmp_path):
    # A Paddle-built Embedding(padding_idx=) records a zeroing mask when captured; the mask
    # used the raw _core.zeros_like on the static Variable and jit.save raised "'Variable'
    # object is not an instance of 'Tensor'" (Paddle's TextCNN / BERT exports do this).
    paddle.seed(0)
    emb = nn.Embedding(6, 3, padding_idx=0)
    emb.eval()
    ids = paddle.to_tensor([[0, 2, 5], [1, 0, 3]])
    ref = emb(ids)
    assert float(ref[0, 0].abs().sum()) == 0.0
    path = os.path.join(str(tmp_path), "emb", "inference")
    spec = paddle.static.InputSpec(shape=[None, 3], dtype="int64", name="ids")
    paddle.jit.save(emb, path, input_spec=[spec])
    loaded = paddle.jit.load(path)
    np.testing.assert_array_equal(loaded(ids).numpy(), ref.numpy())


# ------------------------------------------------ AMP


def test_grad_scaler_state_dict_paddle_keys_regression():
    # Paddle's AmpScaler.state_dict (python/paddle/amp/grad_scaler.py) has the keys
    # scale (a [1] array), incr_ratio, decr_ratio, incr_every_n_steps,
    # decr_every_n_nan_or_inf, incr_count, decr_count, use_dynamic_loss_scaling, and its
    # load_state_dict reads them. ferrograd wrote only torch's growth_factor /
    # backoff_factor / growth_interval, and silently kept its defaults when loading a
    # Paddle dict (incr_ratio=3 came back as 2).
    s = paddle.amp.GradScaler(
        init_loss_scaling=1024.0, incr_ratio=3.0, decr_ratio=0.25, incr_every_n_steps=7
    )
    sd = s.state_dict()
    assert (sd["incr_ratio"], sd["decr_ratio"], sd["incr_every_n_steps"]) == (3.0, 0.25, 7)
    paddle_sd = {
        "scale": np.array([512.0], dtype="float32"),
        "incr_ratio": 3.0,
        "decr_ratio": 0.25,
        "incr_every_n_steps": 7,
        "decr_every_n_nan_or_inf": 2,
        "incr_count": 3,
        "decr_count": 0,
        "use_dynamic_loss_scaling": True,
    }
    t = paddle.amp.GradScaler()
    t.load_state_dict(paddle_sd)
    assert float(t.get_loss_scaling()) == 512.0
    assert t.get_incr_ratio() == 3.0
    assert t.get_decr_ratio() == 0.25
    assert t.get_incr_every_n_steps() == 7
    assert t.get_decr_every_n_nan_or_inf() == 2


def _o2_sgd(master_weight):
    lin = nn.Linear(1, 1, bias_attr=False)
    lin.weight.set_value(paddle.ones([1, 1]))
    opt = paddle.optimizer.SGD(
        learning_rate=1e-4, parameters=lin.parameters(), multi_precision=True
    )
    lin, opt = paddle.amp.decorate(lin, opt, level="O2", master_weight=master_weight)
    for _ in range(20):
        with paddle.amp.auto_cast(level="O2"):
            y = lin(paddle.ones([1, 1])).astype("float32").sum()
        y.backward()
        opt.step()
        opt.clear_grad()
    return lin, opt


def test_amp_o2_master_weights_regression():
    # Paddle's decorate(level='O2') keeps float32 master weights by default
    # (python/paddle/amp/auto_cast.py `amp_decorate`: master_weight=None means
    # multi-precision updates at O2). ferrograd updated the float16 weight directly, so
    # twenty SGD steps of 1e-4 on a weight of 1.0 were all lost (1 - 1e-4 rounds to 1 in
    # float16); with masters they accumulate to 0.998, stored as float16 0.998046875.
    lin, _ = _o2_sgd(None)
    assert lin.weight.dtype == paddle.float16
    assert float(lin.weight.astype("float32")) == 0.998046875
    lin, _ = _o2_sgd(True)
    assert float(lin.weight.astype("float32")) == 0.998046875
    # master_weight=False: the update runs in float16 and is lost, as in Paddle
    lin, _ = _o2_sgd(False)
    assert float(lin.weight.astype("float32")) == 1.0


def test_amp_o2_master_weights_with_scaler_and_state_dict():
    paddle.seed(1)
    net = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Linear(8, 2))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level="O2")
    scaler = paddle.amp.GradScaler(init_loss_scaling=128.0)
    x = paddle.randn([16, 4])
    y = paddle.randint(0, 2, [16])
    w0 = net[0].weight.astype("float32").numpy()
    for _ in range(3):
        with paddle.amp.auto_cast(level="O2"):
            loss = F.cross_entropy(net(x), y)
        scaler.scale(loss).backward()
        scaler.minimize(opt, scaler.scale(loss))
        opt.clear_grad()
    assert net[0].weight.dtype == paddle.float16
    assert net[1].weight.dtype == paddle.float32
    assert not np.array_equal(w0, net[0].weight.astype("float32").numpy())
    assert net[0].weight.grad is None or float(net[0].weight.grad.abs().sum()) == 0.0
    # the saved optimizer state is the masters' (float32 moments, three steps)
    sd = opt.state_dict()
    assert sd["state"], "the Adam moments of the master weights are saved"
    moments = [v for st in sd["state"].values() for v in st.values() if hasattr(v, "dtype")]
    assert any(m.dtype == paddle.float32 and float(m.abs().sum()) > 0 for m in moments)
    # an infinite loss skips the step: the weights do not move
    before = net[0].weight.numpy().copy()
    with paddle.amp.auto_cast(level="O2"):
        bad = F.cross_entropy(net(x), y) * float("inf")
    scaler.scale(bad).backward()
    scaler.step(opt)
    scaler.update()
    opt.clear_grad()
    np.testing.assert_array_equal(before, net[0].weight.numpy())


# ------------------------------------------------ values the scripts print


def test_pixel_shuffle_and_bicubic_values():
    x = paddle.arange(2 * 9 * 2 * 2, dtype="float32").reshape([2, 9, 2, 2])
    y = F.pixel_shuffle(x, 3)
    assert y.shape == [2, 1, 6, 6]
    np.testing.assert_array_equal(y[0, 0, 0, :3].numpy(), [0.0, 4.0, 8.0])
    assert bool(paddle.equal_all(F.pixel_unshuffle(y, 3), x))
    # bicubic (A = -0.75) of a ramp 0..3 with align_corners=True at source 0.5: the
    # clamped neighbour at -1 reads 0 instead of -1, so 0.5 + w(1.5) * 1 = 0.5 - 0.09375
    ramp = paddle.linspace(0, 3, 4).reshape([1, 1, 1, 4]).tile([1, 1, 4, 1])
    up = F.interpolate(ramp, size=[4, 7], mode="bicubic", align_corners=True)
    np.testing.assert_allclose(
        up[0, 0, 0].numpy(), [0.0, 0.40625, 1.0, 1.5, 2.0, 2.59375, 3.0], rtol=0, atol=1e-6
    )


def test_detection_ops_values():
    # roi_align(aligned=True) of f(y, x) = 4y + x: each bin is the mean of its sample
    # points (clamped at 0 below), e.g. bin (0, 0) of [0, 0, 2, 2] samples y, x in {0, .25}
    feat = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    rois = paddle.to_tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]])
    out = roi_align(feat, rois, paddle.to_tensor([2], dtype="int32"), 2, 1.0, 2, True)
    np.testing.assert_allclose(
        out.numpy().reshape(2, 4), [[0.625, 1.5, 4.125, 5.0], [5.0, 6.0, 9.0, 10.0]], atol=1e-6
    )
    boxes = paddle.to_tensor(
        [[0, 0, 10, 10], [1, 1, 10, 10], [0, 0, 10, 10], [20, 20, 30, 30]], dtype="float32"
    )
    scores = paddle.to_tensor([0.9, 0.8, 0.7, 0.6])
    cats = paddle.to_tensor([0, 0, 1, 1], dtype="int64")
    assert nms(boxes, 0.5).numpy().tolist() == [0, 3]
    assert nms(boxes, 0.5, scores, cats, [0, 1]).numpy().tolist() == [0, 2, 3]
    assert nms(boxes, 0.5, scores, cats, [0, 1], top_k=2).numpy().tolist() == [0, 2]
    # yolo_box of zeros: sigmoid 0.5 centres, anchor-sized boxes, score 0.5 * 0.5
    x = paddle.zeros([1, 14, 2, 2])
    b, s = yolo_box(x, paddle.to_tensor([[64, 64]], dtype="int32"), [10, 13, 16, 30], 2, 0.01, 32)
    np.testing.assert_allclose(b[0, :2].numpy(), [[11, 9.5, 21, 22.5], [43, 9.5, 53, 22.5]])
    np.testing.assert_allclose(s[0, :2].numpy(), 0.25)
    # prior_box: centre (2, 2) px at step 4, min size 10, clipped to the image
    img = paddle.zeros([1, 3, 32, 32])
    pri, var = prior_box(
        paddle.zeros([1, 8, 8, 8]), img, [10.0], [16.0], [2.0], steps=[4.0, 4.0], clip=True
    )
    assert pri.shape == [8, 8, 3, 4]
    np.testing.assert_allclose(pri[0, 0, 0].numpy(), [0, 0, 7 / 32, 7 / 32], atol=1e-6)
    # box_coder: decoding what was encoded gives the box back
    priors = pri.reshape([-1, 4])[:5]
    pv = var.reshape([-1, 4])[:5]
    gt = paddle.to_tensor([[0.1, 0.2, 0.5, 0.6]])
    enc = box_coder(priors, pv, gt, code_type="encode_center_size")
    dec = box_coder(priors, pv, enc, code_type="decode_center_size", axis=0)
    np.testing.assert_allclose(dec[0].numpy(), np.tile(gt.numpy(), (5, 1)), atol=1e-5)


def test_sdpa_paddle_layout_and_scatter_values():
    # Paddle's scaled_dot_product_attention takes [batch, seq, heads, dim]
    paddle.seed(3)
    q, k, v = (paddle.randn([2, 5, 2, 4]) for _ in range(3))
    s = paddle.einsum("bqhd,bkhd->bhqk", q, k) / 2.0
    mask = paddle.triu(paddle.full([5, 5], float("-inf")), diagonal=1)
    ref = paddle.einsum("bhqk,bkhd->bqhd", F.softmax(s + mask, axis=-1), v)
    got = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), atol=1e-6)
    # paddle.scatter(overwrite=False) zeroes the indexed rows, then adds
    x = paddle.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    i = paddle.to_tensor([2, 1, 0, 1])
    u = paddle.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    assert paddle.scatter(x, i, u, overwrite=False).numpy().tolist() == [[3, 3], [6, 6], [1, 1]]
    assert paddle.scatter(x, i, u).numpy().tolist() == [[3, 3], [4, 4], [1, 1]]
    w = paddle.to_tensor([0.5, 1.0, 1.0, 2.0])
    counts = paddle.bincount(paddle.to_tensor([0, 1, 1, 3]), weights=w, minlength=5)
    assert counts.numpy().tolist() == [0.5, 2.0, 0.0, 2.0, 0.0]


def test_binary_metrics_and_param_attr_values():
    p = np.array([0.9, 0.2, 0.7, 0.4])
    lab = np.array([1, 0, 0, 1])
    m, r = paddle.metric.Precision(), paddle.metric.Recall()
    m.update(p, lab)
    r.update(p, lab)
    assert (m.accumulate(), r.accumulate()) == (0.5, 0.5)
    a = paddle.metric.Auc()
    a.update(np.stack([1 - p, p], axis=1), lab.reshape(-1, 1))
    # positives 0.9, 0.4 against negatives 0.2, 0.7: 3 of the 4 pairs are ordered
    assert a.accumulate() == 0.75
    # ParamAttr(learning_rate=2.0) doubles the SGD step of that parameter only
    lin = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(learning_rate=2.0))
    w0, b0 = lin.weight.numpy().copy(), lin.bias.numpy().copy()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=lin.parameters())
    lin(paddle.to_tensor([[1.0, 2.0]])).sum().backward()
    g = lin.weight.grad.numpy().copy()
    opt.step()
    np.testing.assert_allclose(lin.weight.numpy(), w0 - 0.2 * g, rtol=0, atol=1e-7)
    np.testing.assert_allclose(lin.bias.numpy(), b0 - 0.1, rtol=0, atol=1e-7)
    # forward pre/post hooks change the input and the output
    lin = nn.Linear(2, 2)
    lin.weight.set_value(paddle.eye(2))
    lin.bias.set_value(paddle.zeros([2]))
    lin.register_forward_pre_hook(lambda layer, inp: (inp[0] * 2,))
    lin.register_forward_post_hook(lambda layer, inp, out: out + 1)
    assert lin(paddle.to_tensor([[1.0, 2.0]])).numpy().tolist() == [[3.0, 5.0]]
