//! The core of `as_strided` (`Tensor._as_strided`) and `Tensor.storage_offset()`; the
//! public `as_strided` / `Tensor.as_strided` / `as_strided_` are written in Python over
//! them (`python/ferrograd/_ops_strided.py`), which reads the dialect's spellings. Also
//! the two storage-level methods the checkpoint writer and reader use
//! (`python/ferrograd/serialization.py`): `_storage_key` and `_storage_tensor`.

use crate::autograd::ops::storage_layout;
use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// The view of this tensor's memory with sizes `size`, strides `stride` (elements)
    /// and its first element `offset` elements from the memory's start (None: where this
    /// tensor's first element is); differentiable.
    #[pyo3(signature = (size, stride, offset=None))]
    fn _as_strided(
        &self,
        py: Python<'_>,
        size: Vec<i64>,
        stride: Vec<i64>,
        offset: Option<i64>,
    ) -> PyResult<Py<PyTensor>> {
        let t = self.inner();
        let offset = match offset {
            Some(o) => o,
            None => i64::try_from(t.layout().offset).unwrap_or(i64::MAX),
        };
        wrap(py, t.as_strided(&size, &stride, offset).py()?)
    }

    /// Where this tensor's first element sits in its memory, in elements from the
    /// memory's start (PyTorch's `Tensor.storage_offset()`).
    fn storage_offset(&self) -> usize {
        self.inner().layout().offset
    }

    /// `(identity, length)` of this tensor's memory: the identity is equal for tensors
    /// that share memory (while they live), the length counts elements. The checkpoint
    /// writer stores each memory once, as PyTorch's `torch.save` stores each storage.
    fn _storage_key(&self) -> (usize, usize) {
        let t = self.inner();
        (
            std::sync::Arc::as_ptr(t.storage()) as usize,
            t.storage().len(),
        )
    }

    /// A tensor over this tensor's memory with sizes `size`, strides `stride` (negative
    /// ones allowed) and first element `offset` elements from the memory's start, every
    /// element checked to lie inside the memory: no history, `requires_grad` False, and
    /// the version counter shared (as `detach()` gives). Not a view in autograd's sense;
    /// the checkpoint reader rebuilds saved tensors that shared memory with it.
    fn _storage_tensor(
        &self,
        py: Python<'_>,
        size: Vec<i64>,
        stride: Vec<i64>,
        offset: i64,
    ) -> PyResult<Py<PyTensor>> {
        let t = self.inner();
        let layout =
            storage_layout(&size, &stride, offset, t.storage().len(), t.dtype().size()).py()?;
        wrap(py, t.view_with(layout))
    }
}
