//! Helpers used by the binary op table ([`for_each_binary_op!`](crate::op_defs::binary)):
//! per-element kernels the scalar traits lack, and tensor-level pieces of gradient
//! formulas. Each consumer of the table imports them.

use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::tensor::{BinaryOp, Tensor};

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
}

macro_rules! impl_float_bits {
    ($($t:ty),*) => {$(
        impl FloatBits for $t {
            #[inline(always)]
            fn copy_sign(self, o: Self) -> Self {
                self.copysign(o)
            }
        }
    )*};
}
impl_float_bits!(f32, f64);

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
