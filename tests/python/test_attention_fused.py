"""The fused ``scaled_dot_product_attention`` op (``_core._sdpa``): the composed version
(``fn_attention.attend``, the reference) and NumPy float64 values for every mask kind,
causal with L != S, blocking over query rows, threads, 0-size; one graph node that saves
no ``[L, S]`` tensor; gradcheck/gradgradcheck (dropout included); the layers' use of it."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from attention_ref import ref_attention
from ferrograd import nn
from ferrograd.autograd import gradcheck, gradgradcheck
from ferrograd.nn.fn_attention import attend, causal_keep

RNG = np.random.default_rng(21)


def t(a, grad=False, dtype="float64"):
    a = np.asarray(a)
    if a.dtype == bool:
        return fg.tensor(a)
    return fg.tensor(a.astype(dtype), requires_grad=grad)


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(a.numpy() if hasattr(a, "numpy") else a, b, atol=tol, rtol=tol)


def composed(q, k, v, mask=None, causal=False, scale=None):
    keep = bias = None
    if mask is not None:
        keep, bias = (mask, None) if mask.dtype == fg.bool else (None, mask)
    if causal:
        ck = causal_keep(q.shape[-2], k.shape[-2])
        keep = ck if keep is None else keep.logical_and(ck)
    return attend(q, k, v, keep, bias, 0.0, True, scale)[0]


def qkv(b, lq, s, e, ev, grad=False, dtype="float64"):
    return (
        t(RNG.standard_normal(b + (lq, e)), grad, dtype),
        t(RNG.standard_normal(b + (s, e)), grad, dtype),
        t(RNG.standard_normal(b + (s, ev)), grad, dtype),
    )


def _nodes(out):
    seen, todo, names, alive = set(), [out.grad_fn], [], []
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        alive.append(n)  # keeps ids unique while walking
        seen.add(id(n))
        if not n.name().startswith("AccumulateGrad"):
            names.append(n.name().rstrip("0123456789"))
        todo.extend(f for f, _ in n.next_functions)
    return names


def _grads(out, xs, g):
    return [a.numpy() for a in fg.autograd.grad([out], xs, [g])]


def _neg_inf_bias(lq, s):
    """-inf leaves keys out; key 0 stays, so no row is left empty (the composition's
    softmax of a row of -inf is NaN)."""
    b = np.where(RNG.random((lq, s)) > 0.3, 0.5, -np.inf)
    b[:, 0] = 0.5
    return b


MASKS = {
    "none": lambda lq, s: None,
    "bool": lambda lq, s: RNG.random((lq, s)) > 0.35,
    "bool_rows_broadcast": lambda lq, s: RNG.random((2, 1, 1, s)) > 0.3,
    "bool_fully_masked_row": lambda lq, s: np.vstack([np.zeros((1, s), bool), RNG.random((lq - 1, s)) > 0.3]),
    "float": lambda lq, s: RNG.standard_normal((lq, s)),
    "float_batch_broadcast": lambda lq, s: RNG.standard_normal((2, 1, lq, s)),
    "float_with_neg_inf": lambda lq, s: _neg_inf_bias(lq, s),
}  # fmt: skip


@pytest.mark.parametrize("mask_kind", list(MASKS))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("ls", [(5, 7), (7, 5)])
def test_forward_and_backward_match_composition_and_numpy(mask_kind, causal, ls):
    lq, s = ls
    q, k, v = qkv((2, 3), lq, s, 4, 3, grad=True)
    m = MASKS[mask_kind](lq, s)
    mask = None if m is None else t(m)
    got = F.scaled_dot_product_attention(q, k, v, attn_mask=mask) if not causal else (
        fg.nn.fn_attention.attention(q, k, v, *_split(mask), causal=True)
    )  # fmt: skip
    want = composed(q, k, v, mask, causal)
    close(got, want.numpy())
    keep = np.tril(np.ones((lq, s), bool)) if causal else None
    if m is not None and m.dtype == bool:
        keep = m if keep is None else keep & m
    bias = m if m is not None and m.dtype != bool else None
    if bias is not None and causal:
        bias = np.where(np.tril(np.ones((lq, s), bool)), bias, -np.inf)
        keep = None
    ref = ref_attention(q.numpy(), k.numpy(), v.numpy(), keep=keep, bias=bias)[0]
    if not np.isnan(ref).any():
        close(got, ref)
    g = t(RNG.standard_normal(list(got.shape)))
    for a, b in zip(_grads(got, [q, k, v], g), _grads(want, [q, k, v], g)):
        close(a, b, 1e-11)


def _split(mask):
    if mask is None:
        return None, None
    return (mask, None) if mask.dtype == fg.bool else (None, mask)


def _saved_shapes(f):
    """The shapes of every tensor saved for backward while ``f()`` runs."""
    shapes = []

    def pack(x):
        shapes.append(list(x.shape))
        return x

    with fg.autograd.saved_tensors_hooks(pack, lambda x: x):
        out = f()
    return out, shapes


def test_one_node_saving_no_l_by_s_tensor():
    lq, s = 7, 9
    q, k, v = qkv((2,), lq, s, 3, 5, grad=True)
    out, fused = _saved_shapes(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
    assert _nodes(out) == ["ScaledDotProductAttentionBackward"]
    # q, k, v, the output and the [2, 7] log-sum-exp; nothing [..., L, S]
    assert sorted(fused) == sorted([[2, lq, 3], [2, s, 3], [2, s, 5], [2, lq, 5], [2, lq]])
    # the composition does save the weights (so the check above can fail)
    _, comp = _saved_shapes(lambda: composed(q, k, v, causal=True))
    assert any(sh[-2:] == [lq, s] for sh in comp)


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-12)])
def test_blocks_over_query_rows_and_threads(dtype, tol):
    # 4096 keys: blocks of 16 query rows; 32 batches: the threaded path
    for b, lq, s, e in (((1,), 40, 4096, 4), ((32,), 32, 32, 8)):
        q, k, v = qkv(b, lq, s, e, e, grad=True, dtype=dtype)
        keep = t(RNG.random((lq, s)) > 0.2)
        got = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        want = composed(q, k, v, keep)
        close(got, want.numpy(), tol)
        g = t(RNG.standard_normal(list(got.shape)), dtype=dtype)
        for a, c in zip(_grads(got, [q, k, v], g), _grads(want, [q, k, v], g)):
            np.testing.assert_allclose(a, c, atol=tol * 10, rtol=tol * 10)


@pytest.mark.parametrize(
    "dims", [(2, 0, 3, 4, 2), (2, 3, 0, 4, 2), (0, 3, 4, 4, 2), (2, 3, 4, 0, 2), (2, 3, 4, 4, 0)]
)
def test_zero_size(dims):
    n, lq, s, e, ev = dims
    q, k, v = qkv((n,), lq, s, e, ev, grad=True)
    out = F.scaled_dot_product_attention(q, k, v)
    want = composed(q, k, v)
    assert list(out.shape) == [n, lq, ev]
    close(out, want.numpy())
    out.sum().backward()
    for x in (q, k, v):
        assert list(x.grad.shape) == list(x.shape)
        assert np.all(np.isfinite(x.grad.numpy()))


def test_gradcheck_and_gradgradcheck():
    q, k, v = qkv((2,), 3, 4, 2, 3, grad=True)
    keep = t(RNG.random((3, 4)) > 0.3)
    bias = t(RNG.standard_normal((2, 3, 4)))

    def dropped(q, k, v):
        fg.seed(5)  # the same dropout flags on every evaluation
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, is_causal=True)

    for f in (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.3),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=bias),
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        dropped,
    ):
        assert gradcheck(f, (q, k, v))
        assert gradgradcheck(f, (q, k, v))


def test_dropout_is_seeded_and_drops_weights():
    s = 6
    q, k, _ = qkv((2, 2), 5, s, 3, 1)
    v = t(np.broadcast_to(np.eye(s), (2, 2, s, s)).copy())  # out = the dropped weights
    fg.seed(11)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    fg.seed(11)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    np.testing.assert_array_equal(a, b)
    w = ref_attention(q.numpy(), k.numpy(), v.numpy())[1]
    kept = a != 0
    assert 0.2 < kept.mean() < 0.8
    close(a[kept], (w * 2.0)[kept], 1e-12)
    fg.seed(12)
    assert not np.array_equal(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy(), a)


def test_float_mask_requiring_grad_uses_the_composition():
    q, k, v = qkv((2,), 3, 4, 2, 3, grad=True)
    bias = t(RNG.standard_normal((3, 4)), grad=True)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    out.sum().backward()
    assert bias.grad is not None
    assert "ScaledDotProductAttentionBackward" not in _nodes(out)


def test_broadcast_batch_dims_and_float32():
    q = t(RNG.standard_normal((2, 3, 4, 5)), True, "float32")
    k = t(RNG.standard_normal((1, 3, 6, 5)), True, "float32")
    v = t(RNG.standard_normal((2, 1, 6, 2)), True, "float32")
    out = F.scaled_dot_product_attention(q, k, v)
    want = composed(q, k, v)
    close(out, want.numpy(), 2e-6)
    g = t(RNG.standard_normal([2, 3, 4, 2]), dtype="float32")
    for a, b in zip(_grads(out, [q, k, v], g), _grads(want, [q, k, v], g)):
        np.testing.assert_allclose(a, b, atol=2e-5, rtol=2e-5)


def test_bad_mask_shape_and_dtype_from_the_kernel():
    q = fg.randn(2, 5, 4)
    with pytest.raises(ValueError, match="attn_mask"):
        fg._core._sdpa(q, q, q, fg.ones(3, 3).astype("bool"))
    with pytest.raises(TypeError, match="attn_mask"):
        fg._core._sdpa(q, q, q, fg.ones(5, 5).astype("float64"))
    with pytest.raises(ValueError, match="batch dims"):
        fg._core._sdpa(q, fg.randn(3, 5, 4), fg.randn(3, 5, 4))


def test_multihead_layers_use_the_fused_op():
    fg.seed(0)
    m = nn.MultiheadAttention(8, 2, batch_first=True, dtype=fg.float64)
    x = t(RNG.standard_normal((3, 5, 8)), True)
    mask = t(np.triu(np.ones((5, 5), bool), 1))
    kpm = t(np.array([[False] * 5, [False] * 4 + [True], [False] * 5]))
    o1, w = m(x, x, x, attn_mask=mask, key_padding_mask=kpm)
    o2, none = m(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=False)
    assert none is None and w is not None
    close(o2, o1.numpy(), 1e-12)
    assert "ScaledDotProductAttentionBackward" in _nodes(o2)
    pm = nn.MultiHeadAttention(8, 2)
    pm.to(fg.float64) if hasattr(pm, "to") else None
    xp = t(RNG.standard_normal((2, 4, 8)), True, str(pm.q_proj.weight.dtype).split(".")[-1])
    out = pm(xp)
    assert "ScaledDotProductAttentionBackward" in _nodes(out)
