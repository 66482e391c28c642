//! Complex `exp`, `ln`, `sqrt`, `sin`, `cos`, `expm1`, `log1p` and `pow` with the C99
//! Annex G special values and without the cancellations of the textbook formulas.
//!
//! `num_complex` computes these by the formulas (`exp(x)·(cos y + i sin y)`, `ln|z|` from a
//! rounded `|z|`, `sqrt` in polar form), which turn `inf · 0` into NaN: `exp(800+0j)` was
//! `inf+nanj`, `sin(800j)` `nan+infj`, `sqrt(inf+1j)` `inf+nanj`; `expm1(1e-12+0j)` was 0 and
//! `log1p(-2.5-0j)` lost the sign of its zero. These follow the C library (glibc, musl),
//! which NumPy and PyTorch use.

use num_complex::Complex;
use num_traits::Float;

/// `e^z`: `e^x + 0i` exactly on the real axis; `±inf + NaN i` / `0` for infinite `x` with
/// a non-finite `y` (C99).
#[inline]
pub fn cexp<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if y == T::zero() {
        return Complex::new(x.exp(), y);
    }
    if x.is_infinite() && !y.is_finite() {
        return if x > T::zero() {
            Complex::new(x, T::nan())
        } else {
            Complex::new(T::zero(), T::zero())
        };
    }
    let (s, c) = y.sin_cos();
    let e = x.exp();
    Complex::new(e * c, e * s)
}

/// `ln z = ln|z| + i arg z`, with `|z|` of subnormal parts taken after scaling by `2^60`
/// (its rounding to the subnormal grid lost digits: `ln(5e-324+5e-324j)`).
#[inline]
pub fn cln<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let m = x.abs().max(y.abs());
    let re = if m < T::min_positive_value() && m > T::zero() {
        let s = T::from(2f64.powi(60)).unwrap_or_else(T::one);
        let ln2x60 = T::from(60.0 * std::f64::consts::LN_2).unwrap_or_else(T::zero);
        (x * s).hypot(y * s).ln() - ln2x60
    } else {
        x.hypot(y).ln()
    };
    Complex::new(re, y.atan2(x))
}

/// Principal `sqrt z` with C99's special values (`sqrt(x + inf i) = inf + inf i` for every
/// `x`, `sqrt(inf + y i) = inf + 0i`, `sqrt(-inf + y i) = 0 + inf i`).
#[inline]
pub fn csqrt<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let inf = T::infinity();
    if y.is_infinite() {
        return Complex::new(inf, y);
    }
    if x.is_infinite() {
        return match (x > T::zero(), y.is_nan()) {
            (true, true) => Complex::new(inf, y),
            (true, false) => Complex::new(inf, T::zero().copysign(y)),
            (false, true) => Complex::new(y, inf),
            (false, false) => Complex::new(T::zero(), inf.copysign(y)),
        };
    }
    if x.is_nan() || y.is_nan() {
        return Complex::new(T::nan(), T::nan());
    }
    if x == T::zero() && y == T::zero() {
        return Complex::new(T::zero(), y);
    }
    // |z| and (|x| + |z|) / 2 lose a subnormal argument's digits and overflow near MAX:
    // scale by an even power of two first (sqrt halves the exponent exactly)
    let m = x.abs().max(y.abs());
    let pow2 = |e: i32| T::from(2f64.powi(e)).unwrap_or_else(T::one);
    let (k_in, k_out) = if m < T::min_positive_value() {
        (pow2(60), pow2(-30))
    } else if m > T::max_value() / (T::one() + T::one() + T::one() + T::one()) {
        (pow2(-2), pow2(1))
    } else {
        (T::one(), T::one())
    };
    let (xs, ys) = (x * k_in, y * k_in);
    let two = T::one() + T::one();
    let t = ((xs.abs() + xs.hypot(ys)) / two).sqrt();
    if xs >= T::zero() {
        Complex::new(t * k_out, ys / (two * t) * k_out)
    } else {
        Complex::new(ys.abs() / (two * t) * k_out, t.copysign(y) * k_out)
    }
}

/// `sinh z = sinh x cos y + i cosh x sin y`, keeping the axes exact (`sinh(x + 0i)` is
/// `sinh x + 0i` even where `cosh x` overflows).
#[inline]
fn csinh<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if y == T::zero() {
        return Complex::new(x.sinh(), y);
    }
    if x == T::zero() {
        let re = if y.is_finite() { x * y.cos() } else { x };
        return Complex::new(re, y.sin());
    }
    if x.is_infinite() && !y.is_finite() {
        return Complex::new(x, T::nan());
    }
    let (s, c) = y.sin_cos();
    Complex::new(x.sinh() * c, x.cosh() * s)
}

/// `cosh z = cosh x cos y + i sinh x sin y`, exact on the axes likewise.
#[inline]
fn ccosh<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if y == T::zero() {
        let im = if x.is_nan() { y } else { y * x.signum() };
        return Complex::new(x.cosh(), im);
    }
    if x == T::zero() {
        let im = if y.is_finite() {
            x * y.sin()
        } else {
            T::zero()
        };
        return Complex::new(y.cos(), im);
    }
    if x.is_infinite() && !y.is_finite() {
        return Complex::new(T::infinity(), T::nan());
    }
    let (s, c) = y.sin_cos();
    Complex::new(x.cosh() * c, x.sinh() * s)
}

/// `sin z = -i sinh(i z)` (`sin(800i)` is `0 + inf i`).
#[inline]
pub fn csin<T: Float>(z: Complex<T>) -> Complex<T> {
    let w = csinh(Complex::new(-z.im, z.re));
    Complex::new(w.im, -w.re)
}

/// `cos z = cosh(i z)` (`cos(800i)` is `inf - 0i`).
#[inline]
pub fn ccos<T: Float>(z: Complex<T>) -> Complex<T> {
    ccosh(Complex::new(-z.im, z.re))
}

/// `e^z - 1 = expm1(x) cos y - 2 sin²(y/2) + i e^x sin y`: no cancellation near 0.
#[inline]
pub fn cexpm1<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    if y == T::zero() {
        return Complex::new(x.exp_m1(), y);
    }
    if !(x.is_finite() && y.is_finite()) {
        let e = cexp(z);
        return Complex::new(e.re - T::one(), e.im);
    }
    let two = T::one() + T::one();
    let half = (y / two).sin();
    Complex::new(x.exp_m1() * y.cos() - two * half * half, x.exp() * y.sin())
}

/// `ln(1 + z) = ½ log1p(2x + x² + y²) + i atan2(y, 1 + x)`: accurate near 0 and keeping
/// the sign of a zero imaginary part (`log1p(-2.5 - 0i)` is `… - πi`).
#[inline]
pub fn clog1p<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let one = T::one();
    let u = x * (one + one + x) + y * y;
    if !u.is_finite() {
        return cln(Complex::new(one + x, y));
    }
    let half = one / (one + one);
    Complex::new(half * u.ln_1p(), y.atan2(one + x))
}

/// `z^w` as `e^(w ln z)`; `0^w` is 1 for `w = 0`, 0 for `Re w > 0`, `inf + NaN i` for
/// `Re w < 0` (PyTorch's) and NaN otherwise.
#[inline]
pub fn cpow<T: Float>(z: Complex<T>, w: Complex<T>) -> Complex<T> {
    if z.re == T::zero() && z.im == T::zero() {
        let zero = T::zero();
        return if w.re == zero && w.im == zero {
            Complex::new(T::one(), zero)
        } else if w.re > zero {
            Complex::new(zero, zero)
        } else if w.re < zero {
            Complex::new(T::infinity(), T::nan())
        } else {
            Complex::new(T::nan(), T::nan())
        };
    }
    cexp(w * cln(z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64 as C;

    fn same(a: C, b: C) -> bool {
        let eq = |p: f64, q: f64| {
            (p.is_nan() && q.is_nan()) || (p == q && p.is_sign_negative() == q.is_sign_negative())
        };
        eq(a.re, b.re) && eq(a.im, b.im)
    }

    #[test]
    fn special_values_are_c99s() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        assert!(same(cexp(C::new(800.0, 0.0)), C::new(inf, 0.0)));
        assert!(same(cexp(C::new(inf, inf)), C::new(inf, nan)));
        assert!(same(csin(C::new(0.0, 800.0)), C::new(0.0, inf)));
        assert!(same(ccos(C::new(0.0, 800.0)), C::new(inf, -0.0)));
        assert!(same(ccos(C::new(inf, inf)), C::new(inf, nan)));
        assert!(same(csqrt(C::new(inf, 1.0)), C::new(inf, 0.0)));
        assert!(same(csqrt(C::new(-inf, 1.0)), C::new(0.0, inf)));
        assert!(same(csqrt(C::new(nan, inf)), C::new(inf, inf)));
        assert!(same(csqrt(C::new(inf, nan)), C::new(inf, nan)));
        let t = csqrt(num_complex::Complex32::new(0.0, 1.4e-45));
        assert!((t.re - 2.646_978e-23).abs() < 1e-28 && t.re == t.im, "{t}");
        let h = csqrt(C::new(f64::MAX, f64::MAX));
        assert!(
            h.re.is_finite() && (h.re / 1.473_094_556_9e154 - 1.0).abs() < 1e-9,
            "{h}"
        );
        assert!(same(csqrt(C::new(-4.0, -0.0)), C::new(0.0, -2.0)));
        assert!(same(
            cpow(C::new(0.0, 0.0), C::new(-2.5, 0.0)),
            C::new(inf, nan)
        ));
        assert!(same(
            cpow(C::new(800.0, 0.0), C::new(800.0, 0.0)),
            C::new(inf, 0.0)
        ));
    }

    #[test]
    fn small_and_tiny_arguments_keep_their_digits() {
        assert_eq!(cexpm1(C::new(1e-12, 0.0)).re, 1e-12_f64.exp_m1());
        // cos(1e-5) - 1 = -5e-11 + 4.2e-22: the formula keeps every digit
        let want = -2.0 * (5e-6f64).sin().powi(2);
        assert!((cexpm1(C::new(0.0, 1e-5)).re / want - 1.0).abs() < 1e-14);
        assert!((clog1p(C::new(1e-12, 1e-12)).re - 1e-12).abs() < 1e-27);
        assert!(same(
            clog1p(C::new(-2.5, -0.0)),
            C::new(1.5f64.ln(), -std::f64::consts::PI)
        ));
        let l = cln(C::new(5e-324, 5e-324)).re;
        assert!((l - (-744.093_498_331_101_4)).abs() < 1e-9, "{l}");
    }

    #[test]
    fn ordinary_values_agree_with_the_formulas() {
        for &(x, y) in &[
            (0.3, -1.2),
            (2.0, 0.7),
            (-5.0, 3.0),
            (0.0, 1.0),
            (1.0, -0.0),
        ] {
            let z = C::new(x, y);
            for (a, b) in [
                (cexp(z), z.exp()),
                (cln(z), z.ln()),
                (csqrt(z), z.sqrt()),
                (csin(z), z.sin()),
                (ccos(z), z.cos()),
                (cexpm1(z), z.exp() - C::new(1.0, 0.0)),
                (clog1p(z), (z + C::new(1.0, 0.0)).ln()),
            ] {
                assert!(
                    (a - b).norm() <= 1e-13 * b.norm().max(1.0),
                    "{z}: {a} vs {b}"
                );
            }
        }
    }
}
