//! Scalar kernels of `torch.special`'s Bessel family beyond `i0`/`i1`: the Bessel
//! functions of the first and second kind `J0`, `J1`, `Y0`, `Y1` (libm's, musl's port of
//! FreeBSD's), the modified Bessel functions of the second kind `K0`, `K1` and their
//! scaled forms `K0(x) e^x`, `K1(x) e^x`, the spherical Bessel function `j0 = sin(x) / x`
//! and the Airy function `Ai`. Each computes in f64 (for f32 input too) and casts back.
//!
//! PyTorch declares all of them `non_differentiable` (derivatives.yaml); here their
//! backward raises instead of letting a gradient silently skip them
//! ([`no_derivative`]).

use super::FloatMath;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `x` as f64 (NaN if it does not convert).
fn wide<T: FloatMath>(x: T) -> f64 {
    num_traits::ToPrimitive::to_f64(&x).unwrap_or(f64::NAN)
}

/// `v` in `T` (an f32 overflow is an infinity of `v`'s sign, not a failed cast).
fn narrow<T: FloatMath>(v: f64) -> T {
    <T as num_traits::NumCast>::from(v).unwrap_or(if v > 0.0 {
        T::infinity()
    } else {
        T::neg_infinity()
    })
}

/// The backward of an op PyTorch does not differentiate: a clear error naming it.
pub fn no_derivative(name: &str) -> Result<Tensor> {
    Err(Error::not_implemented(format!(
        "special.{name} is not differentiable (PyTorch declares it non_differentiable); \
         detach its input or its result (`.detach()`) before using it in a loss"
    )))
}

/// The Bessel function of the first kind of order 0, `J0(x)`.
pub fn f_bessel_j0<T: FloatMath>(x: T) -> T {
    narrow(libm::j0(wide(x)))
}

/// The Bessel function of the first kind of order 1, `J1(x)` (odd).
pub fn f_bessel_j1<T: FloatMath>(x: T) -> T {
    narrow(libm::j1(wide(x)))
}

/// The Bessel function of the second kind of order 0, `Y0(x)` (-inf at 0, NaN below).
pub fn f_bessel_y0<T: FloatMath>(x: T) -> T {
    narrow(libm::y0(wide(x)))
}

/// The Bessel function of the second kind of order 1, `Y1(x)` (-inf at 0, NaN below).
pub fn f_bessel_y1<T: FloatMath>(x: T) -> T {
    narrow(libm::y1(wide(x)))
}

/// Euler's constant gamma.
const EULER: f64 = 0.577_215_664_901_532_9;

/// Below this `x` the `K` functions sum their power series (no cancellation worth a digit
/// there); above it they integrate [`k_scaled_integral`].
const K_SERIES_MAX: f64 = 1.0;

/// `K_nu(x) e^x = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt` for `x > 0`, by the
/// trapezoidal rule, which converges geometrically for this integrand (analytic in a
/// strip around the real axis, decaying doubly exponentially). The step shrinks like
/// `1 / sqrt(x)` with the integrand's width, so the number of nodes stays bounded (about
/// 20 for large `x`, 60 at `x = 0.5`); the integrand is cut where it is below 1e-22 of
/// its integral. `cosh t - 1 = 2 sinh(t/2)^2` keeps it exact near `t = 0`.
fn k_scaled_integral(x: f64, nu: f64) -> f64 {
    let h = (0.35 / x.sqrt()).min(0.1);
    // x (cosh t - 1) = 52 there (not acosh(1 + 52/x): 1 + 52/x rounds to 1 for huge x)
    let t_max = 2.0 * (26.0 / x).sqrt().asinh();
    let mut sum = 0.5; // the node t = 0 (weight 1/2, value 1)
    let mut t = h;
    while t <= t_max + h {
        let s = (0.5 * t).sinh();
        sum += (-2.0 * x * s * s).exp() * (nu * t).cosh();
        t += h;
    }
    sum * h
}

/// `(x/2)^2` power-series sums of `I0`, `I1` and the `K` series: returns
/// `(I0(x), I1(x), sum_k q^k H_k / k!^2, sum_k q^k (psi(k+1) + psi(k+2)) / (k! (k+1)!))`
/// with `q = x^2/4` and `H_k` the harmonic numbers, for `0 < x <= K_SERIES_MAX`.
fn k_series_parts(x: f64) -> (f64, f64, f64, f64) {
    let q = 0.25 * x * x;
    let (mut i0, mut i1) = (1.0, 1.0);
    let (mut a, mut b) = (1.0f64, 1.0f64); // q^k / k!^2, q^k / (k! (k+1)!)
    let mut harmonic = 0.0;
    let mut s0 = 0.0;
    let mut s1 = -2.0 * EULER + 1.0; // k = 0: psi(1) + psi(2) = -2 gamma + 1
    let mut k = 1.0f64;
    while k < 40.0 {
        a *= q / (k * k);
        b *= q / (k * (k + 1.0));
        harmonic += 1.0 / k;
        i0 += a;
        i1 += b;
        s0 += a * harmonic;
        s1 += b * (-2.0 * EULER + 2.0 * harmonic + 1.0 / (k + 1.0));
        if a < 1e-18 * i0 {
            break;
        }
        k += 1.0;
    }
    (i0, 0.5 * x * i1, s0, s1)
}

/// `K0(x)` (`scaled`: times `e^x`) for `x >= 0`: +inf at 0, NaN below, 0 at +inf.
fn k0(x: f64, scaled: bool) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x <= K_SERIES_MAX {
        let (i0, _, s0, _) = k_series_parts(x);
        let v = -((0.5 * x).ln() + EULER) * i0 + s0;
        return if scaled { v * x.exp() } else { v };
    }
    let v = k_scaled_integral(x, 0.0);
    if scaled {
        v
    } else {
        v * (-x).exp()
    }
}

/// `K1(x)` (`scaled`: times `e^x`) for `x >= 0`: +inf at 0, NaN below, 0 at +inf.
fn k1(x: f64, scaled: bool) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x <= K_SERIES_MAX {
        let (_, i1, _, s1) = k_series_parts(x);
        let v = 1.0 / x + (0.5 * x).ln() * i1 - 0.25 * x * s1;
        return if scaled { v * x.exp() } else { v };
    }
    let v = k_scaled_integral(x, 1.0);
    if scaled {
        v
    } else {
        v * (-x).exp()
    }
}

/// The modified Bessel function of the second kind of order 0, `K0(x)`.
pub fn f_k0<T: FloatMath>(x: T) -> T {
    narrow(k0(wide(x), false))
}

/// The modified Bessel function of the second kind of order 1, `K1(x)`.
pub fn f_k1<T: FloatMath>(x: T) -> T {
    narrow(k1(wide(x), false))
}

/// The exponentially scaled `K0(x) e^x`.
pub fn f_k0e<T: FloatMath>(x: T) -> T {
    narrow(k0(wide(x), true))
}

/// The exponentially scaled `K1(x) e^x`.
pub fn f_k1e<T: FloatMath>(x: T) -> T {
    narrow(k1(wide(x), true))
}

/// The spherical Bessel function of the first kind of order 0, `sin(x) / x` (1 at 0, 0 at
/// +-inf); its Taylor series below `|x| = 0.5`, where the quotient loses digits.
pub fn f_spherical_j0<T: FloatMath>(x: T) -> T {
    let x = wide(x);
    narrow(if x.is_infinite() {
        0.0
    } else if x.abs() < 0.5 {
        // sum_k (-1)^k x^2k / (2k+1)!, 9 terms: below 1e-19 relative at |x| = 0.5
        let x2 = x * x;
        let mut acc = 0.0;
        for k in (1..=9).rev() {
            let k = f64::from(k);
            acc = 1.0 - x2 * acc / ((2.0 * k) * (2.0 * k + 1.0));
        }
        acc
    } else {
        x.sin() / x
    })
}

/// A double-double number `hi + lo` (|lo| <= ulp(hi) / 2): 106 bits, for the Airy series.
#[derive(Clone, Copy)]
struct Dd(f64, f64);

impl Dd {
    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }
    fn add(self, o: Dd) -> Dd {
        let s = Dd::two_sum(self.0, o.0);
        let lo = s.1 + self.1 + o.1;
        Dd::two_sum(s.0, lo)
    }
    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        let err = self.0.mul_add(o.0, -p) + self.0 * o.1 + self.1 * o.0;
        Dd::two_sum(p, err)
    }
    fn div_f64(self, d: f64) -> Dd {
        let q = self.0 / d;
        let p = q * d;
        let perr = q.mul_add(d, -p);
        let r = ((self.0 - p) - perr + self.1) / d;
        Dd::two_sum(q, r)
    }
    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }
}

/// `Ai(0)` and `-Ai'(0)` as double-doubles (`3^(-2/3) / Gamma(2/3)`, `3^(-1/3) /
/// Gamma(1/3)`).
const AIRY_C1: Dd = Dd(0.355_028_053_887_817_2, 2.052_336_324_362_12e-17);
const AIRY_C2: Dd = Dd(0.258_819_403_792_806_8, -2.522_243_111_610_832e-17);

/// `Ai(x)` from its Maclaurin series `c1 f(x) - c2 g(x)`, `f = sum 3^k (1/3)_k x^3k /
/// (3k)!`, `g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!`, in double-double: for negative `x`
/// the terms grow to about `e^(2/3 |x|^1.5)` (1e11 at -12) before they cancel, which the
/// 106-bit sums absorb.
fn airy_series(x: f64) -> f64 {
    let xd = Dd(x, 0.0);
    let x3 = xd.mul(xd).mul(xd);
    let (mut f, mut g) = (Dd(1.0, 0.0), xd);
    let (mut tf, mut tg) = (Dd(1.0, 0.0), xd);
    let mut k = 0.0f64;
    while k < 200.0 {
        tf = tf.mul(x3).div_f64((3.0 * k + 2.0) * (3.0 * k + 3.0));
        tg = tg.mul(x3).div_f64((3.0 * k + 3.0) * (3.0 * k + 4.0));
        f = f.add(tf);
        g = g.add(tg);
        if tf.0.abs() < 1e-34 * f.0.abs().max(1.0) && tg.0.abs() < 1e-34 * g.0.abs().max(1.0) {
            break;
        }
        k += 1.0;
    }
    let r = AIRY_C1.mul(f).add(AIRY_C2.mul(g).neg());
    r.0 + r.1
}

/// `Ai(-z)` for large `z` (>= 12): the asymptotic expansion `pi^-1/2 z^-1/4 (cos(zeta -
/// pi/4) sum_k (-1)^k u_2k zeta^-2k + sin(zeta - pi/4) sum_k (-1)^k u_2k+1 zeta^-2k-1)`,
/// `zeta = 2/3 z^3/2`, `u_k = (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) u_k-1`; its smallest
/// term (~e^-2zeta) is below 1e-18 from z = 12 on.
fn airy_negative_asymptotic(z: f64) -> f64 {
    let zeta = 2.0 / 3.0 * z * z.sqrt();
    let (mut even, mut odd) = (0.0f64, 0.0f64);
    let mut u = 1.0f64;
    let mut term_prev = f64::INFINITY;
    let mut power = 1.0f64; // zeta^-k
    for k in 0..60 {
        if k > 0 {
            let kf = f64::from(k);
            u *= (6.0 * kf - 5.0) * (6.0 * kf - 3.0) * (6.0 * kf - 1.0)
                / ((2.0 * kf - 1.0) * 216.0 * kf);
            power /= zeta;
        }
        let term = u * power;
        if term >= term_prev || term < 1e-18 {
            break;
        }
        term_prev = term;
        let sign = if (k / 2) % 2 == 0 { 1.0 } else { -1.0 };
        if k % 2 == 0 {
            even += sign * term;
        } else {
            odd += sign * term;
        }
    }
    // cos(zeta - pi/4) and sin(zeta - pi/4) without forming zeta - pi/4 (no digits lost)
    let (s, c) = zeta.sin_cos();
    let r = std::f64::consts::FRAC_1_SQRT_2;
    let (cos_m, sin_m) = ((c + s) * r, (s - c) * r);
    (cos_m * even + sin_m * odd) / (std::f64::consts::PI.sqrt() * z.sqrt().sqrt())
}

/// Above this `x`, `Ai(x) < e^-(2/3) x^1.5` is below the smallest subnormal.
const AIRY_UNDERFLOW: f64 = 110.0;

/// The Airy function of the first kind `Ai(x)` (0 at +-inf; underflows to 0 above about
/// 105). Above 1: `sqrt(x/3) / pi * K_1/3(zeta)`, `zeta = 2/3 x^3/2`, from the scaled
/// integral of [`k_scaled_integral`]; on [-12, 1] the double-double Maclaurin series;
/// below -12 the asymptotic expansion.
fn airy_ai(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() || x > AIRY_UNDERFLOW {
        return 0.0;
    }
    if x > 1.0 {
        let zeta = 2.0 / 3.0 * x * x.sqrt();
        let k = k_scaled_integral(zeta, 1.0 / 3.0);
        return (x / 3.0).sqrt() / std::f64::consts::PI * k * (-zeta).exp();
    }
    if x >= -12.0 {
        return airy_series(x);
    }
    airy_negative_asymptotic(-x)
}

/// The Airy function `Ai(x)`.
pub fn f_airy_ai<T: FloatMath>(x: T) -> T {
    narrow(airy_ai(wide(x)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn k_and_airy_values_match_references() {
        // (x, K0, K1) from SciPy 1.17 (scipy.special.k0 / k1)
        let cases = [
            (0.1, 2.427_069_024_702_017, 9.853_844_780_870_606),
            (1.0, 0.421_024_438_240_708_3, 0.601_907_230_197_234_6),
            (5.0, 0.003_691_098_334_042_594_4, 0.004_044_613_445_452_164),
        ];
        for (x, k0v, k1v) in cases {
            assert!(close(f_k0(x), k0v, 1e-14), "k0({x}) = {}", f_k0(x));
            assert!(close(f_k1(x), k1v, 1e-14), "k1({x}) = {}", f_k1(x));
        }
        assert_eq!(f_k0(0.0), f64::INFINITY);
        assert!(f_k1(-1.0f64).is_nan());
        assert_eq!(f_k0e(f64::INFINITY), 0.0);
        // Ai(0) and Ai(-20), Ai(3) from SciPy
        assert!(close(f_airy_ai(0.0), 0.355_028_053_887_817_2, 1e-15));
        assert!(close(f_airy_ai(3.0), 0.006_591_139_357_460_72, 1e-13));
        assert!(close(f_airy_ai(-20.0), -0.176_406_127_077_984_2, 1e-12));
        assert_eq!(f_spherical_j0(0.0), 1.0);
    }
}
