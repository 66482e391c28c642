"""ferrograd.distributed: samplers and helpers in this process; collectives, DDP, the
Paddle training loop and rank failures in 2-rank jobs started with mpiexec (skipped,
with the reason, when mpi4py or mpiexec is missing)."""

from __future__ import annotations

import os
import subprocess
import sys

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.distributed import DistributedBatchSampler, DistributedSampler
from ferrograd.distributed.launch import find_mpiexec

SCRIPTS = os.path.join(os.path.dirname(__file__), "mpi_scripts")


def _mpi_skip_reason() -> str | None:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install '.[distributed]')"
    if find_mpiexec() is None:
        return "no mpiexec found (pip install mpich)"
    return None


needs_mpi = pytest.mark.skipif(_mpi_skip_reason() is not None, reason=str(_mpi_skip_reason()))


def run_job(
    script: str, *args: str, launcher: bool = False, timeout: float = 120
) -> subprocess.CompletedProcess:
    """Runs ``script`` in 2 ranks; returns the finished process (output captured)."""
    path = os.path.join(SCRIPTS, script)
    if launcher:
        cmd = [sys.executable, "-m", "ferrograd.distributed.launch", "--nproc_per_node", "2"]
    else:
        cmd = [find_mpiexec(), "-n", "2", sys.executable]
    env = dict(os.environ, OMP_NUM_THREADS="1", RAYON_NUM_THREADS="1")
    return subprocess.run(
        [*cmd, path, *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def check_ok(p: subprocess.CompletedProcess, marker: str) -> None:
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert out.count(marker) == 2, out


@needs_mpi
def test_collectives_every_dtype_in_place_with_named_mismatches():
    check_ok(run_job("collectives.py"), "collectives OK")


@needs_mpi
def test_ddp_half_batches_equal_full_batch_no_sync_unused_and_training():
    check_ok(run_job("ddp_torch.py"), "ddp OK")


@needs_mpi
def test_paddle_dataparallel_training_loop_through_the_launcher():
    check_ok(run_job("paddle_train.py", launcher=True), "paddle DataParallel OK")


@needs_mpi
def test_demo_distributed_trains_with_identical_weights_on_both_ranks():
    cmd = [find_mpiexec(), "-n", "2", sys.executable, "-m", "ferrograd.demo", "--distributed"]
    args = ["--epochs", "2", "--samples", "300", "--no-progress"]
    p = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "data-parallel training on 2 ranks" in out, out
    assert "largest weight difference between ranks: 0.0" in out, out


@needs_mpi
def test_zero_redundancy_optimizer_matches_adam_with_half_the_state_per_rank():
    check_ok(run_job("zero.py"), "zero OK")


@needs_mpi
def test_a_rank_that_raises_makes_the_other_fail_naming_it():
    p = run_job("rank_failure.py", "raise")
    out = p.stdout + p.stderr
    assert p.returncode != 0
    assert "rank 0 caught: rank 0: rank 1 failed" in out, out
    assert "ZeroDivisionError: rank 1 divided by zero on purpose" in out, out


@needs_mpi
def test_a_rank_that_raises_fails_ddp_backward_on_the_other_naming_it():
    p = run_job("rank_failure.py", "ddp")
    out = p.stdout + p.stderr
    assert p.returncode != 0
    assert "rank 0 caught: rank 0: rank 1 failed" in out, out
    assert "ZeroDivisionError: rank 1 divided by zero on purpose" in out, out


@needs_mpi
def test_a_rank_that_caught_a_peer_failure_ends_the_job_when_it_exits():
    # rank 1 reports a failure and lingers; rank 0's MPI_Finalize would wait on it
    # forever (seen in CI), so a broken group exits through MPI_Abort
    p = run_job("rank_failure.py", "linger", timeout=40)
    out = p.stdout + p.stderr
    assert p.returncode != 0
    assert "rank 0 caught: rank 0: rank 1 failed" in out, out
    assert "mpi_abort" in out.lower(), out


@needs_mpi
def test_a_rank_that_stops_makes_the_other_time_out():
    p = run_job("rank_failure.py", "timeout")
    out = p.stdout + p.stderr
    assert "did not complete within the timeout of 3 s" in out, out


@needs_mpi
def test_a_killed_rank_does_not_hang_the_job():
    p = run_job("rank_failure.py", "die")  # mpiexec ends the job (or rank 0 times out)
    assert p.returncode != 0


# ---- in this process ------------------------------------------------------------------


def test_distributed_sampler_partitions_pads_and_shuffles_by_epoch():
    data = list(range(10))
    parts = [
        list(DistributedSampler(data, num_replicas=3, rank=r, shuffle=False)) for r in range(3)
    ]
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded from the start
    assert all(len(DistributedSampler(data, 3, r)) == 4 for r in range(3))
    dropped = [
        list(DistributedSampler(data, 3, r, shuffle=False, drop_last=True)) for r in range(3)
    ]
    assert sorted(sum(dropped, [])) == list(range(9))
    s = [DistributedSampler(data, 2, r, seed=5) for r in range(2)]
    e0 = [list(x) for x in s]
    assert sorted(e0[0] + e0[1]) == data
    for x in s:
        x.set_epoch(1)
    e1 = [list(x) for x in s]
    assert sorted(e1[0] + e1[1]) == data and e1 != e0
    with pytest.raises(ValueError, match="rank"):
        DistributedSampler(data, num_replicas=2, rank=2)


def test_distributed_batch_sampler_batches_this_ranks_share():
    data = np.zeros((11, 2))
    b0 = DistributedBatchSampler(data, batch_size=4, num_replicas=2, rank=0)
    b1 = DistributedBatchSampler(data, batch_size=4, num_replicas=2, rank=1)
    assert list(b0) == [[0, 2, 4, 6], [8, 10]] and len(b0) == 2
    assert list(b1) == [[1, 3, 5, 7], [9, 0]]
    d = DistributedBatchSampler(data, batch_size=4, num_replicas=2, rank=0, drop_last=True)
    assert list(d) == [[0, 2, 4, 6]] and len(d) == 1
    s = DistributedBatchSampler(data, batch_size=3, num_replicas=2, rank=0, shuffle=True)
    first = list(s)
    s.set_epoch(3)
    assert sorted(sum(first, [])) != sum(first, []) or list(s) != first
    with pytest.raises(ValueError, match="batch_size"):
        DistributedBatchSampler(data, batch_size=0)


def test_bfloat16_rounding_of_reduced_values_matches_astype():
    from ferrograd.distributed import _buffers as B

    vals = np.array([1.0, 1.00390625, 1.01171875, -3.3, 1e30, np.inf, np.nan, 0.0], np.float32)
    out = np.zeros(len(vals), np.uint16)
    B.f32_to_half(vals, "bfloat16", out)
    ref = fg.tensor(vals).astype("bfloat16").astype("float32").numpy()
    back = B.half_to_f32(out, "bfloat16")
    assert np.array_equal(np.isnan(back), np.isnan(ref))
    assert np.array_equal(back[~np.isnan(ref)], ref[~np.isnan(ref)])


def test_launcher_builds_the_mpiexec_command_line():
    from ferrograd.distributed import launch

    args = launch.parse_args(["--nproc_per_node", "3", "--hostfile", "hosts", "t.py", "--lr", "1"])
    cmd = launch.command(args, "/x/mpiexec")
    assert cmd == ["/x/mpiexec", "-n", "3", "-f", "hosts", sys.executable, "t.py", "--lr", "1"]


def test_collectives_need_an_initialized_group():
    import ferrograd.distributed as dist

    assert not dist.is_initialized()
    assert dist.get_world_size() >= 1
    with pytest.raises(RuntimeError, match="init_process_group"):
        dist.all_reduce(fg.ones([2]))
    with pytest.raises(ValueError, match="backend"):
        dist.init_process_group("nccl")


def test_ddp_progress_mode_is_checked(monkeypatch):
    from ferrograd.distributed import _progress

    monkeypatch.setenv("FERROGRAD_DDP_PROGRESS", "hooks")
    assert _progress.thread_enabled() is False
    monkeypatch.setenv("FERROGRAD_DDP_PROGRESS", "spin")
    with pytest.raises(ValueError, match="FERROGRAD_DDP_PROGRESS='spin'.*'hooks'"):
        _progress.thread_enabled()
