"""A stand-in for ``paddle.pir_utils``, Paddle's switch between its two static-graph
representations (the legacy ``ProgramDesc`` and PIR), which tests use to run one body
under both. ferrograd's static graph has one representation, so ``test_with_pir_api``
runs the test once (inside a fresh ``Program`` pair, as upstream's decorator does for
each run), ``IrGuard`` gives its block fresh default programs and both guards turn
static mode on for their block.
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
def _static_block():
    """Static mode for the block (upstream's guards turn it on when called in eager
    mode, and restore eager mode after)."""
    eager = ferrograd.in_dynamic_mode()
    if eager:
        ferrograd.enable_static()
    try:
        yield
    finally:
        if eager:
            ferrograd.disable_static()


@contextlib.contextmanager
def IrGuard():  # noqa: N802 - upstream's name
    """The block in static mode with fresh default programs: upstream switches to the
    PIR form, whose default main program is another object than the legacy one (since
    session 42's second round; here fresh at each entry)."""
    static = ferrograd.static
    with _static_block(), static.program_guard(static.Program(), static.Program()):
        yield


@contextlib.contextmanager
def OldIrGuard():  # noqa: N802 - upstream's name
    """The block in static mode; the legacy form is the only one here."""
    with _static_block():
        yield
