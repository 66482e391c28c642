"""Compressed saved tensors: save_compressed keeps its documented error bound,
save_lossless gives back the same bits, a tensor saved by several nodes is packed once,
and both compose with checkpointing and other hooks."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import PyLayer
from ferrograd.autograd.graph import save_compressed, save_lossless, save_on_cpu
from ferrograd.utils.checkpoint import checkpoint

SEEN = []


class SavedValue(PyLayer):
    """Records the saved input as its backward unpacks it: exactly what the hooks return."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        SEEN.append(x.numpy().copy())
        return g


def roundtrip(hooks, array):
    x = fg.to_tensor(array, stop_gradient=False) * 1.0  # not a leaf: parameters are kept
    with hooks:
        y = SavedValue.apply(x)
    SEEN.clear()
    y.sum().backward()
    return SEEN[0]


def wide_values(dtype, seed=0):
    rng = np.random.default_rng(seed)
    mag = 10.0 ** rng.uniform(-30, 30, 2000)
    return (mag * rng.choice([-1, 1], 2000)).astype(dtype)


@pytest.mark.parametrize("src", ["float32", "float64"])
def test_bfloat16_error_bound(src):
    x = wide_values(src)
    back = roundtrip(save_compressed("bfloat16"), x)
    assert back.dtype == np.dtype(src)
    err = np.abs(back.astype(np.float64) - x.astype(np.float64))
    assert (err <= np.abs(x.astype(np.float64)) * 2.0**-8).all()
    assert (err > 0).any()  # it is lossy


def test_float16_error_bound_and_out_of_range_kept():
    rng = np.random.default_rng(1)
    x = (10.0 ** rng.uniform(-10, 4.8, 2000) * rng.choice([-1, 1], 2000)).astype(np.float32)
    back = roundtrip(save_compressed("float16"), x).astype(np.float64)
    x64 = x.astype(np.float64)
    bound = np.where(np.abs(x64) >= 2.0**-14, np.abs(x64) * 2.0**-11, 2.0**-25)
    assert (np.abs(back - x64) <= bound).all()
    big = np.array([1.0, 7e4, -1e6], dtype=np.float32)
    np.testing.assert_array_equal(roundtrip(save_compressed("float16"), big), big)


def test_non_float_tensors_kept_and_bad_dtype():
    h = save_compressed()
    t = fg.to_tensor(np.arange(5))
    packed = h.pack_hook(t)
    assert h.unpack_hook(packed) is t
    with pytest.raises(ValueError, match="bfloat16"):
        save_compressed("int8")


def test_compressed_gradients_close_to_plain_and_bytes_halved():
    rng = np.random.default_rng(2)
    ws = [fg.to_tensor(rng.standard_normal((32, 32)) / 6, stop_gradient=False) for _ in range(4)]
    x = fg.to_tensor(rng.standard_normal((8, 32)))

    def loss():
        h = x
        for w in ws:
            h = (h @ w).tanh()
        return h.sum()

    loss().backward()
    plain = [w.grad.numpy().copy() for w in ws]
    for w in ws:
        w.grad = None
    hooks = save_compressed("bfloat16")
    with hooks:
        out = loss()
    out.backward()
    for p, w in zip(plain, ws):
        np.testing.assert_allclose(w.grad.numpy(), p, rtol=0.05, atol=0.02)
    s = hooks.stats()
    assert s["bytes_out"] * 4 == s["bytes_in"]  # float64 -> bfloat16


def test_tensor_saved_by_several_nodes_packed_once():
    x = fg.to_tensor(np.linspace(-1, 1, 12).astype(np.float32), stop_gradient=False)
    for hooks in (save_compressed(), save_lossless()):
        with hooks:
            y = x.tanh()  # tanh saves y
            z = y * y  # mul saves y twice
        z.sum().backward()
        assert hooks.stats()["tensors"] == 1
    calls = []
    with save_compressed() as hooks:
        y = x.tanh()
        calls.append(hooks.stats()["tensors"])
        z = (y * 1.0) * y  # a new tensor: packed on its own
    assert hooks.stats()["tensors"] == 2 and calls == [1]  # y, then y * 1.0


def test_lossless_is_bit_exact():
    cases = [
        np.array([0.0, -0.0, 1.5, 0.0, np.nan, -np.inf, 2.0**-1074, 0.0, 0.0, 0.0] * 10),
        np.where(np.random.default_rng(3).random(1000) < 0.5, 0.0, 2.0),  # dropout-like mask
        np.maximum(np.random.default_rng(4).standard_normal(1000), 0.0).astype(np.float32),
        np.random.default_rng(5).standard_normal(100),  # dense: kept as is
        np.zeros(0),
    ]
    for a in cases:
        back = roundtrip(save_lossless(), a)
        assert back.dtype == a.dtype
        np.testing.assert_array_equal(back.view(np.uint8), a.view(np.uint8))


def test_lossless_compresses_relu_outputs_and_masks():
    h = save_lossless()
    relu = fg.to_tensor(np.maximum(np.random.default_rng(6).standard_normal(4096), 0))
    mask = fg.to_tensor(np.where(np.random.default_rng(7).random(4096) < 0.9, 2.0, 0.0))
    for t in (relu, mask):
        back = h.unpack_hook(h.pack_hook(t))
        np.testing.assert_array_equal(back.numpy(), t.numpy())
    s = h.stats()
    # relu: 1 bit + about half the float64 values; mask: 1 bit + one value
    assert s["bytes_out"] < 0.6 * 4096 * 8 + 4096 // 8 + 8 + 8


def test_lossless_mlp_gradients_bit_identical_and_compose_with_checkpoint():
    rng = np.random.default_rng(8)
    ws = [fg.to_tensor(rng.standard_normal((16, 16)) / 4, stop_gradient=False) for _ in range(6)]
    x = fg.to_tensor(rng.standard_normal((8, 16)), stop_gradient=False)

    def layer(h, w):
        return (h @ w).relu()

    def loss(mode):
        h = x
        for i, w in enumerate(ws):
            if mode == "ckpt-inside" and i % 2:
                h = checkpoint(layer, h, w)
            else:
                h = layer(h, w)
        return h.square().sum()

    def grads():
        g = [t.grad.numpy().copy() for t in ws + [x]]
        for t in ws + [x]:
            t.grad = None
        return g

    loss("plain").backward()
    ref = grads()
    for mode in ("plain", "ckpt-inside"):
        with save_lossless():
            out = loss(mode)
        out.backward()
        for a, b in zip(ref, grads()):
            np.testing.assert_array_equal(a, b)

    # compression inside a checkpointed region: recomputation compresses the same way
    def compressed_layer(h, w):
        with save_compressed("bfloat16"):
            return layer(h, w).tanh()

    for use in (False, True):
        h = x
        for w in ws:
            h = checkpoint(compressed_layer, h, w) if use else compressed_layer(h, w)
        with save_on_cpu():
            h.sum().backward()
        if not use:
            ref = grads()
    for a, b in zip(ref, grads()):
        np.testing.assert_array_equal(a, b)


def test_parameters_are_saved_as_they_are():
    w = fg.to_tensor(np.ones((4, 4), dtype=np.float32), stop_gradient=False)
    x = fg.to_tensor(np.ones((2, 4), dtype=np.float32), stop_gradient=False) * 2.0
    for hooks in (save_compressed(), save_lossless()):
        with hooks:
            y = x @ w  # saves x (packed) and the parameter w (kept as is)
        y.sum().backward()
        assert hooks.stats()["tensors"] == 1
        assert hooks.stats()["bytes_in"] == 2 * 4 * 4
