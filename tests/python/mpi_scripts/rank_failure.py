"""Run under ``mpiexec -n 2``: rank 1 raises; rank 0, waiting in a collective, must fail
with an error naming rank 1 (not hang). With argv[1] == "timeout", rank 1 instead stops
calling collectives (sleeps), and rank 0 must time out; with "die", rank 1 is killed
(SIGKILL) and rank 0 must not hang (it times out, or mpiexec ends the job); with
"ddp", rank 1 raises between forward and backward of a DDP model, and rank 0's
``loss.backward()`` must raise the error naming rank 1; with "linger", rank 1 reports a
failure but stays alive, and rank 0, having caught it, must still end the job when it
exits (through MPI_Abort; MPI_Finalize would wait on rank 1 forever)."""

import os
import signal
import sys
import time

import ferrograd as torch
import ferrograd.distributed as dist
from ferrograd.distributed import group

mode = sys.argv[1] if len(sys.argv) > 1 else "raise"
dist.init_process_group("mpi", timeout=3.0)
rank = dist.get_rank()
t = torch.ones([4])
dist.all_reduce(t)  # one good collective first
if mode in ("ddp", "linger"):
    net = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 1)), bucket_cap_mb=1e-6
    )
    loss = net(torch.ones([2, 4])).sum()
    if rank == 1 and mode == "linger":
        group._notify_failure("ZeroDivisionError: rank 1 divided by zero on purpose")
        time.sleep(60)  # rank 0's exit must end the job long before this
        sys.exit(0)
    if rank == 1:
        raise ZeroDivisionError("rank 1 divided by zero on purpose")
    try:
        loss.backward()  # buckets in flight, the progress thread polling them
    except dist.RankFailedError as e:
        print(f"rank 0 caught: {e}", flush=True)
        sys.exit(17)
    print("rank 0: no error?!", flush=True)
    sys.exit(1)
if rank == 1:
    if mode == "raise":
        raise ZeroDivisionError("rank 1 divided by zero on purpose")
    if mode == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(4.5)
    sys.exit(0)
try:
    dist.all_reduce(t)
except dist.RankFailedError as e:
    print(f"rank 0 caught: {e}", flush=True)
    assert "rank 1 failed" in str(e) and "ZeroDivisionError" in str(e)
    sys.exit(17)
except dist.DistributedTimeoutError as e:
    print(f"rank 0 caught: {e}", flush=True)
    assert "timeout of 3 s" in str(e)
    sys.exit(18)
print("rank 0: no error?!", flush=True)
sys.exit(1)
