"""``ferrograd.distributed``: data-parallel training over MPI (mpi4py), in both dialects.

torch: ``import ferrograd as torch; torch.distributed.init_process_group("mpi")``, the
collectives, ``torch.nn.parallel.DistributedDataParallel``; Paddle:
``paddle.distributed.init_parallel_env()``, ``paddle.DataParallel``. Start the ranks with
``mpiexec -n 2 python train.py`` or ``python -m ferrograd.distributed.launch
--nproc_per_node 2 train.py``. Importing this package does not need mpi4py; using it does
(``pip install 'ferrograd[distributed]'``). See docs/distributed.md.
"""

from __future__ import annotations

from . import fleet as fleet  # Paddle: distributed.fleet.utils.recompute
from . import optim as optim
from .collectives import ReduceOp as ReduceOp
from .collectives import Work as Work
from .collectives import all_gather as all_gather
from .collectives import all_gather_into_tensor as all_gather_into_tensor
from .collectives import all_reduce as all_reduce
from .collectives import barrier as barrier
from .collectives import broadcast as broadcast
from .collectives import gather as gather
from .collectives import reduce_scatter as reduce_scatter
from .collectives import scatter as scatter
from .ddp import DataParallel as DataParallel
from .ddp import DistributedDataParallel as DistributedDataParallel
from .errors import CollectiveMismatchError as CollectiveMismatchError
from .errors import DistributedError as DistributedError
from .errors import DistributedTimeoutError as DistributedTimeoutError
from .errors import RankFailedError as RankFailedError
from .group import ProcessGroup as ProcessGroup
from .group import destroy_process_group as destroy_process_group
from .group import get_rank as get_rank
from .group import get_world_size as get_world_size
from .group import init_parallel_env as init_parallel_env
from .group import init_process_group as init_process_group
from .group import is_available as is_available
from .group import is_initialized as is_initialized
from .group import new_group as new_group
from .p2p import irecv as irecv
from .p2p import isend as isend
from .p2p import recv as recv
from .p2p import send as send
from .sampler import DistributedBatchSampler as DistributedBatchSampler
from .sampler import DistributedSampler as DistributedSampler
from .zero import ZeroRedundancyOptimizer as ZeroRedundancyOptimizer

__all__ = [
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "barrier",
    "broadcast",
    "gather",
    "reduce_scatter",
    "scatter",
    "send",
    "recv",
    "isend",
    "irecv",
    "DataParallel",
    "DistributedDataParallel",
    "CollectiveMismatchError",
    "DistributedError",
    "DistributedTimeoutError",
    "RankFailedError",
    "ProcessGroup",
    "destroy_process_group",
    "get_rank",
    "get_world_size",
    "init_parallel_env",
    "init_process_group",
    "is_available",
    "is_initialized",
    "new_group",
    "DistributedSampler",
    "DistributedBatchSampler",
    "ZeroRedundancyOptimizer",
]
