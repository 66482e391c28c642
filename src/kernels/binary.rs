//! Binary elementwise kernels with broadcasting, dispatched on dtype.
//!
//! Both operands arrive in the same compute dtype (the tensor layer promotes and casts);
//! comparisons and logical ops produce bool. The per-op kernels are declared in
//! [`crate::op_defs::binary`]; this file expands that table into one `match` per dtype
//! class.

use super::elementwise::map_binary;
#[allow(unused_imports)] // the table's closures name some of these
use super::scalar::{Num, Real};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
#[allow(unused_imports)] // the table's closures name some of these
use crate::op_defs::binary::fns::*;
pub use crate::op_defs::BinaryOp;
use crate::storage::Storage;
use num_complex::{Complex32, Complex64};

fn unsupported(op: BinaryOp, dtype: DType) -> Error {
    Error::type_err(format!("{}: not supported for {dtype} tensors", op.name()))
}

/// One `map_binary` call per declared kernel of a dtype class.
macro_rules! binary_kernels {
    ($($v:ident {
        methods: [$($m:ident),+], dunders: [$($dunder:ident),*], kwargs: [$($kw:ident),*],
        extra: [$($ex:ident)?],
        doc: $doc:literal,
        dtype: $dtype:ident,
        float: [$($float:expr)?], int: [$($int:expr)?],
        complex: [$($cplx:expr)?], boolean: [$($b:expr)?],
        saves: [$sa:ident, $sb:ident, $so:ident],
        grad: [$($lhs:expr, $rhs:expr)?],
        number_lhs: [$([$na:ident, $nb:ident, $no:ident], $nf:expr)?], node: $node:literal,
    })*) => {
        fn float_op<T: Real + FloatBits>(
            op: BinaryOp,
            a: &[T],
            la: &Layout,
            b: &[T],
            lb: &Layout,
            shape: &[usize],
        ) -> Result<Storage> {
            Ok(match op {
                $($(BinaryOp::$v => Storage::from_vec(map_binary(a, la, b, lb, shape, $float)?),)?)*
                #[allow(unreachable_patterns)]
                _ => return Err(unsupported(op, T::DTYPE)),
            })
        }

        fn int_op<T: Real + IntBits>(
            op: BinaryOp,
            a: &[T],
            la: &Layout,
            b: &[T],
            lb: &Layout,
            shape: &[usize],
        ) -> Result<Storage> {
            Ok(match op {
                $($(BinaryOp::$v => Storage::from_vec(map_binary(a, la, b, lb, shape, $int)?),)?)*
                #[allow(unreachable_patterns)]
                _ => return Err(unsupported(op, T::DTYPE)),
            })
        }

        fn complex_op<T: Num>(
            op: BinaryOp,
            a: &[T],
            la: &Layout,
            b: &[T],
            lb: &Layout,
            shape: &[usize],
        ) -> Result<Storage> {
            Ok(match op {
                $($(BinaryOp::$v => Storage::from_vec(map_binary(a, la, b, lb, shape, $cplx)?),)?)*
                #[allow(unreachable_patterns)]
                _ => return Err(unsupported(op, T::DTYPE)),
            })
        }

        fn bool_op(
            op: BinaryOp,
            a: &[bool],
            la: &Layout,
            b: &[bool],
            lb: &Layout,
            shape: &[usize],
        ) -> Result<Storage> {
            Ok(match op {
                $($(BinaryOp::$v => Storage::from_vec(map_binary(a, la, b, lb, shape, $b)?),)?)*
                #[allow(unreachable_patterns)]
                _ => return Err(unsupported(op, DType::Bool)),
            })
        }
    };
}

crate::op_defs::for_each_binary_op!(binary_kernels);

/// Applies `op` to two storages of the same dtype, broadcasting both views to `shape`.
pub fn binary_storage(
    op: BinaryOp,
    a: &Storage,
    la: &Layout,
    b: &Storage,
    lb: &Layout,
    shape: &[usize],
) -> Result<Storage> {
    debug_assert_eq!(a.dtype(), b.dtype());
    match a.dtype() {
        DType::Bool => bool_op(op, &a.read(), la, &b.read(), lb, shape),
        DType::I32 => int_op::<i32>(op, &a.read(), la, &b.read(), lb, shape),
        DType::I64 => int_op::<i64>(op, &a.read(), la, &b.read(), lb, shape),
        DType::F32 => float_op::<f32>(op, &a.read(), la, &b.read(), lb, shape),
        DType::F64 => float_op::<f64>(op, &a.read(), la, &b.read(), lb, shape),
        DType::C64 => complex_op::<Complex32>(op, &a.read(), la, &b.read(), lb, shape),
        DType::C128 => complex_op::<Complex64>(op, &a.read(), la, &b.read(), lb, shape),
        d @ (DType::F16 | DType::BF16 | DType::U8 | DType::I8 | DType::I16) => {
            Err(Error::runtime(format!(
                "internal: {} kernel called on {d}; half types are computed in float32, \
             narrow integers in int32",
                op.name()
            )))
        }
    }
}

/// `op(a, s)` (or `op(s, a)` when `reflected`) for a float32/float64 storage `a` viewed
/// by `la` and a number `s` converted to `a`'s dtype: the result of [`binary_storage`]
/// with `s` as a 0-d operand, without building a storage for it.
pub fn binary_storage_number(
    op: BinaryOp,
    a: &Storage,
    la: &Layout,
    s: f64,
    reflected: bool,
) -> Result<Storage> {
    use crate::dtype::Element;
    fn go<T: Real + FloatBits + Element + PowNumber>(
        op: BinaryOp,
        a: &[T],
        la: &Layout,
        s: f64,
        reflected: bool,
    ) -> Result<Storage> {
        // the same conversion as a 0-d tensor made from the number
        let s = [T::from_c128(Complex64::new(s, 0.0))];
        if op == BinaryOp::Pow && !reflected {
            if let Some(r) = T::pow_number(a, la, s[0]) {
                return r.map(Storage::from_vec);
            }
        }
        let ls = Layout::contiguous(&[]);
        if reflected {
            float_op::<T>(op, &s, &ls, a, la, &la.shape)
        } else {
            float_op::<T>(op, a, la, &s, &ls, &la.shape)
        }
    }
    match a.dtype() {
        DType::F32 => go::<f32>(op, &a.read(), la, s, reflected),
        DType::F64 => go::<f64>(op, &a.read(), la, s, reflected),
        d => Err(Error::runtime(format!(
            "internal: {} number kernel called on {d}",
            op.name()
        ))),
    }
}

/// `x ** n` for a float32/float64 tensor and a number `n` whose power is a few
/// multiplications, a division or a square root (`powf` is a scalar library call, 5-10x
/// slower than these loops): only where the result is the correctly rounded power or
/// within the accuracy of `powf`, with `powf`'s special values (docs/performance-kernels.md,
/// "Powers by a number").
trait PowNumber: Sized {
    /// The elements of `x ** n` over the view `la` of `a`; `None` to take `powf`.
    fn pow_number(a: &[Self], la: &Layout, n: Self) -> Option<Result<Vec<Self>>>;
}

impl PowNumber for f32 {
    fn pow_number(a: &[f32], la: &Layout, n: f32) -> Option<Result<Vec<f32>>> {
        use super::elementwise::map_unary;
        // Integer powers in float64: the product of up to four float32 values, or its
        // reciprocal, neither overflows nor underflows float64, and each step rounds by at
        // most 2^-53, so the float32 result is within 0.5 ulp + 2^-29 relative (powf: 0.82
        // ulp). IEEE pow's special values (+-0, +-inf, NaN) come out of the arithmetic.
        let w = |x: f32| x as f64;
        Some(match n {
            0.0 => map_unary(a, la, |_: f32| 1.0f32), // NaN ** 0 is 1 too
            1.0 => map_unary(a, la, |x: f32| x),
            2.0 => map_unary(a, la, |x: f32| x * x), // one rounding: correctly rounded
            3.0 => map_unary(a, la, |x: f32| (w(x) * w(x) * w(x)) as f32),
            4.0 => map_unary(a, la, |x: f32| ((w(x) * w(x)) * (w(x) * w(x))) as f32),
            -1.0 => map_unary(a, la, |x: f32| 1.0 / x),
            -2.0 => map_unary(a, la, |x: f32| (1.0 / (w(x) * w(x))) as f32),
            -3.0 => map_unary(a, la, |x: f32| (1.0 / (w(x) * w(x) * w(x))) as f32),
            -4.0 => map_unary(a, la, |x: f32| {
                (1.0 / ((w(x) * w(x)) * (w(x) * w(x)))) as f32
            }),
            0.5 => map_unary(a, la, |x: f32| sqrt_as_pow(x as f64) as f32),
            -0.5 => map_unary(a, la, |x: f32| (1.0 / sqrt_as_pow(x as f64)) as f32),
            // half-integer powers as odd powers of `s = x ** 0.5` in float64: `s` is
            // within 2^-53 relative, each product adds at most 2^-53, so the float32
            // result is within 0.5 ulp + 2^-48 relative; `s` carries pow's special values
            // (+0 for -0, +inf for -inf, NaN for a negative base), and s^7 of a float32
            // neither overflows nor underflows float64
            1.5 => map_unary(a, la, |x: f32| half_pow(x, 1, false)),
            2.5 => map_unary(a, la, |x: f32| half_pow(x, 2, false)),
            3.5 => map_unary(a, la, |x: f32| half_pow(x, 3, false)),
            -1.5 => map_unary(a, la, |x: f32| half_pow(x, 1, true)),
            -2.5 => map_unary(a, la, |x: f32| half_pow(x, 2, true)),
            -3.5 => map_unary(a, la, |x: f32| half_pow(x, 3, true)),
            _ => return None,
        })
    }
}

impl PowNumber for f64 {
    fn pow_number(a: &[f64], la: &Layout, n: f64) -> Option<Result<Vec<f64>>> {
        use super::elementwise::map_unary;
        // only single correctly rounded operations: `x * x * x` rounds twice (up to 1.5
        // ulp, where the C library's pow is within 0.52)
        Some(match n {
            0.0 => map_unary(a, la, |_: f64| 1.0f64),
            1.0 => map_unary(a, la, |x: f64| x),
            2.0 => map_unary(a, la, |x: f64| x * x),
            -1.0 => map_unary(a, la, |x: f64| 1.0 / x),
            0.5 => map_unary(a, la, sqrt_as_pow),
            _ => return None,
        })
    }
}

/// `x ** (k + 0.5)` (or its reciprocal, `recip`) for a float32 `x` and `k` in 1..=3, as
/// `s^(2k+1)` for `s = x ** 0.5` in float64 (see [`PowNumber`] for f32).
#[inline(always)]
fn half_pow(x: f32, k: u32, recip: bool) -> f32 {
    let s = sqrt_as_pow(x as f64);
    let s2 = s * s;
    let p = match k {
        1 => s2 * s,
        2 => (s2 * s2) * s,
        _ => (s2 * s2) * (s2 * s),
    };
    (if recip { 1.0 / p } else { p }) as f32
}

/// `x ** 0.5` as IEEE pow defines it: `sqrt`, except `(-0) ** 0.5 = +0` and
/// `(-inf) ** 0.5 = +inf` (`sqrt` gives -0 and NaN there).
#[inline(always)]
fn sqrt_as_pow(x: f64) -> f64 {
    // + 0.0 turns -0 into +0 and changes nothing else
    let r = x.sqrt() + 0.0;
    if x == f64::NEG_INFINITY {
        f64::INFINITY
    } else {
        r
    }
}
