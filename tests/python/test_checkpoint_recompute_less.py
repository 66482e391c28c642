"""What checkpoint recomputes (issue 22's step time): a saved tensor that is the region's
input or output (unchanged since) is served as it is; parameters are not
packed; the recomputation stops at the last tensor backward still needs. Gradients stay
bit-identical to the plain run (float64)."""

from __future__ import annotations

import gc
import weakref

import ferrograd as fg
import numpy as np
from ferrograd.utils.checkpoint import _Handle, checkpoint

W = 5


def leaves(n, seed=0):
    rng = np.random.default_rng(seed)
    ws = [fg.to_tensor(rng.standard_normal((W, W)) / W, stop_gradient=False) for _ in range(n)]
    x = fg.to_tensor(rng.standard_normal((3, W)), stop_gradient=False)
    return ws, x


def counted(log, name):
    def layer(h, w):
        log.append(name)
        return (h @ w).tanh()

    return layer


def grads(ts):
    out = [t.grad.numpy().copy() for t in ts]
    for t in ts:
        t.grad = None
    return out


def test_one_layer_regions_recompute_nothing():
    # each region saves its input and its output (tanh's), both served as they are
    ws, x = leaves(4)
    log = []
    h = x
    for i, w in enumerate(ws):
        h = checkpoint(counted(log, i), h, w)
    h.sum().backward()
    assert log == [0, 1, 2, 3]  # the forward only
    ck = grads(ws + [x])
    h = x
    for w in ws:
        h = (h @ w).tanh()
    h.sum().backward()
    for a, b in zip(ck, grads(ws + [x])):
        np.testing.assert_array_equal(a, b)


def test_recomputation_stops_after_the_last_needed_tensor():
    ws, x = leaves(3)
    log = []

    def region(h, *ws):
        for i, w in enumerate(ws):
            h = counted(log, i)(h, w)
        return h

    out = checkpoint(region, x, *ws)
    log.clear()
    out.sum().backward()  # layer 2's tanh saved the output: layers 0 and 1 run again
    assert log == [0, 1]
    ck = grads(ws + [x])
    region(x, *ws).sum().backward()
    for a, b in zip(ck, grads(ws + [x])):
        np.testing.assert_array_equal(a, b)


def test_output_changed_in_place_is_recomputed_not_served():
    ws, x = leaves(1)
    log = []
    out = checkpoint(counted(log, 0), x, ws[0])
    loss = (out * 2.0).sum()  # mul saves nothing of out (a constant factor)
    with fg.no_grad():
        out.add_(fg.ones_like(out))  # the served output would now be wrong
    loss.backward()
    assert log == [0, 0]
    ck = grads(ws + [x])
    ((x @ ws[0]).tanh() * 2.0).sum().backward()
    for a, b in zip(ck, grads(ws + [x])):
        np.testing.assert_array_equal(a, b)


def test_dropout_region_with_early_stop_leaves_the_generator_as_plain():
    ws, x = leaves(2)
    fg.manual_seed(3)

    def region(h, w0, w1):
        h = fg.nn.functional.dropout((h @ w0).tanh(), 0.5)
        return fg.nn.functional.dropout((h @ w1).tanh(), 0.5)

    out = checkpoint(region, x, *ws)
    keep = out  # alive: the recomputation stops before the second dropout draws
    keep.sum().backward()
    after_ck = fg.rand(4).numpy()
    ck = grads(ws + [x])
    fg.manual_seed(3)
    region(x, *ws).sum().backward()
    after_plain = fg.rand(4).numpy()
    for a, b in zip(ck, grads(ws + [x])):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(after_ck, after_plain)


def test_kept_output_does_not_keep_its_graph_alive():
    # the handle keeps the output's data, not the output with its history: a graph
    # dropped without backward is freed (no cycle node -> handle -> output -> node)
    ws, x = leaves(1)
    out = checkpoint(counted([], 0), x, ws[0])
    alive = weakref.ref(out)
    loss = out.sum()
    del out, loss
    gc.collect()
    assert alive() is None
    assert not [h for h in gc.get_objects() if isinstance(h, _Handle)]
