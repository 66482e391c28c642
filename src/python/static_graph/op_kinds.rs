//! Parsing of op names and keyword attributes (as the Python `static` package passes
//! them) into the core's [`OpKind`]s.

use crate::dtype::DType;
use crate::static_graph::OpKind;
use crate::tensor::{BinaryOp, UnaryOp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn attr<'py, T: FromPyObjectOwned<'py>>(
    attrs: Option<&Bound<'py, PyDict>>,
    key: &str,
    default: T,
) -> PyResult<T> {
    match attrs.map(|a| a.get_item(key)).transpose()?.flatten() {
        Some(v) if !v.is_none() => v.extract().map_err(Into::into),
        _ => Ok(default),
    }
}

fn opt_attr<'py, T: FromPyObjectOwned<'py>>(
    attrs: Option<&Bound<'py, PyDict>>,
    key: &str,
) -> PyResult<Option<T>> {
    match attrs.map(|a| a.get_item(key)).transpose()?.flatten() {
        Some(v) if !v.is_none() => Ok(Some(v.extract().map_err(Into::<PyErr>::into)?)),
        _ => Ok(None),
    }
}

/// The [`OpKind`] called `name` with the attributes in `attrs`.
pub fn parse_op(name: &str, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<OpKind> {
    if let Some(op) = BinaryOp::from_name(name) {
        return Ok(OpKind::Binary(op));
    }
    if let Some(op) = UnaryOp::from_name(name) {
        return Ok(OpKind::Unary(op));
    }
    Ok(match name {
        "matmul" => OpKind::Matmul,
        "softmax" => OpKind::Softmax(attr(attrs, "axis", -1)?),
        "log_softmax" => OpKind::LogSoftmax(attr(attrs, "axis", -1)?),
        "concat" => OpKind::Concat(attr(attrs, "axis", 0)?),
        "clip" => OpKind::Clip(opt_attr(attrs, "min")?, opt_attr(attrs, "max")?),
        "cast" => {
            let d = attrs
                .map(|a| a.get_item("dtype"))
                .transpose()?
                .flatten()
                .ok_or_else(|| PyValueError::new_err("cast: needs a dtype"))?;
            let d: DType = crate::python::dtype::parse_dtype(&d)?;
            OpKind::Cast(d)
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "static graphs do not support the op '{name}'"
            )))
        }
    })
}

/// One op of [`_unary_op_table`]: `(methods, functional names, doc, dtype rule,
/// has_gradient, extra keyword)`.
type UnaryOpRow = (
    Vec<&'static str>,
    Vec<&'static str>,
    &'static str,
    String,
    bool,
    Option<&'static str>,
);

/// The unary op declarations as Python data, one `(methods, functional, doc, dtype rule,
/// has_gradient, extra keyword)` tuple per op: `scripts/gen_op_bindings.py` writes the
/// Python-side names and stubs from it, and the tests check those against it.
#[pyfunction]
pub fn _unary_op_table() -> Vec<UnaryOpRow> {
    UnaryOp::ALL
        .iter()
        .map(|op| {
            (
                op.method_names().to_vec(),
                op.functional_names().to_vec(),
                op.doc(),
                format!("{:?}", op.dtype_rule()),
                op.has_gradient(),
                op.extra_keyword(),
            )
        })
        .collect()
}

/// One op of [`_binary_op_table`]: `(methods, operators, operand keywords, doc, dtype
/// rule, has_gradient, extra keyword)`.
type BinaryOpRow = (
    Vec<&'static str>,
    Vec<&'static str>,
    Vec<&'static str>,
    &'static str,
    String,
    bool,
    Option<&'static str>,
);

/// The binary op declarations as Python data, one `(methods, operators, operand
/// keywords, doc, dtype rule, has_gradient, extra keyword)` tuple per op, for
/// `scripts/gen_op_bindings.py` and the registry tests.
#[pyfunction]
pub fn _binary_op_table() -> Vec<BinaryOpRow> {
    BinaryOp::ALL
        .iter()
        .map(|op| {
            (
                op.method_names().to_vec(),
                op.dunder_names().to_vec(),
                op.operand_keywords().to_vec(),
                op.doc(),
                format!("{:?}", op.dtype_rule()),
                op.has_gradient(),
                op.extra_keyword(),
            )
        })
        .collect()
}

/// One op of [`_reduce_op_table`]: `(name, doc, params, keyword-only params, the other
/// dialect's positional order, dtype rule, axes kind, has_gradient, backward node)`.
type ReduceOpRow = (
    &'static str,
    &'static str,
    Vec<&'static str>,
    Vec<&'static str>,
    Vec<&'static str>,
    String,
    String,
    bool,
    &'static str,
);

/// The reduction declarations as Python data, one row per op (see [`ReduceOpRow`]), for
/// `scripts/gen_op_bindings.py` and the registry tests.
#[pyfunction]
pub fn _reduce_op_table() -> Vec<ReduceOpRow> {
    crate::op_defs::Reduction::ALL
        .iter()
        .map(|op| {
            (
                op.name(),
                op.doc(),
                op.params().iter().map(|p| p.name()).collect(),
                op.keywords().iter().map(|p| p.name()).collect(),
                op.other_order().iter().map(|p| p.name()).collect(),
                format!("{:?}", op.dtype_rule()),
                format!("{:?}", op.axes_kind()),
                op.has_gradient(),
                op.node_name(),
            )
        })
        .collect()
}

/// One op of [`_shape_op_table`]: `(name, doc, params, keyword-only params, view kind,
/// has a static rule, backward node, varargs name ("" if none), arity, Python signature)`.
type ShapeOpRow = (
    &'static str,
    &'static str,
    Vec<&'static str>,
    Vec<&'static str>,
    String,
    bool,
    &'static str,
    &'static str,
    usize,
    &'static str,
);

/// The shape-op declarations as Python data, one row per op (see [`ShapeOpRow`]), for the
/// registry tests and `scripts/gen_op_bindings.py` (stubs, static `Variable` methods).
#[pyfunction]
pub fn _shape_op_table() -> Vec<ShapeOpRow> {
    crate::op_defs::ShapeOp::ALL
        .iter()
        .map(|op| {
            (
                op.name(),
                op.doc(),
                op.params().iter().map(|p| p.name()).collect(),
                op.keywords().iter().map(|p| p.name()).collect(),
                format!("{:?}", op.view_kind()),
                op.has_static_rule(),
                op.node_name(),
                op.varargs().unwrap_or(""),
                op.arity(),
                op.signature(),
            )
        })
        .collect()
}
