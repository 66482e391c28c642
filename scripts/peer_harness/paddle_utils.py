"""A stand-in for ``utils``, a helper module of Paddle's test folder
(``test/legacy_test/utils.py``), with only its mode guards and place list:
``dygraph_guard`` (the block in eager mode), ``static_guard`` (the block in static
mode), each restoring the mode it found, and ``get_places`` (the CPU alone: ferrograd
has no GPU build). Its program-comparison and PIR helpers reach into Paddle's engine and
are not provided. The runner installs this module only when the test folder has no
``utils.py`` of its own.
"""

from __future__ import annotations

import contextlib

import ferrograd


@contextlib.contextmanager
def dygraph_guard():
    """Runs the block in eager (dygraph) mode, then restores static mode if it was on."""
    was_dynamic = ferrograd.in_dynamic_mode()
    try:
        if not was_dynamic:
            ferrograd.disable_static()
        yield
    finally:
        if not was_dynamic:
            ferrograd.enable_static()


@contextlib.contextmanager
def static_guard():
    """Runs the block in static mode, then restores eager mode if it was on."""
    was_dynamic = ferrograd.in_dynamic_mode()
    try:
        if was_dynamic:
            ferrograd.enable_static()
        yield
    finally:
        if was_dynamic:
            ferrograd.disable_static()


def get_places(func=lambda: True, isStr: bool = False) -> list:  # noqa: N803 - upstream's name
    """The places to test: the CPU alone (``["cpu"]`` with ``isStr``); upstream adds the
    GPU when Paddle is compiled with CUDA and ``func()`` allows it."""
    return ["cpu"] if isStr else [ferrograd.CPUPlace()]
