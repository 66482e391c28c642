//! Unary elementwise kernels, dispatched on dtype.
//!
//! The per-op kernels are declared in [`crate::op_defs::unary`]; this file expands that
//! table into one `match` per dtype class.

use super::elementwise::{map_unary, map_unary_chunked, map_unary_split};
use super::scalar::Real;
use super::Split;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;

#[allow(unused_imports)] // the table's closures name some of these
use crate::op_defs::unary::fns::*;
pub use crate::op_defs::UnaryOp;

fn unsupported(op: UnaryOp, d: DType) -> Error {
    Error::type_err(format!("{}: not supported for {d} tensors", op.name()))
}

macro_rules! unary_kernels {
    ($($v:ident {
        methods: [$($m:ident),+], functional: [$($f:ident),*], extra: [$($ex:ident)?],
        doc: $doc:literal,
        dtype: $dtype:ident, cost: $cost:ident,
        real: $real:expr, fast_f32: [$($fast:ident, $fast1:ident)?],
        int: [$($int:expr)?], complex: [$($cplx:expr)?], boolean: [$($b:expr)?],
        saves: $saves:ident, grad: [$($grad:expr)?], node: $node:literal,
    })*) => {
        fn float_op<T: FloatMath>(op: UnaryOp, s: &[T], l: &Layout) -> Result<Storage> {
            Ok(match op {
                $(UnaryOp::$v => {
                    Storage::from_vec(map_unary_split(s, l, Split::$cost, $real)?)
                })*
            })
        }

        /// float32 through the vectorised kernels of [`super::fastmath`] where an op has one.
        fn f32_op(op: UnaryOp, s: &[f32], l: &Layout) -> Result<Storage> {
            use super::fastmath::*;
            match op {
                $($(UnaryOp::$v => {
                    Ok(Storage::from_vec(map_unary_chunked(s, l, $fast, $fast1)?))
                })?)*
                _ => float_op::<f32>(op, s, l),
            }
        }

        fn int_op<T: Real>(op: UnaryOp, s: &[T], l: &Layout) -> Result<Storage> {
            Ok(match op {
                $($(UnaryOp::$v => Storage::from_vec(map_unary(s, l, $int)?),)?)*
                _ => return Err(unsupported(op, T::DTYPE)),
            })
        }

        fn complex_op<T>(
            op: UnaryOp,
            s: &[num_complex::Complex<T>],
            l: &Layout,
        ) -> Result<Storage>
        where
            T: num_traits::Float + Element + Sync + Send,
            num_complex::Complex<T>: Element,
        {
            Ok(match op {
                $($(UnaryOp::$v => Storage::from_vec(map_unary(s, l, $cplx)?),)?)*
                _ => return Err(unsupported(op, <num_complex::Complex<T> as Element>::DTYPE)),
            })
        }

        fn bool_op(op: UnaryOp, s: &[bool], l: &Layout) -> Result<Storage> {
            Ok(match op {
                $($(UnaryOp::$v => Storage::from_vec(map_unary(s, l, $b)?),)?)*
                _ => return Err(unsupported(op, DType::Bool)),
            })
        }
    };
}

crate::op_defs::for_each_unary_op!(unary_kernels);

/// Applies `op` to the view `l` of `src` (already in its compute dtype).
pub fn unary_storage(op: UnaryOp, src: &Storage, l: &Layout) -> Result<Storage> {
    match src.dtype() {
        DType::Bool => bool_op(op, &src.read(), l),
        DType::I32 => int_op::<i32>(op, &src.read(), l),
        DType::I64 => int_op::<i64>(op, &src.read(), l),
        DType::F32 => f32_op(op, &src.read(), l),
        DType::F64 => float_op::<f64>(op, &src.read(), l),
        DType::C64 => complex_op::<f32>(op, &src.read(), l),
        DType::C128 => complex_op::<f64>(op, &src.read(), l),
        d => Err(Error::runtime(format!(
            "internal: {} kernel called on {d}",
            op.name()
        ))),
    }
}

/// `clip(x, lo, hi)` for real dtypes; NaN stays NaN.
pub fn clip_storage(
    src: &Storage,
    l: &Layout,
    lo: Option<f64>,
    hi: Option<f64>,
) -> Result<Storage> {
    fn run<T: Real>(s: &[T], l: &Layout, lo: Option<f64>, hi: Option<f64>) -> Result<Storage> {
        let (lo, hi) = (lo.map(T::from_f64), hi.map(T::from_f64));
        Ok(Storage::from_vec(map_unary(s, l, |x: T| {
            let mut y = x;
            if let Some(lo) = lo {
                if y < lo {
                    y = lo;
                }
            }
            if let Some(hi) = hi {
                if y > hi {
                    y = hi;
                }
            }
            y
        })?))
    }
    match src.dtype() {
        DType::I32 => run::<i32>(&src.read(), l, lo, hi),
        DType::I64 => run::<i64>(&src.read(), l, lo, hi),
        DType::F32 => run::<f32>(&src.read(), l, lo, hi),
        DType::F64 => run::<f64>(&src.read(), l, lo, hi),
        d => Err(Error::type_err(format!(
            "clip: not supported for {d} tensors"
        ))),
    }
}
