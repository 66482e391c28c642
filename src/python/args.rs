//! Argument parsing shared by the bindings: shapes (`parse_shape`, `parse_dims`, the
//! static graph's `parse_static_shape`), axes (`parse_axes`, `axis_or_dim`, `pick_dim`),
//! `keepdim` / `dtype` arguments, binary operands given under the dialects' names, and
//! `device` / `place` checks.
//!
//! A leaf of `src/python`: it uses only `dtype` (dtype names) and `tensor::class` (the
//! `Tensor` struct, itself a leaf), so any binding file can use it without an import
//! cycle (`scripts/check_module_cycles.py` checks).

use crate::dtype::DType;
use crate::python::dtype::{parse_dtype, parse_opt_dtype};
use crate::python::tensor::class::PyTensor;
use crate::static_graph::Dim;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple};

/// Reads a shape given as varargs (`f(2, 3)`) or as one sequence (`f([2, 3])`), ints or
/// one-element tensors.
pub fn parse_shape(args: &Bound<'_, PyTuple>) -> PyResult<Vec<isize>> {
    let seq: Bound<'_, PyAny> = if args.len() == 1 {
        let a = args.get_item(0)?;
        if a.is_instance_of::<PyList>() || a.is_instance_of::<PyTuple>() {
            a
        } else if let Ok(t) = a.cast::<PyTensor>() {
            if t.get().inner().ndim() == 1 {
                t.call_method0("tolist")?
            } else {
                args.clone().into_any()
            }
        } else {
            args.clone().into_any()
        }
    } else {
        args.clone().into_any()
    };
    let entry = |x: Bound<'_, PyAny>| {
        x.extract::<isize>().map_err(|_| {
            PyTypeError::new_err(format!(
                "shape entries must be integers, got {}",
                x.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })
    };
    // tuples and lists by index: the iterator protocol's length hint (a `__length_hint__`
    // lookup per call) cost more than the rest of `x.permute(1, 0)`'s parsing
    if let Ok(t) = seq.cast::<PyTuple>() {
        return t.iter().map(entry).collect();
    }
    if let Ok(l) = seq.cast::<PyList>() {
        return l.iter().map(entry).collect();
    }
    seq.try_iter()?.map(|x| entry(x?)).collect()
}

/// A shape of non-negative sizes; negative sizes are a ValueError naming `op`.
pub fn parse_dims(args: &Bound<'_, PyTuple>, op: &str) -> PyResult<Vec<usize>> {
    parse_shape(args)?
        .into_iter()
        .map(|d| {
            usize::try_from(d).map_err(|_| {
                PyValueError::new_err(format!("{op}: negative dimension {d} in shape"))
            })
        })
        .collect()
}

/// Parses a shape with `-1` / `None` for dimensions given at run time.
pub fn parse_static_shape(shape: &Bound<'_, PyAny>) -> PyResult<Vec<Dim>> {
    let mut out = Vec::new();
    for d in shape.try_iter()? {
        let d = d?;
        if d.is_none() {
            out.push(None);
            continue;
        }
        let n: i64 = d.extract().map_err(|_| {
            PyTypeError::new_err(format!("a shape holds ints (or -1/None), got {d}"))
        })?;
        out.push(match n {
            -1 => None,
            n if n >= 0 => Some(n as usize),
            n => {
                return Err(PyValueError::new_err(format!(
                    "a dimension must be >= 0, or -1/None for one given at run time; got {n}"
                )))
            }
        });
    }
    Ok(out)
}

/// Checks a `device` (torch) or `place` (Paddle) argument: None or anything naming the
/// CPU (`"cpu"`, `"cpu:0"`, `"Place(cpu)"`, a place object printing as one) is accepted;
/// ferrograd has no other device, so anything else is a ValueError.
pub fn check_device(device: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<()> {
    let Some(d) = device else { return Ok(()) };
    if d.is_none() {
        return Ok(());
    }
    let cpu = match d.cast::<PyString>() {
        Ok(s) => {
            let s = s.to_cow()?.to_ascii_lowercase();
            s.starts_with("cpu") || s == "place(cpu)"
        }
        Err(_) => d.str()?.to_cow()?.to_ascii_lowercase().contains("cpu"),
    };
    if cpu {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "{op}: ferrograd runs on the CPU only; got device {}",
        d.repr()?
    )))
}

/// `other` scaled by torch's `alpha=` (`add(x, y, alpha=a)` is `x + a * y`): unchanged
/// without one or for `alpha=1`, else `other * alpha` (a recorded product for a tensor, so
/// gradients flow through it). `alpha` must be a Python number.
pub(crate) fn scaled_operand<'py>(
    other: &Bound<'py, PyAny>,
    alpha: Option<&Bound<'py, PyAny>>,
    op: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(alpha) = alpha else {
        return Ok(other.clone());
    };
    let op = op.trim_start_matches("r#");
    let number = !alpha.is_instance_of::<PyTensor>()
        && (alpha.is_instance_of::<pyo3::types::PyInt>()
            || alpha.is_instance_of::<pyo3::types::PyFloat>()
            || alpha.is_instance_of::<pyo3::types::PyComplex>()
            || alpha.hasattr("__index__")?
            || alpha.hasattr("__float__")?);
    if !number {
        return Err(PyTypeError::new_err(format!(
            "{op}(): alpha must be a number (it scales the second operand), got {}",
            alpha.get_type().name()?
        )));
    }
    if alpha.eq(1)? {
        return Ok(other.clone());
    }
    other.mul(alpha)
}

/// The second operand of a binary method: `other` (torch) or one of the keyword
/// `aliases` (Paddle's `y`; torch's `exponent` for `pow`). Exactly one must be given.
pub(crate) fn operand_arg<'a, 'py>(
    other: Option<&'a Bound<'py, PyAny>>,
    aliases: &[(&str, Option<&'a Bound<'py, PyAny>>)],
    op: &str,
) -> PyResult<&'a Bound<'py, PyAny>> {
    let op = op.trim_start_matches("r#");
    let mut found = other.map(|o| ("other", o));
    for &(alias, value) in aliases {
        if let Some(v) = value {
            if let Some((first, _)) = found {
                return Err(PyTypeError::new_err(format!(
                    "{op}() got the operand twice, as '{first}' and as '{alias}'"
                )));
            }
            found = Some((alias, v));
        }
    }
    let names: Vec<String> = aliases.iter().map(|(a, _)| format!("'{a}'")).collect();
    found.map(|(_, v)| v).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}() missing 1 required argument: 'other' (or {})",
            names.join(" or ")
        ))
    })
}

/// The type name of `o`, for error messages.
pub(crate) fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// True for what can only be a dtype argument: a string, a ferrograd or NumPy dtype, a
/// scalar type (`float`, `numpy.float64`).
pub(crate) fn is_dtype_like(o: &Bound<'_, PyAny>) -> bool {
    o.is_instance_of::<PyString>()
        || (!o.is_none() && !o.is_instance_of::<PyBool>() && parse_dtype(o).is_ok())
}

/// A `keepdim` argument: a bool (None means False).
pub(crate) fn keepdim_arg(o: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<bool> {
    match o {
        None => Ok(false),
        Some(o) => o.extract::<bool>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{op}(): keepdim must be a bool, got {} ({})",
                type_name(o),
                o.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        }),
    }
}

/// A reduction's optional `dtype` argument; errors name the parameter.
pub(crate) fn dtype_arg(o: Option<&Bound<'_, PyAny>>, op: &str) -> PyResult<Option<DType>> {
    match o {
        None => Ok(None),
        Some(o) => parse_opt_dtype(Some(o))
            .map_err(|e| PyTypeError::new_err(format!("{op}(): dtype: {}", e.value(o.py())))),
    }
}

/// Reads an axis argument: None, an int, or a sequence of ints.
pub fn parse_axes(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<isize>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => {
            if let Ok(i) = o.extract::<isize>() {
                Ok(Some(vec![i]))
            } else {
                Ok(Some(o.extract::<Vec<isize>>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "axis must be an int, a list of ints or None, got {o}"
                    ))
                })?))
            }
        }
    }
}

/// `axis` when given, else `dim` (the two dialects' spellings of one argument), for
/// methods that take them as plain ints.
pub(crate) fn pick_dim(axis: Option<isize>, dim: Option<isize>) -> Option<isize> {
    axis.or(dim)
}
