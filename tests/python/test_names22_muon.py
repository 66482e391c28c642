"""PyTorch's optim.Muon (optim/muon.py) against a NumPy float64 transcription of its
documented update, and loosely against torch 2.15 (which runs the Newton-Schulz iteration
in bfloat16)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

COEF = (3.4445, -4.775, 2.0315)
TORCH_ONE_STEP = [
    [0.4715234375, -1.00603515625, 0.26994140625],
    [1.4688671875, 0.01953125, -0.51908203125],
]


def _ns(g, steps=5, eps=1e-7):
    a, b, c = COEF
    tall = g.shape[0] > g.shape[1]
    x = g.T if tall else g
    x = x / max(np.linalg.norm(x), eps)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


def _reference(p, grads, lr, wd, mom, nesterov, adjust):
    p, buf = p.copy(), np.zeros_like(p)
    rows, cols = p.shape
    scale = {None: np.sqrt(max(1, rows / cols)), "match_rms_adamw": 0.2 * np.sqrt(max(rows, cols)),
             "spectral_unclamped": np.sqrt(rows / cols)}[adjust]  # fmt: skip
    for g in grads:
        buf = buf + (1 - mom) * (g - buf)
        u = g + mom * (buf - g) if nesterov else buf
        p = p * (1 - lr * wd) - lr * scale * _ns(u)
    return p, buf


@pytest.mark.parametrize("shape", [(3, 5), (6, 2)])
@pytest.mark.parametrize(
    ("nesterov", "adjust"), [(True, None), (False, "match_rms_adamw"), (True, "spectral_unclamped")]
)
def test_muon_matches_the_reference(shape, nesterov, adjust):
    rng = np.random.default_rng(0)
    p0 = rng.normal(size=shape)
    grads = [rng.normal(size=shape) for _ in range(3)]
    w = fg.nn.Parameter(fg.tensor(p0))
    opt = fg.optim.Muon([w], lr=0.05, weight_decay=0.1, nesterov=nesterov, adjust_lr_fn=adjust)
    for g in grads:
        w.grad = fg.tensor(g)
        opt.step()
    want, buf = _reference(p0, grads, 0.05, 0.1, 0.95, nesterov, adjust)
    np.testing.assert_allclose(w.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    st = opt.state_dict()["state"][0]
    np.testing.assert_allclose(st["momentum_buffer"].numpy(), buf, rtol=1e-12)


def test_muon_orthogonalizes_and_checks_arguments():
    g = np.random.default_rng(1).normal(size=(4, 4))
    s = np.linalg.svd(_ns(g), compute_uv=False)
    assert 0.5 < s.min() and s.max() < 1.5  # US'V^T with S' near 1, as documented
    with pytest.raises(ValueError, match="2D parameters"):
        fg.optim.Muon([fg.nn.Parameter(fg.ones(3))])
    p = [fg.nn.Parameter(fg.ones(2, 2))]
    with pytest.raises(ValueError, match="not supported"):
        fg.optim.Muon(p, adjust_lr_fn="nope")
    with pytest.raises(ValueError, match="less than 100"):
        fg.optim.Muon(p, ns_steps=100)
    with pytest.raises(ValueError, match="momentum"):
        fg.optim.Muon(p, momentum=-1.0)


def test_muon_close_to_torch():
    # torch 2.15: Muon([w], lr=0.05) for one step from these values (bfloat16 iteration)
    p0 = np.array([[0.5, -1.0, 0.25], [1.5, 0.0, -0.5]])
    g = np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]])
    torch_after = np.array(TORCH_ONE_STEP)
    w = fg.nn.Parameter(fg.tensor(p0))
    w.grad = fg.tensor(g)
    fg.optim.Muon([w], lr=0.05).step()
    np.testing.assert_allclose(w.detach().numpy(), torch_after, atol=2e-3)
