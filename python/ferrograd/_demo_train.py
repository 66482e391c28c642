"""The training part of ``python -m ferrograd.demo``: a small classifier with a custom
PyLayer activation, trained on generated spirals.

Pieces (each usable on its own, and used by the tests and ``benches/compare.py``):

* ``make_spirals``: three interleaved noisy spiral arms in the plane (NumPy, seeded);
* ``Swish``: ``x * sigmoid(x)`` as a ``PyLayer`` whose backward is written with
  differentiable ops, so its second derivative is right too;
* ``SpiralNet``: Linear -> Swish -> LayerNorm -> Linear -> Swish -> Dropout -> Linear;
* ``train``: Adam with a cosine learning-rate schedule on mini-batches, a tqdm bar per epoch when tqdm is installed, test
  accuracy under ``no_grad`` after each epoch, saved tensors optionally on disk.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

import ferrograd as fg
from ferrograd import nn

NUM_CLASSES = 3
TURNS = 1.5  # how far each arm winds around the origin


def make_spirals(samples: int, seed: int, noise: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` points on ``NUM_CLASSES`` spiral arms (float32 ``[n, 2]``) and their
    arm index (int64 ``[n]``), shuffled."""
    rng = np.random.default_rng(seed)
    per_class = max(1, samples // NUM_CLASSES)
    xs, ys = [], []
    for c in range(NUM_CLASSES):
        r = np.linspace(0.05, 1.0, per_class)
        theta = (
            TURNS * 2.0 * math.pi * r
            + c * 2.0 * math.pi / NUM_CLASSES
            + noise * rng.standard_normal(per_class)
        )
        xs.append(np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1))
        ys.append(np.full(per_class, c))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int64)
    order = rng.permutation(len(y))
    return x[order], y[order]


class Swish(fg.autograd.PyLayer):
    """``swish(x) = x * sigmoid(x)`` with a hand-written backward."""

    @staticmethod
    def forward(ctx: Any, x: fg.Tensor) -> fg.Tensor:
        ctx.save_for_backward(x)
        return x * x.sigmoid()

    @staticmethod
    def backward(ctx: Any, dy: fg.Tensor) -> fg.Tensor:
        (x,) = ctx.saved_tensor()
        # recomputed from x (not saved from forward) so that the formula differentiates
        s = x.sigmoid()
        return dy * (s * (1.0 + x * (1.0 - s)))


class SwishLayer(nn.Module):
    """``Swish`` as a module."""

    def forward(self, x: fg.Tensor) -> fg.Tensor:
        """swish of ``x``."""
        return Swish.apply(x)


class SpiralNet(nn.Module):
    """A two-hidden-layer classifier of 2-D points into ``NUM_CLASSES`` classes."""

    def __init__(self, hidden: int = 64, dropout: float = 0.05) -> None:
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.act1 = SwishLayer()
        self.norm = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.act2 = SwishLayer()
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, NUM_CLASSES)

    def forward(self, x: fg.Tensor) -> fg.Tensor:
        """Class logits ``[n, NUM_CLASSES]``."""
        h = self.norm(self.act1(self.fc1(x)))
        h = self.drop(self.act2(self.fc2(h)))
        return self.head(h)


@dataclass
class History:
    """Per-epoch curves of a training run."""

    train_loss: list = field(default_factory=list)
    test_loss: list = field(default_factory=list)
    train_accuracy: list = field(default_factory=list)
    test_accuracy: list = field(default_factory=list)


def accuracy(model: nn.Module, x: fg.Tensor, y: fg.Tensor) -> float:
    """Share of ``x`` that ``model`` classifies as ``y`` (eval mode, no graph)."""
    was_training = model.training
    model.eval()
    with fg.no_grad():
        pred = model(x).argmax(1)
    model.train(was_training)
    return float((pred == y).astype(fg.float32).mean())


def evaluate(model: nn.Module, x: fg.Tensor, y: fg.Tensor) -> tuple[float, float]:
    """Mean cross-entropy and accuracy of ``model`` on ``x`` (eval mode, no graph)."""
    was_training = model.training
    model.eval()
    with fg.no_grad():
        logits = model(x)
        loss = float(nn.functional.cross_entropy(logits, y))
        acc = float((logits.argmax(1) == y).astype(fg.float32).mean())
    model.train(was_training)
    return loss, acc


def predict_grid(model: nn.Module, lo: float, hi: float, steps: int) -> np.ndarray:
    """The class ``model`` predicts at each point of a ``steps`` x ``steps`` grid over
    ``[lo, hi]^2`` (rows: y, columns: x), for drawing decision regions."""
    axis = np.linspace(lo, hi, steps, dtype=np.float32)
    gx, gy = np.meshgrid(axis, axis)
    points = fg.tensor(np.stack([gx.ravel(), gy.ravel()], axis=1))
    was_training = model.training
    model.eval()
    with fg.no_grad():
        pred = model(points).argmax(1).numpy()
    model.train(was_training)
    return pred.reshape(steps, steps)


def _progress(total: int, desc: str, enabled: bool) -> Any:
    """A tqdm bar when tqdm is installed and wanted, else None."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, leave=False, unit="batch")


def train(
    model: nn.Module,
    data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    epochs: int,
    seed: int,
    batch_size: int = 64,
    lr: float = 0.01,
    offload: bool = False,
    progress: bool = True,
    checkpoint: bool = False,
    log: Any = print,
) -> History:
    """Trains ``model`` with Adam (cosine-annealed ``lr``) on softmax cross-entropy;
    returns the curves. ``checkpoint`` recomputes the model's activations in backward
    (``utils.checkpoint``) instead of keeping them."""
    x_train, y_train, x_test, y_test = data
    xt, yt = fg.tensor(x_train), fg.tensor(y_train)
    xv, yv = fg.tensor(x_test), fg.tensor(y_test)
    optimizer = fg.optim.Adam(model.parameters(), lr=lr)
    # the learning rate decays to zero over the run (a cosine schedule, stepped per epoch)
    schedule = fg.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, epochs))
    rng = np.random.default_rng(seed)
    n = len(y_train)
    batches = max(1, math.ceil(n / batch_size))
    history = History()
    model.train()
    for epoch in range(1, epochs + 1):
        order = fg.tensor(rng.permutation(n))
        bar = _progress(batches, f"epoch {epoch}/{epochs}", progress)
        loss_sum = correct = 0.0
        start = time.perf_counter()
        for b in range(batches):
            idx = order[b * batch_size : (b + 1) * batch_size]
            xb, yb = xt.index_select(idx), yt.index_select(idx)
            hooks = fg.autograd.graph.save_on_disk() if offload else contextlib.nullcontext()
            with hooks:
                if checkpoint:
                    logits = fg.utils.checkpoint.checkpoint(model, xb)
                else:
                    logits = model(xb)
                loss = nn.functional.cross_entropy(logits, yb)
                optimizer.zero_grad()
                loss.backward()
            optimizer.step()
            batch_loss = float(loss)
            loss_sum += batch_loss * len(idx)
            correct += float((logits.argmax(1) == yb).astype(fg.float32).sum())
            if bar is not None:
                bar.update(1)
                bar.set_postfix(
                    loss=f"{batch_loss:.4f}", acc=f"{correct / min(n, (b + 1) * batch_size):.3f}"
                )
        if bar is not None:
            bar.close()
        schedule.step()
        history.train_loss.append(loss_sum / n)
        history.train_accuracy.append(correct / n)
        test_loss, test_acc = evaluate(model, xv, yv)
        history.test_loss.append(test_loss)
        history.test_accuracy.append(test_acc)
        log(
            f"epoch {epoch:3d}/{epochs}: loss {history.train_loss[-1]:.4f}  "
            f"train acc {history.train_accuracy[-1]:.3f}  test acc {history.test_accuracy[-1]:.3f}  "
            f"({time.perf_counter() - start:.2f} s)"
        )
    return history


def accuracy_floor(*curves: list, last: float = 0.5) -> float:
    """The lower limit of an accuracy axis that shows the last epochs: a little below the
    lowest accuracy any curve reaches in the last ``last`` share of the epochs (early
    epochs may fall below it; the axis is about where training ends up)."""
    low = min(min(c[int(len(c) * (1.0 - last)) :] or c) for c in curves)
    return max(0.0, low - max(0.02, (1.0 - low) * 0.5))


def plot(
    history: History,
    path: str,
    model: Optional[nn.Module] = None,
    data: Optional[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = None,
) -> Optional[str]:
    """Writes the run's picture to ``path`` (PNG): train and test loss per epoch, train and
    test accuracy on an axis zoomed on the last epochs, and — given the model and the
    data — the learned decision regions with the test points. Returns the path, or None
    when matplotlib is not installed."""
    try:
        import matplotlib  # type: ignore[import-not-found]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found]
        import matplotlib.ticker  # type: ignore[import-not-found]
        from matplotlib.colors import ListedColormap  # type: ignore[import-not-found]
    except ImportError:
        return None
    regions = model is not None and data is not None
    epochs = range(1, len(history.train_loss) + 1)
    fig, axes = plt.subplots(1, 3 if regions else 2, figsize=(15 if regions else 10, 4.5))
    ax_loss, ax_acc = axes[0], axes[1]
    ax_loss.plot(epochs, history.train_loss, label="train (dropout on)")
    ax_loss.plot(epochs, history.test_loss, label="test")
    ax_loss.set_xlabel("epoch")
    ax_loss.set_ylabel("cross-entropy")
    ax_loss.set_yscale("log")
    ax_loss.set_title("loss")
    ax_loss.legend()
    ax_acc.plot(epochs, history.train_accuracy, label="train (dropout on)")
    ax_acc.plot(epochs, history.test_accuracy, label="test")
    ax_acc.set_xlabel("epoch")
    ax_acc.set_ylabel("accuracy")
    ax_acc.set_ylim(accuracy_floor(history.train_accuracy, history.test_accuracy), 1.0)
    ax_acc.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    final = history.test_accuracy[-1]
    ax_acc.set_title(f"accuracy (test {final:.1%} after {len(history.test_accuracy)} epochs)")
    ax_acc.legend(loc="lower right")
    for ax in (ax_loss, ax_acc):
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    if regions:
        assert model is not None and data is not None
        ax = axes[2]
        x_train, _, x_test, y_test = data
        lim = float(np.abs(x_train).max()) * 1.05
        grid = predict_grid(model, -lim, lim, 200)
        colors = ["#1f77b4", "#ff7f0e", "#2ca02c"]
        ax.imshow(
            grid,
            origin="lower",
            extent=(-lim, lim, -lim, lim),
            cmap=ListedColormap(colors),
            alpha=0.3,
            interpolation="nearest",
        )
        for c in range(NUM_CLASSES):
            pts = x_test[y_test == c]
            ax.scatter(pts[:, 0], pts[:, 1], s=8, color=colors[c], edgecolors="none")
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.set_aspect("equal")
        ax.set_title("learned regions and test points")
    fig.suptitle("ferrograd demo: spiral classifier")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
