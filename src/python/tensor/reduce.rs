//! Reduction and softmax methods of the Python `Tensor`: one method per entry of the
//! reduction table (`src/op_defs/reduce.rs`), with the entry's signature and the generic
//! parser of [`crate::python::reduce_args`]; `softmax` and `log_softmax` (not reductions)
//! are written out below.

use crate::op_defs::Reduction;
use crate::python::args::dtype_arg;
use crate::python::errors::IntoPy;
use crate::python::reduce_args::Slots;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::*;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

impl PyTensor {
    /// The shared body of the reduction methods: parses the call, runs the op (with the
    /// GIL released for large tensors) and wraps the result.
    fn reduce_call(&self, py: Python<'_>, op: Reduction, slots: Slots<'_, '_>) -> PyT {
        let x = &self.inner_gil(py);
        let _profiled = crate::profiler::op(|| op.name(), &[x]);
        let mut args = slots.parse(op)?;
        // argmax/argmin's `dtype` (Paddle's) is the indices' dtype, not a cast of the input
        if matches!(op, Reduction::Argmax | Reduction::Argmin) {
            if let Some(d) = args.dtype.take() {
                let idx = maybe_detach(py, x.numel(), || op.run(x, &args)).py()?;
                return wrap(py, idx.to_dtype(d).py()?);
            }
        }
        // Paddle's mean of an integer tensor keeps its dtype, rounded toward zero (the
        // dialect is asked only on this path)
        if matches!(op, Reduction::Mean)
            && args.dtype.is_none()
            && x.dtype().is_int()
            && crate::python::dialect::caller_is_paddle(py)?
        {
            let wide = x.to_dtype(crate::dtype::DType::F64).py()?;
            let m = maybe_detach(py, x.numel(), || op.run(&wide, &args)).py()?;
            return wrap(py, m.to_dtype(x.dtype()).py()?);
        }
        // PyTorch's nanmean refuses integer and bool input, even with `dtype=` (aten
        // ReduceOps.cpp `nanmean`); Paddle's dygraph nanmean skips its dtype check and
        // divides (a float result), which is also ferrograd's default
        if matches!(op, Reduction::Nanmean)
            && !x.dtype().is_differentiable()
            && crate::python::dialect::caller_is_torch(py)?
        {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "nanmean(): expected input to have floating point or complex dtype but got \
                 {}; convert it first (x.float())",
                x.dtype().name()
            )));
        }
        if matches!(op, Reduction::Var | Reduction::Std) {
            let n = reduced_count(x, args.axes.as_deref());
            // Paddle's unbiased var/std divide by n - 1 where n > 1, else by 1 (stat.py
            // `where(n > 1, n - 1, 1)`): one element gives 0, not NaN (the dialect is
            // asked only on these paths)
            if args.correction == 1.0 && n <= 1 && crate::python::dialect::caller_is_paddle(py)? {
                args.correction = n as f64 - 1.0;
            } else if n as f64 - args.correction <= 0.0
                && crate::python::dialect::caller_is_torch(py)?
            {
                // PyTorch's NaN/inf comes with its warning (ReduceOps.cpp
                // `warn_invalid_degrees_of_freedom`)
                let msg = if matches!(op, Reduction::Var) {
                    c"var(): degrees of freedom is <= 0. Correction should be strictly less \
                      than the reduction factor (input numel divided by output numel)."
                } else {
                    c"std(): degrees of freedom is <= 0. Correction should be strictly less \
                      than the reduction factor (input numel divided by output numel)."
                };
                let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
                PyErr::warn(py, &category, msg, 1)?;
            }
        }
        wrap(py, maybe_detach(py, x.numel(), || op.run(x, &args)).py()?)
    }
}

/// The number of elements each output element of a reduction over `axes` (all when None)
/// reads: the product of those dims' sizes (an axis out of range counts 1; the op itself
/// refuses it).
fn reduced_count(x: &crate::tensor::Tensor, axes: Option<&[isize]>) -> usize {
    let nd = x.ndim() as isize;
    match axes {
        None => x.numel(),
        Some(ax) => ax
            .iter()
            .map(|&a| {
                let d = if a < 0 { a + nd } else { a };
                x.shape().get(d.max(0) as usize).copied().unwrap_or(1)
            })
            .product(),
    }
}

/// One `Tensor` method per reduction, from the declarations in
/// [`crate::op_defs::reduce`]: every parameter defaults to None (each op's default is
/// applied by the parser), the keyword-only ones after `*`.
macro_rules! reduce_methods {
    ($($v:ident {
        name: $m:ident,
        doc: $doc:literal,
        params: [$($p:ident),*], keywords: [$($k:ident),*],
        other_order: [$($o:ident),*],
        dtype: $dtype:ident, axes: $axes:ident,
        kernel: [$($kernel:expr)?], saves: [$($save:ident),*], grad: [$($grad:expr)?],
        compose: [$($compose:expr)?],
        node: $node:literal,
    })*) => {
        #[pymethods]
        impl PyTensor {
            $(
                #[doc = $doc]
                #[pyo3(signature = ($($p = None,)* *, $($k = None),*))]
                #[allow(clippy::too_many_arguments)]
                fn $m(
                    &self,
                    py: Python<'_>,
                    $($p: Option<&Bound<'_, PyAny>>,)*
                    $($k: Option<&Bound<'_, PyAny>>,)*
                ) -> PyT {
                    let mut slots = Slots::default();
                    $(slots.0[crate::op_defs::param!($p) as usize] = $p;)*
                    $(slots.0[crate::op_defs::param!($k) as usize] = $k;)*
                    self.reduce_call(py, Reduction::$v, slots)
                }
            )*
        }
    };
}

crate::op_defs::reduce::for_each_reduce_op!(reduce_methods);

#[pymethods]
impl PyTensor {
    /// `sum(self * self)` over `dims` (None: all) of a float32/float64 tensor in one pass,
    /// without a graph: the private kernel of the 2-norm (`linalg/_norms.py`).
    #[pyo3(signature = (dims=None, keepdim=false))]
    fn _sum_squares(&self, py: Python<'_>, dims: Option<Vec<isize>>, keepdim: bool) -> PyT {
        let x = self.inner().take();
        let axes = crate::tensor::reduce::normalize_axes(dims.as_deref(), x.ndim(), "norm").py()?;
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.sum_squares_raw(&axes, keepdim)).py()?,
        )
    }
    /// PyTorch's `max(dim)` / `min(dim)` pair `(values, indices)` of a tensor with at
    /// least one dim: the int64 index of the first extreme element (or first NaN) along
    /// `dim`, and the values gathered there, so the gradient goes to that element alone.
    /// The kernel of `_shared_spellings._pair`: the ops it called one by one (`argmax`,
    /// `take_along_axis`, two `squeeze`s), recorded the same, in one call.
    #[pyo3(signature = (dim, keepdim, is_max))]
    fn _extreme_pair(
        &self,
        py: Python<'_>,
        dim: isize,
        keepdim: bool,
        is_max: bool,
    ) -> PyResult<(Py<PyTensor>, Py<PyTensor>)> {
        let x = self.inner().take();
        let _profiled = crate::profiler::op(|| if is_max { "max" } else { "min" }, &[&x]);
        let idx = x.argmax_argmin(Some(dim), true, is_max).py()?;
        let values = x.gather(dim, &idx).py()?;
        let (values, idx) = if keepdim {
            (values, idx)
        } else {
            let d = [dim];
            (values.squeeze(Some(&d)).py()?, idx.squeeze(Some(&d)).py()?)
        };
        Ok((wrap(py, values)?, wrap(py, idx)?))
    }
    /// Softmax along `axis` (default: last).
    #[pyo3(
        signature = (axis=-1, dtype=None, name=None, *, dim=None),
        text_signature = "($self, axis=-1, dtype=None, name=None, *, dim=None)"
    )]
    fn softmax(
        &self,
        py: Python<'_>,
        axis: isize,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        let x = match dtype_arg(dtype, "softmax")? {
            Some(d) => self.inner().to_dtype(d).py()?,
            None => self.inner().take(),
        };
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.softmax(dim.unwrap_or(axis))).py()?,
        )
    }
    /// Log-softmax along `axis` (default: last).
    #[pyo3(
        signature = (axis=-1, dtype=None, name=None, *, dim=None),
        text_signature = "($self, axis=-1, dtype=None, name=None, *, dim=None)"
    )]
    fn log_softmax(
        &self,
        py: Python<'_>,
        axis: isize,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        let x = match dtype_arg(dtype, "log_softmax")? {
            Some(d) => self.inner().to_dtype(d).py()?,
            None => self.inner().take(),
        };
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.log_softmax(dim.unwrap_or(axis))).py()?,
        )
    }
}
