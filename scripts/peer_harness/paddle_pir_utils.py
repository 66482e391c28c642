"""A stand-in for ``paddle.pir_utils``, Paddle's switch between its two static-graph
representations (the legacy ``ProgramDesc`` and PIR), which tests use to run one body
under both. ferrograd's static graph has one representation, so ``test_with_pir_api``
runs the test once (inside a fresh ``Program`` pair, as upstream's decorator does for
each run) and the guards are no-op contexts.
"""

from __future__ import annotations

import contextlib
import functools

import ferrograd


def test_with_pir_api(func):
    """Runs the decorated test once, with fresh main and startup programs."""

    @functools.wraps(func)
    def impl(*args, **kwargs):
        static = ferrograd.static
        with static.program_guard(static.Program(), static.Program()):
            return func(*args, **kwargs)

    return impl


def test_with_old_ir_only(func):
    """Runs the decorated test once (there is only one static representation here)."""
    return func


@contextlib.contextmanager
def IrGuard():  # noqa: N802 - upstream's name
    """No-op: ferrograd's static graph has a single representation."""
    yield


@contextlib.contextmanager
def OldIrGuard():  # noqa: N802 - upstream's name
    """No-op: ferrograd's static graph has a single representation."""
    yield
