//! The `Tensor` methods of the unary ops, expanded from their declarations in
//! [`crate::op_defs::unary`], and the one extra keyword some of them take (the table's
//! `extra` column: `decimals` for `round`).

use crate::python::args::type_name;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat};

type PyT = PyResult<Py<PyTensor>>;

/// `op(t)`, recorded for autograd when needed.
fn plain(py: Python<'_>, t: &Tensor, op: UnaryOp) -> PyT {
    wrap(py, maybe_detach(py, t.numel(), || t.unary(op)).py()?)
}

/// A unary op with its extra keyword (the table's `extra` column). `decimals` (`round`):
/// round to that many decimal places, halves to even, as PyTorch computes it —
/// `round(x * 10**d) / 10**d`, or `round(x / 10**-d) * 10**-d` for negative `d`, with
/// `10**|d|` in the tensor's dtype (so an overflowing power gives `inf`/NaN as there).
/// Without a value, or with 0, it is the plain op (integer tensors included, as Paddle's
/// `round(x, decimals=0)`); other decimals need a floating tensor.
fn unary_extra(
    py: Python<'_>,
    t: &Tensor,
    op: UnaryOp,
    (keyword, value): (&str, Option<&Bound<'_, PyAny>>),
    method: &str,
) -> PyT {
    // Paddle's round takes halves away from zero (its kernel's `std::round`); PyTorch and
    // NumPy take them to even. Only floating tensors can hold a half.
    let away = op == UnaryOp::Round
        && t.dtype().is_float()
        && crate::python::dialect::caller_is_paddle(py)?;
    let round = |x: &Tensor| {
        if away {
            round_half_away(x)
        } else {
            x.unary(op)
        }
    };
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return wrap(py, maybe_detach(py, t.numel(), || round(t)).py()?);
    };
    match keyword {
        "decimals" => {
            let bad = || {
                PyTypeError::new_err(format!(
                    "{method}(): decimals must be an int, got {}",
                    type_name(value)
                ))
            };
            if value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyBool>() {
                return Err(bad());
            }
            let d: i64 = value.extract().map_err(|_| bad())?;
            if d == 0 {
                return wrap(py, maybe_detach(py, t.numel(), || round(t)).py()?);
            }
            let dtype = t.dtype();
            if !dtype.is_float() {
                return Err(PyTypeError::new_err(format!(
                    "{method}(): decimals is only supported for floating-point tensors, got \
                     {dtype}"
                )));
            }
            // beyond 10**400 every power is inf in both float dtypes
            let exp = i32::try_from(d.unsigned_abs().min(400)).unwrap_or(400);
            let mut p = 10f64.powi(exp);
            if dtype == crate::dtype::DType::F32 {
                p = f64::from(p as f32); // the power as PyTorch casts it (inf above ~3.4e38)
            }
            let r = maybe_detach(py, t.numel(), || -> crate::Result<Tensor> {
                let scale = t.scalar_like(p);
                if d > 0 {
                    round(&t.mul(&scale)?)?.div(&scale)
                } else {
                    round(&t.div(&scale)?)?.mul(&scale)
                }
            });
            wrap(py, r.py()?)
        }
        _ => Err(PyRuntimeError::new_err(format!(
            "internal: {method}() declares an unknown extra keyword {keyword:?}"
        ))),
    }
}

/// Rounding with halves away from zero (Paddle's `round`): `floor(|x|)`, plus one where
/// the fraction `|x| - floor(|x|)` (exact in floating point) is at least a half, with
/// `x`'s sign. Its gradient is zero, as `round`'s.
fn round_half_away(x: &Tensor) -> crate::Result<Tensor> {
    let a = x.unary(UnaryOp::Abs)?;
    let f = a.unary(UnaryOp::Floor)?;
    let frac = a.sub(&f)?;
    let half = frac.binary(&frac.scalar_like(0.5), BinaryOp::Ge)?;
    let up = Tensor::where_(&half, &f.add_scalar(1.0)?, &f)?;
    let negative = x.binary(&x.scalar_like(0.0), BinaryOp::Lt)?;
    Tensor::where_(&negative, &up.neg()?, &up)
}

/// One `#[pymethods]` block per unary op with a method per name (a block per op, so that
/// an op with an extra keyword gets its own signature).
macro_rules! unary_methods {
    ($($v:ident {
        methods: [$($m:ident),+], functional: [$($f:ident),*], extra: $ex:tt,
        doc: $doc:literal,
        $($rest:tt)*
    })*) => {
        $(unary_op_methods!($v, [$($m),+], $doc, $ex);)*
    };
}

/// The methods `$m` of op `$v`, taking `name=` (Paddle's, ignored) and the op's extra
/// keyword `$ex` if it declares one.
macro_rules! unary_op_methods {
    ($v:ident, [$($m:ident),+], $doc:literal, []) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = $doc]
                #[pyo3(signature = (name=None))]
                fn $m(&self, py: Python<'_>, name: Option<&Bound<'_, PyAny>>) -> PyT {
                    let _ = name;
                    plain(py, &self.inner_gil(py), UnaryOp::$v)
                }
            )+
        }
    };
    ($v:ident, [$($m:ident),+], $doc:literal, [$ex:ident]) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = $doc]
                #[pyo3(signature = ($ex=None, name=None))]
                fn $m(
                    &self,
                    py: Python<'_>,
                    $ex: Option<&Bound<'_, PyAny>>,
                    name: Option<&Bound<'_, PyAny>>,
                ) -> PyT {
                    let _ = name;
                    let method = crate::op_defs::py_name(stringify!($m));
                    let t = &self.inner_gil(py);
                    unary_extra(py, t, UnaryOp::$v, (stringify!($ex), $ex), method)
                }
            )+
        }
    };
}

crate::op_defs::for_each_unary_op!(unary_methods);
