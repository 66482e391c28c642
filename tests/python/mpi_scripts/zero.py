"""Run under ``mpiexec -n 2``: ZeroRedundancyOptimizer(Adam) with DDP trains exactly as
plain Adam with DDP (float64), with each rank holding about half of Adam's state."""

import ferrograd as torch
import ferrograd.distributed as dist
import numpy as np
from ferrograd import nn
from ferrograd.distributed.optim import ZeroRedundancyOptimizer

dist.init_process_group("mpi", timeout=30.0)
rank = dist.get_rank()


def build():
    torch.manual_seed(1)
    return nn.Sequential(
        nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
    ).double()


plain, sharded = build(), build()
d_plain = nn.parallel.DistributedDataParallel(plain)
d_sharded = nn.parallel.DistributedDataParallel(sharded)
o_plain = torch.optim.Adam(plain.parameters(), lr=0.01)
o_sharded = ZeroRedundancyOptimizer(sharded.parameters(), torch.optim.Adam, lr=0.01)
rng = np.random.default_rng(rank)
for _ in range(4):
    x = torch.tensor(rng.standard_normal((8, 6)))
    for net, opt in ((d_plain, o_plain), (d_sharded, o_sharded)):
        opt.zero_grad()
        (net(x) ** 2).mean().backward()
        opt.step()
for a, b in zip(plain.parameters(), sharded.parameters()):
    assert np.max(np.abs(a.detach().numpy() - b.detach().numpy())) <= 1e-12
mine = o_sharded.local_state_bytes()
full = sum(
    v.numel() * v.element_size()
    for st in o_plain.state.values()
    for v in st.values()
    if isinstance(v, torch.Tensor)
)
everyone = []
dist.all_gather(everyone, torch.tensor([mine], dtype=torch.int64))
assert sum(int(t.item()) for t in everyone) == full, (everyone, full)
assert mine < full
print(f"rank {rank}: zero OK, optimizer state {mine} of {full} bytes on this rank")
dist.destroy_process_group()
