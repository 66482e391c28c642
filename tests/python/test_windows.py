"""``kaiser_window`` and ``torch.signal.windows`` against NumPy formulas in float64: a
periodic window of N points is the symmetric window of N + 1 points without its last
point. (The values were also compared once with torch 2.15: max difference below 2e-15.)"""

from __future__ import annotations

import ferrograd as fg
import numpy as np
import pytest


def _periodic(sym, n):
    return sym(n + 1)[:-1]


@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
@pytest.mark.parametrize("beta", [12.0, 5.0, 0.0])
def test_kaiser_window(n, beta):
    got = fg.kaiser_window(n, dtype=fg.float64, beta=beta).numpy()
    want = _periodic(lambda m: np.kaiser(m, beta), n) if n > 1 else np.ones(n)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    got = fg.kaiser_window(n, False, beta, dtype=fg.float64).numpy()
    np.testing.assert_allclose(got, np.kaiser(n, beta), rtol=1e-13, atol=1e-15)
    assert fg.kaiser_window(max(n, 2)).dtype == fg.get_default_dtype()


def _cos_sum(a):
    def f(m):
        k = 2 * np.pi * np.arange(m) / (m - 1)
        return sum((-1) ** i * c * np.cos(i * k) for i, c in enumerate(a))

    return f


WINDOWS = [
    ("hann", {}, np.hanning),
    ("hamming", {}, np.hamming),
    ("blackman", {}, np.blackman),
    ("bartlett", {}, np.bartlett),
    ("kaiser", {"beta": 3.0}, lambda m: np.kaiser(m, 3.0)),
    ("kaiser", {}, lambda m: np.kaiser(m, 12.0)),
    ("nuttall", {}, _cos_sum([0.3635819, 0.4891775, 0.1365995, 0.0106411])),
    ("general_hamming", {"alpha": 0.6}, _cos_sum([0.6, 0.4])),
    ("general_cosine", {"a": [0.5, 0.3, 0.2]}, _cos_sum([0.5, 0.3, 0.2])),
    ("cosine", {}, lambda m: np.sin(np.pi * (np.arange(m) + 0.5) / m)),
    ("gaussian", {"std": 2.0}, lambda m: np.exp(-0.5 * ((np.arange(m) - (m - 1) / 2) / 2.0) ** 2)),
    ("exponential", {"tau": 2.0}, lambda m: np.exp(-np.abs(np.arange(m) - (m - 1) / 2) / 2.0)),
]


@pytest.mark.parametrize("name, kw, ref", WINDOWS)
@pytest.mark.parametrize("n", [1, 2, 6, 9])
def test_signal_windows(name, kw, ref, n):
    fn = getattr(fg.signal.windows, name)
    got = fn(n, dtype=fg.float64, **kw).numpy()
    np.testing.assert_allclose(got, ref(n) if n > 1 else [1.0], rtol=1e-12, atol=1e-15)
    got = fn(n, sym=False, dtype=fg.float64, **kw).numpy()
    want = _periodic(ref, n) if n > 1 else [1.0]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert fn(n, **kw).dtype == fg.float32
    assert fn(0, **kw).shape == (0,)


def test_torch_window_functions_match_numpy():
    for fn, ref in [
        (fg.hann_window, np.hanning),
        (fg.hamming_window, np.hamming),
        (fg.blackman_window, np.blackman),
        (fg.bartlett_window, np.bartlett),
        (fg.kaiser_window, lambda m: np.kaiser(m, 12.0)),
    ]:
        np.testing.assert_allclose(fn(10, dtype=fg.float64).numpy(), _periodic(ref, 10), atol=1e-15)
        np.testing.assert_allclose(fn(10, False, dtype=fg.float64).numpy(), ref(10), atol=1e-15)


def test_window_errors():
    with pytest.raises(ValueError, match="non-negative"):
        fg.kaiser_window(-1)
    with pytest.raises(ValueError, match="non-negative"):
        fg.signal.windows.hann(-2)
    with pytest.raises(ValueError, match="beta"):
        fg.signal.windows.kaiser(4, beta=-1.0)
    with pytest.raises(ValueError, match="positive"):
        fg.signal.windows.gaussian(4, std=0.0)
    with pytest.raises(ValueError, match="center"):
        fg.signal.windows.exponential(4, center=1.0)


def _triang(m):
    half = (m + 1) / 2 if m % 2 else m / 2
    return 1 - np.abs((np.arange(m) - (m - 1) / 2) / half)


def _bohman(m):
    f = np.abs(np.linspace(-1, 1, m))
    return (1 - f) * np.cos(np.pi * f) + np.sin(np.pi * f) / np.pi


GET_WINDOW = [
    ("hann", np.hanning),
    ("hamming", np.hamming),
    ("blackman", np.blackman),
    ("bartlett", np.bartlett),
    ("triang", _triang),
    ("bohman", _bohman),
    (("tukey", 1.0), np.hanning),
    (("tukey", 0.0), np.ones),
    (("kaiser", 5.0), lambda m: np.kaiser(m, 5.0)),
    (("gaussian", 2.0), lambda m: np.exp(-0.5 * ((np.arange(m) - (m - 1) / 2) / 2.0) ** 2)),
    (
        ("general_gaussian", 1.0, 2.0),
        lambda m: np.exp(-0.5 * ((np.arange(m) - (m - 1) / 2) / 2.0) ** 2),
    ),
]


@pytest.mark.parametrize("window, ref", GET_WINDOW)
@pytest.mark.parametrize("n", [2, 7, 16])
def test_paddle_get_window(window, ref, n):
    get = fg.audio.functional.get_window
    np.testing.assert_allclose(get(window, n).numpy(), _periodic(ref, n), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        get(window, n, fftbins=False).numpy(), ref(n), rtol=1e-12, atol=1e-15
    )
    assert get(window, n).dtype == fg.float64
    assert get(window, n, dtype="float32").dtype == fg.float32


def test_paddle_get_window_errors():
    with pytest.raises(ValueError, match="needs one or more parameters"):
        fg.audio.functional.get_window("kaiser", 8)
    with pytest.raises(ValueError, match="Unknown window type"):
        fg.audio.functional.get_window("nonesuch", 8)


def test_paddle_get_window_taylor():
    """``('taylor', nbar, sll, norm)``; the values are Paddle 3.3.1's (scipy's formula)."""
    get = fg.audio.functional.get_window
    np.testing.assert_allclose(
        get(("taylor", 4, 30), 8).numpy(),
        [0.2718834924087382, 0.46690631985001974, 0.7246751121792886, 0.92465582532122, 1.0,
         0.92465582532122, 0.7246751121792886, 0.46690631985001974],
        rtol=1e-14,
    )  # fmt: skip
    sym = get("taylor", 9, fftbins=False).numpy()
    np.testing.assert_allclose(sym, sym[::-1], rtol=1e-15)
    assert sym[4] == 1.0 and sym.argmax() == 4
    np.testing.assert_allclose(
        get(("taylor", 3, 20, False), 7).numpy(),
        [0.7145356726838509, 0.8774290592987835, 1.1164505853768154, 1.2915846826405502,
         1.2915846826405502, 1.1164505853768154, 0.8774290592987835],
        rtol=1e-14,
    )  # fmt: skip
    # one "sidelobe term" (nbar=1) is the flat window
    np.testing.assert_allclose(get(("taylor", 1, 30), 5).numpy(), np.ones(5))
