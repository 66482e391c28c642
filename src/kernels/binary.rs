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
    fn go<T: Real + FloatBits + Element>(
        op: BinaryOp,
        a: &[T],
        la: &Layout,
        s: f64,
        reflected: bool,
    ) -> Result<Storage> {
        // the same conversion as a 0-d tensor made from the number
        let s = [T::from_c128(Complex64::new(s, 0.0))];
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
