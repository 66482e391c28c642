"""Run under ``mpiexec -n 2``: every collective vs NumPy, every dtype, in place."""

import datetime
import threading
import time

import ferrograd as torch
import ferrograd.distributed as dist
import numpy as np

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank, n = dist.get_rank(), dist.get_world_size()
assert n == 2 and dist.is_initialized()


def close(t, expect, tol=0.0):
    got = t.astype(torch.float64).numpy() if "float16" in str(t.dtype) else t.numpy()
    assert np.allclose(got, expect, rtol=tol, atol=tol), (rank, got, expect)


def data(r, dtype):
    return (np.arange(6).reshape(2, 3) + 10 * r + 1).astype(dtype)


ops = {
    dist.ReduceOp.SUM: lambda a, b: a + b,
    dist.ReduceOp.MAX: np.maximum,
    dist.ReduceOp.MIN: np.minimum,
    dist.ReduceOp.PRODUCT: lambda a, b: a * b,
    dist.ReduceOp.AVG: lambda a, b: (a + b) / 2,
}
for dt in ["float64", "float32", "int32", "int64", "float16", "bfloat16"]:
    for op, f in ops.items():
        if op == dist.ReduceOp.AVG and dt.startswith("int"):
            continue
        t = torch.tensor(data(rank, np.float64)).astype(dt)
        before = t.data_ptr() if hasattr(t, "data_ptr") else None
        dist.all_reduce(t, op=op)
        expect = f(data(0, np.float64), data(1, np.float64))
        close(t, expect, 0.0 if dt != "bfloat16" else 0.01)
        if before is not None:
            assert t.data_ptr() == before  # in place
# half SUM is rounded once from float32, not accumulated in half precision
h = torch.tensor(np.array([1.0 + rank * 2.0**-11], np.float64)).astype("float16")
dist.all_reduce(h)
assert h.astype(torch.float64).item() == np.float16(2.0 + 2.0**-11).astype(np.float64)

# bool and complex
b = torch.tensor(np.array([rank == 0, False, True]))
dist.all_reduce(b)
assert b.numpy().tolist() == [True, False, True]
c = torch.tensor(np.array([1 + 2j, rank * 1j]))
dist.all_reduce(c)
assert np.allclose(c.numpy(), [2 + 4j, 1j])

# async_op: a Work handle; Paddle's sync_op=False too
t = torch.full([4], float(rank + 1), dtype=torch.float64)
w = dist.all_reduce(t, async_op=True)
assert w.wait() and w.is_completed()
close(t, np.full(4, 3.0))
w = dist.all_reduce(t, sync_op=False)
w.wait()
close(t, np.full(4, 6.0))

# broadcast (every dtype's raw bits move exactly)
for dt in ["float64", "bfloat16", "float16", "int64", "bool", "complex64"]:
    t = torch.tensor(data(rank, np.float64)).astype(dt)
    src = torch.tensor(data(1, np.float64)).astype(dt)
    dist.broadcast(t, src=1)
    assert np.array_equal(np.asarray(t.astype("float64").numpy()), src.astype("float64").numpy())

# all_gather: given list, and Paddle's empty list
t = torch.tensor(data(rank, np.float32))
out = [torch.zeros([2, 3]) for _ in range(n)]
dist.all_gather(out, t)
for r in range(n):
    close(out[r], data(r, np.float32))
lst = []
dist.all_gather(lst, t.astype("bfloat16"))
assert len(lst) == 2 and lst[1].dtype == torch.bfloat16
close(lst[1], data(1, np.float32))

# all_gather_into_tensor, reduce_scatter, gather, scatter
big = torch.zeros([4, 3])
dist.all_gather_into_tensor(big, t)
close(big, np.concatenate([data(0, np.float32), data(1, np.float32)]))
outs = torch.zeros([2, 3], dtype=torch.float64)
dist.reduce_scatter(outs, [torch.tensor(data(rank, np.float64) * (i + 1)) for i in range(n)])
close(outs, (data(0, np.float64) + data(1, np.float64)) * (rank + 1))
gl = [torch.zeros([2, 3]) for _ in range(n)] if rank == 0 else None
dist.gather(t, gl, dst=0)
if rank == 0:
    close(gl[1], data(1, np.float32))
s = torch.zeros([2, 3])
dist.scatter(s, [torch.tensor(data(i, np.float32)) for i in range(n)] if rank == 1 else None, src=1)
close(s, data(rank, np.float32))

# send / recv
if rank == 0:
    dist.send(torch.tensor(data(7, np.float64)), dst=1)
else:
    r = torch.zeros([2, 3], dtype=torch.float64)
    assert dist.recv(r, src=0) == 0
    close(r, data(7, np.float64))

# async_op=True on every collective, and isend / irecv: Work handles with wait()
t = torch.tensor(data(rank, np.float64))
w = dist.broadcast(t, src=0, async_op=True)
assert w.wait(timeout=datetime.timedelta(seconds=10)) and w.is_completed()
close(t, data(0, np.float64))
lst = [torch.zeros([2, 3], dtype=torch.float64) for _ in range(n)]
dist.all_gather(lst, torch.tensor(data(rank, np.float64)), async_op=True).wait()
close(lst[1], data(1, np.float64))
big = torch.zeros([4, 3], dtype=torch.int64)
dist.all_gather_into_tensor(big, torch.tensor(data(rank, np.int64)), async_op=True).wait()
close(big, np.concatenate([data(0, np.int64), data(1, np.int64)]))
outs = torch.zeros([2, 3])
parts = [torch.tensor(data(rank, np.float32)) for _ in range(n)]
dist.reduce_scatter(outs, parts, op=dist.ReduceOp.MAX, async_op=True).wait()
close(outs, data(1, np.float32))
gl = [torch.zeros([2, 3]) for _ in range(n)] if rank == 1 else None
dist.gather(torch.tensor(data(rank, np.float32)), gl, dst=1, async_op=True).wait()
if rank == 1:
    close(gl[0], data(0, np.float32))
s = torch.zeros([2, 3])
src_list = [torch.tensor(data(i, np.float32)) for i in range(n)] if rank == 0 else None
dist.scatter(s, src_list, src=0, async_op=True).wait()
close(s, data(rank, np.float32))
assert dist.barrier(async_op=True).wait()
if rank == 0:
    w = dist.isend(torch.tensor(data(3, np.float32)).astype("bfloat16"), dst=1)
    w.wait()
else:
    r = torch.zeros([2, 3], dtype=torch.bfloat16)
    w = dist.irecv(r)  # from any rank
    assert w.result() == 0
    close(r, data(3, np.float32))

# more dtypes: small integer types reduce and move exactly
for dt in ["uint8", "int8", "int16"]:
    t = torch.tensor(data(rank, np.int64)).astype(dt)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    close(t, data(1, np.int64))
    try:
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        raise AssertionError("expected TypeError")
    except TypeError as e:
        assert "AVG" in str(e)

# new_group (with its own timeout) and barrier
g1 = dist.new_group([1], timeout=datetime.timedelta(seconds=5))
if rank == 1:
    t = torch.ones([2])
    dist.all_reduce(t, group=g1)  # a group of one rank
    close(t, np.ones(2))
    assert dist.get_world_size(g1) == 1 and dist.get_rank(g1) == 0
else:
    try:
        dist.all_reduce(torch.ones([2]), group=g1)
        raise AssertionError("expected ValueError")
    except ValueError as e:
        assert "rank 0" in str(e) and "[1]" in str(e), str(e)
try:
    dist.recv(torch.zeros([2]), src=5)
    raise AssertionError("expected ValueError")
except ValueError as e:
    assert "src 5" in str(e), str(e)
g = dist.new_group([0, 1])
t = torch.ones([2])
dist.all_reduce(t, group=g)
close(t, np.full(2, 2.0))
dist.barrier()

# errors: non-contiguous, AVG on ints
try:
    dist.all_reduce(torch.zeros([2, 3]).T)
    raise AssertionError("expected ValueError")
except ValueError as e:
    assert "contiguous" in str(e)
try:
    dist.all_reduce(torch.ones([2], dtype=torch.int64), op=dist.ReduceOp.AVG)
    raise AssertionError("expected TypeError")
except TypeError as e:
    assert "AVG" in str(e)

# mismatches are named, not hung: shape, dtype, a different collective
for mine in ["shape", "dtype", "collective"]:
    try:
        if mine == "shape":
            dist.all_reduce(torch.zeros([2 + rank]))
        elif mine == "dtype":
            dist.all_reduce(torch.zeros([2], dtype=torch.float32 if rank else torch.float64))
        elif rank == 0:
            dist.all_reduce(torch.zeros([2]))
        else:
            dist.broadcast(torch.zeros([2]), src=0)
        raise AssertionError("expected a mismatch error")
    except dist.CollectiveMismatchError as e:
        text = str(e)
        assert f"rank {rank}:" in text and f"rank {1 - rank} called" in text, text
        if mine == "shape":
            assert "[2]" in text and "[3]" in text, text
        if mine == "dtype":
            assert "float32" in text and "float64" in text, text
        if mine == "collective":
            assert "broadcast" in text and "all_reduce" in text, text

# recv into a tensor of the wrong shape
if rank == 0:
    dist.send(torch.zeros([3]), dst=1)
else:
    try:
        dist.recv(torch.zeros([4]), src=0)
        raise AssertionError("expected a mismatch error")
    except dist.CollectiveMismatchError as e:
        assert "[3]" in str(e) and "[4]" in str(e) and "rank 0 sent" in str(e)
dist.barrier()

# the GIL is free while a collective waits: a Python thread keeps running meanwhile
ticks = []
stop = threading.Event()


def spin():
    while not stop.is_set():
        ticks.append(1)
        time.sleep(0.001)


if rank == 1:
    time.sleep(0.5)  # rank 0 waits in all_reduce for this long
thread = threading.Thread(target=spin)
thread.start()
before = len(ticks)
dist.all_reduce(torch.ones([2]))
during = len(ticks) - before
stop.set()
thread.join()
if rank == 0:
    assert during > 0, during
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"rank {rank}: collectives OK")
