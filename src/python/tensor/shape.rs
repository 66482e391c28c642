//! Shape, dtype-conversion and in-place methods of the Python `Tensor`.

use crate::dtype::DType;
use crate::op_defs::{shape_param_of, ShapeOp};
use crate::python::args::{check_device, operand_arg, scaled_operand};
use crate::python::dtype::parse_dtype;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::operand;
use crate::python::shape_args::ShapeSlots;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::{real_bound, scalar_arg};
use crate::tensor::BinaryOp;
use num_complex::Complex64;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple};

type PyT = PyResult<Py<PyTensor>>;

/// One `Tensor` method per shape op, from the declarations in [`crate::op_defs::shape`]:
/// every parameter defaults to None (each role's default is applied by the generic
/// parser of [`crate::python::shape_args`]; the entry's `signature` shows it), the
/// keyword-only ones after `*` (or after the entry's `*args`).
macro_rules! shape_methods {
    ($($v:ident {
        name: $m:ident,
        doc: $doc:literal,
        arity: $arity:literal,
        varargs: [$($va:ident)?], params: [$($p:ident),*], keywords: [$($k:ident),*],
        signature: $sig:tt,
        view: $view:ident,
        rule: $rule:expr,
        static_rule: [$($static_rule:expr)?],
        kernel: $kernel:expr,
        grad: $grad:expr,
        node: $node:literal $(or $node_fn:path)?,
    })*) => {
        $(shape_method!($v, $m, $doc, $sig, [$($va)?], [$($p),*], [$($k),*]);)*
    };
}

/// One method of [`shape_methods`] (in a `#[pymethods]` block of its own, as pyo3 does
/// not expand macros inside one): with `*args` (then no positional-or-keyword
/// parameters) or without.
macro_rules! shape_method {
    ($v:ident, $m:ident, $doc:literal, $sig:tt, [$va:ident], [], [$($k:ident),*]) => {
        #[pymethods]
        impl PyTensor {
        #[doc = $doc]
        #[pyo3(signature = (*$va, $($k = None),*), text_signature = $sig)]
        fn $m(
            &self,
            py: Python<'_>,
            $va: &Bound<'_, PyTuple>,
            $($k: Option<&Bound<'_, PyAny>>,)*
        ) -> PyT {
            let mut slots = ShapeSlots::default();
            slots.1 = Some($va);
            $(slots.0[shape_param_of(stringify!($k)) as usize] = $k;)*
            let args = slots.parse(ShapeOp::$v)?;
            wrap(py, ShapeOp::$v.apply(&self.inner(), &args).py()?)
        }
        }
    };
    ($v:ident, $m:ident, $doc:literal, $sig:tt, [], [$($p:ident),*], [$($k:ident),*]) => {
        #[pymethods]
        impl PyTensor {
        #[doc = $doc]
        #[pyo3(signature = ($($p = None,)* *, $($k = None),*), text_signature = $sig)]
        fn $m(
            &self,
            py: Python<'_>,
            $($p: Option<&Bound<'_, PyAny>>,)*
            $($k: Option<&Bound<'_, PyAny>>,)*
        ) -> PyT {
            let mut slots = ShapeSlots::default();
            $(slots.0[shape_param_of(stringify!($p)) as usize] = $p;)*
            $(slots.0[shape_param_of(stringify!($k)) as usize] = $k;)*
            let args = slots.parse(ShapeOp::$v)?;
            wrap(py, ShapeOp::$v.apply(&self.inner(), &args).py()?)
        }
        }
    };
}

crate::op_defs::shape::for_each_shape_op!(shape_methods);

#[pymethods]
impl PyTensor {
    /// Same as `reshape` (always succeeds; copies when a view is impossible). With a
    /// dtype, the same bytes read as that dtype (PyTorch's and Paddle's `view(dtype)`):
    /// a new buffer, not differentiable (`Tensor::view_dtype`); the same dtype gives a view.
    #[pyo3(signature = (*shape))]
    fn view(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>) -> PyT {
        if shape.len() == 1 {
            let a = shape.get_item(0)?;
            if !a.is_instance_of::<PyList>()
                && !a.is_instance_of::<PyTuple>()
                && a.extract::<isize>().is_err()
            {
                let dtype = parse_dtype(&a)?;
                if dtype != self.inner().dtype() {
                    return wrap(py, self.inner().view_dtype(dtype).py()?);
                }
                let same = PyTuple::new(py, self.inner().shape())?;
                return self.reshape(py, &same, None, None);
            }
        }
        self.reshape(py, shape, None, None)
    }
    /// Transpose of a matrix (0-d and 1-d unchanged).
    fn t(&self, py: Python<'_>) -> PyT {
        // a 0-d or 1-D tensor: an alias view (PyTorch's transpose(0, 0)), so an in-place
        // write through it is recorded on this tensor's history (CopySlices), not shared
        match self.inner().ndim() {
            0 => return wrap(py, self.inner().permute(&[]).py()?),
            1 => return wrap(py, self.inner().transpose(0, 0).py()?),
            _ => {}
        }
        if self.inner().ndim() > 2 {
            return Err(PyValueError::new_err(format!(
                "t() expects a tensor with <= 2 dimensions, got {}",
                self.inner().ndim()
            )));
        }
        wrap(py, self.inner().transpose(0, 1).py()?)
    }
    /// All dims reversed.
    #[getter(T)]
    fn full_transpose(&self, py: Python<'_>) -> PyT {
        let n = self.inner().ndim() as isize;
        let perm: Vec<isize> = (0..n).rev().collect();
        wrap(py, self.inner().permute(&perm).py()?)
    }
    /// Last two dims swapped.
    #[getter(mT)]
    fn matrix_transpose(&self, py: Python<'_>) -> PyT {
        if self.inner().ndim() < 2 {
            return Err(PyValueError::new_err(
                "mT needs a tensor with at least 2 dimensions",
            ));
        }
        wrap(py, self.inner().transpose(-1, -2).py()?)
    }
    /// A copy with its own memory; differentiable.
    fn clone(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().clone_tensor().py()?)
    }
    /// Itself if contiguous, else a contiguous copy.
    fn contiguous(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().contiguous().py()?)
    }
    /// Converts to `dtype`.
    fn astype(&self, py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyT {
        wrap(py, self.inner().to_dtype(parse_dtype(dtype)?).py()?)
    }
    /// Same as `astype`.
    fn cast(&self, py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyT {
        self.astype(py, dtype)
    }
    /// `to(dtype)`, `to(other)` (its dtype), `to(device, dtype)`: the device must be the
    /// CPU. `copy=True` always returns new memory; `non_blocking` is accepted and ignored.
    /// Either may also follow positionally (`to(dtype, non_blocking, copy)`, as torch).
    #[pyo3(signature = (*args, dtype=None, device=None, non_blocking=false, copy=false))]
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
        copy: bool,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let _ = non_blocking;
        check_device(device, "to()")?;
        let mut target = dtype.map(parse_dtype).transpose()?;
        let mut flags: Vec<bool> = Vec::new();
        for a in args.iter() {
            if a.is_instance_of::<PyBool>() {
                flags.push(a.extract()?);
                continue;
            }
            if let Ok(s) = a.cast::<PyString>() {
                let s = s.to_cow()?;
                if s == "cpu" || s.starts_with("cpu") {
                    continue;
                }
                if DType::from_name(&s).is_err() {
                    return Err(PyValueError::new_err(format!(
                        "to(): ferrograd runs on the CPU only; unknown device or dtype '{s}'"
                    )));
                }
            }
            if let Ok(t) = a.cast::<PyTensor>() {
                target = Some(t.get().inner().dtype());
                continue;
            }
            match parse_dtype(&a) {
                Ok(d) => target = Some(d),
                // a device object (`ferrograd.device("cpu")`, a Paddle place) naming the CPU
                Err(e) => {
                    if a.str()?.to_cow()?.to_ascii_lowercase().contains("cpu") {
                        continue;
                    }
                    return Err(e);
                }
            }
        }
        if flags.len() > 2 {
            return Err(PyTypeError::new_err(
                "to() takes at most two positional flags: non_blocking and copy",
            ));
        }
        let copy = copy || flags.get(1).copied().unwrap_or(false);
        let t = &slf.get().inner().take();
        match target {
            Some(d) if d != t.dtype() => Ok(wrap(py, t.to_dtype(d).py()?)?.into_any()),
            _ if copy => Ok(wrap(py, t.clone_tensor().py()?)?.into_any()),
            _ => Ok(slf.clone().unbind().into_any()),
        }
    }
    /// Converts to float32.
    fn float(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::F32).py()?)
    }
    /// Converts to float64.
    fn double(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::F64).py()?)
    }
    /// Converts to float16.
    fn half(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::F16).py()?)
    }
    /// Converts to bfloat16.
    fn bfloat16(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::BF16).py()?)
    }
    /// Converts to int32.
    fn int(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::I32).py()?)
    }
    /// Converts to int64.
    fn long(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::I64).py()?)
    }
    /// Converts to bool.
    fn bool(&self, py: Python<'_>) -> PyT {
        wrap(py, self.inner().to_dtype(DType::Bool).py()?)
    }
    /// True for floating dtypes.
    fn is_floating_point(&self) -> bool {
        self.inner().dtype().is_float()
    }
    /// True for complex dtypes.
    fn is_complex(&self) -> bool {
        self.inner().dtype().is_complex()
    }

    // ---- in-place ---------------------------------------------------------------------

    fn __iadd__(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = operand(other, self.inner().dtype())?;
        self.inner().binary_(&o, BinaryOp::Add, "add_").py()
    }
    fn __isub__(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = operand(other, self.inner().dtype())?;
        self.inner().binary_(&o, BinaryOp::Sub, "sub_").py()
    }
    fn __imul__(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = operand(other, self.inner().dtype())?;
        self.inner().binary_(&o, BinaryOp::Mul, "mul_").py()
    }
    fn __itruediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let o = operand(other, self.inner().dtype())?;
        self.inner().binary_(&o, BinaryOp::Div, "div_").py()
    }
    /// In-place `self += other` (Paddle's `y=` also accepted; torch's `alpha=` scales
    /// `other` first).
    #[pyo3(signature = (other=None, *, y=None, alpha=None))]
    fn add_(
        slf: Py<Self>,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let other = operand_arg(other, &[("y", y)], "add_")?;
        let other = scaled_operand(other, alpha, "add_")?;
        inplace(py, slf, &other, BinaryOp::Add, "add_")
    }
    /// In-place `self -= other` (Paddle's `y=` also accepted; torch's `alpha=` scales
    /// `other` first).
    #[pyo3(signature = (other=None, *, y=None, alpha=None))]
    fn sub_(
        slf: Py<Self>,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
        alpha: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let other = operand_arg(other, &[("y", y)], "sub_")?;
        let other = scaled_operand(other, alpha, "sub_")?;
        inplace(py, slf, &other, BinaryOp::Sub, "sub_")
    }
    /// In-place `self *= other` (Paddle's `y=` also accepted).
    #[pyo3(signature = (other=None, *, y=None))]
    fn mul_(
        slf: Py<Self>,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let other = operand_arg(other, &[("y", y)], "mul_")?;
        inplace(py, slf, other, BinaryOp::Mul, "mul_")
    }
    /// In-place `self /= other` (Paddle's `y=` also accepted).
    #[pyo3(signature = (other=None, *, y=None))]
    fn div_(
        slf: Py<Self>,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let other = operand_arg(other, &[("y", y)], "div_")?;
        inplace(py, slf, other, BinaryOp::Div, "div_")
    }
    /// Fills with zeros in place.
    fn zero_(slf: Py<Self>) -> PyResult<Py<Self>> {
        slf.get().inner().fill_named(0.0, "zero_").py()?;
        Ok(slf)
    }
    /// Fills with `value` in place: a number or a one-element tensor (complex values for
    /// complex tensors).
    fn fill_(slf: Py<Self>, value: &Bound<'_, PyAny>) -> PyResult<Py<Self>> {
        let t = &slf.get().inner().take();
        let v = scalar_arg(value, "fill_", "value")?;
        if v.im != 0.0 && !t.dtype().is_complex() {
            return Err(PyTypeError::new_err(format!(
                "fill_(): cannot fill a {} tensor with the complex value {}",
                t.dtype(),
                value.repr()?
            )));
        }
        if v.im == 0.0 {
            t.fill_(v.re).py()?;
        } else {
            let r = crate::tensor::full_complex(t.shape(), Complex64::new(v.re, v.im), t.dtype())
                .py()?;
            t.fill_with(&r, "fill_").py()?;
        }
        Ok(slf)
    }
    /// Copies `src` into this tensor in place (broadcast, cast).
    #[pyo3(signature = (src, non_blocking=false))]
    fn copy_(
        slf: Py<Self>,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        non_blocking: bool,
    ) -> PyResult<Py<Self>> {
        let _ = non_blocking;
        let s = operand(src, slf.get().inner().dtype())?;
        slf.get().inner().copy_(&s).py()?;
        let _ = py;
        Ok(slf)
    }
    /// Clamps in place; either bound may be None, a number or a one-element tensor.
    #[pyo3(signature = (min=None, max=None, name=None))]
    fn clip_(
        slf: Py<Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let _ = name;
        clip_as(slf, min, max, "clip_")
    }
    /// Same as `clip_` (its errors say `clamp_`).
    #[pyo3(signature = (min=None, max=None, name=None))]
    fn clamp_(
        slf: Py<Self>,
        min: Option<&Bound<'_, PyAny>>,
        max: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Self>> {
        let _ = name;
        clip_as(slf, min, max, "clamp_")
    }
    /// `e^x` in place.
    fn exp_(slf: Py<Self>) -> PyResult<Py<Self>> {
        slf.get()
            .inner()
            .unary_(crate::tensor::UnaryOp::Exp, "exp_")
            .py()?;
        Ok(slf)
    }
    /// `x = scale * x + bias` (or `scale * (x + bias)`) in place (Paddle).
    #[pyo3(signature = (scale=1.0, bias=0.0, bias_after_scale=true))]
    fn scale_(slf: Py<Self>, scale: f64, bias: f64, bias_after_scale: bool) -> PyResult<Py<Self>> {
        let t = &slf.get().inner().take();
        t.check_inplace("scale_").py()?;
        let r = scale_op(t, scale, bias, bias_after_scale).py()?;
        t.apply_inplace("scale_", &r).py()?;
        Ok(slf)
    }
    /// `scale * x + bias` (or `scale * (x + bias)`) (Paddle).
    #[pyo3(signature = (scale=1.0, bias=0.0, bias_after_scale=true, act=None, name=None))]
    fn scale(
        &self,
        py: Python<'_>,
        scale: f64,
        bias: f64,
        bias_after_scale: bool,
        act: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = (act, name);
        wrap(
            py,
            scale_op(&self.inner(), scale, bias, bias_after_scale).py()?,
        )
    }
}

/// `clip_` / `clamp_` under the name the caller used, which the errors name.
fn clip_as(
    slf: Py<PyTensor>,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
    op: &str,
) -> PyResult<Py<PyTensor>> {
    let lo = real_bound(min, op, "min")?;
    let hi = real_bound(max, op, "max")?;
    slf.get().inner().clip_named_(lo, hi, op).py()?;
    Ok(slf)
}

fn scale_op(
    t: &crate::tensor::Tensor,
    scale: f64,
    bias: f64,
    after: bool,
) -> crate::Result<crate::tensor::Tensor> {
    if after {
        t.mul_scalar(scale)?.add_scalar(bias)
    } else {
        t.add_scalar(bias)?.mul_scalar(scale)
    }
}

fn inplace(
    py: Python<'_>,
    slf: Py<PyTensor>,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
    name: &str,
) -> PyResult<Py<PyTensor>> {
    let t = slf.get().inner().take();
    let o = operand(other, t.dtype())?;
    t.binary_(&o, op, name).py()?;
    let _ = py;
    Ok(slf)
}
