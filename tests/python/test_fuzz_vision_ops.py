"""Differential fuzzer for ``ferrograd.vision``: the detection ops of ``paddle.vision.ops``
(``nms`` with scores / categories / ``top_k``, ``matrix_nms``, ``box_coder``,
``roi_align``, ``roi_pool``, ``psroi_pool``, ``deform_conv2d``, ``prior_box``,
``yolo_box``, ``distribute_fpn_proposals``) and the image functions of
``vision.transforms.functional`` (``to_tensor``, ``normalize``, ``resize``, ``crop``,
``center_crop``, ``pad``, flips, ``to_grayscale``, the colour adjustments, ``rotate``,
``affine``) on random small inputs, checked against float64 NumPy references written from
Paddle's kernels (paddle/phi/kernels/cpu/*_kernel.cc: the same loops, one sample point at a
time) and from the documented formulas (docs/vision.md), and the gradients of ``roi_align``,
``roi_pool``, ``psroi_pool``, ``box_coder``, ``yolo_box`` and ``deform_conv2d`` with
``ferrograd.autograd.gradcheck`` on small float64 inputs away from kinks. ferrograd has no
torchvision names (``box_iou``, ``batched_nms``, ...): only Paddle's ``vision.ops`` exist,
so this module follows Paddle's semantics (``import ferrograd as paddle``).
Budget: ``FERROGRAD_FUZZ_EXAMPLES``."""

from __future__ import annotations

import colorsys
import math

import ferrograd as fg
import ferrograd.nn.functional as F
import hypothesis.extra.numpy as hnp
import numpy as np
from ferrograd.vision import ops
from ferrograd.vision.transforms import functional as TF
from fuzz_support import CALLS, FUZZ, grad_ok
from hypothesis import assume, given
from hypothesis import strategies as st

paddle = fg  # the dialect rule reads this global: this module's calls are Paddle's

DTYPES = st.sampled_from(["float32", "float64"])
TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=2e-5, atol=2e-5)}


def close(got, want, dtype, what):
    g = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    w = np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    np.testing.assert_allclose(g.astype(np.float64), w, err_msg=what, **TOL[dtype])


def arr(draw, shape, lo=-3.0, hi=3.0):
    return draw(hnp.arrays(np.float64, tuple(shape), elements=st.floats(lo, hi)))


def t(a, dtype="float64"):
    return fg.tensor(np.ascontiguousarray(a), dtype=dtype)


# ------------------------------------------------------------------ boxes
@st.composite
def boxes(draw, n, lo=0.0, hi=8.0, grid=None, min_side=0.0):
    """``[n, 4]`` float64 boxes ``x1, y1, x2, y2`` with ``x2 >= x1 + min_side``; with
    ``grid`` the corners are multiples of it (so IoUs land exactly on thresholds)."""
    if grid:
        k = int((hi - lo) / grid)
        c = np.asarray(
            draw(st.lists(st.integers(0, k), min_size=4 * n, max_size=4 * n)), dtype=np.float64
        ).reshape(n, 4)
        c = lo + c * grid
    else:
        c = arr(draw, (n, 4), lo, hi)
    x1, x2 = np.minimum(c[:, 0], c[:, 2]), np.maximum(c[:, 0], c[:, 2]) + min_side
    y1, y2 = np.minimum(c[:, 1], c[:, 3]), np.maximum(c[:, 1], c[:, 3]) + min_side
    return np.stack([x1, y1, x2, y2], axis=1)


def iou_paddle(a, b):
    """Paddle's CalculateIoU (nms_kernel.h): no "+1", a zero union gives NaN (never above
    the threshold)."""
    iw = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    with np.errstate(all="ignore"):
        return np.float64(inter) / np.float64(union)


def greedy(b, thr):
    """Paddle's NMS kernel: box j is dropped when IoU with an earlier kept box > thr."""
    dropped = [False] * len(b)
    for i in range(len(b)):
        if dropped[i]:
            continue
        for j in range(i + 1, len(b)):
            if not dropped[j] and iou_paddle(b[i], b[j]) > thr:
                dropped[j] = True
    return [i for i in range(len(b)) if not dropped[i]]


def by_score(s, idx):
    # ferrograd documents a stable order for equal scores (ties keep index order)
    return sorted(idx, key=lambda i: (-s[i], i))


@FUZZ
@given(st.data())
def test_nms(data):
    n = data.draw(st.integers(0, 9))
    grid = data.draw(st.sampled_from([None, 1.0, 2.0]))
    b = data.draw(boxes(n, grid=grid))
    thr = data.draw(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) | st.floats(0.05, 0.95))
    dtype = data.draw(DTYPES) if grid else "float64"  # grid corners are exact in float32
    CALLS["nms"] += 1
    got = ops.nms(t(b, dtype), thr).numpy()
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, greedy(b, thr), err_msg="nms without scores")
    if n == 0:
        return
    s = np.asarray(
        data.draw(
            st.lists(st.sampled_from([0.1, 0.5, 0.9]) | st.floats(0, 1), min_size=n, max_size=n)
        )
    )
    s = s.astype(dtype).astype(np.float64)  # the scores as ferrograd sees them
    order = by_score(s, range(n))
    want = [order[k] for k in greedy(b[order], thr)]
    top_k = data.draw(st.none() | st.integers(1, n))
    CALLS["nms"] += 1
    got = ops.nms(t(b, dtype), thr, scores=t(s, dtype), top_k=top_k).numpy()
    np.testing.assert_array_equal(got, want[:top_k], err_msg="nms with scores")
    # categories: each suppressed on its own, the survivors ranked by score together
    cats = np.asarray(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    listed = data.draw(st.lists(st.integers(0, 3), unique=True, min_size=1, max_size=4))
    kept = []
    for c in listed:
        members = by_score(s, [i for i in range(n) if cats[i] == c])
        kept += [members[k] for k in greedy(b[members], thr)]
    # equal scores in index order, whatever their categories (Paddle ranks the kept mask,
    # which is in index order: test_nms_category_ties_regression)
    want = by_score(s, kept)[:top_k]
    CALLS["nms"] += 1
    got = ops.nms(
        t(b, dtype),
        thr,
        scores=t(s, dtype),
        category_idxs=fg.tensor(cats),
        categories=listed,
        top_k=top_k,
    ).numpy()
    np.testing.assert_array_equal(got, want, err_msg="nms with categories")


def jaccard(a, b, normalized):
    """Paddle's JaccardOverlap (pixel boxes, ``normalized=False``, are one wider)."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    off = 0.0 if normalized else 1.0
    iw = min(a[2], b[2]) - max(a[0], b[0]) + off
    ih = min(a[3], b[3]) - max(a[1], b[1]) + off
    inter = iw * ih
    area = lambda q: (q[2] - q[0] + off) * (q[3] - q[1] + off)  # noqa: E731
    with np.errstate(invalid="ignore", divide="ignore"):  # degenerate boxes: 0 / 0, as C++
        return inter / (area(a) + area(b) - inter)


def matrix_nms_ref(bb, sc, st_, pt, top, keep, gauss, sigma, bg, normalized):
    """Paddle's NMSMatrix / MultiClassMatrixNMS (matrix_nms_kernel.cc), one image at a time:
    candidates scoring > score_threshold, the best nms_top_k; decayed scores kept when
    > post_threshold; per image the best keep_top_k."""
    rows, index, counts = [], [], []
    n, m = bb.shape[:2]
    for img in range(n):
        dets = []
        for c in range(sc.shape[1]):
            if c == bg:
                continue
            s = sc[img, c]
            perm = sorted([i for i in range(m) if s[i] > st_], key=lambda i: (-s[i], i))
            if top > -1:
                perm = perm[:top]
            if not perm:
                continue
            k = len(perm)
            iou = np.zeros((k, k))
            for i in range(k):
                for j in range(i):
                    iou[i, j] = jaccard(bb[img, perm[i]], bb[img, perm[j]], normalized)
            iou_max = np.array([iou[i, :i].max(initial=0.0) for i in range(k)])
            for i in range(k):
                decay = 1.0
                for j in range(i):
                    if gauss:
                        d = math.exp((iou_max[j] ** 2 - iou[i, j] ** 2) * sigma)
                    else:
                        d = (1 - iou[i, j]) / (1 - iou_max[j])
                    decay = min(decay, d)
                ds = decay * s[perm[i]]
                if ds > pt:
                    dets.append((ds, c, perm[i]))
        dets.sort(key=lambda d: -d[0])
        if keep > -1:
            dets = dets[:keep]
        for score, label, box in dets:
            rows.append([label, score, *bb[img, box]])
            index.append(img * m + box)
        counts.append(len(dets))
    return np.asarray(rows).reshape(-1, 6), np.asarray(index).reshape(-1, 1), counts


@FUZZ
@given(st.data())
def test_matrix_nms(data):
    n, m, c = (
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 6)),
        data.draw(st.integers(1, 3)),
    )
    normalized = data.draw(st.booleans())
    bb = np.stack([data.draw(boxes(m, 0.0, 1.0 if normalized else 8.0)) for _ in range(n)])
    # distinct scores and decays away from the thresholds (ties order as Paddle's partial
    # sort does; scores exactly at a threshold: test_matrix_nms_post_threshold_regression)
    sc = arr(data.draw, (n, c, m), 0.0, 1.0)
    assume(len(np.unique(sc)) == sc.size)
    st_, pt = data.draw(st.floats(0.0, 0.5)), data.draw(st.floats(0.0, 0.5))
    top, keep = data.draw(st.sampled_from([-1, 1, 3])), data.draw(st.sampled_from([-1, 2, 5]))
    gauss, sigma = data.draw(st.booleans()), data.draw(st.sampled_from([0.5, 2.0]))
    bg = data.draw(st.sampled_from([-1, 0, 1]))
    rows, index, counts = matrix_nms_ref(bb, sc, st_, pt, top, keep, gauss, sigma, bg, normalized)
    assume(np.all(np.abs(sc - st_) > 1e-9))
    assume(rows.size == 0 or len(np.unique(rows[:, 1])) == rows.shape[0])
    CALLS["matrix_nms"] += 1
    out, num, idx = ops.matrix_nms(
        t(bb),
        t(sc),
        st_,
        pt,
        top,
        keep,
        use_gaussian=gauss,
        gaussian_sigma=sigma,
        background_label=bg,
        normalized=normalized,
        return_index=True,
    )
    # a decayed score within rounding of post_threshold could go either way
    _, _, loose = matrix_nms_ref(bb, sc, st_, pt - 1e-9, top, keep, gauss, sigma, bg, normalized)
    assume(loose == counts)
    close(out, rows, "float64", "matrix_nms out")
    np.testing.assert_array_equal(idx.numpy(), index, err_msg="matrix_nms index")
    np.testing.assert_array_equal(num.numpy(), counts, err_msg="matrix_nms rois_num")
    assert num.numpy().dtype == np.int32 and idx.numpy().dtype == np.int64


# ------------------------------------------------------------------ box_coder
def box_coder_ref(prior, var, target, code, normalized, axis):
    """Paddle's EncodeCenterSize / DecodeCenterSize (box_coder_kernel.cc)."""
    off = 0.0 if normalized else 1.0
    pw, ph = prior[:, 2] - prior[:, 0] + off, prior[:, 3] - prior[:, 1] + off
    pcx, pcy = prior[:, 0] + pw / 2, prior[:, 1] + ph / 2
    if code == "encode_center_size":
        out = np.zeros((target.shape[0], prior.shape[0], 4))
        for i in range(target.shape[0]):
            tx1, ty1, tx2, ty2 = target[i]
            tcx, tcy = (tx2 + tx1) / 2, (ty2 + ty1) / 2
            tw, th = tx2 - tx1 + off, ty2 - ty1 + off
            for j in range(prior.shape[0]):
                out[i, j] = [
                    (tcx - pcx[j]) / pw[j],
                    (tcy - pcy[j]) / ph[j],
                    math.log(abs(tw / pw[j])),
                    math.log(abs(th / ph[j])),
                ]
                if var is not None:
                    out[i, j] /= var[j] if var.ndim == 2 else var
        return out
    out = np.zeros(target.shape)
    for i in range(target.shape[0]):
        for j in range(target.shape[1]):
            p = j if axis == 0 else i
            v = np.ones(4) if var is None else (var[p] if var.ndim == 2 else var)
            d = target[i, j]
            cx = v[0] * d[0] * pw[p] + pcx[p]
            cy = v[1] * d[1] * ph[p] + pcy[p]
            w = math.exp(v[2] * d[2]) * pw[p]
            h = math.exp(v[3] * d[3]) * ph[p]
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off]
    return out


@FUZZ
@given(st.sampled_from(["encode_center_size", "decode_center_size"]), DTYPES, st.data())
def test_box_coder(code, dtype, data):
    m, n = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    normalized, axis = data.draw(st.booleans()), data.draw(st.sampled_from([0, 1]))
    prior = data.draw(boxes(m, 0.0, 10.0, min_side=0.5))
    kind = data.draw(st.sampled_from(["none", "list", "tensor"]))
    var = {
        "none": None,
        "list": np.asarray(data.draw(st.lists(st.floats(0.1, 2), min_size=4, max_size=4))),
        "tensor": arr(data.draw, (m, 4), 0.1, 2.0),
    }[kind]
    if code == "encode_center_size":
        target = data.draw(boxes(n, 0.0, 10.0, min_side=0.5))
    else:
        rows = m if axis == 1 else n
        cols = m if axis == 0 else n
        target = arr(data.draw, (rows, cols, 4), -1.0, 1.0)
    if dtype == "float32":
        prior, target = prior.astype(np.float32), target.astype(np.float32)
        var = None if var is None else var.astype(np.float32)
    want = box_coder_ref(
        prior.astype(np.float64),
        None if var is None else var.astype(np.float64),
        target.astype(np.float64),
        code,
        normalized,
        axis,
    )
    pv = None if var is None else (t(var, dtype) if kind == "tensor" else list(map(float, var)))
    CALLS["box_coder"] += 1
    got = ops.box_coder(t(prior, dtype), pv, t(target, dtype), code, normalized, axis)
    assert got.dtype.name == dtype
    tol = TOL[dtype] if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, err_msg=code, **tol)
    if dtype == "float64":
        grad_ok(
            lambda p, q: ops.box_coder(p, pv, q, code, normalized, axis),
            prior,
            target,
        )


# ------------------------------------------------------------------ roi ops
def bilinear_paddle(img, y, x):
    """Paddle's / torchvision's roi_align sample of ``img`` [C, H, W] at (y, x)."""
    _, h, w = img.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    hy, hx = 1 - ly, 1 - lx
    return (
        hy * hx * img[:, yl, xl]
        + hy * lx * img[:, yl, xh]
        + ly * hx * img[:, yh, xl]
        + ly * lx * img[:, yh, xh]
    )


def roi_align_ref(x, b, batch, ph, pw, scale, ratio, aligned):
    """RoiAlignKernel (roi_align_kernel.cc), one sample point at a time."""
    out = np.zeros((b.shape[0], x.shape[1], ph, pw))
    off = 0.5 if aligned else 0.0
    for r in range(b.shape[0]):
        x1, y1, x2, y2 = b[r] * scale - off
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        bh, bw = rh / ph, rw / pw
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(x.shape[1])
                for iy in range(gh):
                    yy = y1 + bh * (i + (iy + 0.5) / gh)
                    for ix in range(gw):
                        xx = x1 + bw * (j + (ix + 0.5) / gw)
                        acc += bilinear_paddle(x[batch[r]], yy, xx)
                out[r, :, i, j] = acc / (gh * gw)
    return out


@st.composite
def roi_setup(draw, channels=None):
    n = draw(st.integers(1, 2))
    c = draw(st.integers(1, 2)) if channels is None else channels
    h, w = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    x = arr(draw, (n, c, h, w))
    counts = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    assume(n == 1 or sum(counts) > 0)
    scale = draw(st.sampled_from([1.0, 0.5, 2.0]))
    b = draw(boxes(sum(counts), -2.0 / scale, (max(h, w) + 2) / scale, min_side=0.1))
    return x, b, counts, np.repeat(np.arange(n), counts), scale


def counts_arg(draw, counts, n):
    kind = draw(st.sampled_from(["int32", "int64", "list"] + (["none"] if n == 1 else [])))
    if kind == "none":
        return None
    if kind == "list":
        return list(counts)
    return fg.tensor(np.asarray(counts), dtype=kind)


@FUZZ
@given(st.data())
def test_roi_align(data):
    x, b, counts, batch, scale = data.draw(roi_setup())
    ph, pw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    ratio = data.draw(st.sampled_from([-1, 0, 1, 2, 3]))
    aligned = data.draw(st.booleans())
    dtype = data.draw(DTYPES)
    want = roi_align_ref(x, b, batch, ph, pw, scale, ratio, aligned)
    size = data.draw(st.sampled_from([(ph, pw), [ph, pw]] + ([ph] if ph == pw else [])))
    bn = counts_arg(data.draw, counts, x.shape[0])
    CALLS["roi_align"] += 1
    got = ops.roi_align(t(x, dtype), t(b, dtype), bn, size, scale, ratio, aligned)
    assert got.dtype.name == dtype
    tol = TOL["float64"] if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    if dtype == "float32":  # the boxes rounded to float32 move the sample points
        want = roi_align_ref(
            x, b.astype(np.float32).astype(np.float64), batch, ph, pw, scale, ratio, aligned
        )
    np.testing.assert_allclose(got.numpy(), want, err_msg="roi_align", **tol)
    if ratio != 0 and ph == pw:
        CALLS["roi_align"] += 1
        layer = ops.RoIAlign(ph, scale)
        got = layer(t(x), t(b), bn, aligned=aligned)
        np.testing.assert_allclose(
            got.numpy(),
            roi_align_ref(x, b, batch, ph, pw, scale, -1, aligned),
            err_msg="RoIAlign",
            **TOL["float64"],
        )
    if b.shape[0]:
        grad_ok(lambda u: ops.roi_align(u, t(b), bn, size, scale, ratio, aligned), x)


def roi_pool_ref(x, b, batch, ph, pw, scale):
    """RoiPoolKernel (roi_pool_kernel.cc): rounded corners, float32 bin sizes."""
    out = np.zeros((b.shape[0], x.shape[1], ph, pw))
    _, _, h, w = x.shape
    rnd = lambda v: int(math.copysign(math.floor(abs(v) + 0.5), v))  # noqa: E731  C round()
    f32 = np.float32
    for r in range(b.shape[0]):
        sw, sh, ew, eh = (rnd(float(f32(v) * f32(scale))) for v in b[r])
        bhgt, bwid = max(eh - sh + 1, 1), max(ew - sw + 1, 1)
        bin_h, bin_w = f32(bhgt) / f32(ph), f32(bwid) / f32(pw)
        for i in range(ph):
            hs = min(max(int(math.floor(f32(i) * bin_h)) + sh, 0), h)
            he = min(max(int(math.ceil(f32(i + 1) * bin_h)) + sh, 0), h)
            for j in range(pw):
                ws = min(max(int(math.floor(f32(j) * bin_w)) + sw, 0), w)
                we = min(max(int(math.ceil(f32(j + 1) * bin_w)) + sw, 0), w)
                if he <= hs or we <= ws:
                    continue
                out[r, :, i, j] = x[batch[r], :, hs:he, ws:we].reshape(x.shape[1], -1).max(1)
    return out


@FUZZ
@given(st.data())
def test_roi_pool(data):
    x, b, counts, batch, scale = data.draw(roi_setup())
    ph, pw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    # corners away from the .5 rounding ties of float32 vs float64 products
    assume(np.all(np.abs((b * scale) % 1.0 - 0.5) > 1e-4))
    bn = counts_arg(data.draw, counts, x.shape[0])
    want = roi_pool_ref(x, b, batch, ph, pw, scale)
    CALLS["roi_pool"] += 1
    got = ops.roi_pool(t(x), t(b), bn, (ph, pw), scale)
    np.testing.assert_allclose(got.numpy(), want, err_msg="roi_pool", **TOL["float64"])
    CALLS["roi_pool"] += 1
    got = ops.RoIPool((ph, pw), scale)(t(x, "float32"), t(b, "float32"), bn)
    assert got.dtype.name == "float32"
    np.testing.assert_allclose(got.numpy(), want, err_msg="RoIPool float32", **TOL["float32"])
    # the gradient goes to each bin's maximum: distinct values keep the max unique
    xs = np.arange(x.size, dtype=np.float64).reshape(x.shape)
    xs = np.asarray(data.draw(st.permutations(list(xs.ravel())))).reshape(x.shape) * 0.1
    if b.shape[0]:
        grad_ok(lambda u: ops.roi_pool(u, t(b), bn, (ph, pw), scale), np.asarray(xs))


def psroi_pool_ref(x, b, batch, ph, pw, scale):
    """PsroiPoolKernel (psroi_pool_kernel.cc)."""
    oc = x.shape[1] // (ph * pw)
    _, _, h, w = x.shape
    out = np.zeros((b.shape[0], oc, ph, pw))
    rnd = lambda v: math.copysign(math.floor(abs(v) + 0.5), v)  # noqa: E731
    for r in range(b.shape[0]):
        sw, sh = rnd(b[r, 0]) * scale, rnd(b[r, 1]) * scale
        ew, eh = (rnd(b[r, 2]) + 1.0) * scale, (rnd(b[r, 3]) + 1.0) * scale
        rh, rw = max(eh - sh, 0.1), max(ew - sw, 0.1)
        bh, bw = rh / ph, rw / pw
        for c in range(oc):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(i * bh + sh), 0), h)
                    ws = min(max(math.floor(j * bw + sw), 0), w)
                    he = min(max(math.ceil((i + 1) * bh + sh), 0), h)
                    we = min(max(math.ceil((j + 1) * bw + sw), 0), w)
                    if he <= hs or we <= ws:
                        continue
                    ch = (c * ph + i) * pw + j
                    out[r, c, i, j] = x[batch[r], ch, hs:he, ws:we].mean()
    return out


@FUZZ
@given(st.data())
def test_psroi_pool(data):
    ph, pw, oc = (
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 2)),
    )
    x, b, counts, batch, scale = data.draw(roi_setup(channels=oc * ph * pw))
    assume(np.all(np.abs(b % 1.0 - 0.5) > 1e-9))
    bn = counts_arg(data.draw, counts, x.shape[0])
    want = psroi_pool_ref(x, b, batch, ph, pw, scale)
    CALLS["psroi_pool"] += 1
    got = ops.psroi_pool(t(x), t(b), bn, (ph, pw), scale)
    np.testing.assert_allclose(got.numpy(), want, err_msg="psroi_pool", **TOL["float64"])
    CALLS["psroi_pool"] += 1
    got = ops.PSRoIPool((ph, pw), scale)(t(x, "float32"), t(b, "float32"), bn)
    np.testing.assert_allclose(got.numpy(), want, err_msg="PSRoIPool", **TOL["float32"])
    if b.shape[0]:
        grad_ok(lambda u: ops.psroi_pool(u, t(b), bn, (ph, pw), scale), x)


# ------------------------------------------------------------------ deform_conv2d
def deform_ref(x, off, wgt, bias, stride, pad, dil, dg, groups, mask):
    """Deformable conv v1/v2 as Paddle's deformable_im2col: tap (i, j) of deformable group
    g reads offset channels 2 * (g * K + i * kW + j) (dy) and + 1 (dx); a sample point is
    used when -1 < y < H and -1 < x < W, its corners outside the image read 0."""
    n, c, h, w = x.shape
    m, cg, kh, kw = wgt.shape
    ho, wo = off.shape[2], off.shape[3]
    k = kh * kw
    cols = np.zeros((n, c, k, ho, wo))
    for b in range(n):
        for ch in range(c):
            g = ch // (c // dg)
            for i in range(kh):
                for j in range(kw):
                    tap = i * kw + j
                    for oy in range(ho):
                        for ox in range(wo):
                            y = (
                                oy * stride[0]
                                - pad[0]
                                + i * dil[0]
                                + off[b, 2 * (g * k + tap), oy, ox]
                            )
                            xx = (
                                ox * stride[1]
                                - pad[1]
                                + j * dil[1]
                                + off[b, 2 * (g * k + tap) + 1, oy, ox]
                            )
                            v = 0.0
                            if -1 < y < h and -1 < xx < w:
                                y0, x0 = math.floor(y), math.floor(xx)
                                for cy in (0, 1):
                                    for cx in (0, 1):
                                        yi, xi = y0 + cy, x0 + cx
                                        if 0 <= yi < h and 0 <= xi < w:
                                            wy = (y - y0) if cy else (1 - (y - y0))
                                            wx = (xx - x0) if cx else (1 - (xx - x0))
                                            v += wy * wx * x[b, ch, yi, xi]
                            if mask is not None:
                                v *= mask[b, g * k + tap, oy, ox]
                            cols[b, ch, tap, oy, ox] = v
    out = np.zeros((n, m, ho, wo))
    mg = m // groups
    for gi in range(groups):
        col = cols[:, gi * cg : (gi + 1) * cg].reshape(n, cg * k, ho * wo)
        wm = wgt[gi * mg : (gi + 1) * mg].reshape(mg, cg * k)
        out[:, gi * mg : (gi + 1) * mg] = np.einsum("oc,ncp->nop", wm, col).reshape(n, mg, ho, wo)
    if bias is not None:
        out += bias[None, :, None, None]
    return out


@st.composite
def deform_setup(draw, smooth=False):
    groups, dg = draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 2]))
    c = draw(st.sampled_from([2, 4])) if max(groups, dg) > 1 else draw(st.integers(1, 2))
    m = groups * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    n = draw(st.integers(1, 2)) if not smooth else 1
    h, w = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    ho = (h + 2 * pad[0] - (dil[0] * (kh - 1) + 1)) // stride[0] + 1
    wo = (w + 2 * pad[1] - (dil[1] * (kw - 1) + 1)) // stride[1] + 1
    assume(ho > 0 and wo > 0)
    x = arr(draw, (n, c, h, w))
    wgt = arr(draw, (m, c // groups, kh, kw))
    bias = arr(draw, (m,)) if draw(st.booleans()) else None
    if smooth:  # sample points strictly inside cells, away from the kinks at integers
        frac = arr(draw, (n, 2 * dg * kh * kw, ho, wo), 0.15, 0.85)
        whole = draw(hnp.arrays(np.int64, frac.shape, elements=st.integers(-1, 1)))
        off = whole + frac
    else:
        off = arr(draw, (n, 2 * dg * kh * kw, ho, wo), -2.5, 2.5)
    mask = arr(draw, (n, dg * kh * kw, ho, wo), 0.0, 1.0) if draw(st.booleans()) else None
    return x, off, wgt, bias, stride, pad, dil, dg, groups, mask


@FUZZ
@given(DTYPES, st.data())
def test_deform_conv2d(dtype, data):
    x, off, wgt, bias, stride, pad, dil, dg, groups, mask = data.draw(deform_setup())
    want = deform_ref(x, off, wgt, bias, stride, pad, dil, dg, groups, mask)
    tt = lambda a: None if a is None else t(a, dtype)  # noqa: E731
    CALLS["deform_conv2d"] += 1
    got = ops.deform_conv2d(
        tt(x), tt(off), tt(wgt), tt(bias), stride, pad, dil, dg, groups, tt(mask)
    )
    assert got.dtype.name == dtype
    tol = TOL["float64"] if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    if dtype == "float32":
        want = deform_ref(
            x,
            off.astype(np.float32).astype(np.float64),
            wgt,
            bias,
            stride,
            pad,
            dil,
            dg,
            groups,
            mask,
        )
    np.testing.assert_allclose(got.numpy(), want, err_msg="deform_conv2d", **tol)
    # zero offsets and no mask: an ordinary convolution
    CALLS["deform_conv2d"] += 1
    got = ops.deform_conv2d(
        tt(x), tt(np.zeros_like(off)), tt(wgt), tt(bias), stride, pad, dil, dg, groups
    )
    conv = F.conv2d(tt(x), tt(wgt), tt(bias), stride, pad, dil, groups)
    np.testing.assert_allclose(got.numpy(), conv.numpy(), err_msg="offsets 0 != conv2d", **tol)


@FUZZ
@given(st.data())
def test_deform_conv2d_grad(data):
    x, off, wgt, bias, stride, pad, dil, dg, groups, mask = data.draw(deform_setup(smooth=True))
    ins = [x, off, wgt] + [a for a in (bias, mask) if a is not None]

    def fn(*u):
        u = list(u)
        b = u.pop(3) if bias is not None else None
        mk = u.pop(3) if mask is not None else None
        return ops.deform_conv2d(u[0], u[1], u[2], b, stride, pad, dil, dg, groups, mk)

    grad_ok(fn, *ins)


# ------------------------------------------------------------------ anchors, yolo, fpn
def prior_box_ref(fh, fw, ih, iw, mins, maxs, ratios, var, flip, clip, steps, offset, order):
    """PriorBoxKernel (prior_box_kernel.cc): a step of 0 in either direction makes both
    the image size over the map size."""
    ars = [1.0]
    for ar in ratios:
        if all(abs(ar - s) >= 1e-6 for s in ars):
            ars.append(ar)
            if flip:
                ars.append(1.0 / ar)
    if steps[0] == 0 or steps[1] == 0:
        sw, sh = iw / fw, ih / fh
    else:
        sw, sh = steps
    out = []
    for hh in range(fh):
        for ww in range(fw):
            cx, cy = (ww + offset) * sw, (hh + offset) * sh
            cell = []
            for s, mn in enumerate(mins):
                shaped = [(mn * math.sqrt(a) / 2, mn / math.sqrt(a) / 2) for a in ars]
                sq = [(math.sqrt(mn * maxs[s]) / 2,) * 2] if maxs else []
                if order:
                    cell += [(mn / 2, mn / 2)] + sq
                    cell += [hw for a, hw in zip(ars, shaped) if abs(a - 1.0) >= 1e-6]
                else:
                    cell += shaped + sq
            out.append(
                [
                    [(cx - bw) / iw, (cy - bh) / ih, (cx + bw) / iw, (cy + bh) / ih]
                    for bw, bh in cell
                ]
            )
    b = np.asarray(out).reshape(fh, fw, -1, 4)
    if clip:
        b = np.clip(b, 0.0, 1.0)
    return b, np.broadcast_to(np.asarray(var, dtype=np.float64), b.shape)


@FUZZ
@given(DTYPES, st.data())
def test_prior_box(dtype, data):
    fh, fw = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    ih, iw = data.draw(st.integers(4, 40)), data.draw(st.integers(4, 40))
    mins = data.draw(st.lists(st.sampled_from([2.0, 4.0, 8.0, 16.0]), min_size=1, max_size=2))
    maxs = [2.0 * v for v in mins] if data.draw(st.booleans()) else None
    ratios = data.draw(st.lists(st.sampled_from([1.0, 2.0, 0.5, 4.0, 3.0]), max_size=3))
    var = data.draw(st.lists(st.sampled_from([0.1, 0.2, 0.5]), min_size=4, max_size=4))
    flip, clip, order = (data.draw(st.booleans()) for _ in range(3))
    # a 0 on one side makes both automatic (test_prior_box_one_zero_step_regression)
    steps = data.draw(st.sampled_from([(0.0, 0.0), (4.0, 8.0), (2.0, 2.0), (4.0, 0.0), (0.0, 8.0)]))
    offset = data.draw(st.sampled_from([0.5, 0.0, 0.25]))
    feat = fg.zeros([1, 2, fh, fw], dtype=dtype)
    image = fg.zeros([1, 3, ih, iw], dtype=dtype)
    want_b, want_v = prior_box_ref(
        fh, fw, ih, iw, mins, maxs or [], ratios or [], var, flip, clip, steps, offset, order
    )
    CALLS["prior_box"] += 1
    b, v = ops.prior_box(
        feat, image, mins, maxs, ratios or [1.0], var, flip, clip, steps, offset, order
    )
    assert b.dtype.name == dtype and v.dtype.name == dtype
    tol = dict(rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b.numpy(), want_b, err_msg="prior_box boxes", **tol)
    np.testing.assert_allclose(v.numpy(), want_v, err_msg="prior_box variances", **tol)


def sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def yolo_box_ref(x, img, anchors, cn, thr, ds, clip, sxy, iou_aware, factor):
    """YoloBoxKernel (yolo_box_kernel.cc, yolo_box_util.h)."""
    n, _, h, w = x.shape
    s = len(anchors) // 2
    boxes_, scores_ = np.zeros((n, s * h * w, 4)), np.zeros((n, s * h * w, cn))
    bias = -0.5 * (sxy - 1.0)
    for b in range(n):
        ih, iw = img[b]
        for a in range(s):
            for k in range(h):
                for l_ in range(w):
                    base = s + a * (5 + cn) if iou_aware else a * (5 + cn)
                    p = x[b, base : base + 5 + cn, k, l_]
                    conf = sig(p[4])
                    if iou_aware:
                        conf = conf ** (1 - factor) * sig(x[b, a, k, l_]) ** factor
                    if conf < thr:
                        continue
                    cx = (l_ + sig(p[0]) * sxy + bias) * iw / w
                    cy = (k + sig(p[1]) * sxy + bias) * ih / h
                    bw = np.exp(p[2]) * anchors[2 * a] * iw / (ds * w)
                    bh = np.exp(p[3]) * anchors[2 * a + 1] * ih / (ds * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip:
                        box = [
                            max(box[0], 0),
                            max(box[1], 0),
                            min(box[2], iw - 1),
                            min(box[3], ih - 1),
                        ]
                    idx = a * h * w + k * w + l_
                    boxes_[b, idx] = box
                    scores_[b, idx] = conf * sig(p[5:])
    return boxes_, scores_


@FUZZ
@given(st.data())
def test_yolo_box(data):
    n, h, w = (
        data.draw(st.integers(1, 2)),
        data.draw(st.integers(1, 3)),
        data.draw(st.integers(1, 3)),
    )
    s, cn = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3))
    iou_aware = data.draw(st.booleans())
    x = arr(data.draw, (n, s * (5 + cn) + (s if iou_aware else 0), h, w))
    anchors = data.draw(st.lists(st.integers(1, 30), min_size=2 * s, max_size=2 * s))
    img = np.asarray(data.draw(st.lists(st.integers(8, 64), min_size=2 * n, max_size=2 * n)))
    img = img.reshape(n, 2)
    thr, ds = data.draw(st.sampled_from([0.0, 0.3, 0.6])), data.draw(st.sampled_from([8, 32]))
    clip, sxy = data.draw(st.booleans()), data.draw(st.sampled_from([1.0, 1.2]))
    factor = data.draw(st.sampled_from([0.5, 0.3]))
    want_b, want_s = yolo_box_ref(x, img, anchors, cn, thr, ds, clip, sxy, iou_aware, factor)
    CALLS["yolo_box"] += 1
    b, sc = ops.yolo_box(
        t(x),
        fg.tensor(img, dtype="int32"),
        anchors,
        cn,
        thr,
        ds,
        clip,
        scale_x_y=sxy,
        iou_aware=iou_aware,
        iou_aware_factor=factor,
    )
    np.testing.assert_allclose(b.numpy(), want_b, err_msg="yolo_box boxes", **TOL["float64"])
    np.testing.assert_allclose(sc.numpy(), want_s, err_msg="yolo_box scores", **TOL["float64"])
    # the gradient, at logits whose confidences are away from the threshold and whose
    # boxes are away from the clip edges
    if thr == 0.0:
        grad_ok(
            lambda u: (
                ops.yolo_box(
                    u,
                    fg.tensor(img, dtype="int32"),
                    anchors,
                    cn,
                    0.0,
                    ds,
                    False,
                    scale_x_y=sxy,
                    iou_aware=iou_aware,
                    iou_aware_factor=factor,
                )[0]
                * 1e-2
            ),
            x,
        )


@FUZZ
@given(st.data())
def test_distribute_fpn_proposals(data):
    r = data.draw(st.integers(1, 8))
    pixel = data.draw(st.booleans())
    rois = data.draw(boxes(r, 0.0, 600.0))
    lo = data.draw(st.integers(1, 3))
    hi = lo + data.draw(st.integers(0, 3))
    refer_level, refer_scale = data.draw(st.integers(lo, hi)), data.draw(st.sampled_from([56, 224]))
    off = 1.0 if pixel else 0.0
    w, h = rois[:, 2] - rois[:, 0], rois[:, 3] - rois[:, 1]
    area = np.where((w < 0) | (h < 0), 0.0, (w + off) * (h + off))
    # Paddle's CPU kernel adds 1e-6 (distribute_fpn_proposals_kernel.cc), pinned exactly
    # by test_distribute_fpn_proposals_epsilon_regression; here ratios near a power of two
    # (where rounding could tip the level) are left out
    ratio = np.sqrt(area) / refer_scale
    assume(
        np.all(
            np.abs(
                np.log2(np.maximum(ratio, 1e-300)) - np.round(np.log2(np.maximum(ratio, 1e-300)))
            )
            > 1e-5
        )
    )
    level = np.floor(np.log2(ratio + 1e-6) + refer_level)
    level = np.clip(level, lo, hi).astype(int)
    counts = None
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(0, r))
        counts = np.asarray([cut, r - cut], dtype=np.int32)
    CALLS["distribute_fpn_proposals"] += 1
    multi, restore, per = ops.distribute_fpn_proposals(
        t(rois),
        lo,
        hi,
        refer_level,
        refer_scale,
        pixel,
        None if counts is None else fg.tensor(counts),
    )
    assert len(multi) == hi - lo + 1
    order = []
    for k, lvl in enumerate(range(lo, hi + 1)):
        members = np.nonzero(level == lvl)[0]
        order += list(members)
        close(multi[k], rois[members].reshape(-1, 4), "float64", f"level {lvl} rois")
        if counts is not None:
            img = np.repeat([0, 1], counts)
            np.testing.assert_array_equal(per[k].numpy(), np.bincount(img[members], minlength=2))
    want = np.empty(r, dtype=np.int64)
    want[np.asarray(order, dtype=np.int64)] = np.arange(r)
    assert restore.numpy().dtype == np.int32
    np.testing.assert_array_equal(restore.numpy().reshape(-1), want, err_msg="restore_ind")
    cat = np.concatenate([m.numpy() for m in multi])
    np.testing.assert_array_equal(cat[restore.numpy().reshape(-1)], rois)
    assert (per is None) == (counts is None)


def proposals_ref(sc, dl, sizes, anc, var, pre, post, thr, min_size, eta, pixel):
    """ProposalForOneImage (generate_proposals_kernel.cc) per image: the best ``pre`` by
    score, decoded (log-sizes capped at log(1000 / 16)), clipped, filtered, then Paddle's
    adaptive NMS (JaccardOverlap, pixel boxes one wider) in score order."""
    n, a, h, w = sc.shape
    off = 1.0 if pixel else 0.0
    clip_log = math.log(1000.0 / 16.0)
    rois, probs, counts = [], [], []
    for i in range(n):
        s = sc[i].transpose(1, 2, 0).reshape(-1)
        d = dl[i].transpose(1, 2, 0).reshape(-1, 4)
        order = sorted(range(s.size), key=lambda k: -s[k])
        if 0 < pre < s.size:
            order = order[:pre]
        props, kept = [], []
        im_h, im_w = sizes[i]
        for k in order:
            ax1, ay1, ax2, ay2 = anc[k]
            aw, ah = ax2 - ax1 + off, ay2 - ay1 + off
            acx, acy = ax1 + 0.5 * aw, ay1 + 0.5 * ah
            cx = var[k, 0] * d[k, 0] * aw + acx
            cy = var[k, 1] * d[k, 1] * ah + acy
            bw = math.exp(min(var[k, 2] * d[k, 2], clip_log)) * aw
            bh = math.exp(min(var[k, 3] * d[k, 3], clip_log)) * ah
            box = [cx - bw / 2, cy - bh / 2, cx + bw / 2 - off, cy + bh / 2 - off]
            box = [
                max(min(box[0], im_w - off), 0),
                max(min(box[1], im_h - off), 0),
                max(min(box[2], im_w - off), 0),
                max(min(box[3], im_h - off), 0),
            ]
            ws, hs = box[2] - box[0] + off, box[3] - box[1] + off
            ms = max(min_size, 1.0)
            ok = ws >= ms and hs >= ms
            if pixel:
                ok = ok and box[0] + ws / 2 <= im_w and box[1] + hs / 2 <= im_h
            if ok:
                props.append(box)
                kept.append(s[k])
        if not props:
            props, kept = [[0.0] * 4], [0.0]
        elif thr > 0:
            sel, adaptive = [], thr
            for k in sorted(range(len(props)), key=lambda q: -kept[q]):
                flag = all(jaccard(props[k], props[j], not pixel) <= adaptive for j in sel)
                if flag:
                    sel.append(k)
                    if eta < 1 and adaptive > 0.5:
                        adaptive *= eta
            if 0 < post < len(sel):
                sel = sel[:post]
            props, kept = [props[k] for k in sel], [kept[k] for k in sel]
        rois += props
        probs += kept
        counts.append(len(props))
    return np.asarray(rois).reshape(-1, 4), np.asarray(probs).reshape(-1, 1), counts


@FUZZ
@given(st.data())
def test_generate_proposals(data):
    n, a = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    h, w = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    sc = arr(data.draw, (n, a, h, w), 0.0, 1.0)
    assume(all(len(np.unique(sc[i])) == sc[i].size for i in range(n)))
    dl = arr(data.draw, (n, 4 * a, h, w), -1.0, 1.0)
    anc = data.draw(boxes(h * w * a, 0.0, 20.0, min_side=1.0))
    var = arr(data.draw, (h * w * a, 4), 0.1, 1.0)
    sizes = np.asarray(data.draw(st.lists(st.integers(8, 24), min_size=2 * n, max_size=2 * n)))
    sizes = sizes.reshape(n, 2).astype(np.float64)
    pre, post = data.draw(st.sampled_from([-1, 0, 2, 5])), data.draw(st.sampled_from([-1, 1, 3]))
    thr = data.draw(st.sampled_from([0.0, 0.3, 0.5, 0.7, 0.9]))
    eta = data.draw(st.sampled_from([1.0, 0.9]))
    min_size, pixel = data.draw(st.sampled_from([0.1, 2.0, 4.0])), data.draw(st.booleans())
    rois, probs, counts = proposals_ref(
        sc, dl, sizes, anc, var, pre, post, thr, min_size, eta, pixel
    )
    CALLS["generate_proposals"] += 1
    got_r, got_p, got_n = ops.generate_proposals(
        t(sc),
        t(dl),
        t(sizes),
        t(anc.reshape(h, w, a, 4)),
        t(var.reshape(h, w, a, 4)),
        pre,
        post,
        thr,
        min_size,
        eta,
        pixel,
        return_rois_num=True,
    )
    np.testing.assert_array_equal(got_n.numpy(), counts, err_msg="rpn_rois_num")
    close(got_r, rois, "float64", "rpn_rois")
    close(got_p, probs, "float64", "rpn_roi_probs")


# ------------------------------------------------------------------ transforms
@st.composite
def image(draw, kind=None, channels=None, min_side=1):
    h, w = draw(st.integers(min_side, 6)), draw(st.integers(min_side, 6))
    c = draw(st.sampled_from([1, 3])) if channels is None else channels
    kind = draw(st.sampled_from(["uint8", "float32"])) if kind is None else kind
    if kind == "uint8":
        a = draw(hnp.arrays(np.uint8, (h, w, c), elements=st.integers(0, 255)))
    else:
        a = draw(hnp.arrays(np.float32, (h, w, c), elements=st.floats(0, 1, width=32)))
    return a


def as_input(draw, a):
    """The image as HWC NumPy, HW NumPy (one channel) or a CHW Tensor; and a function
    taking a result back to HWC NumPy."""
    kind = draw(st.sampled_from(["hwc", "tensor"] + (["hw"] if a.shape[2] == 1 else [])))
    if kind == "hwc":
        return a, lambda r: np.asarray(r)
    if kind == "hw":
        return a[:, :, 0], lambda r: np.asarray(r)[:, :, None]
    return fg.tensor(np.ascontiguousarray(a.transpose(2, 0, 1))), lambda r: r.numpy().transpose(
        1, 2, 0
    )


def same_image(got, want, what, atol=0):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if atol:
        np.testing.assert_allclose(
            got.astype(np.float64), want.astype(np.float64), atol=atol, rtol=0, err_msg=what
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def to_dtype(v, like):
    """A float64 result back in the image's dtype: integers rounded and clipped."""
    if like.dtype == np.uint8:
        return np.clip(np.rint(v), 0, 255).astype(np.uint8)
    return v.astype(like.dtype)


@FUZZ
@given(st.data())
def test_to_tensor_normalize(data):
    a = data.draw(image())
    fmt = data.draw(st.sampled_from(["CHW", "HWC"]))
    CALLS["to_tensor"] += 1
    src = a[:, :, 0] if a.shape[2] == 1 and data.draw(st.booleans()) else a
    got = TF.to_tensor(src, data_format=fmt)
    want = a.astype(np.float64) / (255.0 if a.dtype == np.uint8 else 1.0)
    want = want.transpose(2, 0, 1) if fmt == "CHW" else want
    assert got.dtype.name == "float32"
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-7, err_msg="to_tensor")
    c = a.shape[2]
    mean = data.draw(st.lists(st.floats(-1, 1), min_size=c, max_size=c))
    std = data.draw(st.lists(st.floats(0.1, 2), min_size=c, max_size=c))
    to_rgb = data.draw(st.booleans())
    x = want.transpose(1, 2, 0) if fmt == "CHW" else want
    x = x[..., ::-1] if to_rgb else x
    ref = (x - np.asarray(mean)) / np.asarray(std)
    ref = ref.transpose(2, 0, 1) if fmt == "CHW" else ref
    CALLS["normalize"] += 1
    out = TF.normalize(got, mean, std, data_format=fmt, to_rgb=to_rgb)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5, err_msg="normalize")
    CALLS["normalize"] += 1
    out = TF.normalize(got.numpy(), mean, std, data_format=fmt, to_rgb=to_rgb)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5, err_msg="normalize numpy")


def resize_ref(a, oh, ow, interpolation):
    h, w, c = a.shape
    out = np.zeros((oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            if interpolation == "nearest":  # OpenCV's INTER_NEAREST: floor(dst * scale)
                out[i, j] = a[
                    min(int(math.floor(i * h / oh)), h - 1), min(int(math.floor(j * w / ow)), w - 1)
                ]
                continue
            sy = min(max((i + 0.5) * h / oh - 0.5, 0.0), h - 1)
            sx = min(max((j + 0.5) * w / ow - 0.5, 0.0), w - 1)
            y0, x0 = int(math.floor(sy)), int(math.floor(sx))
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = sy - y0, sx - x0
            out[i, j] = (1 - fy) * ((1 - fx) * a[y0, x0] + fx * a[y0, x1]) + fy * (
                (1 - fx) * a[y1, x0] + fx * a[y1, x1]
            )
    return to_dtype(out, a) if interpolation == "bilinear" else out.astype(a.dtype)


@FUZZ
@given(st.sampled_from(["bilinear", "nearest"]), st.data())
def test_resize(interpolation, data):
    a = data.draw(image())
    h, w = a.shape[:2]
    size = data.draw(st.integers(1, 8) | st.tuples(st.integers(1, 8), st.integers(1, 8)))
    if isinstance(size, int):  # the shorter side, the aspect ratio kept (Paddle's rounding)
        oh, ow = (int(size * h / w), size) if w < h else (size, int(size * w / h))
        if min(h, w) == size:
            oh, ow = h, w
    else:
        oh, ow = size
    assume(oh > 0 and ow > 0)
    src, back = as_input(data.draw, a)
    want = resize_ref(a.astype(np.float64), oh, ow, interpolation)
    want = to_dtype(want, a)
    CALLS["resize"] += 1
    got = back(TF.resize(src, size, interpolation))
    same_image(got, want, f"resize {interpolation}", atol=1 if a.dtype == np.uint8 else 1e-6)
    if a.dtype == np.uint8:  # off by one only where the value sits on a .5 rounding tie
        exact = resize_ref(a.astype(np.float64), oh, ow, interpolation)
        bad = got.astype(np.float64) != want.astype(np.float64)
        assert np.all(np.abs(exact[bad] % 1.0 - 0.5) < 1e-9), f"resize {interpolation} rounding"


def pad_ref(a, left, top, right, bottom, mode, fill):
    h, w, c = a.shape

    def index(i, n):
        if 0 <= i < n:
            return i
        if mode == "edge":
            return min(max(i, 0), n - 1)
        if mode == "reflect":  # mirror without repeating the edge pixel
            period = 2 * (n - 1)
            i = i % period if period else 0
            return i if i < n else period - i
        period = 2 * n  # symmetric: the edge pixel repeated
        i %= period
        return i if i < n else period - 1 - i

    out = np.zeros((h + top + bottom, w + left + right, c), dtype=a.dtype)
    for y in range(out.shape[0]):
        for x in range(out.shape[1]):
            yy, xx = y - top, x - left
            if mode == "constant" and not (0 <= yy < h and 0 <= xx < w):
                out[y, x] = fill
            else:
                out[y, x] = a[index(yy, h), index(xx, w)]
    return out


@FUZZ
@given(st.sampled_from(["constant", "edge", "reflect", "symmetric"]), st.data())
def test_crop_flip_pad(mode, data):
    a = data.draw(image(min_side=2))
    h, w = a.shape[:2]
    src, back = as_input(data.draw, a)
    top, left = data.draw(st.integers(0, h - 1)), data.draw(st.integers(0, w - 1))
    ch, cw = data.draw(st.integers(1, h - top)), data.draw(st.integers(1, w - left))
    CALLS["crop"] += 1
    same_image(back(TF.crop(src, top, left, ch, cw)), a[top : top + ch, left : left + cw], "crop")
    size = data.draw(st.integers(1, min(h, w)) | st.tuples(st.integers(1, h), st.integers(1, w)))
    th, tw = (size, size) if isinstance(size, int) else size
    i, j = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
    CALLS["center_crop"] += 1
    same_image(back(TF.center_crop(src, size)), a[i : i + th, j : j + tw], "center_crop")
    CALLS["flip"] += 2
    same_image(back(TF.hflip(src)), a[:, ::-1], "hflip")
    same_image(back(TF.vflip(src)), a[::-1], "vflip")
    padding = data.draw(
        st.integers(0, 3)
        | st.tuples(*[st.integers(0, 3)] * 2)
        | st.tuples(*[st.integers(0, 3)] * 4)
    )
    if isinstance(padding, int):
        sides = (padding,) * 4
    elif len(padding) == 2:
        sides = (padding[0], padding[1], padding[0], padding[1])
    else:
        sides = padding
    if mode == "reflect":
        assume(max(sides[0], sides[2]) < w and max(sides[1], sides[3]) < h)
    fill = data.draw(st.integers(0, 255)) if a.dtype == np.uint8 else data.draw(st.floats(0, 1))
    CALLS["pad"] += 1
    got = back(TF.pad(src, list(padding) if not isinstance(padding, int) else padding, fill, mode))
    same_image(got, pad_ref(a, *sides, mode, np.asarray(fill).astype(a.dtype)), f"pad {mode}")


@FUZZ
@given(st.data())
def test_color(data):
    a = data.draw(image())
    src, back = as_input(data.draw, a)
    top = 255.0 if a.dtype == np.uint8 else 1.0
    x = a.astype(np.float64)

    def blend(f, target):
        return np.clip(f * x + (1 - f) * target, 0, top)

    def check(got, exact, what):
        if a.dtype != np.uint8:
            return same_image(got, exact.astype(a.dtype), what, atol=1e-6)
        # truncated back to uint8 (Paddle); a value within rounding of a whole number may
        # land one below it
        assert got.dtype == np.uint8 and got.shape == exact.shape, what
        g = got.astype(np.float64)
        ok = (g == np.floor(exact)) | (
            (np.abs(exact - np.round(exact)) < 1e-6) & (np.abs(g - np.round(exact)) <= 1)
        )
        assert ok.all(), f"{what}: got {g[~ok]}, expected {exact[~ok]}"

    f = data.draw(st.floats(0, 3))
    gray = x[:, :, :3] @ np.array([0.299, 0.587, 0.114]) if a.shape[2] == 3 else x[:, :, 0]
    gray = gray[:, :, None]
    CALLS["adjust"] += 3
    check(back(TF.adjust_brightness(src, f)), blend(f, 0.0), "brightness")
    check(back(TF.adjust_contrast(src, f)), blend(f, gray.mean()), "contrast")
    want = blend(f, gray) if a.shape[2] == 3 else x
    check(back(TF.adjust_saturation(src, f)), want, "saturation")
    hue = data.draw(st.floats(-0.5, 0.5))
    if a.shape[2] == 3:
        rgb = x / (255.0 if a.dtype == np.uint8 else 1.0)
        out = np.zeros_like(rgb)
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                hh, ss, vv = colorsys.rgb_to_hsv(*rgb[i, j])
                out[i, j] = colorsys.hsv_to_rgb((hh + hue) % 1.0, ss, vv)
        want = to_dtype(out * 255.0, a) if a.dtype == np.uint8 else out.astype(a.dtype)
    else:
        want = a
    CALLS["adjust"] += 1
    got = back(TF.adjust_hue(src, hue))
    same_image(got, want, "hue", atol=1 if a.dtype == np.uint8 else 1e-5)
    CALLS["to_grayscale"] += 1
    if a.shape[2] == 3:
        k = data.draw(st.sampled_from([1, 3]))
        want = np.repeat(to_dtype(gray, a), k, axis=2)
        same_image(
            back(TF.to_grayscale(src, k)),
            want,
            "to_grayscale",
            atol=1 if a.dtype == np.uint8 else 1e-6,
        )


def warp_ref(a, fwd, oh, ow, interpolation, fill):
    """Inverse mapping: output pixel centre ``p`` samples the input at ``fwd^-1 p``
    (absolute coordinates, pixel ``(i, j)`` covering ``[j, j+1) x [i, i+1)``)."""
    h, w, c = a.shape
    inv = np.linalg.inv(fwd)
    out = np.zeros((oh, ow, c))
    sx_all = np.zeros((oh, ow))
    sy_all = np.zeros((oh, ow))
    for i in range(oh):
        for j in range(ow):
            sx, sy, _ = inv @ np.array([j + 0.5, i + 0.5, 1.0])
            sx_all[i, j], sy_all[i, j] = sx, sy

            def px(yy, xx):
                return a[yy, xx] if 0 <= yy < h and 0 <= xx < w else np.full(c, float(fill))

            if interpolation == "nearest":
                out[i, j] = px(math.floor(sy), math.floor(sx))
            else:
                qx, qy = sx - 0.5, sy - 0.5
                x0, y0 = math.floor(qx), math.floor(qy)
                fx, fy = qx - x0, qy - y0
                out[i, j] = (1 - fy) * ((1 - fx) * px(y0, x0) + fx * px(y0, x0 + 1)) + fy * (
                    (1 - fx) * px(y0 + 1, x0) + fx * px(y0 + 1, x0 + 1)
                )
    return out, sx_all, sy_all


def affine_matrix(angle, translate, scale, shear, center):
    """The forward map of torchvision's / Paddle's affine: ``T(center + translate) * RSS *
    T(-center)``, RSS = scale * rotation by ``angle`` (clockwise on screen: y points down)
    with shear (sx, sy) in degrees."""
    a, sx, sy = (math.radians(v) for v in (angle, *shear))
    rss = (
        np.array(
            [
                [
                    math.cos(a - sy) / math.cos(sy),
                    -math.cos(a - sy) * math.tan(sx) / math.cos(sy) - math.sin(a),
                ],
                [
                    math.sin(a - sy) / math.cos(sy),
                    -math.sin(a - sy) * math.tan(sx) / math.cos(sy) + math.cos(a),
                ],
            ]
        )
        * scale
    )
    m = np.eye(3)
    m[:2, :2] = rss
    tr = lambda dx, dy: np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])  # noqa: E731
    cx, cy = center
    return tr(cx + translate[0], cy + translate[1]) @ m @ tr(-cx, -cy)


@FUZZ
@given(st.sampled_from(["nearest", "bilinear"]), st.data())
def test_rotate_affine(interpolation, data):
    a = data.draw(image(min_side=2))
    h, w = a.shape[:2]
    src, back = as_input(data.draw, a)
    fill = data.draw(st.integers(0, 255)) if a.dtype == np.uint8 else data.draw(st.floats(0, 1))
    center = data.draw(st.none() | st.tuples(st.floats(0, w), st.floats(0, h)))
    ctr = (w / 2, h / 2) if center is None else center
    angle = data.draw(st.floats(-180, 180))
    if data.draw(st.booleans()):
        # rotate turns counter-clockwise on screen: affine's clockwise angle negated
        fwd = affine_matrix(-angle, (0, 0), 1.0, (0.0, 0.0), ctr)
        what = "rotate"
        args = (angle, interpolation, False, center, fill)
    else:
        tr = (data.draw(st.floats(-3, 3)), data.draw(st.floats(-3, 3)))
        sc = data.draw(st.floats(0.5, 2))
        sh = (data.draw(st.floats(-30, 30)), data.draw(st.floats(-30, 30)))
        fwd = affine_matrix(angle, tr, sc, sh, ctr)
        args = (angle, list(tr), sc, list(sh), interpolation, fill, center)
        what = "affine"
    want, sx, sy = warp_ref(a.astype(np.float64), fwd, h, w, interpolation, fill)
    if interpolation == "nearest":  # away from pixel edges, where rounding may go either way
        assume(
            np.all(np.abs(sx - np.round(sx)) > 1e-6) and np.all(np.abs(sy - np.round(sy)) > 1e-6)
        )
    CALLS[what] += 1
    got = back(getattr(TF, what)(src, *args))
    same_image(
        got, to_dtype(want, a), f"{what} {interpolation}", atol=1 if a.dtype == np.uint8 else 1e-5
    )


# ------------------------------------------------------------------ regressions
def test_matrix_nms_post_threshold_regression():
    # Paddle's NMSMatrix keeps a box only when its (decayed) score is > post_threshold
    bb = t(np.array([[[0.0, 0.0, 1.0, 1.0]]]))
    sc = t(np.array([[[0.0], [0.5]]]))  # class 1 scores exactly post_threshold
    out, num, _ = ops.matrix_nms(bb, sc, 0.1, 0.5, -1, -1, background_label=0)
    assert int(num.numpy()[0]) == 0 and out.shape[0] == 0


def test_prior_box_one_zero_step_regression():
    # PriorBoxKernel: `if (step_w == 0 || step_h == 0)` both steps become image / map size
    feat, img = fg.zeros([1, 1, 2, 2]), fg.zeros([1, 3, 8, 16])
    b, _ = ops.prior_box(feat, img, [2.0], steps=(4.0, 0.0))
    # step_w = 16 / 2 = 8, not 4: the second column's centre is (1.5 * 8, 0.5 * 4) = (12, 2)
    np.testing.assert_allclose(b.numpy()[0, 1, 0], [11 / 16, 1 / 8, 13 / 16, 3 / 8], rtol=1e-6)


def test_distribute_fpn_proposals_epsilon_regression():
    # sqrt(area) / refer_scale = 1 - 5e-7: log2(ratio + 1e-6) >= 0, so refer_level (4)
    side = 224.0 * (1 - 5e-7)
    rois = t(np.array([[0.0, 0.0, side, side]]))
    multi, _, _ = ops.distribute_fpn_proposals(rois, 2, 5, 4, 224)
    assert [int(m.shape[0]) for m in multi] == [0, 0, 1, 0]


def test_nms_category_ties_regression():
    # the survivors are ranked by score with ties in index order, as without categories
    # (Paddle: the kept mask in index order, then argsort by score)
    b = t(np.array([[0.0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]]))
    s = t(np.array([0.5, 0.5, 0.5]))
    keep = ops.nms(b, 0.5, scores=s, category_idxs=fg.tensor([1, 0, 1]), categories=[0, 1])
    np.testing.assert_array_equal(keep.numpy(), [0, 1, 2])
