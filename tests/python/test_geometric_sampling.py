"""``paddle.geometric``'s graph reindexing and neighbor sampling: Paddle's docstring
examples, a dictionary-loop reference for the reindexing (the algorithm of
paddle/phi/kernels/cpu/graph_reindex_kernel.cc), the sampling's invariants and its
reproducibility under ``paddle.seed``, and the input checks."""

from __future__ import annotations

import ferrograd as paddle
import numpy as np
import pytest

G = paddle.geometric

# the CSC graph of Paddle's sample_neighbors example
ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


def t(a, dtype="int64"):
    return paddle.to_tensor(a, dtype=dtype)


def lists(ts):
    return [x.numpy().tolist() for x in ts]


def ref_reindex(x, neighbors, counts):
    """The kernel's loops: x first, then each new neighbor in order of appearance."""
    ids = {v: i for i, v in enumerate(x)}
    out_nodes = list(x)
    src = []
    for v in neighbors:
        if v not in ids:
            ids[v] = len(out_nodes)
            out_nodes.append(v)
        src.append(ids[v])
    bs = len(x)
    dst = [j for i, c in enumerate(counts) for j in [i % bs] * c]
    return src, dst, out_nodes


# ------------------------------------------------------------------ reindex
def test_reindex_docstring_examples():
    x = t([0, 1, 2])
    nb_a, cnt_a = t([8, 9, 0, 4, 7, 6, 7]), t([2, 3, 2], "int32")
    src, dst, nodes = G.reindex_graph(x, nb_a, cnt_a)
    assert lists([src, dst, nodes]) == [
        [3, 4, 0, 5, 6, 7, 6],
        [0, 0, 1, 1, 1, 2, 2],
        [0, 1, 2, 8, 9, 4, 7, 6],
    ]
    assert src.dtype == dst.dtype == nodes.dtype == paddle.int64
    nb_b, cnt_b = t([0, 2, 3, 5, 1]), t([1, 3, 1], "int32")
    out = G.reindex_heter_graph(x, [nb_a, nb_b], [cnt_a, cnt_b])
    assert lists(out) == [
        [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1],
        [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2],
        [0, 1, 2, 8, 9, 4, 7, 6, 3, 5],
    ]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_reindex_matches_the_kernel_loops(dtype):
    rng = np.random.default_rng(0)
    for _ in range(5):
        x = rng.permutation(50)[:6].tolist()
        counts = [rng.integers(0, 5, 6).tolist() for _ in range(3)]
        nbs = [rng.integers(0, 50, sum(c)).tolist() for c in counts]
        out = G.reindex_heter_graph(
            t(x, dtype), [t(n, dtype) for n in nbs], [t(c, "int32") for c in counts]
        )
        want = ref_reindex(x, sum(nbs, []), sum(counts, []))
        assert lists(out) == [list(w) for w in want]
        assert out[0].dtype == getattr(paddle, dtype)
        single = G.reindex_graph(t(x, dtype), t(nbs[0], dtype), t(counts[0], "int32"))
        assert lists(single) == [list(w) for w in ref_reindex(x, nbs[0], counts[0])]


def test_reindex_checks():
    x, nb, cnt = t([0, 1]), t([5, 6, 7]), t([1, 2], "int32")
    with pytest.raises(ValueError, match="unique, but 1 repeats"):
        G.reindex_graph(t([1, 0, 1]), nb, t([1, 1, 1], "int32"))
    with pytest.raises(ValueError, match="add up to 2 but there are 3 neighbors"):
        G.reindex_graph(x, nb, t([1, 1], "int32"))
    with pytest.raises(ValueError, match="one entry per node of x"):
        G.reindex_graph(x, nb, t([3], "int32"))
    with pytest.raises(ValueError, match="at least one node"):
        G.reindex_graph(t([]), t([]), t([], "int32"))
    with pytest.raises(TypeError, match="neighbors must have x's dtype"):
        G.reindex_graph(x, t([5, 6, 7], "int32"), cnt)
    with pytest.raises(TypeError, match="x must be an int32 or int64"):
        G.reindex_graph(t([0.0, 1.0], "float32"), nb, cnt)
    with pytest.raises(ValueError, match="lists of one length"):
        G.reindex_heter_graph(x, [nb, nb], [cnt])
    with pytest.raises(ValueError, match="must not be negative"):
        G.reindex_graph(x, t([5]), t([2, -1], "int32"))


# ------------------------------------------------------------------ sampling
def neighbors_of(v):
    return ROW[COLPTR[v] : COLPTR[v + 1]]


@pytest.mark.parametrize("weighted", [False, True])
def test_sampling_invariants_and_seed(weighted):
    row, colptr = t(ROW), t(COLPTR)
    nodes = [0, 8, 1, 2, 5, 6, 7]
    eids = t(list(range(100, 113)))

    def run(k):
        if weighted:
            w = t(np.linspace(0.5, 2.0, 13), "float32")
            return G.weighted_sample_neighbors(row, colptr, w, t(nodes), k, eids, True)
        return G.sample_neighbors(row, colptr, t(nodes), k, eids, True)

    for k in (-1, 0, 1, 2, 5):
        paddle.seed(11)
        out, count, out_eids = run(k)
        paddle.seed(11)
        again = run(k)
        assert lists(again) == lists([out, count, out_eids])  # reproducible
        assert count.dtype == paddle.int32 and out.dtype == paddle.int64
        caps = [len(neighbors_of(v)) for v in nodes]
        want = [c if k == -1 else min(c, k) for c in caps]
        assert count.numpy().tolist() == want
        starts = np.concatenate([[0], np.cumsum(want)])
        e = out_eids.numpy() - 100
        np.testing.assert_array_equal(np.asarray(ROW)[e], out.numpy())  # eids match
        for i, v in enumerate(nodes):
            part = e[starts[i] : starts[i + 1]]
            assert len(set(part)) == len(part)  # without replacement
            assert set(part) <= set(range(COLPTR[v], COLPTR[v + 1]))
            if k == -1 or caps[i] <= k:  # all of them, in CSC order
                assert part.tolist() == list(range(COLPTR[v], COLPTR[v + 1]))


def test_sample_neighbors_docstring_example_and_no_eids():
    paddle.seed(3)
    out, count = G.sample_neighbors(t(ROW), t(COLPTR), t([0, 8, 1, 2]), sample_size=2)
    assert count.numpy().tolist() == [2, 2, 2, 1]
    assert sorted(out.numpy()[:2].tolist()) == [3, 7]
    assert out.numpy()[-1] == 1


def test_sample_neighbors_is_uniform_over_subsets():
    # 4 neighbors, sample 2: each of the 6 pairs should come up (seeded, so deterministic)
    row, colptr = t([10, 11, 12, 13]), t([0, 4])
    paddle.seed(5)
    seen = {}
    for _ in range(600):
        out, _ = G.sample_neighbors(row, colptr, t([0]), 2)
        pair = tuple(sorted(out.numpy().tolist()))
        seen[pair] = seen.get(pair, 0) + 1
    assert len(seen) == 6 and min(seen.values()) > 60


def test_weighted_sampling_follows_the_weights():
    row, colptr = t([10, 11, 12]), t([0, 3])
    w = t([1.0, 20.0, 0.0], "float32")
    paddle.seed(7)
    picks = [
        G.weighted_sample_neighbors(row, colptr, w, t([0]), 1)[0].numpy()[0] for _ in range(300)
    ]
    assert 12 not in picks  # a zero weight loses to any positive one
    assert picks.count(11) > 250  # P = 20/21
    two = G.weighted_sample_neighbors(row, colptr, w, t([0]), 2)[0].numpy().tolist()
    assert sorted(two) == [10, 11]


def test_sampling_checks():
    row, colptr, nodes = t(ROW), t(COLPTR), t([0, 1])
    with pytest.raises(ValueError, match="`eids` should not be None"):
        G.sample_neighbors(row, colptr, nodes, 2, return_eids=True)
    with pytest.raises(IndexError, match=r"input_nodes holds 10, out of range \[0, 10\)"):
        G.sample_neighbors(row, colptr, t([10]), 2)
    with pytest.raises(TypeError, match="input_nodes must have row's dtype"):
        G.sample_neighbors(row, colptr, t([0], "int32"), 2)
    with pytest.raises(ValueError, match="non-decreasing"):
        G.sample_neighbors(row, t([0, 3, 2]), t([0]), 2)
    with pytest.raises(ValueError, match="sample_size must be -1"):
        G.sample_neighbors(row, colptr, nodes, -3)
    w = t(np.ones(13), "float32")
    with pytest.raises(ValueError, match="non-negative"):
        G.weighted_sample_neighbors(row, colptr, t([-1.0] * 13, "float32"), nodes, 1)
    with pytest.raises(ValueError, match="one entry per edge"):
        G.weighted_sample_neighbors(row, colptr, t([1.0], "float32"), nodes, 1)
    with pytest.raises(TypeError, match="edge_weight must be a float32"):
        G.weighted_sample_neighbors(row, colptr, t([1] * 13), nodes, 1)
    # [n, 1] shapes are accepted (Paddle's documented CSC shapes)
    out, count = G.sample_neighbors(row.reshape([-1, 1]), colptr.reshape([-1, 1]), nodes, -1)
    assert count.numpy().tolist() == [2, 2]
    assert G.weighted_sample_neighbors(row, colptr, w, nodes)[1].numpy().tolist() == [2, 2]
