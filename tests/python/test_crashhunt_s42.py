"""Session 42's crash hunt over the names added in sessions 38-41 (frombuffer, asarray,
the special Bessel functions, histogramdd, poisson/binomial, fake_quantize, ...): each
finding pinned by a ``*_regression`` test. The cases themselves stay runnable in
``tests/python/panic_fuzz_s42.py``."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import ferrograd as fg
import numpy as np
import pytest


def _run(body: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs ``body`` in a fresh interpreter (a hang or abort fails the test, not the run)."""
    code = "import ferrograd as fg, numpy as np\n" + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )


def _core_checks_bool_bytes() -> bool:
    """Whether the built core has src/python/interop/convert.rs's bool-byte check."""
    try:
        fg.from_numpy(np.frombuffer(bytearray([2]), dtype=np.bool_))
    except ValueError:
        return True
    return False


@pytest.mark.xfail(
    not _core_checks_bool_bytes(),
    strict=True,
    reason="fixed in src/python/interop/convert.rs; needs the core rebuilt",
)
def test_frombuffer_bool_bytes_other_than_0_and_1_regression():
    # bytes 2 and 255 read as bool are no Rust bool: sum() gave 4294967298, logical_not
    # of 2 gave True, .float() 4.29e9. Shared memory is refused; a copy reads nonzero as True
    with pytest.raises(ValueError, match="other than 0 and 1"):
        fg.frombuffer(bytearray([2, 255, 0, 1]), dtype=fg.bool)
    raw = np.frombuffer(bytearray([2, 255, 0, 1]), dtype=np.bool_)
    with pytest.raises(ValueError, match="other than 0 and 1"):
        fg.from_numpy(raw)
    t = fg.tensor(raw)
    assert t.tolist() == [True, True, False, True]
    assert t.sum().item() == 3
    assert t.logical_not().tolist() == [False, False, True, False]
    assert fg.frombuffer(bytearray([1, 0]), dtype=fg.bool).tolist() == [True, False]


@pytest.mark.parametrize(
    "name",
    [
        "bessel_j0",
        "bessel_y1",
        "modified_bessel_i0",
        "modified_bessel_k1",
        "airy_ai",
        "spherical_bessel_j0",
        "scaled_modified_bessel_k0",
        "i0",
        "erf",
    ],
)
def test_special_function_of_complex_is_refused_regression(name):
    # the wrappers cast a complex tensor to float32 (the real part): bessel_j0(1j) was 1.0
    # (J0(0)); PyTorch's kernels are real-only ("not implemented for 'ComplexFloat'")
    with pytest.raises(TypeError, match="complex"):
        getattr(fg.special, name)(fg.tensor([1j]))


def test_special_wrappers_keep_complex_values_regression():
    # special.expm1 / log1p / expit of complex input dropped the imaginary part
    z = np.array([1j, 0.5 + 0.5j])
    got = fg.special.expm1(fg.tensor(z, dtype=fg.complex128)).numpy()
    np.testing.assert_allclose(got, np.expm1(z), rtol=1e-12)
    got = fg.special.log1p(fg.tensor(z, dtype=fg.complex128)).numpy()
    np.testing.assert_allclose(got, np.log1p(z), rtol=1e-12)
    with pytest.raises(TypeError, match="complex"):
        fg.special.ndtri(fg.tensor([0.5j]))


def test_sinc_of_complex_regression():
    # sinc(1j) was 1.0: the real path dropped the imaginary part (PyTorch's sinc is
    # complex-capable: sin(pi z) / (pi z), 1 at 0)
    z = np.array([1j, 0.5 + 0.5j, 0j])
    got = fg.sinc(fg.tensor(z, dtype=fg.complex128)).numpy()
    np.testing.assert_allclose(got, np.sinc(z), rtol=1e-12)
    assert fg.special.sinc(fg.tensor([1j])).is_complex()


def test_histogramdd_weight_dtype_and_nan_edges_regression():
    # a complex weight lost its imaginary part silently; PyTorch refuses any weight dtype
    # other than the input's (aten/src/ATen/native/Histogram.cpp, histogramdd_check_inputs)
    x = fg.rand(4, 2)
    with pytest.raises(TypeError, match="same dtype"):
        fg.histogramdd(x, bins=2, weight=fg.ones(4, dtype=fg.complex64))
    assert fg.histogramdd(x, bins=2, weight=fg.ones(4)).hist.sum().item() == 4.0
    # NaN bin edges passed the "increasing" check (NaN compares false) and binned nonsense
    with pytest.raises(ValueError, match="increasing"):
        fg.histogramdd(x, bins=[fg.tensor([0.0, float("nan")]), 3])


def test_poisson_and_binomial_of_huge_parameters_regression():
    # poisson looped once per unit of the largest rate (1e9: never returned); binomial
    # drew one uniform per trial (1e9 trials: 8 GB per element)
    r = _run(
        """
        fg.manual_seed(0)
        a = fg.poisson(fg.tensor([1e9, 3.0, 1e12], dtype=fg.float64))
        fg.manual_seed(0)
        b = fg.poisson(fg.tensor([1e9, 3.0, 1e12], dtype=fg.float64))
        assert (a == b).all().item(), "not reproducible under manual_seed"
        assert abs(a[0].item() - 1e9) < 1e6 and abs(a[2].item() - 1e12) < 1e8
        c = fg.binomial(fg.tensor([1e9, 1e15]), fg.tensor([0.5, 0.25]))
        assert abs(c[0].item() - 5e8) < 1e6 and abs(c[1].item() / 2.5e14 - 1) < 1e-3
        s = fg.distributions.Poisson(fg.tensor([1e9])).sample([2])
        assert list(s.shape) == [2, 1]
        print("OK")
        """,
        timeout=120,
    )
    assert r.stdout.strip() == "OK", r.stderr[-2000:]


def test_fake_quantize_per_channel_complex_scale_regression():
    # a complex scale lost its imaginary part and a bool zero_point passed; PyTorch
    # refuses both (fake_quantize_per_channel_affine: "Scale must be Float", "Zero-point
    # must be Int32, Float or Half")
    x = fg.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError, match="scale"):
        fg.fake_quantize_per_channel_affine(
            x, fg.ones(2, dtype=fg.complex64), fg.zeros(2, dtype=fg.int32), 0, 0, 255
        )
    with pytest.raises(TypeError, match="zero_point"):
        fg.fake_quantize_per_channel_affine(x, fg.ones(2), fg.zeros(2, dtype=fg.bool), 0, 0, 255)


@pytest.mark.parametrize(
    "make",
    [
        lambda: fg.nn.utils.spectral_norm(fg.nn.Linear(3, 4), dim=5),
        lambda: fg.nn.utils.weight_norm(fg.nn.Linear(3, 4), dim=2),
        lambda: fg.nn.utils.parametrizations.weight_norm(fg.nn.Linear(3, 4), dim=2),
    ],
)
def test_norm_hooks_out_of_range_dim_regression(make):
    # dim % ndim wrapped an out-of-range dim (spectral_norm dim=5 of a 2-D weight normalised
    # along dim 1); PyTorch's permute / transpose refuse it (torch/nn/utils/spectral_norm.py
    # reshape_weight_to_matrix, aten norm_except_dim)
    with pytest.raises(IndexError, match="out of range"):
        make()
    # in-range dims, -1 (the whole tensor) and None still work
    for dim in (0, 1, -1, -2):
        fg.nn.utils.weight_norm(fg.nn.Linear(3, 4), dim=dim)(fg.ones(1, 3))
    fg.nn.utils.parametrizations.weight_norm(fg.nn.Linear(3, 4), dim=None)(fg.ones(1, 3))


def test_pad_unknown_or_wrong_rank_data_format_regression():
    # an unknown data_format ('bogus') was read as channels-first and a 5-D layout on a
    # 4-D tensor was taken; Paddle asserts both (python/paddle/nn/functional/common.py pad)
    import ferrograd.nn.functional as F

    x = fg.ones([1, 2, 3, 3])
    for bad in ("bogus", "NDHWC", "NCL"):
        with pytest.raises(ValueError, match="data_format"):
            F.pad(x, [1, 1, 1, 1], data_format=bad)
    assert list(F.pad(x, [1, 1, 1, 1], data_format="nhwc").shape) == [1, 4, 5, 3]
    assert list(F.pad(x, [1, 1, 1, 1], data_format="NCHW").shape) == [1, 2, 5, 5]


@pytest.mark.xfail(
    strict=True,
    reason="round(x, decimals) scales by 10**decimals, which overflows past |decimals| ~ 308 "
    "(NaN from a finite input); PyTorch's round_decimals kernel gives the same NaN, so which "
    "rule to follow is the lead's call; _ops_more_math.py is being edited by another helper",
)
def test_round_with_huge_decimals_regression():
    x = fg.tensor([1.23456, -7.5], dtype=fg.float64)
    # rounding to 400 decimals keeps every float64; to -400 decimals gives (signed) zero
    assert fg.round(x, decimals=400).tolist() == x.tolist()
    assert fg.round(x, decimals=-400).abs().tolist() == [0.0, 0.0]
    tiny = fg.tensor([1.5e-300], dtype=fg.float64)
    assert fg.round(tiny, decimals=310).tolist() == [1.5e-300]


def test_jit_load_complex_parameter_for_real_program_regression(tmp_path):
    # a parameters file holding a complex value for a float32 parameter loaded with the
    # imaginary part dropped (astype to the program's dtype)
    m = fg.nn.Sequential(fg.nn.Linear(3, 2))
    m.eval()
    path = str(tmp_path / "m.pt")
    fg.jit.save(fg.jit.trace(m, fg.ones(1, 3)), path)
    data = fg.load(path)
    params = dict(data["params"])
    params["0.weight"] = params["0.weight"].astype(fg.complex64) * (1 + 1j)
    data["params"] = params
    bad = str(tmp_path / "bad.pt")
    fg.save(data, bad)
    with pytest.raises(ValueError, match="does not fit"):
        fg.jit.load(bad)
    assert list(fg.jit.load(path)(fg.ones(1, 3)).shape) == [1, 2]
