//! The scatter primitives of the Python `Tensor`, under private names: the public
//! PyTorch / Paddle spellings (`scatter`, `scatter_add`, `scatter_reduce`, `index_add`,
//! `put_along_axis`, Paddle's row `scatter`, ...) live in `python/ferrograd/_ops_scatter.py`,
//! which parses both dialects' arguments and composes these.

use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

#[pymethods]
impl PyTensor {
    /// Out-of-place `scatter_add` along `dim` (torch semantics; differentiable).
    fn _scatter_add(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyTensor>,
        src: &Bound<'_, PyTensor>,
    ) -> PyT {
        let (x, i, s) = (&self.inner(), &index.get().inner(), &src.get().inner());
        let work = x.numel() + i.numel();
        wrap(
            py,
            maybe_detach(py, work, || x.scatter_add(dim, i, s)).py()?,
        )
    }

    /// Out-of-place overwriting `scatter` along `dim` (last duplicate wins; differentiable).
    fn _scatter_set(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyTensor>,
        src: &Bound<'_, PyTensor>,
    ) -> PyT {
        let (x, i, s) = (&self.inner(), &index.get().inner(), &src.get().inner());
        let work = x.numel() + i.numel();
        wrap(py, maybe_detach(py, work, || x.scatter(dim, i, s)).py()?)
    }

    /// `value` (one element of this dtype) where the bool `mask` is true (differentiable).
    fn _masked_fill(
        &self,
        py: Python<'_>,
        mask: &Bound<'_, PyTensor>,
        value: &Bound<'_, PyTensor>,
    ) -> PyT {
        let (x, m, v) = (&self.inner(), &mask.get().inner(), &value.get().inner());
        wrap(
            py,
            maybe_detach(py, x.numel(), || x.masked_fill(m, v)).py()?,
        )
    }

    /// Scatter-reduce with `prod` / `amax` / `amin`; records no gradient.
    fn _scatter_reduce_raw(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyTensor>,
        src: &Bound<'_, PyTensor>,
        reduce: &str,
        include_self: bool,
    ) -> PyT {
        let (x, i, s) = (&self.inner(), &index.get().inner(), &src.get().inner());
        let work = x.numel() + i.numel();
        let r = maybe_detach(py, work, || {
            x.scatter_reduce_raw(dim, i, s, reduce, include_self)
        });
        wrap(py, r.py()?)
    }
}
