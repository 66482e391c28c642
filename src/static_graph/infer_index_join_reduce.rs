//! Build-time shape and dtype inference for the [`ExtOp`]s (indexing, stack/split/unbind,
//! gather/index_select/where, reductions, the shape table's ops), with the eager ops'
//! rules. Run-time dimensions (`None`) stay unknown unless the op fixes them; errors name
//! the op.

use super::infer::broadcast;
use super::infer_index::index_shape;
use super::op_index_join_reduce::{ExtOp, ExtReduce};
use super::program::{fmt_shape, Dim, VarDesc};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::op_defs::{AxesKind, DimSubject, ShapeArgs};

/// One output's dtype and shape.
pub type OutDesc = (DType, Vec<Dim>);

use super::infer::arity;

/// `axis` normalised against `ndim` dimensions (0-d counts as 1), or an error naming
/// the op and the variable.
pub fn axis_of(op: &str, v: &VarDesc, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as isize;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        return Err(Error::index(format!(
            "{op}: axis {axis} is out of range for a variable of {ndim} dimensions ('{}' with \
             shape {})",
            v.name,
            fmt_shape(&v.shape)
        )));
    }
    Ok(a as usize)
}

fn reduced_shape(
    op: &str,
    x: &VarDesc,
    axes: &Option<Vec<isize>>,
    keepdim: bool,
) -> Result<Vec<Dim>> {
    let nd = x.shape.len();
    let mut reduced = vec![nd > 0 && axes.is_none(); nd];
    for &a in axes.iter().flatten() {
        if nd == 0 && (a == 0 || a == -1) {
            continue;
        }
        let k = axis_of(op, x, a, nd)?;
        if reduced[k] {
            return Err(Error::value(format!("{op}: axis {a} is given twice")));
        }
        reduced[k] = true;
    }
    Ok(x.shape
        .iter()
        .zip(&reduced)
        .filter_map(|(&d, &r)| match (r, keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(Some(1)),
            (true, false) => None,
        })
        .collect())
}

fn reduce(
    kind: ExtReduce,
    x: &VarDesc,
    axes: &Option<Vec<isize>>,
    keepdim: bool,
) -> Result<OutDesc> {
    let op = ExtOp::Reduce {
        kind,
        axes: None,
        keepdim,
    }
    .name();
    let shape = reduced_shape(op, x, axes, keepdim)?;
    Ok((kind.reduction().dtype_rule().apply(x.dtype), shape))
}

fn stack(inputs: &[&VarDesc], axis: isize) -> Result<OutDesc> {
    let first = inputs
        .first()
        .ok_or_else(|| Error::value("stack: needs at least one variable"))?;
    let k = axis_of("stack", first, axis, first.shape.len() + 1)?;
    let mut shape = first.shape.clone();
    let mut dtype = first.dtype;
    for v in &inputs[1..] {
        let clash = v.shape.len() != shape.len()
            || shape
                .iter()
                .zip(&v.shape)
                .any(|(a, b)| matches!((a, b), (Some(a), Some(b)) if a != b));
        if clash {
            return Err(Error::value(format!(
                "stack: all variables must have the same shape, got '{}' {} and '{}' {}",
                first.name,
                fmt_shape(&first.shape),
                v.name,
                fmt_shape(&v.shape)
            )));
        }
        for (s, b) in shape.iter_mut().zip(&v.shape) {
            *s = s.or(*b);
        }
        dtype = DType::promote(dtype, v.dtype);
    }
    shape.insert(k, Some(inputs.len()));
    Ok((dtype, shape))
}

fn split(x: &VarDesc, axis: isize, sections: &[Option<usize>]) -> Result<Vec<OutDesc>> {
    if x.shape.is_empty() {
        return Err(Error::value(format!(
            "split: cannot split the 0-d variable '{}'",
            x.name
        )));
    }
    let k = axis_of("split", x, axis, x.shape.len())?;
    if sections.iter().filter(|s| s.is_none()).count() > 1 {
        return Err(Error::value(
            "split: at most one section can be -1 (the rest of the dimension)",
        ));
    }
    let known: usize = sections.iter().flatten().sum();
    let rest = match x.shape[k] {
        Some(n) if known > n || (known != n && !sections.contains(&None)) => {
            return Err(Error::value(format!(
                "split: sections {} do not add up to the size {n} of axis {axis} of '{}' (shape {})",
                fmt_shape(sections),
                x.name,
                fmt_shape(&x.shape)
            )))
        }
        Some(n) => Some(n - known),
        None => None,
    };
    Ok(sections
        .iter()
        .map(|s| {
            let mut shape = x.shape.clone();
            shape[k] = s.or(rest);
            (x.dtype, shape)
        })
        .collect())
}

/// The outputs of `unbind` along `axis` of `x` (the axis size must be known).
pub fn unbind(x: &VarDesc, axis: isize) -> Result<Vec<OutDesc>> {
    if x.shape.is_empty() {
        return Err(Error::value(format!(
            "unbind: cannot unbind the 0-d variable '{}'",
            x.name
        )));
    }
    let k = axis_of("unbind", x, axis, x.shape.len())?;
    let n = x.shape[k].ok_or_else(|| {
        Error::value(format!(
            "unbind: axis {axis} of '{}' (shape {}) has a size known only at run time, so the \
             number of outputs is unknown; give that dimension a fixed size",
            x.name,
            fmt_shape(&x.shape)
        ))
    })?;
    let mut shape = x.shape.clone();
    shape.remove(k);
    Ok(vec![(x.dtype, shape); n])
}

fn check_index_dtype(op: &str, index: &VarDesc) -> Result<()> {
    if !index.dtype.is_int() {
        return Err(Error::type_err(format!(
            "{op}: the index must be an int32 or int64 variable, got '{}' of dtype {}",
            index.name, index.dtype
        )));
    }
    Ok(())
}

fn gather(x: &VarDesc, index: &VarDesc, dim: isize) -> Result<OutDesc> {
    check_index_dtype("gather", index)?;
    axis_of("gather", x, dim, x.shape.len())?;
    if index.shape.len() != x.shape.len() {
        return Err(Error::value(format!(
            "gather: the index '{}' {} needs as many dimensions as '{}' {}",
            index.name,
            fmt_shape(&index.shape),
            x.name,
            fmt_shape(&x.shape)
        )));
    }
    Ok((x.dtype, index.shape.clone()))
}

fn index_select(x: &VarDesc, index: &VarDesc, dim: isize) -> Result<OutDesc> {
    check_index_dtype("index_select", index)?;
    if x.shape.is_empty() {
        return Err(Error::index(format!(
            "index_select: the 0-d variable '{}' has no dimension {dim} to index",
            x.name
        )));
    }
    let k = axis_of("index_select", x, dim, x.shape.len())?;
    if index.shape.len() > 1 {
        return Err(Error::value(format!(
            "index_select: the index must be 1-D, got '{}' with shape {}",
            index.name,
            fmt_shape(&index.shape)
        )));
    }
    let mut shape = x.shape.clone();
    shape[k] = index.shape.first().copied().unwrap_or(Some(1));
    Ok((x.dtype, shape))
}

/// The dtypes and shapes of the outputs of `op` applied to `inputs`.
pub fn infer_ext(op: &ExtOp, inputs: &[&VarDesc]) -> Result<Vec<OutDesc>> {
    let name = op.name();
    let x = || {
        inputs
            .first()
            .copied()
            .ok_or_else(|| Error::value(format!("{name}: needs an input variable")))
    };
    let single = |r: Result<OutDesc>| r.map(|o| vec![o]);
    match op {
        ExtOp::Index(items) => single(index_shape(inputs, items)),
        ExtOp::Stack(axis) => single(stack(inputs, *axis)),
        ExtOp::Split { axis, sections } => {
            arity(name, inputs, 1)?;
            split(x()?, *axis, sections)
        }
        ExtOp::Unbind { axis, count } => {
            arity(name, inputs, 1)?;
            let outs = unbind(x()?, *axis)?;
            if outs.len() != *count {
                return Err(Error::value(format!(
                    "unbind: recorded for {count} outputs, but the axis has size {}",
                    outs.len()
                )));
            }
            Ok(outs)
        }
        ExtOp::Gather(d) => {
            arity(name, inputs, 2)?;
            single(gather(inputs[0], inputs[1], *d))
        }
        ExtOp::IndexSelect(d) => {
            arity(name, inputs, 2)?;
            single(index_select(inputs[0], inputs[1], *d))
        }
        ExtOp::Where => {
            arity(name, inputs, 3)?;
            let (c, a, b) = (inputs[0], inputs[1], inputs[2]);
            let xy = VarDesc {
                shape: broadcast(name, a, b)?,
                ..a.clone()
            };
            let shape = broadcast(name, c, &xy)?;
            Ok(vec![(DType::promote(a.dtype, b.dtype), shape)])
        }
        ExtOp::TableReduce { op, args } => {
            arity(name, inputs, 1)?;
            let x = x()?;
            let shape = match op.axes_kind() {
                AxesKind::Many => reduced_shape(name, x, &args.axes, args.keepdim)?,
                AxesKind::One => match args.axis()? {
                    None if args.keepdim => vec![Some(1); x.shape.len()],
                    None => Vec::new(),
                    Some(_) if x.shape.is_empty() => Vec::new(),
                    Some(a) => reduced_shape(name, x, &Some(vec![a]), args.keepdim)?,
                },
            };
            Ok(vec![(op.result_dtype(x.dtype, args), shape)])
        }
        ExtOp::ArgReduce { axis, keepdim, .. } => {
            arity(name, inputs, 1)?;
            let x = x()?;
            let shape = match axis {
                None if *keepdim => vec![Some(1); x.shape.len()],
                None => Vec::new(),
                Some(_) if x.shape.is_empty() => Vec::new(),
                Some(a) => reduced_shape(name, x, &Some(vec![*a]), *keepdim)?,
            };
            Ok(vec![(DType::I64, shape)])
        }
        ExtOp::Reduce {
            kind,
            axes,
            keepdim,
        } => {
            arity(name, inputs, 1)?;
            single(reduce(*kind, x()?, axes, *keepdim))
        }
        ExtOp::TableShape { op, args } => {
            arity(name, inputs, op.arity())?;
            let x = x()?;
            // an entry of arity 2 reads its second input's recorded shape (`expand_as`)
            let other = inputs.get(1).filter(|_| op.arity() == 2);
            let cx = DimSubject::Var {
                name: &x.name,
                shape: &x.shape,
                other: other.map(|o| o.name.as_str()),
            };
            let shape = match other {
                Some(o) => {
                    let args = ShapeArgs {
                        like: Some(o.shape.clone()),
                        ..args.clone()
                    };
                    op.shape_rule(&x.shape, &args, cx)?
                }
                None => op.shape_rule(&x.shape, args, cx)?,
            };
            Ok(vec![(x.dtype, shape)])
        }
    }
}
