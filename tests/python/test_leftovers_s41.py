"""Session 41: four gaps left open by session 40 — `nanmean` of integers, the string norms'
rank rules (`torch.norm`, `linalg.norm`, `linalg.matrix_norm`), `torch.segment_reduce`,
and var/std over one element in each dialect. Dialect-dependent calls run in a small
module that names ferrograd `torch` or `paddle` (docs/dialects.md)."""

from __future__ import annotations

import sys
import warnings

import ferrograd as fg
import numpy as np
import pytest


def _run(src: str, dialect: str | None, **names):
    """Run ``src`` in a user module naming ferrograd ``dialect`` (None: ``fg`` only)."""
    g = {"__name__": "user_script", "fg": fg, **names}
    if dialect is not None:
        g[dialect] = fg
    exec(compile(src, "<user_script>", "exec"), g)
    return g


@pytest.fixture
def no_aliases():
    """No process-wide ``torch`` / ``paddle`` alias, so only the module's names count."""
    saved = {k: sys.modules.pop(k) for k in ("torch", "paddle") if k in sys.modules}
    yield
    for k in ("torch", "paddle"):
        sys.modules.pop(k, None)
    sys.modules.update(saved)


# ---------------------------------------------------------------------------------------
# 1. nanmean of an integer tensor


@pytest.mark.parametrize("src", ["torch.nanmean(x)", "x.nanmean(0)", "torch.nanmean(b)"])
def test_nanmean_of_integers_raises_in_torch_code_regression(no_aliases, src):
    # PyTorch: aten/src/ATen/native/ReduceOps.cpp `nanmean` checks the input's dtype
    # (`self.is_floating_point() || self.is_complex()`), even with dtype= given
    pre = "x = torch.tensor([[1, 2], [4, 7]]); b = torch.tensor([True, False]); "
    with pytest.raises(TypeError, match="nanmean.*floating point or complex"):
        _run(pre + "y = " + src, "torch")
    with pytest.raises(TypeError, match="nanmean"):
        _run(pre + "y = torch.nanmean(x, dtype=torch.float64)", "torch")


def test_nanmean_of_integers_is_the_float_mean_in_paddle_code(no_aliases):
    # Paddle 3.3.1: python/paddle/tensor/math.py `nanmean` calls check_variable_and_dtype,
    # which returns at once in dynamic mode (base/data_feeder.py `check_dtype`, "Why skip
    # dynamic graph check"); nansum / count then divide, a float result
    for dialect in ("paddle", None):
        src = "x = fg.to_tensor([[1, 2], [4, 7]], dtype='int32'); y = x.nanmean(); z = x.nanmean(1)"
        g = _run(src, dialect)
        assert g["y"].dtype == fg.float32 and g["y"].item() == 3.5
        assert g["z"].tolist() == [1.5, 5.5]
    # floats are unchanged in PyTorch code
    g = _run("y = torch.tensor([1.0, float('nan'), 3.0]).nanmean()", "torch", no=None)
    assert g["y"].item() == 2.0


# ---------------------------------------------------------------------------------------
# 2. the string norms and the rank of the input


def _nuc(a: np.ndarray) -> np.ndarray:
    return np.linalg.svd(a, compute_uv=False).sum(-1)


def test_norm_nuc_without_dim_needs_a_matrix_regression():
    # torch/functional.py `norm`: a string p other than 'fro' goes to
    # linalg.matrix_norm(input, p, list(range(ndim))), which needs exactly two dims
    x3 = fg.randn(2, 3, 4, dtype=fg.float64)
    with pytest.raises(ValueError, match="2-D"):
        fg.norm(x3, "nuc")
    with pytest.raises(ValueError, match="2-D"):
        x3.norm(p="nuc")
    with pytest.raises(ValueError):
        fg.norm(fg.randn(4, dtype=fg.float64), "nuc")
    with pytest.raises(ValueError, match="two dims"):
        fg.norm(x3, "nuc", dim=1)  # one dim: not a matrix norm
    with pytest.raises(ValueError, match="two dims"):
        fg.norm(x3, "fro", dim=(0, 1, 2))  # 'fro' over three dims goes to matrix_norm


def test_norm_nuc_batched_values():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4))
    x = fg.tensor(a)
    np.testing.assert_allclose(fg.norm(x, "nuc", dim=(1, 2)).numpy(), _nuc(a), rtol=1e-12)
    np.testing.assert_allclose(
        fg.norm(x, "nuc", dim=(0, 2)).numpy(), _nuc(a.transpose(1, 0, 2)), rtol=1e-12
    )
    k = fg.norm(x, "nuc", dim=(1, 2), keepdim=True)
    assert k.shape == (2, 1, 1)
    np.testing.assert_allclose(fg.norm(x[0], "nuc").item(), _nuc(a[0]), rtol=1e-12)
    # 'fro' with no dim / one / two dims is the 2-norm over them, any rank
    np.testing.assert_allclose(fg.norm(x, "fro").item(), np.sqrt((a * a).sum()), rtol=1e-12)
    np.testing.assert_allclose(
        fg.norm(x, "fro", dim=(0, 2)).numpy(), np.sqrt((a * a).sum((0, 2))), rtol=1e-12
    )
    m = fg.linalg.matrix_norm(x, "nuc")  # dim=(-2, -1), batched
    np.testing.assert_allclose(m.numpy(), _nuc(a), rtol=1e-12)


def test_linalg_norm_string_ord_without_dim_needs_1d_or_2d_regression():
    # aten LinearAlgebra.cpp `linalg_norm` (string ord): without dim the input must be 1-D
    # or 2-D, and the matrix norm over (0, 1) then needs 2-D (checkIsMatrix)
    x3 = fg.randn(2, 3, 4, dtype=fg.float64)
    for ord in ("nuc", "fro"):
        with pytest.raises(ValueError, match="1-D or 2-D"):
            fg.linalg.norm(x3, ord)
        with pytest.raises(ValueError):
            fg.linalg.norm(fg.randn(5, dtype=fg.float64), ord)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        fg.linalg.norm(x3, 2)  # numeric ord, no dim, 3-D: the same check
    with pytest.raises(ValueError, match="1 or 2"):
        fg.linalg.norm(x3, None, dim=(0, 1, 2))


def test_linalg_norm_values_follow_each_rule():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4))
    x = fg.tensor(a)
    ln = fg.linalg.norm
    np.testing.assert_allclose(ln(x).item(), np.sqrt((a * a).sum()), rtol=1e-12)
    np.testing.assert_allclose(ln(x, "nuc", dim=(1, 2)).numpy(), _nuc(a), rtol=1e-12)
    np.testing.assert_allclose(ln(x, 2, dim=(1, 2)).numpy(), np.linalg.norm(a, 2, (1, 2)))
    np.testing.assert_allclose(ln(x, 3, dim=1).numpy(), np.linalg.norm(a, 3, 1), rtol=1e-12)
    np.testing.assert_allclose(ln(x, 3, dim=[1]).numpy(), np.linalg.norm(a, 3, 1), rtol=1e-12)
    np.testing.assert_allclose(ln(x[0], 1).item(), np.linalg.norm(a[0], 1), rtol=1e-12)
    np.testing.assert_allclose(ln(x[0, 0], 1).item(), np.abs(a[0, 0]).sum(), rtol=1e-12)
    np.testing.assert_allclose(ln(x[0], "fro").item(), np.linalg.norm(a[0]), rtol=1e-12)
    # Paddle's keywords: axis=None is the vector norm of everything, two axes a matrix norm
    np.testing.assert_allclose(ln(x, p="fro").item(), np.sqrt((a * a).sum()), rtol=1e-12)
    np.testing.assert_allclose(ln(x, p="fro", axis=1).numpy(), np.linalg.norm(a, 2, 1))
    np.testing.assert_allclose(ln(x, p="nuc", axis=[1, 2]).numpy(), _nuc(a), rtol=1e-12)
    with pytest.raises(ValueError, match="needs a matrix"):
        ln(x, p="nuc")


def test_nuc_norm_gradient_batched():
    a = fg.tensor(np.random.default_rng(2).standard_normal((2, 3, 3)), requires_grad=True)
    assert fg.autograd.gradcheck(lambda t: fg.linalg.matrix_norm(t, "nuc"), (a,))
    assert fg.autograd.gradcheck(lambda t: fg.norm(t, "nuc", dim=(0, 2)), (a,))


# ---------------------------------------------------------------------------------------
# 3. torch.segment_reduce


def _segment_reference(data, reduce, bounds, axis, initial):
    """A NumPy loop over PyTorch's kernel rules (SegmentReduce.cpp
    `_segment_reduce_lengths_cpu_kernel1`): bounds [B..., S + 1]."""
    batch = data.shape[:axis]
    s = bounds.shape[-1] - 1
    out = np.empty(batch + (s,) + data.shape[axis + 1 :])
    for b in np.ndindex(*batch):
        for i in range(s):
            lo, hi = bounds[b + (i,)], bounds[b + (i + 1,)]
            seg = data[b][lo:hi]
            start = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}
            v = np.full(data.shape[axis + 1 :], start[reduce] if initial is None else initial)
            for row in seg:
                if reduce in ("sum", "mean"):
                    v = v + row
                elif reduce == "prod":
                    v = v * row
                else:
                    f = np.maximum if reduce == "max" else np.minimum
                    v = np.where(np.isnan(row), row, f(v, row))
            if reduce == "mean":
                v = np.full_like(v, np.nan if initial is None else initial) if hi == lo else v
                v = v / (hi - lo) if hi > lo else v
            out[b + (i,)] = v
    return out


REDUCES = ["sum", "mean", "prod", "max", "min"]


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("initial", [None, 0.5])
def test_segment_reduce_lengths_axis0_values(reduce, initial):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((7, 3))
    lengths = np.array([2, 0, 4, 1])
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    got = fg.segment_reduce(fg.tensor(a), reduce, lengths=fg.tensor(lengths), initial=initial)
    want = _segment_reference(a, reduce, bounds, 0, initial)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    assert got.dtype == fg.float64


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_batched_axis_and_offsets(reduce):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 6, 2))
    lengths = np.array([[1, 3, 0, 2], [0, 0, 6, 0]])
    got = fg.segment_reduce(fg.tensor(a), reduce, lengths=fg.tensor(lengths), axis=1)
    bounds = np.concatenate([np.zeros((2, 1), int), np.cumsum(lengths, -1)], -1)
    np.testing.assert_allclose(got.numpy(), _segment_reference(a, reduce, bounds, 1, None))
    # offsets need not start at 0 nor end at the size: the rest is left out
    offsets = np.array([[1, 3, 3, 5], [0, 2, 6, 6]])
    got = fg.segment_reduce(fg.tensor(a), reduce, offsets=fg.tensor(offsets), axis=-2)
    assert got.shape == (2, 3, 2)
    np.testing.assert_allclose(got.numpy(), _segment_reference(a, reduce, offsets, 1, None))


def test_segment_reduce_nan_and_empty_rules():
    nan = float("nan")
    d = fg.tensor([1.0, nan, 3.0, 2.0], dtype=fg.float64)
    L = fg.tensor([2, 0, 2])
    assert np.isnan(fg.segment_reduce(d, "max", lengths=L)[0].item())
    assert fg.segment_reduce(d, "max", lengths=L).tolist()[1:] == [-np.inf, 3.0]
    assert fg.segment_reduce(d, "min", lengths=L).tolist()[1:] == [np.inf, 2.0]
    assert fg.segment_reduce(d, "prod", lengths=L).tolist()[1:] == [1.0, 6.0]
    assert fg.segment_reduce(d, "sum", lengths=L).tolist()[1:] == [0.0, 5.0]
    m = fg.segment_reduce(d, "mean", lengths=L).tolist()
    assert np.isnan(m[1]) and m[2] == 2.5
    assert fg.segment_reduce(d, "mean", lengths=L, initial=4.0).tolist()[1:] == [4.0, 4.5]
    assert fg.segment_reduce(d, "max", lengths=L, initial=9.0).tolist()[1:] == [9.0, 9.0]


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_reduce_gradcheck(reduce):
    rng = np.random.default_rng(5)
    a = fg.tensor(rng.standard_normal((2, 5, 2)) + 2.0, requires_grad=True)
    lengths = fg.tensor([[2, 0, 3], [1, 4, 0]])
    # an empty segment without initial is NaN (mean) or +-inf (max/min): finite-difference
    # checks need initial there
    init = None if reduce in ("sum", "prod") else 0.25
    f = lambda t: fg.segment_reduce(t, reduce, lengths=lengths, axis=1, initial=init)  # noqa: E731
    assert fg.autograd.gradcheck(f, (a,))
    if reduce != "prod":
        assert fg.autograd.gradgradcheck(f, (a,))
    else:  # scatter_reduce's prod backward is once-differentiable: a clear refusal
        # (PyTorch's _segment_reduce_backward has no derivative at all)
        with pytest.raises(RuntimeError, match="differentiate twice"):
            fg.autograd.gradgradcheck(f, (a,))
    g = lambda t: fg.segment_reduce(t, reduce, offsets=fg.tensor([1, 2, 5]), initial=1.5)  # noqa: E731
    assert fg.autograd.gradcheck(g, (fg.tensor(a.detach().numpy()[0], requires_grad=True),))


def test_segment_reduce_max_tie_gradient_is_shared():
    # SegmentReduce.cpp backward: every element equal to the result (or NaN) gets the
    # gradient, divided by their count; a result that is `initial` alone passes nothing
    d = fg.tensor([3.0, 1.0, 3.0, 2.0, 5.0], dtype=fg.float64, requires_grad=True)
    out = fg.segment_reduce(d, "max", lengths=fg.tensor([3, 2]), initial=4.0)
    assert out.tolist() == [4.0, 5.0]
    (g,) = fg.autograd.grad((out * fg.tensor([2.0, 3.0], dtype=fg.float64)).sum(), d)
    assert g.tolist() == [0.0, 0.0, 0.0, 0.0, 3.0]
    out = fg.segment_reduce(d, "max", lengths=fg.tensor([3, 2]))
    (g,) = fg.autograd.grad((out * fg.tensor([2.0, 3.0], dtype=fg.float64)).sum(), d)
    assert g.tolist() == [1.0, 0.0, 1.0, 0.0, 3.0]
    (p,) = fg.autograd.grad(fg.segment_reduce(d, "prod", lengths=fg.tensor([5])).sum(), d)
    np.testing.assert_allclose(p.numpy(), 90.0 / np.array([3.0, 1.0, 3.0, 2.0, 5.0]))


def test_segment_reduce_refusals():
    d = fg.randn(5, dtype=fg.float64)
    with pytest.raises(ValueError, match="sum to"):
        fg.segment_reduce(d, "sum", lengths=fg.tensor([2, 2]))
    assert fg.segment_reduce(d, "sum", lengths=fg.tensor([2, 2]), unsafe=True).shape == (2,)
    with pytest.raises(ValueError, match="sum to"):
        fg.segment_reduce(d, "sum", lengths=fg.tensor([4, 2]), unsafe=True)
    with pytest.raises(ValueError, match="negative"):
        fg.segment_reduce(d, "sum", lengths=fg.tensor([6, -1]))
    with pytest.raises(ValueError, match="non-decreasing"):
        fg.segment_reduce(d, "sum", offsets=fg.tensor([0, 3, 2]))
    with pytest.raises(ValueError, match="non-decreasing"):
        fg.segment_reduce(d, "sum", offsets=fg.tensor([0, 6]))
    with pytest.raises(ValueError, match="Either lengths or offsets"):
        fg.segment_reduce(d, "sum")
    with pytest.raises(ValueError, match="reduce must be"):
        fg.segment_reduce(d, "median", lengths=fg.tensor([5]))
    with pytest.raises(TypeError, match="floating-point"):
        fg.segment_reduce(fg.tensor([1, 2]), "sum", lengths=fg.tensor([2]))
    with pytest.raises(ValueError, match="last dimension of lengths"):
        fg.segment_reduce(fg.randn(2, 3), "sum", lengths=fg.tensor([3]), axis=1)
    with pytest.raises(NotImplementedError):
        fg.segment_reduce(d, "sum", indices=fg.tensor([0]))


# ---------------------------------------------------------------------------------------
# 4. unbiased var / std over one element


def test_var_std_of_one_element_follow_each_peer(no_aliases):
    # PyTorch: NaN with "degrees of freedom is <= 0" (ReduceOps.cpp
    # warn_invalid_degrees_of_freedom); Paddle 3.3.1: stat.py `var` divides by
    # where(n > 1, n - 1, 1), so 0
    src = "a = x.var(); b = x.std(); c = m.std(1); d = x.var(correction=0)"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = _run("x = torch.tensor([3.0]); m = torch.ones(2, 1); " + src, "torch")
    assert all(np.isnan(g[k].item()) for k in "ab") and np.isnan(g["c"].numpy()).all()
    assert g["d"].item() == 0.0
    msgs = [str(i.message) for i in w]
    assert sum("degrees of freedom is <= 0" in m for m in msgs) == 3
    assert any(m.startswith("var():") for m in msgs) and any(m.startswith("std():") for m in msgs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = _run("x = paddle.to_tensor([3.0]); m = paddle.ones([2, 1]); " + src, "paddle")
    assert g["a"].item() == 0.0 and g["b"].item() == 0.0 and g["c"].tolist() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = _run("x = fg.to_tensor([3.0]); m = fg.ones([2, 1]); " + src, None)
    assert np.isnan(g["a"].item())  # no dialect: NaN, quietly
