//! Unary elementwise kernels, dispatched on dtype.

use super::complex_math::{cdiv, ctan, ctanh};
use super::elementwise::{map_unary, map_unary_chunked, map_unary_split};
use super::scalar::Real;
use super::Split;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use num_complex::{Complex32, Complex64};

/// A unary elementwise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Exp,
    Log,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Square,
    Reciprocal,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    Gelu,
    Softplus,
    Erf,
    Floor,
    Ceil,
    Round,
    LogicalNot,
}

impl UnaryOp {
    /// User-facing op name.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Sign => "sign",
            Exp => "exp",
            Log => "log",
            Log1p => "log1p",
            Expm1 => "expm1",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Square => "square",
            Reciprocal => "reciprocal",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Tanh => "tanh",
            Sigmoid => "sigmoid",
            Relu => "relu",
            Gelu => "gelu",
            Softplus => "softplus",
            Erf => "erf",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            LogicalNot => "logical_not",
        }
    }

    /// Ops whose result is floating even for integer input (`exp(int) -> float32`).
    pub fn is_float_only(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Exp | Log
                | Log1p
                | Expm1
                | Sqrt
                | Rsqrt
                | Reciprocal
                | Sin
                | Cos
                | Tan
                | Tanh
                | Sigmoid
                | Gelu
                | Softplus
                | Erf
        )
    }
}

fn unsupported(op: UnaryOp, d: DType) -> Error {
    Error::type_err(format!("{}: not supported for {d} tensors", op.name()))
}

/// Float math needed by the float kernels, for f32 and f64.
trait FloatMath: Real + num_traits::Float {
    fn erf(self) -> Self;
}
impl FloatMath for f32 {
    fn erf(self) -> Self {
        libm::erff(self)
    }
}
impl FloatMath for f64 {
    fn erf(self) -> Self {
        libm::erf(self)
    }
}

/// [`map_unary`] for transcendental functions: worth splitting across threads earlier.
fn costly<T: Copy + Sync, O: Copy + Send>(
    s: &[T],
    l: &Layout,
    f: impl Fn(T) -> O + Sync + Send,
) -> Result<Vec<O>> {
    map_unary_split(s, l, Split::COSTLY, f)
}

fn float_op<T: FloatMath>(op: UnaryOp, s: &[T], l: &Layout) -> Result<Storage> {
    use UnaryOp::*;
    let one = <T as num_traits::One>::one();
    let zero = <T as num_traits::Zero>::zero();
    let half = T::from(0.5).expect("0.5 is representable");
    let frac_1_sqrt2 = T::from(std::f64::consts::FRAC_1_SQRT_2).expect("representable");
    let twenty = T::from(20.0).expect("representable");
    let v = match op {
        Neg => map_unary(s, l, |x: T| -x)?,
        Abs => map_unary(s, l, |x: T| num_traits::Float::abs(x))?,
        Sign => map_unary(s, l, |x: T| Real::sign(x))?,
        Exp => costly(s, l, |x: T| x.exp())?,
        Log => costly(s, l, |x: T| x.ln())?,
        Log1p => costly(s, l, |x: T| x.ln_1p())?,
        Expm1 => costly(s, l, |x: T| x.exp_m1())?,
        Sqrt => map_unary(s, l, |x: T| x.sqrt())?,
        Rsqrt => map_unary(s, l, |x: T| one / x.sqrt())?,
        Square => map_unary(s, l, |x: T| x * x)?,
        Reciprocal => map_unary(s, l, |x: T| one / x)?,
        Sin => costly(s, l, |x: T| x.sin())?,
        Cos => costly(s, l, |x: T| x.cos())?,
        Tan => costly(s, l, |x: T| x.tan())?,
        Tanh => costly(s, l, |x: T| x.tanh())?,
        Sigmoid => costly(s, l, |x: T| one / (one + (-x).exp()))?,
        Relu => map_unary(s, l, |x: T| if x > zero { x } else { zero })?,
        Gelu => costly(s, l, |x: T| {
            half * x * (one + FloatMath::erf(x * frac_1_sqrt2))
        })?,
        // log(1 + e^x), linear above the threshold like torch (beta = 1, threshold = 20)
        Softplus => costly(s, l, |x: T| if x > twenty { x } else { x.exp().ln_1p() })?,
        Erf => costly(s, l, |x: T| FloatMath::erf(x))?,
        Floor => map_unary(s, l, |x: T| x.floor())?,
        Ceil => map_unary(s, l, |x: T| x.ceil())?,
        // round half to even, as NumPy and PyTorch do
        Round => map_unary(s, l, |x: T| {
            let r = x.round();
            if num_traits::Float::abs(x - x.trunc()) == half {
                (x / (one + one)).round() * (one + one)
            } else {
                r
            }
        })?,
        LogicalNot => return Ok(Storage::from_vec(map_unary(s, l, |x: T| x == zero)?)),
    };
    Ok(Storage::from_vec(v))
}

/// float32 `exp`, `tanh` and `sigmoid` through the vectorised kernels of [`super::fastmath`].
fn fast_f32_op(op: UnaryOp, s: &[f32], l: &Layout) -> Result<Storage> {
    use super::fastmath::*;
    let v = match op {
        UnaryOp::Exp => map_unary_chunked(s, l, exp_f32_slice, exp_f32)?,
        UnaryOp::Tanh => map_unary_chunked(s, l, tanh_f32_slice, tanh_f32)?,
        UnaryOp::Sigmoid => map_unary_chunked(s, l, sigmoid_f32_slice, sigmoid_f32)?,
        _ => return float_op::<f32>(op, s, l),
    };
    Ok(Storage::from_vec(v))
}

fn int_op<T: Real>(op: UnaryOp, s: &[T], l: &Layout) -> Result<Storage> {
    use UnaryOp::*;
    Ok(match op {
        Neg => Storage::from_vec(map_unary(s, l, T::neg)?),
        Abs => Storage::from_vec(map_unary(s, l, |x: T| Real::abs(x))?),
        Sign => Storage::from_vec(map_unary(s, l, |x: T| Real::sign(x))?),
        Square => Storage::from_vec(map_unary(s, l, |x: T| x.mul(x))?),
        Relu => Storage::from_vec(map_unary(
            s,
            l,
            |x: T| if x > T::zero() { x } else { T::zero() },
        )?),
        Floor | Ceil | Round => Storage::from_vec(map_unary(s, l, |x: T| x)?),
        LogicalNot => Storage::from_vec(map_unary(s, l, |x: T| x == T::zero())?),
        _ => return Err(unsupported(op, T::DTYPE)),
    })
}

macro_rules! complex_op {
    ($name:ident, $t:ty) => {
        fn $name(op: UnaryOp, s: &[$t], l: &Layout) -> Result<Storage> {
            use UnaryOp::*;
            let one = <$t>::new(1.0, 0.0);
            let v: Vec<$t> = match op {
                Neg => map_unary(s, l, |x: $t| -x)?,
                Abs => return Ok(Storage::from_vec(map_unary(s, l, |x: $t| x.norm())?)),
                Sign => map_unary(s, l, |x: $t| if x.norm() == 0.0 { x } else { x / x.norm() })?,
                Exp => map_unary(s, l, |x: $t| x.exp())?,
                Log => map_unary(s, l, |x: $t| x.ln())?,
                Log1p => map_unary(s, l, |x: $t| (x + one).ln())?,
                Expm1 => map_unary(s, l, |x: $t| x.exp() - one)?,
                Sqrt => map_unary(s, l, |x: $t| x.sqrt())?,
                Rsqrt => map_unary(s, l, |x: $t| cdiv(one, x.sqrt()))?,
                Square => map_unary(s, l, |x: $t| x * x)?,
                Reciprocal => map_unary(s, l, |x: $t| cdiv(one, x))?,
                Sin => map_unary(s, l, |x: $t| x.sin())?,
                Cos => map_unary(s, l, |x: $t| x.cos())?,
                Tan => map_unary(s, l, ctan)?,
                Tanh => map_unary(s, l, ctanh)?,
                Sigmoid => map_unary(s, l, |x: $t| cdiv(one, one + (-x).exp()))?,
                LogicalNot => {
                    return Ok(Storage::from_vec(map_unary(s, l, |x: $t| {
                        x == <$t>::new(0.0, 0.0)
                    })?))
                }
                _ => return Err(unsupported(op, <$t as Element>::DTYPE)),
            };
            Ok(Storage::from_vec(v))
        }
    };
}
complex_op!(complex64_op, Complex32);
complex_op!(complex128_op, Complex64);

/// Applies `op` to the view `l` of `src` (already in its compute dtype).
pub fn unary_storage(op: UnaryOp, src: &Storage, l: &Layout) -> Result<Storage> {
    match src.dtype() {
        DType::Bool => match op {
            UnaryOp::LogicalNot => Ok(Storage::from_vec(map_unary(&src.read::<bool>(), l, |x| {
                !x
            })?)),
            UnaryOp::Abs
            | UnaryOp::Relu
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Round
            | UnaryOp::Sign => Ok(Storage::from_vec(map_unary(&src.read::<bool>(), l, |x| x)?)),
            _ => Err(unsupported(op, DType::Bool)),
        },
        DType::I32 => int_op::<i32>(op, &src.read(), l),
        DType::I64 => int_op::<i64>(op, &src.read(), l),
        DType::F32 => match op {
            UnaryOp::Exp | UnaryOp::Tanh | UnaryOp::Sigmoid => fast_f32_op(op, &src.read(), l),
            _ => float_op::<f32>(op, &src.read(), l),
        },
        DType::F64 => float_op::<f64>(op, &src.read(), l),
        DType::C64 => complex64_op(op, &src.read(), l),
        DType::C128 => complex128_op(op, &src.read(), l),
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
