"""Run under ``mpiexec -n 2``: DistributedDataParallel (torch dialect) against one
process's full-batch gradients, in float64."""

import datetime

import ferrograd as torch
import ferrograd.distributed as dist
import numpy as np
from ferrograd import nn

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=30))
rank, world = dist.get_rank(), dist.get_world_size()


class Cube(torch.autograd.Function):
    """x**3 as a custom Function (checks autograd.Function inside DDP)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


class Net(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 4)
        self.fc3 = nn.Linear(4, 1)
        self.extra = nn.Linear(4, 1) if unused else None

    def forward(self, x, use_extra=False):
        h = Cube.apply(torch.tanh(self.fc1(x)))
        h = torch.tanh(self.fc2(h))
        out = self.fc3(h)
        if use_extra:
            out = out + self.extra(h)
        return out


def build(seed, **kw):
    torch.manual_seed(seed)
    return Net(**kw).double()


def flat_params(m):
    return np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])


def grads(m):
    return [None if p.grad is None else p.grad.numpy().copy() for p in m.parameters()]


rng = np.random.default_rng(0)
X = rng.standard_normal((8, 3))
Y = rng.standard_normal((8, 1))
half = slice(rank * 4, rank * 4 + 4)


def loss_fn(m, x, y, **kw):
    return ((m(torch.tensor(x), **kw) - torch.tensor(y)) ** 2).mean()


# 1. wrap: rank 0's parameters everywhere; tiny buckets so there are several
model = build(seed=100 + rank)
ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1e-6)
assert len(ddp.bucket_sizes()) == 6, ddp.bucket_sizes()
everyone = [torch.zeros([flat_params(model).size], dtype=torch.float64) for _ in range(world)]
dist.all_gather(everyone, torch.tensor(flat_params(model)))
assert np.array_equal(everyone[0].numpy(), everyone[1].numpy())

# 2. two half-batches under DDP == the full batch in one process (1e-12), with
#    saved-tensor hooks active during forward
ref = build(seed=0)
ref.load_state_dict(model.state_dict())
loss_fn(ref, X, Y).backward()
packed = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
    loss = loss_fn(ddp, X[half], Y[half])
assert packed
loss.backward()
for g, r in zip(grads(model), grads(ref)):
    assert np.max(np.abs(g - r)) <= 1e-12, (rank, np.max(np.abs(g - r)))

# 3. no_sync: accumulate locally, then one synchronised backward reduces the sum
model.zero_grad()
ref.zero_grad()
with ddp.no_sync():
    loss_fn(ddp, X[half][:2], Y[half][:2]).backward()
local = grads(model)
loss_fn(ddp, X[half][2:], Y[half][2:]).backward()
for xs in (slice(0, 2), slice(2, 4), slice(4, 6), slice(6, 8)):
    (loss_fn(ref, X[xs], Y[xs]) / 2).backward()  # average over the 2 ranks
for g, r in zip(grads(model), grads(ref)):
    assert np.max(np.abs(g - r)) <= 1e-12, (rank, np.max(np.abs(g - r)))
# the no_sync pass really was local: ranks differed before the synchronised pass
other = [torch.zeros(list(local[0].shape), dtype=torch.float64) for _ in range(world)]
dist.all_gather(other, torch.tensor(local[0]))
assert not np.allclose(other[0].numpy(), other[1].numpy())

# 4. training: parameters stay identical across ranks after N steps (SGD with momentum)
opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
for _step in range(5):
    opt.zero_grad()
    xb = rng.standard_normal((4, 3)) + rank  # different data per rank
    loss_fn(ddp, xb, np.ones((4, 1))).backward()
    opt.step()
dist.all_gather(everyone, torch.tensor(flat_params(model)))
assert np.array_equal(everyone[0].numpy(), everyone[1].numpy())

# 5. find_unused_parameters: `extra` used by rank 0 only -> its gradient is rank 0's / 2
m2 = build(seed=7, unused=True)
d2 = nn.parallel.DistributedDataParallel(m2, find_unused_parameters=True, bucket_cap_mb=1e-4)
r2 = build(seed=7, unused=True)
r2.load_state_dict(m2.state_dict())
loss_fn(d2, X[half], Y[half], use_extra=rank == 0).backward()
(loss_fn(r2, X[0:4], Y[0:4], use_extra=True) / 2).backward()
(loss_fn(r2, X[4:8], Y[4:8]) / 2).backward()
for g, r in zip(grads(m2), grads(r2)):
    assert np.max(np.abs(g - r)) <= 1e-12, (rank, np.max(np.abs(g - r)))
# a parameter no rank uses keeps .grad unchanged (None)
m2.zero_grad()
loss_fn(d2, X[half], Y[half]).backward()
assert m2.extra.weight.grad is None

# 6. without find_unused_parameters an unused parameter is an error naming it
m3 = build(seed=7, unused=True)
d3 = nn.parallel.DistributedDataParallel(m3)
try:
    loss_fn(d3, X[half], Y[half]).backward()
    raise AssertionError("expected an error")
except dist.DistributedError as e:
    assert "extra.weight" in str(e) and "find_unused_parameters=True" in str(e), str(e)

# 7. ranks wrapping different models: an error naming the other rank, not a hang
try:
    nn.parallel.DistributedDataParallel(nn.Linear(3, 4 + rank).double())
    raise AssertionError("expected a mismatch error")
except dist.CollectiveMismatchError as e:
    assert f"rank {rank}:" in str(e) and f"rank {1 - rank} wraps" in str(e), str(e)

# 8. default buckets: a small first bucket (1 MB, as PyTorch), then up to 25 MB
big = nn.Sequential(nn.Linear(600, 600), nn.Linear(600, 600), nn.Linear(600, 10))
assert nn.parallel.DistributedDataParallel(big).bucket_sizes() == [4, 2]


# 9. the progress thread completes a bucket's all-reduce while backward computes, with
#    no gradient hook running in between (MPI progresses only inside MPI calls)
class Slow(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        import time

        time.sleep(0.3)  # the engine computes: only the progress thread calls MPI
        seen.append(slow_ddp._buckets[0].request == MPI.REQUEST_NULL)
        return g


from mpi4py import MPI  # noqa: E402

seen: list = []
torch.manual_seed(1)
slow_model = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 1)).double()
slow_ddp = nn.parallel.DistributedDataParallel(slow_model, bucket_cap_mb=1e-6)


def slow_forward(x):
    return slow_model[1](Slow.apply(slow_model[0](x)))


slow_ddp.module.forward = slow_forward
slow_ddp(torch.tensor(X[half])).sum().backward()
assert seen == [True], seen

# 10. the torch data path: DataLoader + DistributedSampler; ranks stay identical
from ferrograd.utils.data import DataLoader, TensorDataset  # noqa: E402
from ferrograd.utils.data.distributed import DistributedSampler  # noqa: E402

dataset = TensorDataset(X, Y)
sampler = DistributedSampler(dataset, shuffle=True, seed=3)
loader = DataLoader(dataset, batch_size=2, sampler=sampler)
seen_idx = []
for epoch in range(2):
    sampler.set_epoch(epoch)
    seen_idx.append(list(sampler))
    for xb, yb in loader:
        opt.zero_grad()
        ((ddp(xb) - yb) ** 2).mean().backward()
        opt.step()
assert seen_idx[0] != seen_idx[1] and len(seen_idx[0]) == 4
dist.all_gather(everyone, torch.tensor(flat_params(model)))
assert np.array_equal(everyone[0].numpy(), everyone[1].numpy())

dist.destroy_process_group()
print(f"rank {rank}: ddp OK")
