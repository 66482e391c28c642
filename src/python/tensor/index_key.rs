//! Parsing a Python index key (`x[key]`, `x[key] = v`) into [`IndexItem`]s: integers,
//! slices, `None`, `...`, bool/integer tensors and lists, and which lists are read as a
//! tuple of indices (the one rule here that depends on the calling dialect).

use crate::autograd::ops::index::IndexItem;
use crate::dtype::DType;
use crate::python::errors::IntoPy;
use crate::python::interop::convert::{scalar_kind, to_tensor};
use crate::python::tensor::class::PyTensor;
use crate::tensor::Tensor;
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyList, PyRange, PySlice, PyTuple};

fn opt_isize(o: &Bound<'_, PyAny>) -> PyResult<Option<isize>> {
    if o.is_none() {
        Ok(None)
    } else if let Some(i) = o
        .is_exact_instance_of::<pyo3::types::PyInt>()
        .then(|| o.extract::<isize>().ok())
        .flatten()
    {
        // a plain int is its own `__index__` (calling it by name cost ~1,400 instructions)
        Ok(Some(i))
    } else {
        Ok(Some(
            o.call_method0("__index__")
                .and_then(|i| i.extract())
                .map_err(|_| {
                    PyTypeError::new_err(format!("slice indices must be integers or None, got {o}"))
                })?,
        ))
    }
}

/// A uint8 index is a mask, as in PyTorch (which deprecates it, with the same warning):
/// its nonzero entries select. Int8 and int16 indices are integer positions.
fn uint8_as_mask(py: Python<'_>, t: Tensor) -> PyResult<Tensor> {
    if t.dtype() != DType::U8 {
        return Ok(t);
    }
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    PyErr::warn(
        py,
        &category,
        c"indexing with dtype uint8 is deprecated (as in PyTorch): it is read as a bool mask; \
          use a bool tensor (mask.bool()), or int64 positions (idx.long())",
        1,
    )?;
    t.cast_raw(DType::Bool).py()
}

fn index_item(o: &Bound<'_, PyAny>) -> PyResult<IndexItem> {
    if o.is_none() {
        return Ok(IndexItem::NewAxis);
    }
    if o.is_instance_of::<PyEllipsis>() {
        return Ok(IndexItem::Ellipsis);
    }
    if let Ok(s) = o.cast::<PySlice>() {
        let step = opt_isize(&s.getattr(pyo3::intern!(s.py(), "step"))?)?.unwrap_or(1);
        return Ok(IndexItem::Slice(
            opt_isize(&s.getattr(pyo3::intern!(s.py(), "start"))?)?,
            opt_isize(&s.getattr(pyo3::intern!(s.py(), "stop"))?)?,
            step,
        ));
    }
    if o.is_instance_of::<PyBool>() {
        return Ok(IndexItem::Tensor(Tensor::scalar(o.extract::<bool>()?)));
    }
    if let Ok(t) = o.cast::<PyTensor>() {
        let t = &t.get().inner();
        return Ok(IndexItem::Tensor(uint8_as_mask(o.py(), t.detach())?));
    }
    if scalar_kind(o).is_none() && o.hasattr("__index__")? && !o.hasattr("shape")? {
        return Ok(IndexItem::Int(o.call_method0("__index__")?.extract()?));
    }
    if let Ok(i) = o.extract::<isize>() {
        return Ok(IndexItem::Int(i));
    }
    // a list, tuple or range inside the key is an index array (NumPy, Paddle and PyTorch:
    // `x[(0, 1), (1, 0)]` picks the elements (0, 1) and (1, 0); `x[range(n), range(n)]`
    // the diagonal)
    let seq = o.is_instance_of::<PyList>()
        || o.is_instance_of::<PyTuple>()
        || o.is_instance_of::<PyRange>();
    if seq || o.hasattr("__array__")? || o.hasattr("shape")? {
        let mut t = to_tensor(o, None)?;
        if seq && t.numel() == 0 {
            // `[]` is an empty integer index in NumPy, not the default float dtype
            t = t
                .cast_raw(DType::I64)
                .map_err(|e| PyIndexError::new_err(e.to_string()))?;
        }
        if !(t.dtype().is_int() || t.dtype() == DType::Bool) {
            return Err(PyIndexError::new_err(format!(
                "tensors used as indices must be integer or bool, got {}",
                t.dtype()
            )));
        }
        return Ok(IndexItem::Tensor(uint8_as_mask(o.py(), t)?));
    }
    Err(PyIndexError::new_err(format!(
        "only integers, slices, None, Ellipsis, bool/integer tensors and lists are valid \
         indices, got {}",
        o.get_type().name()?
    )))
}

/// Parses a Python index key (one item or a tuple of items).
///
/// A *list* holding a slice, `...` or `None` (`x[[slice(None), [1, 3]]]`) is read as a
/// tuple with PyTorch's deprecation warning: PyTorch (2.15 still) reads such lists so,
/// and for NumPy and Paddle they are errors, so no valid code changes meaning. A list
/// holding a sequence or a tensor (`x[[[0, 1], [1, 0]]]`) is a tuple in PyTorch code
/// (PyTorch 2.15's rule, warning included) and one index array elsewhere (NumPy's and
/// Paddle's reading); a list of ints (`x[[0, 2]]`) is one index array everywhere.
pub fn parse_key(key: &Bound<'_, PyAny>) -> PyResult<Vec<IndexItem>> {
    if let Ok(t) = key.cast::<PyTuple>() {
        t.iter().map(|o| index_item(&o)).collect()
    } else if let Some(items) = list_as_tuple(key)? {
        items.iter().map(index_item).collect()
    } else {
        Ok(vec![index_item(key)?])
    }
}

/// PyTorch 2.15's warning for a list read as a tuple of indices, word for word.
const TORCH_TUPLE_WARNING: &std::ffi::CStr = c"Using a non-tuple sequence for \
    multidimensional indexing is deprecated and will be changed in pytorch 2.9; use \
    x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor \
    index, x[torch.tensor(seq)], which will result either in an error or a different result";

/// Python's `PySequence_Check`: the object supports item access by position (a list, a
/// tuple, a NumPy array, a string...), which is PyTorch's test for a nested index.
fn is_sequence(o: &Bound<'_, PyAny>) -> bool {
    // SAFETY: `o` is a live object borrowed for the call; PySequence_Check only reads its
    // type's slots and never fails.
    unsafe { pyo3::ffi::PySequence_Check(o.as_ptr()) == 1 }
}

/// The items of `key` when it is a list read as a tuple of indices (see [`parse_key`]);
/// warns as PyTorch does. The calling dialect is asked only for a list that holds a
/// sequence or a tensor, never for an ordinary list of ints.
fn list_as_tuple<'py>(key: &Bound<'py, PyAny>) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
    let Ok(list) = key.cast::<PyList>() else {
        return Ok(None);
    };
    let mut holds_slice = false;
    let mut holds_sequence = false;
    for o in list.iter() {
        if o.is_none() || o.is_instance_of::<PySlice>() || o.is_instance_of::<PyEllipsis>() {
            holds_slice = true;
            break;
        }
        holds_sequence = holds_sequence || o.cast::<PyTensor>().is_ok() || is_sequence(&o);
    }
    // PyTorch: a list of 32 items or more is never a tuple
    let torch_tuple = holds_sequence && list.len() < 32;
    if !holds_slice && !torch_tuple {
        return Ok(None);
    }
    let py = key.py();
    let torch = crate::python::dialect::caller_is_torch(py)?;
    if !holds_slice && !torch {
        return Ok(None);
    }
    let text = if torch {
        TORCH_TUPLE_WARNING
    } else {
        c"Using a non-tuple sequence for multidimensional indexing is deprecated (as in \
          PyTorch); use x[tuple(seq)] instead of x[seq]"
    };
    PyErr::warn(
        py,
        &py.get_type::<pyo3::exceptions::PyUserWarning>(),
        text,
        1,
    )?;
    Ok(Some(list.iter().collect()))
}
