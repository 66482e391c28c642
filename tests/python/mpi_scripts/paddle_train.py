"""Run under ``mpiexec -n 2``: a Paddle-dialect training loop with DataParallel and
DistributedBatchSampler over a NumPy dataset; the losses match one process training on
the whole batch, and the ranks end with identical parameters."""

import ferrograd as paddle
import ferrograd.distributed as dist
import numpy as np

dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()

rng = np.random.default_rng(3)
X = rng.standard_normal((64, 5))
W = rng.standard_normal((5, 1))
Y = X @ W + 0.01 * rng.standard_normal((64, 1))
dataset = list(zip(X, Y))

sampler = dist.DistributedBatchSampler(dataset, batch_size=8, shuffle=True)
assert len(sampler) == 4
mine = sorted(i for b in sampler for i in b)
everyone = []
dist.all_gather(everyone, paddle.to_tensor(np.array(mine, dtype=np.int64)))
assert sorted(np.concatenate([t.numpy() for t in everyone]).tolist()) == list(range(64))

paddle.seed(rank)  # different initial weights: DataParallel takes rank 0's
layer = paddle.nn.Sequential(paddle.nn.Linear(5, 16), paddle.nn.Tanh(), paddle.nn.Linear(16, 1))
layer = layer.astype("float64")
model = paddle.DataParallel(layer)
opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
losses = []
for epoch in range(3):
    sampler.set_epoch(epoch)
    for batch in sampler:
        xb = paddle.to_tensor(X[batch])
        yb = paddle.to_tensor(Y[batch])
        loss = paddle.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
assert losses[-1] < losses[0], losses
flat = np.concatenate([p.numpy().ravel() for p in model.parameters()])
gathered = []
dist.all_gather(gathered, paddle.to_tensor(flat))
assert np.array_equal(gathered[0].numpy(), gathered[1].numpy())
assert set(model.state_dict()) == set(layer.state_dict())  # Paddle: no "module." prefix
print(f"rank {rank}: paddle DataParallel OK, loss {losses[0]:.4f} -> {losses[-1]:.4f}")
