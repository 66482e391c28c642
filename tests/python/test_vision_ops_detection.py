"""ferrograd.vision.ops: nms, box_coder, roi_align, roi_pool against NumPy references.

The references below are direct per-sample loops of the published algorithms (Paddle's
CPU kernels, Mask R-CNN's RoI Align), independent of the vectorised code under test.
"""

import math

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from ferrograd.vision import ops


def _boxes(n, seed=0):
    rng = np.random.RandomState(seed)
    xy = rng.uniform(0, 10, (n, 2))
    return np.concatenate([xy, xy + rng.uniform(1, 5, (n, 2))], 1), rng.uniform(0, 1, n)


def _iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _ref_nms(boxes, order, thr):
    keep = []
    for i in order:
        if all(_iou(boxes[i], boxes[k]) <= thr for k in keep):
            keep.append(i)
    return keep


def test_nms_plain_scored_and_per_category():
    boxes, scores = _boxes(30)
    b = paddle.to_tensor(boxes.astype(np.float32))
    assert ops.nms(b, 0.3).numpy().tolist() == _ref_nms(boxes, range(30), 0.3)
    order = np.argsort(-scores, kind="stable")
    got = ops.nms(b, 0.4, paddle.to_tensor(scores))
    assert got.dtype == paddle.int64
    assert got.numpy().tolist() == _ref_nms(boxes, order, 0.4)
    cats = np.arange(30) % 3
    kept = []
    for c in range(3):
        kept += _ref_nms(boxes, [i for i in order if cats[i] == c], 0.5)
    kept.sort(key=lambda i: -scores[i])
    got = ops.nms(b, 0.5, paddle.to_tensor(scores), paddle.to_tensor(cats), [0, 1, 2])
    assert got.numpy().tolist() == kept
    top = ops.nms(b, 0.5, paddle.to_tensor(scores), paddle.to_tensor(cats), [0, 1, 2], top_k=4)
    assert top.numpy().tolist() == kept[:4]
    with pytest.raises(ValueError, match="categories"):
        ops.nms(b, 0.5, paddle.to_tensor(scores), paddle.to_tensor(cats))
    with pytest.raises(ValueError, match=r"\[num_boxes, 4\]"):
        ops.nms(paddle.zeros([3, 5]))
    # torchvision's argument order gets a message that names Paddle's
    with pytest.raises(TypeError, match=r"nms\(boxes, iou_threshold, scores\)"):
        ops.nms(b, paddle.to_tensor(scores), 0.5)


def test_box_coder_encode_decode():
    prior = np.array([[1, 1, 4, 5], [2, 3, 7, 8], [0.1, 0.2, 0.5, 0.9]])
    var = np.array([[0.1, 0.1, 0.2, 0.2], [0.2, 0.1, 0.3, 0.2], [1, 1, 1, 1]])
    target = np.array([[1.5, 1, 3, 6], [0, 0, 2, 2]])
    enc = ops.box_coder(paddle.to_tensor(prior), paddle.to_tensor(var), paddle.to_tensor(target))
    pw, ph = prior[:, 2] - prior[:, 0], prior[:, 3] - prior[:, 1]
    pcx, pcy = prior[:, 0] + pw / 2, prior[:, 1] + ph / 2
    tw, th = target[:, 2:3] - target[:, 0:1], target[:, 3:4] - target[:, 1:2]
    tcx, tcy = (target[:, 0:1] + target[:, 2:3]) / 2, (target[:, 1:2] + target[:, 3:4]) / 2
    want = (
        np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, np.log(tw / pw), np.log(th / ph)], -1)
        / var[None]
    )
    np.testing.assert_allclose(enc.numpy(), want, rtol=1e-12)
    # decoding the encoding of each (target, prior) pair gives the target back
    dec = ops.box_coder(
        paddle.to_tensor(prior), paddle.to_tensor(var), enc, code_type="decode_center_size"
    )
    np.testing.assert_allclose(dec.numpy(), np.repeat(target[:, None], 3, 1), atol=1e-12)
    # pixel boxes (width = x2 - x1 + 1), variances as a list, priors along axis 0
    enc1 = ops.box_coder(paddle.to_tensor(prior[:2]), [0.1, 0.1, 0.2, 0.2],
                         paddle.to_tensor(target), box_normalized=False)  # fmt: skip
    dec1 = ops.box_coder(paddle.to_tensor(prior[:2]), [0.1, 0.1, 0.2, 0.2],
                         enc1.transpose([1, 0, 2]), "decode_center_size", False, axis=1)  # fmt: skip
    # Paddle's encoder centres pixel targets at (x1 + x2) / 2 but its decoder at
    # x1 + (x2 - x1 + 1) / 2, so a pixel-box round trip moves the box by half a pixel
    np.testing.assert_allclose(dec1.numpy()[:, 0], target[:1].repeat(2, 0) - 0.5, atol=1e-9)
    with pytest.raises(ValueError, match="code_type"):
        ops.box_coder(paddle.to_tensor(prior), None, paddle.to_tensor(target), "center")


def _bilinear(img, y, x):
    h, w = img.shape[-2:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(img.shape[:-2])
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
    return ((1 - ly) * (1 - lx) * img[..., yl, xl] + (1 - ly) * lx * img[..., yl, xh]
            + ly * (1 - lx) * img[..., yh, xl] + ly * lx * img[..., yh, xh])  # fmt: skip


def _ref_roi_align(x, rois, batch, ph, pw, scale, ratio, aligned):
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    off = 0.5 if aligned else 0.0
    for r, (x1, y1, x2, y2) in enumerate(rois * scale - off):
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                acc = 0.0
                for a in range(gh):
                    for b in range(gw):
                        yy = y1 + i * rh / ph + (a + 0.5) * rh / ph / gh
                        xx = x1 + j * rw / pw + (b + 0.5) * rw / pw / gw
                        acc = acc + _bilinear(x[batch[r]], yy, xx)
                out[r, :, i, j] = acc / max(gh * gw, 1)
    return out


_ROIS = np.array([[0.5, 1.0, 6.3, 7.7], [2, 2, 9.5, 11.8], [-1.5, -2, 3, 4], [3.2, 0.1, 3.9, 1.0]])


@pytest.mark.parametrize(
    "size, scale, ratio, aligned",
    [(3, 1.0, -1, True), ((2, 4), 0.5, 2, True), (3, 1.0, -1, False), ((4, 3), 1.3, -1, False)],
)
def test_roi_align_matches_reference(size, scale, ratio, aligned):
    x = np.random.RandomState(1).normal(size=(2, 3, 12, 10))
    ph, pw = (size, size) if isinstance(size, int) else size
    got = ops.roi_align(paddle.to_tensor(x), paddle.to_tensor(_ROIS), paddle.to_tensor([1, 3]),
                        size, scale, ratio, aligned)  # fmt: skip
    want = _ref_roi_align(x, _ROIS, [0, 1, 1, 1], ph, pw, scale, ratio, aligned)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)


def test_roi_align_gradcheck_and_layer():
    x = paddle.to_tensor(np.random.RandomState(2).normal(size=(2, 1, 5, 4)), stop_gradient=False)
    rois = paddle.to_tensor(np.array([[0.5, 1.0, 3.3, 4.2], [1.0, 0.0, 3.0, 2.5]]))
    num = paddle.to_tensor([1, 1])
    assert gradcheck(lambda t: ops.roi_align(t, rois, num, 2, sampling_ratio=2), [x])
    layer = ops.RoIAlign(output_size=(2, 3), spatial_scale=1.0)
    np.testing.assert_array_equal(
        layer(x, rois, num).numpy(), ops.roi_align(x, rois, num, (2, 3)).numpy()
    )
    with pytest.raises(ValueError, match="boxes_num"):
        ops.roi_align(x, rois, None, 2)
    with pytest.raises(ValueError, match="sum to 2"):
        ops.roi_align(x, rois, paddle.to_tensor([2, 1]), 2)
    with pytest.raises(ValueError, match=r"torchvision's \[K, 5\] boxes"):
        ops.roi_align(x, paddle.zeros([2, 5]), num, 2)


def test_roi_pool_matches_reference_and_routes_gradient_to_the_max():
    x = np.random.RandomState(3).normal(size=(2, 3, 12, 10))
    num = paddle.to_tensor([1, 3])
    got = ops.roi_pool(paddle.to_tensor(x), paddle.to_tensor(_ROIS), num, (2, 3), 0.5)
    want = np.zeros((4, 3, 2, 3))
    for r, box in enumerate(_ROIS):
        x1, y1, x2, y2 = (int(np.sign(v) * np.floor(abs(v) + 0.5)) for v in box * 0.5)
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        img = x[0 if r == 0 else 1]
        for i in range(2):
            for j in range(3):
                hs = min(max(math.floor(i * rh / 2) + y1, 0), 12)
                he = min(max(math.ceil((i + 1) * rh / 2) + y1, 0), 12)
                ws = min(max(math.floor(j * rw / 3) + x1, 0), 10)
                we = min(max(math.ceil((j + 1) * rw / 3) + x1, 0), 10)
                if he > hs and we > ws:
                    want[r, :, i, j] = img[:, hs:he, ws:we].max(axis=(1, 2))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    t = paddle.to_tensor(x[:1, :1], stop_gradient=False)
    ops.RoIPool(1)(
        t, paddle.to_tensor([[0.0, 0.0, 9.0, 11.0]]), paddle.to_tensor([1])
    ).sum().backward()
    g = t.grad.numpy()[0, 0]
    assert g.sum() == 1.0 and g[np.unravel_index(x[0, 0].argmax(), (12, 10))] == 1.0
