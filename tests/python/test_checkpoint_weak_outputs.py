"""A checkpointed region's outputs are held weakly (issue 22: what forward holds, against
PyTorch's figure): while the caller (or the next region, as its input) holds an output,
backward is served that output as it is; once the caller has dropped it, its memory is
freed at once and backward recomputes the part of the region that produces it.
Gradients stay bit-identical to the plain run (float64) either way."""

from __future__ import annotations

import gc

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.utils.checkpoint import checkpoint

W = 5
BIG = 1 << 19  # float32 elements: 2 MiB, above the buffer cache's 1 MiB minimum


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


def region_of(log, n):
    def region(h, *ws):
        for i, w in enumerate(ws[:n]):
            h = counted(log, i)(h, w)
        return h

    return region


def grads(ts):
    out = [t.grad.numpy().copy() for t in ts]
    for t in ts:
        t.grad = None
    return out


def plain_grads(ws, x, n_regions, size, loss=lambda h: h.sum()):
    h = x
    for r in range(n_regions):
        h = region_of([], size)(h, *ws[r * size : (r + 1) * size])
    loss(h).backward()
    return grads(ws + [x])


def same(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


@pytest.fixture
def cache_on():
    gc.collect()
    previous = fg.set_buffer_cache_limit(64 << 20)
    fg.empty_buffer_cache()
    yield
    fg.set_buffer_cache_limit(previous)
    fg.empty_buffer_cache()


def test_a_dropped_output_is_not_held_by_the_checkpoint(cache_on):
    # the region's last op (tanh) saves its output; once the caller drops the output,
    # its memory must go back (here: into the buffer cache) instead of staying held
    x = fg.randn(BIG, requires_grad=True)
    out = checkpoint(lambda h: (h * 2.0).tanh(), x)
    loss = (out * 3.0).sum()  # a constant factor: mul saves nothing of out
    assert fg.buffer_cache_info()["suspended_by"] == 0, "the checkpoint's hooks keep it on"
    before = fg.buffer_cache_info()["bytes"]
    del out
    gc.collect()
    freed = fg.buffer_cache_info()["bytes"] - before
    assert freed == 4 * BIG, "the checkpoint still holds the region's output"
    loss.backward()
    expected = 3.0 * 2.0 * (1.0 - np.tanh(2.0 * x.numpy()) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_dropped_output_is_recomputed_with_the_plain_gradients():
    ws, x = leaves(3)
    log = []
    loss = checkpoint(region_of(log, 3), x, *ws).sum()  # the output is dropped here
    log.clear()
    loss.backward()
    assert log == [0, 1, 2]  # the last layer too: it produces the saved output
    same(grads(ws + [x]), plain_grads(ws, x, 1, 3))


def test_a_kept_output_is_still_served():
    ws, x = leaves(3)
    log = []
    out = checkpoint(region_of(log, 3), x, *ws)
    log.clear()
    out.sum().backward()
    assert log == [0, 1]  # tanh's saved output is the caller's `out`: not recomputed
    same(grads(ws + [x]), plain_grads(ws, x, 1, 3))


def test_a_view_kept_without_its_output_gives_the_plain_gradients():
    ws, x = leaves(2)
    log = []
    view = checkpoint(region_of(log, 2), x, *ws)[1:]  # the output object itself is gone
    log.clear()
    view.sum().backward()
    assert log == [0, 1]
    same(grads(ws + [x]), plain_grads(ws, x, 1, 2, loss=lambda h: h[1:].sum()))


def test_in_a_chain_only_the_last_region_runs_again():
    # every region's output but the last is the next region's input, held by it
    ws, x = leaves(4)
    log = []
    h = x
    for i, w in enumerate(ws):
        h = checkpoint(counted(log, i), h, w)
    loss = h.sum()
    del h
    log.clear()
    loss.backward()
    assert log == [3]
    same(grads(ws + [x]), plain_grads(ws, x, 4, 1))


@pytest.mark.parametrize("keep", [False, True])
def test_double_backward_and_retain_graph_with_or_without_the_output(keep):
    ws, x = leaves(4)

    def loss(ckpt):
        h, kept = x, []
        for r in range(2):
            chunk = ws[2 * r : 2 * r + 2]
            h = checkpoint(region_of([], 2), h, *chunk) if ckpt else region_of([], 2)(h, *chunk)
            if keep:
                kept.append(h)
        out = h.square().sum()
        (gx,) = fg.autograd.grad(out, [x], create_graph=True)
        return (gx * gx).sum() + out

    loss(False).backward()
    plain = grads(ws + [x])
    total = loss(True)
    total.backward(retain_graph=True)
    first = grads(ws + [x])
    total.backward()
    same(plain, first)
    same(plain, grads(ws + [x]))


def test_dropout_regions_with_dropped_outputs_replay_their_masks():
    ws, x = leaves(4)

    def region(h, w0, w1):
        h = fg.nn.functional.dropout((h @ w0).tanh(), 0.5)
        return fg.nn.functional.dropout((h @ w1).tanh(), 0.5)

    def run(ckpt):
        fg.manual_seed(7)
        h = x
        for r in range(2):
            h = (
                checkpoint(region, h, *ws[2 * r : 2 * r + 2])
                if ckpt
                else region(h, *ws[2 * r : 2 * r + 2])
            )
        h.sum().backward()
        return grads(ws + [x]), fg.rand(4).numpy()

    (plain, nxt), (ck, nxt2) = run(False), run(True)
    same(plain, ck)
    np.testing.assert_array_equal(nxt, nxt2)


def test_a_chain_dropped_without_backward_leaves_nothing_behind():
    from ferrograd.utils import checkpoint as ck

    gc.collect()
    entries = len(ck._weak_outputs)
    ws, x = leaves(3)
    h = x
    for w in ws:
        h = checkpoint(region_of([], 1), h, w)
    loss = h.sum()
    assert len(ck._weak_outputs) == entries + 3
    del h, loss
    gc.collect()
    assert len(ck._weak_outputs) == entries
    assert not [o for o in gc.get_objects() if isinstance(o, ck._Handle)]


def test_an_output_taken_as_a_keyword_input_is_still_served():
    ws, x = leaves(2)
    log = []

    def second(w, *, h):
        return counted(log, 1)(h, w)

    h = checkpoint(counted(log, 0), x, ws[0])
    loss = checkpoint(second, ws[1], h=h).sum()
    del h
    log.clear()
    loss.backward()
    assert log == [1]  # region 0's output was region 1's input: not recomputed
    same(grads(ws + [x]), plain_grads(ws, x, 2, 1))
