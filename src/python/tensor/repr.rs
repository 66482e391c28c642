//! Readable `repr` of tensors, NumPy-formatted, in PyTorch's style (Paddle's in Paddle
//! code).

use crate::dtype::DType;
use crate::python::interop::convert::tensor_to_numpy;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Extra keyword arguments for `numpy.array2string` set by `set_printoptions` (None: the
/// defaults below).
static PRINT_OPTIONS: Mutex<Option<Py<PyDict>>> = Mutex::new(None);

/// Stores the `numpy.array2string` keywords `repr` uses (None restores the defaults);
/// `ferrograd.set_printoptions` builds them from torch's / Paddle's arguments.
#[pyfunction]
#[pyo3(signature = (options=None))]
pub fn _set_print_options(options: Option<Bound<'_, PyDict>>) {
    *PRINT_OPTIONS.lock() = options.map(|d| d.unbind());
}

/// Whether every finite element is a whole number (PyTorch then prints `1., 2.`).
fn integral_values(np: &Bound<'_, PyModule>, arr: &Bound<'_, PyAny>) -> PyResult<bool> {
    let finite = arr.get_item(np.call_method1("isfinite", (arr,))?)?;
    let rounded = np.call_method1("round", (&finite,))?;
    np.call_method1("array_equal", (&finite, rounded))?
        .extract()
}

/// `tensor([[1., 2.], [3., 4.]], dtype=float64, requires_grad=True)`; in Paddle code
/// Paddle's `Tensor(shape=[2, 2], dtype=float64, place=Place(cpu), stop_gradient=False,`
/// with the values below (`ferrograd._paddle_repr`).
pub fn tensor_repr(py: Python<'_>, t: &Tensor) -> PyResult<String> {
    let arr = tensor_to_numpy(py, t)?;
    if crate::python::dialect::caller_is_paddle(py)? {
        return paddle_repr(py, t, arr);
    }
    let np = py.import("numpy")?;
    let kw = PyDict::new(py);
    kw.set_item("separator", ", ")?;
    kw.set_item("prefix", "tensor(")?;
    kw.set_item("threshold", 1000)?;
    let opts = PRINT_OPTIONS.lock().as_ref().map(|d| d.clone_ref(py));
    if let Some(o) = opts {
        kw.update(o.bind(py).as_mapping())?;
    }
    if t.dtype().is_float() && !kw.contains("formatter")? && !integral_values(&np, &arr)? {
        // PyTorch's look: every element with the same number of digits (`1.2346, 2.0000`);
        // NumPy picks scientific notation by the same thresholds as PyTorch (an element
        // below 1e-4 or above 1e8, or a spread over 1e3)
        kw.set_item("floatmode", "fixed")?;
        if !kw.contains("precision")? {
            kw.set_item("precision", 4)?;
        }
    }
    let body: String = np
        .call_method("array2string", (arr,), Some(&kw))?
        .extract()?;
    let mut s = format!("tensor({body}");
    let default = matches!(t.dtype(), DType::F32 | DType::I64 | DType::Bool);
    if !default || t.numel() == 0 {
        s.push_str(&format!(", dtype={}", t.dtype()));
    }
    if t.stale_view().is_some() {
        // a view whose history cannot be told (its memory was written since it was made
        // untracked): PyTorch's repr catches the `grad_fn` error and prints this
        s.push_str(", grad_fn=<Invalid>");
    } else if let Some(node) = t.grad_fn() {
        // the node's class name, as PyTorch prints it (`CloneBackward0`)
        let name = crate::autograd::anomaly::display_name(&node);
        s.push_str(&format!(", grad_fn=<{name}>"));
    } else if t.requires_grad() {
        s.push_str(", requires_grad=True");
    }
    s.push(')');
    Ok(s)
}

/// Paddle's look, written by `ferrograd._paddle_repr.paddle_repr` over the values.
pub fn paddle_repr(py: Python<'_>, t: &Tensor, values: Bound<'_, PyAny>) -> PyResult<String> {
    py.import("ferrograd._paddle_repr")?
        .call_method1(
            "paddle_repr",
            (values, t.dtype().to_string(), !t.requires_grad()),
        )?
        .extract()
}
