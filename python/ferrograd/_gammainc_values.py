"""The values of the regularized incomplete gamma functions ``P(a, x)`` and ``Q(a, x) =
1 - P`` in float64 NumPy (``ferrograd._ops_gammainc`` wraps them as ops). Each of ``P``
and ``Q`` is computed directly where it is the small one. Four methods, by region:

- ``a >= 100`` and ``|x - a| < 0.3 a``: Temme's uniform asymptotic expansion (DLMF
  8.12.8-8.12.11), ``Q = erfc(eta sqrt(a/2)) / 2 + R``, ``P = erfc(-eta sqrt(a/2)) / 2 -
  R`` with ``R = exp(-a eta^2 / 2) / sqrt(2 pi a) sum_k c_k(eta) a^-k``. The Taylor
  coefficients of ``c_k`` in ``eta`` (``_TEMME``, 10 x 20) were derived for this module
  in exact rational arithmetic from the recursion ``c_k = c_{k-1}' / eta + (-1)^k g_k /
  (lambda - 1)`` (``g_k`` Stirling's coefficients, ``lambda = x / a``); summation here
  would need ``O(sqrt a)`` terms.
- small ``a`` with ``x <= 1.1`` (SciPy's documented split, after Cephes' ``igamc``): ``Q``
  from its own series ``Q = -expm1(a log x - lgamma(1 + a)) - a x^a / Gamma(1 + a)
  sum_{n>=1} (-x)^n / (n! (a + n))``, with ``lgamma(1 + a)`` from its Taylor series
  ``-gamma a + sum_k (-1)^k zeta(k) a^k / k`` for tiny ``a`` (``1 - P`` would be noise).
- otherwise ``x < a + 1``: the power series of ``P``; elsewhere: the continued fraction
  of ``Q`` (modified Lentz), both up to ``_ITERS`` terms.

The prefactor ``x^a e^-x / Gamma(a)`` is taken in log form, for ``a >= 50`` as ``a
log(x / a) - (x - a) + log(a / 2 pi) / 2 - (Stirling's correction)``, which neither
overflows nor cancels for huge ``a`` and ``x``. All loops run over terms, not elements.
"""

from __future__ import annotations

import math

import numpy as np

from . import _core
from .grad_mode import no_grad

__all__ = ["p_and_q"]

_ITERS = 400
_EPS = 1e-16
_EULER = 0.5772156649015329
_LOG_2PI = math.log(2.0 * math.pi)

# Temme's c_k(eta) = sum_n _TEMME[k][n] eta^n, k < 10, n < 20 (generated; see above)
# fmt: off
_TEMME = (
    (
        -0.3333333333333333, 0.08333333333333333, -0.014814814814814815,
        0.0011574074074074073, 0.0003527336860670194, -0.0001787551440329218,
        3.919263178522438e-05, -2.185448510679992e-06, -1.85406221071516e-06,
        8.296711340953087e-07, -1.7665952736826078e-07, 6.707853543401498e-09,
        1.0261809784240309e-08, -4.382036018453353e-09, 9.14769958223679e-10,
        -2.5514193994946248e-11, -5.830772132550426e-11, 2.4361948020667415e-11,
        -5.0276692801141755e-12, 1.1004392031956135e-13
    ),
    (
        -0.001851851851851852, -0.003472222222222222, 0.0026455026455026454,
        -0.0009902263374485596, 0.00020576131687242798, -4.018775720164609e-07,
        -1.8098550334489977e-05, 7.64916091608111e-06, -1.6120900894563446e-06,
        4.647127802807434e-09, 1.378633446915721e-07, -5.752545603517705e-08,
        1.1951628599778148e-08, -1.7543241719747647e-11, -1.0091543710600413e-09,
        4.162792991842583e-10, -8.56390702649298e-11, 6.067215101604758e-14,
        7.1624989648114856e-12, -2.933186643771437e-12
    ),
    (
        0.004133597883597883, -0.0026813271604938273, 0.0007716049382716049,
        2.0093878600823047e-06, -0.0001073665322636516, 5.2923448829120125e-05,
        -1.2760635188618728e-05, 3.423578734096138e-08, 1.3721957309062934e-06,
        -6.298992138380055e-07, 1.4280614206064242e-07, -2.0477098421990866e-10,
        -1.409252991086752e-08, 6.228974084922022e-09, -1.3670488396617114e-09,
        9.428356159014678e-13, 1.2872252400089318e-10, -5.5645956134363323e-11,
        1.197593554636698e-11, -4.1689782251838634e-15
    ),
    (
        0.0006494341563786008, 0.00022947209362139917, -0.0004691894943952557,
        0.00026772063206283885, -7.561801671883977e-05, -2.396505113867297e-07,
        1.1082654115347302e-05, -5.6749528269915965e-06, 1.4230900732435883e-06,
        -2.7861080291528143e-11, -1.6958404091930278e-07, 8.099464905388083e-08,
        -1.9111168485973655e-08, 2.3928620439808118e-12, 2.0620131815488797e-09,
        -9.460496661855133e-10, 2.1541049775774907e-10, -1.388823336813903e-14,
        -2.1894761681963938e-11, 9.790998951171684e-12
    ),
    (
        -0.0008618882909167117, 0.0007840392217200666, -0.0002990724803031902,
        -1.4638452578843418e-06, 6.641498215465122e-05, -3.968365047179435e-05,
        1.1375726970678419e-05, 2.507497226237533e-10, -1.6954149536558305e-06,
        8.907507532205309e-07, -2.292934834000805e-07, 2.956794137544049e-11,
        2.8865829742708783e-08, -1.4189739437803219e-08, 3.4463580499464896e-09,
        -2.3024517174528067e-13, -3.9409233028046403e-10, 1.86023389685045e-10,
        -4.356323005056618e-11, 1.278600101629623e-15
    ),
    (
        -0.00033679855336635813, -6.972813758365857e-05, 0.0002772753244959392,
        -0.00019932570516188847, 6.797780477937208e-05, 1.419062920643967e-07,
        -1.3594048189768693e-05, 8.018470256334202e-06, -2.291481176508095e-06,
        -3.252473551298454e-10, 3.4652846491085265e-07, -1.8447187191171344e-07,
        4.8240967037894184e-08, -1.7989466721743514e-14, -6.306194500013523e-09,
        3.162417628774568e-09, -7.840924253697429e-10, 5.192679165254041e-15,
        9.358944242306784e-11, -4.513426216163278e-11
    ),
    (
        0.0005313079364639922, -0.0005921664373536939, 0.0002708782096718045,
        7.902353232660328e-07, -8.153969367561969e-05, 5.61168275310625e-05,
        -1.8329116582843375e-05, -3.0796134506033047e-09, 3.465155368803609e-06,
        -2.0291327396058603e-06, 5.788792863149004e-07, 2.338630673826657e-13,
        -8.828600746330484e-08, 4.7435958880408125e-08, -1.2545415020710383e-08,
        8.649648858010293e-14, 1.6846058979264062e-09, -8.575492823577594e-10,
        2.1598224929232125e-10, -7.613230520476153e-16
    ),
    (
        0.00034436760689237765, 5.171790908260592e-05, -0.00033493161081142234,
        0.0002812695154763237, -0.00010976582244684731, -1.2741009095484485e-07,
        2.7744451511563645e-05, -1.8263488805711332e-05, 5.7876949497350525e-06,
        4.93875893393627e-10, -1.0595367014026043e-06, 6.166714376110408e-07,
        -1.7562973359060463e-07, -1.297447328701544e-12, 2.695423606288966e-08,
        -1.4578352908731272e-08, 3.887645959386175e-09, -3.881002251019412e-17,
        -5.327994173877286e-10, 2.7437977643314844e-10
    ),
    (
        -0.0006526239185953094, 0.0008394987206720873, -0.000438297098541721,
        -6.969091458420552e-07, 0.00016644846642067547, -0.00012783517679769218,
        4.629953263691304e-05, 4.557909867922708e-09, -1.0595271125805195e-05,
        6.783342904865167e-06, -2.1075476666258803e-06, -1.7213731432817144e-11,
        3.773587741611098e-07, -2.1867506700122867e-07, 6.220228804018927e-08,
        6.597703826733e-16, -9.590386497425686e-09, 5.213214492280807e-09,
        -1.3991589583935709e-09, 5.382058999060575e-16
    ),
    (
        -0.0005967612901927463, -7.204895416020011e-05, 0.0006782308837667328,
        -0.0006401475260262758, 0.00027750107634328704, 1.819700838046515e-07,
        -8.479507117068503e-05, 6.105192082501531e-05, -2.1073920183404862e-05,
        -8.858589014125599e-10, 4.5284535953805374e-06, -2.8427815022504407e-06,
        8.708234177864641e-07, 3.6886101871706966e-12, -1.534469519070206e-07,
        8.862466778790695e-08, -2.5184812301826817e-08, -1.0225912098215092e-14,
        3.896947075815478e-09, -2.1267304792235634e-09
    ),
)
# zeta(k), k = 2..31: the Taylor series of lgamma(1 + a)
_ZETA = (
    1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,
    1.0173430619844492, 1.008349277381923, 1.0040773561979444, 1.0020083928260821,
    1.000994575127818, 1.0004941886041194, 1.000246086553308, 1.0001227133475785,
    1.0000612481350588, 1.000030588236307, 1.0000152822594086, 1.0000076371976379,
    1.000003817293265, 1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
    1.0000002384505027, 1.000000119219926, 1.000000059608189, 1.0000000298035034,
    1.0000000149015549, 1.0000000074507118, 1.000000003725334, 1.0000000018626598,
    1.0000000009313275, 1.0000000004656628
)
# fmt: on


def _kernel(name: str, v: np.ndarray) -> np.ndarray:
    """ferrograd's float64 kernel `name` (``lgamma``, ``erfc``) on an array."""
    with no_grad():
        return getattr(_core.tensor(np.asarray(v, dtype=np.float64)), name)().numpy()


def _log1pmx(s: np.ndarray) -> np.ndarray:
    """``log1p(s) - s`` without cancellation for small ``|s|`` (the series below 0.3)."""
    small = np.abs(s) < 0.3
    ss = np.where(small, s, 0.0)
    total = np.zeros(s.shape)
    power = ss * ss
    for k in range(2, 40):  # 0.3^k / k < 1e-18 by k = 36
        total = total + (power / k if k % 2 == 0 else -power / k)
        power = power * ss
    with np.errstate(all="ignore"):
        return np.where(small, -total, np.log1p(s) - s)


def _lgamma1p(a: np.ndarray) -> np.ndarray:
    """``lgamma(1 + a)`` for ``a >= 0``, exact in relative terms for tiny ``a`` (where
    ``1 + a`` rounds to 1)."""
    small = a < 0.2
    s = np.where(small, a, 0.0)
    total = -_EULER * s
    power = s * s
    for k, z in enumerate(_ZETA, start=2):  # 0.2^k / k below 1e-20 by k = 26
        total = total + (z / k if k % 2 == 0 else -z / k) * power
        power = power * s
    return np.where(small, total, _kernel("lgamma", 1.0 + np.where(small, 0.0, a)))


def _log_front(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log(x^a e^-x / Gamma(a))`` for ``a, x > 0`` finite."""
    big = a >= 50
    with np.errstate(all="ignore"):
        plain = a * np.log(x) - x - _kernel("lgamma", np.where(big, 1.0, a))
        ab = np.where(big, a, 50.0)
        r = 1.0 / ab
        r2 = r * r
        corr = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))
        stirling = ab * np.log(x / ab) - (x - ab) + 0.5 * (np.log(ab) - _LOG_2PI) - corr
    return np.where(big, stirling, plain)


def _temme(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P, Q)`` by Temme's expansion (``a >= 100``, ``|x - a| < 0.3 a``)."""
    sigma = (x - a) / a
    half_eta2 = -_log1pmx(sigma)  # eta^2 / 2 >= 0
    eta = np.sign(sigma) * np.sqrt(2.0 * half_eta2)
    total = np.zeros(a.shape)
    afac = np.ones(a.shape)
    for row in _TEMME:
        ck = np.zeros(a.shape)
        for coef in reversed(row):
            ck = ck * eta + coef
        total = total + ck * afac
        afac = afac / a
    r = np.exp(-a * half_eta2) * total / np.sqrt(2.0 * math.pi * a)
    y = eta * np.sqrt(a / 2.0)
    return 0.5 * _kernel("erfc", -y) - r, 0.5 * _kernel("erfc", y) + r


def _q_small_a(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Q`` from its own series (small ``a``, ``0 < x <= 1.1``)."""
    lead = a * np.log(x) - _lgamma1p(a)
    total = np.zeros(a.shape)
    term = np.ones(a.shape)
    for n in range(1, 30):  # 1.1^n / (n! n) < 1e-33 by n = 30
        term = term * (-x) / n
        total = total + term / (a + n)
    return -np.expm1(lead) - a * np.exp(lead) * total


def _series_p(a: np.ndarray, x: np.ndarray, front: np.ndarray) -> np.ndarray:
    """``P = front / a * sum_n x^n / ((a+1)...(a+n))``."""
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(_ITERS):
        ap = ap + 1.0
        term = term * x / ap
        total = total + term
        if np.all(np.abs(term) < np.abs(total) * _EPS):
            break
    return total * np.exp(front)


def _fraction_q(a: np.ndarray, x: np.ndarray, front: np.ndarray) -> np.ndarray:
    """``Q`` by its continued fraction (modified Lentz)."""
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / 1e-300)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, _ITERS):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < 1e-300, 1e-300, d)
        c = b + an / c
        c = np.where(np.abs(c) < 1e-300, 1e-300, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) < _EPS):
            break
    return np.exp(front) * h


def p_and_q(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P(a, x), Q(a, x))`` elementwise for float64 arrays of one shape (any, 0-d
    included). Edges as the peers': NaN for negative or NaN operands and for ``a = x =
    0``; ``P = 0`` at ``x = 0``; ``P = 1`` for ``a = 0 < x`` and at ``x = inf``; ``P =
    0`` at ``a = inf``; NaN at ``a = x = inf``."""
    p = np.full(a.shape, np.nan)
    ok = (a >= 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    p[ok & (x == 0) & (a > 0)] = 0.0
    p[ok & (a == 0) & (x > 0)] = 1.0
    p[ok & np.isinf(x) & (a > 0) & ~np.isinf(a)] = 1.0
    p[ok & np.isinf(a) & ~np.isinf(x)] = 0.0
    q = np.array(1.0 - p)  # (an array also for 0-d: `1.0 - p` would be a scalar)
    live = ok & (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    a_, x_ = a[live], x[live]
    out_p, out_q = np.empty(a_.shape), np.empty(a_.shape)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        temme = (a_ >= 100) & (np.abs(x_ - a_) < 0.3 * a_)
        small_a = (x_ <= 1.1) & np.where(x_ <= 0.5, a_ < -0.4 / np.log(x_), a_ < 1.1 * x_)
        small_a &= ~temme
        series = (x_ < a_ + 1.0) & ~temme & ~small_a
        fraction = ~(temme | small_a | series)
        if temme.any():
            out_p[temme], out_q[temme] = _temme(a_[temme], x_[temme])
        if small_a.any():
            out_q[small_a] = _q_small_a(a_[small_a], x_[small_a])
            out_p[small_a] = 1.0 - out_q[small_a]
        front = _log_front(a_, x_)
        if series.any():
            out_p[series] = _series_p(a_[series], x_[series], front[series])
            out_q[series] = 1.0 - out_p[series]
        # Q <= e^front there (h < 1 for x >= a + 1): 0 once that underflows, without the
        # fraction, whose i * a terms overflow for a near the float64 limit
        gone = fraction & (front < -800.0)
        fraction &= ~gone
        out_q[gone], out_p[gone] = 0.0, 1.0
        if fraction.any():
            out_q[fraction] = _fraction_q(a_[fraction], x_[fraction], front[fraction])
            out_p[fraction] = 1.0 - out_q[fraction]
    p[live] = out_p
    q[live] = out_q
    return p, q
