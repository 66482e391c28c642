"""Paddle code gets Paddle's parameter layouts and `F.linear` rule (issue #17).

`paddle.nn.functional.linear(x, W, b)` is `x @ W + b` with `W` `[in, out]`; PyTorch's
is `x @ W.T + b` with `W` `[out, in]`. An `nn.Linear` built by Paddle code stores
`[in, out]` (so a Paddle `.pdparams` loads unchanged), and keeps that layout whoever
calls it. Each snippet runs as a module of its own whose globals name ferrograd the way
a ported program does (see test_shared_spellings.py).
"""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

X = np.array([[1.0, 2.0], [3.0, -1.0]])
W = np.array([[0.5, -1.0], [2.0, 0.25]])  # square: the wrong rule gives no shape error
B = np.array([0.1, -0.2])
# paddle 3.3.1: paddle.nn.functional.linear(X, W, B)
PADDLE_OUT = np.array([[4.6, -0.7], [-0.4, -3.45]])


def _run(src: str, name: str | None, **names) -> dict:
    """Runs `src` as a module whose globals name ferrograd `name` (None: `fg`)."""
    g: dict = {"__name__": "user_script", "np": np, **names}
    g[name or "fg"] = fg
    exec(compile(src, "<user_script>", "exec"), g)
    return g


def test_paddle_functional_linear_takes_in_out_weights():
    src = (
        "F = paddle.nn.functional\n"
        "y = F.linear(paddle.to_tensor(X), paddle.to_tensor(W), paddle.to_tensor(B))\n"
        "z = F.linear(paddle.to_tensor(X3), paddle.to_tensor(W34))\n"
    )
    x3, w34 = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4) / 10
    g = _run(src, "paddle", X=X, W=W, B=B, X3=x3, W34=w34)
    np.testing.assert_allclose(g["y"].numpy(), PADDLE_OUT, rtol=0, atol=1e-12)
    np.testing.assert_allclose(g["z"].numpy(), x3 @ w34, rtol=0, atol=1e-12)
    # the same call in PyTorch code (and in neutral code) keeps PyTorch's [out, in]
    src = "y = torch.nn.functional.linear(torch.tensor(X), torch.tensor(W), torch.tensor(B))"
    g = _run(src, "torch", X=X, W=W, B=B)
    np.testing.assert_allclose(g["y"].numpy(), X @ W.T + B, rtol=0, atol=1e-12)
    y = fg.nn.functional.linear(fg.tensor(X), fg.tensor(W), fg.tensor(B))
    np.testing.assert_allclose(y.numpy(), X @ W.T + B, rtol=0, atol=1e-12)


def test_paddle_linear_shape_error_names_the_layout():
    src = "paddle.nn.functional.linear(paddle.ones([2, 3]), paddle.ones([4, 3]))"
    with pytest.raises(ValueError, match=r"\[in_features, out_features\].*\[4, 3\]"):
        _run(src, "paddle")


def test_paddle_functional_linear_gradients():
    src = (
        "x = paddle.to_tensor(X, stop_gradient=False)\n"
        "w = paddle.to_tensor(W, stop_gradient=False)\n"
        "paddle.nn.functional.linear(x, w).sum().backward()\n"
    )
    g = _run(src, "paddle", X=X, W=W)
    np.testing.assert_allclose(g["w"].grad.numpy(), X.T @ np.ones((2, 2)), atol=1e-12)
    np.testing.assert_allclose(g["x"].grad.numpy(), np.ones((2, 2)) @ W.T, atol=1e-12)


def test_linear_layout_follows_the_constructing_code():
    g = _run("lin = paddle.nn.Linear(3, 5)", "paddle")
    assert list(g["lin"].weight.shape) == [3, 5] and g["lin"].weight_layout == "in_out"
    assert np.all(g["lin"].bias.numpy() == 0)  # Paddle's init: zero bias
    assert np.abs(g["lin"].weight.numpy()).max() <= np.sqrt(6 / 8)  # Xavier uniform
    g = _run("lin = torch.nn.Linear(3, 5)", "torch")
    assert list(g["lin"].weight.shape) == [5, 3] and g["lin"].weight_layout == "out_in"
    assert list(fg.nn.Linear(3, 5).weight.shape) == [5, 3]  # neutral code: PyTorch's
    # Paddle's initializer classes read the fans from [in, out] (paddle 3.3.1: fan_in = 100)
    src = (
        "init = paddle.nn.initializer.KaimingUniform()\n"
        "lin = paddle.nn.Linear(100, 4000, weight_attr=paddle.ParamAttr(initializer=init))\n"
    )
    w = _run(src, "paddle")["lin"].weight.numpy()
    bound = np.sqrt(6.0 / 100)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound


def test_paddle_subclass_and_sequential_take_paddle_layout():
    src = (
        "class Net(paddle.nn.Layer):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU())\n"
        "        self.out = paddle.nn.Linear(4, 2)\n"
        "    def forward(self, x):\n"
        "        return self.out(self.fc(x))\n"
        "net = Net()\n"
    )
    g = _run(src, "paddle")
    sd = {k: list(v.shape) for k, v in g["net"].state_dict().items()}
    assert sd == {"fc.0.weight": [3, 4], "fc.0.bias": [4], "out.weight": [4, 2], "out.bias": [2]}


def test_the_layer_keeps_its_layout_whoever_calls_it():
    g = _run("lin = paddle.nn.Linear(2, 2)", "paddle")
    lin = g["lin"]
    w, b = lin.weight.numpy().astype(np.float64), lin.bias.numpy()
    x = np.array([[1.0, -2.0], [0.5, 3.0]], dtype=np.float32)
    for name in ("torch", "paddle", None):  # the forward caller's dialect plays no part
        h = _run("y = lin(fg.tensor(x))", name, lin=lin, x=x, fg=fg)
        np.testing.assert_allclose(h["y"].numpy(), x @ w + b, rtol=1e-6, atol=1e-6)
    g = _run("lin = torch.nn.Linear(2, 2)", "torch")
    w, b = g["lin"].weight.numpy().astype(np.float64), g["lin"].bias.numpy()
    h = _run("y = lin(paddle.to_tensor(x))", "paddle", lin=g["lin"], x=x)
    np.testing.assert_allclose(h["y"].numpy(), x @ w.T + b, rtol=1e-6, atol=1e-6)


def _paddle_checkpoint(seed: int = 0) -> dict:
    """What `paddle.save(net.state_dict())` holds for Linear(3, 4) -> ReLU -> Linear(4, 2):
    `[in, out]` weights (here drawn with NumPy)."""
    rng = np.random.default_rng(seed)
    return {
        "0.weight": rng.standard_normal((3, 4)).astype(np.float32),
        "0.bias": rng.standard_normal(4).astype(np.float32),
        "2.weight": rng.standard_normal((4, 2)).astype(np.float32),
        "2.bias": rng.standard_normal(2).astype(np.float32),
    }


def test_a_paddle_checkpoint_loads_into_paddle_code_and_computes(tmp_path):
    ckpt = _paddle_checkpoint()
    path = str(tmp_path / "mlp.pdparams")
    fg.save({k: fg.tensor(v) for k, v in ckpt.items()}, path)
    src = (
        "net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(),\n"
        "                           paddle.nn.Linear(4, 2))\n"
        "missing, unexpected = net.set_state_dict(paddle.load(path))\n"
        "y = net(paddle.to_tensor(x))\n"
        "sd = net.state_dict()\n"
        "net2 = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(),\n"
        "                            paddle.nn.Linear(4, 2))\n"
        "net2.set_state_dict(sd)\n"
        "y2 = net2(paddle.to_tensor(x))\n"
    )
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
    g = _run(src, "paddle", path=path, x=x)
    assert list(g["missing"]) == [] and list(g["unexpected"]) == []
    h = np.maximum(x @ ckpt["0.weight"] + ckpt["0.bias"], 0)
    want = h @ ckpt["2.weight"] + ckpt["2.bias"]
    np.testing.assert_allclose(g["y"].numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g["y2"].numpy(), want, rtol=1e-6, atol=1e-6)  # round trip


def test_loading_the_other_peers_layout_names_both_shapes_and_the_rule():
    ckpt = {"weight": np.zeros((3, 5), np.float32), "bias": np.zeros(5, np.float32)}
    g = _run("lin = torch.nn.Linear(3, 5)", "torch")
    with pytest.raises(ValueError, match=r"\[3, 5\].*\[5, 3\].*PyTorch.*Paddle"):
        g["lin"].load_state_dict(ckpt)
    g = _run("lin = paddle.nn.Linear(3, 5)", "paddle")
    torch_ckpt = {"weight": np.zeros((5, 3), np.float32), "bias": np.zeros(5, np.float32)}
    with pytest.raises(ValueError, match=r"\[5, 3\].*\[3, 5\].*built by Paddle code"):
        g["lin"].set_state_dict(torch_ckpt)


def test_paddle_prelu_and_bilinear_have_paddles_names_and_shapes():
    # paddle 3.3.1: PReLU's parameter is `_weight`; Bilinear's bias is [1, out], zero at first
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    slopes = np.array([0.1, -0.5, 2.0], np.float32)
    w = rng.standard_normal((2, 3, 4)).astype(np.float32)
    bias = np.array([[0.5, -1.0]], np.float32)
    src = (
        "prelu = paddle.nn.PReLU(3)\n"
        "bil = paddle.nn.Bilinear(3, 4, 2)\n"
        "fresh = {k: list(v.shape) for m in (prelu, bil) for k, v in m.state_dict().items()}\n"
        "zero_bias = bool((bil.bias.numpy() == 0).all())\n"
        "prelu.set_state_dict({'_weight': slopes})\n"
        "bil.set_state_dict({'weight': w, 'bias': bias})\n"
        "y = prelu(paddle.to_tensor(x))\n"
        "z = bil(paddle.to_tensor(a), paddle.to_tensor(b))\n"
    )
    g = _run(src, "paddle", x=x, a=a.astype(np.float32), b=b.astype(np.float32), slopes=slopes,
             w=w, bias=bias)  # fmt: skip
    assert g["fresh"] == {"_weight": [3], "weight": [2, 3, 4], "bias": [1, 2]}
    assert g["zero_bias"]
    s = slopes.reshape(1, 3, 1)
    np.testing.assert_allclose(g["y"].numpy(), np.where(x > 0, x, s * x), rtol=1e-6)
    want = np.einsum("ni,oij,nj->no", a, w, b) + bias
    np.testing.assert_allclose(g["z"].numpy(), want, rtol=1e-5, atol=1e-5)
    g = _run("prelu = torch.nn.PReLU(3); bil = torch.nn.Bilinear(3, 4, 2)", "torch")
    assert list(g["prelu"].state_dict()) == ["weight"] and list(g["bil"].bias.shape) == [2]
