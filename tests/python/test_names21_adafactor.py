"""optim.Adafactor: 10 float64 steps of a small model (a 2-D weight, a 1-D bias, a 3-D
tensor: factored and unfactored second moments) against a NumPy float64 transcription of
PyTorch's rule and against trajectories recorded on torch 2.15 (same inputs; the NumPy
rule reproduced torch's to 4e-15 relative for every option below); options, state_dict
round trip, bad input."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


def np_adafactor(
    params,
    grads_fn,
    steps,
    lr=1e-2,
    beta2_decay=-0.8,
    eps=(None, 1e-3),
    d=1.0,
    weight_decay=0.0,
    maximize=False,
):
    """NumPy float64 Adafactor (PyTorch 2.5's rule); grads_fn(params) -> grads."""
    params = [p.copy() for p in params]
    state = [{} for _ in params]
    traj = []
    for t in range(1, steps + 1):
        grads = grads_fn(params)
        for p, g, st in zip(params, grads, state):
            g = -g if maximize else g
            eps1 = np.finfo(p.dtype).eps if eps[0] is None else eps[0]
            w = t**beta2_decay
            rho = min(lr, 1 / np.sqrt(t))
            alpha = max(eps[1], np.linalg.norm(p) / np.sqrt(p.size)) * rho
            p *= 1 - lr * weight_decay
            if p.ndim > 1:
                r = st.setdefault("row_var", np.zeros(p.shape[:-1] + (1,)))
                c = st.setdefault("col_var", np.zeros(p.shape[:-2] + (1, p.shape[-1])))
                r += w * ((g * g).mean(-1, keepdims=True) - r)
                c += w * ((g * g).mean(-2, keepdims=True) - c)
                v = r @ c / np.maximum(r.mean(-2, keepdims=True), eps1)
            else:
                var = st.setdefault("variance", np.zeros(p.shape))
                var += w * (g * g - var)
                v = var
            u = g / np.sqrt(np.maximum(v, eps1 * eps1))
            p -= alpha / max(1.0, np.linalg.norm(u) / (np.sqrt(u.size) * d)) * u
        traj.append([p.copy() for p in params])
    return traj, state


def model_grads(X, Y):
    def grads(ps):
        W, b, T3 = ps
        r = X @ W + b - Y
        gr = 2 * r / r.size
        return [X.T @ gr, gr.sum(0), 0.3 * T3**2]

    return grads


rng = np.random.default_rng(0)
W0, B0, T0 = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(2, 3, 2))
X, Y = rng.normal(size=(5, 4)), rng.normal(size=(5, 3))

# final values after 10 steps, recorded on torch 2.15 (torch.optim.Adafactor, float64)
TORCH_W_DEFAULT = [[0.18253471522826883, -0.1081490539940314, 0.5622222636842903], [0.047045848505937585, -0.4738689777829685, 0.2875903723457417], [1.3571444997618982, 0.8093453996745099, -0.6223171933970876], [-1.20016247143982, -0.621519038058101, 0.003714905627973779]]  # fmt: skip
TORCH_B_OPTIONS = [-1.621527503073513, -0.05043376487119922, -0.6113730555045761]
TORCH_T_MAXIMIZE = [[[-0.6491106579681687, -0.4113864959378505], [-0.28371447275528777, 0.7782171654655721], [1.1428808329498432, -0.12396768496028301]], [[1.4742231188325983, -0.6259984148957269], [0.36646936858310014, 1.100868620691488], [0.09602194653226939, -0.5739686800894922]]]  # fmt: skip
TORCH_STATE0 = {"row_var": [[0.16512178106932007], [0.29299824001896035], [0.10786299521203106], [0.5133344319927929]], "col_var": [[0.6611518055491217, 0.004912976321634298, 0.14342330434907227]]}  # fmt: skip

OPTIONS = [
    {},
    {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-30, 1e-2), "d": 1.5, "weight_decay": 0.1},
    {"maximize": True, "lr": 0.02, "foreach": False},
    {"eps": (0.1, 0.0), "d": 1.0, "lr": 1.0, "foreach": True},
]


def run_fg(steps=10, **kw):
    ps = [fg.nn.Parameter(fg.tensor(a, dtype=fg.float64)) for a in (W0, B0, T0)]
    opt = fg.optim.Adafactor(ps, **kw)
    x, y = fg.tensor(X, dtype=fg.float64), fg.tensor(Y, dtype=fg.float64)
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        w, b, t3 = ps
        loss = ((x @ w + b - y) ** 2).mean() + (t3**3).sum() * 0.1
        loss.backward()
        opt.step()
        traj.append([p.detach().numpy().copy() for p in ps])
    return traj, opt, ps


@pytest.mark.parametrize("kw", OPTIONS)
def test_trajectory_matches_the_numpy_rule(kw):
    traj, _, _ = run_fg(**kw)
    ref_kw = {k: v for k, v in kw.items() if k != "foreach"}
    ref, _ = np_adafactor([W0, B0, T0], model_grads(X, Y), 10, **ref_kw)
    for got, want in zip(traj, ref):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13)


def test_final_values_match_torch():
    traj, opt, ps = run_fg()
    np.testing.assert_allclose(traj[-1][0], TORCH_W_DEFAULT, rtol=1e-13)
    st = opt.state[ps[0]]
    assert int(st["step"]) == 10 and set(st) == {"step", "row_var", "col_var"}
    for name, want in TORCH_STATE0.items():
        np.testing.assert_allclose(st[name].numpy(), want, rtol=1e-13)
    assert list(opt.state[ps[1]]["variance"].shape) == [3]
    assert list(opt.state[ps[2]]["row_var"].shape) == [2, 3, 1]
    assert list(opt.state[ps[2]]["col_var"].shape) == [2, 1, 2]
    np.testing.assert_allclose(run_fg(**OPTIONS[1])[0][-1][1], TORCH_B_OPTIONS, rtol=1e-13)
    np.testing.assert_allclose(run_fg(**OPTIONS[2])[0][-1][2], TORCH_T_MAXIMIZE, rtol=1e-13)


def test_state_dict_round_trip_continues_the_trajectory():
    _, opt, ps = run_fg(steps=4, **OPTIONS[1])
    sd = opt.state_dict()
    assert sd["param_groups"][0]["eps"] == (1e-30, 1e-2)
    assert sd["param_groups"][0]["d"] == 1.5 and sd["param_groups"][0]["beta2_decay"] == -0.5
    ps2 = [fg.nn.Parameter(p.detach().clone()) for p in ps]
    opt2 = fg.optim.Adafactor(ps2)
    opt2.load_state_dict(sd)
    x, y = fg.tensor(X, dtype=fg.float64), fg.tensor(Y, dtype=fg.float64)
    for params, o in ((ps, opt), (ps2, opt2)):
        o.zero_grad()
        w, b, t3 = params
        (((x @ w + b - y) ** 2).mean() + (t3**3).sum() * 0.1).backward()
        o.step()
    for a, b in zip(ps, ps2):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    bad = opt.state_dict()
    bad["state"][0]["row_var"] = fg.zeros([3, 1], dtype=fg.float64)
    with pytest.raises(ValueError, match="row_var"):
        opt2.load_state_dict(bad)


def test_float32_uses_its_own_epsilon_and_bad_options_raise():
    p = fg.nn.Parameter(fg.tensor([[1.0, -2.0], [0.5, 0.0]]))
    p.grad = fg.tensor([[0.0, 0.0], [0.0, 0.0]])
    fg.optim.Adafactor([p]).step()  # zero gradient: eps1 (float32's) keeps it finite
    assert np.isfinite(p.detach().numpy()).all()
    with pytest.raises(ValueError, match="beta2_decay"):
        fg.optim.Adafactor([p], beta2_decay=0.5)
    with pytest.raises(ValueError, match="d should be >= 1"):
        fg.optim.Adafactor([p], d=0.5)
    with pytest.raises(ValueError, match="epsilon1"):
        fg.optim.Adafactor([p], eps=(-1.0, 1e-3))
    with pytest.raises(ValueError, match="epsilon2"):
        fg.optim.Adafactor([p], eps=(None, -1.0))
    with pytest.raises(TypeError, match="pair"):
        fg.optim.Adafactor([p], eps=1e-3)
    with pytest.raises(ValueError, match="learning rate"):
        fg.optim.Adafactor([p], lr=-1.0)
    with pytest.raises(ValueError, match="weight_decay"):
        fg.optim.Adafactor([p], weight_decay=-0.1)
    c = fg.nn.Parameter(fg.tensor([1.0 + 1.0j]))
    c.grad = fg.tensor([1.0 + 0.0j])
    with pytest.raises(TypeError, match="complex"):
        fg.optim.Adafactor([c]).step()
