"""Transformer layers in both dialects against a NumPy float64 reference (post- and
pre-norm, masks, encoder/decoder stacks), gradcheck/gradgradcheck, and
``nn.Embedding``'s ``padding_idx``."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from attention_ref import paddle_mha_params, ref_mha, torch_mha_params
from ferrograd import nn

RNG = np.random.default_rng(13)


def t(a, grad=False):
    a = np.asarray(a)
    return fg.tensor(a if a.dtype == bool else a.astype(np.float64), requires_grad=grad)


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(a.numpy() if hasattr(a, "numpy") else a, b, atol=tol, rtol=tol)


def ln(x, mod):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * mod.weight.numpy() + mod.bias.numpy()


def lin(x, mod):
    w = mod.weight.numpy()  # the layer's own layout: Paddle's [in, out] or PyTorch's [out, in]
    return x @ (w if mod.weight_layout == "in_out" else w.T) + mod.bias.numpy()


def ff(x, layer, act=lambda a: np.maximum(a, 0)):
    return lin(act(lin(x, layer.linear1)), layer.linear2)


def attn(mod, xq, xkv, keep=None, bias=None):
    params = paddle_mha_params(mod) if hasattr(mod, "q_proj") else torch_mha_params(mod)
    return ref_mha(xq, xkv, xkv, *params, heads=mod.num_heads, keep=keep, bias=bias)[0]


def ref_encoder_layer(layer, x, keep=None):
    """Batch-first NumPy encoder layer (dropout off)."""
    sa = layer.self_attn
    if layer.norm_first:
        h = ln(x, layer.norm1)
        x = x + attn(sa, h, h, keep)
        return x + ff(ln(x, layer.norm2), layer)
    x = ln(x + attn(sa, x, x, keep), layer.norm1)
    return ln(x + ff(x, layer), layer.norm2)


def ref_decoder_layer(layer, x, mem, keep=None):
    cross = layer.cross_attn if hasattr(layer, "cross_attn") else layer.multihead_attn
    if layer.norm_first:
        h = ln(x, layer.norm1)
        x = x + attn(layer.self_attn, h, h, keep)
        h = ln(x, layer.norm2)
        x = x + attn(cross, h, mem)
        return x + ff(ln(x, layer.norm3), layer)
    x = ln(x + attn(layer.self_attn, x, x, keep), layer.norm1)
    x = ln(x + attn(cross, x, mem), layer.norm2)
    return ln(x + ff(x, layer), layer.norm3)


CAUSAL_OUT = np.triu(np.ones((5, 5), bool), 1)  # torch: True = leave out


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_torch_encoder_layer_matches_numpy(norm_first, batch_first):
    fg.seed(0)
    layer = nn.TransformerEncoderLayer(
        8, 2, 16, 0.0, batch_first=batch_first, norm_first=norm_first
    ).double()
    x = RNG.standard_normal((2, 5, 8))
    want = ref_encoder_layer(layer, x, keep=~CAUSAL_OUT)
    sw = (lambda a: a) if batch_first else (lambda a: np.swapaxes(a, 0, 1))
    close(layer(t(sw(x)), src_mask=t(CAUSAL_OUT)), sw(want))


def test_torch_decoder_layer_and_stacks_match_numpy():
    fg.seed(1)
    dec = nn.TransformerDecoderLayer(8, 2, 16, 0.0, batch_first=True).double()
    x, mem = RNG.standard_normal((2, 5, 8)), RNG.standard_normal((2, 4, 8))
    causal = nn.Transformer.generate_square_subsequent_mask(5).double()
    close(dec(t(x), t(mem), tgt_mask=causal), ref_decoder_layer(dec, x, mem, keep=~CAUSAL_OUT))
    stack = nn.TransformerDecoder(dec, 2, norm=nn.LayerNorm(8).double())
    a, b = stack.layers[0], stack.layers[1]
    close(a.linear1.weight, b.linear1.weight.numpy())  # deep copies (PyTorch)
    assert a.linear1.weight is not b.linear1.weight
    want = x
    for layer in stack.layers:
        want = ref_decoder_layer(layer, want, mem, keep=~CAUSAL_OUT)
    close(stack(t(x), t(mem), tgt_mask=causal), ln(want, stack.norm))
    enc = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, 0.0, norm_first=True).double(), 3
    )
    want = x
    for layer in enc.layers:
        want = ref_encoder_layer(layer, want)
    close(enc(t(x.transpose(1, 0, 2))), want.transpose(1, 0, 2))


def test_encoder_key_padding_mask():
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True).double()
    x = RNG.standard_normal((2, 5, 8))
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3:] = True
    # a one-layer stack holds a deep copy of `layer`: the same weights
    got = nn.TransformerEncoder(layer, 1)(t(x), src_key_padding_mask=t(kpm))
    want = ref_encoder_layer(layer, x, keep=~kpm[:, None, None, :])
    close(got, want)


def test_transformer_model_and_xavier_init():
    fg.seed(2)
    model = nn.Transformer(8, 2, 1, 1, 16, 0.0).double()
    src, tgt = RNG.standard_normal((6, 2, 8)), RNG.standard_normal((5, 2, 8))
    causal = nn.Transformer.generate_square_subsequent_mask(5).double()
    out = model(t(src), t(tgt), tgt_mask=causal)
    enc, dec = model.encoder, model.decoder
    mem = ln(ref_encoder_layer(enc.layers[0], src.transpose(1, 0, 2)), enc.norm)
    want = ln(ref_decoder_layer(dec.layers[0], tgt.transpose(1, 0, 2), mem, ~CAUSAL_OUT), dec.norm)
    close(out, want.transpose(1, 0, 2))
    w = model.encoder.layers[0].linear1.weight.numpy()
    bound = np.sqrt(6 / (8 + 16))
    assert np.abs(w).max() <= bound and np.abs(w).max() > bound / 2


def test_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3).numpy()
    assert np.array_equal(np.isinf(m), np.triu(np.ones((3, 3), bool), 1))
    assert np.all(m[np.tril_indices(3)] == 0)


# ------------------------------------------------------------------ Paddle dialect


@pytest.mark.parametrize("normalize_before", [False, True])
def test_paddle_encoder_layer_matches_numpy(normalize_before):
    fg.seed(3)
    layer = nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, normalize_before=normalize_before
    ).double()
    assert isinstance(layer.self_attn, nn.MultiHeadAttention)
    x = RNG.standard_normal((2, 5, 8))  # batch-first
    keep = ~CAUSAL_OUT  # Paddle: True = attend
    close(layer(t(x), t(keep)), ref_encoder_layer(layer, x, keep=keep))
    stack = nn.TransformerEncoder(layer, 2)
    w0, w1 = (lay.linear1.weight.numpy() for lay in stack.layers)
    assert not np.array_equal(w0, w1)  # Paddle builds fresh layers
    want = x
    for lay in stack.layers:
        want = ref_encoder_layer(lay, want, keep=keep)
    close(stack(t(x), t(keep)), want)


def test_paddle_decoder_and_transformer():
    fg.seed(4)
    dec = nn.TransformerDecoderLayer(8, 2, 16, 0.0, "relu", attn_dropout=0.0).double()
    assert hasattr(dec, "cross_attn") and not hasattr(dec, "multihead_attn")
    x, mem = RNG.standard_normal((2, 5, 8)), RNG.standard_normal((2, 4, 8))
    close(dec(t(x), t(mem), t(~CAUSAL_OUT)), ref_decoder_layer(dec, x, mem, keep=~CAUSAL_OUT))
    model = nn.Transformer(8, 2, 1, 1, 16, 0.0, normalize_before=True)
    out = model(fg.randn(2, 6, 8), fg.randn(2, 5, 8))
    assert list(out.shape) == [2, 5, 8]


def test_dropout_active_only_in_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, 0.5, batch_first=True).double()
    x = t(RNG.standard_normal((2, 5, 8)))
    layer.eval()
    close(layer(x), ref_encoder_layer(layer, x.numpy()))
    layer.train()
    fg.seed(0)
    assert not np.allclose(layer(x).numpy(), ref_encoder_layer(layer, x.numpy()))


def test_encoder_layer_gradcheck_and_gradgradcheck():
    layer = nn.TransformerEncoderLayer(4, 2, 6, 0.0, activation="gelu", batch_first=True)
    layer = layer.double()
    x = t(RNG.standard_normal((1, 3, 4)), True)
    mask = t(CAUSAL_OUT[:3, :3])
    assert fg.autograd.gradcheck(lambda x: layer(x, src_mask=mask), (x,))
    assert fg.autograd.gradgradcheck(lambda x: layer(x, src_mask=mask), (x,))


def test_bad_arguments():
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="swish")
    with pytest.raises(ValueError, match="divisible"):
        nn.TransformerEncoderLayer(8, 3, 16)
    with pytest.raises(ValueError, match="num_layers"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 0)
    with pytest.raises(TypeError, match="unexpected"):
        nn.TransformerEncoderLayer(8, 2, 16, batchfirst=True)
    with pytest.raises(ValueError, match="dim_feedforward"):
        nn.TransformerEncoderLayer(8, 2, 0)


# ------------------------------------------------------------------ Embedding padding_idx


def test_embedding_padding_idx_zero_row_and_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=1).double()
    assert np.all(emb.weight.numpy()[1] == 0)
    ids = fg.tensor([[1, 2, 1], [0, 1, 4]])
    out = emb(ids)
    close(out, emb.weight.numpy()[ids.numpy()])
    (out * t(RNG.standard_normal((2, 3, 3)))).sum().backward()
    g = emb.weight.grad.numpy()
    assert np.all(g[1] == 0) and np.all(g[3] == 0) and np.all(g[[0, 2, 4]] != 0)
    neg = nn.Embedding(5, 3, padding_idx=-1)
    assert neg.padding_idx == 4 and np.all(neg.weight.numpy()[4] == 0)
