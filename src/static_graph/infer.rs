//! Build-time shape and dtype inference, one rule per op family, using the same
//! promotion and broadcasting rules as the eager ops. Dimensions known only at run time
//! (`None`) stay unknown unless another operand fixes them; the executor checks the
//! real shapes when it runs. Errors name the op, the variables and their shapes.

use super::op::{OpKind, ReduceKind};
use super::program::{fmt_shape, Dim, VarDesc};
use crate::dtype::{DType, ZeroDimRule};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

fn describe(vars: &[&VarDesc]) -> String {
    vars.iter()
        .map(|v| format!("'{}' {}", v.name, fmt_shape(&v.shape)))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// An error naming `op` unless it got exactly `n` input variables.
pub(super) fn arity(op: &str, vars: &[&VarDesc], n: usize) -> Result<()> {
    if vars.len() != n {
        return Err(Error::value(format!(
            "{op}: expected {n} input variable(s), got {}",
            vars.len()
        )));
    }
    Ok(())
}

/// Broadcasts two shapes; `None` broadcasts with anything but stays unknown unless the
/// other side fixes a size other than 1.
pub fn broadcast(op: &str, a: &VarDesc, b: &VarDesc) -> Result<Vec<Dim>> {
    let n = a.shape.len().max(b.shape.len());
    let mut out = vec![None; n];
    for (i, slot) in out.iter_mut().enumerate() {
        let da = (i + a.shape.len())
            .checked_sub(n)
            .map_or(Some(1), |k| a.shape[k]);
        let db = (i + b.shape.len())
            .checked_sub(n)
            .map_or(Some(1), |k| b.shape[k]);
        *slot = match (da, db) {
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(1), d) | (d, Some(1)) => d,
            (None, d) | (d, None) => d,
            (Some(_), Some(_)) => {
                return Err(Error::value(format!(
                    "{op}: the shapes of {} cannot be broadcast together",
                    describe(&[a, b])
                )))
            }
        };
    }
    Ok(out)
}

fn normalize(op: &str, v: &VarDesc, axis: isize) -> Result<usize> {
    crate::layout::normalize_dim(axis, v.shape.len().max(1), op).map_err(|_| {
        Error::index(format!(
            "{op}: axis {axis} is out of range for '{}' with shape {}",
            v.name,
            fmt_shape(&v.shape)
        ))
    })
}

fn matmul(a: &VarDesc, b: &VarDesc) -> Result<Vec<Dim>> {
    if a.shape.is_empty() || b.shape.is_empty() {
        return Err(Error::value(format!(
            "matmul: both operands need at least one dimension, got {}",
            describe(&[a, b])
        )));
    }
    let (sa, sb) = (&a.shape, &b.shape);
    let k_a = *sa.last().unwrap_or(&None);
    let k_b = if sb.len() == 1 {
        sb[0]
    } else {
        sb[sb.len() - 2]
    };
    if let (Some(x), Some(y)) = (k_a, k_b) {
        if x != y {
            return Err(Error::value(format!(
                "matmul: the inner dimensions of {} do not match ({x} vs {y})",
                describe(&[a, b])
            )));
        }
    }
    let batch_a = &sa[..sa.len().saturating_sub(2)];
    let batch_b = &sb[..sb.len().saturating_sub(2)];
    let ba = VarDesc {
        shape: batch_a.to_vec(),
        ..a.clone()
    };
    let bb = VarDesc {
        shape: batch_b.to_vec(),
        ..b.clone()
    };
    let mut out = broadcast("matmul", &ba, &bb).map_err(|_| {
        Error::value(format!(
            "matmul: the batch dimensions of {} cannot be broadcast together",
            describe(&[a, b])
        ))
    })?;
    if sa.len() >= 2 {
        out.push(sa[sa.len() - 2]);
    }
    if sb.len() >= 2 {
        out.push(sb[sb.len() - 1]);
    }
    Ok(out)
}

fn reduce(
    kind: ReduceKind,
    x: &VarDesc,
    axes: &Option<Vec<isize>>,
    keepdim: bool,
) -> Result<(DType, Vec<Dim>)> {
    let name = OpKind::Reduce {
        kind,
        axes: None,
        keepdim,
    }
    .name();
    let nd = x.shape.len();
    let mut reduced = vec![false; nd];
    match axes {
        None => reduced.iter_mut().for_each(|r| *r = true),
        Some(list) => {
            for &a in list {
                if nd == 0 && (a == 0 || a == -1) {
                    continue;
                }
                let k = normalize(&name, x, a)?;
                if reduced[k] {
                    return Err(Error::value(format!("{name}: axis {a} is given twice")));
                }
                reduced[k] = true;
            }
        }
    }
    let shape = x
        .shape
        .iter()
        .zip(&reduced)
        .filter_map(|(&d, &r)| match (r, keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(Some(1)),
            (true, false) => None,
        })
        .collect();
    Ok((kind.reduction().dtype_rule().apply(x.dtype), shape))
}

fn concat(vars: &[&VarDesc], axis: isize) -> Result<(DType, Vec<Dim>)> {
    let first = vars
        .first()
        .ok_or_else(|| Error::value("concat: needs at least one variable"))?;
    let k = normalize("concat", first, axis)?;
    let mut shape = first.shape.clone();
    let mut dtype = first.dtype;
    for v in &vars[1..] {
        if v.shape.len() != shape.len() {
            return Err(Error::value(format!(
                "concat: all variables need the same number of dimensions, got {}",
                describe(vars)
            )));
        }
        for (i, (&a, &b)) in shape.clone().iter().zip(&v.shape).enumerate() {
            if i == k {
                shape[i] = a.zip(b).map(|(a, b)| a + b);
            } else {
                shape[i] = match (a, b) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(Error::value(format!(
                            "concat: dimension {i} differs between the inputs {}",
                            describe(vars)
                        )))
                    }
                    (Some(a), _) | (_, Some(a)) => Some(a),
                    _ => None,
                };
            }
        }
        dtype = DType::promote(dtype, v.dtype);
    }
    Ok((dtype, shape))
}

/// The dtype and shape of the single output of `kind` applied to `inputs`.
pub fn infer(kind: &OpKind, inputs: &[&VarDesc]) -> Result<(DType, Vec<Dim>)> {
    let name = kind.name();
    match kind {
        OpKind::Binary(op) => {
            arity(&name, inputs, 2)?;
            // Paddle's 0-d promotion, as the op runs (`OpKind::run`)
            let (a, b) = (inputs[0], inputs[1]);
            let dtype = Tensor::binary_result_dtype_ranked(
                *op,
                (a.dtype, a.shape.is_empty()),
                (b.dtype, b.shape.is_empty()),
                ZeroDimRule::Paddle,
            )?;
            Ok((dtype, broadcast(&name, inputs[0], inputs[1])?))
        }
        OpKind::Unary(op) => {
            arity(&name, inputs, 1)?;
            Tensor::check_unary_dtype(*op, inputs[0].dtype)?;
            Ok((
                Tensor::unary_result_dtype(*op, inputs[0].dtype),
                inputs[0].shape.clone(),
            ))
        }
        OpKind::Clip(..) => {
            arity(&name, inputs, 1)?;
            Ok((inputs[0].dtype, inputs[0].shape.clone()))
        }
        OpKind::Cast(d) => {
            arity(&name, inputs, 1)?;
            Ok((*d, inputs[0].shape.clone()))
        }
        OpKind::Matmul => {
            arity(&name, inputs, 2)?;
            Ok((
                DType::promote(inputs[0].dtype, inputs[1].dtype),
                matmul(inputs[0], inputs[1])?,
            ))
        }
        OpKind::Reduce {
            kind,
            axes,
            keepdim,
        } => {
            arity(&name, inputs, 1)?;
            reduce(*kind, inputs[0], axes, *keepdim)
        }
        OpKind::Softmax(a) | OpKind::LogSoftmax(a) => {
            arity(&name, inputs, 1)?;
            normalize(&name, inputs[0], *a)?;
            Ok((inputs[0].dtype.to_floating(), inputs[0].shape.clone()))
        }
        OpKind::Concat(a) => concat(inputs, *a),
        _ => Err(Error::runtime(format!(
            "{name}: this op is appended by its own builder, not by append_op"
        ))),
    }
}
