//! Complex division and `tanh`/`tan` without intermediate overflow.
//!
//! `num_complex` divides through `|b|²` (which overflows once `|b|` passes about 1.8e19
//! in complex64, so `b / b` became NaN) and computes `tanh` as `sinh(2x) / cosh(2x)`-style
//! ratios (NaN once `cosh` overflows: `tanh(200+0.5j)` was NaN). These follow the
//! algorithms NumPy and the C library use: Smith's scaled division, and glibc's `ctanh`
//! (which switches to the limit `±1 + 4 sin y cos y e^{-2|x|} i` for large `|x|`).

use num_complex::Complex;
use num_traits::Float;

/// `a / b` by Smith's algorithm (as NumPy's complex division): no `|b|²` is formed.
#[inline]
pub fn cdiv<T: Float>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let (c, d) = (b.re, b.im);
    if c.abs() >= d.abs() {
        if c == T::zero() && d == T::zero() {
            // both parts zero: inf or NaN per part, as NumPy gives
            return Complex::new(a.re / c.abs(), a.im / d.abs());
        }
        let rat = d / c;
        let scl = T::one() / (c + d * rat);
        Complex::new((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl)
    } else {
        let rat = c / d;
        let scl = T::one() / (d + c * rat);
        Complex::new((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
    }
}

/// `tanh(z)` without overflow for large `|Re z|` (glibc's `ctanh`).
#[inline]
pub fn ctanh<T: Float>(z: Complex<T>) -> Complex<T> {
    let (x, y) = (z.re, z.im);
    let large = T::from(22.0).unwrap_or_else(T::max_value);
    if x.abs() > large {
        // tanh x rounds to ±1; the imaginary part is 4 sin y cos y e^{-2|x|}
        let re = T::one().copysign(x);
        let im = if y.is_finite() {
            let (s, c) = y.sin_cos();
            let four = T::from(4.0).unwrap_or_else(T::one);
            four * s * c * (-(x.abs() + x.abs())).exp()
        } else if x.is_infinite() {
            T::zero().copysign(y)
        } else {
            T::nan()
        };
        return Complex::new(re, im);
    }
    let (s, c) = y.sin_cos();
    let (sh, ch) = (x.sinh(), x.cosh());
    let den = sh * sh + c * c;
    Complex::new(sh * ch / den, s * c / den)
}

/// `tan(z) = -i tanh(i z)`, so large imaginary parts do not overflow either.
#[inline]
pub fn ctan<T: Float>(z: Complex<T>) -> Complex<T> {
    let t = ctanh(Complex::new(-z.im, z.re));
    Complex::new(t.im, -t.re)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::{Complex32, Complex64};

    #[test]
    fn division_does_not_overflow() {
        let b = Complex32::new(3e19, 3e19);
        assert_eq!(cdiv(b, b), Complex32::new(1.0, 0.0));
        let q = cdiv(Complex64::new(1.0, 2.0), Complex64::new(3.0, -4.0));
        let r = Complex64::new(1.0, 2.0) / Complex64::new(3.0, -4.0);
        assert!((q - r).norm() < 1e-15);
        let z = cdiv(Complex64::new(1.0, 0.0), Complex64::new(0.0, 0.0));
        assert!(z.re.is_infinite() && z.im.is_nan());
    }

    #[test]
    fn tanh_and_tan_of_large_arguments() {
        let t = ctanh(Complex64::new(200.0, 0.5));
        assert_eq!(t.re, 1.0);
        assert!(t.im > 0.0 && t.im < 1e-170);
        assert_eq!(ctanh(Complex32::new(-1e30, 1.0)).re, -1.0);
        assert_eq!(ctanh(Complex64::new(f64::INFINITY, 1.0)).re, 1.0);
        for &(x, y) in &[(0.3, -1.2), (2.0, 0.7), (-5.0, 3.0)] {
            let z = Complex64::new(x, y);
            assert!((ctanh(z) - z.tanh()).norm() < 1e-14);
            assert!((ctan(z) - z.tan()).norm() < 1e-14);
        }
        assert_eq!(ctan(Complex64::new(0.5, 300.0)).im, 1.0);
    }
}
