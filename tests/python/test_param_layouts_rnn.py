"""Paddle code's recurrent layers (issue #17): Paddle's arguments and batch-first input
without any Paddle-only keyword, and Paddle's `state_dict` listing each parameter twice
(`weight_ih_l0` and `0.cell.weight_ih`, the same tensor), so a Paddle checkpoint loads
with no missing or unexpected keys. Keys listed once from paddle 3.3.1; the checkpoint is
drawn with NumPy."""

from __future__ import annotations

import ferrograd as fg
import numpy as np

# paddle 3.3.1: nn.LSTM(3, 4).state_dict(), {key: shape}
PADDLE_LSTM = {
    "weight_ih_l0": [16, 3],
    "weight_hh_l0": [16, 4],
    "bias_ih_l0": [16],
    "bias_hh_l0": [16],
    "0.cell.weight_ih": [16, 3],
    "0.cell.weight_hh": [16, 4],
    "0.cell.bias_ih": [16],
    "0.cell.bias_hh": [16],
}


def _run(src: str, name: str, **names) -> dict:
    """Runs `src` as a module whose globals name ferrograd `name`."""
    g: dict = {"__name__": "user_script", "np": np, name: fg, **names}
    exec(compile(src, "<user_script>", "exec"), g)
    return g


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _ref_lstm(x, wi, wh, bi, bh):
    """Batch-first one-layer LSTM (gates i, f, g, o), zero initial state."""
    n, steps, _ = x.shape
    h = c = np.zeros((n, wh.shape[1]))
    out = []
    for t in range(steps):
        i, f, g, o = np.split(x[:, t] @ wi.T + bi + h @ wh.T + bh, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.stack(out, 1)


def test_paddle_lstm_checkpoint_loads_and_reads_batch_first_input():
    rng = np.random.default_rng(4)
    ckpt = {k: (rng.standard_normal(s) / 2).astype(np.float32) for k, s in PADDLE_LSTM.items()}
    for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):  # one tensor under two keys
        ckpt[f"0.cell.{k}"] = ckpt[f"{k}_l0"]
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    g = _run(
        "lstm = paddle.nn.LSTM(3, 4)\n"
        "fresh = {k: list(v.shape) for k, v in lstm.state_dict().items()}\n"
        "n_params = len(lstm.parameters())\n"
        "missing, unexpected = lstm.set_state_dict(ckpt)\n"
        "y, (h, c) = lstm(paddle.to_tensor(x))\n",
        "paddle",
        ckpt=ckpt,
        x=x,
    )
    assert g["fresh"] == PADDLE_LSTM and list(g["fresh"]) == list(PADDLE_LSTM)
    assert g["n_params"] == 4  # the aliases are the same Parameters
    assert list(g["missing"]) == [] and list(g["unexpected"]) == []
    c = {k: v.astype(np.float64) for k, v in ckpt.items()}
    want = _ref_lstm(x, c["weight_ih_l0"], c["weight_hh_l0"], c["bias_ih_l0"], c["bias_hh_l0"])
    np.testing.assert_allclose(g["y"].numpy(), want, rtol=1e-5, atol=1e-5)  # [batch, time, 4]


def test_bidirectional_gru_has_cell_fw_and_cell_bw_and_pytorch_keeps_its_keys():
    g = _run("gru = paddle.nn.GRU(3, 4, direction='bidirect')", "paddle")
    keys = list(g["gru"].state_dict())
    assert keys[8:] == [
        f"0.{cell}.{p}"
        for cell in ("cell_fw", "cell_bw")
        for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    ]
    g["gru"].to(fg.float64)  # a cast keeps the aliases shared
    assert g["gru"].weight_ih_l0 is getattr(g["gru"], "0").cell_fw.weight_ih
    g = _run("lstm = torch.nn.LSTM(3, 4, 2)", "torch")
    assert list(g["lstm"].state_dict()) == [
        f"{p}_l{i}" for i in (0, 1) for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
    ]
