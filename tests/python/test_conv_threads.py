"""Convolution across thread counts: the kernels split samples (and depthwise planes)
into blocks over the pool, each block writing its part of the output and of the input
gradient, and the weight gradient summed over blocks in block order. Batches that the
thread count does not divide, batch 1, odd sizes; the forward and input gradient must
give the same bits with 1, 2 (this process, on the project's machines) and 3 threads,
and every result must match a NumPy float64 reference. Also the gradient of ``sum()``
(a broadcast, stride-0 view) made contiguous for the kernels."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import ferrograd as fg
import numpy as np
import pytest
from ferrograd import _core

# (name, x shape, weight shape, padding, groups, path): sizes large enough to go parallel
CASES = [
    ("shift-batch3", (3, 4, 23, 25), (6, 4, 3, 3), 1, 1, "auto"),  # 575 positions: shifted gemm
    ("shift-batch1", (1, 3, 24, 22), (5, 3, 3, 3), 1, 1, "shift"),
    ("shift-batch5-groups", (5, 4, 17, 31), (4, 2, 3, 3), 1, 2, "shift"),
    ("direct-batch3", (3, 8, 13, 17), (8, 1, 3, 3), 1, 8, "auto"),  # depthwise
    ("direct-batch1", (1, 6, 19, 9), (6, 1, 3, 3), 1, 6, "direct"),
    ("direct-batch7-mult", (7, 8, 11, 12), (8, 2, 3, 3), 1, 4, "direct"),
    ("gemm-batch3", (3, 4, 9, 11), (5, 4, 3, 3), 1, 1, "gemm"),
]

CHILD = textwrap.dedent(
    """
    import sys
    import numpy as np
    sys.path.insert(0, {here!r})
    import test_conv_threads as m
    np.savez(sys.argv[1], **m.run_all())
    """
)


def _data(name, xs, ws):
    rng = np.random.default_rng(sum(map(ord, name)))
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) * 0.3).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    return x, w, b


def run_all() -> dict:
    """Forward and the three gradients of every case, for ``out.sum() + (out*g).sum()``
    (the stride-0 gradient of ``sum()`` added to a dense one)."""
    res = {}
    for name, xs, ws, pad, groups, path in CASES:
        xa, wa, ba = _data(name, xs, ws)
        x, w, b = (fg.tensor(a, requires_grad=True) for a in (xa, wa, ba))
        out = _core._conv(x, w, b, [1, 1], [1, 1], [pad, pad], [pad, pad], groups, path)
        g = np.random.default_rng(1).standard_normal(out.shape).astype(np.float32)
        (out.sum() + (out * fg.tensor(g)).sum()).backward()
        res[name + "/out"] = out.numpy()
        for k, v in (("dx", x), ("dw", w), ("db", b)):
            res[f"{name}/{k}"] = v.grad.numpy()
    return res


def _reference(name, xs, ws, pad, groups):
    """float64 forward and gradients (direct sums over the kernel taps)."""
    xa, wa, ba = (a.astype(np.float64) for a in _data(name, xs, ws))
    n, c, h, wd = xa.shape
    o, cg, kh, kw = wa.shape
    og = o // groups
    xp = np.pad(xa, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, o, oh, ow))
    for gi in range(groups):
        xg = xp[:, gi * cg : (gi + 1) * cg]
        wg = wa[gi * og : (gi + 1) * og]
        for a in range(kh):
            for bb in range(kw):
                win = xg[:, :, a : a + oh, bb : bb + ow]
                out[:, gi * og : (gi + 1) * og] += np.einsum("ncij,oc->noij", win, wg[:, :, a, bb])
    out += ba[None, :, None, None]
    g = np.random.default_rng(1).standard_normal(out.shape).astype(np.float32) + 1.0
    dxp = np.zeros_like(xp)
    dw = np.zeros_like(wa)
    for gi in range(groups):
        gg = g[:, gi * og : (gi + 1) * og]
        wg = wa[gi * og : (gi + 1) * og]
        for a in range(kh):
            for bb in range(kw):
                win = xp[:, gi * cg : (gi + 1) * cg, a : a + oh, bb : bb + ow]
                dw[gi * og : (gi + 1) * og, :, a, bb] += np.einsum("noij,ncij->oc", gg, win)
                dxp[:, gi * cg : (gi + 1) * cg, a : a + oh, bb : bb + ow] += np.einsum(
                    "noij,oc->ncij", gg, wg[:, :, a, bb]
                )
    dx = dxp[:, :, pad : pad + h, pad : pad + wd]
    return {"out": out, "dx": dx, "dw": dw, "db": g.sum(axis=(0, 2, 3))}


def _child(threads, tmp_path):
    path = str(tmp_path / f"t{threads}.npz")
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    script = CHILD.format(here=os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run(
        [sys.executable, "-c", script, path], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    with np.load(path) as z:
        return dict(z)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("conv_threads")
    return {"here": run_all(), 1: _child(1, tmp), 3: _child(3, tmp)}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_thread_count_matches_the_reference(results, case):
    name, xs, ws, pad, groups, _ = case
    ref = _reference(name, xs, ws, pad, groups)
    for key in ("here", 1, 3):
        for what, want in ref.items():
            got = results[key][f"{name}/{what}"]
            assert got.shape == want.shape
            scale = max(1.0, float(np.abs(want).max()))
            np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4 * scale, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_forward_and_input_gradient_do_not_depend_on_the_thread_count(results, case):
    # each output and input-gradient element is computed by one task, in the same order,
    # whichever block it falls in; only the weight gradient's block sums may differ
    name = case[0]
    for what in ("out", "dx"):
        a = results["here"][f"{name}/{what}"]
        np.testing.assert_array_equal(a, results[1][f"{name}/{what}"], err_msg=what)
        np.testing.assert_array_equal(a, results[3][f"{name}/{what}"], err_msg=what)


def test_broadcast_views_are_made_contiguous_as_fills():
    # the gradient of sum(): one element broadcast to the whole shape
    s = fg.tensor(np.float32(2.5)).reshape([1, 1, 1]).expand([40, 300, 37]).contiguous()
    np.testing.assert_array_equal(s.numpy(), np.full((40, 300, 37), 2.5, np.float32))
    # a column broadcast along the last dim (inner stride 0), and a row along the first
    col = np.arange(3000, dtype=np.float64).reshape(3000, 1)
    c = fg.tensor(col).expand([3000, 70]).contiguous()
    np.testing.assert_array_equal(c.numpy(), np.broadcast_to(col, (3000, 70)))
    row = np.arange(70, dtype=np.float64)
    r = fg.tensor(row).expand([3000, 70]).contiguous()
    np.testing.assert_array_equal(r.numpy(), np.broadcast_to(row, (3000, 70)))
    # and through the convolution's backward: sum() against an explicit ones gradient
    xa, wa, ba = _data("shift-batch3", (3, 4, 23, 25), (6, 4, 3, 3))
    grads = []
    for explicit in (False, True):
        x = fg.tensor(xa, requires_grad=True)
        out = fg.nn.functional.conv2d(x, fg.tensor(wa), fg.tensor(ba), padding=1)
        if explicit:
            out.backward(fg.tensor(np.ones(out.shape, np.float32)))
        else:
            out.sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
