//! Arithmetic, comparison, unary and reduction methods of the Python `Tensor`.
//! Each method extracts its arguments and calls one differentiable op of the core.

use super::convert::operand;
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

type PyT = PyResult<Py<PyTensor>>;

/// Runs a binary op with `other` converted; NotImplemented-style TypeErrors for
/// unsupported operands become Python's `NotImplemented` in the dunder wrappers.
fn bin(py: Python<'_>, a: &Tensor, other: &Bound<'_, PyAny>, op: BinaryOp, reflected: bool) -> PyT {
    let b = operand(other, a.dtype())?;
    let r = if reflected {
        b.binary(a, op)
    } else {
        a.binary(&b, op)
    };
    // the GIL is kept here: small ops are cheaper than a release/re-acquire
    wrap(py, r.py()?)
}

fn dunder(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    match bin(py, a, other, op, reflected) {
        Ok(t) => Ok(t.into_any()),
        Err(e)
            if e.is_instance_of::<PyTypeError>(py)
                && super::convert::scalar_kind(other).is_none()
                && other.cast::<PyTensor>().is_err() =>
        {
            Ok(py.NotImplemented())
        }
        Err(e) => Err(e),
    }
}

macro_rules! binary_dunders {
    ($($name:ident => $op:expr, $refl:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    dunder(py, &self.inner, other, $op, $refl)
                }
            )*
        }
    };
}

binary_dunders! {
    __add__ => BinaryOp::Add, false;
    __radd__ => BinaryOp::Add, true;
    __sub__ => BinaryOp::Sub, false;
    __rsub__ => BinaryOp::Sub, true;
    __mul__ => BinaryOp::Mul, false;
    __rmul__ => BinaryOp::Mul, true;
    __truediv__ => BinaryOp::Div, false;
    __rtruediv__ => BinaryOp::Div, true;
    __floordiv__ => BinaryOp::FloorDiv, false;
    __rfloordiv__ => BinaryOp::FloorDiv, true;
    __mod__ => BinaryOp::Rem, false;
    __rmod__ => BinaryOp::Rem, true;
    __and__ => BinaryOp::BitAnd, false;
    __rand__ => BinaryOp::BitAnd, true;
    __or__ => BinaryOp::BitOr, false;
    __ror__ => BinaryOp::BitOr, true;
    __xor__ => BinaryOp::BitXor, false;
    __rxor__ => BinaryOp::BitXor, true;
}

macro_rules! binary_methods {
    ($($name:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[pyo3(signature = (other, name=None))]
                fn $name(&self, py: Python<'_>, other: &Bound<'_, PyAny>, name: Option<&Bound<'_, PyAny>>) -> PyT {
                    let _ = name;
                    bin(py, &self.inner, other, $op, false)
                }
            )*
        }
    };
}

binary_methods! {
    add => BinaryOp::Add;
    subtract => BinaryOp::Sub;
    sub => BinaryOp::Sub;
    multiply => BinaryOp::Mul;
    mul => BinaryOp::Mul;
    divide => BinaryOp::Div;
    div => BinaryOp::Div;
    true_divide => BinaryOp::Div;
    floor_divide => BinaryOp::FloorDiv;
    remainder => BinaryOp::Rem;
    r#mod => BinaryOp::Rem;
    maximum => BinaryOp::Maximum;
    minimum => BinaryOp::Minimum;
    equal => BinaryOp::Eq;
    eq => BinaryOp::Eq;
    not_equal => BinaryOp::Ne;
    ne => BinaryOp::Ne;
    less_than => BinaryOp::Lt;
    lt => BinaryOp::Lt;
    less_equal => BinaryOp::Le;
    le => BinaryOp::Le;
    greater_than => BinaryOp::Gt;
    gt => BinaryOp::Gt;
    greater_equal => BinaryOp::Ge;
    ge => BinaryOp::Ge;
    logical_and => BinaryOp::LogicalAnd;
    logical_or => BinaryOp::LogicalOr;
    logical_xor => BinaryOp::LogicalXor;
    bitwise_and => BinaryOp::BitAnd;
    bitwise_or => BinaryOp::BitOr;
    bitwise_xor => BinaryOp::BitXor;
}

macro_rules! unary_methods {
    ($($name:ident => $op:expr;)*) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[pyo3(signature = (name=None))]
                fn $name(&self, py: Python<'_>, name: Option<&Bound<'_, PyAny>>) -> PyT {
                    let _ = name;
                    wrap(py, self.inner.unary($op).py()?)
                }
            )*
        }
    };
}

unary_methods! {
    neg => UnaryOp::Neg;
    negative => UnaryOp::Neg;
    abs => UnaryOp::Abs;
    sign => UnaryOp::Sign;
    exp => UnaryOp::Exp;
    log => UnaryOp::Log;
    log1p => UnaryOp::Log1p;
    expm1 => UnaryOp::Expm1;
    sqrt => UnaryOp::Sqrt;
    rsqrt => UnaryOp::Rsqrt;
    square => UnaryOp::Square;
    reciprocal => UnaryOp::Reciprocal;
    sin => UnaryOp::Sin;
    cos => UnaryOp::Cos;
    tan => UnaryOp::Tan;
    tanh => UnaryOp::Tanh;
    sigmoid => UnaryOp::Sigmoid;
    relu => UnaryOp::Relu;
    gelu => UnaryOp::Gelu;
    softplus => UnaryOp::Softplus;
    erf => UnaryOp::Erf;
    floor => UnaryOp::Floor;
    ceil => UnaryOp::Ceil;
    round => UnaryOp::Round;
    logical_not => UnaryOp::LogicalNot;
}

/// Reads an axis argument: None, an int, or a sequence of ints.
pub fn parse_axes(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<isize>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => {
            if let Ok(i) = o.extract::<isize>() {
                Ok(Some(vec![i]))
            } else {
                Ok(Some(o.extract::<Vec<isize>>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "axis must be an int, a list of ints or None, got {o}"
                    ))
                })?))
            }
        }
    }
}

/// `axis` (Paddle) or `dim` (torch), whichever was given.
fn axis_or_dim<'a, 'py>(
    axis: Option<&'a Bound<'py, PyAny>>,
    dim: Option<&'a Bound<'py, PyAny>>,
) -> Option<&'a Bound<'py, PyAny>> {
    match axis {
        Some(a) if !a.is_none() => Some(a),
        _ => dim,
    }
}

#[pymethods]
impl PyTensor {
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyT {
        let b = operand(other, self.inner.dtype())?;
        wrap(py, self.inner.matmul(&b).py()?)
    }
    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyT {
        let a = operand(other, self.inner.dtype())?;
        wrap(py, a.matmul(&self.inner).py()?)
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        dunder(py, &self.inner, other, BinaryOp::Pow, false)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        dunder(py, &self.inner, other, BinaryOp::Pow, true)
    }
    /// `self ** exponent`.
    #[pyo3(signature = (y, name=None))]
    fn pow(&self, py: Python<'_>, y: &Bound<'_, PyAny>, name: Option<&Bound<'_, PyAny>>) -> PyT {
        let _ = name;
        bin(py, &self.inner, y, BinaryOp::Pow, false)
    }
    fn __neg__(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner.neg().py()?)
    }
    fn __pos__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __abs__(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner.unary(UnaryOp::Abs).py()?)
    }
    fn __invert__(&self, py: Python<'_>) -> PyT {
        if self.inner.dtype() != crate::DType::Bool {
            return Err(PyTypeError::new_err(
                "~ is only supported for bool tensors (logical not)",
            ));
        }
        wrap(py, self.inner.unary(UnaryOp::LogicalNot).py()?)
    }
    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let bop = match op {
            CompareOp::Eq => BinaryOp::Eq,
            CompareOp::Ne => BinaryOp::Ne,
            CompareOp::Lt => BinaryOp::Lt,
            CompareOp::Le => BinaryOp::Le,
            CompareOp::Gt => BinaryOp::Gt,
            CompareOp::Ge => BinaryOp::Ge,
        };
        if other.is_none() {
            // `t == None` is False (not an error), as for any Python object
            return Ok(pyo3::types::PyBool::new(py, matches!(op, CompareOp::Ne))
                .to_owned()
                .into_any()
                .unbind());
        }
        dunder(py, &self.inner, other, bop, false)
    }

    /// Matrix product.
    #[pyo3(signature = (y, transpose_x=false, transpose_y=false, name=None))]
    fn matmul(
        &self,
        py: Python<'_>,
        y: &Bound<'_, PyAny>,
        transpose_x: bool,
        transpose_y: bool,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let mut a = self.inner.clone();
        let mut b = operand(y, a.dtype())?;
        if transpose_x && a.ndim() >= 2 {
            a = a.transpose(-1, -2).py()?;
        }
        if transpose_y && b.ndim() >= 2 {
            b = b.transpose(-1, -2).py()?;
        }
        wrap(py, a.matmul(&b).py()?)
    }
    /// 2-D matrix product (torch `mm`).
    fn mm(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyT {
        self.matmul(py, other, false, false, None)
    }
    /// Batched matrix product (torch `bmm`).
    fn bmm(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyT {
        self.matmul(py, other, false, false, None)
    }
    /// Inner product of 1-D tensors.
    fn dot(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyT {
        let b = operand(other, self.inner.dtype())?;
        wrap(py, self.inner.dot(&b).py()?)
    }
    /// Outer product of 1-D tensors.
    fn outer(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyT {
        let b = operand(other, self.inner.dtype())?;
        wrap(py, self.inner.outer(&b).py()?)
    }

    /// Clamps values into `[min, max]` (either may be None).
    #[pyo3(signature = (min=None, max=None, name=None))]
    fn clip(
        &self,
        py: Python<'_>,
        min: Option<f64>,
        max: Option<f64>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        wrap(py, self.inner.clip(min, max).py()?)
    }
    /// Same as `clip`.
    #[pyo3(signature = (min=None, max=None))]
    fn clamp(&self, py: Python<'_>, min: Option<f64>, max: Option<f64>) -> PyT {
        wrap(py, self.inner.clip(min, max).py()?)
    }

    /// Sum over `axis`/`dim` (all by default).
    #[pyo3(signature = (axis=None, keepdim=false, dtype=None, name=None, *, dim=None))]
    fn sum(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let x = match super::dtype::parse_opt_dtype(dtype)? {
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, x.sum(ax.as_deref(), keepdim).py()?)
    }
    /// Mean over `axis`/`dim`.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None, dtype=None))]
    fn mean(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let x = match super::dtype::parse_opt_dtype(dtype)? {
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, x.mean(ax.as_deref(), keepdim).py()?)
    }
    /// Product over `axis`/`dim`.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn prod(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, self.inner.prod(ax.as_deref(), keepdim).py()?)
    }
    /// Maximum over `axis`/`dim` (values only; see `argmax` for indices).
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn max(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, self.inner.amax_amin(ax.as_deref(), keepdim, true).py()?)
    }
    /// Minimum over `axis`/`dim`.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn min(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(
            py,
            self.inner.amax_amin(ax.as_deref(), keepdim, false).py()?,
        )
    }
    /// Same as `max`.
    #[pyo3(signature = (axis=None, keepdim=false, *, dim=None))]
    fn amax(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        self.max(py, axis, keepdim, None, dim)
    }
    /// Same as `min`.
    #[pyo3(signature = (axis=None, keepdim=false, *, dim=None))]
    fn amin(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        self.min(py, axis, keepdim, None, dim)
    }
    /// Index of the maximum along `axis` (flattened when None), int64.
    #[pyo3(signature = (axis=None, keepdim=false, dtype=None, name=None, *, dim=None))]
    fn argmax(
        &self,
        py: Python<'_>,
        axis: Option<isize>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = (dtype, name);
        wrap(
            py,
            self.inner.argmax_argmin(axis.or(dim), keepdim, true).py()?,
        )
    }
    /// Index of the minimum along `axis` (flattened when None), int64.
    #[pyo3(signature = (axis=None, keepdim=false, dtype=None, name=None, *, dim=None))]
    fn argmin(
        &self,
        py: Python<'_>,
        axis: Option<isize>,
        keepdim: bool,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = (dtype, name);
        wrap(
            py,
            self.inner
                .argmax_argmin(axis.or(dim), keepdim, false)
                .py()?,
        )
    }
    /// Variance (`unbiased=True` divides by N-1; `correction` overrides).
    #[pyo3(signature = (axis=None, unbiased=true, keepdim=false, name=None, *, dim=None, correction=None))]
    fn var(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        unbiased: bool,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        correction: Option<f64>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        let c = correction.unwrap_or(if unbiased { 1.0 } else { 0.0 });
        wrap(py, self.inner.var(ax.as_deref(), c, keepdim).py()?)
    }
    /// Standard deviation.
    #[pyo3(signature = (axis=None, unbiased=true, keepdim=false, name=None, *, dim=None, correction=None))]
    fn std(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        unbiased: bool,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        correction: Option<f64>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        let c = correction.unwrap_or(if unbiased { 1.0 } else { 0.0 });
        wrap(py, self.inner.std(ax.as_deref(), c, keepdim).py()?)
    }
    /// `log(sum(exp(x)))`, stable.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn logsumexp(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, self.inner.logsumexp(ax.as_deref(), keepdim).py()?)
    }
    /// True where all elements along `axis` are non-zero.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn all(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, self.inner.all_any(ax.as_deref(), keepdim, true).py()?)
    }
    /// True where any element along `axis` is non-zero.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn any(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(py, self.inner.all_any(ax.as_deref(), keepdim, false).py()?)
    }
    /// Softmax along `axis` (default: last).
    #[pyo3(signature = (axis=-1, dtype=None, name=None, *, dim=None))]
    fn softmax(
        &self,
        py: Python<'_>,
        axis: isize,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        let x = match super::dtype::parse_opt_dtype(dtype)? {
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        wrap(py, x.softmax(dim.unwrap_or(axis)).py()?)
    }
    /// Log-softmax along `axis` (default: last).
    #[pyo3(signature = (axis=-1, dtype=None, name=None, *, dim=None))]
    fn log_softmax(
        &self,
        py: Python<'_>,
        axis: isize,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        let x = match super::dtype::parse_opt_dtype(dtype)? {
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        wrap(py, x.log_softmax(dim.unwrap_or(axis)).py()?)
    }
}

#[allow(dead_code)]
fn _tuple(_: &PyTuple) {}
