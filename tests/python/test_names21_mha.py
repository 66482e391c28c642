"""F.multi_head_attention_forward (PyTorch's functional multi-head attention): values
against a NumPy float64 transcription of PyTorch's algorithm (checked against torch
2.15 with the same inputs to 1e-14), every argument path, gradcheck, bad input, and
nn.MultiheadAttention(batch_first=True) going through it."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest


def ref_mhaf(
    q,
    k,
    v,
    e,
    h,
    w_in,
    b_in,
    bias_k,
    bias_v,
    zero_attn,
    wo,
    bo,
    kpm=None,
    attn_mask=None,
    sep=None,
    static_k=None,
    static_v=None,
    average=True,
):
    L, N, _ = q.shape
    d = e // h
    if sep is None:
        wq, wk, wv = w_in[:e], w_in[e : 2 * e], w_in[2 * e :]
    else:
        wq, wk, wv = sep
    bq, bk, bv = (np.zeros(e),) * 3 if b_in is None else (b_in[:e], b_in[e : 2 * e], b_in[2 * e :])
    Q = q @ wq.T + bq
    K = k @ wk.T + bk
    V = v @ wv.T + bv  # [L,N,E],[S,N,E]
    mask = (
        None
        if attn_mask is None
        else (
            np.where(attn_mask, -np.inf, 0.0)
            if attn_mask.dtype == bool
            else attn_mask.astype(np.float64)
        )
    )
    pm = (
        None
        if kpm is None
        else (np.where(kpm, -np.inf, 0.0) if kpm.dtype == bool else kpm.astype(np.float64))
    )

    def pad(m):
        return None if m is None else np.concatenate([m, np.zeros(m.shape[:-1] + (1,))], -1)

    if bias_k is not None:
        K = np.concatenate([K, np.broadcast_to(bias_k, (1, N, e))], 0)
        V = np.concatenate([V, np.broadcast_to(bias_v, (1, N, e))], 0)
        mask, pm = pad(mask), pad(pm)
    Qh = Q.reshape(L, N * h, d).transpose(1, 0, 2)
    Kh = K.reshape(K.shape[0], N * h, d).transpose(1, 0, 2) if static_k is None else static_k
    Vh = V.reshape(V.shape[0], N * h, d).transpose(1, 0, 2) if static_v is None else static_v
    if zero_attn:
        Kh = np.concatenate([Kh, np.zeros((N * h, 1, d))], 1)
        Vh = np.concatenate([Vh, np.zeros((N * h, 1, d))], 1)
        mask, pm = pad(mask), pad(pm)
    S = Kh.shape[1]
    total = np.zeros((N * h, L, S))
    if mask is not None:
        total = total + (mask[None] if mask.ndim == 2 else mask)
    if pm is not None:
        total = total + np.repeat(pm, h, axis=0)[:, None, :]
    s = Qh @ Kh.transpose(0, 2, 1) / np.sqrt(d) + total
    s = s - s.max(-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(-1, keepdims=True)
    o = (w @ Vh).transpose(1, 0, 2).reshape(L, N, e) @ wo.T + bo
    w = w.reshape(N, h, L, S)
    return o, (w.mean(1) if average else w)


L, S, N, E, H = 3, 4, 2, 6, 2
rng = np.random.default_rng(0)
Q, K, V = rng.normal(size=(L, N, E)), rng.normal(size=(S, N, E)), rng.normal(size=(S, N, E))
W_IN, B_IN = rng.normal(size=(3 * E, E)), rng.normal(size=3 * E)
WO, BO = rng.normal(size=(E, E)), rng.normal(size=E)
BK, BV = rng.normal(size=(1, 1, E)), rng.normal(size=(1, 1, E))
KPM = np.zeros((N, S), bool)
KPM[0, 1] = True


def T(a, grad=False):
    return (
        None
        if a is None
        else fg.tensor(a, dtype=fg.float64, requires_grad=grad)
        if a.dtype != bool
        else fg.tensor(a)
    )


def run(q=Q, k=K, v=V, w_in=W_IN, b_in=B_IN, bk=None, bv=None, za=False, kpm=None, am=None, **kw):
    return F.multi_head_attention_forward(
        T(q), T(k), T(v), E, H, T(w_in), T(b_in), T(bk), T(bv), za, 0.0, T(WO), T(BO),
        key_padding_mask=T(kpm), attn_mask=T(am), **kw,
    )  # fmt: skip


def close(got, want):
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("zero_attn", [False, True])
@pytest.mark.parametrize("bias_kv", [False, True])
def test_bias_kv_zero_attn_masks(bias_kv, zero_attn):
    am2 = rng.normal(size=(L, S))
    bk, bv = (BK, BV) if bias_kv else (None, None)
    o, w = run(bk=bk, bv=bv, za=zero_attn, kpm=KPM, am=am2)
    ro, rw = ref_mhaf(Q, K, V, E, H, W_IN, B_IN, bk, bv, zero_attn, WO, BO, kpm=KPM, attn_mask=am2)
    close(o, ro)
    close(w, rw)


def test_3d_mask_per_head_weights_and_bool_masks():
    am3 = rng.normal(size=(N * H, L, S))
    o, w = run(am=am3, average_attn_weights=False)
    ro, rw = ref_mhaf(
        Q, K, V, E, H, W_IN, B_IN, None, None, False, WO, BO, attn_mask=am3, average=False
    )
    assert list(w.shape) == [N, H, L, S]
    close(o, ro)
    close(w, rw)
    amb = np.zeros((L, S), bool)
    amb[1, 2] = amb[0, 3] = True
    o, w = run(am=amb, kpm=KPM)
    ro, rw = ref_mhaf(Q, K, V, E, H, W_IN, B_IN, None, None, False, WO, BO, kpm=KPM, attn_mask=amb)
    close(o, ro)
    close(w, rw)
    # a float key_padding_mask is added like PyTorch's
    fk = np.where(KPM, -1.5, 0.25)
    o, _ = run(kpm=fk)
    close(o, ref_mhaf(Q, K, V, E, H, W_IN, B_IN, None, None, False, WO, BO, kpm=fk)[0])


def test_separate_weights_static_kv_unbatched_no_weights():
    wq, wk, wv = rng.normal(size=(E, E)), rng.normal(size=(E, 5)), rng.normal(size=(E, 7))
    k5, v7 = rng.normal(size=(S, N, 5)), rng.normal(size=(S, N, 7))
    o, w = run(k=k5, v=v7, w_in=None, use_separate_proj_weight=True, q_proj_weight=T(wq),
               k_proj_weight=T(wk), v_proj_weight=T(wv))  # fmt: skip
    ro, rw = ref_mhaf(Q, k5, v7, E, H, None, B_IN, None, None, False, WO, BO, sep=(wq, wk, wv))
    close(o, ro)
    close(w, rw)
    sk, sv = rng.normal(size=(N * H, 5, E // H)), rng.normal(size=(N * H, 5, E // H))
    o, w = run(za=True, static_k=T(sk), static_v=T(sv))
    ro, rw = ref_mhaf(Q, K, V, E, H, W_IN, B_IN, None, None, True, WO, BO, static_k=sk, static_v=sv)
    close(o, ro)
    close(w, rw)
    o, w = run(q=Q[:, 0], k=K[:, 0], v=V[:, 0])
    ro, rw = ref_mhaf(Q[:, :1], K[:, :1], V[:, :1], E, H, W_IN, B_IN, None, None, False, WO, BO)
    assert list(o.shape) == [L, E] and list(w.shape) == [L, S]
    close(o, ro[:, 0])
    close(w, rw[0])
    o, w = run(need_weights=False, b_in=None)
    assert w is None
    close(o, ref_mhaf(Q, K, V, E, H, W_IN, None, None, None, False, WO, BO)[0])


def test_self_attention_and_gradcheck():
    x = T(Q, True)
    o, _ = F.multi_head_attention_forward(
        x, x, x, E, H, T(W_IN), T(B_IN), None, None, False, 0.0, T(WO), T(BO)
    )
    close(o, ref_mhaf(Q, Q, Q, E, H, W_IN, B_IN, None, None, False, WO, BO)[0])
    small = np.random.default_rng(1)
    q, k, v = (T(small.normal(size=(2, 2, 4)), True) for _ in range(3))
    w_in, b_in, wo = (
        T(small.normal(size=(12, 4)), True),
        T(small.normal(size=12), True),
        T(small.normal(size=(4, 4)), True),
    )
    bk, bv = T(small.normal(size=(1, 1, 4)), True), T(small.normal(size=(1, 1, 4)), True)
    am = T(small.normal(size=(2, 2)))  # [L, S] before bias_k adds a key

    def f(q, k, v, w_in, b_in, wo, bk, bv):
        o, w = F.multi_head_attention_forward(q, k, v, 4, 2, w_in, b_in, bk, bv, True, 0.0, wo, None,
                                              attn_mask=am, average_attn_weights=False)  # fmt: skip
        return o.sum() + (w * w).sum()

    assert fg.autograd.gradcheck(f, (q, k, v, w_in, b_in, wo, bk, bv))


def test_multihead_attention_batch_first_goes_through_it():
    fg.manual_seed(0)
    m = fg.nn.MultiheadAttention(
        E, H, add_bias_kv=True, add_zero_attn=True, batch_first=True, dtype=fg.float64
    )
    xq, xk = rng.normal(size=(N, L, E)), rng.normal(size=(N, S, E))
    o, w = m(T(xq), T(xk), T(xk), key_padding_mask=T(KPM))
    p = {k: v.numpy() for k, v in m.state_dict().items()}
    ro, rw = ref_mhaf(xq.transpose(1, 0, 2), xk.transpose(1, 0, 2), xk.transpose(1, 0, 2), E, H,
                      p["in_proj_weight"], p["in_proj_bias"], p["bias_k"], p["bias_v"], True,
                      p["out_proj.weight"], p["out_proj.bias"], kpm=KPM)  # fmt: skip
    close(o, ro.transpose(1, 0, 2))
    close(w, rw)


def test_bad_input_raises():
    with pytest.raises(TypeError, match="query must be a Tensor"):
        F.multi_head_attention_forward(
            Q, T(K), T(V), E, H, T(W_IN), None, None, None, False, 0.0, T(WO), None
        )
    with pytest.raises(ValueError, match="embed_dim_to_check"):
        F.multi_head_attention_forward(
            T(Q), T(K), T(V), 8, H, T(W_IN), None, None, None, False, 0.0, T(WO), None
        )
    with pytest.raises(ValueError, match="divisible"):
        F.multi_head_attention_forward(
            T(Q), T(K), T(V), E, 4, T(W_IN), None, None, None, False, 0.0, T(WO), None
        )
    with pytest.raises(ValueError, match="in_proj_weight must have shape"):
        run(w_in=W_IN[:6])
    with pytest.raises(TypeError, match="in_proj_weight"):
        run(w_in=None)
    with pytest.raises(ValueError, match=r"2-D attn_mask"):
        run(am=np.zeros((L, S + 1)))
    with pytest.raises(ValueError, match=r"3-D attn_mask"):
        run(am=np.zeros((N, L, S)))
    with pytest.raises(ValueError, match="key_padding_mask must be"):
        run(kpm=np.zeros((N, S + 1), bool))
    with pytest.raises(ValueError, match="bias_k and bias_v"):
        run(bk=BK)
    with pytest.raises(ValueError, match="bias_k must have shape"):
        run(bk=BK[0], bv=BV[0])
    with pytest.raises(ValueError, match="static_k"):
        run(static_k=T(np.zeros((N, S, E))))
    with pytest.raises(ValueError, match="key and value must be"):
        run(k=K[:3])
    with pytest.raises(ValueError, match="is_causal"):
        run(is_causal=True)
    with pytest.raises(ValueError, match="dropout_p"):
        F.multi_head_attention_forward(
            T(Q), T(K), T(V), E, H, T(W_IN), None, None, None, False, 1.5, T(WO), None
        )
