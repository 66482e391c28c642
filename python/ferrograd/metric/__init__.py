"""``ferrograd.metric`` (``paddle.metric``): classification accuracy as a function
(``accuracy``) and as a running metric (``Accuracy``); the binary metrics ``Precision``,
``Recall`` and ``Auc`` (``binary.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _core

Tensor = _core.Tensor


def _np(x: Any) -> np.ndarray:
    return x.detach().numpy() if isinstance(x, Tensor) else np.asarray(x)


def _labels(label: np.ndarray, n: int) -> np.ndarray:
    """Labels as a column ``[N, 1]``: from ``[N]``, ``[N, 1]``, or one-hot ``[N, C]``."""
    if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
        out = label.reshape(-1, 1)
    elif label.ndim == 2:
        out = label.argmax(-1).reshape(-1, 1)
    else:
        raise ValueError(f"label must have shape [N], [N, 1] or [N, C], got {label.shape}")
    if out.shape[0] != n:
        raise ValueError(f"{out.shape[0]} labels for {n} predictions")
    return out


def _topk_correct(pred: np.ndarray, label: np.ndarray, k: int) -> np.ndarray:
    """``[N, k]`` booleans: is the label the j-th best prediction of row i."""
    if pred.ndim != 2:
        raise ValueError(f"predictions must have shape [N, C], got {pred.shape}")
    if not 1 <= k <= pred.shape[1]:
        raise ValueError(f"k={k} must be in [1, {pred.shape[1]}] (the number of classes)")
    # stable descending order: on ties the lower class index ranks first
    top = np.argsort(-pred, axis=1, kind="stable")[:, :k]
    return top == _labels(label, pred.shape[0])


def accuracy(
    input: Tensor,
    label: Tensor,
    k: int = 1,
    correct: Any = None,
    total: Any = None,
    name: Any = None,
) -> Tensor:
    """Paddle: the fraction of rows of ``input`` (``[N, C]`` scores) whose ``label``
    (``[N]`` or ``[N, 1]``) is among the ``k`` highest scores, as a 0-d float32 tensor.
    ``correct`` / ``total``, when given, receive the counts. In static mode (a
    ``static.Variable`` input) it records the computation and returns a Variable."""
    from ..static.variable import Variable

    if isinstance(input, Variable):
        return _static_accuracy(input, label, int(k), correct, total)
    c = _topk_correct(_np(input), _np(label), int(k))
    n_correct, n = int(c.any(axis=1).sum()), c.shape[0]
    if correct is not None:
        correct.copy_(_core.tensor(n_correct, dtype=correct.dtype).reshape(list(correct.shape)))
    if total is not None:
        total.copy_(_core.tensor(n, dtype=total.dtype).reshape(list(total.shape)))
    return _core.tensor(n_correct / n if n else 0.0, dtype=_core.float32)


def _static_accuracy(input: Any, label: Any, k: int, correct: Any, total: Any) -> Any:
    """``accuracy`` while a static program is built (Paddle's static branch appends
    ``top_k`` and ``accuracy`` ops, ``python/paddle/metric/metrics.py``): the fraction of
    rows whose label is among the ``k`` best, computed when the program runs."""
    if correct is not None or total is not None:
        raise TypeError(
            "metric.accuracy: correct= / total= are not supported in static mode; "
            "fetch the returned accuracy instead"
        )
    import ferrograd

    _, idx = ferrograd.topk(input, k)
    lab = label.reshape([-1, 1])
    if lab.dtype != idx.dtype:
        lab = lab.astype(idx.dtype)
    # the k indices of a row are distinct: at most one equals the label
    hits = (idx == lab).astype("float32").sum(axis=1)
    return hits.mean()


class Metric:
    """Base of Paddle's metrics: ``compute`` (optional pre-processing of a batch),
    ``update``, ``accumulate``, ``reset``, ``name``."""

    def reset(self) -> None:
        raise NotImplementedError

    def update(self, *args: Any) -> Any:
        raise NotImplementedError

    def accumulate(self) -> Any:
        raise NotImplementedError

    def name(self) -> Any:
        raise NotImplementedError

    def compute(self, *args: Any) -> Any:
        return args


class Accuracy(Metric):
    """Paddle: ``Accuracy(topk=(1,), name=None)``. ``compute(pred, label)`` gives a
    ``[N, maxk]`` float tensor of hits; ``update(correct)`` adds a batch and returns its
    accuracy (one per ``k``); ``accumulate()`` the accuracy over all batches since
    ``reset()``; a float for one ``k``, else a list."""

    def __init__(self, topk: int | Sequence[int] = (1,), name: str | None = None) -> None:
        self.topk = (int(topk),) if isinstance(topk, int) else tuple(int(k) for k in topk)
        self.maxk = max(self.topk)
        self._init_name(name)
        self.reset()

    def _init_name(self, name: str | None) -> None:
        name = name or "acc"
        if self.maxk != 1:
            self._name = [f"{name}_top{k}" for k in self.topk]
        else:
            self._name = [name]

    def compute(self, pred: Any, label: Any, *args: Any) -> Tensor:  # type: ignore[override]
        """``[N, maxk]`` hits (1.0 where the label is the j-th best prediction)."""
        c = _topk_correct(_np(pred), _np(label), self.maxk)
        return _core.from_numpy(c.astype(np.float32))

    def update(self, correct: Any, *args: Any) -> Any:  # type: ignore[override]
        """Adds a batch of ``compute`` output; returns its accuracy."""
        c = _np(correct)
        n = int(np.prod(c.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(c[..., :k].sum())
            accs.append(hits / n if n else 0.0)
            self.total[i] += hits
            self.count[i] += n
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self) -> None:
        """Forgets every batch."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self) -> Any:
        """Accuracy over all batches since the last ``reset()``."""
        res = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self) -> list[str]:
        """The metric's names (``acc``, or ``acc_top1``, ``acc_top5``, ...)."""
        return self._name


from .binary import Auc as Auc  # noqa: E402
from .binary import Precision as Precision  # noqa: E402
from .binary import Recall as Recall  # noqa: E402

__all__ = ["Metric", "Accuracy", "accuracy", "Precision", "Recall", "Auc"]
