"""The demo (``python -m ferrograd.demo``) runs, prints each section, fits its line, and
trains its classifier to the accuracy the README states (in a short mode here)."""

from __future__ import annotations

import contextlib
import io
import sys
import types

import pytest
from ferrograd import demo

# the tour tests keep the classifier tiny; its own tests below train it properly
TINY = ("--epochs", "1", "--samples", "150")
# the short training mode: a few seconds, and the accuracy the README's figure rests on
SHORT = ("--no-tour", "--no-progress", "--epochs", "12")


def run_demo(*argv: str) -> tuple[dict, str]:
    """Runs ``demo.main(argv)`` in-process; returns its results and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        results = demo.main(list(argv))
    return results, out.getvalue()


def test_demo_runs_and_recovers_the_line():
    results, text = run_demo("--seed", "0", *TINY)
    for header in ("1. Tensors", "2. NumPy interop", "3. Autograd", "4. Least squares"):
        assert header in text
    assert "recovered:" in text
    assert abs(results["slope"] - 3.0) < 0.1
    assert abs(results["intercept"] - 2.0) < 0.1
    assert results["seed"] == 0


def test_demo_autograd_section_values():
    results, _ = run_demo("--seed", "0", *TINY)
    # y = s^3 at s = 2
    assert results["dy_ds"] == 12.0
    assert results["d2y_ds2"] == 12.0


def test_demo_other_seed_and_steps():
    results, text = run_demo("--seed", "3", "--steps", "300", *TINY)
    assert "seed 3" in text
    assert results["steps"] == 300
    assert abs(results["slope"] - 3.0) < 0.1
    assert abs(results["intercept"] - 2.0) < 0.1


def test_classifier_short_mode_reaches_its_accuracy():
    results, text = run_demo(*SHORT)
    assert "1. Tensors" not in text  # --no-tour
    for header in ("5. Checking the custom activation", "6. Training", "7. Checkpoint"):
        assert header in text
    assert results["gradcheck"] is True and results["gradgradcheck"] is True
    assert results["test_accuracy"] >= 0.93  # README: 96.8 % with seed 0
    assert results["train_loss"] < results["history"].train_loss[0]
    assert len(results["history"].test_accuracy) == 12
    # the reloaded checkpoint classifies exactly as the trained model did
    assert results["reloaded_test_accuracy"] == results["test_accuracy"]
    assert "summary: 12 epochs" in text


def test_classifier_default_run_reaches_the_readme_accuracy():
    results, _ = run_demo("--no-tour", "--no-progress")  # 30 epochs, 3000 points
    assert results["epochs"] == 30
    assert results["test_accuracy"] >= 0.97  # README: 99.3 % with seed 0


def test_classifier_is_reproducible_and_offload_changes_nothing():
    quiet = ("--no-tour", "--no-progress", "--epochs", "2", "--samples", "300", "--seed", "4")
    base, _ = run_demo(*quiet)
    again, _ = run_demo(*quiet)
    offloaded, text = run_demo(*quiet, "--offload")
    assert "offload=True" in text
    assert base["history"].train_loss == again["history"].train_loss
    assert base["history"].train_loss == offloaded["history"].train_loss
    assert base["test_accuracy"] == offloaded["test_accuracy"]


def test_checkpoint_flag_changes_nothing():
    quiet = ("--no-tour", "--no-progress", "--epochs", "2", "--samples", "300", "--seed", "4")
    base, _ = run_demo(*quiet)
    recomputed, text = run_demo(*quiet, "--checkpoint")
    assert "checkpoint=True" in text
    assert base["history"].train_loss == recomputed["history"].train_loss  # dropout replayed
    assert base["test_accuracy"] == recomputed["test_accuracy"]


class FakeBar:
    """Records what the demo tells tqdm."""

    made: list = []

    def __init__(self, total, desc, leave, unit):
        self.total, self.desc, self.updates, self.postfix = total, desc, 0, {}
        FakeBar.made.append(self)

    def update(self, n):
        self.updates += n

    def set_postfix(self, **kw):
        self.postfix = kw

    def close(self):
        self.closed = True


def test_progress_bar_per_epoch_when_tqdm_is_installed(monkeypatch):
    FakeBar.made = []
    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=FakeBar))
    run_demo("--no-tour", "--epochs", "2", "--samples", "300")
    assert [b.desc for b in FakeBar.made] == ["epoch 1/2", "epoch 2/2"]
    assert all(b.updates == b.total == 4 and b.closed for b in FakeBar.made)  # 240 / 64
    assert set(FakeBar.made[-1].postfix) == {"loss", "acc"}


def test_without_tqdm_or_matplotlib_the_demo_still_runs(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    png = tmp_path / "curves.png"
    results, text = run_demo("--no-tour", "--epochs", "1", "--samples", "150", "--plot", str(png))
    assert "matplotlib is not installed" in text
    assert results["plot"] is None and not png.exists()
    assert "epoch   1/1" in text  # the per-epoch line is printed either way


def test_plot_is_written_when_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "curves.png"
    results, _ = run_demo(
        "--no-tour", "--no-progress", "--epochs", "2", "--samples", "150", "--plot", str(png)
    )
    assert results["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_history_has_train_and_test_loss_per_epoch():
    results, _ = run_demo("--no-tour", "--no-progress", "--epochs", "2", "--samples", "150")
    h = results["history"]
    assert len(h.train_loss) == len(h.test_loss) == len(h.test_accuracy) == 2
    assert all(0 < v < 5 for v in h.test_loss)


def test_accuracy_axis_shows_the_last_epochs():
    from ferrograd import _demo_train as cls

    train = [0.3, 0.6, 0.9, 0.95, 0.96, 0.97]
    test = [0.35, 0.7, 0.92, 0.97, 0.99, 0.99]
    floor = cls.accuracy_floor(train, test)
    assert 0.9 < floor < 0.95  # below the last half's lowest (0.95), above the early epochs
    assert cls.accuracy_floor([0.1, 0.2]) == 0.0  # a run that ends low shows it all


def test_decision_regions_are_the_model_predictions():
    import ferrograd as fg
    import numpy as np
    from ferrograd import _demo_train as cls

    fg.seed(0)
    model = cls.SpiralNet(hidden=8)
    grid = cls.predict_grid(model, -1.0, 1.0, 5)
    assert grid.shape == (5, 5) and set(np.unique(grid)) <= {0, 1, 2}
    model.eval()
    with fg.no_grad():
        # row 0 is y = -1; column 4 is x = +1
        expect = int(model(fg.tensor([[1.0, -1.0]])).argmax(1).item())
    assert grid[0, 4] == expect


@pytest.mark.parametrize("flag", ["--epochs", "--hidden", "--samples"])
def test_sizes_must_be_positive(flag, capsys):
    with pytest.raises(SystemExit):
        demo.main([flag, "0"])
    assert "must be a positive integer" in capsys.readouterr().err
