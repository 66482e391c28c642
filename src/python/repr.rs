//! Readable `repr` of tensors, NumPy-formatted, in PyTorch's style.

use super::convert::tensor_to_numpy;
use crate::dtype::DType;
use crate::tensor::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `tensor([[1., 2.], [3., 4.]], dtype=float64, requires_grad=True)`.
pub fn tensor_repr(py: Python<'_>, t: &Tensor) -> PyResult<String> {
    let np = py.import("numpy")?;
    let arr = tensor_to_numpy(py, t)?;
    let kw = PyDict::new(py);
    kw.set_item("separator", ", ")?;
    kw.set_item("prefix", "tensor(")?;
    kw.set_item("threshold", 1000)?;
    let body: String = np
        .call_method("array2string", (arr,), Some(&kw))?
        .extract()?;
    let mut s = format!("tensor({body}");
    let default = matches!(t.dtype(), DType::F32 | DType::I64 | DType::Bool);
    if !default || t.numel() == 0 {
        s.push_str(&format!(", dtype={}", t.dtype()));
    }
    if let Some(node) = t.grad_fn() {
        s.push_str(&format!(", grad_fn=<{}>", node.name()));
    } else if t.requires_grad() {
        s.push_str(", requires_grad=True");
    }
    s.push(')');
    Ok(s)
}
