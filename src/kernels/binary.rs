//! Binary elementwise kernels with broadcasting, dispatched on dtype.
//!
//! Both operands arrive in the same compute dtype (the tensor layer promotes and casts);
//! comparisons and logical ops produce bool.

use super::elementwise::map_binary;
use super::scalar::{Num, Real};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use num_complex::{Complex32, Complex64};

/// A binary elementwise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// True division `a / b`.
    Div,
    /// Floor division `a // b`.
    FloorDiv,
    /// Python-style modulo `a % b`.
    Rem,
    /// `a ** b`.
    Pow,
    /// Elementwise maximum (NaN-propagating).
    Maximum,
    /// Elementwise minimum (NaN-propagating).
    Minimum,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// Logical and of truthiness.
    LogicalAnd,
    /// Logical or of truthiness.
    LogicalOr,
    /// Logical xor of truthiness.
    LogicalXor,
    /// Bitwise and (integers; logical for bool).
    BitAnd,
    /// Bitwise or (integers; logical for bool).
    BitOr,
    /// Bitwise xor (integers; logical for bool).
    BitXor,
}

impl BinaryOp {
    /// User-facing op name (Paddle spelling).
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "subtract",
            Mul => "multiply",
            Div => "divide",
            FloorDiv => "floor_divide",
            Rem => "remainder",
            Pow => "pow",
            Maximum => "maximum",
            Minimum => "minimum",
            Eq => "equal",
            Ne => "not_equal",
            Lt => "less_than",
            Le => "less_equal",
            Gt => "greater_than",
            Ge => "greater_equal",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitAnd => "bitwise_and",
            BitOr => "bitwise_or",
            BitXor => "bitwise_xor",
        }
    }

    /// True when the result is bool.
    pub fn returns_bool(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor
        )
    }

    /// True for the ordering comparisons (undefined for complex).
    pub fn is_ordering(self) -> bool {
        use BinaryOp::*;
        matches!(self, Lt | Le | Gt | Ge | Maximum | Minimum | FloorDiv | Rem)
    }
}

fn unsupported(op: BinaryOp, dtype: DType) -> Error {
    Error::type_err(format!("{}: not supported for {dtype} tensors", op.name()))
}

fn logical<T: Element>(
    op: BinaryOp,
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    shape: &[usize],
) -> Result<Vec<bool>> {
    let z = T::zero();
    match op {
        BinaryOp::LogicalAnd => map_binary(a, la, b, lb, shape, |x, y| x != z && y != z),
        BinaryOp::LogicalOr => map_binary(a, la, b, lb, shape, |x, y| x != z || y != z),
        _ => map_binary(a, la, b, lb, shape, |x, y| (x != z) != (y != z)),
    }
}

fn real_op<T: Real>(
    op: BinaryOp,
    a: &[T],
    la: &Layout,
    b: &[T],
    lb: &Layout,
    shape: &[usize],
) -> Result<Storage> {
    use BinaryOp::*;
    Ok(match op {
        Add => Storage::from_vec(map_binary(a, la, b, lb, shape, T::add)?),
        Sub => Storage::from_vec(map_binary(a, la, b, lb, shape, T::sub)?),
        Mul => Storage::from_vec(map_binary(a, la, b, lb, shape, T::mul)?),
        Div => Storage::from_vec(map_binary(a, la, b, lb, shape, T::div)?),
        FloorDiv => Storage::from_vec(map_binary(a, la, b, lb, shape, T::floor_div)?),
        Rem => Storage::from_vec(map_binary(a, la, b, lb, shape, T::rem)?),
        Pow => Storage::from_vec(map_binary(a, la, b, lb, shape, T::pow)?),
        Maximum => Storage::from_vec(map_binary(a, la, b, lb, shape, T::maximum)?),
        Minimum => Storage::from_vec(map_binary(a, la, b, lb, shape, T::minimum)?),
        Eq => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x == y)?),
        Ne => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x != y)?),
        Lt => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x < y)?),
        Le => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x <= y)?),
        Gt => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x > y)?),
        Ge => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x >= y)?),
        LogicalAnd | LogicalOr | LogicalXor => Storage::from_vec(logical(op, a, la, b, lb, shape)?),
        BitAnd | BitOr | BitXor => return Err(unsupported(op, T::DTYPE)),
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
    use BinaryOp::*;
    Ok(match op {
        Add => Storage::from_vec(map_binary(a, la, b, lb, shape, T::add)?),
        Sub => Storage::from_vec(map_binary(a, la, b, lb, shape, T::sub)?),
        Mul => Storage::from_vec(map_binary(a, la, b, lb, shape, T::mul)?),
        Div => Storage::from_vec(map_binary(a, la, b, lb, shape, T::div)?),
        Pow => Storage::from_vec(map_binary(a, la, b, lb, shape, T::pow)?),
        Eq => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x == y)?),
        Ne => Storage::from_vec(map_binary(a, la, b, lb, shape, |x, y| x != y)?),
        LogicalAnd | LogicalOr | LogicalXor => Storage::from_vec(logical(op, a, la, b, lb, shape)?),
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
    use BinaryOp::*;
    Ok(Storage::from_vec(match op {
        Add | Maximum | LogicalOr | BitOr => map_binary(a, la, b, lb, shape, |x, y| x | y)?,
        Mul | Minimum | LogicalAnd | BitAnd => map_binary(a, la, b, lb, shape, |x, y| x & y)?,
        LogicalXor | Ne | BitXor => map_binary(a, la, b, lb, shape, |x, y| x != y)?,
        Eq => map_binary(a, la, b, lb, shape, |x, y| x == y)?,
        Lt => map_binary(a, la, b, lb, shape, |x, y| !x & y)?,
        Le => map_binary(a, la, b, lb, shape, |x, y| x <= y)?,
        Gt => map_binary(a, la, b, lb, shape, |x, y| x & !y)?,
        Ge => map_binary(a, la, b, lb, shape, |x, y| x >= y)?,
        _ => return Err(unsupported(op, DType::Bool)),
    }))
}

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
    if matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor) {
        return bitwise(op, a, la, b, lb, shape);
    }
    match a.dtype() {
        DType::Bool => bool_op(op, &a.read(), la, &b.read(), lb, shape),
        DType::I32 => real_op::<i32>(op, &a.read(), la, &b.read(), lb, shape),
        DType::I64 => real_op::<i64>(op, &a.read(), la, &b.read(), lb, shape),
        DType::F32 => real_op::<f32>(op, &a.read(), la, &b.read(), lb, shape),
        DType::F64 => real_op::<f64>(op, &a.read(), la, &b.read(), lb, shape),
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

fn bitwise(
    op: BinaryOp,
    a: &Storage,
    la: &Layout,
    b: &Storage,
    lb: &Layout,
    shape: &[usize],
) -> Result<Storage> {
    macro_rules! ints {
        ($t:ty) => {{
            let (x, y) = (a.read::<$t>(), b.read::<$t>());
            Ok(Storage::from_vec(match op {
                BinaryOp::BitAnd => map_binary(&x, la, &y, lb, shape, |p, q| p & q)?,
                BinaryOp::BitOr => map_binary(&x, la, &y, lb, shape, |p, q| p | q)?,
                _ => map_binary(&x, la, &y, lb, shape, |p, q| p ^ q)?,
            }))
        }};
    }
    match a.dtype() {
        DType::Bool => bool_op(op, &a.read(), la, &b.read(), lb, shape),
        DType::I32 => ints!(i32),
        DType::I64 => ints!(i64),
        d => Err(unsupported(op, d)),
    }
}
