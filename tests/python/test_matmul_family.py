"""The matmul family: addmm, baddbmm, addmv, mv, ger, inner, kron, tensordot,
chain_matmul, cross, cdist — values against NumPy in float64 (broadcast, 0-size),
gradcheck and gradgradcheck, both dialects' names, and clear errors for bad shapes."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(23)


def t(*shape, grad=False):
    return fg.tensor(RNG.standard_normal(shape), requires_grad=grad)


def close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-10)


def _gg(fn, *xs):
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


def test_addmm_baddbmm_addmv_mv_values_and_grads():
    inp, a, b = t(3), t(2, 4), t(4, 3)
    close(
        fg.addmm(inp, a, b, beta=0.5, alpha=2.0).numpy(),
        0.5 * inp.numpy() + 2 * a.numpy() @ b.numpy(),
    )
    close(inp.addmm(a, b).numpy(), inp.numpy() + a.numpy() @ b.numpy())
    nan_inp = fg.tensor(np.full((2, 3), np.nan))
    close(fg.addmm(nan_inp, a, b, beta=0).numpy(), a.numpy() @ b.numpy())  # beta=0 ignores input
    bi, b1, b2 = t(2, 3, 5), t(2, 3, 4), t(2, 4, 5)
    close(fg.baddbmm(bi, b1, b2, alpha=3).numpy(), bi.numpy() + 3 * b1.numpy() @ b2.numpy())
    m, v, iv = t(3, 4), t(4), t(3)
    close(fg.mv(m, v).numpy(), m.numpy() @ v.numpy())
    close(fg.addmv(iv, m, v, beta=2).numpy(), 2 * iv.numpy() + m.numpy() @ v.numpy())
    close(fg.mv(fg.zeros(0, 4, dtype=fg.float64), v).numpy(), np.zeros(0))
    g = [x.detach().requires_grad_() for x in (inp, a, b)]
    _gg(lambda i, x, y: fg.addmm(i, x, y, beta=0.5, alpha=2.0), *g)
    _gg(lambda i, x, y: fg.baddbmm(i, x, y), *[x.detach().requires_grad_() for x in (bi, b1, b2)])
    _gg(fg.mv, m.detach().requires_grad_(), v.detach().requires_grad_())


def test_paddle_spellings():
    import ferrograd as paddle

    inp, x, y = t(2, 3), t(2, 4), t(4, 3)
    close(paddle.addmm(inp, x, y, 0.5, 2.0).numpy(), 0.5 * inp.numpy() + 2 * x.numpy() @ y.numpy())
    close(paddle.addmm(input=inp, x=x, y=y).numpy(), inp.numpy() + x.numpy() @ y.numpy())
    close(paddle.mv(x=x, vec=t(4)).shape, [2])
    close(paddle.kron(x=t(2), y=t(3)).shape, [6])
    close(paddle.tensordot(x=t(2, 3), y=t(3, 4), axes=1).shape, [2, 4])
    close(paddle.cdist(x=t(3, 2), y=t(4, 2)).shape, [3, 4])
    close(paddle.cross(x=t(3, 2), y=t(3, 2), axis=0).shape, [3, 2])


def test_ger_inner_kron_tensordot_chain_matmul():
    a, b = t(3), t(4)
    close(fg.ger(a, b).numpy(), np.outer(a.numpy(), b.numpy()))
    x, y = t(2, 3), t(4, 3)
    close(fg.inner(x, y).numpy(), np.inner(x.numpy(), y.numpy()))
    close(fg.inner(t(3), t(3)).shape, [])
    s = fg.tensor(2.0, dtype=fg.float64)
    close(fg.inner(s, x).numpy(), 2 * x.numpy())
    for sa, sb in [((2, 3), (4, 5)), ((2,), (3, 4)), ((2, 1, 3), (2, 2)), ((), ())]:
        p, q = t(*sa), t(*sb)
        close(fg.kron(p, q).numpy(), np.kron(p.numpy(), q.numpy()))
    p, q = t(2, 3, 4), t(3, 4, 5)
    close(fg.tensordot(p, q).numpy(), np.tensordot(p.numpy(), q.numpy()))
    close(
        fg.tensordot(p, q, dims=([1], [0])).numpy(),
        np.tensordot(p.numpy(), q.numpy(), axes=([1], [0])),
    )
    close(fg.tensordot(p, q, 0).shape, [2, 3, 4, 3, 4, 5])
    m1, m2, m3 = t(2, 3), t(3, 4), t(4, 2)
    close(fg.chain_matmul(m1, m2, m3).numpy(), m1.numpy() @ m2.numpy() @ m3.numpy())
    _gg(fg.kron, t(2, 3, grad=True), t(2, 2, grad=True))
    _gg(fg.inner, t(2, 3, grad=True), t(4, 3, grad=True))
    _gg(lambda u, w: fg.tensordot(u, w, 2), t(2, 3, 4, grad=True), t(3, 4, 2, grad=True))


def test_cross_dims_and_broadcast():
    a, b = t(4, 3), t(4, 3)
    close(fg.cross(a, b).numpy(), np.cross(a.numpy(), b.numpy()))
    c, d = t(3, 5), t(3, 1)
    close(fg.cross(c, d, dim=0).numpy(), np.cross(c.numpy(), d.numpy(), axis=0))
    # no dim: the first dim of size 3 (torch.cross; Paddle's default axis=9 too)
    e, f = t(2, 3, 3), t(2, 3, 3)
    close(fg.cross(e, f).numpy(), np.cross(e.numpy(), f.numpy(), axis=1))
    close(fg.cross(e, f, axis=9).numpy(), np.cross(e.numpy(), f.numpy(), axis=1))
    close(fg.linalg.cross(e, f).numpy(), np.cross(e.numpy(), f.numpy(), axis=-1))
    close(e.cross(f, dim=-1).numpy(), np.cross(e.numpy(), f.numpy(), axis=-1))
    _gg(lambda u, w: fg.cross(u, w, dim=1), t(2, 3, grad=True), t(2, 3, grad=True))
    with pytest.raises(ValueError, match="size 3"):
        fg.cross(t(2, 4), t(2, 4))
    with pytest.raises(ValueError, match="size 3"):
        fg.cross(t(3, 4), t(3, 4), dim=1)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf")])
@pytest.mark.parametrize("rows", [4, 30])
def test_cdist_matches_numpy(p, rows):
    x1, x2 = t(2, rows, 3), t(2, 5, 3)
    diff = x1.numpy()[:, :, None, :] - x2.numpy()[:, None, :, :]
    want = np.linalg.norm(diff, ord=p, axis=-1) if p != 0 else (diff != 0).sum(-1).astype(float)
    np.testing.assert_allclose(fg.cdist(x1, x2, p=p).numpy(), want, rtol=1e-9, atol=1e-9)


def test_cdist_gradients_and_zero_distance():
    x1, x2 = t(4, 3, grad=True), t(5, 3, grad=True)
    _gg(fg.cdist, x1, x2)
    _gg(lambda u, w: fg.cdist(u, w, compute_mode="use_mm_for_euclid_dist"), x1, x2)
    _gg(lambda u, w: fg.cdist(u, w, p=3.0), x1, x2)
    same = fg.tensor(np.ones((2, 3)), requires_grad=True)
    fg.cdist(same, same.detach()).sum().backward()
    close(same.grad.numpy(), np.zeros((2, 3)))


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: fg.addmm(t(2, 3), t(2, 4), t(3, 3)), r"\[n, m\] and \[m, p\]"),
        (lambda: fg.addmm(t(5, 3), t(2, 4), t(4, 3)), "not broadcast"),
        (lambda: fg.baddbmm(t(2, 3, 3), t(2, 3, 4), t(3, 4, 3)), r"\[b, n, m\]"),
        (lambda: fg.mv(t(2, 3), t(4)), "vector"),
        (lambda: fg.inner(t(2, 3), t(2, 4)), "last dims"),
        (lambda: fg.tensordot(t(2, 3), t(4, 5), 1), "cannot contract"),
        (lambda: fg.cdist(t(3, 2), t(3, 4)), r"\[\.\.\., P, M\]"),
        (lambda: fg.cdist(t(3, 2), t(3, 2), p=-1.0), "non-negative"),
        (lambda: fg.cdist(t(3, 2), t(3, 2), compute_mode="x"), "compute_mode"),
    ],
)
def test_bad_shapes_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_short_sided_products_cut_into_thread_tiles_match_numpy(dtype):
    # >= 8M multiply-adds with an output side < 128: the kernel cuts the output into
    # per-thread tiles (src/kernels/gemm_split.rs); plain, transposed and tall shapes
    rng = np.random.default_rng(5)

    def draw(*shape):
        v = rng.standard_normal(shape)
        if dtype.startswith("complex"):
            v = v + 1j * rng.standard_normal(shape)
        return v.astype(dtype)

    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-12
    a, b = draw(64, 1024), draw(1024, 300)
    for x, y in ((a, b), (draw(300, 1024), draw(64, 1024).T)):
        got = (fg.to_tensor(x) @ fg.to_tensor(np.ascontiguousarray(y.T)).T).numpy()
        want = x.astype(np.complex128) @ y.astype(np.complex128)
        assert np.abs(got - want).max() <= tol * np.abs(want).max()
