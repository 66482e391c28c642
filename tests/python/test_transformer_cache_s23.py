"""Paddle's incremental-decoding caches (issue #17): ``MultiHeadAttention.Cache`` /
``StaticCache``, ``gen_cache`` and ``cache=`` of ``MultiHeadAttention``,
``TransformerEncoderLayer`` / ``TransformerEncoder`` and ``TransformerDecoderLayer`` /
``TransformerDecoder``. Decoding step by step with a cache must give the rows of one
causal pass over the whole sequence (float64); the same runs matched Paddle 3.3.1 to
float32 rounding (2e-6) with shared weights."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

RNG = np.random.default_rng(7)
D, H = 8, 2


def t64(a, grad=False):
    return paddle.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def causal_mask(n):
    return paddle.nn.Transformer.generate_square_subsequent_mask(n).astype("float64")


def test_mha_incremental_cache_equals_one_causal_pass():
    mha = paddle.nn.MultiHeadAttention(D, H).double()
    x = t64(RNG.standard_normal((2, 4, D)))
    full = mha(x, attn_mask=causal_mask(4)).numpy()
    cache = mha.gen_cache(x)
    assert isinstance(cache, mha.Cache) and list(cache.k.shape) == [2, H, 0, D // H]
    for t in range(4):
        out, cache = mha(x[:, t : t + 1], cache=cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], rtol=1e-10, atol=1e-12)
        assert isinstance(cache, paddle.nn.MultiHeadAttention.Cache)
        assert list(cache.k.shape) == [2, H, t + 1, D // H]


def test_mha_static_cache_and_value_default():
    mha = paddle.nn.MultiHeadAttention(D, H).double()
    q, mem = t64(RNG.standard_normal((2, 3, D))), t64(RNG.standard_normal((2, 5, D)))
    static = mha.gen_cache(mem, mem, type=mha.StaticCache)
    out, same = mha(q, cache=static)  # key and value are ignored with a StaticCache
    assert same is static
    np.testing.assert_allclose(out.numpy(), mha(q, mem, mem).numpy(), rtol=1e-10, atol=1e-12)
    # Paddle's default: value is the query when not given (not the key)
    k = t64(RNG.standard_normal((2, 3, D)))
    np.testing.assert_allclose(mha(q, k).numpy(), mha(q, k, q).numpy(), rtol=1e-12)
    given = mha.gen_cache(static.k, static.v)  # a Cache holding given tensors
    assert isinstance(given, mha.Cache) and given.k is static.k
    weighted = paddle.nn.MultiHeadAttention(D, H, need_weights=True).double()
    out, w, c = weighted(q, cache=weighted.gen_cache(q))
    assert list(w.shape) == [2, H, 3, 3] and list(c.k.shape) == [2, H, 3, D // H]


def test_mha_cache_gradients():
    mha = paddle.nn.MultiHeadAttention(4, 2).double()
    q = t64(RNG.standard_normal((1, 1, 4)), grad=True)
    ck = t64(RNG.standard_normal((1, 2, 3, 2)), grad=True)
    cv = t64(RNG.standard_normal((1, 2, 3, 2)), grad=True)
    assert gradcheck(lambda q, k, v: mha(q, cache=mha.Cache(k, v))[0], (q, ck, cv))


@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_incremental_equals_causal_pass(normalize_before):
    layer = paddle.nn.TransformerDecoderLayer(
        D, H, 16, dropout=0.0, normalize_before=normalize_before
    )
    dec = paddle.nn.TransformerDecoder(layer, 2, paddle.nn.LayerNorm(D)).double()
    dec.eval()
    tgt, mem = t64(RNG.standard_normal((2, 4, D))), t64(RNG.standard_normal((2, 5, D)))
    full = dec(tgt, mem, tgt_mask=causal_mask(4)).numpy()
    cache = dec.gen_cache(mem)
    assert len(cache) == 2 and isinstance(cache[0][1], paddle.nn.MultiHeadAttention.StaticCache)
    for t in range(4):
        if t % 2:  # Paddle's positional order (tgt, memory, tgt_mask, memory_mask, cache)
            out, cache = dec(tgt[:, t : t + 1], mem, None, None, cache)
        else:
            out, cache = dec(tgt[:, t : t + 1], mem, cache=cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], rtol=1e-9, atol=1e-12)
    zipped = dec.gen_cache(mem, do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2
    assert isinstance(zipped[1][0], paddle.nn.MultiHeadAttention.StaticCache)
    one, new = dec.layers[0](tgt[:, :1], mem, cache=dec.layers[0].gen_cache(mem))
    assert list(new[0].k.shape) == [2, H, 1, D // H]


def test_encoder_incremental_equals_causal_pass():
    layer = paddle.nn.TransformerEncoderLayer(D, H, 16, dropout=0.0, normalize_before=True)
    enc = paddle.nn.TransformerEncoder(layer, 2).double()
    enc.eval()
    src = t64(RNG.standard_normal((2, 3, D)))
    full = enc(src, causal_mask(3)).numpy()
    cache = enc.gen_cache(src)
    for t in range(3):
        out, cache = enc(src[:, t : t + 1], None, cache)  # Paddle's (src, src_mask, cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], rtol=1e-9, atol=1e-12)
    out, c = enc.layers[0](src[:, :1], None, enc.layers[0].gen_cache(src))
    assert list(c.k.shape) == [2, H, 1, D // H]


def test_cache_errors():
    mha = paddle.nn.MultiHeadAttention(D, H)
    x = paddle.randn([1, 2, D])
    with pytest.raises(TypeError, match="must be a MultiHeadAttention.Cache or StaticCache"):
        mha(x, cache=(x, x))
    with pytest.raises(TypeError, match="type must be MultiHeadAttention.Cache"):
        mha.gen_cache(x, type=tuple)
    layer = paddle.nn.TransformerDecoderLayer(D, H, 16, normalize_before=False)
    dec = paddle.nn.TransformerDecoder(layer, 2)
    with pytest.raises(ValueError, match="one entry per layer \\(2\\)"):
        dec(x, x, cache=dec.gen_cache(x)[:1])
    torch_layer = paddle.nn.TransformerEncoderLayer(D, H, 16, batch_first=True)
    with pytest.raises(TypeError, match="built in PyTorch's dialect"):
        torch_layer(x, cache=mha.gen_cache(x))
    with pytest.raises(TypeError, match="built in PyTorch's dialect"):
        torch_layer.gen_cache(x)
