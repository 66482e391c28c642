"""``scale_grad_by_freq=True`` in ``F.embedding`` / ``nn.Embedding`` and
``F.embedding_bag`` / ``nn.EmbeddingBag`` (issue #17): each looked-up row's gradient is
divided by how often its id occurs in the input; values are unchanged. Expected
gradients are computed with NumPy float64 (the rule checked on PyTorch 2.x and Paddle
3.3.1)."""

from __future__ import annotations

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradgradcheck

RNG = np.random.default_rng(23)
W0 = RNG.standard_normal((6, 3))
IDS = np.array([[0, 1, 1, 4], [1, 3, 2, 4]])


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def ref_embedding_grad(ids, g, num, pad=None):
    """Gradient of ``weight`` under scale_grad_by_freq: sum of the upstream rows of each
    id, divided by the id's count in the whole input; the padding row gets none."""
    flat, gr = ids.reshape(-1), g.reshape(-1, g.shape[-1])
    counts = np.bincount(flat, minlength=num)
    out = np.zeros((num, g.shape[-1]))
    for i, r in enumerate(flat):
        if r != pad:
            out[r] += gr[i] / counts[r]
    return out


@pytest.mark.parametrize("pad", [None, 1, 4])
def test_embedding_scaled_gradient_and_unchanged_value(pad):
    w = t64(W0, grad=True)
    g = RNG.standard_normal(IDS.shape + (3,))
    out = F.embedding(fg.tensor(IDS), w, padding_idx=pad, scale_grad_by_freq=True)
    plain = F.embedding(fg.tensor(IDS), t64(W0), padding_idx=pad)
    np.testing.assert_array_equal(out.detach().numpy(), plain.numpy())
    out.backward(t64(g))
    np.testing.assert_allclose(w.grad.numpy(), ref_embedding_grad(IDS, g, 6, pad), rtol=1e-12)


def test_embedding_scaled_gradient_of_gradient():
    """The backward is linear in the upstream gradient, scaled by 1/count: gradgradcheck
    compares it with finite differences (PyTorch's own double backward drops the scale)."""
    w = t64(W0, grad=True)
    ids = fg.tensor(IDS)
    assert gradgradcheck(lambda w: F.embedding(ids, w, scale_grad_by_freq=True), (w,))
    assert gradgradcheck(
        lambda w: F.embedding(ids, w, padding_idx=1, scale_grad_by_freq=True) * 3.0, (w,)
    )


def test_embedding_layer_scale_grad_by_freq():
    emb = nn.Embedding(6, 3, padding_idx=2, scale_grad_by_freq=True)
    assert emb.scale_grad_by_freq is True
    assert "scale_grad_by_freq=True" in repr(emb)
    emb.weight.data = t64(W0)
    emb.weight.requires_grad_(True)
    emb(fg.tensor(IDS)).sum().backward()
    want = ref_embedding_grad(IDS, np.ones(IDS.shape + (3,)), 6, 2)
    np.testing.assert_allclose(emb.weight.grad.numpy(), want, rtol=1e-12)
    # with max_norm too: the renormalised rows, the scaled gradient
    emb2 = nn.Embedding(6, 3, max_norm=0.5, scale_grad_by_freq=True)
    emb2(fg.tensor(IDS)).sum().backward()
    want = ref_embedding_grad(IDS, np.ones(IDS.shape + (3,)), 6)
    np.testing.assert_allclose(emb2.weight.grad.numpy(), want, rtol=1e-12)
    assert not nn.Embedding(6, 3).scale_grad_by_freq


def ref_bag_grad(ids_flat, bag, n_bags, g, num, mode, pad=None, psw=None):
    """weight's gradient for embedding_bag with scale_grad_by_freq (counts over every id
    in a bag, padding ids included)."""
    counts = np.bincount(ids_flat, minlength=num)
    kept = np.array([r != pad for r in ids_flat])
    sizes = np.bincount(bag[kept], minlength=n_bags)
    out = np.zeros((num, g.shape[1]))
    for i, (r, b) in enumerate(zip(ids_flat, bag)):
        if r == pad:
            continue
        f = 1.0 / sizes[b] if mode == "mean" else 1.0
        f = f * (psw[i] if psw is not None else 1.0)
        out[r] += g[b] * f / counts[r]
    return out


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("pad", [None, 4])
def test_embedding_bag_scaled_gradient(mode, pad):
    w = t64(W0, grad=True)
    g = RNG.standard_normal((2, 3))
    out = F.embedding_bag(fg.tensor(IDS), w, mode=mode, padding_idx=pad, scale_grad_by_freq=True)
    plain = F.embedding_bag(fg.tensor(IDS), t64(W0), mode=mode, padding_idx=pad)
    np.testing.assert_array_equal(out.detach().numpy(), plain.numpy())
    out.backward(t64(g))
    bag = np.repeat(np.arange(2), 4)
    want = ref_bag_grad(IDS.reshape(-1), bag, 2, g, 6, mode, pad)
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12)


def test_embedding_bag_offsets_count_only_ids_in_bags():
    """include_last_offset=True: an id after the last offset is in no bag, not counted."""
    w = t64(W0, grad=True)
    ids, off = np.array([0, 1, 1, 3, 1]), np.array([0, 2, 4])
    out = F.embedding_bag(
        fg.tensor(ids), w, fg.tensor(off), mode="sum", scale_grad_by_freq=True,
        include_last_offset=True,
    )  # fmt: skip
    out.sum().backward()
    want = ref_bag_grad(ids[:4], np.array([0, 0, 1, 1]), 2, np.ones((2, 3)), 6, "sum")
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12)
    assert w.grad.numpy()[1, 0] == 1.0  # id 1 twice in the bags, once after them


def test_embedding_bag_per_sample_weights_scaled_only_in_weight():
    w = t64(W0, grad=True)
    psw_np = RNG.standard_normal(IDS.shape)
    psw = t64(psw_np, grad=True)
    g = RNG.standard_normal((2, 3))
    out = F.embedding_bag(
        fg.tensor(IDS), w, mode="sum", per_sample_weights=psw, scale_grad_by_freq=True
    )
    out.backward(t64(g))
    bag = np.repeat(np.arange(2), 4)
    want = ref_bag_grad(IDS.reshape(-1), bag, 2, g, 6, "sum", psw=psw_np.reshape(-1))
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12)
    # per_sample_weights' own gradient is the plain one
    want_psw = np.einsum("bnd,bd->bn", W0[IDS], g)
    np.testing.assert_allclose(psw.grad.numpy(), want_psw, rtol=1e-12)


def test_embedding_bag_scaled_gradient_of_gradient():
    ids = fg.tensor(IDS)
    w = t64(W0, grad=True)
    psw = t64(RNG.standard_normal(IDS.shape), grad=True)
    for pad in (None, 4):
        assert gradgradcheck(
            lambda w, pad=pad: F.embedding_bag(
                ids, w, mode="mean", padding_idx=pad, scale_grad_by_freq=True
            ),
            (w,),
        )
    assert gradgradcheck(
        lambda w, p: F.embedding_bag(
            ids, w, mode="sum", per_sample_weights=p, scale_grad_by_freq=True
        ),
        (w, psw),
    )


def test_embedding_bag_layer_and_max_mode_refusal():
    bag = nn.EmbeddingBag(6, 3, mode="sum", scale_grad_by_freq=True)
    assert bag.scale_grad_by_freq is True
    assert "scale_grad_by_freq=True" in repr(bag)
    bag(fg.tensor(IDS)).sum().backward()
    want = ref_bag_grad(IDS.reshape(-1), np.repeat(np.arange(2), 4), 2, np.ones((2, 3)), 6, "sum")
    np.testing.assert_allclose(bag.weight.grad.numpy(), want, rtol=1e-6)
    pre = nn.EmbeddingBag.from_pretrained(t64(W0), freeze=False, scale_grad_by_freq=True)
    assert pre.scale_grad_by_freq
    # PyTorch's: the layer is built, the call refuses mode='max' with the frequency scale
    mx = nn.EmbeddingBag(6, 3, mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        mx(fg.tensor(IDS))
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        F.embedding_bag(fg.tensor(IDS), t64(W0), mode="max", scale_grad_by_freq=True)
