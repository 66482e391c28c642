"""NumPy float64 references for attention, shared by test_attention.py and
test_transformer.py."""

from __future__ import annotations

import numpy as np


def ref_attention(q, k, v, keep=None, bias=None, scale=None):
    """NumPy attention over the last two dims; rows with nothing kept give zeros."""
    s = (q @ np.swapaxes(k, -1, -2)) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if bias is not None:
        s = s + bias
    if keep is not None:
        keep = np.broadcast_to(keep, s.shape)
        s = np.where(keep, s, -np.inf)
        any_kept = keep.any(-1, keepdims=True)
        s = np.where(any_kept, s, 0.0)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    if keep is not None:
        w = w * any_kept
    return w @ v, w


def ref_mha(x_q, x_k, x_v, wq, bq, wk, bk, wv, bv, wo, bo, heads, keep=None, bias=None):
    """Batch-first NumPy multi-head attention: (output, per-head weights)."""

    def split(a):
        b, n, e = a.shape
        return a.reshape(b, n, heads, e // heads).transpose(0, 2, 1, 3)

    q, k, v = split(x_q @ wq.T + bq), split(x_k @ wk.T + bk), split(x_v @ wv.T + bv)
    o, w = ref_attention(q, k, v, keep=keep, bias=bias)
    b, h, n, d = o.shape
    return o.transpose(0, 2, 1, 3).reshape(b, n, h * d) @ wo.T + bo, w


def torch_mha_params(m):
    sd = {k: v.numpy() for k, v in m.state_dict().items()}
    e = m.embed_dim
    if "in_proj_weight" in sd:
        w = sd["in_proj_weight"]
        ws = [w[:e], w[e : 2 * e], w[2 * e :]]
    else:
        ws = [sd["q_proj_weight"], sd["k_proj_weight"], sd["v_proj_weight"]]
    b = sd["in_proj_bias"]
    bs = [b[:e], b[e : 2 * e], b[2 * e :]]
    return [ws[0], bs[0], ws[1], bs[1], ws[2], bs[2], sd["out_proj.weight"], sd["out_proj.bias"]]


def paddle_mha_params(m):
    ps = []
    for lin in (m.q_proj, m.k_proj, m.v_proj, m.out_proj):
        w = lin.weight.numpy()  # as [out, in]: Paddle's layout [in, out] transposed
        ps += [w.T if lin.weight_layout == "in_out" else w, lin.bias.numpy()]
    return ps
