"""Session 40: ``nn.Embedding``'s ``padding_idx`` records one lookup and one mask in both
dialects. A layer built by Paddle code used to stack a second ``where`` (plus its ``!=``,
``unsqueeze`` and ``zeros_like``) on top of ``F.embedding``'s; it now calls the private
lookup with its padding rule as a flag. Values and gradients are unchanged: Paddle 3.3.1
outputs zeros at padding positions whatever the row holds (its CPU kernel memsets them,
paddle/phi/kernels/cpu/embedding_kernel.cc, ``EmbeddingCPUFunctor::apply``), PyTorch the
row's value (``torch.nn.functional.embedding``); neither sends the padding row a
gradient. Each dialect's code runs in a namespace of its own (``torch`` / ``paddle``
bound to ferrograd), as the dialect rule reads the caller's globals."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core

IDS = [[0, 2, 1], [2, 4, 2]]
PAD = 2
ROW = [7.0, -8.0, 9.0]  # written into the padding row after construction

_SRC = """
def layer(n, d, pad, **kw):
    return {ns}.nn.Embedding(n, d, padding_idx=pad, **kw)

def functional(ids, w, pad, **kw):
    return {ns}.nn.functional.embedding(ids, w, padding_idx=pad, **kw)

def call(layer, ids):
    return layer(ids)
"""


def _namespace(ns: str) -> dict:
    g: dict = {ns: fg, "__name__": f"{ns}_user_code"}
    exec(compile(_SRC.format(ns=ns), f"<{ns} code>", "exec"), g)
    return g


TORCH, PADDLE = _namespace("torch"), _namespace("paddle")


def _nodes(t: fg.Tensor) -> list[str]:
    """The names of the backward nodes reachable from ``t`` (each once)."""
    # the wrappers are kept alive in `keep`: a freed one's id could be reused by the next
    seen, names, stack, keep = set(), [], [t.grad_fn], []
    while stack:
        f = stack.pop()
        keep.append(f)
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        names.append(type(f).__name__)
        stack.extend(g for g, _ in f.next_functions)
    return sorted(names)


def _table(code: dict, **kw):
    """A ``[5, 3]`` float64 layer of `code`'s dialect, its padding row set to ``ROW``."""
    emb = code["layer"](5, 3, PAD, **kw)
    emb.weight.requires_grad_(False)
    emb.weight[PAD] = fg.tensor(ROW, dtype=emb.weight.dtype)
    emb.weight.requires_grad_(True)
    return emb


def _expected(weight: np.ndarray, zero_padding: bool) -> np.ndarray:
    out = weight[np.asarray(IDS)]
    if zero_padding:
        out[np.asarray(IDS) == PAD] = 0.0
    return out


@pytest.mark.parametrize("code", [TORCH, PADDLE], ids=["torch", "paddle"])
def test_layer_records_what_functional_records(code):
    emb = _table(code)
    ids = fg.tensor(IDS)
    out = emb(ids)
    ref = code["functional"](ids, emb.weight, PAD)
    assert _nodes(out) == _nodes(ref)
    assert _nodes(out).count("WhereBackward0") == 1


def test_paddle_layer_forward_runs_one_where_regression(monkeypatch):
    emb = _table(PADDLE)
    calls = []
    real = _core.where
    monkeypatch.setattr(_core, "where", lambda *a, **k: calls.append(1) or real(*a, **k))
    emb(fg.tensor(IDS))
    assert len(calls) == 1  # was 2: F.embedding's mask and the layer's zeroing mask


@pytest.mark.parametrize("code,zero", [(TORCH, False), (PADDLE, True)], ids=["torch", "paddle"])
def test_layer_values_and_gradients(code, zero):
    emb = _table(code)
    out = emb(fg.tensor(IDS))
    w = emb.weight.detach().numpy()
    np.testing.assert_array_equal(out.detach().numpy(), _expected(w, zero))
    g = np.arange(out.numel(), dtype=np.float64).reshape(out.shape) + 1.0
    out.backward(fg.tensor(g, dtype=out.dtype))
    want = np.zeros_like(w)
    for pos, i in np.ndenumerate(np.asarray(IDS)):
        if i != PAD:
            want[i] += g[pos]
    np.testing.assert_allclose(emb.weight.grad.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("code,zero", [(TORCH, False), (PADDLE, True)], ids=["torch", "paddle"])
def test_functional_direct_callers_unchanged(code, zero):
    w = fg.tensor(np.arange(15.0).reshape(5, 3), dtype=fg.float64, requires_grad=True)
    out = code["functional"](fg.tensor(IDS), w, PAD)
    np.testing.assert_array_equal(out.detach().numpy(), _expected(w.detach().numpy(), zero))
    out.sum().backward()
    assert w.grad.numpy()[PAD].tolist() == [0.0, 0.0, 0.0]
    assert w.grad.numpy()[4].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("make", ["layer", "functional"])
def test_paddle_padding_is_zero_even_for_a_non_finite_row_regression(make):
    # Paddle's kernel memsets padding positions: 0, not inf * 0 = NaN
    w = np.zeros((5, 3))
    w[PAD] = [np.inf, -np.inf, np.nan]
    ids = fg.tensor(IDS)
    if make == "layer":
        emb = PADDLE["layer"](5, 3, PAD)
        emb.weight.requires_grad_(False)
        emb.weight.copy_(fg.tensor(w, dtype=emb.weight.dtype))
        out = emb(ids).numpy()
    else:
        out = PADDLE["functional"](ids, fg.tensor(w, dtype=fg.float32), PAD).numpy()
    assert (out[np.asarray(IDS) == PAD] == 0).all()
    # PyTorch code keeps the row as it is, non-finite values included
    got = TORCH["functional"](ids, fg.tensor(w, dtype=fg.float32), PAD).numpy()
    assert np.isinf(got[0, 1, 0]) and np.isnan(got[0, 1, 2])


@pytest.mark.parametrize("code,zero", [(TORCH, False), (PADDLE, True)], ids=["torch", "paddle"])
def test_layer_options_keep_one_mask(code, zero):
    # max_norm and scale_grad_by_freq go through the same single lookup
    emb = _table(code, max_norm=1.0, scale_grad_by_freq=True)
    out = emb(fg.tensor(IDS))
    assert _nodes(out).count("WhereBackward0") == 1
    w = emb.weight.detach().numpy()  # renormalised in place by the call
    np.testing.assert_allclose(out.detach().numpy(), _expected(w, zero), rtol=1e-6)
    out.sum().backward()
    g = emb.weight.grad.numpy()
    assert g[PAD].tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(g[4], [1.0, 1.0, 1.0])  # id 4 once: no scaling


@pytest.mark.parametrize("code,sparse_grad", [(TORCH, True), (PADDLE, False)], ids=["t", "p"])
def test_layer_sparse_follows_the_calling_code(code, sparse_grad):
    # sparse=True: a sparse COO gradient in PyTorch code, a dense one in Paddle's (read
    # from the code calling the layer, as F.embedding reads its caller)
    emb = _table(code, sparse=True)
    out = code["call"](emb, fg.tensor(IDS))
    assert _nodes(out).count("WhereBackward0") == 1
    out.sum().backward()
    assert emb.weight.grad.is_sparse == sparse_grad
    dense = emb.weight.grad.to_dense() if sparse_grad else emb.weight.grad
    assert dense.numpy()[PAD].tolist() == [0.0, 0.0, 0.0]
