"""Paddle's binary-classification metrics: ``Precision``, ``Recall`` (a prediction
rounds to class 1 at ``>= 0.5``) and ``Auc`` (the area under the ROC curve from
``num_thresholds + 1`` score bins, as Paddle computes it). ``update`` takes NumPy arrays or
Tensors; ``accumulate`` returns a float (0.0 before any positive case)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from . import Metric

Tensor = _core.Tensor


def _array(x: Any, what: str) -> np.ndarray:
    if isinstance(x, Tensor):
        return x.detach().numpy()
    if isinstance(x, np.ndarray):
        return x
    raise ValueError(f"The '{what}' must be a numpy ndarray or Tensor.")


class _Counts(Metric):
    def __init__(self, name: str, *args: Any, **kwargs: Any) -> None:
        self._name = name
        self.tp = self.fp = self.fn = 0

    def reset(self) -> None:
        """Forgets the counts."""
        self.tp = self.fp = self.fn = 0

    def update(self, preds: Any, labels: Any) -> None:  # type: ignore[override]
        """Counts a batch: ``preds`` probabilities of class 1 (shape ``[N]`` or
        ``[N, 1]``), ``labels`` 0 / 1 of the same length."""
        p = np.floor(_array(preds, "preds").reshape(-1) + 0.5).astype(np.int64)
        lab = _array(labels, "labels").reshape(-1).astype(np.int64)
        if p.shape != lab.shape:
            raise ValueError(f"{self._name}: {p.size} predictions but {lab.size} labels")
        self.tp += int(np.sum((p == 1) & (lab == 1)))
        self.fp += int(np.sum((p == 1) & (lab != 1)))
        self.fn += int(np.sum((p != 1) & (lab == 1)))

    def name(self) -> str:
        """The metric's name."""
        return self._name


class Precision(_Counts):
    """``Precision(name='precision')``: ``tp / (tp + fp)`` over the batches seen."""

    def __init__(self, name: str = "precision", *args: Any, **kwargs: Any) -> None:
        super().__init__(name)

    def accumulate(self) -> float:
        """``tp / (tp + fp)`` (0.0 with no positive prediction)."""
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0


class Recall(_Counts):
    """``Recall(name='recall')``: ``tp / (tp + fn)`` over the batches seen."""

    def __init__(self, name: str = "recall", *args: Any, **kwargs: Any) -> None:
        super().__init__(name)

    def accumulate(self) -> float:
        """``tp / (tp + fn)`` (0.0 with no positive label)."""
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0


class Auc(Metric):
    """``Auc(curve='ROC', num_thresholds=4095, name='auc')``: the ROC area from scores
    binned into ``num_thresholds + 1`` bins (``update(preds [N, 2], labels [N, 1])``,
    the score being ``preds[:, 1]``)."""

    def __init__(
        self,
        curve: str = "ROC",
        num_thresholds: int = 4095,
        name: str = "auc",
        *args: Any,
        **kwargs: Any,
    ) -> None:
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Auc: curve must be 'ROC' or 'PR', got {curve!r}")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int):
            raise TypeError(f"Auc: num_thresholds must be an int, got {num_thresholds!r}")
        if num_thresholds < 1:
            raise ValueError(f"Auc: num_thresholds must be positive, got {num_thresholds}")
        self._curve, self._num_thresholds, self._name = curve, num_thresholds, name
        self.reset()

    def reset(self) -> None:
        """Forgets the binned counts."""
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def update(self, preds: Any, labels: Any) -> None:  # type: ignore[override]
        """Bins a batch's scores ``preds[:, 1]`` (in ``[0, 1]``) by label."""
        lab = _array(labels, "labels").reshape(-1)
        p = _array(preds, "preds")
        if p.ndim != 2 or p.shape[0] != lab.shape[0] or p.shape[1] < 2:
            raise ValueError(f"Auc: preds must be [N, 2] for N = {lab.shape[0]} labels")
        score = p[:, 1].astype(np.float64)
        if np.any(score < 0) or np.any(score > 1) or np.any(np.isnan(score)):
            raise ValueError("Auc: the scores preds[:, 1] must lie in [0, 1]")
        bins = (score * self._num_thresholds).astype(np.int64)
        pos = lab.astype(bool)
        np.add.at(self._stat_pos, bins[pos], 1.0)
        np.add.at(self._stat_neg, bins[~pos], 1.0)

    def accumulate(self) -> float:
        """The area under the ROC curve (0.0 until both classes were seen)."""
        # from the highest bin down: cumulative positives (y) against negatives (x)
        pos = np.concatenate([[0.0], np.cumsum(self._stat_pos[::-1])])
        neg = np.concatenate([[0.0], np.cumsum(self._stat_neg[::-1])])
        tot_pos, tot_neg = pos[-1], neg[-1]
        if tot_pos <= 0 or tot_neg <= 0:
            return 0.0
        area = np.sum(np.abs(neg[1:] - neg[:-1]) * (pos[1:] + pos[:-1]) / 2.0)
        return float(area / tot_pos / tot_neg)

    def name(self) -> str:
        """The metric's name."""
        return self._name


__all__ = ["Precision", "Recall", "Auc"]
