"""``ferrograd.distributed.fleet.utils``: Paddle's activation recomputation
(``recompute``, ``recompute_sequential``), implemented in ``ferrograd.utils.checkpoint``."""

from ....utils.checkpoint import recompute as recompute
from ....utils.checkpoint import recompute_sequential as recompute_sequential

__all__ = ["recompute", "recompute_sequential"]
