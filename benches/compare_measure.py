"""What compare.py measures with: the timing loop (``Case``, ``Settings``, ``measure``), the
seeded inputs every library shares (``Data``) and the spelling of an eager framework
(``Eager``). Split from compare.py."""

from __future__ import annotations

import gc
import math
import statistics
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

# Units whose numbers grow with speed; all other units are times.
RATE_UNITS = {"GB/s", "GFLOP/s"}

# Note prefix of NumPy's stand-ins for autograd workloads.
FLOOR = "NumPy floor: "

N_BIG = 1 << 24  # elements of the mul_add operands (16M)
MLP_SIZES = (784, 256, 256, 10)
MLP_BATCH = 128
MLP_LR = 0.01

# --------------------------------------------------------------------------- measuring


@dataclass
class Case:
    """One workload as one library runs it.

    ``run(n)`` performs ``n`` repetitions and returns something that, for libraries with
    asynchronous dispatch, has been waited on. ``work`` is bytes or FLOPs per repetition
    for rate units.
    """

    run: Callable[[int], Any]
    unit: str
    work: float = 0.0
    note: str = ""
    single: bool = False  # one repetition per batch, no calibration (slow cases)


@dataclass
class Settings:
    batch_s: float  # target duration of one timed batch
    batches: int  # timed batches; the median is reported
    single_batches: int  # batches for `single` cases
    extras: dict = field(default_factory=dict)


def time_batches(case: Case, s: Settings) -> list[float]:
    """Seconds per repetition for each timed batch (after one warm-up call)."""
    case.run(1)
    if case.single:
        reps, batches = 1, s.single_batches
    else:
        reps, batches = 1, s.batches
        while True:
            t0 = time.perf_counter()
            case.run(reps)
            dt = time.perf_counter() - t0
            if dt >= s.batch_s or reps >= 1 << 22:
                break
            # aim a little past the target so the loop ends in one or two more steps
            guess = reps * 1.2 * s.batch_s / max(dt, 1e-9)
            reps = int(min(max(guess, reps * 2), reps * 100))
    out = []
    for _ in range(batches):
        t0 = time.perf_counter()
        case.run(reps)
        out.append((time.perf_counter() - t0) / reps)
    return out


def convert(seconds: float, case: Case) -> float:
    """Seconds per repetition to the case's unit."""
    if case.unit == "us":
        return seconds * 1e6
    if case.unit == "ms":
        return seconds * 1e3
    if case.unit in RATE_UNITS:
        return case.work / seconds / 1e9
    raise ValueError(f"unknown unit {case.unit}")


def measure(case: Case, s: Settings) -> dict:
    gc.collect()
    gc.disable()
    try:
        per_rep = time_batches(case, s)
    finally:
        gc.enable()
    values = [convert(t, case) for t in per_rep]
    return {
        "value": convert(statistics.median(per_rep), case),
        "unit": case.unit,
        "batches": values,
        "note": case.note,
    }


# --------------------------------------------------------------------------- data


class Data:
    """Inputs drawn from NumPy's generator, seeded per workload, so that every library
    computes on the same numbers whatever it skips."""

    def __init__(self, np, workload: str):
        self.np = np
        self.rng = np.random.default_rng(zlib.crc32(workload.encode()))

    def normal(self, shape, dtype="float32", scale=1.0):
        x = self.rng.standard_normal(shape, dtype=self.np.dtype(dtype).type)
        return x * x.dtype.type(scale) if scale != 1.0 else x

    def mlp(self):
        np = self.np
        sizes = MLP_SIZES
        params = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
            params.append(self.normal((fan_in, fan_out), scale=1.0 / math.sqrt(fan_in)))
            params.append(np.zeros(fan_out, dtype=np.float32))
        x = self.normal((MLP_BATCH, sizes[0]))
        labels = self.rng.integers(0, sizes[-1], MLP_BATCH)
        onehot = np.zeros((MLP_BATCH, sizes[-1]), dtype=np.float32)
        onehot[np.arange(MLP_BATCH), labels] = 1.0
        return params, x, onehot


# --------------------------------------------------------------------------- adapters
#
# Each adapter maps workload names to factories: `factory(data)` turns NumPy inputs into
# the library's tensors and returns the Case, so inputs live only while their workload
# runs. Eager autograd frameworks share one implementation (`eager_cases`), parameterised
# by the handful of things they spell differently (`Eager`).

Factories = dict[str, Callable[[Data], Case]]


@dataclass
class Eager:
    """How one eager framework spells the few things its workloads need."""

    const: Callable  # ndarray -> tensor without grad
    leaf: Callable  # ndarray -> tensor requiring grad (a copy)
    no_grad: Callable  # context manager
    log_softmax: Callable  # (tensor, axis) -> tensor
    sgd: Callable  # (param, lr) -> None: in-place update, then drop the grad; under no_grad
    layer_base: Any = None  # base class of custom layers (PyLayer / autograd.Function)
    saved: Callable | None = None  # ctx -> tuple of saved tensors
    hooks: Callable | None = None  # (pack, unpack) -> saved-tensor hooks context manager
    einsum: Callable | None = None  # (equation, *operands) -> tensor
