//! Conversions between Python objects and tensors: scalars, nested sequences, NumPy
//! arrays (copied, or shared by `from_numpy`), and tensors back to NumPy and Python.

use crate::dtype::{DType, Element, ScalarKind};
use crate::python::errors::IntoPy;
use crate::python::tensor::class::PyTensor;
use crate::storage::Storage;
use crate::tensor::Tensor;
use half::f16;
use num_complex::{Complex32, Complex64};
use numpy::{
    PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyFloat, PyInt, PyList, PyRange, PySequence, PyTuple};
use std::sync::Arc;

// tensors to NumPy arrays and Python scalars live in `to_python.rs`; callers name them here
pub use super::to_python::{tensor_item, tensor_to_numpy};

/// The kind of a Python scalar, or None if `obj` is not one.
pub fn scalar_kind(obj: &Bound<'_, PyAny>) -> Option<ScalarKind> {
    if obj.is_instance_of::<PyBool>() {
        Some(ScalarKind::Bool)
    } else if obj.is_instance_of::<PyInt>() {
        Some(ScalarKind::Int)
    } else if obj.is_instance_of::<PyFloat>() {
        Some(ScalarKind::Float)
    } else if obj.is_instance_of::<PyComplex>() {
        Some(ScalarKind::Complex)
    } else {
        None
    }
}

/// A 0-d tensor of `dtype` holding the Python scalar `obj`.
pub fn scalar_tensor(obj: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Tensor> {
    let v: Complex64 = if obj.is_instance_of::<PyComplex>() {
        obj.extract::<Complex64>()?
    } else if obj.is_instance_of::<PyInt>()
        && !obj.is_instance_of::<PyBool>()
        && dtype == DType::I64
    {
        // integers keep full 64-bit precision
        return match obj.extract::<i64>() {
            Ok(i) => Ok(Tensor::scalar(i)),
            Err(_) => Err(PyValueError::new_err(format!(
                "the integer {} does not fit in int64",
                obj.str()?
            ))),
        };
    } else {
        Complex64::new(obj.extract::<f64>()?, 0.0)
    };
    if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        if let Some((lo, hi)) = int_bounds(dtype) {
            if v.re < lo as f64 || v.re > hi as f64 {
                return Err(out_of_bounds(&obj.str()?.to_string(), dtype));
            }
        }
    }
    Ok(crate::with_dtype!(dtype, T, {
        Tensor::scalar(T::from_c128(v))
    }))
}

/// The smallest and largest value of an integer dtype narrower than int64 (None for the
/// others): Python integers outside are an `OverflowError`, as in NumPy 2, never a
/// silently wrapped value.
pub(crate) fn int_bounds(dtype: DType) -> Option<(i64, i64)> {
    Some(match dtype {
        DType::U8 => (0, u8::MAX.into()),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => return None,
    })
}

/// The `OverflowError` for a Python integer `value` outside `dtype`'s range.
pub(crate) fn out_of_bounds(value: &str, dtype: DType) -> PyErr {
    pyo3::exceptions::PyOverflowError::new_err(format!(
        "Python integer {value} out of bounds for {dtype}; cast explicitly (e.g. \
         tensor(v).astype('{dtype}')) to wrap it"
    ))
}

/// Turns the operand of a binary op into a tensor: tensors as is, Python scalars as 0-d
/// tensors of the weakly promoted dtype, anything else through `to_tensor`.
pub fn operand(other: &Bound<'_, PyAny>, like: DType) -> PyResult<Tensor> {
    Ok(classified_operand(other, like)?.0)
}

/// [`operand`], also telling whether `other` was a Python number (which binary ops
/// capture by value instead of recording it as an input).
pub fn classified_operand(other: &Bound<'_, PyAny>, like: DType) -> PyResult<(Tensor, bool)> {
    if let Ok(t) = other.cast::<PyTensor>() {
        return Ok((t.get().inner_gil(other.py()).take(), false));
    }
    if let Some(kind) = scalar_kind(other) {
        return Ok((
            scalar_tensor(other, DType::promote_scalar(like, kind))?.mark_constant(),
            true,
        ));
    }
    Ok((to_tensor(other, None)?, false))
}

enum Leaves {
    Bool(Vec<bool>),
    Int(Vec<i64>),
    Float(Vec<f64>),
    Complex(Vec<Complex64>),
}

impl Leaves {
    fn push(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        let kind =
            scalar_kind(obj).ok_or_else(|| {
                PyTypeError::new_err(format!(
                "cannot make a tensor from a sequence containing {} (type {}); expected numbers, \
                 bools, tensors or NumPy arrays",
                obj.repr().map(|r| r.to_string()).unwrap_or_default(),
                obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))
            })?;
        // widen the buffer when a higher kind appears
        if let (Leaves::Bool(v), ScalarKind::Int | ScalarKind::Float | ScalarKind::Complex) =
            (&*self, kind)
        {
            *self = Leaves::Int(v.iter().map(|&b| b as i64).collect());
        }
        if let (Leaves::Int(v), ScalarKind::Float | ScalarKind::Complex) = (&*self, kind) {
            *self = Leaves::Float(v.iter().map(|&i| i as f64).collect());
        }
        if let (Leaves::Float(v), ScalarKind::Complex) = (&*self, kind) {
            *self = Leaves::Complex(v.iter().map(|&f| Complex64::new(f, 0.0)).collect());
        }
        match self {
            Leaves::Bool(v) => v.push(obj.extract::<bool>()?),
            Leaves::Int(v) => v.push(obj.extract::<i64>().map_err(|_| {
                PyValueError::new_err(format!("the integer {} does not fit in int64", obj))
            })?),
            Leaves::Float(v) => v.push(obj.extract::<f64>()?),
            Leaves::Complex(v) => v.push(obj.extract::<Complex64>()?),
        }
        Ok(())
    }
}

const MAX_NESTING: usize = 64;

fn walk(
    obj: &Bound<'_, PyAny>,
    depth: usize,
    shape: &mut Vec<usize>,
    leaves: &mut Leaves,
) -> PyResult<bool> {
    if depth > MAX_NESTING {
        return Err(PyValueError::new_err(
            "the nested sequence is deeper than 64 levels",
        ));
    }
    if !is_data_sequence(obj) {
        if obj.cast::<PyTensor>().is_ok() || obj.cast::<PyUntypedArray>().is_ok() {
            return Ok(false); // let NumPy assemble mixed content
        }
        if is_numpy_scalar(obj)? {
            // np.float32(1.5), np.int64(3) (a reward, an action): NumPy assembles them,
            // each keeping its dtype (PyTorch code then gets torch's promotion of them)
            return Ok(false);
        }
        if depth != shape.len() {
            return Err(PyValueError::new_err(format!(
                "the nested sequence is ragged: a scalar appears at depth {depth} where a \
                 sequence of length {} was expected",
                shape[depth]
            )));
        }
        leaves.push(obj)?;
        return Ok(true);
    }
    let seq = obj.cast::<PySequence>()?;
    let n = seq.len()?;
    if depth == shape.len() {
        if depth > 0 && matches!(leaves_len(leaves), l if l > 0) {
            return Err(PyValueError::new_err(format!(
                "the nested sequence is ragged: a sequence appears at depth {depth} where scalars were found before"
            )));
        }
        shape.push(n);
    } else if shape[depth] != n {
        return Err(PyValueError::new_err(format!(
            "the nested sequence is ragged: expected length {} at depth {depth}, got {n}",
            shape[depth]
        )));
    }
    for i in 0..n {
        if !walk(&seq.get_item(i)?, depth + 1, shape, leaves)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A list, a tuple or a `range`: the sequences read as nested data (PyTorch reads any
/// sequence; `torch.tensor(range(3))` is `[0, 1, 2]`).
fn is_data_sequence(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.is_instance_of::<PyRange>()
}

/// The dtype of a NumPy array as a tensor would hold it.
fn array_dtype(arr: &Bound<'_, PyUntypedArray>) -> PyResult<DType> {
    match numpy_dtype(arr)? {
        Some(d) => Ok(d),
        None => Ok(numpy_to_tensor(arr, false)?.dtype()),
    }
}

/// PyTorch's `infer_scalar_type` (torch/csrc/utils/tensor_new.cpp): the dtype of
/// `torch.tensor(data)` for nested data holding NumPy scalars, arrays or tensors. Each of
/// them keeps its dtype, a Python float counts as the default float, an int as int64, and
/// the items' dtypes are promoted with torch's rule, so `[np.float32(1), 2.0]` is float32
/// (NumPy's assembly gives float64).
fn torch_inferred_dtype(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<DType> {
    if depth > MAX_NESTING {
        return Err(PyValueError::new_err(
            "the nested sequence is deeper than 64 levels",
        ));
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Ok(t.get().inner().dtype());
    }
    if let Ok(arr) = obj.cast::<PyUntypedArray>() {
        return array_dtype(arr);
    }
    if !is_numpy_scalar(obj)? {
        if let Some(kind) = scalar_kind(obj) {
            return Ok(match kind {
                ScalarKind::Bool => DType::Bool,
                ScalarKind::Int => DType::I64,
                ScalarKind::Float => crate::dtype::default_float(),
                ScalarKind::Complex => crate::dtype::default_complex(),
            });
        }
    }
    if is_data_sequence(obj) {
        let seq = obj.cast::<PySequence>()?;
        let mut dtype: Option<DType> = None;
        for i in 0..seq.len()? {
            let d = torch_inferred_dtype(&seq.get_item(i)?, depth + 1)?;
            dtype = Some(dtype.map_or(d, |p| DType::promote(p, d)));
        }
        return Ok(dtype.unwrap_or_else(crate::dtype::default_float));
    }
    // a NumPy scalar, or another object NumPy reads (`__array__`)
    let arr = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
    array_dtype(arr.cast::<PyUntypedArray>()?)
}

fn leaves_len(l: &Leaves) -> usize {
    match l {
        Leaves::Bool(v) => v.len(),
        Leaves::Int(v) => v.len(),
        Leaves::Float(v) => v.len(),
        Leaves::Complex(v) => v.len(),
    }
}

/// Builds a tensor from `data` (tensor, NumPy array, scalar, nested sequence), copying.
/// Without `dtype`: bool, int64, float32 or complex64 by content, NumPy's own dtype for
/// arrays, the source dtype for tensors.
pub fn to_tensor(data: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    if let Ok(t) = data.cast::<PyTensor>() {
        let t = t.get().inner().detach();
        let t = t.contiguous_copy().py()?;
        return match dtype {
            Some(d) => t.cast_raw(d).py(),
            None => Ok(t),
        };
    }
    if let Ok(arr) = data.cast::<PyUntypedArray>() {
        if dtype.is_some_and(|d| d.is_float() || d.is_complex()) && is_unsigned(arr)? {
            // by value: uint64 above 2**63 must not pass through int64 (it would wrap)
            let conv = arr.call_method1("astype", ("float64",))?;
            return numpy_to_tensor(conv.cast::<PyUntypedArray>()?, false)?
                .cast_raw(dtype.unwrap_or(DType::F64))
                .py();
        }
        let t = numpy_to_tensor(arr, false)?;
        return match dtype {
            Some(d) => t.cast_raw(d).py(),
            None => Ok(t),
        };
    }
    if let Some(kind) = scalar_kind(data) {
        if is_numpy_scalar(data)? {
            // np.float64(1e300), a.sum(), a[i]: NumPy scalars keep their dtype (as in
            // PyTorch), like the 0-d arrays they stand for
            let arr = data
                .py()
                .import("numpy")?
                .call_method1("asarray", (data,))?;
            return to_tensor(&arr, dtype);
        }
        let d = dtype.unwrap_or(match kind {
            ScalarKind::Bool => DType::Bool,
            ScalarKind::Int => DType::I64,
            ScalarKind::Float => crate::dtype::default_float(),
            ScalarKind::Complex => crate::dtype::default_complex(),
        });
        return scalar_tensor(data, d);
    }
    if is_data_sequence(data) {
        let mut shape = Vec::new();
        let mut leaves = Leaves::Bool(Vec::new());
        if walk(data, 0, &mut shape, &mut leaves)? {
            if leaves_len(&leaves) == 0 {
                // an empty list has no content to infer from: the default float
                leaves = Leaves::Float(Vec::new());
            }
            if let (Leaves::Int(v), Some((lo, hi))) = (&leaves, dtype.and_then(int_bounds)) {
                if let Some(bad) = v.iter().find(|&&i| i < lo || i > hi) {
                    return Err(out_of_bounds(&bad.to_string(), dtype.unwrap_or(DType::I64)));
                }
            }
            let t = match leaves {
                Leaves::Bool(v) => Tensor::from_vec(v, &shape),
                Leaves::Int(v) => Tensor::from_vec(v, &shape),
                Leaves::Float(v) => Tensor::from_vec(v, &shape)
                    .and_then(|t| t.cast_raw(dtype.unwrap_or(crate::dtype::default_float()))),
                Leaves::Complex(v) => Tensor::from_vec(v, &shape)
                    .and_then(|t| t.cast_raw(dtype.unwrap_or(crate::dtype::default_complex()))),
            }
            .py()?;
            return match dtype {
                Some(d) => t.cast_raw(d).py(),
                None => Ok(t),
            };
        }
        // sequences of tensors / arrays: let NumPy assemble them through __array__
        let np = data.py().import("numpy")?;
        let arr = np.call_method1("asarray", (data,))?;
        let t = numpy_to_tensor(arr.cast::<PyUntypedArray>()?, false)?;
        // PyTorch code gets torch's promotion of the items' dtypes (float64 content stays
        // float64: torch.tensor([np.float64(1e300)]) is float64 there); Paddle's to_tensor
        // casts float64 non-array input to the default dtype
        let d = match dtype {
            Some(d) => d,
            None if crate::python::dialect::caller_is_torch(data.py())? => {
                torch_inferred_dtype(data, 0)?
            }
            None if t.dtype() == DType::F64 => crate::dtype::default_float(),
            None => t.dtype(),
        };
        return t.cast_raw(d).py();
    }
    if data.hasattr("__array__")? || data.hasattr("__array_interface__")? {
        let np = data.py().import("numpy")?;
        let arr = np.call_method1("asarray", (data,))?;
        return to_tensor(&arr, dtype);
    }
    Err(PyTypeError::new_err(format!(
        "cannot make a tensor from an object of type {}; expected a number, a nested \
         list/tuple of numbers, a NumPy array or a Tensor",
        data.get_type().name()?
    )))
}

/// True for a NumPy scalar (`np.float64(1.0)`, `np.int32(3)`), which subclasses or mimics
/// a Python number but carries a dtype.
fn is_numpy_scalar(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let plain = obj.is_exact_instance_of::<PyFloat>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyBool>()
        || obj.is_exact_instance_of::<PyComplex>();
    if plain || !obj.hasattr(pyo3::intern!(obj.py(), "dtype"))? {
        return Ok(false);
    }
    let generic = obj.py().import("numpy")?.getattr("generic")?;
    obj.is_instance(&generic)
}

/// True for NumPy arrays of an unsigned integer dtype.
fn is_unsigned(arr: &Bound<'_, PyUntypedArray>) -> PyResult<bool> {
    let kind: String = arr
        .dtype()
        .getattr(pyo3::intern!(arr.py(), "kind"))?
        .extract()?;
    Ok(kind == "u")
}

fn numpy_dtype(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Option<DType>> {
    macro_rules! is {
        ($t:ty) => {
            arr.is_instance_of::<PyArrayDyn<$t>>()
        };
    }
    Ok(if is!(bool) {
        Some(DType::Bool)
    } else if is!(u8) {
        Some(DType::U8)
    } else if is!(i8) {
        Some(DType::I8)
    } else if is!(i16) {
        Some(DType::I16)
    } else if is!(i32) {
        Some(DType::I32)
    } else if is!(i64) {
        Some(DType::I64)
    } else if is!(f16) {
        Some(DType::F16)
    } else if is!(f32) {
        Some(DType::F32)
    } else if is!(f64) {
        Some(DType::F64)
    } else if is!(Complex32) {
        Some(DType::C64)
    } else if is!(Complex64) {
        Some(DType::C128)
    } else {
        None
    })
}

/// Converts a NumPy array. With `share`, the tensor uses the array's memory (kept alive by
/// the storage) when its dtype is supported and its strides are element-aligned.
pub fn numpy_to_tensor(arr: &Bound<'_, PyUntypedArray>, share: bool) -> PyResult<Tensor> {
    let Some(dtype) = numpy_dtype(arr)? else {
        return numpy_to_tensor_converted(arr, share);
    };
    if dtype == DType::Bool && holds_invalid_bools(arr)? {
        // a bool byte other than 0 or 1 (from raw memory: frombuffer, a uint8 view) is not a
        // Rust bool: kernels would read it as neither true nor false
        if share {
            return Err(PyValueError::new_err(
                "from_numpy: the bool array holds bytes other than 0 and 1 (raw memory read \
                 as bool), which cannot be shared as bools; pass `a != 0` (or \
                 ferrograd.tensor(a), which reads every nonzero byte as True)",
            ));
        }
        // copied: every nonzero byte is True, as NumPy's own operations read it
        let fixed = arr
            .call_method1("view", ("u1",))?
            .call_method1("__ne__", (0,))?;
        return numpy_to_tensor(fixed.cast::<PyUntypedArray>()?, false);
    }
    numpy_to_tensor_typed(arr, dtype, share)
}

/// True when a NumPy bool array holds a byte that is neither 0 nor 1.
fn holds_invalid_bools(arr: &Bound<'_, PyUntypedArray>) -> PyResult<bool> {
    if arr.len() == 0 {
        return Ok(false);
    }
    let max = arr.call_method1("view", ("u1",))?.call_method0("max")?;
    max.gt(1)
}

/// `numpy_to_tensor` of an array whose dtype has no ferrograd twin: byte-swapped arrays and
/// the dtypes converted to the nearest supported one.
fn numpy_to_tensor_converted(arr: &Bound<'_, PyUntypedArray>, share: bool) -> PyResult<Tensor> {
    let descr = arr.dtype();
    let native: bool = descr
        .getattr(pyo3::intern!(arr.py(), "isnative"))?
        .extract()?;
    if !native && !share {
        // a byte-swapped array ('>f4' on x86) keeps its dtype: swap to native order first
        let swapped = descr.call_method1(pyo3::intern!(arr.py(), "newbyteorder"), ("=",))?;
        let conv = arr.call_method1("astype", (swapped,))?;
        return numpy_to_tensor(conv.cast::<PyUntypedArray>()?, false);
    }
    // other NumPy dtypes (uint16, uint32, float128, ...) convert to the nearest supported one
    let kind: String = arr
        .dtype()
        .getattr(pyo3::intern!(arr.py(), "kind"))?
        .extract()?;
    let target = match kind.as_str() {
        "b" => "bool",
        "i" | "u" => "int64",
        "f" => "float64",
        "c" => "complex128",
        _ => {
            return Err(PyTypeError::new_err(format!(
                "cannot make a tensor from a NumPy array of dtype {}",
                arr.dtype()
            )))
        }
    };
    if share {
        return Err(PyTypeError::new_err(format!(
            "from_numpy: dtype {} cannot share memory; supported: bool, uint8, int8, \
                 int16, int32, int64, float16, float32, float64, complex64, complex128",
            arr.dtype()
        )));
    }
    if kind == "u" && arr.dtype().itemsize() == 8 && arr.len() > 0 {
        let max = arr.call_method0("max")?;
        if max.gt(i64::MAX)? {
            return Err(PyValueError::new_err(format!(
                "a {} array holds {} which does not fit in int64 (ferrograd's widest \
                     integer) and would wrap to a negative number; pass dtype='float64' to \
                     convert by value, or reduce the values first",
                arr.dtype(),
                max.str()?
            )));
        }
    }
    let conv = arr.call_method1("astype", (target,))?;
    numpy_to_tensor(conv.cast::<PyUntypedArray>()?, false)
}

/// `numpy_to_tensor` of an array of a supported `dtype`: shared or copied.
fn numpy_to_tensor_typed(
    arr: &Bound<'_, PyUntypedArray>,
    dtype: DType,
    share: bool,
) -> PyResult<Tensor> {
    let shape: Vec<usize> = arr.shape().to_vec();
    let itemsize = dtype.size() as isize;
    let byte_strides: Vec<isize> = arr.strides().to_vec();
    // SAFETY: reading the data pointer of a live array object
    let data_ptr = unsafe { (*arr.as_array_ptr()).fields.data } as *mut u8;
    // a complex element is two floats: aligned to one (NumPy's and PyTorch's rule); an
    // empty array has nothing to misread
    let align = dtype.align();
    let empty = shape.contains(&0);
    let strided = byte_strides.iter().all(|s| s % itemsize == 0);
    let aligned = empty || (data_ptr as usize).is_multiple_of(align);
    if share {
        if !strided {
            return Err(PyValueError::new_err(
                "from_numpy: the array's strides are not multiples of its item size; pass \
                 numpy.ascontiguousarray(a) instead",
            ));
        }
        if !aligned {
            return Err(PyValueError::new_err(format!(
                "from_numpy: the array's data is not aligned to its {align}-byte elements \
                 (it starts at an odd address), so it cannot be shared; pass a copy \
                 (numpy.array(a)) or use ferrograd.tensor(a)"
            )));
        }
        // `as_strided` arrays carry any strides NumPy was given: check the span with the
        // same checked arithmetic as a DLPack import before wrapping the memory
        let shape_i: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let strides_i: Vec<i64> = byte_strides.iter().map(|s| (s / itemsize) as i64).collect();
        let view = crate::foreign::validate_aligned(
            "from_numpy",
            &shape_i,
            Some(&strides_i),
            dtype.size(),
            align,
            data_ptr as usize,
            0,
        )
        .py()?;
        // SAFETY: `arr` is a live NumPy array; its flags word is plain data.
        let writable =
            unsafe { (*arr.as_array_ptr()).fields.flags } & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0;
        let owner: Py<PyAny> = arr.clone().unbind().into_any();
        // SAFETY: the array owns the `view.len` elements from `view.base`, kept alive by
        // `owner`; `validate` checked the span fits the address space.
        let storage = unsafe {
            Storage::from_foreign(
                view.base as *mut u8,
                view.len,
                dtype,
                Box::new(owner),
                writable,
            )
        };
        return Ok(Tensor::from_parts(Arc::new(storage), view.layout));
    }
    let np = arr.py().import("numpy")?;
    // C-contiguous and aligned, copied by NumPy only when the array is not already
    // (ascontiguousarray alone keeps an unaligned array as it is)
    let c = np.call_method1("require", (arr, arr.py().None(), "CA"))?;
    crate::with_dtype!(dtype, T, { copy_contiguous::<T>(&c, &shape) })
}

fn copy_contiguous<T: Element + numpy::Element>(
    obj: &Bound<'_, PyAny>,
    shape: &[usize],
) -> PyResult<Tensor> {
    let arr = obj.cast::<PyArrayDyn<T>>()?;
    let ro = arr.readonly();
    let slice = ro
        .as_slice()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut v = crate::storage::try_vec_with_capacity::<T>(slice.len()).py()?;
    v.extend_from_slice(slice);
    Tensor::from_vec(v, shape).py()
}
