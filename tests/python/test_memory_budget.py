"""memory_budget: keeps saved tensors in memory up to the budget, then recomputes
checkpointed regions and writes the rest to disk; gradients never change."""

from __future__ import annotations

import gc

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd.graph import memory_budget
from ferrograd.utils.checkpoint import checkpoint

W, B = 16, 8
ACT = B * W * 8  # bytes of one float64 activation


def setup(n=6):
    rng = np.random.default_rng(0)
    ws = [fg.to_tensor(rng.standard_normal((W, W)) / 4, stop_gradient=False) for _ in range(n)]
    return ws, fg.to_tensor(rng.standard_normal((B, W)), stop_gradient=False)


def layer(h, w):
    return (h @ w).tanh()


def forward(x, ws):
    h = x
    for i in range(0, len(ws), 2):  # regions of 2 layers, then one plain layer each
        h = checkpoint(lambda h, a, b: layer(layer(h, a), b), h, ws[i], ws[i + 1])
        h = h.sin()
    return h.square().sum()


def grads(ts):
    g = [t.grad.numpy().copy() for t in ts]
    for t in ts:
        t.grad = None
    return g


@pytest.mark.parametrize("nbytes", [0, 3 * ACT, 10**9])
def test_gradients_unchanged_and_report(nbytes):
    ws, x = setup()
    forward(x, ws).backward()
    ref = grads(ws + [x])
    with memory_budget(nbytes) as budget:
        loss = forward(x, ws)
    loss.backward()
    for a, b in zip(ref, grads(ws + [x])):
        np.testing.assert_array_equal(a, b)
    r = budget.report()
    assert budget.regions_kept + budget.regions_recomputed == 3
    if nbytes == 0:
        assert budget.regions_kept == 0 and budget.kept[0] == 0 and budget.on_disk[0] >= 3
    elif nbytes == 10**9:
        assert budget.regions_recomputed == 0 and budget.on_disk[0] == 0
    else:  # the first region fits, then the budget is spent
        assert budget.regions_kept >= 1 and budget.regions_recomputed >= 1
        assert budget.on_disk[0] >= 1
    assert "memory_budget(" in r and "recomputed" in r
    del loss
    gc.collect()
    assert budget.held == 0  # freed graphs give their bytes back


def test_bad_budget():
    with pytest.raises(ValueError, match="nbytes"):
        memory_budget(-1)
