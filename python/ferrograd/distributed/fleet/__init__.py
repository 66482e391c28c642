"""``ferrograd.distributed.fleet``: Paddle's fleet names that work on one process
(``fleet.utils.recompute``)."""

from . import utils as utils
