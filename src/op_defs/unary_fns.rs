//! Scalar helpers used by the kernel closures of the unary op table
//! ([`for_each_unary_op!`](crate::op_defs::unary)); each consumer imports them.

pub use crate::kernels::complex_elem::{ccos, cexp, cln, csin, csqrt};
use crate::kernels::complex_elem::{cexpm1, clog1p};
use crate::kernels::complex_math::cdiv;
pub use crate::kernels::complex_math::{ctan, ctanh};
use crate::kernels::scalar::Real;
use num_complex::Complex;
use num_traits::Float;

#[path = "unary_special.rs"]
mod special;
pub use special::{bessel_i1_grad, f_erfcx, f_i0, f_i0e, f_i1, f_i1e};

#[path = "unary_bessel.rs"]
mod bessel;
pub use bessel::{
    f_airy_ai, f_bessel_j0, f_bessel_j1, f_bessel_y0, f_bessel_y1, f_k0, f_k0e, f_k1, f_k1e,
    f_spherical_j0, no_derivative,
};

/// Float math the float kernels need beyond [`Float`], for f32 and f64.
pub trait FloatMath: Real + Float {
    /// Gauss error function.
    fn erf(self) -> Self;
    /// Complementary error function `1 - erf(x)`, without the cancellation for large `x`.
    fn erfc(self) -> Self;
    /// `ln |Gamma(x)|` (libm's port of the FreeBSD/musl `lgamma`: +inf at the poles).
    fn lgamma(self) -> Self;
    /// Inverse hyperbolic sine, libm's (musl's): `ln(2|x|)` for huge `|x|` where std's
    /// `asinh` overflowed to infinity above `MAX / 2`.
    fn asinh_libm(self) -> Self;
    /// Inverse hyperbolic cosine, libm's: finite up to `MAX` (std's overflowed).
    fn acosh_libm(self) -> Self;
    /// Inverse hyperbolic tangent, libm's: computed on `|x|` with the sign put back, so it
    /// is as accurate next to -1 as next to 1 (std's lost digits next to -1).
    fn atanh_libm(self) -> Self;
}
impl FloatMath for f32 {
    fn erf(self) -> Self {
        libm::erff(self)
    }
    fn erfc(self) -> Self {
        libm::erfcf(self)
    }
    fn lgamma(self) -> Self {
        libm::lgammaf(self)
    }
    fn asinh_libm(self) -> Self {
        libm::asinhf(self)
    }
    fn acosh_libm(self) -> Self {
        libm::acoshf(self)
    }
    fn atanh_libm(self) -> Self {
        libm::atanhf(self)
    }
}
impl FloatMath for f64 {
    fn erf(self) -> Self {
        libm::erf(self)
    }
    fn erfc(self) -> Self {
        libm::erfc(self)
    }
    fn lgamma(self) -> Self {
        libm::lgamma(self)
    }
    fn asinh_libm(self) -> Self {
        libm::asinh(self)
    }
    fn acosh_libm(self) -> Self {
        libm::acosh(self)
    }
    fn atanh_libm(self) -> Self {
        libm::atanh(self)
    }
}

/// The digamma function `d/dx ln Gamma(x)`, computed in f64 (for f32 input too).
///
/// `x > 0`: the recurrence `psi(x) = psi(x + 1) - 1/x` up to `x >= 10`, then the asymptotic
/// series `ln x - 1/(2x) - sum_k B_2k / (2k x^2k)` (7 terms: below 1e-16 relative there).
/// `x < 0`: the reflection `psi(x) = psi(1 - x) - pi / tan(pi x)`, with `tan` taken of the
/// fractional part so large `|x|` lose no accuracy. Poles: NaN at negative integers, and
/// at zero `-inf` for `+0.0` / `+inf` for `-0.0` (as PyTorch); `+inf` gives `+inf`,
/// `-inf` and NaN give NaN.
pub fn f_digamma<T: FloatMath>(x: T) -> T {
    let xf: f64 = num_traits::ToPrimitive::to_f64(&x).unwrap_or(f64::NAN);
    let v = digamma_f64(xf);
    // an f32 overflow (next to a pole) is an infinity, not a failed cast
    <T as num_traits::NumCast>::from(v).unwrap_or(if v > 0.0 {
        T::infinity()
    } else {
        T::neg_infinity()
    })
}

fn digamma_f64(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // pi / tan(pi x) has period 1: reduce first, to the fractional part (exact; as
        // PyTorch's `modf`): `x - floor(x)` rounds to 1 just below a negative integer
        let r = x.fract();
        return digamma_f64(1.0 - x) - std::f64::consts::PI / (std::f64::consts::PI * r).tan();
    }
    let mut x = x;
    let mut acc = 0.0;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    // B_2k / (2k) for k = 1..=7
    const C: [f64; 7] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
        1.0 / 12.0,
    ];
    let z = 1.0 / (x * x);
    let mut series = 0.0;
    for c in C.iter().rev() {
        series = (series + c) * z;
    }
    acc + x.ln() - 0.5 / x - series
}

/// Inverse error function: Giles' single-precision rational approximation as the start,
/// then Newton steps until they settle, on `erf(x) - y`, or near +-1 on
/// `log(erfc(|x|)) - log(1 - |y|)`, so f64 results are accurate to a few ulps. `|y| > 1` (and NaN) gives NaN, `+-1` gives `+-inf`.
pub fn f_erfinv<T: FloatMath>(y: T) -> T {
    let yf: f64 = num_traits::ToPrimitive::to_f64(&y).unwrap_or(f64::NAN);
    if yf.is_nan() || yf.abs() > 1.0 {
        return T::nan();
    }
    if yf == 0.0 {
        return y; // +-0 keeps its sign (Newton's `x += 0.0` below would make -0 into +0)
    }
    if yf.abs() == 1.0 {
        return if yf > 0.0 {
            T::infinity()
        } else {
            T::neg_infinity()
        };
    }
    // Giles (2010), "Approximating the erfinv function"
    let w = -((1.0 - yf) * (1.0 + yf)).ln();
    let mut x = if w < 5.0 {
        let w = w - 2.5;
        let mut p = 2.810_226_36e-08;
        for c in [
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ] {
            p = c + p * w;
        }
        p * yf
    } else {
        let w = w.sqrt() - 3.0;
        let mut p = -0.000_200_214_257;
        for c in [
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ] {
            p = c + p * w;
        }
        p * yf
    };
    let k = 2.0 / std::f64::consts::PI.sqrt();
    // Near +-1 the residual is taken through erfc against `1 - |y|`, which is exact there
    // (Sterbenz), so the tail keeps full precision; elsewhere through erf.
    let tail = yf.abs() > 0.5;
    let (target, sign) = (1.0 - yf.abs(), yf.signum());
    if tail {
        x = x.abs();
    }
    // Giles' start is off by up to ~2 % in the far tail, so Newton runs until it settles
    // (quadratic convergence: 3-4 steps); the tail takes it on log(erfc), nearly linear in x.
    for _ in 0..8 {
        let d = k * (-x * x).exp();
        let step = if tail {
            let ec = libm::erfc(x);
            (ec.ln() - target.ln()) * ec / d
        } else {
            (yf - libm::erf(x)) / d
        };
        if d == 0.0 || !step.is_finite() {
            break;
        }
        x += step;
        if step.abs() <= 1e-16 * x.abs() {
            break;
        }
    }
    if tail {
        x *= sign;
    }
    <T as num_traits::NumCast>::from(x).unwrap_or(T::nan())
}

/// `v` in the float type of a kernel (constants such as `pi / 180`).
pub fn f_const<T: Float>(v: f64) -> T {
    c(v)
}
/// True for negative integers (the sign bit of a two's-complement integer).
pub fn i_is_negative<T: Real>(x: T) -> bool {
    x < T::zero()
}

/// `T::from(v)` for constants every float type represents.
fn c<T: Float>(v: f64) -> T {
    T::from(v).expect("constant is representable")
}

/// Absolute value of a float.
pub fn f_abs<T: Float>(x: T) -> T {
    x.abs()
}
/// `1 / sqrt(x)`.
pub fn f_rsqrt<T: Float>(x: T) -> T {
    T::one() / x.sqrt()
}
/// `1 / x`.
pub fn f_recip<T: Float>(x: T) -> T {
    T::one() / x
}
/// `1 / (1 + e^-x)`.
pub fn f_sigmoid<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}
/// `max(x, 0)` (NaN gives 0, as the comparison is false).
pub fn f_relu<T: Real>(x: T) -> T {
    if x > T::zero() {
        x
    } else {
        T::zero()
    }
}
/// Exact GELU `x * Phi(x)`.
pub fn f_gelu<T: FloatMath>(x: T) -> T {
    c::<T>(0.5) * x * (c::<T>(1.0) + FloatMath::erf(x * c(std::f64::consts::FRAC_1_SQRT_2)))
}
/// `sqrt(2 / pi)`, the scale inside the tanh approximation of GELU.
pub const GELU_TANH_K: f64 = 0.797_884_560_802_865_4;
/// The cubic coefficient of the tanh approximation of GELU.
pub const GELU_TANH_C: f64 = 0.044715;
/// GELU's tanh approximation `0.5 x (1 + tanh(k (x + c x^3)))`, in the order the
/// composed ops evaluated it (so results match them bit for bit).
pub fn f_gelu_tanh<T: Float>(x: T) -> T {
    let inner = (x + c::<T>(GELU_TANH_C) * x * x * x) * c::<T>(GELU_TANH_K);
    c::<T>(0.5) * x * (T::one() + inner.tanh())
}
/// `log(1 + e^x)`, linear above 20 like torch (beta = 1, threshold = 20).
pub fn f_softplus<T: Float>(x: T) -> T {
    if x > c(20.0) {
        x
    } else {
        x.exp().ln_1p()
    }
}
/// `x * tanh(softplus(x))`.
pub fn f_mish<T: Float>(x: T) -> T {
    x * f_softplus(x).tanh()
}
/// `x * sigmoid(x)` (SiLU, Paddle's swish).
pub fn f_silu<T: Float>(x: T) -> T {
    x * f_sigmoid(x)
}
/// SELU's `alpha` (Klambauer et al. 2017, as PyTorch and Paddle).
pub const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
/// SELU's `scale`.
pub const SELU_SCALE: f64 = 1.050_700_987_355_480_5;
/// `scale * (x if x > 0 else alpha * (e^x - 1))`.
pub fn f_selu<T: Float>(x: T) -> T {
    let inner = if x > T::zero() {
        x
    } else {
        c::<T>(SELU_ALPHA) * x.exp_m1()
    };
    c::<T>(SELU_SCALE) * inner
}
/// `min(max(x, 0), 6)` (NaN stays NaN).
pub fn f_relu6<T: Float>(x: T) -> T {
    if x.is_nan() {
        x
    } else {
        x.max(T::zero()).min(c(6.0))
    }
}
/// `relu6(x + 3) / 6`.
pub fn f_hardsigmoid<T: Float>(x: T) -> T {
    f_relu6(x + c(3.0)) / c(6.0)
}
/// `x * relu6(x + 3) / 6`.
pub fn f_hardswish<T: Float>(x: T) -> T {
    x * f_hardsigmoid(x)
}
/// `x / (1 + |x|)`.
pub fn f_softsign<T: Float>(x: T) -> T {
    x / (T::one() + x.abs())
}
/// `x - tanh(x)`.
pub fn f_tanhshrink<T: Float>(x: T) -> T {
    x - x.tanh()
}
/// `log(sigmoid(x))` in the stable form `min(x, 0) - log1p(e^-|x|)`.
pub fn f_log_sigmoid<T: Float>(x: T) -> T {
    x.min(T::zero()) - (-x.abs()).exp().ln_1p()
}
/// Round half to even, as NumPy and PyTorch do.
pub fn f_round<T: Float>(x: T) -> T {
    let two = T::one() + T::one();
    if (x - x.trunc()).abs() == c(0.5) {
        (x / two).round() * two
    } else {
        x.round()
    }
}
/// `x == 0`.
pub fn is_zero<T: Real>(x: T) -> bool {
    x == T::zero()
}
/// Complex 1.
fn cone<T: Float>() -> Complex<T> {
    Complex::new(T::one(), T::zero())
}
/// `-x` for integers.
pub fn i_neg<T: Real>(x: T) -> T {
    x.neg()
}
/// Bitwise NOT `!x` of a two's-complement integer, as `-x - 1` (wrapping, so exact for
/// every value; the trait has no bit operations).
pub fn i_not<T: Real>(x: T) -> T {
    x.neg().sub(T::one())
}
/// Complex `log(1 + x)` (accurate near 0, see [`clog1p`]).
pub fn c_log1p<T: Float>(x: Complex<T>) -> Complex<T> {
    clog1p(x)
}
/// Complex `e^x - 1` (accurate near 0, see [`cexpm1`]).
pub fn c_expm1<T: Float>(x: Complex<T>) -> Complex<T> {
    cexpm1(x)
}
/// Complex `1 / sqrt(x)`.
pub fn c_rsqrt<T: Float>(x: Complex<T>) -> Complex<T> {
    cdiv(cone::<T>(), csqrt(x))
}
/// Complex `1 / x`.
pub fn c_recip<T: Float>(x: Complex<T>) -> Complex<T> {
    cdiv(cone::<T>(), x)
}
/// Complex `1 / (1 + e^-x)`.
pub fn c_sigmoid<T: Float>(x: Complex<T>) -> Complex<T> {
    cdiv(cone::<T>(), cone::<T>() + cexp(-x))
}
/// `x / |x|` (0 stays 0).
pub fn c_sign<T: Float>(x: Complex<T>) -> Complex<T> {
    if x.norm() == T::zero() {
        x
    } else {
        x / x.norm()
    }
}
/// `x == 0` for complex numbers.
pub fn c_is_zero<T: Float>(x: Complex<T>) -> bool {
    x == Complex::new(T::zero(), T::zero())
}
/// Always false (integers and bools are never NaN or infinite).
pub fn never<T>(_x: T) -> bool {
    false
}
/// Always true (integers and bools are always finite).
pub fn always<T>(_x: T) -> bool {
    true
}
/// `x` is NaN.
pub fn f_isnan<T: Float>(x: T) -> bool {
    x.is_nan()
}
/// `x` is +inf or -inf.
pub fn f_isinf<T: Float>(x: T) -> bool {
    x.is_infinite()
}
/// `x` is neither NaN nor infinite.
pub fn f_isfinite<T: Float>(x: T) -> bool {
    x.is_finite()
}
/// `x` is +inf.
pub fn f_isposinf<T: Float>(x: T) -> bool {
    x == T::infinity()
}
/// `x` is -inf.
pub fn f_isneginf<T: Float>(x: T) -> bool {
    x == T::neg_infinity()
}
/// Either part is NaN.
pub fn c_isnan<T: Float>(x: Complex<T>) -> bool {
    x.re.is_nan() || x.im.is_nan()
}
/// Either part is infinite.
pub fn c_isinf<T: Float>(x: Complex<T>) -> bool {
    x.re.is_infinite() || x.im.is_infinite()
}
/// Both parts are finite.
pub fn c_isfinite<T: Float>(x: Complex<T>) -> bool {
    x.re.is_finite() && x.im.is_finite()
}
