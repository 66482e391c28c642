"""Session 22's fft.hfft2 / hfftn / ihfft2 / ihfftn (against NumPy), Paddle's
io.ComposeDataset / SequenceSampler and metric.Precision / Recall / Auc (values checked on
Paddle 3.3.1)."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest

RNG = np.random.default_rng(0)


def test_hermitian_ffts_match_numpy():
    x = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
    r = RNG.normal(size=(3, 5))
    t, tr = fg.tensor(x), fg.tensor(r)
    for norm, dual in (("backward", "forward"), ("ortho", "ortho"), ("forward", "backward")):
        np.testing.assert_allclose(
            fg.fft.hfft2(t, norm=norm).numpy(), np.fft.irfft2(x.conj(), norm=dual), atol=1e-12
        )
        np.testing.assert_allclose(
            fg.fft.ihfft2(tr, norm=norm).numpy(),
            np.fft.rfft2(r, norm=dual).conj(),
            atol=1e-12,
        )
    np.testing.assert_allclose(
        fg.fft.hfftn(t, s=(3, 6)).numpy(),
        np.fft.irfftn(x.conj(), s=(3, 6), axes=(0, 1), norm="forward"),
        atol=1e-12,
    )
    y = RNG.normal(size=(2, 3, 4))
    np.testing.assert_allclose(
        fg.fft.ihfftn(fg.tensor(y)).numpy(), np.fft.rfftn(y, norm="forward").conj(), atol=1e-12
    )
    assert list(fg.fft.hfft2(fg.tensor(y.astype(complex))).shape) == [2, 3, 6]
    # Paddle's keyword: axes
    np.testing.assert_allclose(
        fg.fft.ihfft2(tr, axes=(0, 1)).numpy(), np.fft.rfft2(r, norm="forward").conj(), atol=1e-12
    )
    g = fg.tensor(r, requires_grad=True)
    assert fg.autograd.gradcheck(lambda v: fg.fft.ihfft2(v).abs(), (g,))
    with pytest.raises(ValueError):
        fg.fft.hfft2(t, norm="nope")


def test_compose_dataset_and_sequence_sampler():
    class A(fg.io.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return (np.float32(i), np.int64(i * 10))

    class B(fg.io.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.float32(-i)

    c = fg.io.ComposeDataset([A(), B()])
    assert len(c) == 3 and c[1] == (1.0, 10, -1.0)
    batch = next(iter(fg.io.DataLoader(c, batch_size=3)))
    assert [list(np.asarray(f)) for f in batch] == [[0, 1, 2], [0, 10, 20], [0, -1, -2]]

    class Short(fg.io.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return (i,)

    with pytest.raises(ValueError, match="same"):
        fg.io.ComposeDataset([A(), Short()])
    with pytest.raises(ValueError, match="empty"):
        fg.io.ComposeDataset([])
    s = fg.io.SequenceSampler([5, 6, 7])
    assert list(s) == [0, 1, 2] and len(s) == 3


def test_binary_metrics():
    preds = np.array([0.1, 0.6, 0.8, 0.3, 0.55])
    labels = np.array([0, 1, 0, 1, 1])
    p, r = fg.metric.Precision(), fg.metric.Recall()
    p.update(preds, labels)
    r.update(fg.tensor(preds), fg.tensor(labels))
    assert (p.accumulate(), p.name(), p.tp, p.fp) == (2 / 3, "precision", 2, 1)
    assert (r.accumulate(), r.name()) == (2 / 3, "recall")
    p.reset()
    assert p.accumulate() == 0.0 and fg.metric.Recall().accumulate() == 0.0
    with pytest.raises(ValueError, match="numpy ndarray or Tensor"):
        p.update([0.3], [1])
    auc = fg.metric.Auc()
    auc.update(np.stack([1 - preds, preds], 1), labels.reshape(-1, 1))
    assert auc.accumulate() == 0.5 and auc.name() == "auc"  # Paddle 3.3.1: 0.5
    # distinct scores: the binned area is the exact ROC area P(pos > neg)
    s = RNG.permutation(200) / 200.0
    lab = RNG.integers(0, 2, 200)
    exact = np.mean(s[lab == 1][:, None] > s[lab == 0][None, :])
    a = fg.metric.Auc()
    a.update(fg.tensor(np.stack([1 - s, s], 1)), fg.tensor(lab.reshape(-1, 1)))
    assert a.accumulate() == pytest.approx(exact, abs=1e-12)
    coarse = fg.metric.Auc(num_thresholds=10)
    coarse.update(np.array([[0.5, 0.5], [0.0, 1.0], [1.0, 0.0]]), np.array([[1], [1], [0]]))
    assert coarse.accumulate() == 1.0
    assert fg.metric.Auc().accumulate() == 0.0
    with pytest.raises(ValueError, match="lie in"):
        a.update(np.array([[0.0, 1.5]]), np.array([[1]]))
