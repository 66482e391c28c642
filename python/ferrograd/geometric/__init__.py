"""``paddle.geometric``: graph message passing, segment reductions, graph reindexing and
neighbor sampling, with Paddle 3.3.1's signatures, values and gradients (see
docs/geometric.md).

* ``segment_sum`` / ``segment_mean`` / ``segment_max`` / ``segment_min`` (math.py)
* ``send_u_recv`` / ``send_ue_recv`` / ``send_uv`` (message_passing.py)
* ``reindex_graph`` / ``reindex_heter_graph`` (reindex.py)
* ``sample_neighbors`` / ``weighted_sample_neighbors`` (sampling.py)
"""

from __future__ import annotations

from . import math as math
from . import message_passing as message_passing
from . import reindex as reindex
from . import sampling as sampling
from .math import segment_max as segment_max
from .math import segment_mean as segment_mean
from .math import segment_min as segment_min
from .math import segment_sum as segment_sum
from .message_passing import send_u_recv as send_u_recv
from .message_passing import send_ue_recv as send_ue_recv
from .message_passing import send_uv as send_uv
from .reindex import reindex_graph as reindex_graph
from .reindex import reindex_heter_graph as reindex_heter_graph
from .sampling import sample_neighbors as sample_neighbors
from .sampling import weighted_sample_neighbors as weighted_sample_neighbors

__all__ = [
    "send_u_recv",
    "send_ue_recv",
    "send_uv",
    "segment_sum",
    "segment_mean",
    "segment_max",
    "segment_min",
    "reindex_graph",
    "reindex_heter_graph",
    "sample_neighbors",
    "weighted_sample_neighbors",
]
