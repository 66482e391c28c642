"""Activation checkpointing (utils.checkpoint / fleet.utils.recompute): every composition
gives the gradients of the plain run (float64, bit-identical: the same operations run in
the same order), recomputation runs once per backward, and a recomputation that differs
from the forward is an error naming the region."""

from __future__ import annotations

import gc
import threading

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import Function, PyLayer
from ferrograd.autograd.graph import save_on_cpu, saved_tensors_hooks
from ferrograd.distributed.fleet.utils import recompute, recompute_sequential
from ferrograd.utils.checkpoint import (
    _Handle,
    checkpoint,
    checkpoint_sequential,
    get_rng_state,
    set_rng_state,
)

W = 6


def params(n=3, seed=0):
    rng = np.random.default_rng(seed)
    return [
        fg.to_tensor(rng.standard_normal((W, W)) / W**0.5, stop_gradient=False) for _ in range(n)
    ]


def data(seed=1, batch=4):
    rng = np.random.default_rng(seed)
    return fg.to_tensor(rng.standard_normal((batch, W)), stop_gradient=False)


def block(x, w):
    return (x @ w).tanh() * x.sigmoid()


def grads(ts):
    out = [t.grad.numpy().copy() for t in ts]
    for t in ts:
        t.grad = None
    return out


def same(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def run_both(loss_fn, leaves):
    """Gradients of loss_fn(use_checkpoint) for both settings."""
    loss_fn(False).backward()
    plain = grads(leaves)
    loss_fn(True).backward()
    return plain, grads(leaves)


def chain(x, ws, ckpt, fn=block):
    for w in ws:
        x = checkpoint(fn, x, w) if ckpt else fn(x, w)
    return x


def test_gradients_bit_identical_and_one_recompute_per_backward():
    ws, x = params(), data()
    calls = []

    def counted(x, w):
        calls.append(1)
        return block(x, w)

    plain, ck = run_both(lambda c: chain(x, ws, c, counted).sum(), ws + [x])
    same(plain, ck)
    assert len(calls) == 3 + 3 + 3  # plain forward, checkpointed forward, one recompute each


def test_forward_keeps_nothing_but_handles():
    ws, x = params(1), data()
    seen = []

    def fn(x, w):
        y = block(x, w)
        seen.extend(h for h in gc.get_objects() if isinstance(h, _Handle))
        return y

    checkpoint(fn, x, ws[0]).sum()
    assert seen and all(h.value is None for h in seen)


class Cube(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return g * 3.0 * x * x


class TorchCube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3.0 * x * x


@pytest.mark.parametrize("layer", [Cube, TorchCube])
def test_custom_layer_inside(layer):
    ws, x = params(), data()

    def fn(x, w):
        return layer.apply(block(x, w)).tanh()

    plain, ck = run_both(lambda c: chain(x, ws, c, fn).sum(), ws + [x])
    same(plain, ck)


def test_user_hooks_around_and_inside():
    ws, x = params(), data()
    packed = []

    def pack(t):
        packed.append(1)
        return t.numpy()

    def unpack(a):
        return fg.to_tensor(a)

    def inside(x, w):
        with saved_tensors_hooks(pack, unpack):
            y = (x @ w).tanh()
        return y * x.sigmoid()

    def loss(c):
        with save_on_cpu():  # around
            h = chain(x, ws[:2], c, inside)
            return chain(h, ws[2:], c).sum()

    plain, ck = run_both(loss, ws + [x])
    same(plain, ck)
    assert packed


def test_autograd_grad_and_retain_graph():
    ws, x = params(), data()
    for c in (False, True):
        out = chain(x, ws, c).square().sum()
        g1 = fg.autograd.grad(out, [x, ws[0]], retain_graph=True)
        g2 = fg.autograd.grad(out, [ws[2]], retain_graph=True)
        out.backward(retain_graph=True)
        out.backward()
        if not c:
            ref = [g.numpy() for g in g1 + g2] + grads(ws + [x])
        else:
            same(ref, [g.numpy() for g in g1 + g2] + grads(ws + [x]))
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()


def test_double_backward():
    ws, x = params(), data()

    def loss(c):
        out = chain(x, ws, c).square().sum()
        (gx,) = fg.autograd.grad(out, [x], create_graph=True)
        return (gx * gx).sum()

    plain, ck = run_both(loss, ws + [x])
    same(plain, ck)


def test_dropout_replays_its_mask_and_rng_continues_as_plain():
    ws, x = params(), data(batch=16)

    def fn(x, w):
        return fg.nn.functional.dropout(block(x, w), p=0.5)

    def run(c):
        fg.seed(5)
        loss = chain(x, ws, c, fn).sum()
        after_forward = get_rng_state()
        loss.backward()
        assert get_rng_state() == after_forward  # recomputation leaves the generator alone
        return grads(ws + [x]), fg.rand([3]).numpy()

    (plain, nxt), (ck, nxt2) = run(False), run(True)
    same(plain, ck)
    np.testing.assert_array_equal(nxt, nxt2)


def test_without_preserved_rng_the_mask_differs():
    ws, x = params(1), data(batch=64)

    def fn(x, w):
        return fg.nn.functional.dropout(block(x, w), p=0.5)

    fg.seed(5)
    fn(x, ws[0]).sum().backward()
    plain = grads(ws)
    fg.seed(5)
    checkpoint(fn, x, ws[0], preserve_rng_state=False).sum().backward()
    assert not np.array_equal(plain[0], grads(ws)[0])


def test_rng_state_roundtrip_and_bad_state():
    s = get_rng_state()
    a = fg.rand([5]).numpy()
    set_rng_state(s)
    np.testing.assert_array_equal(a, fg.rand([5]).numpy())
    with pytest.raises(ValueError, match="all-zero"):
        set_rng_state((0, 0, 0, 0))
    with pytest.raises(ValueError, match="4-word"):
        set_rng_state((1, 2))


def test_nested_checkpoints():
    ws, x = params(4), data()

    def inner(x, w):
        return block(x, w)

    def outer(x, w0, w1, use):
        y = checkpoint(inner, x, w0) if use else inner(x, w0)
        return block(y, w1)

    def loss(c):
        h = checkpoint(outer, x, ws[0], ws[1], True) if c else outer(x, ws[0], ws[1], False)
        h = checkpoint(outer, h, ws[2], ws[3], True) if c else outer(h, ws[2], ws[3], False)
        return h.square().sum()

    plain, ck = run_both(loss, ws + [x])
    same(plain, ck)


def test_non_tensor_constant_and_keyword_inputs():
    ws, x = params(2), data()
    const = fg.to_tensor(np.linspace(0, 1, W))  # requires no grad

    def fn(x, w, scale, c, *, shift=0.0, act="tanh"):
        y = getattr(x @ w, act)() * scale + c * shift
        return y, "label", None

    def loss(c):
        f = (lambda *a, **k: checkpoint(fn, *a, **k)) if c else fn
        y, label, none = f(x, ws[0], 2.0, const, shift=0.5, act="sin")
        assert label == "label" and none is None
        return (y @ ws[1]).sum()

    plain, ck = run_both(loss, ws + [x])
    same(plain, ck)


def test_no_grad_is_a_plain_call_and_no_input_requiring_grad_works():
    ws, x = params(1), data()
    with fg.no_grad():
        y = checkpoint(block, x, ws[0])
    assert y.stop_gradient
    xd = x.detach()
    ref = block(xd, ws[0]).sum()
    ref.backward()
    plain = grads(ws)
    checkpoint(block, xd, ws[0]).sum().backward()
    same(plain, grads(ws))


def test_threads():
    ws = params()
    xs = [data(seed=s) for s in range(4)]
    ref = []
    for x in xs:
        ref.append([g.numpy() for g in fg.autograd.grad(chain(x, ws, False).sum(), ws + [x])])
    for t in ws + xs:
        t.grad = None
    out, errors = [None] * 4, []

    def work(i):
        try:
            for _ in range(5):
                loss = chain(xs[i], ws, True).sum()
                out[i] = [g.numpy() for g in fg.autograd.grad(loss, ws + [xs[i]])]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r, o in zip(ref, out):
        same(r, o)


def grads_of(fn, x, ws):
    """x's gradient of fn().sum() (leaves' gradients reset before and after)."""
    x.grad = None
    for w in ws:
        w.grad = None
    fn().sum().backward()
    g = x.grad.numpy().copy()
    x.grad = None
    for w in ws:
        w.grad = None
    return g


def test_recomputation_that_differs_is_an_error_naming_the_region():
    ws, x = params(1), data()
    state = {"n": W - 1}  # a proper slice: not the input itself (that is not recomputed)

    def changing(x, w):
        return (x[:, : state["n"]] @ w[: state["n"]]).tanh()

    out = checkpoint(changing, x, ws[0]).sum()
    state["n"] = 3
    with pytest.raises(RuntimeError, match="checkpoint region 'test_.*changing'.*shape"):
        out.backward()

    state["extra"] = False

    def grows(x, w):
        y = (x @ w).tanh()
        return y.sin() if state["extra"] else y

    calls = []

    def grows_late(x, w):
        y = (x @ w).tanh()
        calls.append(state["extra"])
        return y.sin() if state["extra"] else y

    # the recomputation stops at the last tensor backward needs (tanh's output here): an
    # op added after it does not run again, so it cannot differ
    out = checkpoint(grows_late, x, ws[0]).sum()
    state["extra"] = True
    out.backward()
    assert calls == [False]  # the recomputation stopped inside tanh, before the append
    np.testing.assert_array_equal(x.grad.numpy(), grads_of(lambda: (x @ ws[0]).tanh(), x, ws))
    x.grad = ws[0].grad = None

    def shrinks(x, w):
        y = (x @ w).tanh()
        # exp saves its output, a tensor that is not the region's output
        return y.exp() * 2.0 if state["extra"] else y

    state["extra"] = True
    out = checkpoint(shrinks, x, ws[0]).sum()
    state["extra"] = False  # the recomputation skips exp: its saved output never comes
    with pytest.raises(RuntimeError, match=r"shrinks.*saved \d+ tensors but the forward saved \d+"):
        out.backward()

    def dtype_changes(x, w):
        y = x @ w
        return (y if state["extra"] else y.astype("float32")).tanh() * 2.0  # tanh's saved
        # output is then not the region's output, which would be served unrecomputed

    out = checkpoint(dtype_changes, x, ws[0]).sum()
    state["extra"] = True
    with pytest.raises(RuntimeError, match="dtype_changes.*float64 tensor"):
        out.backward()


def test_input_modified_in_place_is_an_error():
    ws, x = params(1), data()
    h = x * 1.0
    out = checkpoint(block, h, ws[0]).sum()
    with fg.no_grad():
        h.add_(fg.ones_like(h))
    with pytest.raises(RuntimeError, match="input 0 was modified in place"):
        out.backward()


@pytest.mark.parametrize("retain_graph", [False, True])
def test_recomputed_tensors_are_freed_once_their_node_ran(retain_graph):
    live = []

    class Probe(PyLayer):  # first op of the region: its backward runs last there
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            gc.collect()
            live.append(
                sum(1 for h in gc.get_objects() if isinstance(h, _Handle) and h.value is not None)
            )
            return g

    ws, x = params(), data()

    def fn(x, *ws):
        h = Probe.apply(x)
        for w in ws:
            h = block(h, w)
        return h

    loss = checkpoint(fn, x, *ws).sum()
    loss.backward(retain_graph=retain_graph)
    assert live == [0]  # with retain_graph too: the graph lives on, recomputed tensors not
    if retain_graph:
        loss.backward()
        assert live == [0, 0]


def test_checkpoint_sequential_and_paddle_recompute():
    fg.seed(0)
    layers = [fg.nn.Linear(W, W, dtype="float64") for _ in range(5)]
    model = fg.nn.Sequential(*[m for layer in layers for m in (layer, fg.nn.Tanh())])
    ps = list(model.parameters())
    x = data()
    model(x).sum().backward()
    plain = grads(ps + [x])
    for segments in (1, 2, 3, 10, 20):
        checkpoint_sequential(model, segments, x).sum().backward()
        same(plain, grads(ps + [x]))
    recompute_sequential({"segments": 3}, model, x).sum().backward()
    same(plain, grads(ps + [x]))
    recompute(model, x, preserve_rng_state=False, use_reentrant=True).sum().backward()
    same(plain, grads(ps + [x]))
    fg.utils.checkpoint.checkpoint(model, x, use_reentrant=False).sum().backward()
    same(plain, grads(ps + [x]))


def test_bad_arguments():
    x = data()
    with pytest.raises(TypeError, match="callable"):
        checkpoint(3, x)
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential([fg.tanh], 0, x)
    with pytest.raises(ValueError, match="use_reentrant=False"):  # as PyTorch
        checkpoint(fg.tanh, x, context_fn=lambda: None)
