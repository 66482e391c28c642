"""More cases of ``panic_fuzz_s42.py``: segment_reduce, histogramdd,
histogram_bin_edges, the special Bessel functions and orthogonal polynomials. One
``(name, code)`` pair per call; ``code`` leaves its result in ``r``."""

from __future__ import annotations


def special_cases() -> list:
    """The ``(name, code)`` cases of this file."""
    C: list = []

    def c(name: str, code: str) -> None:
        C.append((name, code))

    S = "fg.special."
    # ---- b3 ----
    S = "fg.special."
    # segment_reduce
    d = "fg.arange(6.0)"
    for red in ["sum", "mean", "max", "min", "prod"]:
        c(
            f"segred {red} lengths ok",
            f"r = fg.segment_reduce({d}, '{red}', lengths=fg.tensor([1, 0, 5]))",
        )
    for kw in [
        "lengths=fg.tensor([2**62, -2**62+6])",
        "lengths=fg.tensor([7])",
        "lengths=fg.tensor([2**63-1])",
        "lengths=[1.5, 4.5]",
        "lengths=fg.tensor([[6]])",
        "lengths=fg.tensor(6)",
        "lengths=fg.tensor([], dtype=fg.int64)",
        "offsets=fg.tensor([0, 2**62])",
        "offsets=fg.tensor([3, 1, 6])",
        "offsets=fg.tensor([], dtype=fg.int64)",
        "offsets=fg.tensor([0])",
        "offsets=[0, 6]",
        "lengths=fg.tensor([True, True])",
        "lengths=np.array([6], dtype=np.uint64)",
        "lengths=None",
        "lengths=fg.tensor([6]), offsets=fg.tensor([0, 6])",
        "lengths=fg.tensor([6]), axis=2**62",
        "lengths=fg.tensor([6]), axis=-1",
        "lengths=fg.tensor([6]), initial=float('nan')",
        "lengths=fg.tensor([6]), initial='x'",
        "lengths=fg.tensor([3]), unsafe=True",
        "lengths=fg.tensor([6]), indices=fg.tensor([0])",
        "lengths=fg.tensor([[6]], dtype=fg.int64).expand(1, 1)",
        "lengths=fg.tensor([1, 2, 3]).as_strided([3], [0], 0)",
        "lengths='abc'",
        "lengths=[[1, 2], [3]]",
    ]:
        c(f"segred sum {kw}", f"r = fg.segment_reduce({d}, 'sum', {kw})")
    c("segred reduce bad", f"r = fg.segment_reduce({d}, 'median', lengths=fg.tensor([6]))")
    c("segred int data", "r = fg.segment_reduce(fg.arange(6), 'sum', lengths=fg.tensor([6]))")
    c(
        "segred complex data",
        "r = fg.segment_reduce(fg.arange(6.0).to(fg.complex64), 'sum', lengths=fg.tensor([6]))",
    )
    c("segred 0-d data", "r = fg.segment_reduce(fg.tensor(1.0), 'sum', lengths=fg.tensor([1]))")
    c("segred empty data", "r = fg.segment_reduce(fg.zeros(0), 'max', lengths=fg.tensor([0, 0]))")
    c(
        "segred empty data mean",
        "r = fg.segment_reduce(fg.zeros(0), 'mean', lengths=fg.tensor([0]))",
    )
    c(
        "segred f16 mean",
        "r = fg.segment_reduce(fg.ones(4, dtype=fg.float16)*1000, 'sum', lengths=fg.tensor([4]))",
    )
    c(
        "segred bf16 max grad",
        "x = fg.tensor([1.0, 1.0, 2.0], dtype=fg.bfloat16, requires_grad=True); fg.segment_reduce(x, 'max', lengths=fg.tensor([2, 1])).sum().backward(); r = x.grad",
    )
    c(
        "segred nan max",
        "r = fg.segment_reduce(fg.tensor([1.0, float('nan'), 3.0]), 'max', lengths=fg.tensor([3]))",
    )
    c(
        "segred expanded data",
        "r = fg.segment_reduce(fg.ones(1).expand(6), 'sum', lengths=fg.tensor([2, 4]))",
    )
    c(
        "segred 2d axis1",
        "r = fg.segment_reduce(fg.arange(12.0).reshape(2, 6), 'sum', lengths=fg.tensor([[2, 4], [3, 3]]), axis=1)",
    )
    c(
        "segred 2d axis1 mismatched batch",
        "r = fg.segment_reduce(fg.arange(12.0).reshape(2, 6), 'sum', lengths=fg.tensor([[2, 4]]), axis=1)",
    )
    c(
        "segred many segments",
        "r = fg.segment_reduce(fg.zeros(0), 'sum', lengths=fg.zeros(2**24, dtype=fg.int64)).shape",
    )
    c(
        "segred prod grad zero",
        "x = fg.tensor([0.0, 2.0, 3.0], requires_grad=True); fg.segment_reduce(x, 'prod', lengths=fg.tensor([3])).sum().backward(); r = x.grad",
    )
    c(
        "segred mean initial",
        "r = fg.segment_reduce(fg.arange(4.0), 'mean', lengths=fg.tensor([0, 4]), initial=2.0)",
    )
    # histogramdd / histogram_bin_edges
    x2 = "fg.rand(10, 2)"
    for kw in [
        "bins=2**62",
        "bins=2**31",
        "bins=[2**31, 2**31]",
        "bins=0",
        "bins=-1",
        "bins=[3]",
        "bins=[3, 'a']",
        "bins=[fg.tensor([0.0, 1.0]), fg.tensor([1.0, 0.0])]",
        "bins=[fg.tensor([0.0]), fg.tensor([0.0])]",
        "bins=[fg.tensor([[0.0, 1.0]]), 3]",
        "bins=[fg.tensor([0.0, float('nan')]), 3]",
        "bins=3.5",
        "bins=None",
        "range=[0, 1]",
        "range=[1, 0, 0, 1]",
        "range=[float('nan'), 1, 0, 1]",
        "range=[0, float('inf'), 0, 1]",
        "range=[0, 0, 0, 0]",
        "weight=fg.ones(10)",
        "weight=fg.ones(3)",
        "weight=fg.ones(10, dtype=fg.int64)",
        "weight=fg.ones(10, dtype=fg.complex64)",
        "density=True, range=[0, 0, 0, 0]",
        "bins=[fg.tensor([0.0, 0.0, 0.0]), 2], density=True",
        "bins=[fg.tensor([0.0, 1.0], dtype=fg.int64), 2]",
        "bins=(2, 3)",
        "bins=fg.tensor([2, 3])",
    ]:
        c(f"histdd {kw}", f"r = fg.histogramdd({x2}, {kw})")
    c("histdd int input", "r = fg.histogramdd(fg.ones(3, 2, dtype=fg.int64))")
    c("histdd 1-d input", "r = fg.histogramdd(fg.ones(3))")
    c("histdd D=0", "r = fg.histogramdd(fg.ones(3, 0))")
    c("histdd N=0", "r = fg.histogramdd(fg.ones(0, 2))")
    c("histdd D=64 bins 2", "r = fg.histogramdd(fg.rand(3, 64), bins=2)")
    c("histdd D=40 bins 3", "r = fg.histogramdd(fg.rand(3, 40), bins=3)")
    c("histdd nan data", "r = fg.histogramdd(fg.tensor([[float('nan'), 1.0]]))")
    c("histdd inf data", "r = fg.histogramdd(fg.tensor([[float('inf'), 1.0]]))")
    c(
        "histdd inf data range",
        "r = fg.histogramdd(fg.tensor([[float('inf'), 1.0]]), range=[0, 1, 0, 1])",
    )
    c("histdd f16", "r = fg.histogramdd(fg.rand(5, 2).half())")
    c("histdd expanded", "r = fg.histogramdd(fg.rand(1, 2).expand(1000, 2), bins=2)")
    c("histdd requires grad", "r = fg.histogramdd(fg.rand(5, 2, requires_grad=True), bins=2)")
    for kw in [
        "bins=2**62",
        "bins=2**31",
        "bins=0",
        "bins=True",
        "bins=2.0",
        "min=float('nan'), max=1.0",
        "min=0.0, max=float('inf')",
        "min=-float('inf'), max=float('inf')",
        "min=5, max=1",
        "min='a'",
        "min=None",
    ]:
        c(f"hbe {kw}", f"r = fg.histogram_bin_edges(fg.rand(5), {kw})")
    c("hbe nan data", "r = fg.histogram_bin_edges(fg.tensor([float('nan'), 1.0]), bins=3)")
    c("hbe inf data", "r = fg.histogram_bin_edges(fg.tensor([float('inf'), 1.0]), bins=3)")
    c("hbe empty", "r = fg.histogram_bin_edges(fg.zeros(0), bins=3)")
    c("hbe int", "r = fg.histogram_bin_edges(fg.arange(5), bins=3)")
    c("hbe complex", "r = fg.histogram_bin_edges(fg.zeros(2, dtype=fg.complex64), bins=3)")
    c(
        "hbe f64 big",
        "r = fg.histogram_bin_edges(fg.tensor([1e300, -1e300], dtype=fg.float64), bins=3)",
    )
    c("hbe bins np.int64", "r = fg.histogram_bin_edges(fg.rand(5), bins=np.int64(3))")
    # special bessel / polynomials
    for fn in [
        "bessel_j0",
        "bessel_j1",
        "bessel_y0",
        "bessel_y1",
        "modified_bessel_i0",
        "modified_bessel_i1",
        "modified_bessel_k0",
        "modified_bessel_k1",
        "scaled_modified_bessel_k0",
        "scaled_modified_bessel_k1",
        "spherical_bessel_j0",
        "airy_ai",
    ]:
        c(
            f"{fn} specials",
            f"r = {S}{fn}(fg.tensor([0.0, -0.0, -1.0, 1e-310, 1e308, -1e308, float('inf'), -float('inf'), float('nan')], dtype=fg.float64)).tolist()",
        )
        c(
            f"{fn} int/bool/empty/0d/f16/complex",
            f"r = [{S}{fn}(fg.tensor([1, 2])), {S}{fn}(fg.tensor([True])), {S}{fn}(fg.zeros(0)), {S}{fn}(fg.tensor(2.0)), {S}{fn}(fg.tensor([2.0], dtype=fg.float16)), {S}{fn}(fg.tensor([2.0], dtype=fg.bfloat16))]",
        )
        c(f"{fn} complex", f"r = {S}{fn}(fg.tensor([1j]))")
        c(f"{fn} list", f"r = {S}{fn}([1.0])")
        c(
            f"{fn} grad",
            f"x = fg.tensor([0.5, 2.0], requires_grad=True); {S}{fn}(x).sum().backward(); r = x.grad",
        )
        c(f"{fn} out", f"o = fg.zeros(2); r = ({S}{fn}(fg.tensor([0.5, 2.0]), out=o), o)")
    for fn in [
        "chebyshev_polynomial_t",
        "chebyshev_polynomial_u",
        "chebyshev_polynomial_v",
        "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u",
        "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w",
        "hermite_polynomial_h",
        "hermite_polynomial_he",
        "laguerre_polynomial_l",
        "legendre_polynomial_p",
    ]:
        for n in [
            "2**62",
            "2**63-1",
            "-2**63",
            "-5",
            "float('nan')",
            "float('inf')",
            "1e300",
            "2**40",
            "fg.tensor([2**62, -1, 3])",
            "fg.tensor([1e30, float('nan')], dtype=fg.float64)",
            "2**64",
            "None",
            "'a'",
            "True",
            "fg.tensor([3]).expand(4)",
        ]:
            c(
                f"{fn} n={n}",
                f"r = {S}{fn}(fg.tensor([0.3, -0.7, 1.0, 1.5, float('nan'), float('inf')], dtype=fg.float64), {n})",
            )
        c(f"{fn} both numbers", f"r = {S}{fn}(0.5, 3)")
        c(f"{fn} x number n tensor", f"r = {S}{fn}(0.5, fg.tensor([3, 4]))")
        c(f"{fn} x huge n 2**31", f"r = {S}{fn}(fg.tensor([0.5]), 2**31)")
        c(
            f"{fn} grad",
            f"x = fg.tensor([0.5], requires_grad=True); {S}{fn}(x, 3).sum().backward(); r = x.grad",
        )
        c(
            f"{fn} n grad",
            f"n = fg.tensor([3.0], requires_grad=True); r = {S}{fn}(fg.tensor([0.5]), n); r.sum().backward(); r = n.grad",
        )
        c(f"{fn} int x", f"r = {S}{fn}(fg.tensor([1, 2]), fg.tensor([2, 3]))")
        c(f"{fn} broadcast bad", f"r = {S}{fn}(fg.ones(2), fg.ones(3))")
        c(f"{fn} f16", f"r = {S}{fn}(fg.ones(2, dtype=fg.float16) * 0.5, 100)")
    return C
