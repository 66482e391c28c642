#!/usr/bin/env python3
"""Runs the same workloads on ferrograd, NumPy, PyTorch, Paddle and JAX and compares them.

Every library runs in a subprocess of its own (this script started again with
``--lib NAME``), which writes its results as JSON; the parent collects them and prints
medians plus time ratios to NumPy and to PyTorch. Libraries that do not import are
skipped. Each library may use its own interpreter (``--python-torch PATH`` etc.), so
frameworks can live in separate virtual environments.

    python benches/compare.py                       # full run
    python benches/compare.py --quick               # smoke run, a few seconds
    python benches/compare.py --python-torch /tmp/venv-torch/bin/python --json out.json

See benches/README.md for what each workload measures and how bytes and FLOPs are counted.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import json
import math
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

LIBS = ["ferrograd", "numpy", "torch", "paddle", "jax"]

WORKLOADS = [
    "add_1elem_us",
    "mul_add_16M_GBps",
    "matmul_64_us",
    "matmul_1024_f32_GFLOPs",
    "matmul_1024_f64_GFLOPs",
    "bmm_32x64_us",
    "einsum_bmm_32x64_us",
    "small_graph_iter_us",
    "chain_10k_ms",
    "chain_1M_ms",
    "mlp_step_ms",
    "mlp_step_static_ms",
    "demo_step_ms",
    "custom_tanh_iter_us",
    "builtin_tanh_iter_us",
    "hooked_small_graph_iter_us",
    "lstm_step_ms",
    "encoder_step_ms",
    "cumsum_16M_ms",
    "cumsum_dim0_16M_ms",
    "sort_1M_ms",
    "topk_1M_ms",
    # convolution (benches/conv_step.py)
    "conv2d_3x3_64_fwdbwd_ms",
    "depthwise3x3_fwdbwd_ms",
    "digits_cnn_step_ms",
]
# scatter / masked ops on 16M elements (benches/scatter_cases.py; issue 19)
import scatter_cases  # noqa: E402

WORKLOADS += scatter_cases.WORKLOADS

# Note prefix of NumPy's stand-ins for autograd workloads.
FLOOR = "NumPy floor: "

# Workloads left out of --quick runs.
# (one set: two merged branches each assigned their own, and the later one silently won)
SLOW = {
    "chain_1M_ms",
    "lstm_step_ms",
    "encoder_step_ms",
    "conv2d_3x3_64_fwdbwd_ms",
    "depthwise3x3_fwdbwd_ms",
}

# Units whose numbers grow with speed; all other units are times.
RATE_UNITS = {"GB/s", "GFLOP/s"}

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


def common_cases(const: Callable, sync: Callable, einsum: Callable | None = None) -> Factories:
    """Workloads without autograd, the same for every library (NumPy included).
    `sync(t)` waits for `t` to be computed (libraries with asynchronous dispatch);
    `einsum(equation, *operands)` is the library's einsum (its rows are skipped without)."""

    def add_1elem(data):
        a, b = const(data.normal(1)), const(data.normal(1))

        def run(n):
            c = None
            for _ in range(n):
                c = a + b
            return sync(c)

        return Case(run, "us")

    def mul_add(data):
        a, b = const(data.normal(N_BIG)), const(data.normal(N_BIG))

        def run(n):
            c = None
            for _ in range(n):
                c = sync(a * b + a)
            return c

        # a*b reads 2 arrays and writes 1; (+ a) reads 2 and writes 1: 6 x 4 bytes x N
        return Case(run, "GB/s", work=6 * 4 * N_BIG)

    def matmul(n_dim, dtype, unit):
        def factory(data):
            a = const(data.normal((n_dim, n_dim), dtype))
            b = const(data.normal((n_dim, n_dim), dtype))

            def run(n):
                c = None
                for _ in range(n):
                    c = sync(a @ b)
                return c

            return Case(run, unit, work=2.0 * n_dim**3)

        return factory

    def bmm(use_einsum):
        # a batched matmul, as `a @ b` and as einsum("bij,bjk->bik"): the einsum planner
        # must route it to the same matmul (issue #19)
        def factory(data):
            a = const(data.normal((32, 64, 64)))
            b = const(data.normal((32, 64, 64)))

            def run(n):
                c = None
                for _ in range(n):
                    c = sync(einsum("bij,bjk->bik", a, b) if use_einsum else a @ b)
                return c

            return Case(run, "us", note="32 batches of 64x64 @ 64x64, float32")

        return factory

    cases = {
        "add_1elem_us": add_1elem,
        "mul_add_16M_GBps": mul_add,
        "matmul_64_us": matmul(64, "float32", "us"),
        "matmul_1024_f32_GFLOPs": matmul(1024, "float32", "GFLOP/s"),
        "matmul_1024_f64_GFLOPs": matmul(1024, "float64", "GFLOP/s"),
        "bmm_32x64_us": bmm(False),
    }
    if einsum is not None:
        cases["einsum_bmm_32x64_us"] = bmm(True)
    return cases


def scan_sort_cases(
    const: Callable, cumsum: Callable, sort_pair: Callable, topk: Callable
) -> Factories:
    """Scans and sorting (issue #19) where the libraries spell them differently:
    `cumsum(t, dim)`, `sort_pair(t)` -> sorted values and their indices along the last
    dimension, `topk(t, k)` -> the k largest values and their indices, in order."""

    def cumsum_case(shape, dim):
        def factory(data):
            a = const(data.normal(shape))

            def run(n):
                for _ in range(n):
                    c = cumsum(a, dim)
                return c

            return Case(run, "ms")

        return factory

    def sort_case(data):
        a = const(data.normal(1 << 20))

        def run(n):
            for _ in range(n):
                c = sort_pair(a)
            return c

        return Case(run, "ms", note="1M float32, values and indices")

    def topk_case(data):
        a = const(data.normal(1 << 20))

        def run(n):
            for _ in range(n):
                c = topk(a, 100)
            return c

        return Case(run, "ms", note="1M float32, k = 100, sorted, values and indices")

    return {
        "cumsum_16M_ms": cumsum_case((N_BIG,), 0),
        "cumsum_dim0_16M_ms": cumsum_case((4096, 4096), 0),
        "sort_1M_ms": sort_case,
        "topk_1M_ms": topk_case,
    }


def numpy_sort_pair(np):
    def sort_pair(a):
        i = np.argsort(a, kind="stable")
        return np.take_along_axis(a, i, -1), i

    return sort_pair


def numpy_topk(np):
    def topk(a, k):
        part = np.argpartition(a, a.shape[-1] - k)[..., -k:]
        vals = np.take_along_axis(a, part, -1)
        order = np.argsort(-vals, kind="stable")
        return np.take_along_axis(vals, order, -1), np.take_along_axis(part, order, -1)

    return topk


def eager_cases(np, e: Eager, s: Settings) -> Factories:
    """All workloads for an eager autograd framework (ferrograd, PyTorch, Paddle)."""
    cases = common_cases(e.const, lambda t: t, e.einsum)

    def small_graph(data):
        a, b = e.leaf(data.normal(1)), e.leaf(data.normal(1))

        def run(n):
            for _ in range(n):
                y = (a * b + a).sum()
                y.backward()
            return y

        return Case(run, "us", note="forward + backward")

    def chain(length, single):
        def factory(data):
            x = e.leaf(np.ones(1, dtype=np.float32))

            def run(n):
                for _ in range(n):
                    y = x
                    for _ in range(length):
                        y = y + 1.0
                    y.sum().backward()
                return y

            return Case(run, "ms", note="forward + backward", single=single)

        return factory

    def mlp(data):
        params_np, x_np, onehot_np = data.mlp()
        params = [e.leaf(p) for p in params_np]
        x, onehot = e.const(x_np), e.const(onehot_np)
        scale = -1.0 / MLP_BATCH

        def step():
            w1, b1, w2, b2, w3, b3 = params
            h = (x @ w1 + b1).tanh()
            h = (h @ w2 + b2).tanh()
            logits = h @ w3 + b3
            loss = (onehot * e.log_softmax(logits, 1)).sum() * scale
            loss.backward()
            with e.no_grad():
                for p in params:
                    e.sgd(p, MLP_LR)
            return loss

        # the first loss, before any update, must agree across libraries (a sanity check)
        s.extras["mlp_loss0"] = round(float(step()), 5)

        def run(n):
            for _ in range(n):
                loss = step()
            return loss

        return Case(run, "ms", note="forward, softmax cross-entropy, backward, SGD update")

    def custom_tanh(data):
        class Tanh(e.layer_base):
            @staticmethod
            def forward(ctx, x):
                y = x.tanh()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, dy):
                (y,) = e.saved(ctx)
                return dy * (1 - y * y)

        x = e.leaf(data.normal(16))

        def run(n):
            for _ in range(n):
                y = Tanh.apply(x).sum()
                y.backward()
            return y

        return Case(run, "us", note="custom layer (saves its output): apply + sum().backward()")

    def builtin_tanh(data):
        x = e.leaf(data.normal(16))

        def run(n):
            for _ in range(n):
                y = x.tanh().sum()
                y.backward()
            return y

        return Case(run, "us", note="built-in tanh: forward + sum().backward(), 16 elements")

    def hooked_small_graph(data):
        a, b = e.leaf(data.normal(1)), e.leaf(data.normal(1))

        def ident(t):
            return t

        def run(n):
            for _ in range(n):
                with e.hooks(ident, ident):
                    y = (a * b + a).sum()
                y.backward()
            return y

        return Case(run, "us", note="small_graph_iter_us under identity saved_tensors_hooks")

    cases.update(
        small_graph_iter_us=small_graph,
        chain_10k_ms=chain(10_000, False),
        chain_1M_ms=chain(1_000_000, True),
        mlp_step_ms=mlp,
    )
    if e.layer_base is not None:
        cases.update(custom_tanh_iter_us=custom_tanh, builtin_tanh_iter_us=builtin_tanh)
    if e.hooks is not None:
        cases.update(hooked_small_graph_iter_us=hooked_small_graph)
    return cases


def demo_step_case(make_step: Callable) -> Callable[[Data], Case]:
    """The demo model's training step (benches/demo_step.py) as a workload factory."""

    def factory(data):
        step = make_step(data.np, data.rng)

        def run(n):
            loss = None
            for _ in range(n):
                loss = step()
            return loss

        return Case(run, "ms", note="demo model: forward, cross-entropy, backward, Adam step")

    return factory


def sequence_cases(lib: Any) -> Factories:
    """lstm_step_ms and encoder_step_ms (benches/sequence_steps.py) for ferrograd or torch."""
    import sequence_steps as ss

    def case(make: Callable, shape: tuple, note: str) -> Callable[[Data], Case]:
        def factory(data):
            step = make(lib, data.normal(shape))

            def run(n):
                loss = None
                for _ in range(n):
                    loss = step()
                return loss

            return Case(run, "ms", note=note, single=True)

        return factory

    return {
        "lstm_step_ms": case(
            ss.lstm_step,
            (ss.LSTM_SEQ, ss.LSTM_BATCH, ss.LSTM_SIZE),
            "LSTM 2 layers, hidden 256, seq 64, batch 32: forward + backward",
        ),
        "encoder_step_ms": case(
            ss.encoder_step,
            (ss.ENC_BATCH, ss.ENC_SEQ, ss.ENC_D),
            "4-layer transformer encoder (d=256, 4 heads, ff 1024), seq 128, batch 16: "
            "forward, backward, SGD step",
        ),
    }


CONV_NOTES = {
    "conv": "3x3 conv 64->64 ch, 32x32, batch 32, f32: forward, sum, backward",
    "depthwise": "depthwise 3x3 conv (groups=64), 32x32, batch 32, f32: forward + backward",
    "digits": "CNN demo model on a batch of 64 8x8 digits: forward, loss, backward, Adam",
}


def conv_case(make_step: Callable, kind: str) -> Callable[[Data], Case]:
    """A workload of benches/conv_step.py as a factory."""

    def factory(data):
        step = make_step(data.np, data.rng)

        def run(n):
            out = None
            for _ in range(n):
                out = step()
            return out

        return Case(run, "ms", note=CONV_NOTES[kind])

    return factory


def setup_numpy(np, s: Settings):
    cases = common_cases(lambda x: x, lambda t: t, np.einsum)

    def small_graph(data):
        a, b = data.normal(1), data.normal(1)

        def run(n):
            for _ in range(n):
                y = (a * b + a).sum()
            return y

        return Case(run, "us", note=FLOOR + "the forward ops (mul, add, sum), no autograd")

    def chain(length, single):
        def factory(data):
            x = np.ones(1, dtype=np.float32)

            def run(n):
                for _ in range(n):
                    y = x
                    for _ in range(length):
                        y = y + 1.0
                    y.sum()
                return y

            return Case(run, "ms", note=FLOOR + "the forward adds, no autograd", single=single)

        return factory

    cases.update(
        small_graph_iter_us=small_graph,
        chain_10k_ms=chain(10_000, False),
        chain_1M_ms=chain(1_000_000, True),
    )
    cases.update(scatter_cases.cases(Case, "numpy", np))
    cases.update(
        scan_sort_cases(lambda x: x, lambda t, d: t.cumsum(d), numpy_sort_pair(np), numpy_topk(np))
    )
    return np.__version__, {"blas": numpy_blas(np)}, cases


def setup_ferrograd(np, s: Settings):
    import ferrograd as fg

    def sgd(p, lr):
        p.sub_(lr * p.grad)
        p.grad = None

    e = Eager(
        const=fg.from_numpy,
        einsum=fg.einsum,
        leaf=lambda x: fg.tensor(x, requires_grad=True),
        no_grad=fg.no_grad,
        log_softmax=lambda t, axis: t.log_softmax(axis),
        sgd=sgd,
        layer_base=fg.autograd.PyLayer,
        saved=lambda ctx: ctx.saved_tensor(),
        hooks=fg.autograd.saved_tensors_hooks,
    )
    threads = os.environ.get("RAYON_NUM_THREADS") or f"rayon default ({os.cpu_count()})"
    cases = eager_cases(np, e, s)
    cases["mlp_step_static_ms"] = lambda data: ferrograd_static_mlp(fg, data, s)
    if hasattr(fg, "topk"):
        cases.update(
            scan_sort_cases(
                fg.from_numpy, lambda t, d: t.cumsum(d), lambda t: t.sort(), lambda t, k: t.topk(k)
            )
        )
    if hasattr(fg, "optim"):
        import demo_step

        cases["demo_step_ms"] = demo_step_case(demo_step.ferrograd_step)
    if hasattr(fg.nn, "LSTM"):
        cases.update(sequence_cases(fg))
    cases.update(scatter_cases.cases(Case, "ferrograd", fg))
    if hasattr(fg.nn.functional, "conv2d"):
        import conv_step

        cases["conv2d_3x3_64_fwdbwd_ms"] = conv_case(conv_step.ferrograd_conv(False), "conv")
        cases["depthwise3x3_fwdbwd_ms"] = conv_case(conv_step.ferrograd_conv(True), "depthwise")
        cases["digits_cnn_step_ms"] = conv_case(conv_step.ferrograd_digits_step, "digits")
    # ferrograd multiplies with the `gemm` crate (pure Rust, runtime CPU dispatch)
    return fg.__version__, {"threads": threads, "blas": "gemm crate (Rust)"}, cases


def ferrograd_static_mlp(fg, data: Data, s: Settings) -> Case:
    """mlp_step_ms as a static program: forward, loss, gradients and the SGD update are
    recorded once; each step is one Executor.run (the whole step runs in Rust)."""
    # the eager workload's inputs, so that mlp_static_loss0 must equal mlp_loss0
    params_np, x_np, onehot_np = Data(data.np, "mlp_step_ms").mlp()
    st = fg.static
    main, startup, scope = st.Program(), st.Program(), st.Scope()
    fg.enable_static()
    try:
        with st.program_guard(main, startup):
            x = st.data("x", [-1, MLP_SIZES[0]], "float32")
            onehot = st.data("onehot", [-1, MLP_SIZES[-1]], "float32")
            params = [
                st.create_parameter(
                    list(p.shape), "float32", default_initializer=st.initializer.Assign(p)
                )
                for p in params_np
            ]
            w1, b1, w2, b2, w3, b3 = params
            h = (x @ w1 + b1).tanh()
            h = (h @ w2 + b2).tanh()
            logits = h @ w3 + b3
            loss = (onehot * logits.log_softmax(1)).sum() * (-1.0 / MLP_BATCH)
            for p, g in zip(params, st.gradients([loss], params)):
                st.assign(p - MLP_LR * g, output=p)
    finally:
        fg.disable_static()
    exe = st.Executor()
    exe.run(startup, scope=scope)
    feed = {"x": x_np, "onehot": onehot_np}

    def step():
        return exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]

    s.extras["mlp_static_loss0"] = round(float(step()), 5)

    def run(n):
        for _ in range(n):
            out = step()
        return out

    return Case(run, "ms", note="mlp_step_ms as one static-program Executor.run per step")


def setup_torch(np, s: Settings):
    import torch

    if s.extras.get("threads"):
        torch.set_num_threads(s.extras["threads"])

    def sgd(p, lr):
        p.sub_(lr * p.grad)
        p.grad = None

    e = Eager(
        const=torch.from_numpy,
        einsum=torch.einsum,
        leaf=lambda x: torch.tensor(x, requires_grad=True),
        no_grad=torch.no_grad,
        log_softmax=lambda t, axis: t.log_softmax(axis),
        sgd=sgd,
        layer_base=torch.autograd.Function,
        saved=lambda ctx: ctx.saved_tensors,
        hooks=torch.autograd.graph.saved_tensors_hooks,
    )
    import demo_step

    cases = eager_cases(np, e, s)
    cases["demo_step_ms"] = demo_step_case(demo_step.torch_step)
    cases.update(sequence_cases(torch))
    cases.update(scatter_cases.cases(Case, "torch", torch))
    cases.update(
        scan_sort_cases(
            torch.from_numpy, lambda t, d: t.cumsum(d), lambda t: t.sort(), lambda t, k: t.topk(k)
        )
    )
    import conv_step

    cases["conv2d_3x3_64_fwdbwd_ms"] = conv_case(conv_step.torch_conv(False), "conv")
    cases["depthwise3x3_fwdbwd_ms"] = conv_case(conv_step.torch_conv(True), "depthwise")
    cases["digits_cnn_step_ms"] = conv_case(conv_step.torch_digits_step, "digits")
    blas = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    info = {"threads": torch.get_num_threads(), "blas": blas.group(1) if blas else "unknown"}
    return torch.__version__, info, cases


def numpy_blas(np) -> str:
    """The BLAS NumPy was built with (name and version), as ``np.show_config`` reports."""
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:  # older NumPy: no dict mode
        return "unknown"


def setup_paddle(np, s: Settings):
    import paddle

    paddle.set_device("cpu")

    def sgd(p, lr):
        p.set_value(p - lr * p.grad)
        p.clear_grad()

    e = Eager(
        const=paddle.to_tensor,
        einsum=paddle.einsum,
        leaf=lambda x: paddle.to_tensor(x, stop_gradient=False),
        no_grad=paddle.no_grad,
        log_softmax=lambda t, axis: paddle.nn.functional.log_softmax(t, axis=axis),
        sgd=sgd,
        layer_base=paddle.autograd.PyLayer,
        saved=lambda ctx: ctx.saved_tensor(),
        hooks=paddle.autograd.saved_tensors_hooks,
    )
    mkl = getattr(paddle.version, "with_mkl", "unknown")
    return (
        paddle.__version__,
        {"blas": "mkl" if mkl == "ON" else f"with_mkl={mkl}"},
        eager_cases(np, e, s),
    )


def setup_jax(np, s: Settings):
    """JAX is functional: gradients come from ``jax.grad`` run eagerly (no ``jit``), the
    closest match to the other libraries' define-by-run autograd."""
    import jax

    jax.config.update("jax_enable_x64", True)  # so that the float64 matmul is float64
    import jax.numpy as jnp

    const = jnp.asarray
    cases = common_cases(const, lambda t: t.block_until_ready(), jnp.einsum)
    note = "eager jax.grad, no jit"

    def small_graph(data):
        a, b = const(data.normal(1)), const(data.normal(1))
        grad = jax.grad(lambda a, b: (a * b + a).sum(), argnums=(0, 1))

        def run(n):
            for _ in range(n):
                g = grad(a, b)
            return jax.block_until_ready(g)

        return Case(run, "us", note=note)

    def chain(data):
        x = const(np.ones(1, dtype=np.float32))

        def f(x):
            y = x
            for _ in range(10_000):
                y = y + 1.0
            return y.sum()

        grad = jax.grad(f)

        def run(n):
            for _ in range(n):
                g = grad(x)
            return jax.block_until_ready(g)

        return Case(run, "ms", note=note)

    def mlp(data):
        params_np, x_np, onehot_np = data.mlp()
        params = [const(p) for p in params_np]
        x, onehot = const(x_np), const(onehot_np)

        def loss_fn(ps):
            w1, b1, w2, b2, w3, b3 = ps
            h = jnp.tanh(x @ w1 + b1)
            h = jnp.tanh(h @ w2 + b2)
            logits = h @ w3 + b3
            return (onehot * jax.nn.log_softmax(logits, axis=1)).sum() * (-1.0 / MLP_BATCH)

        value_and_grad = jax.value_and_grad(loss_fn)

        def step():
            nonlocal params
            loss, grads = value_and_grad(params)
            params = [p - MLP_LR * g for p, g in zip(params, grads)]
            return jax.block_until_ready(loss)

        s.extras["mlp_loss0"] = round(float(step()), 5)

        def run(n):
            for _ in range(n):
                loss = step()
            return loss

        return Case(run, "ms", note=note)

    # chain_1M_ms is left out: eager jax.grad over a million Python-level ops takes minutes
    cases.update(small_graph_iter_us=small_graph, chain_10k_ms=chain, mlp_step_ms=mlp)
    return jax.__version__, {"backend": jax.default_backend()}, cases


SETUP = {
    "ferrograd": setup_ferrograd,
    "numpy": setup_numpy,
    "torch": setup_torch,
    "paddle": setup_paddle,
    "jax": setup_jax,
}


def child(lib: str, quick: bool, threads: int | None, skip: list[str], save: Callable) -> dict:
    """Runs the workloads for `lib` in this process and returns the JSON-ready result.

    `save(out)` is called before and after each workload, so that when the process dies
    inside one, the parent still has the earlier results and sees which one was running.
    """
    out: dict[str, Any] = {"lib": lib, "python": sys.executable, "available": False}
    try:
        import numpy as np

        # importing here also checks that the library is there at all
        __import__(lib)
    except Exception as exc:  # noqa: BLE001  (any import failure means "skip")
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    out["available"] = True
    if quick:
        s = Settings(batch_s=0.02, batches=3, single_batches=2)
    else:
        s = Settings(batch_s=0.25, batches=7, single_batches=3)
    s.extras["threads"] = threads
    version, info, factories = SETUP[lib](np, s)
    out.update(version=version, info=info, numpy=np.__version__, results={}, errors={})
    for name in WORKLOADS:
        if name not in factories or name in skip or (quick and name in SLOW):
            continue
        out["running"] = name
        save(out)
        t0 = time.perf_counter()
        try:
            case = factories[name](Data(np, name))
            out["results"][name] = measure(case, s)
            out["results"][name]["wall_s"] = round(time.perf_counter() - t0, 3)
            del case  # free the inputs before the next workload
        except Exception as exc:  # noqa: BLE001  (reported per workload)
            out["errors"][name] = f"{type(exc).__name__}: {exc}"
        del out["running"]
        gc.collect()
    out["checks"] = {k: v for k, v in s.extras.items() if k != "threads" and v is not None}
    out["complete"] = True
    return out


# --------------------------------------------------------------------------- parent


def fmt(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(v)))))
    return f"{v:.{min(digits, 4)}f}"


def time_ratio(lib_res: dict | None, ref_res: dict | None) -> float | None:
    """Time of `lib` over time of the reference (< 1: lib is faster)."""
    if not lib_res or not ref_res:
        return None
    lv, rv = lib_res["value"], ref_res["value"]
    if lib_res["unit"] in RATE_UNITS:
        return rv / lv if lv else None
    return lv / rv if rv else None


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    body = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in [header, *rows]
    ]
    return "\n".join([body[0], line, *body[1:]])


def cell(res: dict, workload: str) -> str:
    """The table entry of one library for one workload."""
    if workload in res.get("crashed", {}):
        return "crash"
    if workload in res.get("errors", {}):
        return "error"
    r = res["results"].get(workload)
    if not r:
        return "-"
    return fmt(r["value"]) + ("*" if r["note"].startswith(FLOOR) else "")


def report(results: dict[str, dict]) -> str:
    ran = [lib for lib in LIBS if results.get(lib, {}).get("results")]
    names = [w for w in WORKLOADS if any(cell(results[lib], w) != "-" for lib in ran)]
    units = {w: r["unit"] for lib in ran for w, r in results[lib]["results"].items() if w in names}
    rows = [[w, units.get(w, ""), *[cell(results[lib], w) for lib in ran]] for w in names]
    out = ["Medians (higher is better for GB/s and GFLOP/s, lower for times)"]
    out.append(table(["workload", "unit", *ran], rows))
    if any(cell(results[lib], w).endswith("*") for lib in ran for w in names):
        out.append(
            f"* {FLOOR}the same forward ops without autograd (NumPy has none);\n"
            "  ratios to NumPy in these rows compare forward + backward with that floor"
        )
    for lib in ran:
        for kind in ("crashed", "errors"):
            for w, why in results[lib].get(kind, {}).items():
                out.append(f"{lib} {w}: {'crashed' if kind == 'crashed' else 'error'}: {why}")
    for ref in ("numpy", "torch"):
        others = [lib for lib in ran if lib != ref]
        if ref not in ran or not others:
            continue
        rows = []
        for w in names:
            ref_res = results[ref]["results"].get(w)
            rows.append(
                [w, *[fmt(time_ratio(results[lib]["results"].get(w), ref_res)) for lib in others]]
            )
        out.append("")
        out.append(f"Time relative to {ref} (lib time / {ref} time; < 1 means faster than {ref})")
        out.append(table(["workload", *[f"{lib}/{ref}" for lib in others]], rows))
    return "\n".join(out)


def exit_text(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def run_once(lib: str, python: str, args, tmpdir: str, skip: list[str]) -> dict:
    """One child process for `lib`; returns what it wrote, marked failed if it died."""
    path = os.path.join(tmpdir, f"{lib}.json")
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
    cmd = [python, os.path.abspath(__file__), "--lib", lib, "--result-file", path]
    if args.quick:
        cmd.append("--quick")
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    if skip:
        cmd += ["--skip", ",".join(skip)]
    env = dict(os.environ)
    if args.threads:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[var] = str(args.threads)
        env["RAYON_NUM_THREADS"] = str(args.threads)
    env.setdefault("JAX_PLATFORMS", "cpu")
    problem = None
    try:
        proc = subprocess.run(
            cmd, env=env, capture_output=True, text=True, timeout=args.timeout, check=False
        )
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout or "").strip().splitlines()
            tail = [x.strip()[:200] for x in lines if x.strip() and "warn" not in x.lower()]
            problem = exit_text(proc.returncode) + (": " + " | ".join(tail[-3:]) if tail else "")
    except FileNotFoundError:
        return {"lib": lib, "available": False, "error": f"interpreter {python} not found"}
    except subprocess.TimeoutExpired:
        problem = f"timed out after {args.timeout:g} s"
    try:
        with open(path) as f:
            res = json.load(f)
    except (OSError, json.JSONDecodeError):
        res = {"lib": lib, "python": python, "available": True}
    if problem and res.get("complete"):
        res["exit_problem"] = problem  # everything ran; the process died on its way out
    elif problem or not res.get("complete") and res.get("available"):
        res.update(failed=True, error=problem or "no complete result")
    return res


def run_child(lib: str, python: str, args, tmpdir: str) -> dict:
    """Runs `lib`'s workloads; when the process dies inside a workload, records that
    workload as crashed and starts a new process for the ones that remain."""
    t0 = time.perf_counter()
    merged: dict[str, Any] = {}
    crashed: dict[str, str] = {}
    while True:
        done = [*merged.get("results", {}), *merged.get("errors", {}), *crashed]
        res = run_once(lib, python, args, tmpdir, done)
        merged = {
            **merged,
            **res,
            "results": {**merged.get("results", {}), **res.get("results", {})},
            "errors": {**merged.get("errors", {}), **res.get("errors", {})},
            "checks": {**merged.get("checks", {}), **res.get("checks", {})},
            "crashed": crashed,
        }
        running = res.get("running")
        if res.get("failed") and running and running not in crashed:
            crashed[running] = res["error"]
            merged.pop("failed", None)
            merged.pop("error", None)
            continue
        break
    merged.pop("running", None)
    merged["wall_s"] = round(time.perf_counter() - t0, 2)
    return merged


def parent(args) -> int:
    libs = [x.strip() for x in args.libs.split(",") if x.strip()]
    unknown = [x for x in libs if x not in LIBS]
    if unknown:
        print(f"unknown libraries {unknown}; choose from {LIBS}", file=sys.stderr)
        return 2
    started = datetime.datetime.now().astimezone()
    load_before = os.getloadavg()
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ferrograd-compare-") as tmpdir:
        for lib in libs:
            python = getattr(args, f"python_{lib}") or args.python
            results[lib] = run_child(lib, python, args, tmpdir)
    load_after = os.getloadavg()
    meta = {
        "date": started.isoformat(timespec="seconds"),
        "host": platform.node(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
        "quick": args.quick,
        "threads": args.threads,
    }
    print(f"ferrograd compare  {meta['date']}  {meta['platform']}  cpus={meta['cpus']}")
    print(
        "load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(
            *load_before, *load_after
        )
    )
    for lib in libs:
        r = results[lib]
        if r.get("version"):
            details = [r["python"], f"{r['wall_s']} s"]
            details += [f"{k}={v}" for k, v in r.get("info", {}).items()]
            if r.get("exit_problem"):
                details.append(f"then {r['exit_problem']}")
            print(f"  {lib} {r['version']} ({'; '.join(details)})")
        if r.get("failed") or not r.get("available"):
            state = "FAILED" if r.get("failed") else "skipped"
            print(f"  {lib}: {state}: {r.get('error')}")
    checks = {lib: r["checks"] for lib, r in results.items() if r.get("checks")}
    if checks:
        print("  checks: " + "; ".join(f"{lib} {c}" for lib, c in checks.items()))
    print()
    print(report(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "libs": results}, f, indent=2)
        print(f"\nresults saved to {args.json}")
    # Non-zero when a library failed outside any single workload, or when ferrograd itself
    # crashed or raised anywhere; other libraries' per-workload crashes are only reported.
    fg = results.get("ferrograd", {})
    bad = any(r.get("failed") for r in results.values()) or fg.get("crashed") or fg.get("errors")
    return 1 if bad else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="short smoke run (no chain_1M_ms)")
    p.add_argument("--json", metavar="PATH", help="save all results as JSON")
    p.add_argument(
        "--libs", default=",".join(LIBS), help="comma-separated subset of " + ",".join(LIBS)
    )
    p.add_argument(
        "--threads", type=int, help="thread count for every library (sets *_NUM_THREADS)"
    )
    p.add_argument("--timeout", type=float, default=900.0, help="seconds allowed per library")
    p.add_argument("--python", default=sys.executable, help="default interpreter for the libraries")
    for lib in LIBS:
        p.add_argument(f"--python-{lib}", metavar="PATH", help=f"interpreter for {lib}")
    p.add_argument("--lib", choices=LIBS, help=argparse.SUPPRESS)
    p.add_argument("--result-file", help=argparse.SUPPRESS)
    p.add_argument("--skip", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.lib is None:
        return parent(args)

    def save(res: dict) -> None:
        if args.result_file:
            tmp = args.result_file + ".part"
            with open(tmp, "w") as f:
                json.dump(res, f)
            os.replace(tmp, args.result_file)

    skip = [x for x in (args.skip or "").split(",") if x]
    try:
        res = child(args.lib, args.quick, args.threads, skip, save)
    except Exception as exc:  # noqa: BLE001  (reported to the parent as a failure)
        import traceback

        traceback.print_exc()
        res = {
            "lib": args.lib,
            "python": sys.executable,
            "available": True,
            "failed": True,
            "error": f"{type(exc).__name__}: {exc}",
        }
    if args.result_file:
        save(res)
    else:
        print(json.dumps(res))
    return 1 if res.get("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
