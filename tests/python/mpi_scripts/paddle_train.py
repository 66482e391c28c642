"""Run under ``mpiexec -n 2``: a Paddle-dialect training loop with DataParallel (its
layer holds a PyLayer) and DistributedBatchSampler feeding paddle.io.DataLoader; the
loss goes down, and the ranks end with identical parameters."""

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


class Data(paddle.io.Dataset):
    def __getitem__(self, i):
        return X[i], Y[i]

    def __len__(self):
        return len(X)


class Swish(paddle.autograd.PyLayer):
    """x * sigmoid(x) with a hand-written backward (a PyLayer inside DataParallel)."""

    @staticmethod
    def forward(ctx, x):
        s = paddle.nn.functional.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, g):
        x, s = ctx.saved_tensor()
        return g * (s + x * s * (1 - s))


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(5, 16)
        self.fc2 = paddle.nn.Linear(16, 1)

    def forward(self, x):
        return self.fc2(Swish.apply(self.fc1(x)))


sampler = dist.DistributedBatchSampler(dataset, batch_size=8, shuffle=True)
assert len(sampler) == 4
mine = sorted(i for b in sampler for i in b)
everyone = []
dist.all_gather(everyone, paddle.to_tensor(np.array(mine, dtype=np.int64)))
assert sorted(np.concatenate([t.numpy() for t in everyone]).tolist()) == list(range(64))

paddle.seed(rank)  # different initial weights: DataParallel takes rank 0's
layer = Net().astype("float64")
model = paddle.DataParallel(layer)
# last_comm_buffer_size: the bucket reduced first (the last layer's), here 1 byte
assert paddle.DataParallel(Net(), last_comm_buffer_size=1e-6).bucket_sizes() == [1, 3]
# gradients through the PyLayer: two half-batches == one process's full batch (1e-12)
ref = Net().astype("float64")
ref.set_state_dict(layer.state_dict())
paddle.nn.functional.mse_loss(ref(paddle.to_tensor(X[:16])), paddle.to_tensor(Y[:16])).backward()
part = slice(8 * rank, 8 * rank + 8)
paddle.nn.functional.mse_loss(
    model(paddle.to_tensor(X[part])), paddle.to_tensor(Y[part])
).backward()
for p, q in zip(layer.parameters(), ref.parameters()):
    assert np.max(np.abs(p.grad.numpy() - q.grad.numpy())) <= 1e-12
layer.clear_gradients()
# no_sync(): local accumulation (ranks differ), then one synchronised pass reduces the sum
with model.no_sync():
    model(paddle.to_tensor(X[part])).sum().backward()
local_w = paddle.to_tensor(layer.fc2.weight.grad.numpy().copy())
model(paddle.to_tensor(X[part])).sum().backward()
both = []
dist.all_gather(both, local_w)
assert not np.allclose(both[0].numpy(), both[1].numpy())
ref.clear_gradients()
ref(paddle.to_tensor(X[:16])).sum().backward()  # (2 * half0 + 2 * half1) / 2 ranks
assert np.max(np.abs(layer.fc2.weight.grad.numpy() - ref.fc2.weight.grad.numpy())) <= 1e-12
layer.clear_gradients()
opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
losses = []
loader = paddle.io.DataLoader(Data(), batch_sampler=sampler)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        assert xb.shape == [8, 5] and str(xb.dtype).endswith("float64")
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
