"""The CNN demo (``python -m ferrograd.demo --cnn``) runs end to end on a subset of
scikit-learn's digits, learns, and writes its plot. Skipped without scikit-learn (CI
installs only ``.[test,docs,distributed]``)."""

from __future__ import annotations

import contextlib
import io

import pytest
from ferrograd import demo

pytest.importorskip("sklearn", reason="the CNN demo needs scikit-learn (pip install '.[demo]')")


def run_demo(*argv: str) -> tuple[dict, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        results = demo.main(list(argv))
    return results, out.getvalue()


def test_cnn_demo_learns_on_a_subset(tmp_path):
    png = tmp_path / "cnn.png"
    args = ["--cnn", "--cnn-samples", "600", "--cnn-epochs", "4", "--no-progress", "--seed", "0"]
    try:
        import matplotlib  # noqa: F401

        plotting = True
    except ImportError:
        plotting = False
    results, text = run_demo(*args, *(["--plot", str(png)] if plotting else []))
    assert "test accuracy" in text and "Conv2d(1, 16" in text
    hist = results["history"]
    assert len(hist["loss"]) == 4
    assert hist["loss"][-1] < hist["loss"][0]
    # 480 training digits, 4 epochs: far above chance (0.1)
    assert results["test_accuracy"] > 0.6
    if plotting:
        assert results["plotted"] and png.stat().st_size > 1000
