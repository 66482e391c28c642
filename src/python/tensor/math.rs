//! Arithmetic, comparison, unary and matrix methods of the Python `Tensor` (reductions
//! are in `reduce.rs`).
//! Each method extracts its arguments and calls one differentiable op of the core.

use crate::dtype::{DType, ZeroDimRule};
use crate::python::args::{operand_arg, scaled_operand, type_name};
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{operand, tensor_item};
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use num_complex::Complex64;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PyString};

type PyT = PyResult<Py<PyTensor>>;

/// A scalar argument given as a number or as a one-element tensor (read with `.item()`);
/// anything else is a TypeError naming `param` of `op`.
pub(crate) fn scalar_arg(v: &Bound<'_, PyAny>, op: &str, param: &str) -> PyResult<Complex64> {
    if let Some(c) = plain_number(v) {
        return Ok(c);
    }
    if let Ok(t) = v.cast::<PyTensor>() {
        let t = &t.get().inner();
        if t.numel() != 1 {
            return Err(PyValueError::new_err(format!(
                "{op}(): {param} must be a number or a one-element tensor, got a tensor of shape \
                 {:?}",
                t.shape()
            )));
        }
        return tensor_item(v.py(), t)?.extract::<Complex64>();
    }
    if v.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{op}(): {param} must be a number or a one-element tensor, got str"
        )));
    }
    v.extract::<Complex64>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{op}(): {param} must be a number or a one-element tensor, got {}",
            type_name(v)
        ))
    })
}

/// A plain `float` or `int` (exactly those types, an int that fits in i64) as a complex
/// number, read directly; `None` for anything else (the caller's generic path). Why: the
/// generic `extract::<Complex64>()` first looks up `__complex__`, and the failed attribute
/// lookup (an AttributeError made and dropped) costs ~4k instructions per call, four
/// times the op on a small tensor. The value is the same: `i as f64` rounds to nearest,
/// ties to even, as CPython's `int.__float__`.
pub(crate) fn plain_number(v: &Bound<'_, PyAny>) -> Option<Complex64> {
    if let Ok(f) = v.cast_exact::<PyFloat>() {
        return Some(Complex64::new(f.value(), 0.0));
    }
    if v.is_exact_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Some(Complex64::new(i as f64, 0.0));
        }
    }
    None
}

/// A real, optional bound (`clip`'s `min`/`max`): None, a real number or a one-element
/// real tensor.
pub(crate) fn real_bound(
    v: Option<&Bound<'_, PyAny>>,
    op: &str,
    param: &str,
) -> PyResult<Option<f64>> {
    let Some(v) = v else { return Ok(None) };
    let c = scalar_arg(v, op, param)?;
    if c.im != 0.0 {
        return Err(PyTypeError::new_err(format!(
            "{op}(): {param} must be real, got {}",
            v.repr()?
        )));
    }
    Ok(Some(c.re))
}

/// Runs a binary op with `other` converted; NotImplemented-style TypeErrors for
/// unsupported operands become Python's `NotImplemented` in the dunder wrappers.
/// Elements above which an op runs with the GIL released (other Python threads run
/// meanwhile); below it the release/re-acquire would cost more than the op.
pub(crate) const GIL_RELEASE_NUMEL: usize = 1 << 16;

/// Runs `f` with the GIL released when `work` elements are involved and that is large.
pub(crate) fn maybe_detach<R: Send>(
    py: Python<'_>,
    work: usize,
    f: impl FnOnce() -> R + Send,
) -> R {
    if work >= GIL_RELEASE_NUMEL {
        py.detach(f)
    } else {
        f()
    }
}

fn bin(py: Python<'_>, a: &Tensor, other: &Bound<'_, PyAny>, op: BinaryOp, reflected: bool) -> PyT {
    let _profiled = crate::profiler::named(
        crate::profiler::Kind::Op,
        || op.name().into(),
        || {
            let b = other
                .cast::<PyTensor>()
                .map_or(Vec::new(), |t| t.get().inner().shape().to_vec());
            let a = a.shape().to_vec();
            if reflected {
                vec![b, a]
            } else {
                vec![a, b]
            }
        },
    );
    // (the dtype and op tests first: the common float32 call reads its number only once,
    // below)
    let half_scaling = matches!(a.dtype(), DType::F16 | DType::BF16)
        && matches!(op, BinaryOp::Mul | BinaryOp::Div);
    if let Some(v) = half_scaling.then(|| plain_real(other)).flatten() {
        // PyTorch multiplies and divides a float16/bfloat16 tensor by a Python number in
        // float32 with the number unrounded, and rounds once (`x * 1.003`); other ops round
        // the number to the tensor's dtype first, as the general path below does
        let r = maybe_detach(py, a.numel(), || -> crate::Result<Tensor> {
            let wide = a.to_dtype(DType::F32)?;
            let out = match wide.binary_number(v, op, reflected) {
                Some(r) => r?,
                None => wide.binary_with_scalar(&wide.scalar_like(v), op, reflected)?,
            };
            out.to_dtype(a.dtype())
        });
        return wrap(py, r.py()?);
    }
    // a real Python number on a float32/float64 tensor (the weak scalar rule keeps that
    // dtype): the op runs on the number directly, without making it a 0-d tensor first,
    // and a recorded node keeps the number by value
    if let Some(v) = plain_real(other) {
        let r = if a.requires_grad() && crate::autograd::is_grad_enabled() {
            maybe_detach(py, a.numel(), || a.binary_number(v, op, reflected))
        } else {
            maybe_detach(py, a.numel(), || a.binary_number_raw(v, op, reflected))
        };
        if let Some(r) = r {
            return wrap(py, r.py()?);
        }
    }
    // a Python number: captured by the formula, never an input or a saved tensor
    let (b, number) = crate::python::interop::convert::classified_operand(other, a.dtype())?;
    let work = a.numel().max(b.numel());
    let rule = if number {
        ZeroDimRule::Torch
    } else {
        zero_dim_rule(py, a, &b, op)?
    };
    let r = maybe_detach(py, work, || {
        if number {
            a.binary_with_scalar(&b, op, reflected)
        } else if reflected {
            b.binary_ranked(a, op, rule)
        } else {
            a.binary_ranked(&b, op, rule)
        }
    });
    wrap(py, r.py()?)
}

/// The 0-d promotion rule for `a op b` (docs/dialects.md): PyTorch's, or Paddle's in
/// Paddle code. Only a pair of different dtypes, one of them 0-d, for which the two rules
/// give different dtypes asks for the caller's dialect (a Python call); every other pair,
/// equal dtypes first, decides from the dtypes alone.
pub(crate) fn zero_dim_rule(
    py: Python<'_>,
    a: &Tensor,
    b: &Tensor,
    op: BinaryOp,
) -> PyResult<ZeroDimRule> {
    if a.dtype() == b.dtype()
        || a.binary_common_dtype(b, op, ZeroDimRule::Torch)
            == a.binary_common_dtype(b, op, ZeroDimRule::Paddle)
    {
        return Ok(ZeroDimRule::Torch);
    }
    Ok(if crate::python::dialect::caller_is_paddle(py)? {
        ZeroDimRule::Paddle
    } else {
        ZeroDimRule::Torch
    })
}

/// A binary op with its extra torch keyword (the table's `extra` column): `alpha` scales
/// `other` first; `rounding_mode` (`div`) rounds the quotient toward zero (`'trunc'`,
/// integer operands give an integer result as in PyTorch) or down (`'floor'`, the
/// `floor_divide` op). Without a value it is the plain op.
fn binary_extra(
    py: Python<'_>,
    a: &Tensor,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
    (keyword, value): (&str, Option<&Bound<'_, PyAny>>),
    method: &str,
) -> PyT {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return bin(py, a, other, op, false);
    };
    match keyword {
        "alpha" => bin(
            py,
            a,
            &scaled_operand(other, Some(value), method)?,
            op,
            false,
        ),
        "rounding_mode" => {
            let mode: String = value.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{method}(): rounding_mode must be None, 'trunc' or 'floor', got {}",
                    type_name(value)
                ))
            })?;
            match mode.as_str() {
                "floor" => bin(py, a, other, BinaryOp::FloorDiv, false),
                "trunc" => trunc_div(py, a, other),
                _ => Err(PyValueError::new_err(format!(
                    "{method}(): rounding_mode must be None, 'trunc' or 'floor', got {mode:?}"
                ))),
            }
        }
        _ => Err(PyRuntimeError::new_err(format!(
            "internal: {method}() declares an unknown extra keyword {keyword:?}"
        ))),
    }
}

/// `a / b` rounded toward zero; integer operands give their promoted integer dtype (an
/// integer 0 divisor is refused, as `floor_divide` refuses it).
fn trunc_div(py: Python<'_>, a: &Tensor, other: &Bound<'_, PyAny>) -> PyT {
    let (b, number) = crate::python::interop::convert::classified_operand(other, a.dtype())?;
    let ints = a.dtype().is_int() && b.dtype().is_int();
    let work = a.numel().max(b.numel());
    let r = maybe_detach(py, work, || -> crate::Result<Tensor> {
        if ints {
            // the floor quotient, moved one up where it rounded a negative quotient down
            let q = if number {
                a.binary_with_scalar(&b, BinaryOp::FloorDiv, false)?
            } else {
                a.binary(&b, BinaryOp::FloorDiv)?
            };
            let rem = if number {
                a.binary_with_scalar(&b, BinaryOp::Rem, false)?
            } else {
                a.binary(&b, BinaryOp::Rem)?
            };
            let q_neg = q.binary_raw(&q.scalar_like(0.0), BinaryOp::Lt)?;
            let inexact = rem.binary_raw(&rem.scalar_like(0.0), BinaryOp::Ne)?;
            let bump = q_neg
                .binary_raw(&inexact, BinaryOp::LogicalAnd)?
                .cast_raw(q.dtype())?;
            q.binary_raw(&bump, BinaryOp::Add)
        } else {
            let q = if number {
                a.binary_with_scalar(&b, BinaryOp::Div, false)?
            } else {
                a.binary(&b, BinaryOp::Div)?
            };
            q.unary(UnaryOp::Trunc)
        }
    });
    wrap(py, r.py()?)
}

/// The value of a Python `int` (not `bool`) or `float` (or a subclass, as NumPy's
/// `float64`) that converts to float64; `None` for anything else.
fn plain_real(o: &Bound<'_, PyAny>) -> Option<f64> {
    use pyo3::types::{PyBool, PyFloat, PyInt};
    if o.is_instance_of::<PyFloat>()
        || (o.is_instance_of::<PyInt>() && !o.is_instance_of::<PyBool>())
    {
        o.extract::<f64>().ok()
    } else {
        None
    }
}

/// Whether a failed conversion of `other` should make an operator return
/// `NotImplemented` (Python then asks `other`'s reflected method): a `TypeError` for
/// an operand that is neither a number nor a tensor (e.g. a sparse tensor object).
fn defers(py: Python<'_>, e: &PyErr, other: &Bound<'_, PyAny>) -> bool {
    e.is_instance_of::<PyTypeError>(py)
        && crate::python::interop::convert::scalar_kind(other).is_none()
        && other.cast::<PyTensor>().is_err()
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
        Err(e) if defers(py, &e, other) => Ok(py.NotImplemented()),
        Err(e) => Err(e),
    }
}

/// One `Tensor` method per name of each binary op and its Python operators, from the
/// declarations in [`crate::op_defs::binary`] (one `#[pymethods]` block per method, so
/// that each expansion names one method's keywords).
macro_rules! binary_bindings {
    ($($v:ident {
        methods: [$($m:ident),+], dunders: $dunders:tt, kwargs: $kw:tt, extra: $ex:tt,
        doc: $doc:literal,
        $($rest:tt)*
    })*) => {
        $(
            $(binary_method!($v, $m, $doc, $kw, $ex);)+
            binary_operators!($v, $doc, $dunders);
        )*
    };
}

/// The method `$m` of op `$v`; `other` may also be given by the keywords `$kw`, and the
/// op's extra torch keyword `$ex` (`alpha`, `rounding_mode`) is handled by
/// [`binary_extra`].
macro_rules! binary_method {
    ($v:ident, $m:ident, $doc:literal, [$($kw:ident),*], [$ex:ident]) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $doc]
            #[pyo3(signature = (other=None, name=None, *, $($kw=None,)* $ex=None))]
            fn $m(
                &self,
                py: Python<'_>,
                other: Option<&Bound<'_, PyAny>>,
                name: Option<&Bound<'_, PyAny>>,
                $($kw: Option<&Bound<'_, PyAny>>,)*
                $ex: Option<&Bound<'_, PyAny>>,
            ) -> PyT {
                let _ = name;
                let method = crate::op_defs::py_name(stringify!($m));
                let b = operand_arg(other, &[$((stringify!($kw), $kw)),*], method)?;
                let a = &self.inner();
                binary_extra(py, a, b, BinaryOp::$v, (stringify!($ex), $ex), method)
            }
        }
    };
    ($v:ident, $m:ident, $doc:literal, [$($kw:ident),*], []) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $doc]
            #[pyo3(signature = (other=None, name=None, *, $($kw=None),*))]
            fn $m(
                &self,
                py: Python<'_>,
                other: Option<&Bound<'_, PyAny>>,
                name: Option<&Bound<'_, PyAny>>,
                $($kw: Option<&Bound<'_, PyAny>>,)*
            ) -> PyT {
                let _ = name;
                let method = crate::op_defs::py_name(stringify!($m));
                let b = operand_arg(other, &[$((stringify!($kw), $kw)),*], method)?;
                bin(py, &self.inner(), b, BinaryOp::$v, false)
            }
        }
    };
}

/// The operator `__op__` and its reflected `__rop__` of op `$v`, if it has them.
macro_rules! binary_operators {
    ($v:ident, $doc:literal, []) => {};
    ($v:ident, $doc:literal, [$fwd:ident, $refl:ident]) => {
        #[pymethods]
        impl PyTensor {
            #[doc = $doc]
            fn $fwd(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                dunder(py, &self.inner_gil(py), other, BinaryOp::$v, false)
            }
            #[doc = $doc]
            fn $refl(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                dunder(py, &self.inner_gil(py), other, BinaryOp::$v, true)
            }
        }
    };
}

crate::op_defs::for_each_binary_op!(binary_bindings);

#[pymethods]
impl PyTensor {
    /// `self @ other` (`NotImplemented` for an operand ferrograd cannot convert, so that
    /// the other object's `__rmatmul__` runs: `dense @ sparse`).
    fn __matmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let b = match operand(other, self.inner().dtype()) {
            Ok(b) => b,
            Err(e) if defers(py, &e, other) => return Ok(py.NotImplemented()),
            Err(e) => return Err(e),
        };
        let a = &self.inner();
        let r = maybe_detach(py, a.numel().max(b.numel()), || a.matmul(&b)).py()?;
        Ok(wrap(py, r)?.into_any())
    }
    /// `other @ self` (`NotImplemented` for an operand ferrograd cannot convert).
    fn __rmatmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let a = match operand(other, self.inner().dtype()) {
            Ok(a) => a,
            Err(e) if defers(py, &e, other) => return Ok(py.NotImplemented()),
            Err(e) => return Err(e),
        };
        Ok(wrap(py, a.matmul(&self.inner()).py()?)?.into_any())
    }
    /// `self ** other` (`modulo` is not supported and ignored).
    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        dunder(py, &self.inner(), other, BinaryOp::Pow, false)
    }
    /// `other ** self`.
    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = modulo;
        dunder(py, &self.inner(), other, BinaryOp::Pow, true)
    }
    /// `-self`.
    fn __neg__(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().neg().py()?)
    }
    /// `+self`: the tensor itself.
    fn __pos__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    /// `abs(self)`.
    fn __abs__(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().unary(UnaryOp::Abs).py()?)
    }
    /// `~self`: bitwise NOT of integers, logical NOT of bools (`bitwise_not`).
    fn __invert__(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().unary(UnaryOp::BitwiseNot).py()?)
    }
    /// Elementwise comparisons `==`, `!=`, `<`, `<=`, `>`, `>=` (bool tensors).
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
        dunder(py, &self.inner(), other, bop, false)
    }

    /// Matrix product `self @ other` (Paddle's `y=` and `transpose_x/transpose_y` too).
    #[pyo3(signature = (other=None, transpose_x=false, transpose_y=false, name=None, *, y=None))]
    fn matmul(
        &self,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        transpose_x: bool,
        transpose_y: bool,
        name: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let other = operand_arg(other, &[("y", y)], "matmul")?;
        let mut a = self.inner().take();
        let mut b = operand(other, a.dtype())?;
        if transpose_x && a.ndim() >= 2 {
            a = a.transpose(-1, -2).py()?;
        }
        if transpose_y && b.ndim() >= 2 {
            b = b.transpose(-1, -2).py()?;
        }
        let work = a.numel().max(b.numel());
        wrap(py, maybe_detach(py, work, || a.matmul(&b)).py()?)
    }
    /// 2-D matrix product (torch `mm`; Paddle's `y=` also accepted).
    #[pyo3(signature = (other=None, name=None, *, y=None))]
    fn mm(
        &self,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let other = operand_arg(other, &[("y", y)], "mm")?;
        self.matmul(py, Some(other), false, false, name, None)
    }
    /// Batched matrix product (torch `bmm`; Paddle's `y=` also accepted).
    #[pyo3(signature = (other=None, name=None, *, y=None))]
    fn bmm(
        &self,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let other = operand_arg(other, &[("y", y)], "bmm")?;
        self.matmul(py, Some(other), false, false, name, None)
    }
    /// Clamps values into `[min, max]`; either bound may be None, a number or a
    /// one-element tensor.
    #[pyo3(signature = (min=None, max=None, name=None))]
    fn clip(
        &self,
        py: Python<'_>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let lo = real_bound(min, "clip", "min")?;
        let hi = real_bound(max, "clip", "max")?;
        wrap(py, self.inner().clip(lo, hi).py()?)
    }
    /// Same as `clip`.
    #[pyo3(signature = (min=None, max=None, name=None))]
    fn clamp(
        &self,
        py: Python<'_>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let lo = real_bound(min, "clamp", "min")?;
        let hi = real_bound(max, "clamp", "max")?;
        wrap(py, self.inner().clip(lo, hi).py()?)
    }
}
