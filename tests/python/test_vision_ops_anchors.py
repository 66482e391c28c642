"""ferrograd.vision.ops: psroi_pool, prior_box and yolo_box against NumPy loops of the
published definitions (values were also compared with Paddle 3.3.1 by hand).
"""

import math

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.autograd import gradcheck
from ferrograd.vision import ops


def _round(v):
    return math.copysign(math.floor(abs(v) + 0.5), v)


def test_psroi_pool_matches_loop_and_has_gradients():
    rng = np.random.RandomState(0)
    x = rng.normal(size=(2, 12, 9, 8))
    rois = np.array([[0.5, 1.0, 6.3, 7.7], [2, 2, 7.5, 8.8], [-1.5, -2, 3, 4]])
    ph, pw, scale = 2, 3, 0.7
    got = ops.psroi_pool(paddle.to_tensor(x), paddle.to_tensor(rois), paddle.to_tensor([1, 2]),
                         (ph, pw), scale)  # fmt: skip
    want = np.zeros((3, 2, ph, pw))
    for r, box in enumerate(rois):
        img = x[0 if r == 0 else 1]
        x1, y1 = _round(box[0]) * scale, _round(box[1]) * scale
        x2, y2 = (_round(box[2]) + 1) * scale, (_round(box[3]) + 1) * scale
        bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
        for k in range(2):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(i * bh + y1), 0), 9)
                    he = min(max(math.ceil((i + 1) * bh + y1), 0), 9)
                    ws = min(max(math.floor(j * bw + x1), 0), 8)
                    we = min(max(math.ceil((j + 1) * bw + x1), 0), 8)
                    if he > hs and we > ws:
                        want[r, k, i, j] = img[(k * ph + i) * pw + j, hs:he, ws:we].mean()
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    t = paddle.to_tensor(x[:1, :4, :5, :5], stop_gradient=False)
    one = paddle.to_tensor(np.array([[0.0, 1.0, 3.0, 4.0]]))
    assert gradcheck(lambda a: ops.PSRoIPool(2)(a, one, paddle.to_tensor([1])), [t])
    with pytest.raises(ValueError, match="multiple of output_size"):
        ops.psroi_pool(paddle.zeros([1, 5, 4, 4]), one, None, 2)


def test_prior_box_layout_and_values():
    feat, image = paddle.zeros([1, 8, 2, 3]), paddle.zeros([1, 3, 20, 30])
    boxes, var = ops.prior_box(feat, image, [4.0], [9.0], aspect_ratios=[2.0], flip=True)
    # priors per position: ratios 1, 2, 1/2 of min size 4, then the sqrt(4 * 9) square
    assert list(boxes.shape) == [2, 3, 4, 4] and list(var.shape) == [2, 3, 4, 4]
    cx, cy = (1 + 0.5) * 10, (0 + 0.5) * 10  # steps 30/3 and 20/2
    halves = [(2, 2), (2 * math.sqrt(2), 2 / math.sqrt(2)), (2 / math.sqrt(2), 2 * math.sqrt(2)),
              (3, 3)]  # fmt: skip
    want = [[(cx - a) / 30, (cy - b) / 20, (cx + a) / 30, (cy + b) / 20] for a, b in halves]
    np.testing.assert_allclose(boxes.numpy()[0, 1], want, rtol=1e-6)
    np.testing.assert_allclose(var.numpy()[1, 2], [[0.1, 0.1, 0.2, 0.2]] * 4, rtol=1e-6)
    caffe, _ = ops.prior_box(feat, image, [4.0], [9.0], [2.0], flip=True, clip=True,
                             min_max_aspect_ratios_order=True)  # fmt: skip
    np.testing.assert_allclose(
        caffe.numpy()[0, 1], np.clip([want[0], want[3], want[1], want[2]], 0, 1), rtol=1e-6
    )
    with pytest.raises(ValueError, match="steps"):
        ops.prior_box(feat, image, [4.0], steps=[1.0])


def _ref_yolo(x, size, anchors, classes, thresh, ratio, clip, scale):
    n, _, h, w = x.shape
    s = len(anchors) // 2
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    boxes, scores = np.zeros((n, s * h * w, 4)), np.zeros((n, s * h * w, classes))
    p = x.reshape(n, s, 5 + classes, h, w)
    for b in range(n):
        ih, iw = size[b]
        for a in range(s):
            for i in range(h):
                for j in range(w):
                    conf = sig(p[b, a, 4, i, j])
                    if conf < thresh:
                        continue
                    cx = (j + sig(p[b, a, 0, i, j]) * scale - 0.5 * (scale - 1)) * iw / w
                    cy = (i + sig(p[b, a, 1, i, j]) * scale - 0.5 * (scale - 1)) * ih / h
                    bw = math.exp(p[b, a, 2, i, j]) * anchors[2 * a] * iw / (ratio * w)
                    bh = math.exp(p[b, a, 3, i, j]) * anchors[2 * a + 1] * ih / (ratio * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip:
                        box = [max(box[0], 0), max(box[1], 0), min(box[2], iw - 1),
                               min(box[3], ih - 1)]  # fmt: skip
                    k = a * h * w + i * w + j
                    boxes[b, k] = box
                    scores[b, k] = conf * sig(p[b, a, 5:, i, j])
    return boxes, scores


@pytest.mark.parametrize("clip, scale", [(True, 1.0), (False, 1.2)])
def test_yolo_box_matches_loop(clip, scale):
    x = np.random.RandomState(1).normal(size=(2, 2 * 8, 3, 4))
    size = np.array([[64, 80], [50, 70]])
    b, s = ops.yolo_box(paddle.to_tensor(x), paddle.to_tensor(size), [10, 13, 16, 30], 3, 0.4,
                        16, clip_bbox=clip, scale_x_y=scale)  # fmt: skip
    wb, ws = _ref_yolo(x, size, [10, 13, 16, 30], 3, 0.4, 16, clip, scale)
    np.testing.assert_allclose(b.numpy(), wb, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(s.numpy(), ws, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="channels"):
        ops.yolo_box(paddle.to_tensor(x), paddle.to_tensor(size), [10, 13], 3, 0.4, 16)
