"""Shape and layout ops (flip, roll, rot90, tile / repeat, repeat_interleave, tril /
triu, diag, diag_embed, diagonal, trace, narrow, movedim, swapaxes, unflatten, unstack,
meshgrid, broadcast_tensors) against NumPy float64, with gradcheck / gradgradcheck,
both dialects' spellings, edge cases and bad input."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(7)
A = RNG.standard_normal((2, 3, 4))


def t64(a, grad=False):
    return fg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def grads_ok(fn, *arrays):
    ins = tuple(t64(a, True) for a in arrays)
    assert gradcheck(fn, ins)
    assert gradgradcheck(fn, ins)


def test_flip_roll_rot90():
    x = t64(A)
    np.testing.assert_array_equal(fg.flip(x, [0, -1]).numpy(), np.flip(A, (0, 2)))
    np.testing.assert_array_equal(x.flip(1).numpy(), np.flip(A, 1))
    np.testing.assert_array_equal(fg.flip(x, axis=[1]).numpy(), np.flip(A, 1))
    np.testing.assert_array_equal(x.flip(0, 2).numpy(), np.flip(A, (0, 2)))
    np.testing.assert_array_equal(fg.roll(x, 5, 2).numpy(), np.roll(A, 5, 2))
    np.testing.assert_array_equal(fg.roll(x, -7).numpy(), np.roll(A, -7))
    np.testing.assert_array_equal(
        fg.roll(x, (1, -2), axis=(0, 2)).numpy(), np.roll(A, (1, -2), (0, 2))
    )
    for k in range(-4, 5):
        np.testing.assert_array_equal(fg.rot90(x, k, [1, 2]).numpy(), np.rot90(A, k, (1, 2)))
    np.testing.assert_array_equal(x.rot90(axes=[0, 2]).numpy(), np.rot90(A, 1, (0, 2)))
    grads_ok(lambda a: fg.roll(a.flip(1), 2, 1).rot90(1, [0, 2]), A)
    # a flip is a copy, not a view
    y = x.flip(0)
    y[0] = 0.0
    assert x.numpy()[1].any()
    with pytest.raises(ValueError, match="more than once"):
        x.flip(0, 0)
    with pytest.raises(IndexError):
        x.flip(3)
    assert fg.flip(t64(2.0), []).item() == 2.0
    assert list(fg.roll(t64(np.zeros((0, 2))), 3, 0).shape) == [0, 2]


def test_tile_repeat_repeat_interleave():
    x = t64(A)
    np.testing.assert_array_equal(fg.tile(x, [2, 1, 1, 3]).numpy(), np.tile(A, (2, 1, 1, 3)))
    np.testing.assert_array_equal(x.tile(2).numpy(), np.tile(A, 2))
    np.testing.assert_array_equal(fg.tile(x, repeat_times=[2, 1, 1]).numpy(), np.tile(A, (2, 1, 1)))
    np.testing.assert_array_equal(x.repeat(1, 2, 1).numpy(), np.tile(A, (1, 2, 1)))
    np.testing.assert_array_equal(x.repeat([2, 1, 1, 2]).numpy(), np.tile(A, (2, 1, 1, 2)))
    with pytest.raises(ValueError, match="at least"):
        x.repeat(2)
    np.testing.assert_array_equal(fg.repeat_interleave(x, 2, 1).numpy(), np.repeat(A, 2, 1))
    np.testing.assert_array_equal(x.repeat_interleave(3).numpy(), np.repeat(A, 3))
    counts = [2, 0, 1, 3]
    np.testing.assert_array_equal(
        fg.repeat_interleave(x, fg.tensor(counts), axis=-1).numpy(), np.repeat(A, counts, -1)
    )
    np.testing.assert_array_equal(fg.repeat_interleave(fg.tensor([1, 2])).numpy(), [0, 1, 1])
    with pytest.raises(ValueError, match="repeat counts"):
        fg.repeat_interleave(x, fg.tensor([1, 2]), 2)
    with pytest.raises(ValueError, match="non-negative"):
        fg.repeat_interleave(x, -1)
    assert list(fg.tile(t64(1.0), [0, 2]).shape) == [0, 2]
    grads_ok(lambda a: fg.repeat_interleave(a.tile([1, 2, 1]), fg.tensor([1, 0, 2, 1]), 2), A)


@pytest.mark.parametrize("k", [-3, -1, 0, 2, 9])
def test_tril_triu(k):
    x = t64(A)
    np.testing.assert_array_equal(fg.tril(x, k).numpy(), np.tril(A, k))
    np.testing.assert_array_equal(x.triu(diagonal=k).numpy(), np.triu(A, k))
    y = x * 1.0
    y.tril_(k)
    np.testing.assert_array_equal(y.numpy(), np.tril(A, k))
    grads_ok(lambda a: fg.triu(a, k) + fg.tril(a * a, k), A)
    with pytest.raises(ValueError, match="at least 2"):
        fg.tril(t64([1.0]))


@pytest.mark.parametrize("k", [-2, 0, 1, 4])
def test_diag_diagonal_diag_embed_trace(k):
    m = A[0]
    v = A[0, 0]
    np.testing.assert_array_equal(fg.diag(t64(m), k).numpy(), np.diag(m, k))
    np.testing.assert_array_equal(t64(v).diag(k).numpy(), np.diag(v, k))
    got = fg.diag(t64(v), offset=k, padding_value=-1.0).numpy()
    want = np.diag(v, k) + np.where(np.diag(np.ones(4), k) == 0, -1.0, 0.0)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fg.diag(t64(v), k, -1.0).numpy(), want)  # Paddle order
    np.testing.assert_array_equal(fg.diagonal(t64(A), k, 1, 2).numpy(), np.diagonal(A, k, 1, 2))
    np.testing.assert_array_equal(
        t64(A).diagonal(offset=k, axis1=-1, axis2=0).numpy(), np.diagonal(A, k, 2, 0)
    )
    emb = fg.diag_embed(t64(A), k).numpy()
    want = np.zeros(A.shape[:-1] + (4 + abs(k),) * 2)
    for i in range(2):
        for j in range(3):
            want[i, j] = np.diag(A[i, j], k)
    np.testing.assert_array_equal(emb, want)
    np.testing.assert_array_equal(
        fg.diag_embed(t64(A), k, 0, 2).numpy(), np.moveaxis(want, (2, 3), (0, 2))
    )
    np.testing.assert_allclose(fg.trace(t64(m)).numpy(), np.trace(m))
    np.testing.assert_allclose(fg.trace(t64(A), k, 1, 2).numpy(), np.trace(A, k, 1, 2))
    grads_ok(lambda a: fg.diag_embed(fg.diagonal(a, k, 0, 2), k).sum(0) + fg.trace(a[0]), A)
    grads_ok(lambda a: fg.diag(a[0, 0], k), A)


def test_narrow_movedim_swapaxes_unflatten_unstack():
    x = t64(A)
    np.testing.assert_array_equal(x.narrow(2, 1, 2).numpy(), A[:, :, 1:3])
    np.testing.assert_array_equal(fg.narrow(x, -2, fg.tensor(-2), 2).numpy(), A[:, 1:3])
    with pytest.raises(IndexError, match="narrow"):
        x.narrow(0, 1, 2)
    np.testing.assert_array_equal(fg.movedim(x, 0, -1).numpy(), np.moveaxis(A, 0, -1))
    np.testing.assert_array_equal(
        fg.moveaxis(x, [0, 1], [2, 0]).numpy(), np.moveaxis(A, [0, 1], [2, 0])
    )
    np.testing.assert_array_equal(x.swapaxes(0, 2).numpy(), np.swapaxes(A, 0, 2))
    np.testing.assert_array_equal(fg.swapdims(x, -1, 1).numpy(), np.swapaxes(A, 2, 1))
    np.testing.assert_array_equal(x.unflatten(2, [2, -1]).numpy(), A.reshape(2, 3, 2, 2))
    np.testing.assert_array_equal(
        fg.unflatten(x, axis=1, shape=[3, 1]).numpy(), A.reshape(2, 3, 1, 4)
    )
    parts = fg.unstack(x, axis=1)
    assert len(parts) == 3
    np.testing.assert_array_equal(parts[1].numpy(), A[:, 1])
    with pytest.raises(ValueError, match="num"):
        fg.unstack(x, 0, num=3)
    with pytest.raises(ValueError, match="more than once"):
        fg.movedim(x, [0, 0], [1, 2])
    grads_ok(lambda a: fg.movedim(a.narrow(1, 1, 2), 0, 2).unflatten(0, [1, 2]).swapaxes(0, 3), A)


def test_meshgrid_and_broadcast_tensors():
    a, b, c = np.arange(3.0), np.arange(2.0), np.array([7.0])
    for indexing in ("ij", "xy"):
        got = fg.meshgrid(t64(a), t64(b), t64(c), indexing=indexing)
        want = np.meshgrid(a, b, c, indexing=indexing)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    got = fg.meshgrid([t64(a), t64(b)])  # Paddle: one list
    np.testing.assert_array_equal(got[0].numpy(), np.meshgrid(a, b, indexing="ij")[0])
    with pytest.raises(ValueError, match="indexing"):
        fg.meshgrid(t64(a), indexing="yx")
    x, y = fg.broadcast_tensors(t64(np.ones((3, 1))), t64(np.arange(4.0)))
    assert list(x.shape) == list(y.shape) == [3, 4]
    x, y = fg.broadcast_tensors([t64(2.0), t64(np.zeros((0, 2)))])
    assert list(x.shape) == [0, 2]
    with pytest.raises(ValueError, match="do not broadcast"):
        fg.broadcast_tensors(t64(np.ones(3)), t64(np.ones(4)))

    def fn(p, q):
        u, v = fg.meshgrid(p, q, indexing="xy")
        s, w = fg.broadcast_tensors(u * v, q.unsqueeze(1))
        return s * w

    grads_ok(fn, a, b)
