"""DataLoader in the main process and with worker processes (small and fast), and the
Paddle dialect (ferrograd.io)."""

from __future__ import annotations

import os
import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.utils import data as D


class Squares(D.Dataset):
    """Sample i: (array [i, i], i * i)."""

    def __init__(self, n: int = 10) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return np.array([i, i], np.float32), i * i


class Stream(D.IterableDataset):
    """0..n-1, split between workers by get_worker_info()."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        info = D.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield np.array(i, np.int64)


class Fails(D.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int):
        if i == 2:
            raise KeyError(f"bad sample {i}")
        return np.float32(i)


def _rows(loader):
    return [b[0][:, 0].tolist() for b in loader]


def test_batching_shuffle_drop_last():
    dl = D.DataLoader(Squares(10), batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    x, y = batches[0]
    assert list(x.shape) == [4, 2] and x.dtype == fg.float32
    assert y.tolist() == [0, 1, 4, 9] and y.dtype == fg.int64
    assert list(batches[-1][0].shape) == [2, 2]
    dl = D.DataLoader(Squares(10), batch_size=4, drop_last=True)
    assert len(dl) == 2 and len(list(dl)) == 2
    dl = D.DataLoader(Squares(10), batch_size=3, shuffle=True, generator=0)
    e1, e2 = _rows(dl), _rows(dl)
    flat = sorted(v for b in e1 for v in b)
    assert flat == list(range(10)) and e1 != e2
    again = D.DataLoader(Squares(10), batch_size=3, shuffle=True, generator=0)
    assert _rows(again) == e1
    # no auto-batching
    items = list(D.DataLoader(Squares(3), batch_size=None))
    assert list(items[1][0].shape) == [2] and items[1][1] == 1


def test_sampler_batch_sampler_and_collate_fn():
    dl = D.DataLoader(Squares(6), sampler=[5, 4, 3], batch_size=2)
    assert _rows(dl) == [[5.0, 4.0], [3.0]]
    bs = D.BatchSampler(D.SequentialSampler(range(6)), 4, drop_last=False)
    dl = D.DataLoader(Squares(6), batch_sampler=bs)
    assert [len(b[1]) for b in dl] == [4, 2] and len(dl) == 2
    dl = D.DataLoader(Squares(4), batch_size=2, collate_fn=lambda b: [s[1] for s in b])
    assert list(dl) == [[0, 1], [4, 9]]
    with pytest.raises(ValueError, match="mutually exclusive"):
        D.DataLoader(Squares(4), batch_sampler=bs, batch_size=3)
    with pytest.raises(ValueError, match="shuffle"):
        D.DataLoader(Squares(4), sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="num_workers"):
        D.DataLoader(Squares(4), num_workers=-1)


def test_iterable_dataset_main_process():
    dl = D.DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(dl) == 3
    dl = D.DataLoader(Stream(7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="shuffle"):
        D.DataLoader(Stream(3), shuffle=True)


def test_a_training_loop_over_a_tensor_dataset():
    fg.manual_seed(0)
    x = fg.randn([64, 3])
    w_true = fg.tensor([[1.0], [-2.0], [0.5]])
    ds = D.TensorDataset(x, x.matmul(w_true))
    model = fg.nn.Linear(3, 1)
    opt = fg.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(30):
        for xb, yb in D.DataLoader(ds, batch_size=16, shuffle=True):
            opt.zero_grad()
            loss = ((model(xb) - yb) ** 2).mean()
            loss.backward()
            opt.step()
    assert loss.item() < 1e-3


workers = pytest.mark.skipif(sys.platform == "win32", reason="fork-based workers")


@workers
def test_workers_give_the_same_batches_in_order():
    single = [(x.tolist(), y.tolist()) for x, y in D.DataLoader(Squares(11), batch_size=3)]
    multi = [
        (x.tolist(), y.tolist()) for x, y in D.DataLoader(Squares(11), batch_size=3, num_workers=2)
    ]
    assert multi == single
    # custom collate returning ferrograd tensors and plain arrays: both come back as sent
    dl = D.DataLoader(
        Squares(4),
        batch_size=2,
        num_workers=2,
        collate_fn=lambda b: (fg.tensor([s[1] for s in b]), np.array([s[1] for s in b])),
    )
    out = list(dl)
    assert isinstance(out[0][0], fg.Tensor) and isinstance(out[0][1], np.ndarray)
    assert out[1][0].tolist() == [4, 9]


def _init(worker_id: int) -> None:
    os.environ["FG_TEST_WORKER"] = str(worker_id)


class WhoAmI(D.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int):
        info = D.get_worker_info()
        return np.array([info.id, int(os.environ["FG_TEST_WORKER"]), info.num_workers])


@workers
def test_worker_init_fn_worker_info_and_iterable_sharding():
    rows = [
        b.tolist()
        for b in D.DataLoader(WhoAmI(), batch_size=1, num_workers=2, worker_init_fn=_init)
    ]
    assert [r[0][0] for r in rows] == [0, 1, 0, 1]  # round robin
    assert all(r[0][0] == r[0][1] and r[0][2] == 2 for r in rows)
    got = [v for b in D.DataLoader(Stream(9), batch_size=2, num_workers=2) for v in b.tolist()]
    assert sorted(got) == list(range(9))
    assert D.get_worker_info() is None


@workers
def test_worker_exception_comes_out_unchanged_with_the_worker_traceback():
    with pytest.raises(KeyError, match="bad sample 2") as ei:
        list(D.DataLoader(Fails(), batch_size=1, num_workers=2))
    assert any("worker process" in n for n in getattr(ei.value, "__notes__", []))


@workers
def test_persistent_workers_across_epochs_and_early_break():
    dl = D.DataLoader(Squares(8), batch_size=2, num_workers=2, persistent_workers=True)
    first = _rows(dl)
    it = iter(dl)
    next(it)  # leave the epoch early: the next one still starts from the beginning
    assert _rows(dl) == first == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]
    procs = dl._persistent_iter._workers
    assert all(p.is_alive() for p in procs)
    dl._persistent_iter.shutdown()
    assert not any(p.is_alive() for p in procs)
    stream = D.DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(2):
        assert sorted(v for b in stream for v in b.tolist()) == list(range(5))
    stream._persistent_iter.shutdown()


def test_paddle_io_names():
    import ferrograd as paddle

    io = paddle.io
    assert io.Dataset is D.Dataset and io.TensorDataset is D.TensorDataset
    bs = io.BatchSampler(dataset=Squares(5), batch_size=2, drop_last=True)
    assert list(bs) == [[0, 1], [2, 3]] and len(bs) == 2
    shuffled = io.BatchSampler(Squares(6), shuffle=True, batch_size=3)
    assert sorted(i for b in shuffled for i in b) == list(range(6))
    with pytest.raises(ValueError, match="exactly one"):
        io.BatchSampler()
    loader = io.DataLoader(
        Squares(5), batch_size=2, shuffle=False, drop_last=False, return_list=True
    )
    assert [b[1].tolist() for b in loader] == [[0, 1], [4, 9], [16]]
    loader = io.DataLoader(Squares(5), batch_sampler=bs)
    assert len(list(loader)) == 2
    assert paddle.utils.data.DataLoader is D.DataLoader


class Dies(D.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int):
        if D.get_worker_info() is not None and i == 1:
            os._exit(3)  # a crash in the worker, not an exception
        return np.float32(i)


@workers
def test_a_dead_worker_is_reported():
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(D.DataLoader(Dies(), batch_size=1, num_workers=2))


class Mixed(D.Dataset):
    def __len__(self) -> int:
        return 3

    def __getitem__(self, i: int):
        return np.float32(i), np.ones(2), "s"


@workers
def test_no_auto_batching_converts_the_same_in_workers():
    single = list(D.DataLoader(Mixed(), batch_size=None))
    multi = list(D.DataLoader(Mixed(), batch_size=None, num_workers=2))
    for a, b in zip(single, multi):
        assert isinstance(b[0], fg.Tensor) and isinstance(b[1], fg.Tensor) and b[2] == "s"
        assert a[0].item() == b[0].item() and a[1].tolist() == b[1].tolist()
