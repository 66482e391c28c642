"""A stand-in for ``op_test``, the helper module of Paddle's test folder, with only its
device helpers: ``get_places`` (the places a test should run on), ``get_device`` (the
device a test adds besides the CPU) and ``is_custom_device``, here the CPU alone
(ferrograd has no GPU build and no plug-in devices). Its ``OpTest`` class (static-graph operator checks through Paddle's C++
core) is not provided, so tests built on it fail naming it. The runner installs this
module only when the test folder has no ``op_test.py`` of its own.
"""

from __future__ import annotations

from peer_harness.paddle_base import CPUPlace


def get_places(string_format: bool = False) -> list:
    """The places to test: ``[CPUPlace()]`` (``["cpu"]`` with ``string_format``)."""
    return ["cpu"] if string_format else [CPUPlace()]


def get_device() -> str:
    """The accelerator a test would add to its places: only ``"cpu"`` exists here."""
    return "cpu"


def is_custom_device() -> bool:
    """Whether a plug-in (custom) device is present: never, here."""
    return False
