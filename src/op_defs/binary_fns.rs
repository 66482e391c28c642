//! Helpers used by the binary op table ([`for_each_binary_op!`](crate::op_defs::binary)):
//! per-element kernels the scalar traits lack, and tensor-level pieces of gradient
//! formulas. Each consumer of the table imports them.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::{BinaryOp, Tensor};

#[path = "binary_polynomials.rs"]
mod polynomials;
pub use polynomials::{orthogonal_polynomial, polynomial_no_derivative, Poly};

/// The truth value of an element (non-zero), for the logical ops.
#[inline(always)]
pub fn truthy<T: Element>(x: T) -> bool {
    x != T::zero()
}

/// Bitwise ops of the integer element types.
pub trait IntBits: Copy {
    /// `a & b`.
    fn bit_and(self, o: Self) -> Self;
    /// `a | b`.
    fn bit_or(self, o: Self) -> Self;
    /// `a ^ b`.
    fn bit_xor(self, o: Self) -> Self;
}

macro_rules! impl_int_bits {
    ($($t:ty),*) => {$(
        impl IntBits for $t {
            #[inline(always)]
            fn bit_and(self, o: Self) -> Self {
                self & o
            }
            #[inline(always)]
            fn bit_or(self, o: Self) -> Self {
                self | o
            }
            #[inline(always)]
            fn bit_xor(self, o: Self) -> Self {
                self ^ o
            }
        }
    )*};
}
impl_int_bits!(i32, i64);

/// Float-only per-element ops of the binary table, for f32 and f64.
pub trait FloatBits: Copy {
    /// `|a|` with the sign (bit) of `b`.
    fn copy_sign(self, o: Self) -> Self;
    /// The Hurwitz zeta function `zeta(a, b)` (computed in f64, see [`hurwitz_zeta`]).
    fn zeta(self, q: Self) -> Self;
    /// The angle of the point `(o, self)` (C's `atan2(self, o)`).
    fn atan2(self, o: Self) -> Self;
    /// The orthogonal polynomial `kind` of degree `n` at `self` (its shifted form when
    /// `shifted`), see [`orthogonal_polynomial`].
    fn poly(self, n: Self, kind: Poly, shifted: bool) -> Self;
}

macro_rules! impl_float_bits {
    ($($t:ty),*) => {$(
        impl FloatBits for $t {
            #[inline(always)]
            fn copy_sign(self, o: Self) -> Self {
                self.copysign(o)
            }
            #[inline]
            fn zeta(self, q: Self) -> Self {
                hurwitz_zeta(self as f64, q as f64) as $t
            }
            #[inline(always)]
            fn atan2(self, o: Self) -> Self {
                <$t>::atan2(self, o)
            }
            #[inline]
            fn poly(self, n: Self, kind: Poly, shifted: bool) -> Self {
                // PyTorch's Hermite degree limits: 512 for float64, 128 for float32
                let limit = if std::mem::size_of::<$t>() == 8 { 512 } else { 128 };
                orthogonal_polynomial(kind, shifted, self as f64, n as f64, limit) as $t
            }
        }
    )*};
}
impl_float_bits!(f32, f64);

/// `a^2 + b^2` for atan2's gradient, from differentiable ops (double backward works).
pub fn squares_sum(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    a.mul(a)?.add(&b.mul(b)?)
}

/// `b - 1` for pow's gradient; a library constant stays one, so saved-tensor hooks of a
/// double backward never see (or change) an exponent the user wrote as a number.
pub fn minus_one(b: &Tensor) -> Result<Tensor> {
    if b.is_constant() {
        Ok(b.binary_raw(&b.scalar_like(1.0), BinaryOp::Sub)?
            .mark_constant())
    } else {
        b.sub(&b.scalar_like(1.0))
    }
}

/// `d(a ** b)/da * g = g * b * a ** (b - 1)`, defined as 0 where `b == 0` (as PyTorch:
/// `0 ** 0` has derivative 0 in the base, where the plain formula gives `0 * inf = NaN`).
pub fn pow_base_grad(g: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    // an internal mask: never handed to saved-tensor hooks
    let zero_exp = b
        .binary_raw(&b.scalar_like(0.0), BinaryOp::Eq)?
        .mark_constant();
    if !zero_exp.to_vec::<bool>()?.contains(&true) {
        // no zero exponent (the common case): the plain formula, nothing else recorded
        return g.mul_conj(&b.mul(&a.pow(&minus_one(b)?)?)?);
    }
    // the masked entries read a base of 1, so their (discarded) branch and its own
    // derivatives stay finite: `where` passes 0 * NaN = NaN otherwise
    let safe_a = Tensor::where_(&zero_exp, &a.ones_like()?, a)?;
    let full = b.mul(&safe_a.pow(&minus_one(b)?)?)?;
    g.mul_conj(&Tensor::where_(&zero_exp, &full.zeros_like()?, &full)?)
}

/// `d(a ** b)/db * g = g * out * ln a`, defined as 0 where `a == 0` and `b >= 0` (as
/// PyTorch; complex exponents compare their real part).
pub fn pow_exponent_grad(g: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<Tensor> {
    let zero = a.scalar_like(0.0);
    let b_real = b.real_raw()?;
    let mask = a.binary_raw(&zero, BinaryOp::Eq)?.binary_raw(
        &b_real.binary_raw(&b_real.scalar_like(0.0), BinaryOp::Ge)?,
        BinaryOp::LogicalAnd,
    )?;
    let safe_a = Tensor::where_(&mask, &a.ones_like()?, a)?;
    let full = g.mul_conj(&out.mul(&safe_a.log()?)?)?;
    Tensor::where_(&mask, &full.zeros_like()?, &full)
}

/// The share of `maximum`'s (`strict` = `Gt`) or `minimum`'s (`Lt`) gradient that goes to
/// the left operand, in `dtype`: 1 where it wins, 1/2 on ties (as PyTorch), else 0.
pub fn lhs_wins(a: &Tensor, b: &Tensor, strict: BinaryOp, dtype: DType) -> Result<Tensor> {
    let wins = a.binary_raw(b, strict)?.to_dtype(dtype)?;
    let ties = a.binary_raw(b, BinaryOp::Eq)?.to_dtype(dtype)?;
    wins.add(&ties.mul_scalar(0.5)?)
}

/// `num / den` where `den != 0`, else 0 (copysign's `out / x`, which is +-1).
pub fn ratio_or_zero(num: &Tensor, den: &Tensor) -> Result<Tensor> {
    let zero = den.binary_raw(&den.scalar_like(0.0), BinaryOp::Eq)?;
    let safe = Tensor::where_(&zero, &den.ones_like()?, den)?;
    let r = num.div(&safe)?;
    Tensor::where_(&zero, &r.zeros_like()?, &r)
}

/// `(2k)! / B_2k` for k = 1..=12: the Euler-Maclaurin tail coefficients of [`hurwitz_zeta`].
const ZETA_EM: [f64; 12] = [
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1892437580.3183792,
    74724249600.0,
    -2950130727918.164,
    116467828143500.67,
    -4597978722407473.0,
    1.8152105401943546e+17,
    -7.166165256175667e+18,
];

/// `q` from which [`hurwitz_zeta`] sums no terms directly: the Euler-Maclaurin expansion
/// at `q` itself is then accurate to an ulp, and no `q^-s` (which underflows long before
/// the result does, e.g. at q = 1e200, s = 2) is formed.
const ZETA_BIG_Q: f64 = 1e8;

/// Negative non-integer `q` below `-ZETA_NEG_DIRECT` take the reflection of
/// [`zeta_negative_q`] instead of `|q|` direct terms (a hang for q = -1e12 + 0.5).
const ZETA_NEG_DIRECT: f64 = 64.0;

/// The Hurwitz zeta function `zeta(s, q) = sum_{k >= 0} (q + k) ** -s`, for real `s > 1`
/// (`s == 1`: +inf; `s < 1`: NaN, as SciPy and PyTorch). `q` may be negative when `s` is
/// an integer (polygamma of negative arguments); a pole `q` in {0, -1, -2, ...} gives
/// +inf. The terms are summed directly until `q + k >= 10`, then the Euler-Maclaurin
/// tail adds `a^(1-s)/(s-1) + a^-s/2` and 12 Bernoulli terms (the Cephes scheme), which
/// is accurate to a few ulps in f64 for the orders polygamma uses. The tail is formed as
/// `a^(1-s)` times a bracket, so for `q >= 1e8` (the tail alone) no intermediate power
/// underflows before the result does (PyTorch's Cephes loop says 0 for `zeta(2, 1e200)`,
/// whose value is 1e-200; SciPy 1.17 agrees with the latter).
pub fn hurwitz_zeta(s: f64, q: f64) -> f64 {
    if s.is_nan() || q.is_nan() || s < 1.0 {
        return f64::NAN;
    }
    if s == 1.0 {
        return f64::INFINITY;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if s != s.floor() {
            // a negative base to a non-integer power
            return f64::NAN;
        }
        if q < -ZETA_NEG_DIRECT {
            return zeta_negative_q(s, q);
        }
    }
    if q == f64::INFINITY {
        return 0.0;
    }
    if q >= ZETA_BIG_Q {
        return zeta_em_tail(s, q, 0.0);
    }
    let mut a = q;
    let mut sum = 0.0;
    let mut i = 0;
    while i < 9 || a <= 9.0 {
        let t = a.powf(-s);
        sum += t;
        // for a > 0 the terms left sum to at most a^(1-s)/(s-1) = t a/(s-1): stop only
        // when that is negligible (Cephes compares t alone, which drops ~1/(s-1) for s
        // near 1, and stops at a first term that underflows for q < 0, whose later terms
        // grow: zeta(2.4e7, -1.5) is inf, not 0)
        let done = a > 0.0 && (t * a / (s - 1.0)).abs() <= sum.abs() * 1e-17;
        a += 1.0;
        i += 1;
        if done {
            return sum;
        }
    }
    zeta_em_tail(s, a, sum)
}

/// `direct + zeta(s, w)` by the Euler-Maclaurin expansion at `w` (`w >= 9`, `s > 1`):
/// `w^(1-s) * (1/(s-1) + 1/(2w) + sum_j s (s+1) ... (s+2j) w^(-2j-2) / ((2j+2)! / B_2j+2))`.
/// The common power is factored out, so the bracket's terms never underflow ahead of it.
fn zeta_em_tail(s: f64, w: f64, direct: f64) -> f64 {
    let scale = w.powf(1.0 - s);
    if scale == 0.0 {
        // the whole tail is below the smallest subnormal (zeta(s, w) < w^(1-s) for s >= 2,
        // w >= 1; scale only underflows for such s): skip the bracket, whose rising
        // factorial could overflow and give 0 * inf
        return direct;
    }
    let inv_w2 = 1.0 / (w * w);
    let mut bracket = 1.0 / (s - 1.0) + 0.5 / w;
    let mut rising = s; // s (s+1) ... (s+2j)
    let mut wp = inv_w2; // w^(-2j-2)
    for (j, c) in ZETA_EM.iter().enumerate() {
        let t = rising * wp / c;
        bracket += t;
        if (t * scale).abs() < (direct + scale * bracket).abs() * 1e-17 {
            break;
        }
        let k = 2.0 * j as f64;
        rising *= (s + k + 1.0) * (s + k + 2.0);
        wp *= inv_w2;
    }
    direct + scale * bracket
}

/// `zeta(s, q)` for integer `s` and non-integer `q < 0`, in O(1) rather than `|q|` terms:
/// with `n = ceil(-q)` and `p = q + n` in (0, 1) (exact), the terms before `p` are
/// `(p - j)^-s = (-1)^s (j - p)^-s` for j = 1..n, so
/// `zeta(s, q) = zeta(s, p) + (-1)^s (zeta(s, 1 - p) - zeta(s, n + 1 - p))`.
fn zeta_negative_q(s: f64, q: f64) -> f64 {
    let n = (-q).ceil();
    let p = q + n;
    // s > 2^53 is even; `%` is fmod, exact
    let sign = if s % 2.0 == 0.0 { 1.0 } else { -1.0 };
    // the first two first: for odd s they nearly cancel (exactly at p = 1/2)
    let near = hurwitz_zeta(s, p) + sign * hurwitz_zeta(s, 1.0 - p);
    near - sign * hurwitz_zeta(s, n + 1.0 - p)
}

/// Zeta's gradient in its first operand (the exponent `s`): not implemented, as in PyTorch.
pub fn zeta_exponent_grad() -> Result<Tensor> {
    Err(Error::not_implemented(
        "zeta: the derivative with respect to the first argument (the exponent x) is not implemented; only `other` (q) is differentiable",
    ))
}
