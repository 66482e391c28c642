//! Shape rules and raw kernels of the shape-op table ([`super`]). The rules work over
//! [`Dim`]s so that static inference runs them with dimensions known only at run time.

use crate::error::{Error, Result};
use crate::op_defs::shape_meta::{fmt_dims, Dim, DimSubject, ShapeArgs};
use crate::tensor::Tensor;

pub use super::expand::*;
pub use super::permute::*;
pub use super::reshape::*;

/// The dimensions `squeeze` removes, sorted. Without axes: every dimension known to
/// have size 1. Listed axes must be in range; a listed dimension that is not 1 stays
/// (an error for pinned static arguments), one known only at run time is an error.
fn squeeze_drops(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<usize>> {
    let n = d.len();
    let Some(axes) = &a.axes else {
        return Ok((0..n).filter(|&i| d[i] == Some(1)).collect());
    };
    let mut out = Vec::with_capacity(axes.len());
    for &ax in axes {
        let k = cx.axis("squeeze", ax, n)?;
        if n == 0 {
            continue; // axis 0 / -1 of a 0-d tensor names the tensor itself
        }
        match d[k] {
            Some(1) => {
                if !out.contains(&k) {
                    out.push(k)
                }
            }
            None => {
                let DimSubject::Var { name, shape, .. } = cx else {
                    return Err(Error::runtime("squeeze: unknown dimension of a tensor"));
                };
                return Err(Error::value(format!(
                    "squeeze: axis {ax} of '{name}' (shape {}) has a size known only at run \
                     time, so whether it is removed would depend on the feed; reshape it instead",
                    fmt_dims(shape)
                )));
            }
            Some(_) if a.pinned => {
                return Err(Error::value(format!(
                    "squeeze: dimension {k} was recorded as size 1 but the value has shape {}",
                    fmt_dims(d)
                )))
            }
            Some(_) => {}
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// `squeeze`'s result shape.
pub fn squeeze_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    let drop = squeeze_drops(d, a, cx)?;
    Ok(d.iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, &x)| x)
        .collect())
}

/// `squeeze`'s static arguments: the dimensions removed, decided when the program is
/// built (only those known to be 1), and checked again at run time.
pub fn squeeze_pin(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<ShapeArgs> {
    let drop = squeeze_drops(d, a, cx)?;
    Ok(ShapeArgs {
        axes: Some(drop.iter().map(|&k| k as isize).collect()),
        pinned: true,
        ..a.clone()
    })
}

/// `squeeze` as a view (no recording).
pub fn squeeze_kernel(x: &Tensor, a: &ShapeArgs) -> Result<Tensor> {
    let drop = squeeze_drops(&known(x.shape()), a, DimSubject::Tensor)?;
    let mut layout = x.layout().clone();
    for &k in drop.iter().rev() {
        layout = layout.squeeze_dim(k);
    }
    Ok(x.view_with(layout))
}

/// The positions `unsqueeze` inserts size-1 dimensions at, in increasing order: each
/// axis is a position in the result (negative counts from its end), inserted in order.
fn unsqueeze_positions(nd: usize, a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<usize>> {
    let axes = a
        .axes
        .as_deref()
        .ok_or_else(|| Error::type_err("unsqueeze() needs an axis"))?;
    let final_nd = nd + axes.len();
    let mut at = axes
        .iter()
        .map(|&ax| cx.axis("unsqueeze", ax, final_nd))
        .collect::<Result<Vec<_>>>()?;
    at.sort_unstable();
    for (i, &k) in at.iter().enumerate() {
        cx.axis("unsqueeze", k as isize, nd + i + 1)?;
    }
    Ok(at)
}

/// `unsqueeze`'s result shape.
pub fn unsqueeze_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    let mut out = d.to_vec();
    for k in unsqueeze_positions(d.len(), a, cx)? {
        out.insert(k, Some(1));
    }
    Ok(out)
}

/// `unsqueeze` as a view (no recording).
pub fn unsqueeze_kernel(x: &Tensor, a: &ShapeArgs) -> Result<Tensor> {
    let mut layout = x.layout().clone();
    for k in unsqueeze_positions(x.ndim(), a, DimSubject::Tensor)? {
        layout = layout.unsqueeze(k);
    }
    Ok(x.view_with(layout))
}

/// `flatten`'s result shape (a 0-d input gives `[1]`).
pub fn flatten_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    let nd = d.len();
    if nd == 0 {
        // a 0-d tensor's axes are 0 and -1 (both peers refuse others)
        cx.axis("flatten", a.start, 0)?;
        cx.axis("flatten", a.stop, 0)?;
        return Ok(vec![Some(1)]);
    }
    let (start, stop) = (a.start, a.stop);
    let (s, e) = (
        cx.axis("flatten", start, nd)?,
        cx.axis("flatten", stop, nd)?,
    );
    if s > e {
        return Err(Error::value(if cx.is_static() {
            format!(
                "flatten: start axis {start} comes after stop axis {stop}{}",
                cx.suffix()
            )
        } else {
            format!("flatten: start dim {start} comes after end dim {stop}")
        }));
    }
    let mut merged = Some(1usize);
    for &x in &d[s..=e] {
        merged = match (merged, x) {
            (Some(p), Some(x)) => Some(p.checked_mul(x).ok_or_else(|| {
                Error::value(format!("flatten: the shape {} is too large", fmt_dims(d)))
            })?),
            _ => None,
        };
    }
    let mut out = d[..s].to_vec();
    out.push(merged);
    out.extend_from_slice(&d[e + 1..]);
    Ok(out)
}

/// A tensor's shape as known dimensions.
pub fn known(shape: &[usize]) -> Vec<Dim> {
    shape.iter().map(|&d| Some(d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_defs::ShapeOp;

    const X: DimSubject<'static> = DimSubject::Var {
        name: "x",
        shape: &[None, Some(1), Some(3)],
        other: None,
    };

    #[test]
    fn one_rule_serves_known_and_run_time_dimensions() {
        let d = [None, Some(1), Some(3)];
        let flat = ShapeOp::Flatten.shape_rule(&d, &ShapeArgs::range(1, 2), X);
        assert_eq!(flat.unwrap(), vec![None, Some(3)]);
        let all = ShapeOp::Flatten.shape_rule(&d, &ShapeArgs::new(), X);
        assert_eq!(all.unwrap(), vec![None]);
        let un = ShapeOp::Unsqueeze.shape_rule(&d, &ShapeArgs::axes(Some(&[0, -1])), X);
        assert_eq!(un.unwrap(), vec![Some(1), None, Some(1), Some(3), Some(1)]);
        let sq = ShapeOp::Squeeze.shape_rule(&d, &ShapeArgs::axes(None), X);
        assert_eq!(sq.unwrap(), vec![None, Some(3)]);
        let known = known(&[4, 1, 3]);
        let eager = ShapeOp::Squeeze.shape_rule(
            &known,
            &ShapeArgs::axes(Some(&[1, 2])),
            DimSubject::Tensor,
        );
        assert_eq!(eager.unwrap(), vec![Some(4), Some(3)]);
    }

    #[test]
    fn errors_name_the_op_the_axis_and_the_variable() {
        let d = [None, Some(1), Some(3)];
        let e = ShapeOp::Squeeze
            .shape_rule(&d, &ShapeArgs::axes(Some(&[0])), X)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("squeeze: axis 0 of 'x'") && e.contains("known only at run time"),
            "{e}"
        );
        let e = ShapeOp::Flatten
            .shape_rule(&known(&[2, 3]), &ShapeArgs::range(1, 0), DimSubject::Tensor)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("flatten: start dim 1 comes after end dim 0"),
            "{e}"
        );
        let e = ShapeOp::Unsqueeze
            .shape_rule(&d, &ShapeArgs::axes(Some(&[9])), X)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unsqueeze: axis 9 is out of range") && e.contains("'x'"),
            "{e}"
        );
    }

    #[test]
    fn squeeze_pins_its_dimensions_and_checks_them_at_run_time() {
        let d = [None, Some(1), Some(3)];
        let pinned = ShapeOp::Squeeze
            .static_args(&d, &ShapeArgs::axes(None), X)
            .unwrap();
        assert_eq!(pinned.axes, Some(vec![1]));
        assert!(pinned.pinned);
        let e = ShapeOp::Squeeze
            .shape_rule(&known(&[2, 5, 3]), &pinned, DimSubject::Tensor)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("squeeze: dimension 1 was recorded as size 1"),
            "{e}"
        );
    }
}
