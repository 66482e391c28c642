"""ferrograd.vision.ops: distribute_fpn_proposals and generate_proposals (checked against
Paddle 3.3.1 by hand; here against their definitions on small hand-made cases).
"""

import math

import ferrograd as paddle
import numpy as np
import pytest
from ferrograd.vision import ops


def test_distribute_fpn_proposals_levels_and_restore():
    rng = np.random.RandomState(0)
    xy = rng.uniform(0, 300, (20, 2))
    rois = np.concatenate([xy, xy + np.exp(rng.uniform(np.log(4), np.log(900), (20, 2)))], 1)
    num = paddle.to_tensor(np.array([8, 12], np.int32))
    multi, restore, per_level = ops.distribute_fpn_proposals(
        paddle.to_tensor(rois), 2, 5, 4, 224, rois_num=num
    )
    area = (rois[:, 2] - rois[:, 0]) * (rois[:, 3] - rois[:, 1])
    level = [min(max(math.floor(math.log2(math.sqrt(a) / 224 + 1e-8) + 4), 2), 5) for a in area]
    for i, lvl in enumerate(range(2, 6)):
        members = [k for k in range(20) if level[k] == lvl]
        np.testing.assert_array_equal(multi[i].numpy(), rois[members].reshape(-1, 4))
        want = [sum(1 for k in members if k < 8), sum(1 for k in members if k >= 8)]
        assert per_level[i].numpy().tolist() == want
    stacked = np.concatenate([m.numpy() for m in multi])
    np.testing.assert_array_equal(stacked[restore.numpy().ravel()], rois)
    _, _, none = ops.distribute_fpn_proposals(paddle.to_tensor(rois), 2, 5, 4, 224)
    assert none is None


def _inputs(deltas, scores, anchors):
    a = len(anchors)
    sc = np.asarray(scores, np.float64).reshape(1, a, 1, 1)
    dl = np.asarray(deltas, np.float64).reshape(1, 4 * a, 1, 1)
    anc = np.asarray(anchors, np.float64).reshape(1, 1, a, 4)
    var = np.ones_like(anc)
    return [paddle.to_tensor(v) for v in (sc, dl, np.array([[50.0, 60.0]]), anc, var)]


def test_generate_proposals_decode_clip_filter_nms():
    anchors = [[10, 10, 30, 30], [12, 11, 31, 30], [40, 5, 70, 25], [5, 5, 5.5, 5.5]]
    zero = np.zeros((4, 4))
    args = _inputs(zero, [0.9, 0.8, 0.7, 0.95], anchors)
    rois, probs, num = ops.generate_proposals(*args, nms_thresh=0.5, return_rois_num=True)
    # zero deltas give the anchors back; the tiny one (< 1 px) is dropped, the second
    # overlaps the first (IoU ~0.82) and is suppressed, the third is clipped to x <= 60
    np.testing.assert_allclose(rois.numpy(), [[10, 10, 30, 30], [40, 5, 60, 25]])
    np.testing.assert_allclose(probs.numpy().ravel(), [0.9, 0.7])
    assert num.numpy().tolist() == [2]
    # a shift of dx = 0.5 widths and a log-width of log 2 (variance 1)
    d = np.zeros((4, 4))
    d[0] = [0.5, 0.0, math.log(2.0), 0.0]
    r2, _, _ = ops.generate_proposals(*_inputs(d, [0.9, 0.1, 0.1, 0.1], anchors),
                                      post_nms_top_n=1, nms_thresh=0.5)  # fmt: skip
    np.testing.assert_allclose(r2.numpy(), [[10.0, 10.0, 50.0, 30.0]])
    empty, p0, _ = ops.generate_proposals(*_inputs(zero, [0.9] * 4, anchors), min_size=100.0)
    np.testing.assert_array_equal(empty.numpy(), np.zeros((1, 4)))  # Paddle's placeholder
    assert p0.numpy().ravel().tolist() == [0.0]
    with pytest.raises(ValueError, match="bbox_deltas"):
        ops.generate_proposals(args[0], args[0], *args[2:])
