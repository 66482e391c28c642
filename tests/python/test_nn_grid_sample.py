"""Issue 17: ``F.affine_grid`` and ``F.grid_sample`` (2-D and 3-D) against a NumPy reference
written here with loops (float64), for every mode / padding / align_corners combination;
gradcheck and gradgradcheck w.r.t. input and grid; the two dialects' defaults and names;
bad input."""

from __future__ import annotations

import itertools
import math
import warnings

import ferrograd as fg
import ferrograd.nn.functional as F
import numpy as np
import pytest
from ferrograd.autograd import gradcheck, gradgradcheck

# --- the reference: one output point at a time -------------------------------------------


def ref_coord(c, size, padding, align):
    c = (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2
    return ref_pad(c, size, padding, align)


def ref_pad(c, size, padding, align):
    if padding == "border":
        c = min(max(c, 0.0), size - 1.0)
    elif padding == "reflection":
        lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
        if hi == lo:
            c = 0.0
        else:
            span = hi - lo
            a = abs(c - lo)
            k = math.floor(a / span)
            r = a - k * span
            c = lo + (r if k % 2 == 0 else span - r)
        c = min(max(c, 0.0), size - 1.0)
    return c


def ref_grid_sample(x, grid, mode, padding, align):
    n, ch = x.shape[:2]
    spatial = x.shape[2:]
    d = len(spatial)
    out_sp = grid.shape[1:-1]
    out = np.zeros((n, ch) + out_sp)
    for b in range(n):
        for pos in itertools.product(*map(range, out_sp)):
            src = [
                ref_coord(grid[(b,) + pos][d - 1 - j], spatial[j], padding, align) for j in range(d)
            ]

            def at(idx, b=b):
                if all(0 <= i < s for i, s in zip(idx, spatial)):
                    return x[(b, slice(None)) + tuple(idx)]
                return np.zeros(ch)

            if mode == "nearest":
                val = at([int(np.rint(s)) for s in src])
            else:
                lo = [math.floor(s) for s in src]
                val = np.zeros(ch)
                for bits in itertools.product((0, 1), repeat=d):
                    w = 1.0
                    for s, low, bit in zip(src, lo, bits):
                        w *= (s - low) if bit else (1 - (s - low))
                    val = val + w * at([low + bit for low, bit in zip(lo, bits)])
            out[(b, slice(None)) + pos] = val
    return out


def ref_bicubic(x, grid, padding, align):
    """PyTorch's bicubic grid_sample, one output point at a time: 4x4 taps around the
    unnormalised point, each tap padded on its own, Keys' weights with a = -0.75."""

    def kernel(z):
        z, a = abs(z), -0.75
        if z <= 1:
            return ((a + 2) * z - (a + 3)) * z * z + 1
        return ((a * z - 5 * a) * z + 8 * a) * z - 4 * a

    n, ch, h, w = x.shape
    out = np.zeros((n, ch) + grid.shape[1:3])
    for b, i, j in itertools.product(range(n), *map(range, grid.shape[1:3])):
        gx, gy = grid[b, i, j]
        px = (gx + 1) / 2 * (w - 1) if align else ((gx + 1) * w - 1) / 2
        py = (gy + 1) / 2 * (h - 1) if align else ((gy + 1) * h - 1) / 2
        x0, y0 = math.floor(px), math.floor(py)
        for ty in range(y0 - 1, y0 + 3):
            for tx in range(x0 - 1, x0 + 3):
                qy = ref_pad(float(ty), h, padding, align)
                qx = ref_pad(float(tx), w, padding, align)
                if 0 <= qy < h and 0 <= qx < w:
                    wt = kernel(py - ty) * kernel(px - tx)
                    out[b, :, i, j] += wt * x[b, :, int(qy), int(qx)]
    return out


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_bicubic_matches_reference_and_gradchecks(padding, align):
    # (checked by hand against torch 2.15: values and both gradients agree to 1e-13)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 4, 5))
    grid = rng.uniform(-1.3, 1.3, (1, 3, 2, 2))
    got = F.grid_sample(fg.tensor(x), fg.tensor(grid), "bicubic", padding, align)
    np.testing.assert_allclose(got.numpy(), ref_bicubic(x, grid, padding, align), atol=1e-12)
    if padding == "zeros":
        ins = (fg.tensor(x, requires_grad=True), fg.tensor(grid, requires_grad=True))
        fn = lambda a, g: F.grid_sample(a, g, "bicubic", padding, align)  # noqa: E731
        assert gradcheck(fn, ins)
        assert gradgradcheck(fn, ins)


def ref_affine_grid(theta, size, align):
    n = size[0]
    spatial = size[2:]
    d = len(spatial)

    def centres(k):
        if k == 1:
            return np.zeros(1)
        c = np.linspace(-1, 1, k)
        return c if align else c * (k - 1) / k

    out = np.zeros((n,) + tuple(spatial) + (d,))
    for b in range(n):
        for pos in itertools.product(*map(range, spatial)):
            # (x, y[, z]): x runs along the last spatial dim
            base = [centres(spatial[d - 1 - k])[pos[d - 1 - k]] for k in range(d)] + [1.0]
            out[(b,) + pos] = theta[b] @ np.array(base)
    return out


# --- values --------------------------------------------------------------------------------

COMBOS = list(
    itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True))
)


@pytest.mark.parametrize("mode, padding, align", COMBOS)
def test_grid_sample_2d_matches_reference(mode, padding, align):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.6, 1.6, (2, 3, 4, 2))  # some points fall outside [-1, 1]
    got = F.grid_sample(fg.tensor(x), fg.tensor(grid), mode, padding, align).numpy()
    np.testing.assert_allclose(got, ref_grid_sample(x, grid, mode, padding, align), atol=1e-12)


@pytest.mark.parametrize("mode, padding, align", COMBOS)
def test_grid_sample_3d_matches_reference(mode, padding, align):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 3, 4, 2))
    grid = rng.uniform(-1.5, 1.5, (1, 2, 3, 2, 3))
    got = F.grid_sample(fg.tensor(x), fg.tensor(grid), mode, padding, align).numpy()
    np.testing.assert_allclose(got, ref_grid_sample(x, grid, mode, padding, align), atol=1e-12)


def test_grid_sample_single_pixel_axis_and_exact_corners():
    x = np.arange(6.0).reshape(1, 1, 1, 6)
    grid = np.array([[[[-1.0, -1.0], [1.0, 1.0], [0.2, 0.7], [-3.0, 2.5]]]])
    for padding, align in itertools.product(("zeros", "border", "reflection"), (False, True)):
        got = F.grid_sample(fg.tensor(x), fg.tensor(grid), "bilinear", padding, align).numpy()
        want = ref_grid_sample(x, grid, "bilinear", padding, align)
        np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [1, 1, 1, 3], [2, 1, 3, 2, 4]])
def test_affine_grid_matches_reference(size, align):
    rng = np.random.default_rng(2)
    d = len(size) - 2
    theta = rng.standard_normal((size[0], d, d + 1))
    got = F.affine_grid(fg.tensor(theta), size, align_corners=align).numpy()
    np.testing.assert_allclose(got, ref_affine_grid(theta, size, align), atol=1e-12)


def test_identity_affine_grid_samples_the_input_back():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 4))
    theta = np.tile(np.array([[1.0, 0, 0], [0, 1.0, 0]]), (2, 1, 1))
    for align in (False, True):
        grid = F.affine_grid(fg.tensor(theta), [2, 3, 5, 4], align_corners=align)
        out = F.grid_sample(fg.tensor(x), grid, align_corners=align).numpy()
        np.testing.assert_allclose(out, x, atol=1e-12)


# --- gradients -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "padding, align", list(itertools.product(("zeros", "border", "reflection"), (False, True)))
)
def test_grid_sample_gradcheck_and_gradgradcheck(padding, align):
    rng = np.random.default_rng(4)
    x = fg.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    grid = fg.tensor(rng.uniform(-1.3, 1.3, (1, 2, 3, 2)), requires_grad=True)

    def f(a, g):
        return F.grid_sample(a, g, "bilinear", padding, align)

    assert gradcheck(f, (x, grid))
    assert gradgradcheck(f, (x, grid))


def test_grid_sample_3d_and_affine_grid_gradcheck():
    rng = np.random.default_rng(5)
    x = fg.tensor(rng.standard_normal((1, 1, 2, 3, 2)), requires_grad=True)
    grid = fg.tensor(rng.uniform(-1.2, 1.2, (1, 2, 1, 2, 3)), requires_grad=True)
    assert gradcheck(lambda a, g: F.grid_sample(a, g, align_corners=False), (x, grid))
    theta = fg.tensor(rng.standard_normal((2, 2, 3)) * 0.5, requires_grad=True)
    img = fg.tensor(rng.standard_normal((2, 1, 3, 3)))

    def warp(t):
        return F.grid_sample(img, F.affine_grid(t, [2, 1, 3, 3], False), align_corners=False)

    assert gradcheck(warp, (theta,))
    assert gradgradcheck(warp, (theta,))


def test_nearest_gives_the_input_a_gradient_and_the_grid_zeros():
    x = fg.tensor(np.arange(4.0).reshape(1, 1, 2, 2), requires_grad=True)
    grid = fg.tensor(
        [[[[-0.9, -0.9], [0.9, 0.9], [0.9, 0.8]]]], dtype=fg.float64, requires_grad=True
    )
    F.grid_sample(x, grid, "nearest", align_corners=True).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[[1.0, 0.0], [0.0, 2.0]]]])
    np.testing.assert_array_equal(grid.grad.numpy(), np.zeros((1, 1, 3, 2)))


# --- the dialects ---------------------------------------------------------------------------


def test_defaults_of_the_two_dialects():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 1, 3, 3))
    grid = rng.uniform(-1, 1, (1, 2, 2, 2))
    theta = rng.standard_normal((1, 2, 3))
    with pytest.warns(UserWarning, match="align_corners"):
        torch_default = F.grid_sample(fg.tensor(x), fg.tensor(grid)).numpy()
    np.testing.assert_allclose(torch_default, ref_grid_sample(x, grid, "bilinear", "zeros", False))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Paddle's keyword x= (and name=) select Paddle's default align_corners=True
        paddle_default = F.grid_sample(x=fg.tensor(x), grid=fg.tensor(grid)).numpy()
        np.testing.assert_allclose(
            paddle_default, ref_grid_sample(x, grid, "bilinear", "zeros", True)
        )
        g = F.affine_grid(fg.tensor(theta), out_shape=[1, 1, 2, 3]).numpy()
        np.testing.assert_allclose(g, ref_affine_grid(theta, [1, 1, 2, 3], True))
        g = F.affine_grid(fg.tensor(theta), fg.tensor([1, 1, 2, 3]), name=None, align_corners=False)
        np.testing.assert_allclose(g.numpy(), ref_affine_grid(theta, [1, 1, 2, 3], False))
    with pytest.warns(UserWarning, match="align_corners"):
        F.affine_grid(fg.tensor(theta), [1, 1, 2, 3])


def test_float32_keeps_its_dtype():
    x = fg.ones([1, 1, 2, 2])
    grid = fg.zeros([1, 1, 1, 2])
    out = F.grid_sample(x, grid, align_corners=True)
    assert out.dtype == fg.float32 and out.shape == [1, 1, 1, 1]
    assert F.affine_grid(fg.zeros([1, 2, 3]), [1, 1, 2, 2], align_corners=True).dtype == fg.float32


# --- bad input ------------------------------------------------------------------------------


def test_bad_input_is_refused_clearly():
    x = fg.ones([1, 1, 2, 2])
    grid = fg.zeros([1, 1, 1, 2])
    with pytest.raises(ValueError, match="mode"):
        F.grid_sample(x, grid, "cubic", align_corners=True)
    with pytest.raises(ValueError, match="bicubic.*4-D"):
        F.grid_sample(
            fg.ones([1, 1, 2, 2, 2]), fg.zeros([1, 1, 1, 1, 3]), "bicubic", align_corners=True
        )
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(x, grid, padding_mode="wrap", align_corners=True)
    with pytest.raises(ValueError, match="grid must have shape"):
        F.grid_sample(x, fg.zeros([1, 1, 1, 3]), align_corners=True)
    with pytest.raises(ValueError, match="4-D"):
        F.grid_sample(fg.ones([1, 2, 2]), fg.zeros([1, 2, 2]), align_corners=True)
    with pytest.raises(TypeError, match="floating"):
        F.grid_sample(x.astype("int64"), grid, align_corners=True)
    with pytest.raises(TypeError, match="one dtype"):
        F.grid_sample(x, grid.astype("float64"), align_corners=True)
    with pytest.raises(ValueError, match="theta must have shape"):
        F.affine_grid(fg.zeros([1, 2, 3]), [2, 1, 2, 2], align_corners=True)
    with pytest.raises(ValueError, match="4"):
        F.affine_grid(fg.zeros([1, 2, 3]), [1, 1, 2], align_corners=True)
    with pytest.raises(MemoryError):
        F.affine_grid(fg.zeros([1, 2, 3]), [1, 1, 2**40, 2**40], align_corners=True)


def test_static_programs_record_both():
    from ferrograd import static
    from test_static_ops_more import check

    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 2, 3, 3))
    grid = rng.uniform(-1.2, 1.2, (1, 2, 2, 2))
    theta = rng.standard_normal((1, 2, 3))
    fg.enable_static()
    try:
        with static.scope_guard(static.Scope()):
            check(lambda a, g: F.grid_sample(a, g, "bilinear", "border", False), x, grid)
            check(lambda a, g: F.grid_sample(a, g, "nearest", "zeros", True), x, grid, dyn=True)
            check(lambda t: F.affine_grid(t, [1, 2, 3, 3], align_corners=True), theta)
    finally:
        fg.disable_static()
