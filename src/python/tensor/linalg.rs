//! `_core._linalg(op, a, b=None, flag=False)`: the dense factorizations of
//! `crate::tensor::linalg` for `ferrograd.linalg` (which adds the gradients). The work
//! runs without the GIL.

use crate::python::errors::IntoPy;
use crate::python::tensor::class::{wrap, PyTensor};
use crate::tensor::linalg::{linalg_op, LinalgOp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Runs factorization `op` ("inv", "solve", "det", "cholesky", "qr", "eigh", "eigvalsh",
/// "svd", "svdvals", "lu_factor", "solve_tril", "solve_triu", "inv_ex", "cholesky_ex",
/// "eig", "eigvals") on `a` (and `b` for the solves) and returns its outputs as a list
/// of tensors without history. `flag`: complete Q (qr), lower triangle (eigh), full
/// matrices (svd), unit diagonal (solve_tril / solve_triu).
#[pyfunction]
#[pyo3(signature = (op, a, b=None, flag=false))]
pub fn _linalg(
    py: Python<'_>,
    op: &str,
    a: &Bound<'_, PyTensor>,
    b: Option<&Bound<'_, PyTensor>>,
    flag: bool,
) -> PyResult<Vec<Py<PyTensor>>> {
    let op = match op {
        "inv" => LinalgOp::Inv,
        "solve" => LinalgOp::Solve,
        "det" => LinalgOp::Det,
        "cholesky" => LinalgOp::Cholesky,
        "qr" => LinalgOp::Qr,
        "eigh" => LinalgOp::Eigh,
        "eigvalsh" => LinalgOp::Eigvalsh,
        "svd" => LinalgOp::Svd,
        "svdvals" => LinalgOp::Svdvals,
        "lu_factor" => LinalgOp::LuFactor,
        "solve_tril" => LinalgOp::SolveTril,
        "solve_triu" => LinalgOp::SolveTriu,
        "inv_ex" => LinalgOp::InvEx,
        "cholesky_ex" => LinalgOp::CholeskyEx,
        "eig" => LinalgOp::Eig,
        "eigvals" => LinalgOp::Eigvals,
        other => {
            return Err(PyValueError::new_err(format!(
                "_linalg: unknown factorization {other:?}"
            )))
        }
    };
    let a = a.get().inner().take();
    let b = b.map(|b| b.get().inner().take());
    let outs = py.detach(|| linalg_op(op, &a, b.as_ref(), flag)).py()?;
    outs.into_iter().map(|t| wrap(py, t)).collect()
}
