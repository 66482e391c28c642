//! Parsing of the keyword attributes of the static [`ExtOp`]s (indexing, stack/split,
//! gather, where, argmax, statistics, the shape table's ops ...) as the Python `static`
//! package passes them, and of the optimizer rules of `minimize`.

use crate::op_defs::{DimSubject, Reduction, ShapeOp};
use crate::optim::{AdamConfig, SgdConfig};
use crate::python::errors::IntoPy;
use crate::static_graph::{ExtOp, IndexSpec, OpKind, OptRule, Program};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

fn get<'py>(attrs: Option<&Bound<'py, PyDict>>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(attrs
        .map(|a| a.get_item(key))
        .transpose()?
        .flatten()
        .filter(|v| !v.is_none()))
}

fn attr<'py, T: FromPyObjectOwned<'py>>(
    attrs: Option<&Bound<'py, PyDict>>,
    key: &str,
    default: T,
) -> PyResult<T> {
    match get(attrs, key)? {
        Some(v) => v.extract().map_err(Into::into),
        None => Ok(default),
    }
}

fn index_items(attrs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<IndexSpec>> {
    let items = get(attrs, "items")?.ok_or_else(|| PyValueError::new_err("getitem: no items"))?;
    items
        .try_iter()?
        .map(|it| {
            let it = it?;
            let t = it.cast::<PyTuple>()?;
            let tag: String = t.get_item(0)?.extract()?;
            let opt = |k: usize| -> PyResult<Option<isize>> { t.get_item(k)?.extract() };
            Ok(match tag.as_str() {
                "int" => IndexSpec::Int(t.get_item(1)?.extract()?),
                "slice" => IndexSpec::Slice(opt(1)?, opt(2)?, opt(3)?.unwrap_or(1)),
                "newaxis" => IndexSpec::NewAxis,
                "ellipsis" => IndexSpec::Ellipsis,
                "var" => IndexSpec::Var,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "getitem: unknown item {tag}"
                    )))
                }
            })
        })
        .collect()
}

/// The [`ExtOp`] called `name` over `inputs` of `program`, or None when `name` is not
/// one of them. A shape op with a static rule (`squeeze`) is resolved against its input's
/// recorded shape.
pub fn parse_ext(
    name: &str,
    attrs: Option<&Bound<'_, PyDict>>,
    program: &Program,
    inputs: &[usize],
) -> PyResult<Option<OpKind>> {
    if let Some(op) = Reduction::from_name(name) {
        let args = crate::python::reduce_args::from_attrs(op, attrs)?;
        return Ok(Some(OpKind::Ext(ExtOp::TableReduce { op, args })));
    }
    if let Some(op) = ShapeOp::from_name(name) {
        let mut args = crate::python::shape_args::from_attrs(op, attrs)?;
        if op.has_static_rule() {
            let x = inputs
                .first()
                .ok_or_else(|| PyValueError::new_err(format!("{name}: needs an input variable")))?;
            let desc = program.var(*x).py()?;
            let cx = DimSubject::Var {
                name: &desc.name,
                shape: &desc.shape,
                other: None,
            };
            args = op.static_args(&desc.shape, &args, cx).py()?;
        }
        return Ok(Some(OpKind::Ext(ExtOp::TableShape { op, args })));
    }
    let op = match name {
        "getitem" => ExtOp::Index(index_items(attrs)?),
        "stack" => ExtOp::Stack(attr(attrs, "axis", 0)?),
        "split" => {
            let raw: Vec<i64> = attr(attrs, "sections", Vec::new())?;
            let sections = raw
                .iter()
                .map(|&s| match s {
                    -1 => Ok(None),
                    s if s >= 0 => Ok(Some(s as usize)),
                    s => Err(PyValueError::new_err(format!(
                        "split: invalid section size {s}"
                    ))),
                })
                .collect::<PyResult<_>>()?;
            ExtOp::Split {
                axis: attr(attrs, "axis", 0)?,
                sections,
            }
        }
        "unbind" => ExtOp::Unbind {
            axis: attr(attrs, "axis", 0)?,
            count: attr(attrs, "count", 0)?,
        },
        "gather" => ExtOp::Gather(attr(attrs, "axis", 0)?),
        "index_select" => ExtOp::IndexSelect(attr(attrs, "axis", 0)?),
        "where" => ExtOp::Where,
        _ => return Ok(None),
    };
    Ok(Some(OpKind::Ext(op)))
}

/// The update rule `kind` ("sgd" or "adam") with the hyper-parameters in `attrs`
/// (the learning rate is fed separately).
pub fn parse_rule(kind: &str, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<OptRule> {
    Ok(match kind {
        "sgd" => OptRule::Sgd(SgdConfig {
            lr: 0.0,
            momentum: attr(attrs, "momentum", 0.0)?,
            dampening: attr(attrs, "dampening", 0.0)?,
            weight_decay: attr(attrs, "weight_decay", 0.0)?,
            nesterov: attr(attrs, "nesterov", false)?,
            maximize: attr(attrs, "maximize", false)?,
        }),
        "adam" => OptRule::Adam(AdamConfig {
            lr: 0.0,
            beta1: attr(attrs, "beta1", 0.9)?,
            beta2: attr(attrs, "beta2", 0.999)?,
            eps: attr(attrs, "eps", 1e-8)?,
            weight_decay: attr(attrs, "weight_decay", 0.0)?,
            decoupled: attr(attrs, "decoupled", false)?,
            amsgrad: attr(attrs, "amsgrad", false)?,
            maximize: attr(attrs, "maximize", false)?,
        }),
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown optimizer rule '{kind}' (expected 'sgd' or 'adam')"
            )))
        }
    })
}
