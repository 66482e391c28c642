"""Session 40 edge cases, each decided from the peers' source:

1. negative indices in the index-taking ops: PyTorch refuses them in gather / scatter /
   scatter_add / scatter_reduce / take_along_dim (``cpu_scatter_gather_base_kernel``,
   aten/src/ATen/native/cpu/ScatterGatherKernel.cpp: ``idx_dim >= 0 && idx_dim <
   index_upper_bound``; ``take_along_dim`` is a gather, TensorAdvancedIndexing.cpp),
   index_select / index_add (TensorAdvancedIndexing.cpp ``index_select_out_cpu_`` /
   ``index_add_cpu_``: "index out of range in self") and index_copy
   (cpu/IndexKernel.cpp ``index_copy_kernel``), but takes ``[-size, size)`` in
   index_fill (``index_fill_kernel``), take and advanced indexing (``wrapIndexOnce``).
   Paddle 3.x takes ``[-size, size)`` everywhere: gather / gather_nd / index_select /
   index_add / scatter / scatter_nd (PaddlePaddle/Paddle#68780; funcs/gather.h
   ``CPUGather`` / ``GatherV2Function``), take_along_axis / put_along_axis
   (PaddlePaddle/Paddle#69385; funcs/gather_scatter_functor.cc). So PyTorch code gets
   PyTorch's IndexError; Paddle code, and code of no dialect, count from the end.
2. ``topk`` of a 0-d tensor with ``k=0``: PyTorch's ``TORCH_META_FUNC(topk)`` allows
   ``k <= 1`` for a 0-d input and gives 0-d outputs; ``topk_out_cpu`` copies the value
   and zeroes the index (aten/src/ATen/native/Sorting.cpp).
3. ``fft.fftfreq(0)`` / ``rfftfreq(0)``: PyTorch's ``fft_fftfreq_out`` is an ``arange(0)``
   (empty) and ``fft_rfftfreq_out`` an ``arange(1) * (1 / 0.)`` (``[nan]``)
   (aten/src/ATen/native/SpectralOps.cpp); Paddle's ``fftfreq`` / ``rfftfreq`` raise
   ``ValueError("d or n should not be 0.")`` (python/paddle/fft.py).
4. ``torch.stft`` of an integer signal: "expected a tensor of floating point or complex
   values" (SpectralOps.cpp ``stft``); ``paddle.signal.stft`` takes it (its ``fft_r2c``
   casts an integer input to the default float dtype, python/paddle/fft.py).
5. ``ChainedScheduler([CosineAnnealingLR, ExponentialLR])`` past ``T_max``: PyTorch's
   recursive ``CosineAnnealingLR.get_lr`` (torch/optim/lr_scheduler.py) adds
   ``(base_lr - eta_min) * (1 - cos(pi / T_max)) / 2`` to the current rate when
   ``(last_epoch - 1 - T_max) % (2 * T_max) == 0``: an addition, not a factor.
"""

from __future__ import annotations

import math
import sys

import ferrograd as fg
import numpy as np
import pytest


def _run(src: str, dialect: str | None, **names):
    """Runs ``src`` as a user module that imports ferrograd as ``dialect`` (None: as
    ``fg``) and returns the value of ``out``."""
    g = {"__name__": "user_script", "fg": fg, **names}
    if dialect is not None:
        g[dialect] = fg
    exec(compile(src, "<user_script>", "exec"), g)
    return g.get("out")


@pytest.fixture
def no_aliases():
    """No process-wide ``torch`` / ``paddle`` alias: ``import ferrograd as fg`` code then
    has no dialect."""
    saved = {k: sys.modules.pop(k) for k in ("torch", "paddle") if k in sys.modules}
    yield
    for k in ("torch", "paddle"):
        sys.modules.pop(k, None)
    sys.modules.update(saved)


def _names():
    x = fg.arange(4.0)
    m = fg.arange(8.0).reshape([2, 4])
    return {
        "x": x,
        "m": m,
        "neg": fg.tensor([-1]),
        "neg2": fg.tensor([[0, -1], [1, 0]]),
        "one": fg.ones([1]),
        "ones2": fg.ones([2, 2]),
    }


# --- 1. negative indices -----------------------------------------------------------------

# every PyTorch op that refuses an index < 0, as PyTorch code spells it
TORCH_REFUSES = {
    "gather": "out = torch.gather(x, 0, neg)",
    "gather_method": "out = x.gather(0, neg)",
    "gather_2d": "out = m.gather(1, neg2)",
    "gather_sparse_grad": "out = x.gather(0, neg, sparse_grad=True)",
    "scatter_src": "out = torch.zeros(4).scatter(0, neg, one)",
    "scatter_value": "out = torch.zeros(4).scatter(0, neg, 1.0)",
    "scatter_reduce_kw": "out = torch.zeros(4).scatter(0, neg, one, reduce='add')",
    "scatter_": "out = torch.zeros(4).scatter_(0, neg, 1.0)",
    "scatter_add": "out = torch.scatter_add(torch.zeros(4), 0, neg, one)",
    "scatter_add_": "out = torch.zeros(4).scatter_add_(0, neg, one)",
    "scatter_reduce": "out = torch.zeros(4).scatter_reduce(0, neg, one, 'amax')",
    "scatter_reduce_": "out = torch.zeros(4).scatter_reduce_(0, neg, one, 'sum')",
    "index_select": "out = torch.index_select(x, 0, neg)",
    "index_select_method": "out = x.index_select(0, neg)",
    "index_select_dim_kw": "out = x.index_select(dim=0, index=neg)",
    "index_add": "out = torch.index_add(torch.zeros(4), 0, neg, one)",
    "index_add_": "out = torch.zeros(4).index_add_(0, neg, one)",
    "index_copy": "out = torch.index_copy(torch.zeros(4), 0, neg, one)",
    "index_copy_": "out = torch.zeros(4).index_copy_(0, neg, one)",
    "take_along_dim": "out = torch.take_along_dim(x, neg, 0)",
    "take_along_dim_flat": "out = torch.take_along_dim(x, neg)",
}


@pytest.mark.parametrize("name", sorted(TORCH_REFUSES))
def test_pytorch_code_refuses_negative_indices_regression(name):
    with pytest.raises(IndexError, match=r"index -1 is out of bounds for dimension \d with size"):
        _run(TORCH_REFUSES[name], "torch", **_names())


def test_pytorch_code_refusal_names_the_op_and_the_range():
    with pytest.raises(IndexError) as e:
        _run("out = torch.zeros(4).scatter_add_(0, neg, one)", "torch", **_names())
    msg = str(e.value)
    assert msg.startswith("scatter_add_:") and "[0, 4)" in msg, msg
    with pytest.raises(IndexError, match=r"^index_select: index -1 .*\[0, 4\)"):
        _run("out = x.index_select(0, neg)", "torch", **_names())


def test_pytorch_code_refusal_leaves_an_inplace_target_unchanged():
    names = _names()
    names["t"] = fg.zeros(4)
    with pytest.raises(IndexError):
        _run("t.index_add_(0, torch.tensor([1, -1]), torch.ones(2))", "torch", **names)
    np.testing.assert_array_equal(names["t"].numpy(), np.zeros(4, np.float32))


# where PyTorch itself counts from the end (index_fill_kernel, take_kernel, wrapIndexOnce)
TORCH_WRAPS = {
    "index_fill": ("out = torch.zeros(4).index_fill(0, neg, 1.0)", [0, 0, 0, 1]),
    "index_fill_": ("out = torch.zeros(4).index_fill_(0, neg, 1.0)", [0, 0, 0, 1]),
    "take": ("out = torch.take(x, neg)", [3]),
    "getitem": ("out = x[neg]", [3]),
    "index_put": ("out = torch.zeros(4).index_put((neg,), one)", [0, 0, 0, 1]),
    "select_scatter": (
        "out = torch.select_scatter(torch.zeros(4), torch.tensor(1.0), 0, -1)",
        [0, 0, 0, 1],
    ),
}


@pytest.mark.parametrize("name", sorted(TORCH_WRAPS))
def test_pytorch_code_keeps_negative_indices_where_pytorch_does(name):
    src, want = TORCH_WRAPS[name]
    np.testing.assert_array_equal(_run(src, "torch", **_names()).numpy(), want)


def test_pytorch_code_in_range_indices_are_unchanged():
    got = _run("out = torch.zeros(4).scatter_add(0, torch.tensor([3, 0, 3]), torch.ones(3))",
               "torch", **_names())  # fmt: skip
    np.testing.assert_array_equal(got.numpy(), [1, 0, 0, 2])
    got = _run("out = m.gather(1, torch.tensor([[3], [0]]))", "torch", **_names())
    np.testing.assert_array_equal(got.numpy(), [[3], [4]])
    # an empty index has nothing to check
    got = _run("out = x.index_select(0, torch.tensor([], dtype=torch.int64))", "torch", **_names())
    assert list(got.shape) == [0]


def test_pytorch_code_library_callers_that_pass_safe_indices_still_work():
    # losses mask ignore_index before gathering; padding_idx=-1 is normalised
    out = _run(
        "import ferrograd.nn.functional as F\n"
        "out = F.cross_entropy(torch.zeros([2, 3]), torch.tensor([1, -100]))\n",
        "torch",
    )
    assert math.isclose(float(out), math.log(3.0), rel_tol=1e-6)
    out = _run(
        "emb = torch.nn.Embedding(4, 2, padding_idx=-1)\nout = emb(torch.tensor([3, 0]))\n",
        "torch",
    )
    np.testing.assert_array_equal(out[0].detach().numpy(), [0.0, 0.0])


# Paddle 3.x takes [-size, size) in all of these
PADDLE_WRAPS = {
    "gather": ("out = paddle.gather(x, neg)", [3]),
    "gather_axis": ("out = paddle.gather(m, neg, axis=1)", [[3], [7]]),
    "index_select": ("out = paddle.index_select(x, neg)", [3]),
    "index_add": ("out = paddle.index_add(paddle.zeros([4]), neg, 0, one)", [0, 0, 0, 1]),
    "scatter": ("out = paddle.scatter(paddle.zeros([4]), neg, one)", [0, 0, 0, 1]),
    "take_along_axis": ("out = paddle.take_along_axis(x, neg, 0)", [3]),
    "put_along_axis": ("out = paddle.put_along_axis(paddle.zeros([4]), neg, 1.0, 0)", [0, 0, 0, 1]),
    "put_along_axis_add": (
        "out = paddle.put_along_axis(paddle.zeros([4]), neg, 1.0, 0, 'add')",
        [0, 0, 0, 1],
    ),
    # PyTorch's spelling in Paddle code: Paddle's rule
    "torch_form_gather": ("out = x.gather(0, neg)", [3]),
    "torch_form_scatter_add_": ("out = paddle.zeros([4]).scatter_add_(0, neg, one)", [0, 0, 0, 1]),
}


@pytest.mark.parametrize("name", sorted(PADDLE_WRAPS))
def test_paddle_code_counts_negative_indices_from_the_end(name):
    src, want = PADDLE_WRAPS[name]
    np.testing.assert_array_equal(_run(src, "paddle", **_names()).numpy(), want)


def test_paddle_code_still_refuses_indices_below_minus_size():
    names = _names()
    names["neg5"] = fg.tensor([-5])
    for src in ("out = paddle.gather(x, neg5)", "out = paddle.take_along_axis(x, neg5, 0)"):
        with pytest.raises(IndexError, match="-5"):
            _run(src, "paddle", **names)


def test_code_of_no_dialect_counts_negative_indices_from_the_end(no_aliases):
    names = _names()
    assert _run("out = fg.gather(x, 0, neg)", None, **names).tolist() == [3.0]
    assert _run("out = fg.zeros(4).scatter(0, neg, 1.0)", None, **names).tolist() == [0, 0, 0, 1]
    assert _run("out = x.index_select(0, neg)", None, **names).tolist() == [3.0]
    assert _run("out = fg.take_along_dim(x, neg, 0)", None, **names).tolist() == [3.0]


# --- 2. topk of a 0-d tensor with k=0 ----------------------------------------------------


def test_topk_of_a_0d_tensor_with_k0_regression():
    # topk_out_cpu: a 0-d input is copied, its index zeroed, for k = 0 as for k = 1
    for k in (0, 1):
        v, i = fg.topk(fg.tensor(3.0), k)
        assert v.ndim == 0 and i.ndim == 0 and float(v) == 3.0 and int(i) == 0
        v, i = fg.tensor(3.0).topk(k, largest=False)
        assert v.ndim == 0 and float(v) == 3.0 and int(i) == 0
    with pytest.raises(ValueError, match="k"):
        fg.topk(fg.tensor(3.0), 2)


# --- 3. fftfreq(0) / rfftfreq(0) ----------------------------------------------------------


def test_fftfreq_of_zero_points_regression(no_aliases):
    for dialect in ("torch", None):
        f = _run("out = fg.fft.fftfreq(0)", dialect)
        assert list(f.shape) == [0] and f.dtype == fg.float32
        r = _run("out = fg.fft.rfftfreq(0, dtype=fg.float64)", dialect)
        assert list(r.shape) == [1] and r.dtype == fg.float64 and math.isnan(float(r[0]))


def test_paddle_code_fftfreq_refuses_zero():
    for src in ("paddle.fft.fftfreq(0)", "paddle.fft.rfftfreq(0)", "paddle.fft.fftfreq(4, 0.0)"):
        with pytest.raises(ValueError, match="d or n should not be 0"):
            _run(src, "paddle")
    np.testing.assert_allclose(_run("out = paddle.fft.fftfreq(4)", "paddle").numpy(),
                               [0, 0.25, -0.5, -0.25])  # fmt: skip


def test_fftfreq_negative_sizes_are_still_refused():
    for f in (fg.fft.fftfreq, fg.fft.rfftfreq):
        with pytest.raises(ValueError, match="invalid number of data points"):
            f(-1)


# --- 4. stft of an integer signal ---------------------------------------------------------


def test_stft_refuses_an_integer_signal_regression():
    # SpectralOps.cpp stft: "expected a tensor of floating point or complex values"
    with pytest.raises(RuntimeError, match="floating point or complex"):
        fg.stft(fg.arange(64), 16, return_complex=True)
    with pytest.raises(RuntimeError, match="floating point or complex"):
        fg.arange(64).stft(16, return_complex=True)


def test_paddle_signal_stft_takes_an_integer_signal():
    got = fg.signal.stft(fg.arange(64), 16)
    want = fg.signal.stft(fg.arange(64).astype("float32"), 16)
    assert got.dtype == fg.complex64
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-5)


# --- 5. ChainedScheduler(CosineAnnealingLR, ExponentialLR) past T_max ---------------------


def _pytorch_chain(steps: int, t_max: int, gamma: float) -> list[float]:
    """PyTorch's recursive rates (lr_scheduler.py CosineAnnealingLR.get_lr, then
    ExponentialLR.get_lr on the rate it wrote), base_lr 1, eta_min 0."""
    lr, out = 1.0, []
    for e in range(1, steps + 1):
        if (e - 1 - t_max) % (2 * t_max) == 0:
            lr = lr + 1.0 * (1 - math.cos(math.pi / t_max)) / 2
        else:
            lr = (
                (1 + math.cos(math.pi * e / t_max)) / (1 + math.cos(math.pi * (e - 1) / t_max)) * lr
            )
        lr *= gamma
        out.append(lr)
    return out


def test_chained_cosine_then_exponential_past_t_max_regression():
    want = _pytorch_chain(8, 3, 0.9)
    assert [round(v, 6) for v in want[:4]] == [0.675, 0.2025, 0.0, 0.225]
    p = fg.zeros([1], requires_grad=True)
    o = fg.optim.SGD([p], lr=1.0)
    lrs = fg.optim.lr_scheduler
    s = lrs.ChainedScheduler([lrs.CosineAnnealingLR(o, T_max=3), lrs.ExponentialLR(o, 0.9)])
    got = []
    for _ in range(8):
        o.step()
        s.step()
        got.append(o.param_groups[0]["lr"])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_chained_cosine_with_eta_min_and_step_lr():
    """``eta_min != 0`` chains too (it used to be refused): PyTorch's recursion on the
    rate StepLR left, by hand (lr_scheduler.py CosineAnnealingLR.get_lr, StepLR.get_lr)."""
    t, eta, lr, want = 4, 0.1, 1.0, []
    for e in range(1, 13):
        if (e - 1 - t) % (2 * t) == 0:
            lr = lr + (1.0 - eta) * (1 - math.cos(math.pi / t)) / 2
        else:
            ratio = (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
            lr = ratio * (lr - eta) + eta
        if e % 3 == 0:
            lr *= 0.5
        want.append(lr)
    p = fg.zeros([1], requires_grad=True)
    o = fg.optim.SGD([p], lr=1.0)
    lrs = fg.optim.lr_scheduler
    s = lrs.ChainedScheduler(
        [lrs.CosineAnnealingLR(o, T_max=t, eta_min=eta), lrs.StepLR(o, 3, 0.5)]
    )
    got = []
    for _ in range(12):
        o.step()
        s.step()
        got.append(o.param_groups[0]["lr"])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
