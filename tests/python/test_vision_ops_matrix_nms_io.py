"""ferrograd.vision.ops: matrix_nms against a per-pair loop of its definition (values and
indices were also compared with Paddle 3.3.1 by hand), and read_file / decode_jpeg.
"""

import math

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import ops


def _iou(a, b, off):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    w = min(a[2], b[2]) - max(a[0], b[0]) + off
    h = min(a[3], b[3]) - max(a[1], b[1]) + off
    inter = w * h
    area = lambda q: (q[2] - q[0] + off) * (q[3] - q[1] + off)  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _reference(bb, sc, thr, post, top, keep, gauss, sigma, bg, normalized):
    off = 0.0 if normalized else 1.0
    rows, index, counts = [], [], []
    for n in range(bb.shape[0]):
        dets = []
        for c in range(sc.shape[1]):
            if c == bg:
                continue
            cand = sorted((i for i in range(bb.shape[1]) if sc[n, c, i] > thr),
                          key=lambda i: -sc[n, c, i])  # fmt: skip
            cand = cand[:top] if top > -1 else cand
            iou = [[_iou(bb[n, a], bb[n, b], off) for b in cand] for a in cand]
            max_iou = [max([iou[i][j] for j in range(i)], default=0.0) for i in range(len(cand))]
            for i, box in enumerate(cand):
                decay = 1.0
                for j in range(i):
                    if gauss:
                        d = math.exp((max_iou[j] ** 2 - iou[i][j] ** 2) * sigma)
                    else:
                        d = (1 - iou[i][j]) / (1 - max_iou[j])
                    decay = min(decay, d)
                if sc[n, c, box] * decay >= post:
                    dets.append((sc[n, c, box] * decay, c, box))
        dets.sort(key=lambda d: -d[0])
        dets = dets[:keep] if keep > -1 else dets
        rows += [[c, s, *bb[n, b]] for s, c, b in dets]
        index += [n * bb.shape[1] + b for _, _, b in dets]
        counts.append(len(dets))
    return np.array(rows).reshape(-1, 6), np.array(index).reshape(-1, 1), counts


@pytest.mark.parametrize(
    "thr, post, top, keep, gauss, sigma, bg, normalized",
    [
        (0.2, 0.1, 8, 10, False, 2.0, 0, True),
        (0.1, 0.05, -1, -1, True, 3.0, -1, True),
        (0.3, 0.2, 5, 4, False, 2.0, 1, False),
    ],
)
def test_matrix_nms_matches_loop(thr, post, top, keep, gauss, sigma, bg, normalized):
    rng = np.random.RandomState(0)
    xy = rng.uniform(0, 0.6, (2, 10, 2))
    bb = np.concatenate([xy, xy + rng.uniform(0.1, 0.4, (2, 10, 2))], -1)
    sc = rng.uniform(0, 1, (2, 3, 10))
    out, num, idx = ops.matrix_nms(paddle.to_tensor(bb), paddle.to_tensor(sc), thr, post, top,
                                   keep, gauss, sigma, bg, normalized, return_index=True)  # fmt: skip
    want, want_idx, counts = _reference(bb, sc, thr, post, top, keep, gauss, sigma, bg, normalized)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    assert idx.numpy().tolist() == want_idx.tolist() and num.numpy().tolist() == counts
    _, num2, idx2 = ops.matrix_nms(paddle.to_tensor(bb), paddle.to_tensor(sc), thr, post, top,
                                   keep, return_rois_num=False)  # fmt: skip
    assert num2 is None and idx2 is None


def test_read_file_and_decode_jpeg(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    img = np.random.RandomState(0).randint(0, 256, (10, 12, 3)).astype(np.uint8)
    path = tmp_path / "x.jpg"
    Image.fromarray(img).save(path, quality=90)
    raw = ops.read_file(str(path))
    assert raw.dtype == paddle.uint8 and list(raw.shape) == [path.stat().st_size]
    rgb = ops.decode_jpeg(raw)
    assert rgb.dtype == paddle.uint8 and list(rgb.shape) == [3, 10, 12]
    np.testing.assert_array_equal(rgb.numpy().transpose(1, 2, 0), np.asarray(Image.open(path)))
    assert list(ops.decode_jpeg(raw, mode="gray").shape) == [1, 10, 12]
    with pytest.raises(ValueError, match="mode"):
        ops.decode_jpeg(raw, mode="bgr")
