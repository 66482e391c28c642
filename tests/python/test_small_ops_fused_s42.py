"""Session 42's small-op fast paths give exactly what the paths they replace gave.

* ``softmax`` / ``log_softmax`` run one fused row kernel (``src/kernels/softmax.rs``) on
  contiguous float32/float64 input, forward and (when no graph is recorded) backward; its
  results must be bit-identical to the composition it replaced (row max, ``x - max``,
  ``exp``, ``sum``, ``/ sum`` or ``- log(sum)``; backward ``y * (g - sum(g * y))`` and
  ``g - exp(y) * sum(g)``), written here with the public ops.
* PyTorch's ``max(x, dim)`` / ``min(x, dim)`` pair is one core call
  (``Tensor._extreme_pair``) doing what ``_shared_spellings._pair`` did in Python
  (argmax, ``take_along_axis``, squeezes): first index on ties, NaN's index where a line
  has one (PyTorch's ``max.dim`` CPU kernel, aten/src/ATen/native/cpu/ReduceOpsKernel.cpp
  / SharedReduceOps.h ``MaxOps``: NaN wins, ties keep the earlier index), gradient to the
  chosen element only.
"""

from __future__ import annotations

import ferrograd as torch
import numpy as np
import pytest

SHAPES_DIMS = [
    ((3, 5), 1),
    ((3, 5), 0),
    ((2, 40), 1),  # a contiguous row >= 32: the pairwise fold
    ((1, 5000), 1),  # past one pairwise block (4096)
    ((3, 4, 5), 0),
    ((3, 4, 5), 1),
    ((3, 4, 5), 2),
    ((4, 70, 3), 1),  # a long strided row: summed in order
    ((2, 1, 3), 1),  # a dim of length 1
    ((5, 1), 0),  # a dim of length 1 after: contiguous rows
    ((7,), 0),
]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 10).astype(dtype)
    flat = a.reshape(-1)
    if flat.size >= 12:  # a few special values in different rows
        flat[1], flat[5], flat[9] = np.inf, -np.inf, np.nan
    return a


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)  # NaN equals NaN here
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


def _composed(x, d, log):
    z = x - torch.amax(x, d, keepdim=True)
    if log:
        return z - z.exp().sum(d, keepdim=True).log()
    e = z.exp()
    return e / e.sum(d, keepdim=True)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,d", SHAPES_DIMS)
def test_fused_softmax_forward_is_bit_identical_to_the_composition(shape, d, dtype, log):
    x = torch.from_numpy(_data(shape, dtype))
    got = x.log_softmax(d) if log else x.softmax(d)
    _same_bits(got.numpy(), _composed(x, d, log).numpy())


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,d", SHAPES_DIMS)
def test_fused_softmax_backward_is_bit_identical_to_the_formula(shape, d, dtype, log):
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.standard_normal(shape).astype(dtype)).requires_grad_()
    g = rng.standard_normal(shape).astype(dtype)
    g.reshape(-1)[0] = -0.0  # the sign of a zero survives as in the formula
    y = x.log_softmax(d) if log else x.softmax(d)
    gt = torch.from_numpy(g)
    y.backward(gt)
    yd = y.detach()
    if log:
        want = gt - yd.exp() * gt.sum(d, keepdim=True)
    else:
        want = yd * (gt - (gt * yd).sum(d, keepdim=True))
    _same_bits(x.grad.numpy(), want.numpy())


@pytest.mark.parametrize("log", [False, True])
def test_non_contiguous_and_half_input_keep_their_values(log):
    # the composed path (transposed input) and the fused one agree on the same values
    a = _data((5, 6), np.float32)
    xt = torch.from_numpy(a).t()
    assert not xt.is_contiguous()
    f = (lambda t: t.log_softmax(1)) if log else (lambda t: t.softmax(1))
    _same_bits(f(xt).numpy(), f(xt.contiguous()).numpy())
    # float16 runs in float32 and rounds once (softmax) as before
    h = torch.from_numpy(a).to(torch.float16)
    got = f(h)
    assert got.dtype == torch.float16
    if not log:
        _same_bits(got.numpy(), f(h.float()).to(torch.float16).numpy())


@pytest.mark.parametrize("log", [False, True])
def test_second_order_gradient_still_runs_the_differentiable_formula(log):
    x = torch.from_numpy(np.random.default_rng(2).standard_normal((3, 4))).requires_grad_()
    for d in (0, 1):
        f = (lambda t, d=d: t.log_softmax(d)) if log else (lambda t, d=d: t.softmax(d))
        assert torch.autograd.gradcheck(f, (x,))
        assert torch.autograd.gradgradcheck(f, (x,))


def test_max_pair_first_index_on_ties_and_nan_and_gradient():
    m = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, float("nan"), 5.0, float("nan")]])
    m.requires_grad_()
    v, i = torch.max(m, 1)
    assert i.tolist() == [1, 1] and i.dtype == torch.int64
    assert v[0].item() == 3.0 and np.isnan(v[1].item())
    assert type(v.grad_fn).__name__ == "SqueezeBackward0"
    v.sum().backward()
    assert m.grad.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    vk, ik = torch.min(m.detach(), dim=0, keepdim=True)
    assert vk.shape == (1, 4) and ik.tolist() == [[0, 1, 0, 1]]
    # tuple-like result with names, as torch.return_types.max
    r = torch.max(m, -1)
    assert r.values.shape == (2,) and r.indices.shape == (2,)


def test_max_pair_errors_and_zero_dim():
    with pytest.raises(IndexError):
        torch.max(torch.ones(2, 3), 2)
    v, i = torch.max(torch.tensor(4.0), 0)
    assert v.item() == 4.0 and i.item() == 0 and i.shape == ()


# -- reductions without a plan: a contiguous tensor reduced over its last dims ------------
# The plan merges such dims into one unit-stride row and runs the inner kernel; the fast
# path folds the rows directly. Reducing a size-1-padded copy takes the planned path over
# the same rows, so the results must agree bit for bit.


@pytest.mark.parametrize("n", [5, 31, 32, 40, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_reduction_fast_path_matches_the_planned_one(n, dtype):
    a = (np.random.default_rng(3).standard_normal((3, n)) * 100).astype(dtype)
    x = torch.from_numpy(a)
    padded = x.reshape(3, n, 1)  # axis 1 is not trailing here: the planned path
    for op in ("sum", "amax", "amin"):
        fast, planned = getattr(x, op)(1), getattr(padded, op)(1).reshape(3)
        _same_bits(fast.numpy(), planned.numpy())
    flat = x.reshape(-1)
    _same_bits(flat.sum().numpy(), flat.reshape(-1, 1).sum(0).reshape([]).numpy())
    if dtype != np.int64:
        # the mean divides the sum as the division op does
        _same_bits(x.mean(1).numpy(), (x.sum(1) / n).numpy())
        _same_bits(x.mean().numpy(), (x.sum() / (3 * n)).numpy())


def test_mean_keeps_its_gradient_and_dtypes():
    x = torch.ones(2, 4, requires_grad=True)
    x.mean().backward()
    assert x.grad.tolist() == [[0.125] * 4] * 2
    assert torch.ones(3, dtype=torch.float16).mean().dtype == torch.float16
    assert torch.ones(2, 3, dtype=torch.complex64).mean(1).tolist() == [1, 1]


# -- cat / stack of contiguous tensors by plain copies --------------------------------------


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_cat_and_stack_copies_match_the_strided_path(dim):
    rng = np.random.default_rng(4)
    a = [torch.from_numpy(rng.standard_normal((2, 3, 4)).astype(np.float32)) for _ in range(3)]
    # transposed twice: the same values, not contiguous (the strided copies run)
    b = [t.transpose(0, 2).contiguous().transpose(0, 2) for t in a]
    assert not b[0].is_contiguous()
    _same_bits(torch.cat(a, dim).numpy(), torch.cat(b, dim).numpy())
    _same_bits(torch.stack(a, dim).numpy(), torch.stack(b, dim).numpy())
    _same_bits(torch.cat(a, dim).numpy(), np.concatenate([t.numpy() for t in a], dim))
    _same_bits(torch.stack(a, dim).numpy(), np.stack([t.numpy() for t in a], dim))


def test_cat_of_mixed_dtypes_the_same_tensor_twice_and_a_legacy_empty_piece():
    x = torch.tensor([1.0, 2.0])
    assert torch.cat([x, x]).tolist() == [1.0, 2.0, 1.0, 2.0]
    assert torch.cat([x, torch.tensor([3])]).tolist() == [1.0, 2.0, 3.0]
    m = torch.ones(2, 2)
    assert torch.cat([m, torch.zeros(0), m], 1).shape == (2, 4)
    g = torch.ones(2, 2, requires_grad=True)
    torch.cat([g, g * 2], 0).sum().backward()
    assert g.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]


# -- slice bounds read without calling __index__ for a plain int ----------------------------


def test_slice_bounds_of_every_integer_kind():
    x = torch.arange(8)
    assert x[1:5].tolist() == [1, 2, 3, 4]
    assert x[np.int64(2) : np.int32(4)].tolist() == [2, 3]
    assert x[True:3].tolist() == [1, 2]  # a bool is an int (its __index__)
    with pytest.raises(TypeError, match="slice indices must be integers"):
        x[1.5:3]
