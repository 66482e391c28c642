//! Build-time shape of a recorded `x[...]` (NumPy / PyTorch rules, as the eager
//! `Tensor::index`): basic items (ints, slices, `None`, `...`) give a view; index
//! variables index by NumPy's advanced rules (broadcast together; a bool mask stands for
//! its non-zero coordinates, whose count is known only at run time).

use super::infer_index_join_reduce::OutDesc;
use super::op_index_join_reduce::IndexSpec;
use super::program::{fmt_shape, Dim, VarDesc};
use crate::autograd::ops::index::slice_bounds;
use crate::dtype::DType;
use crate::error::{Error, Result};

fn bcast(a: &[Dim], b: &[Dim], shapes: &[Vec<Dim>]) -> Result<Vec<Dim>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let da = (i + a.len()).checked_sub(n).map_or(Some(1), |k| a[k]);
            let db = (i + b.len()).checked_sub(n).map_or(Some(1), |k| b[k]);
            match (da, db) {
                (Some(x), Some(y)) if x == y => Ok(Some(x)),
                (Some(1), d) | (d, Some(1)) => Ok(d),
                (None, d) | (d, None) => Ok(d),
                _ => Err(Error::index(format!(
                    "getitem: shape mismatch: index variables of shapes {} cannot be broadcast \
                     together",
                    shapes
                        .iter()
                        .map(|s| fmt_shape(s))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        })
        .collect()
}

/// The dtype and shape of `inputs[0][items]`; `inputs[1..]` are the index variables, one
/// per [`IndexSpec::Var`].
pub fn index_shape(inputs: &[&VarDesc], items: &[IndexSpec]) -> Result<OutDesc> {
    let x = inputs
        .first()
        .ok_or_else(|| Error::value("getitem: needs the indexed variable"))?;
    let n_vars = items.iter().filter(|i| **i == IndexSpec::Var).count();
    if inputs.len() != 1 + n_vars {
        return Err(Error::value(format!(
            "getitem: expected {} index variable(s), got {}",
            n_vars,
            inputs.len() - 1
        )));
    }
    let mut idx_vars = inputs[1..].iter();
    let var_items: Vec<&VarDesc> = inputs[1..].to_vec();
    for v in &var_items {
        if !(v.dtype.is_int() || v.dtype == DType::Bool) {
            return Err(Error::index(format!(
                "getitem: variables used as indices must be integer (int32/int64) or bool, got \
                 '{}' of dtype {}",
                v.name, v.dtype
            )));
        }
    }
    let has_var = n_vars > 0;
    let mut consumed = 0usize;
    let mut ellipses = 0usize;
    for it in items {
        match it {
            IndexSpec::Int(_) | IndexSpec::Slice(..) => consumed += 1,
            IndexSpec::Ellipsis => ellipses += 1,
            IndexSpec::NewAxis | IndexSpec::Var => {}
        }
    }
    for v in &var_items {
        consumed += if v.dtype == DType::Bool {
            v.shape.len()
        } else {
            1
        };
    }
    let nd = x.shape.len();
    if ellipses > 1 {
        return Err(Error::index(format!(
            "getitem: an index can only have a single ellipsis ('...'), got {ellipses}"
        )));
    }
    if consumed > nd {
        return Err(Error::index(format!(
            "getitem: too many indices for '{}' with shape {} ({nd} dimensions): the index uses \
             {consumed}",
            x.name,
            fmt_shape(&x.shape)
        )));
    }
    let mut vshape: Vec<Dim> = x.shape.clone();
    // (view dim, index shape) of each advanced index
    let mut adv: Vec<(usize, Vec<Dim>)> = Vec::new();
    let (mut cur, mut src) = (0usize, 0usize);
    for it in items {
        let size = vshape.get(cur).copied().flatten();
        match it {
            IndexSpec::Ellipsis => {
                cur += nd - consumed;
                src += nd - consumed;
            }
            IndexSpec::NewAxis => {
                vshape.insert(cur, Some(1));
                cur += 1;
            }
            IndexSpec::Slice(a, b, step) => {
                if *step == 0 {
                    return Err(Error::value("getitem: slice step cannot be zero"));
                }
                vshape[cur] = match size {
                    Some(n) => Some(slice_bounds(n, *a, *b, *step, "getitem")?.1),
                    None => None,
                };
                cur += 1;
                src += 1;
            }
            IndexSpec::Int(i) => {
                if let Some(n) = size {
                    let ok = if *i < 0 {
                        i.unsigned_abs() <= n
                    } else {
                        (*i as usize) < n
                    };
                    if !ok {
                        return Err(Error::index(format!(
                            "getitem: index {i} is out of bounds for dimension {src} with size {n} \
                             of '{}' (shape {})",
                            x.name,
                            fmt_shape(&x.shape)
                        )));
                    }
                }
                if has_var {
                    adv.push((cur, Vec::new()));
                    cur += 1;
                } else {
                    vshape.remove(cur);
                }
                src += 1;
            }
            IndexSpec::Var => {
                let v = idx_vars
                    .next()
                    .ok_or_else(|| Error::value("getitem: missing index variable"))?;
                if v.dtype != DType::Bool {
                    adv.push((cur, v.shape.clone()));
                    cur += 1;
                    src += 1;
                    continue;
                }
                let k = v.shape.len();
                if k == 0 {
                    // NumPy: a 0-d mask adds a dim of length 1 (true) or 0 (false)
                    vshape.insert(cur, Some(1));
                    adv.push((cur, vec![None]));
                    cur += 1;
                    continue;
                }
                let indexed = &vshape[cur..cur + k];
                let clash = indexed
                    .iter()
                    .zip(&v.shape)
                    .any(|(a, b)| matches!((a, b), (Some(a), Some(b)) if a != b));
                if clash {
                    return Err(Error::index(format!(
                        "getitem: the boolean mask '{}' of shape {} does not match the indexed \
                         shape {} (dimensions {src}..{} of '{}' with shape {})",
                        v.name,
                        fmt_shape(&v.shape),
                        fmt_shape(indexed),
                        src + k,
                        x.name,
                        fmt_shape(&x.shape)
                    )));
                }
                for j in 0..k {
                    adv.push((cur + j, vec![None]));
                }
                cur += k;
                src += k;
            }
        }
    }
    if adv.is_empty() {
        return Ok((x.dtype, vshape));
    }
    let shapes: Vec<Vec<Dim>> = adv.iter().map(|(_, s)| s.clone()).collect();
    let mut b: Vec<Dim> = Vec::new();
    for s in &shapes {
        b = bcast(&b, s, &shapes)?;
    }
    let dims: Vec<usize> = adv.iter().map(|(d, _)| *d).collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..vshape.len()).filter(|d| !dims.contains(d)).collect();
    let split = if adjacent {
        rest.iter().take_while(|&&d| d < dims[0]).count()
    } else {
        0
    };
    let (pre, post) = rest.split_at(split);
    let mut out: Vec<Dim> = pre.iter().map(|&d| vshape[d]).collect();
    out.extend_from_slice(&b);
    out.extend(post.iter().map(|&d| vshape[d]));
    Ok((x.dtype, out))
}
