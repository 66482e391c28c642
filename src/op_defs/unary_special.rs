//! Scalar kernels of the special functions of the unary table: the modified Bessel
//! functions `i0`, `i1` and their exponentially scaled forms `i0e`, `i1e`, and the scaled
//! complementary error function `erfcx`. Each computes in f64 (for f32 input too) and
//! casts back, as [`f_digamma`](super::f_digamma) does.

use super::FloatMath;
use crate::error::Result;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};

/// Below this `|x|` the Bessel functions sum their power series; above it the asymptotic
/// expansion of `I_nu(x) e^-x` is below 1e-17 relative after its smallest term (about
/// `e^-2x`).
const BESSEL_SERIES_MAX: f64 = 20.0;

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

/// `sum_k (x^2/4)^k / (k! (k + nu)!)` for `nu` 0 or 1 (all terms positive: no
/// cancellation), the power series of `I_nu(x) / (x/2)^nu`.
fn bessel_series(x: f64, nu: f64) -> f64 {
    let q = x * x / 4.0;
    let (mut term, mut sum) = (1.0, 1.0);
    let mut k = 1.0f64;
    while k < 200.0 {
        term *= q / (k * (k + nu));
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
        k += 1.0;
    }
    sum
}

/// `I_nu(x) e^-x sqrt(2 pi x)` for large `x > 0`: the asymptotic series
/// `sum_k prod_j ((2j-1)^2 - 4 nu^2) / (k! (8x)^k)`, summed until its terms stop
/// shrinking or fall below 1e-17.
fn bessel_asymptotic(x: f64, nu: f64) -> f64 {
    let mu = 4.0 * nu * nu;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    let mut k = 1.0f64;
    while k < 60.0 {
        let next = term * ((2.0 * k - 1.0).powi(2) - mu) / (8.0 * k * x);
        if next.abs() >= term.abs() {
            break;
        }
        term = next;
        sum += term;
        if term.abs() < sum.abs() * 1e-17 {
            break;
        }
        k += 1.0;
    }
    sum
}

/// `I_nu(|x|) e^-|x|` for `nu` 0 or 1 (the sign of `I_1` is the caller's).
fn bessel_scaled(ax: f64, nu: f64) -> f64 {
    if ax.is_infinite() {
        return 0.0;
    }
    if ax <= BESSEL_SERIES_MAX {
        let lead = if nu == 0.0 { 1.0 } else { ax / 2.0 };
        lead * bessel_series(ax, nu) * (-ax).exp()
    } else {
        // (the two square roots apart: `2 pi ax` overflows for |x| above ~2.9e307)
        bessel_asymptotic(ax, nu) / ((2.0 * std::f64::consts::PI).sqrt() * ax.sqrt())
    }
}

/// `I_nu(|x|)`, scaled back with `e^|x|` in two halves (no overflow before the result's).
fn bessel(ax: f64, nu: f64) -> f64 {
    if ax.is_infinite() {
        return f64::INFINITY;
    }
    if ax <= BESSEL_SERIES_MAX {
        let lead = if nu == 0.0 { 1.0 } else { ax / 2.0 };
        return lead * bessel_series(ax, nu);
    }
    let half = (ax / 2.0).exp();
    bessel_scaled(ax, nu) * half * half
}

/// The modified Bessel function of the first kind of order 0, `I_0(x)` (even; +inf for
/// `|x|` above about 713).
pub fn f_i0<T: FloatMath>(x: T) -> T {
    let x = wide(x);
    narrow(if x.is_nan() { x } else { bessel(x.abs(), 0.0) })
}

/// The exponentially scaled `I_0(x) e^-|x|` (finite for every `x`, 0 at +-inf).
pub fn f_i0e<T: FloatMath>(x: T) -> T {
    let x = wide(x);
    narrow(if x.is_nan() {
        x
    } else {
        bessel_scaled(x.abs(), 0.0)
    })
}

/// The modified Bessel function of the first kind of order 1, `I_1(x)` (odd).
pub fn f_i1<T: FloatMath>(x: T) -> T {
    let x = wide(x);
    narrow(if x.is_nan() {
        x
    } else {
        bessel(x.abs(), 1.0).copysign(x)
    })
}

/// The exponentially scaled `I_1(x) e^-|x|` (odd, 0 at +-inf).
pub fn f_i1e<T: FloatMath>(x: T) -> T {
    let x = wide(x);
    narrow(if x.is_nan() {
        x
    } else {
        bessel_scaled(x.abs(), 1.0).copysign(x)
    })
}

/// `e^(x^2)`, with the rounding error of `x * x` (exact through `fma`) folded back in: the
/// plain `exp(x * x)` loses up to `x^2` ulps.
fn exp_square(x: f64) -> f64 {
    let s = x * x;
    let err = x.mul_add(x, -s);
    s.exp() * (1.0 + err)
}

/// The scaled complementary error function `erfcx(x) = e^(x^2) erfc(x)`, computed
/// without the overflow and underflow of that product: `e^(x^2) erfc(x)` with an exact
/// square below 25, its asymptotic series `1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! /
/// (2x^2)^k` above (below 1e-17 after 6 terms there), and `2 e^(x^2) - erfcx(-x)` for
/// negative `x` (+inf below about -26.6, where `e^(x^2)` overflows).
pub fn f_erfcx<T: FloatMath>(x: T) -> T {
    narrow(erfcx_f64(wide(x)))
}

fn erfcx_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        if x < -26.7 {
            return f64::INFINITY;
        }
        return 2.0 * exp_square(x) - erfcx_f64(-x);
    }
    if x < 25.0 {
        return exp_square(x) * libm::erfc(x);
    }
    let lead = 1.0 / (x * std::f64::consts::PI.sqrt());
    if x > 1e8 {
        return lead; // (0 at +inf)
    }
    let r = 1.0 / (2.0 * x * x);
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    let mut k = 1.0f64;
    while k < 20.0 {
        term *= -(2.0 * k - 1.0) * r;
        sum += term;
        if term.abs() < 1e-17 {
            break;
        }
        k += 1.0;
    }
    lead * sum
}

/// Below this `|x|` the derivative of `i1` / `i1e` takes `i1(x) / x` from its power
/// series (8 terms: below 1e-19 relative there), so that differentiating it again does
/// not divide by an underflowing `x^2` (an infinite second derivative for tiny `x`).
const BESSEL_RATIO_SERIES_MAX: f64 = 0.5;

/// `i1(x) / x = 1/2 sum_k (x^2/4)^k / (k! (k+1)!)` for small `x`, with tensor ops (Horner
/// in `x^2/4`), so its own derivative is the series' derivative.
fn bessel_i1_ratio_series(x: &Tensor) -> Result<Tensor> {
    let q = x.mul(x)?.mul_scalar(0.25)?;
    let coef = |k: i32| -> f64 {
        let fact = |n: i32| (1..=n).map(f64::from).product::<f64>();
        0.5 / (fact(k) * fact(k + 1))
    };
    let mut acc = q.mul_scalar(coef(8))?.add_scalar(coef(7))?;
    for k in (0..7).rev() {
        acc = acc.mul(&q)?.add_scalar(coef(k))?;
    }
    Ok(acc)
}

/// The derivative of `i1` (`i0(x) - i1(x) / x`) or, when `scaled`, of `i1e`
/// (`i0e(x) - i1e(x) (sign(x) + 1 / x)`), with `i0op`/`i1op` the pair of ops. For `|x|`
/// below [`BESSEL_RATIO_SERIES_MAX`] the ratio `i1(x) / x` comes from its series (times
/// `e^-|x|` when `scaled`), which is 1/2 at 0 and keeps double backward finite and exact
/// (`i1''(x) = 3x/8 + ...`, `i1e''(0) = -1`). Written with differentiable tensor ops;
/// each branch of the `where` sees safe arguments, so no inf or NaN reaches the gradient.
pub fn bessel_i1_grad(x: &Tensor, i0op: UnaryOp, i1op: UnaryOp, scaled: bool) -> Result<Tensor> {
    let ax = x.unary_raw(UnaryOp::Abs)?;
    let small = ax.binary_raw(&x.scalar_like(BESSEL_RATIO_SERIES_MAX), BinaryOp::Lt)?;
    let zero = x.scalar_like(0.0);
    let x_small = Tensor::where_(&small, x, &zero)?;
    let x_large = Tensor::where_(&small, &x.scalar_like(1.0), x)?;
    let mut series = bessel_i1_ratio_series(&x_small)?;
    if scaled {
        series = series.mul(&x_small.unary(UnaryOp::Abs)?.neg()?.exp()?)?;
    }
    let i1 = x.unary(i1op)?;
    let ratio = Tensor::where_(&small, &series, &x_large.unary(i1op)?.div(&x_large)?)?;
    let mut d = x.unary(i0op)?.sub(&ratio)?;
    if scaled {
        d = d.sub(&x.unary(UnaryOp::Sign)?.mul(&i1)?)?;
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn bessel_values_match_references() {
        // (x, I0, I1) from PyTorch's float64 kernels (Cephes)
        let cases = [
            (0.5, 1.063_483_370_741_323_6, 0.257_894_305_390_896_36),
            (1.0, 1.266_065_877_752_008_2, 0.565_159_103_992_485_1),
            (10.0, 2_815.716_628_466_254, 2_670.988_303_701_255),
            (30.0, 781_672_297_823.977_5, 768_532_038_938.956_9),
        ];
        for (x, i0, i1) in cases {
            assert!(close(f_i0(x), i0, 1e-14), "i0({x}) = {}", f_i0(x));
            assert!(close(f_i1(x), i1, 1e-14), "i1({x}) = {}", f_i1(x));
            assert!(close(f_i1(-x), -i1, 1e-14));
            assert!(close(f_i0e(x), i0 * (-x).exp(), 1e-14));
            assert!(close(f_i1e(-x), -i1 * (-x).exp(), 1e-14));
        }
        assert_eq!(f_i0(0.0), 1.0);
        assert_eq!(f_i1(0.0), 0.0);
        assert_eq!(f_i0(f64::INFINITY), f64::INFINITY);
        assert_eq!(f_i0e(f64::NEG_INFINITY), 0.0);
        assert!(f_i1e(f64::NAN).is_nan());
        assert_eq!(f_i0(800.0f32), f32::INFINITY);
        // beyond ~2.9e307, where 2 pi x overflows: i0e ~ 1 / sqrt(2 pi x), i0 = inf
        let huge: f64 = 1.5e308;
        let want = 1.0 / (2.0 * std::f64::consts::PI).sqrt() / huge.sqrt();
        assert!(close(f_i0e(huge), want, 1e-14));
        assert!(close(f_i1e(-huge), -want, 1e-14));
        assert_eq!(f_i0(-huge), f64::INFINITY);
        assert_eq!(f_i1(-huge), f64::NEG_INFINITY);
    }

    #[test]
    fn erfcx_is_accurate_where_the_naive_product_is_not() {
        assert_eq!(f_erfcx(0.0), 1.0);
        // erfcx(x) ~ 1 / (x sqrt(pi)) for large x, where e^(x^2) overflows
        let x = 1e5;
        assert!(close(
            f_erfcx(x),
            1.0 / (x * std::f64::consts::PI.sqrt()),
            1e-9
        ));
        assert_eq!(f_erfcx(f64::INFINITY), 0.0);
        assert_eq!(f_erfcx(-30.0), f64::INFINITY);
        // the two formulas agree where one takes over from the other
        let product = exp_square(25.0) * libm::erfc(25.0);
        assert!(close(f_erfcx(25.0), product, 1e-14), "{product}");
        assert!(f_erfcx(f64::NAN).is_nan());
    }
}
