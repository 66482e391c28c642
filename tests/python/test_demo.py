"""The demo (``python -m ferrograd.demo``) runs, prints each section, and fits its line."""

from __future__ import annotations

import contextlib
import io

from ferrograd import demo


def run_demo(*argv: str) -> tuple[dict, str]:
    """Runs ``demo.main(argv)`` in-process; returns its results and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        results = demo.main(list(argv))
    return results, out.getvalue()


def test_demo_runs_and_recovers_the_line():
    results, text = run_demo("--seed", "0")
    for header in ("1. Tensors", "2. NumPy interop", "3. Autograd", "4. Least squares"):
        assert header in text
    assert "recovered:" in text
    assert abs(results["slope"] - 3.0) < 0.1
    assert abs(results["intercept"] - 2.0) < 0.1
    assert results["seed"] == 0


def test_demo_autograd_section_values():
    results, _ = run_demo("--seed", "0")
    # y = s^3 at s = 2
    assert results["dy_ds"] == 12.0
    assert results["d2y_ds2"] == 12.0


def test_demo_other_seed_and_steps():
    results, text = run_demo("--seed", "3", "--steps", "300")
    assert "seed 3" in text
    assert results["steps"] == 300
    assert abs(results["slope"] - 3.0) < 0.1
    assert abs(results["intercept"] - 2.0) < 0.1
