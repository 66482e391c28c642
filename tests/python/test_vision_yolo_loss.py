"""ferrograd.vision.ops.yolo_loss against a per-box loop of its definition, and gradcheck.

(Losses were also compared with Paddle 3.3.1 by hand: equal to float64 rounding. Its
gradients agree too, except where two ground truths share an anchor cell: Paddle's
backward keeps only the last one's gradient, ferrograd's is the gradient of the loss.)
"""

import math

import ferrograd as paddle
import numpy as np
from ferrograd.autograd import gradcheck
from ferrograd.vision import ops

ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]


def _sce(x, t):
    return max(x, 0.0) - x * t + math.log1p(math.exp(-abs(x)))


def _iou(a, b):
    ow = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    oh = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    inter = max(ow, 0.0) * max(oh, 0.0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _reference(x, gt, lab, mask, classes, thr, ratio, score, smooth, sxy):
    n, _, h, w = x.shape
    s, per, size = len(mask), 5 + classes, ratio * h
    p = x.reshape(n, s, per, h, w)
    sig = lambda v: 1 / (1 + math.exp(-v))  # noqa: E731
    eps = min(1 / classes, 1 / 40) if smooth else 0.0
    loss = np.zeros(n)
    for i in range(n):
        real = [g for g in gt[i] if g[2] > 0 and g[3] > 0]
        obj = np.zeros((s, h, w))
        for m in range(s):
            for k in range(h):
                for j in range(w):
                    box = [(j + sig(p[i, m, 0, k, j]) * sxy - 0.5 * (sxy - 1)) / w,
                           (k + sig(p[i, m, 1, k, j]) * sxy - 0.5 * (sxy - 1)) / h,
                           math.exp(p[i, m, 2, k, j]) * ANCHORS[2 * mask[m]] / size,
                           math.exp(p[i, m, 3, k, j]) * ANCHORS[2 * mask[m] + 1] / size]  # fmt: skip
                    if real and max(_iou(box, g) for g in real) > thr:
                        obj[m, k, j] = -1
        for t, g in enumerate(gt[i]):
            if not (g[2] > 0 and g[3] > 0):
                continue
            gi, gj = int(g[0] * w), int(g[1] * h)
            fits = [_iou([0, 0, ANCHORS[2 * a] / size, ANCHORS[2 * a + 1] / size], [0, 0, g[2], g[3]])
                    for a in range(len(ANCHORS) // 2)]  # fmt: skip
            best = int(np.argmax(fits))
            if best not in mask:
                continue
            m, sc = mask.index(best), score[i, t]
            q = p[i, m, :, gj, gi]
            wt = (2 - g[2] * g[3]) * sc
            loss[i] += (_sce(q[0], g[0] * w - gi) + _sce(q[1], g[1] * h - gj)) * wt
            loss[i] += abs(q[2] - math.log(g[2] * size / ANCHORS[2 * best])) * wt
            loss[i] += abs(q[3] - math.log(g[3] * size / ANCHORS[2 * best + 1])) * wt
            for c in range(classes):
                loss[i] += _sce(q[5 + c], 1 - eps if c == lab[i, t] else eps) * sc
            obj[m, gj, gi] = sc
        for m in range(s):
            for k in range(h):
                for j in range(w):
                    o, v = obj[m, k, j], p[i, m, 4, k, j]
                    if o > 1e-5:
                        loss[i] += _sce(v, 1.0) * o
                    elif o > -0.5:
                        loss[i] += _sce(v, 0.0)
    return loss


def _case(seed, n, g, mask, classes, boxes):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, len(mask) * (5 + classes), g, g)) * 0.5
    gt = np.concatenate([rng.uniform(0.05, 0.95, (n, boxes, 2)),
                         rng.uniform(0.02, 0.6, (n, boxes, 2))], -1)  # fmt: skip
    gt[0, -1] = 0  # a padding slot
    return x, gt, rng.randint(0, classes, (n, boxes)), rng.uniform(0.3, 1, (n, boxes))


def test_yolo_loss_matches_loop():
    for seed, mask, thr, ratio, smooth, sxy, scored in [
        (0, [3, 4, 5], 0.5, 32, True, 1.0, False),
        (1, [0, 1, 2], 0.3, 8, False, 1.2, True),
    ]:
        x, gt, lab, score = _case(seed, 2, 4, mask, 3, 6)
        got = ops.yolo_loss(paddle.to_tensor(x), paddle.to_tensor(gt), paddle.to_tensor(lab),
                            ANCHORS, mask, 3, thr, ratio,
                            gt_score=paddle.to_tensor(score) if scored else None,
                            use_label_smooth=smooth, scale_x_y=sxy)  # fmt: skip
        want = _reference(x, gt, lab, mask, 3, thr, ratio,
                          score if scored else np.ones_like(score), smooth, sxy)  # fmt: skip
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)


def test_yolo_loss_gradcheck():
    x, gt, lab, score = _case(2, 1, 2, [0, 1], 2, 3)
    gt[0, :2] = [[0.3, 0.3, 0.05, 0.06], [0.3, 0.35, 0.06, 0.05]]  # two in one cell
    t = paddle.to_tensor(x, stop_gradient=False)
    assert gradcheck(
        lambda v: ops.yolo_loss(v, paddle.to_tensor(gt), paddle.to_tensor(lab), ANCHORS,
                                [0, 1], 2, 0.7, 32, gt_score=paddle.to_tensor(score)),
        [t],
    )  # fmt: skip
