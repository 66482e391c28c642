"""``paddle.tensor``: Paddle's tensor-function package path, for
``from paddle.tensor import random``. It is registered as the module
``ferrograd.tensor`` without becoming the attribute ``ferrograd.tensor``, which stays the
``tensor(...)`` creation function."""

from __future__ import annotations

from . import random as random

__all__ = ["random"]
