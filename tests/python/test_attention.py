"""``F.scaled_dot_product_attention`` (both layouts), ``nn.MultiheadAttention`` (PyTorch)
and ``nn.MultiHeadAttention`` (Paddle) against NumPy float64 references; masks, causal,
gradcheck/gradgradcheck, bad input."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from attention_ref import paddle_mha_params, ref_attention, ref_mha, torch_mha_params
from ferrograd import nn

RNG = np.random.default_rng(9)


def t(a, grad=False):
    a = np.asarray(a)
    return fg.tensor(a if a.dtype == bool else a.astype(np.float64), requires_grad=grad)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.numpy() if hasattr(a, "numpy") else a, b, atol=tol, rtol=tol)


QKV = (RNG.standard_normal((2, 3, 5, 4)), RNG.standard_normal((2, 3, 6, 4)),
       RNG.standard_normal((2, 3, 6, 7)))  # fmt: skip


# ------------------------------------------------------------------ scaled_dot_product_attention


def test_sdpa_plain_and_scale():
    q, k, v = QKV
    close(F.scaled_dot_product_attention(t(q), t(k), t(v)), ref_attention(q, k, v)[0])
    close(
        F.scaled_dot_product_attention(t(q), t(k), t(v), scale=0.25),
        ref_attention(q, k, v, scale=0.25)[0],
    )


def test_sdpa_bool_mask_keeps_true_and_zero_rows():
    q, k, v = QKV
    keep = RNG.random((5, 6)) > 0.4
    keep[2] = False  # a fully masked row: zeros, not NaN
    got = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(keep))
    close(got, ref_attention(q, k, v, keep=keep)[0])
    assert np.all(got.numpy()[:, :, 2] == 0)


def test_sdpa_float_mask_is_added_and_broadcasts():
    q, k, v = QKV
    bias = RNG.standard_normal((2, 1, 5, 6))
    got = F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(bias))
    close(got, ref_attention(q, k, v, bias=bias)[0])


def test_sdpa_causal_top_left():
    q, k, v = QKV
    keep = np.tril(np.ones((5, 6), bool))
    got = F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True)
    close(got, ref_attention(q, k, v, keep=keep)[0])


def test_sdpa_three_dim_and_zero_size():
    q = RNG.standard_normal((3, 5, 4))
    close(F.scaled_dot_product_attention(t(q), t(q), t(q)), ref_attention(q, q, q)[0])
    empty = F.scaled_dot_product_attention(t(np.zeros((2, 0, 4))), t(q[:2]), t(q[:2]))
    assert list(empty.shape) == [2, 0, 4]


def test_sdpa_paddle_layout():
    q, k, v = QKV
    pq, pk, pv = (np.swapaxes(a, 1, 2) for a in (q, k, v))  # [batch, seq, heads, dim]
    got = F.scaled_dot_product_attention(t(pq), t(pk), t(pv), None, 0.0, True, training=False)
    want = ref_attention(q, k, v, keep=np.tril(np.ones((5, 6), bool)))[0]
    close(got, np.swapaxes(want, 1, 2))


def test_sdpa_dropout():
    q, k, v = QKV
    fg.seed(0)
    assert np.all(F.scaled_dot_product_attention(t(q), t(k), t(v), dropout_p=1.0).numpy() == 0)
    # Paddle's training=False turns dropout off
    pq, pk, pv = (np.swapaxes(a, 1, 2) for a in (q, k, v))
    got = F.scaled_dot_product_attention(t(pq), t(pk), t(pv), dropout_p=0.9, training=False)
    close(got, np.swapaxes(ref_attention(q, k, v)[0], 1, 2))


def test_sdpa_gradcheck_and_gradgradcheck():
    q, k, v = (t(RNG.standard_normal(s), True) for s in ((2, 3, 2), (2, 4, 2), (2, 4, 3)))
    keep = t(RNG.random((3, 4)) > 0.3)
    bias = t(RNG.standard_normal((3, 4)))
    for f in (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=keep),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=bias),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    ):
        assert fg.autograd.gradcheck(f, (q, k, v))
        assert fg.autograd.gradgradcheck(f, (q, k, v))


def test_sdpa_fully_masked_row_has_finite_zero_gradients():
    q, k, v = (t(RNG.standard_normal((2, 3)), True) for _ in range(3))
    keep = t(np.array([[True, False], [False, False]]))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    out.sum().backward()
    for x in (q, k, v):
        assert np.all(np.isfinite(x.grad.numpy()))
    assert np.all(q.grad.numpy()[1] == 0)


def test_sdpa_bad_input():
    q = fg.randn(2, 3, 4)
    with pytest.raises(ValueError, match="not both"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=fg.ones(3, 3), is_causal=True)
    with pytest.raises(ValueError, match="last"):
        F.scaled_dot_product_attention(q, fg.randn(2, 3, 5), q)
    with pytest.raises(ValueError, match="sequence length"):
        F.scaled_dot_product_attention(q, q, fg.randn(2, 4, 4))
    with pytest.raises(TypeError, match="bool"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=fg.ones(3, 3).astype("int64"))
    with pytest.raises(ValueError, match="dropout_p"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=2.0)
    with pytest.raises(ValueError, match="Paddle"):
        F.scaled_dot_product_attention(
            fg.randn(3, 4), fg.randn(3, 4), fg.randn(3, 4), training=True
        )


# ------------------------------------------------------------------ MultiheadAttention (torch)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("kdim", [None, 3])
def test_multihead_attention_matches_numpy(batch_first, kdim):
    fg.seed(1)
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first, kdim=kdim, vdim=kdim).double()
    names = sorted(m.state_dict())
    if kdim is None:
        assert names == ["in_proj_bias", "in_proj_weight", "out_proj.bias", "out_proj.weight"]
    xq, xkv = RNG.standard_normal((2, 5, 8)), RNG.standard_normal((2, 6, kdim or 8))
    kpm = np.zeros((2, 6), bool)
    kpm[0, 4:] = True
    am = RNG.random((5, 6)) > 0.7  # True = leave out
    keep = ~am[None, None] & ~kpm[:, None, None, :]
    want, want_w = ref_mha(xq, xkv, xkv, *torch_mha_params(m), heads=2, keep=keep)
    sw = (lambda a: a) if batch_first else (lambda a: np.swapaxes(a, 0, 1))
    out, w = m(t(sw(xq)), t(sw(xkv)), t(sw(xkv)), key_padding_mask=t(kpm), attn_mask=t(am))
    close(out, sw(want))
    close(w, want_w.mean(1))
    out, w = m(t(sw(xq)), t(sw(xkv)), t(sw(xkv)), attn_mask=t(am), average_attn_weights=False)
    keep2 = np.broadcast_to(~am, (2, 2, 5, 6))
    close(w, ref_mha(xq, xkv, xkv, *torch_mha_params(m), heads=2, keep=keep2)[1])
    out, w = m(t(sw(xq)), t(sw(xkv)), t(sw(xkv)), need_weights=False)
    assert w is None


def test_multihead_attention_float_and_3d_masks_and_unbatched():
    m = nn.MultiheadAttention(6, 3).double()
    x = RNG.standard_normal((4, 2, 6))  # [L, N, E]
    bias = RNG.standard_normal((2 * 3, 4, 4))
    out, _ = m(t(x), t(x), t(x), attn_mask=t(bias))
    xb = x.transpose(1, 0, 2)
    want, _ = ref_mha(xb, xb, xb, *torch_mha_params(m), heads=3, bias=bias.reshape(2, 3, 4, 4))
    close(out, want.transpose(1, 0, 2))
    kpm_f = RNG.standard_normal((2, 4))
    out, _ = m(t(x), t(x), t(x), key_padding_mask=t(kpm_f))
    want, _ = ref_mha(xb, xb, xb, *torch_mha_params(m), heads=3, bias=kpm_f[:, None, None, :])
    close(out, want.transpose(1, 0, 2))
    u = RNG.standard_normal((4, 6))
    out, w = m(t(u), t(u), t(u))
    want, ww = ref_mha(u[None], u[None], u[None], *torch_mha_params(m), heads=3)
    close(out, want[0])
    close(w, ww.mean(1)[0])


def test_multihead_attention_gradcheck():
    m = nn.MultiheadAttention(4, 2, batch_first=True).double()
    x = t(RNG.standard_normal((2, 3, 4)), True)
    mask = t(np.triu(np.ones((3, 3), bool), 1))
    assert fg.autograd.gradcheck(lambda x: m(x, x, x, attn_mask=mask)[0], (x,))
    assert fg.autograd.gradgradcheck(lambda x: m(x, x, x, attn_mask=mask)[0], (x,))
    out, _ = m(x, x, x)
    out.sum().backward()
    assert m.in_proj_weight.grad is not None and m.out_proj.weight.grad is not None


def test_multihead_attention_dropout_p1_zeroes_attention_in_training():
    m = nn.MultiheadAttention(4, 2, dropout=1.0).double()
    x = t(RNG.standard_normal((3, 2, 4)))
    out, _ = m(x, x, x)
    close(out, np.broadcast_to(m.out_proj.bias.numpy(), (3, 2, 4)))
    m.eval()
    out, _ = m(x, x, x)
    assert np.abs(out.numpy()).sum() > 0


def test_multihead_attention_bad_input():
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(6, 4)
    m = nn.MultiheadAttention(4, 2)
    x = fg.randn(3, 2, 4)
    with pytest.raises(ValueError, match="is_causal"):
        m(x, x, x, is_causal=True)
    with pytest.raises(ValueError, match="attn_mask"):
        m(x, x, x, attn_mask=fg.ones(2, 3).astype("bool"))
    with pytest.raises(ValueError, match="key_padding_mask"):
        m(x, x, x, key_padding_mask=fg.ones(3, 2).astype("bool"))
    with pytest.raises(ValueError, match="feature sizes"):
        m(fg.randn(3, 2, 5), x, x)
    # add_bias_kv / add_zero_attn are supported since session 20 (test_diff20_torch_layers)


# ------------------------------------------------------------------ MultiHeadAttention (Paddle)


def test_paddle_multihead_attention_matches_numpy():
    fg.seed(3)
    m = nn.MultiHeadAttention(8, 2, need_weights=True).double()
    assert sorted(m.state_dict())[:2] == ["k_proj.bias", "k_proj.weight"]
    x = RNG.standard_normal((2, 5, 8))
    keep = RNG.random((2, 1, 5, 5)) > 0.3  # True = attend
    out, w = m(t(x), attn_mask=t(keep))
    want, want_w = ref_mha(x, x, x, *paddle_mha_params(m), heads=2, keep=keep)
    close(out, want)
    close(w, want_w)
    m.need_weights = False
    mem = RNG.standard_normal((2, 4, 8))
    bias = RNG.standard_normal((5, 4))
    got = m(t(x), t(mem), t(mem), t(bias))
    close(got, ref_mha(x, mem, mem, *paddle_mha_params(m), heads=2, bias=bias)[0])


def test_paddle_multihead_attention_kdim_vdim_and_errors():
    m = nn.MultiHeadAttention(4, 2, kdim=3, vdim=5).double()
    x, k, v = (
        RNG.standard_normal((2, 3, 4)),
        RNG.standard_normal((2, 6, 3)),
        RNG.standard_normal((2, 6, 5)),
    )
    close(m(t(x), t(k), t(v)), ref_mha(x, k, v, *paddle_mha_params(m), heads=2)[0])
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiHeadAttention(5, 2)
    with pytest.raises(ValueError, match="batch, seq"):
        m(fg.randn(3, 4))
