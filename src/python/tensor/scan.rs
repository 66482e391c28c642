//! Scan, sort and search methods of the Python `Tensor`: `cumsum`, `cumprod`,
//! `logcumsumexp`, `argsort`, and the primitives behind the Python-level `sort`, `topk`,
//! `kthvalue`, `median`, `mode`, `cummax` / `cummin` and `searchsorted`
//! (`python/ferrograd/_sort_scan.py` builds the dialects' return types around them).

use crate::kernels::sort::Pick;
use crate::python::args::{dtype_arg, pick_dim};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;
type PyPair = PyResult<(Py<PyTensor>, Py<PyTensor>)>;

#[pymethods]
impl PyTensor {
    /// Cumulative sum along `axis`/`dim` (None: of the flattened tensor), after casting
    /// to `dtype` when given; integer and bool inputs sum in int64 (an explicit `dtype` is the result's).
    #[pyo3(signature = (axis=None, dtype=None, name=None, *, dim=None))]
    fn cumsum(
        &self,
        py: Python<'_>,
        axis: Option<isize>,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        let dt = dtype_arg(dtype, "cumsum")?;
        let t = &self.inner();
        let ax = pick_dim(axis, dim);
        wrap(py, maybe_detach(py, t.numel(), || t.cumsum(ax, dt)).py()?)
    }

    /// Cumulative product along `dim`/`axis` (None: flattened); the gradient is exact
    /// where the input holds zeros.
    #[pyo3(signature = (dim=None, dtype=None, name=None, *, axis=None))]
    fn cumprod(
        &self,
        py: Python<'_>,
        dim: Option<isize>,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        axis: Option<isize>,
    ) -> PyT {
        let _ = name;
        let dt = dtype_arg(dtype, "cumprod")?;
        let t = &self.inner();
        let ax = pick_dim(dim, axis);
        wrap(py, maybe_detach(py, t.numel(), || t.cumprod(ax, dt)).py()?)
    }

    /// `log(cumsum(exp(x)))` along `axis`/`dim` (None: flattened), without overflow.
    #[pyo3(signature = (axis=None, dtype=None, name=None, *, dim=None))]
    fn logcumsumexp(
        &self,
        py: Python<'_>,
        axis: Option<isize>,
        dtype: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = name;
        let dt = dtype_arg(dtype, "logcumsumexp")?;
        let t = &self.inner();
        let ax = pick_dim(axis, dim);
        wrap(
            py,
            maybe_detach(py, t.numel(), || t.logcumsumexp(ax, dt)).py()?,
        )
    }

    /// Positions (int64) that sort the tensor along `axis`/`dim` (ascending, or
    /// descending); equal elements keep their order, NaN sorts as the largest value.
    #[pyo3(signature = (axis=-1, descending=false, stable=false, name=None, *, dim=None))]
    fn argsort(
        &self,
        py: Python<'_>,
        axis: isize,
        descending: bool,
        stable: bool,
        name: Option<&Bound<'_, PyAny>>,
        dim: Option<isize>,
    ) -> PyT {
        let _ = (stable, name); // every sort here is stable
        let t = &self.inner();
        let d = dim.unwrap_or(axis);
        let (_, idx) = maybe_detach(py, t.numel(), || {
            t.sort_topk(d, None, descending, false, "argsort")
        })
        .py()?;
        wrap(py, idx)
    }

    /// Running max (`is_max`) or min along `dim` (None: flattened): (values, indices).
    fn _cum_extreme(&self, py: Python<'_>, dim: Option<isize>, is_max: bool) -> PyPair {
        let t = &self.inner();
        let (v, i) = maybe_detach(py, t.numel(), || t.cum_extreme(dim, is_max)).py()?;
        Ok((wrap(py, v)?, wrap(py, i)?))
    }

    /// Sorted (`k` None) or top-`k` values and positions along `dim`.
    fn _sort_topk(
        &self,
        py: Python<'_>,
        dim: isize,
        k: Option<isize>,
        descending: bool,
        op: &str,
    ) -> PyPair {
        let k = match k {
            Some(k) if k < 0 => {
                return Err(PyValueError::new_err(format!(
                    "{op}: k must be >= 0, got {k}"
                )))
            }
            Some(k) => Some(k as usize),
            None => None,
        };
        let t = &self.inner();
        let (v, i) =
            maybe_detach(py, t.numel(), || t.sort_topk(dim, k, descending, true, op)).py()?;
        let v = v.ok_or_else(|| {
            PyRuntimeError::new_err(format!("{op}: internal error: no values were computed"))
        })?;
        Ok((wrap(py, v)?, wrap(py, i)?))
    }

    /// One element per line along `dim`: `pick` is "kth" (with 1-based `k`),
    /// "median_low", "median_high", "nanmedian_low", "nanmedian_high" or "mode".
    #[pyo3(signature = (dim, pick, k=1, keepdim=false))]
    fn _select(&self, py: Python<'_>, dim: isize, pick: &str, k: isize, keepdim: bool) -> PyPair {
        let p = match pick {
            "kth" => {
                if k < 1 {
                    return Err(PyValueError::new_err(format!(
                        "kthvalue: k must be >= 1 (it counts from 1), got {k}"
                    )));
                }
                Pick::Kth(k as usize - 1)
            }
            "median_low" | "median_high" | "nanmedian_low" | "nanmedian_high" => Pick::Median {
                high: pick.ends_with("high"),
                ignore_nan: pick.starts_with("nan"),
            },
            "mode" => Pick::Mode,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "internal: unknown selection {pick:?}"
                )))
            }
        };
        let op = match p {
            Pick::Kth(_) => "kthvalue",
            Pick::Mode => "mode",
            Pick::Median { .. } => "median",
        };
        let t = &self.inner();
        let (v, i) = maybe_detach(py, t.numel(), || t.select_along(dim, p, keepdim, op)).py()?;
        Ok((wrap(py, v)?, wrap(py, i)?))
    }

    /// Insertion points (int64) of `values` in this sorted tensor (see `searchsorted`).
    fn _searchsorted(&self, py: Python<'_>, values: &PyTensor, right: bool) -> PyT {
        let (s, v) = (&self.inner(), &values.inner());
        wrap(
            py,
            maybe_detach(py, v.numel() + s.numel(), || s.searchsorted(v, right)).py()?,
        )
    }
}
