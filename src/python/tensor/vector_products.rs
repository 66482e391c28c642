//! `Tensor.dot` / `Tensor.outer`: the vector products, whose 2-D (and other-rank)
//! operands mean different things to the two peers (docs/dialects.md).

use crate::python::args::operand_arg;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::operand;
use crate::python::tensor::class::{wrap, PyTensor};
use pyo3::prelude::*;

type PyT = PyResult<Py<PyTensor>>;

#[pymethods]
impl PyTensor {
    /// Inner product of 1-D tensors (Paddle's `y=` also accepted). In Paddle code (or
    /// with Paddle's `y=` / `name=`) two `[B, N]` tensors give the `[B]` row-wise
    /// products, as Paddle's `dot` does (PyTorch refuses 2-D operands).
    #[pyo3(signature = (other=None, name=None, *, y=None))]
    fn dot(
        &self,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let paddle_kw = name.is_some() || y.is_some();
        let other = operand_arg(other, &[("y", y)], "dot")?;
        let b = operand(other, self.inner().dtype())?;
        let a = self.inner();
        // the dialect is asked only for 2-D operands (1-D is both peers' rule)
        if a.ndim() == 2
            && b.ndim() == 2
            && a.shape() == b.shape()
            && a.dtype() == b.dtype()
            && (paddle_kw || crate::python::dialect::caller_is_paddle(py)?)
        {
            let rows = a.mul(&b).py()?.sum(Some(&[-1]), false).py()?;
            // (the sum widens small integers; Paddle's dot keeps the operands' dtype)
            return wrap(py, rows.to_dtype(a.dtype()).py()?);
        }
        wrap(py, a.dot(&b).py()?)
    }
    /// Outer product of 1-D tensors (Paddle's `y=` also accepted). In Paddle code (or
    /// with Paddle's `y=` / `name=`) operands of any rank are flattened first, as
    /// Paddle's `x.outer(y)` (`x.reshape([-1, 1]) @ y.reshape([1, -1])`).
    #[pyo3(signature = (other=None, name=None, *, y=None))]
    fn outer(
        &self,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
    ) -> PyT {
        let paddle_kw = name.is_some() || y.is_some();
        let other = operand_arg(other, &[("y", y)], "outer")?;
        let b = operand(other, self.inner().dtype())?;
        let a = self.inner();
        // the dialect is asked only when an operand is not 1-D (1-D is both peers' rule)
        if (a.ndim() != 1 || b.ndim() != 1)
            && (paddle_kw || crate::python::dialect::caller_is_paddle(py)?)
        {
            let (a, b) = (a.reshape(&[-1]).py()?, b.reshape(&[-1]).py()?);
            return wrap(py, a.outer(&b).py()?);
        }
        wrap(py, a.outer(&b).py()?)
    }
}
