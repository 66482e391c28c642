//! The scatter primitives of the Python `Tensor`, under private names: the public
//! PyTorch / Paddle spellings (`scatter`, `scatter_add`, `scatter_reduce`, `index_add`,
//! `put_along_axis`, Paddle's row `scatter`, ...) live in `python/ferrograd/_ops_scatter.py`,
//! which parses both dialects' arguments and composes these.
//!
//! Each takes `refuse`: `None` counts an index below 0 from the end; an op name refuses
//! it with PyTorch's `IndexError` naming that op (the Python layer passes the name for
//! PyTorch code, `ferrograd._index_sign`). The kernels check it in their own pass.

use crate::kernels::index::NegIndex;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::python::tensor::math::maybe_detach;
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

/// The kernels' mode for a `refuse` argument (see the module doc).
fn neg_mode(refuse: Option<&str>) -> NegIndex<'_> {
    refuse.map_or(NegIndex::Wrap, NegIndex::Refuse)
}

#[pymethods]
impl PyTensor {
    /// Out-of-place `scatter_add` along `dim` (torch semantics; differentiable); `refuse`:
    /// see the module doc.
    #[pyo3(signature = (dim, index, src, refuse=None))]
    fn _scatter_add(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyTensor>,
        src: &Bound<'_, PyTensor>,
        refuse: Option<&str>,
    ) -> PyT {
        let (x, i, s) = (&self.inner(), &index.get().inner(), &src.get().inner());
        let work = x.numel() + i.numel();
        let neg = neg_mode(refuse);
        wrap(
            py,
            maybe_detach(py, work, || x.scatter_add_neg(dim, i, s, neg)).py()?,
        )
    }

    /// Out-of-place overwriting `scatter` along `dim` (last duplicate wins; differentiable);
    /// `refuse`: see the module doc.
    #[pyo3(signature = (dim, index, src, refuse=None))]
    fn _scatter_set(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyTensor>,
        src: &Bound<'_, PyTensor>,
        refuse: Option<&str>,
    ) -> PyT {
        let (x, i, s) = (&self.inner(), &index.get().inner(), &src.get().inner());
        let work = x.numel() + i.numel();
        let neg = neg_mode(refuse);
        wrap(
            py,
            maybe_detach(py, work, || x.scatter_neg(dim, i, s, neg)).py()?,
        )
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

    /// Scatter-reduce with `prod` / `amax` / `amin`; records no gradient. `refuse`: see the
    /// module doc.
    #[pyo3(signature = (dim, index, src, reduce, include_self, refuse=None))]
    #[allow(clippy::too_many_arguments)]
    fn _scatter_reduce_raw(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyTensor>,
        src: &Bound<'_, PyTensor>,
        reduce: &str,
        include_self: bool,
        refuse: Option<&str>,
    ) -> PyT {
        let (x, i, s) = (&self.inner(), &index.get().inner(), &src.get().inner());
        let work = x.numel() + i.numel();
        let neg = neg_mode(refuse);
        let r = maybe_detach(py, work, || {
            x.scatter_reduce_raw_neg(dim, i, s, reduce, include_self, neg)
        });
        wrap(py, r.py()?)
    }
}
