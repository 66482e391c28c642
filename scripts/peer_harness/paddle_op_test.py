"""A stand-in for ``op_test``, the helper module of Paddle's test folder, with only its
``get_places``: the places a test should run on, here the CPU alone (ferrograd has no
GPU build). Its ``OpTest`` class (static-graph operator checks through Paddle's C++
core) is not provided, so tests built on it fail naming it. The runner installs this
module only when the test folder has no ``op_test.py`` of its own.
"""

from __future__ import annotations

from peer_harness.paddle_base import CPUPlace


def get_places(string_format: bool = False) -> list:
    """The places to test: ``[CPUPlace()]`` (``["cpu"]`` with ``string_format``)."""
    return ["cpu"] if string_format else [CPUPlace()]
