"""Paddle code's attention and transformer layers have Paddle's `state_dict` (issue #17):
`q_proj`/`k_proj`/`v_proj`/`out_proj` Linear layers in Paddle's layout `[in, out]`, and
`cross_attn` in the decoder, so a Paddle checkpoint loads and computes; PyTorch code keeps
`in_proj_weight` and `multihead_attn`. The expected keys and shapes were listed once from
paddle 3.3.1 and torch; the checkpoints here are drawn with NumPy as Paddle lays them out.
"""

from __future__ import annotations

import ferrograd as fg
import numpy as np
from attention_ref import ref_mha

# paddle 3.3.1: nn.TransformerEncoderLayer(8, 2, 16).state_dict(), {key: shape}
PADDLE_ENC = {
    **{f"self_attn.{p}_proj.weight": [8, 8] for p in "qkvo"},
    **{f"self_attn.{p}_proj.bias": [8] for p in "qkvo"},
    "linear1.weight": [8, 16],
    "linear1.bias": [16],
    "linear2.weight": [16, 8],
    "linear2.bias": [8],
    **{f"norm{i}.{p}": [8] for i in (1, 2) for p in ("weight", "bias")},
}
PADDLE_ENC = {k.replace("o_proj", "out_proj"): v for k, v in PADDLE_ENC.items()}


def _run(src: str, name: str, **names) -> dict:
    """Runs `src` as a module whose globals name ferrograd `name`."""
    g: dict = {"__name__": "user_script", "np": np, name: fg, **names}
    exec(compile(src, "<user_script>", "exec"), g)
    return g


def _shapes(layer) -> dict:
    return {k: list(v.shape) for k, v in layer.state_dict().items()}


def test_paddle_encoder_and_decoder_layers_have_paddles_keys_and_shapes():
    g = _run(
        "enc = paddle.nn.TransformerEncoderLayer(8, 2, 16)\n"
        "dec = paddle.nn.TransformerDecoderLayer(8, 2, 16)\n"
        "tr = paddle.nn.Transformer(8, 2, 1, 1, 16)\n",
        "paddle",
    )
    assert _shapes(g["enc"]) == PADDLE_ENC
    dec = _shapes(g["dec"])
    cross = {k.replace("self_attn", "cross_attn"): v for k, v in PADDLE_ENC.items() if "attn" in k}
    assert dec == {**PADDLE_ENC, **cross, "norm3.weight": [8], "norm3.bias": [8]}
    tr = _shapes(g["tr"])
    assert tr["encoder.layers.0.linear1.weight"] == [8, 16]
    assert tr["decoder.layers.0.cross_attn.k_proj.weight"] == [8, 8]
    assert not any("in_proj" in k or "multihead_attn" in k for k in tr)


def test_pytorch_code_keeps_pytorchs_keys():
    g = _run(
        "enc = torch.nn.TransformerEncoderLayer(8, 2, 16)\n"
        "dec = torch.nn.TransformerDecoderLayer(8, 2, 16)\n"
        "mha = torch.nn.MultiheadAttention(8, 2)\n",
        "torch",
    )
    enc = _shapes(g["enc"])
    assert enc["self_attn.in_proj_weight"] == [24, 8] and enc["linear1.weight"] == [16, 8]
    assert "multihead_attn.in_proj_weight" in _shapes(g["dec"])
    assert _shapes(g["mha"]) == {
        "in_proj_weight": [24, 8],
        "in_proj_bias": [24],
        "out_proj.weight": [8, 8],
        "out_proj.bias": [8],
    }
    # PyTorch's layer keeps PyTorch's layout even when Paddle code builds it
    g = _run("mha = paddle.nn.MultiheadAttention(8, 2)", "paddle")
    assert g["mha"].out_proj.weight_layout == "out_in"


def test_a_paddle_mha_checkpoint_with_kdim_vdim_loads_and_computes():
    rng = np.random.default_rng(5)
    ins = {"q": 8, "k": 4, "v": 6, "out": 8}
    ckpt = {}
    for p, n_in in ins.items():  # Paddle's layout: [in, out]
        ckpt[f"{p}_proj.weight"] = rng.standard_normal((n_in, 8)).astype(np.float32) / 3
        ckpt[f"{p}_proj.bias"] = rng.standard_normal(8).astype(np.float32) / 3
    xq = rng.standard_normal((2, 5, 8)).astype(np.float32)
    xk = rng.standard_normal((2, 3, 4)).astype(np.float32)
    xv = rng.standard_normal((2, 3, 6)).astype(np.float32)
    g = _run(
        "mha = paddle.nn.MultiHeadAttention(8, 2, kdim=4, vdim=6)\n"
        "missing, unexpected = mha.set_state_dict(ckpt)\n"
        "y = mha(paddle.to_tensor(xq), paddle.to_tensor(xk), paddle.to_tensor(xv))\n",
        "paddle",
        ckpt=ckpt,
        xq=xq,
        xk=xk,
        xv=xv,
    )
    assert list(g["missing"]) == [] and list(g["unexpected"]) == []
    c = {k: v.astype(np.float64) for k, v in ckpt.items()}
    params = []
    for p in ins:  # ref_mha takes PyTorch's [out, in]
        params += [c[f"{p}_proj.weight"].T, c[f"{p}_proj.bias"]]
    want, _ = ref_mha(xq, xk, xv, *params, heads=2)
    np.testing.assert_allclose(g["y"].numpy(), want, rtol=1e-5, atol=1e-5)


def test_a_paddle_encoder_checkpoint_loads_and_computes():
    rng = np.random.default_rng(9)
    ckpt = {k: (rng.standard_normal(s) / 3).astype(np.float32) for k, s in PADDLE_ENC.items()}
    x = rng.standard_normal((2, 4, 8)).astype(np.float32)
    g = _run(
        "enc = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)\n"
        "enc.eval()\n"
        "missing, unexpected = enc.set_state_dict(ckpt)\n"
        "y = enc(paddle.to_tensor(x))\n",
        "paddle",
        ckpt=ckpt,
        x=x,
    )
    assert list(g["missing"]) == [] and list(g["unexpected"]) == []
    c = {k: v.astype(np.float64) for k, v in ckpt.items()}

    def ln(a, i):
        mu = a.mean(-1, keepdims=True)
        var = ((a - mu) ** 2).mean(-1, keepdims=True)
        return (a - mu) / np.sqrt(var + 1e-5) * c[f"norm{i}.weight"] + c[f"norm{i}.bias"]

    params = []
    for p in ("q", "k", "v", "out"):
        params += [c[f"self_attn.{p}_proj.weight"].T, c[f"self_attn.{p}_proj.bias"]]
    h = ln(x + ref_mha(x, x, x, *params, heads=2)[0], 1)
    ff = np.maximum(h @ c["linear1.weight"] + c["linear1.bias"], 0)
    want = ln(h + ff @ c["linear2.weight"] + c["linear2.bias"], 2)
    np.testing.assert_allclose(g["y"].numpy(), want, rtol=1e-5, atol=1e-5)
