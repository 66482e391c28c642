"""Attention arguments ferrograd refused with NotImplementedError until session 23
(issue #17): ``F.scaled_dot_product_attention(enable_gqa=True)`` (grouped-query
attention: key / value heads repeated to the query's, ``repeat_interleave`` as PyTorch
2.5+ and Paddle 3.3.1 do; on by default in Paddle's layout). Values against NumPy
float64, gradients by gradcheck."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck

F = fg.nn.functional
RNG = np.random.default_rng(11)


def ref_sdpa(q, k, v, causal=False):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], dtype=bool)), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ v


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


@pytest.mark.parametrize(
    "qs, ks, vs",
    [
        ((2, 6, 4, 8), (2, 2, 5, 8), (2, 2, 5, 3)),
        ((2, 6, 4, 8), (2, 2, 5, 8), (2, 3, 5, 3)),  # key and value head counts differ
        ((6, 4, 8), (1, 5, 8), (2, 5, 3)),
        ((1, 2, 4, 3, 5), (1, 2, 4, 3, 5), (1, 2, 4, 3, 5)),  # equal heads: unchanged
    ],
)
def test_sdpa_gqa_values(qs, ks, vs):
    q, k, v = RNG.standard_normal(qs), RNG.standard_normal(ks), RNG.standard_normal(vs)
    out = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), enable_gqa=True)
    hq = qs[-3]
    kr = np.repeat(k, hq // ks[-3], axis=-3)
    vr = np.repeat(v, hq // vs[-3], axis=-3)
    np.testing.assert_allclose(out.numpy(), ref_sdpa(q, kr, vr), rtol=1e-10, atol=1e-12)


def test_sdpa_gqa_causal_and_gradients():
    q, k, v = (RNG.standard_normal(s) for s in ((1, 4, 3, 4), (1, 2, 3, 4), (1, 2, 3, 2)))
    out = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), is_causal=True, enable_gqa=True)
    want = ref_sdpa(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1), causal=True)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-12)
    args = (t64(q, True), t64(k, True), t64(v, True))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), args)


def test_sdpa_gqa_paddle_layout_default_on():
    """Paddle's [batch, seq, heads, dim] (chosen by training=): GQA by default."""
    q, k, v = (RNG.standard_normal(s) for s in ((1, 4, 6, 8), (1, 5, 2, 8), (1, 5, 2, 3)))
    out = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), training=True)
    tq, tk, tv = (np.swapaxes(a, 1, 2) for a in (q, k, v))
    want = ref_sdpa(tq, np.repeat(tk, 3, axis=1), np.repeat(tv, 3, axis=1))
    np.testing.assert_allclose(out.numpy(), np.swapaxes(want, 1, 2), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError):  # Paddle: no GQA when it is switched off
        F.scaled_dot_product_attention(t64(q), t64(k), t64(v), training=True, enable_gqa=False)


def test_sdpa_gqa_errors():
    q, k = t64(RNG.standard_normal((2, 6, 4, 8))), t64(RNG.standard_normal((2, 4, 5, 8)))
    with pytest.raises(ValueError, match="must divide the number of heads in query \\(6\\)"):
        F.scaled_dot_product_attention(q, k, k, enable_gqa=True)
    q2, k2 = t64(RNG.standard_normal((4, 8))), t64(RNG.standard_normal((5, 8)))
    with pytest.raises(ValueError, match="needs a heads dim"):
        F.scaled_dot_product_attention(q2, k2, k2, enable_gqa=True)
    with pytest.raises(ValueError):  # PyTorch's default: no GQA, heads must match
        F.scaled_dot_product_attention(q, k, k)


def test_paddle_code_gets_paddles_layout_without_paddles_arguments():
    # Paddle's [batch, seq, heads, dim]: before, Paddle code without training=/name= got
    # PyTorch's layout silently (a wrong result of the right shape)
    from test_shared_spellings import _run

    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((2, 5, 3, 4)) for _ in range(3))
    g = _run(
        "import ferrograd.nn.functional as F\n"
        "o = F.scaled_dot_product_attention(paddle.to_tensor(q), paddle.to_tensor(k), "
        "paddle.to_tensor(v))\n"
        "o2 = F.scaled_dot_product_attention(paddle.to_tensor(q), paddle.to_tensor(k), "
        "paddle.to_tensor(v), training=False)",
        "paddle",
        q=q,
        k=k,
        v=v,
    )
    qt, kt, vt = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    s = qt @ kt.transpose(0, 1, 3, 2) / 2.0
    w = np.exp(s - s.max(-1, keepdims=True))
    ref = ((w / w.sum(-1, keepdims=True)) @ vt).transpose(0, 2, 1, 3)
    np.testing.assert_allclose(g["o"].numpy(), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g["o2"].numpy(), ref, rtol=1e-10, atol=1e-12)
