"""The workloads of compare.py as factories: the ones without autograd that every library
runs (``common_cases``) and the eager-autograd ones shared by ferrograd, PyTorch and
Paddle (``eager_cases``, the demo step, the sequence models and the convolutions)."""

from __future__ import annotations

from typing import Any, Callable

from compare_measure import MLP_BATCH, MLP_LR, N_BIG, Case, Data, Eager, Factories, Settings


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
