"""The vectorised float32 exp/tanh/sigmoid kernels, and the cache of large freed buffers."""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance between float32 arrays in units in the last place (0 for equal values)."""

    def key(x):
        i = x.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(i < 0, -(2**31) - i, i)

    return np.abs(key(a) - key(b))


def sample_float32(rng) -> np.ndarray:
    bits = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[np.isfinite(x)]
    dense = np.linspace(-30, 30, 20_001, dtype=np.float32)
    edges = np.array(
        [0.0, -0.0, 1e-30, -1e-30, 0.0625, -0.0625, 88.7, 89.0, -103.9, -104.0], dtype=np.float32
    )
    return np.concatenate([x, dense, edges])


REFERENCES = {
    "exp": np.exp,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_float32_kernels_are_within_one_ulp_of_float64(name):
    x = sample_float32(np.random.default_rng(7))
    with np.errstate(over="ignore", under="ignore"):
        want = REFERENCES[name](x.astype(np.float64)).astype(np.float32)
    got = getattr(fg, name)(fg.tensor(x)).numpy()
    assert got.dtype == np.float32
    worst = ulp_distance(got, want).max()
    assert worst <= 1, f"{name}: {worst} ulps"


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_special_values(name):
    x = np.array([np.nan, np.inf, -np.inf, 0.0], dtype=np.float32)
    with np.errstate(over="ignore"):
        want = REFERENCES[name](x.astype(np.float64)).astype(np.float32)
    got = getattr(fg, name)(fg.tensor(x)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_strided_views_give_bit_identical_results(name):
    rng = np.random.default_rng(3)
    a = rng.normal(0, 4, (300, 257)).astype(np.float32)
    t = fg.tensor(a)
    f = getattr(fg, name)
    strided = f(t.T).numpy()
    contiguous = f(fg.tensor(np.ascontiguousarray(a.T))).numpy()
    assert strided.tobytes() == contiguous.tobytes()


def test_buffer_cache_controls():
    previous = fg.set_buffer_cache_limit(64 << 20)
    try:
        info = fg.buffer_cache_info()
        assert set(info) == {"bytes", "buffers", "limit", "hits", "misses", "suspended_by"}
        assert info["limit"] == 64 << 20
        assert fg.set_buffer_cache_limit(32 << 20) == 64 << 20
        with pytest.raises(ValueError, match="nbytes must be >= 0"):
            fg.set_buffer_cache_limit(-1)
    finally:
        fg.set_buffer_cache_limit(previous)


def test_large_buffers_are_reused_and_results_stay_right():
    previous = fg.set_buffer_cache_limit(64 << 20)
    try:
        fg.empty_buffer_cache()
        n = 1 << 20  # 4 MiB of float32: above the cache's minimum size
        a = fg.arange(n, dtype="float32")
        b = fg.full([n], 2.0)
        hits = fg.buffer_cache_info()["hits"]
        for _ in range(3):
            c = a * b + a
            np.testing.assert_array_equal(c.numpy()[:5], [0, 3, 6, 9, 12])
            z = fg.zeros([n])  # a reused buffer must not leak stale values
            assert float(z.abs().sum()) == 0.0
            del c, z
        assert fg.buffer_cache_info()["hits"] > hits
        fg.set_buffer_cache_limit(0)
        assert fg.buffer_cache_info()["bytes"] == 0
    finally:
        fg.set_buffer_cache_limit(previous)
