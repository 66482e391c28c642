"""A stand-in for ``test_imperative_base``, a helper module of Paddle's test folder.

Its one public helper, ``new_program_scope``, builds inside a fresh static ``Program``
and ``Scope``; here that is ``paddle.static.program_guard`` / ``scope_guard`` with new
ones. The runner installs it only when the test folder has no ``test_imperative_base.py``
of its own.
"""

from __future__ import annotations

import contextlib

import ferrograd


@contextlib.contextmanager
def new_program_scope(main=None, startup=None, scope=None):
    """Runs the block with ``main``/``startup`` (new programs by default) as the current
    programs and ``scope`` (a new one by default) as the current scope."""
    static = ferrograd.static
    with static.scope_guard(scope if scope is not None else static.Scope()):
        with static.program_guard(
            main if main is not None else static.Program(),
            startup if startup is not None else static.Program(),
        ):
            yield
