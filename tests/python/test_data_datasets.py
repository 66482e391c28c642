"""Datasets, samplers and collation of ferrograd.utils.data (torch.utils.data)."""

from __future__ import annotations

import collections

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.utils import data as D


def test_tensor_dataset_concat_subset():
    x = fg.arange(12).astype("float32").reshape([6, 2])
    y = fg.arange(6)
    ds = D.TensorDataset(x, y)
    assert len(ds) == 6
    a, b = ds[4]
    assert a.tolist() == [8.0, 9.0] and b.item() == 4
    with pytest.raises(ValueError, match="Size mismatch"):
        D.TensorDataset(x, fg.arange(5))
    cat = ds + D.TensorDataset(np.zeros((3, 2), np.float32), np.arange(3))
    assert len(cat) == 9 and cat[-1][1] == 2 and cat[5][1].item() == 5
    with pytest.raises(IndexError):
        cat[9]
    sub = D.Subset(ds, [5, 0])
    assert len(sub) == 2 and sub[0][1].item() == 5


def test_random_split_lengths_fractions_and_seed():
    ds = D.TensorDataset(np.arange(10))
    a, b = D.random_split(ds, [7, 3], generator=0)
    got = sorted(a.indices + b.indices)
    assert got == list(range(10)) and len(a) == 7
    again, _ = D.random_split(ds, [7, 3], generator=0)
    assert again.indices == a.indices
    parts = D.random_split(ds, [0.5, 0.3, 0.2], generator=np.random.default_rng(1))
    assert [len(p) for p in parts] == [5, 3, 2]
    # fractions that do not divide evenly: floors, remainder handed out from the first
    parts = D.random_split(D.TensorDataset(np.arange(11)), [0.5, 0.5], generator=1)
    assert [len(p) for p in parts] == [6, 5]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        D.random_split(ds, [5, 4])
    fg.manual_seed(3)
    s1 = D.random_split(ds, [5, 5])[0].indices
    fg.manual_seed(3)
    assert D.random_split(ds, [5, 5])[0].indices == s1


def test_samplers():
    ds = list(range(8))
    assert list(D.SequentialSampler(ds)) == ds
    rs = D.RandomSampler(ds, generator=5)
    e1, e2 = list(rs), list(rs)
    assert sorted(e1) == ds and e1 != e2  # a new order each epoch
    assert list(D.RandomSampler(ds, generator=5)) == e1  # reproducible
    rep = list(D.RandomSampler(ds, replacement=True, num_samples=20, generator=0))
    assert len(rep) == 20 and all(0 <= i < 8 for i in rep)
    assert len(list(D.RandomSampler(ds, num_samples=12, generator=0))) == 12
    sub = list(D.SubsetRandomSampler([1, 3, 5], generator=0))
    assert sorted(sub) == [1, 3, 5]
    w = D.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 400, generator=0)
    draws = np.array(list(w))
    assert set(draws.tolist()) == {1, 3} and 0.65 < (draws == 3).mean() < 0.85
    nr = list(D.WeightedRandomSampler([1, 1, 1, 0], 3, replacement=False, generator=0))
    assert sorted(nr) == [0, 1, 2]
    with pytest.raises(ValueError, match="without replacement"):
        D.WeightedRandomSampler([1, 0], 2, replacement=False)
    bs = D.BatchSampler(D.SequentialSampler(ds), 3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7]] and len(bs) == 3
    bs = D.BatchSampler(range(8), 3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5]] and len(bs) == 2
    with pytest.raises(ValueError, match="batch_size"):
        D.BatchSampler(ds, 0, False)


Point = collections.namedtuple("Point", "x y")


def test_default_collate_structures_and_dtypes():
    batch = [
        {"img": np.full((2, 2), i, np.float32), "label": i, "w": 0.5 * i, "name": f"s{i}"}
        for i in range(3)
    ]
    out = D.default_collate(batch)
    assert isinstance(out["img"], fg.Tensor) and list(out["img"].shape) == [3, 2, 2]
    assert out["img"].dtype == fg.float32
    assert out["label"].dtype == fg.int64 and out["label"].tolist() == [0, 1, 2]
    assert out["w"].dtype == fg.float64
    assert out["name"] == ["s0", "s1", "s2"]
    # tuples of tensors: a list of stacked tensors (as in PyTorch)
    t = D.default_collate([(fg.ones([2]), fg.tensor(1)), (fg.zeros([2]), fg.tensor(0))])
    assert isinstance(t, list) and t[0].tolist() == [[1, 1], [0, 0]] and t[1].tolist() == [1, 0]
    p = D.default_collate([Point(1.0, np.ones(2)), Point(2.0, np.zeros(2))])
    assert isinstance(p, Point) and p.x.tolist() == [1.0, 2.0] and list(p.y.shape) == [2, 2]
    with pytest.raises(RuntimeError, match="same shape"):
        D.default_collate([np.ones(2), np.ones(3)])
    with pytest.raises(TypeError, match="found object"):
        D.default_collate([object(), object()])


def test_collated_batch_shares_the_stacked_buffer():
    # default_collate = numpy_collate (np.stack: one new buffer) + to_tensors, which
    # wraps that buffer without another copy
    from ferrograd.utils.data.collate import numpy_collate, to_tensors

    stacked = numpy_collate([{"a": np.ones(3)}, {"a": np.zeros(3)}])
    out = to_tensors(stacked)
    stacked["a"][0, 0] = 7.0
    assert out["a"][0, 0].item() == 7.0
