//! Reduction and softmax methods of the Python `Tensor` (`sum`, `mean`, `prod`, `max`,
//! `min`, `argmax`, `var`, `std`, `logsumexp`, `all`, `any`, `softmax`, `log_softmax`),
//! accepting both Paddle's `axis=` and torch's `dim=`.

use crate::python::args::{axis_or_dim, dtype_arg, keepdim_and_dtype, keepdim_arg, parse_axes};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::*;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

impl PyTensor {
    /// Parses `axis`, runs `f` (with the GIL released for large tensors) and wraps the
    /// result: the shared body of the axis-taking reductions below.
    fn reduce_with(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        f: impl FnOnce(&crate::tensor::Tensor, Option<&[isize]>) -> crate::Result<crate::tensor::Tensor>
            + Send,
    ) -> PyT {
        let ax = parse_axes(axis)?;
        let t = &self.inner;
        wrap(
            py,
            maybe_detach(py, t.numel(), || f(t, ax.as_deref())).py()?,
        )
    }
}

#[pymethods]
impl PyTensor {
    /// Sum over `axis`/`dim` (all by default). Positionally both torch's
    /// `sum(dim, keepdim, dtype)` and Paddle's `sum(axis, dtype, keepdim)` work: a dtype
    /// in the second place (or a bool in the third) means Paddle's order.
    #[pyo3(
        signature = (axis=None, keepdim=None, dtype=None, name=None, *, dim=None),
        text_signature = "($self, axis=None, keepdim=False, dtype=None, name=None, *, dim=None)"
    )]
    fn sum(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let (keepdim, dtype) = keepdim_and_dtype(keepdim, dtype);
        let keepdim = keepdim_arg(keepdim, "sum")?;
        let x = match dtype_arg(dtype, "sum")? {
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.sum(ax.as_deref(), keepdim)).py()?,
        )
    }
    /// Mean over `axis`/`dim` (Paddle's `mean(axis, keepdim)` and torch's order agree).
    #[pyo3(
        signature = (axis=None, keepdim=None, name=None, *, dim=None, dtype=None),
        text_signature = "($self, axis=None, keepdim=False, name=None, *, dim=None, dtype=None)"
    )]
    fn mean(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let _ = name;
        let keepdim = keepdim_arg(keepdim, "mean")?;
        let x = match dtype_arg(dtype, "mean")? {
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        let ax = parse_axes(axis_or_dim(axis, dim))?;
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.mean(ax.as_deref(), keepdim)).py()?,
        )
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
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| t.prod(ax, keepdim))
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
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| {
            t.amax_amin(ax, keepdim, true)
        })
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
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn amax(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        self.max(py, axis, keepdim, name, dim)
    }
    /// Same as `min`.
    #[pyo3(signature = (axis=None, keepdim=false, name=None, *, dim=None))]
    fn amin(
        &self,
        py: Python<'_>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdim: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        self.min(py, axis, keepdim, name, dim)
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
        let c = correction.unwrap_or(if unbiased { 1.0 } else { 0.0 });
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| t.var(ax, c, keepdim))
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
        let c = correction.unwrap_or(if unbiased { 1.0 } else { 0.0 });
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| t.std(ax, c, keepdim))
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
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| t.logsumexp(ax, keepdim))
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
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| {
            t.all_any(ax, keepdim, true)
        })
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
        self.reduce_with(py, axis_or_dim(axis, dim), |t, ax| {
            t.all_any(ax, keepdim, false)
        })
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
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
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
            Some(d) => self.inner.to_dtype(d).py()?,
            None => self.inner.clone(),
        };
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.log_softmax(dim.unwrap_or(axis))).py()?,
        )
    }
}
