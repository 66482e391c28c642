"""The demo's real-data example (``python -m ferrograd.demo --cnn``): a small CNN on the
8x8 handwritten digits that ship with scikit-learn (``sklearn.datasets.load_digits``, no
download), trained through ``ferrograd.utils.data.DataLoader`` with a tqdm progress bar;
prints the test accuracy per epoch and, with ``--plot PATH``, writes a PNG of the
learning curves and a few misclassified test digits.

Needs ``pip install 'ferrograd[demo]'`` (scikit-learn, tqdm, matplotlib; tqdm and
matplotlib are optional). ``run`` returns the results in a dict for tests.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Dict, List

import numpy as np

import ferrograd as fg
from ferrograd import nn
from ferrograd.nn import functional as F
from ferrograd.utils.data import DataLoader, TensorDataset


def load_digits_split(seed: int, limit: int = 0) -> tuple:
    """The digits as float32 images ``[N, 1, 8, 8]`` in [0, 1] and int64 labels, shuffled
    with ``seed`` and split 80/20 into train and test (the first ``limit`` only, if > 0)."""
    try:
        from sklearn.datasets import load_digits  # type: ignore
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise SystemExit("the CNN demo needs scikit-learn: pip install 'ferrograd[demo]'") from e
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    if limit > 0:
        order = order[:limit]
    cut = int(len(order) * 0.8)
    tr, te = order[:cut], order[cut:]
    return x[tr], y[tr], x[te], y[te]


def make_model() -> nn.Module:
    """Conv(1→16, 3x3) → ReLU → MaxPool 2 → Conv(16→32, 3x3) → ReLU → MaxPool 2 →
    Flatten → Linear(128 → 10)."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10),
    )


def _progress(it: Any, enabled: bool, desc: str) -> Any:
    if not enabled:
        return it
    try:
        from tqdm import tqdm  # type: ignore
    except ImportError:
        return it
    return tqdm(it, desc=desc, leave=False)


def evaluate(model: nn.Module, x: np.ndarray, y: np.ndarray) -> tuple:
    """(accuracy, predictions) on ``x``, ``y`` under ``no_grad``."""
    model.eval()
    with fg.no_grad():
        pred = model(fg.tensor(x)).argmax(dim=1).numpy()
    model.train()
    return float((pred == y).mean()), pred


def plot(
    path: str, hist: Dict[str, List[float]], x: np.ndarray, y: np.ndarray, pred: np.ndarray
) -> bool:
    """Writes the learning curves and up to 8 misclassified digits to ``path``; False
    (with a note) when matplotlib is missing."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        print("(no plot: matplotlib is not installed; pip install 'ferrograd[demo]')")
        return False
    wrong = np.flatnonzero(pred != y)[:8]
    fig = plt.figure(figsize=(10, 4.5))
    ax = fig.add_subplot(1, 2, 1)
    epochs = range(1, len(hist["loss"]) + 1)
    ax.plot(epochs, hist["loss"], label="train loss")
    ax.set_xlabel("epoch")
    ax.set_ylabel("loss")
    ax2 = ax.twinx()
    ax2.plot(epochs, hist["test_acc"], color="tab:orange", label="test accuracy")
    ax2.set_ylabel("test accuracy")
    ax.set_title("digits CNN: learning curves")
    fig.legend(loc="center left", bbox_to_anchor=(0.12, 0.5))
    for i, j in enumerate(wrong):
        sub = fig.add_subplot(2, 8, 8 * (i // 4) + 5 + i % 4)
        sub.imshow(x[j, 0], cmap="gray_r")
        sub.set_title(f"{y[j]} → {pred[j]}", fontsize=9)
        sub.axis("off")
    if len(wrong) == 0:
        fig.text(0.7, 0.5, "no misclassified test digits", ha="center")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"wrote {path} (learning curves and {len(wrong)} misclassified digits; true → predicted)")
    return True


def run(args: argparse.Namespace) -> Dict[str, Any]:
    """Trains the CNN (``args.cnn_epochs`` epochs, Adam, batch 64) and reports."""
    start = time.perf_counter()
    fg.seed(args.seed)
    xtr, ytr, xte, yte = load_digits_split(args.seed, getattr(args, "cnn_samples", 0))
    print(
        f"ferrograd {fg.__version__} — CNN on sklearn's 8x8 digits: {len(ytr)} train, {len(yte)} test"
    )
    model = make_model()
    print(model)
    opt = fg.optim.Adam(model.parameters(), lr=3e-3)
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
    hist: Dict[str, List[float]] = {"loss": [], "test_acc": []}
    pred = yte
    for epoch in range(1, args.cnn_epochs + 1):
        total, count = 0.0, 0
        for xb, yb in _progress(loader, args.progress, f"epoch {epoch}/{args.cnn_epochs}"):
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(yb)
            count += len(yb)
        acc, pred = evaluate(model, xte, yte)
        hist["loss"].append(total / max(count, 1))
        hist["test_acc"].append(acc)
        print(f"epoch {epoch:2d}: train loss {hist['loss'][-1]:.4f}, test accuracy {acc:.3f}")
    seconds = time.perf_counter() - start
    print(f"final test accuracy {hist['test_acc'][-1]:.3f} after {seconds:.1f} s")
    plotted = plot(args.plot, hist, xte, yte, pred) if args.plot else False
    return {
        "seed": args.seed,
        "test_accuracy": hist["test_acc"][-1],
        "history": hist,
        "seconds": seconds,
        "plotted": plotted,
        "misclassified": int((pred != yte).sum()),
    }
