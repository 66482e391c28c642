"""One ``setup_<library>`` per library compare.py runs: its version, its settings and its
workload factories (``SETUP``)."""

from __future__ import annotations

import os
import re

import scatter_cases
from compare_cases import (
    common_cases,
    conv_case,
    demo_step_case,
    eager_cases,
    numpy_sort_pair,
    numpy_topk,
    scan_sort_cases,
    sequence_cases,
)
from compare_measure import FLOOR, MLP_BATCH, MLP_LR, MLP_SIZES, Case, Data, Eager, Settings


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
