//! Rules, kernels and inverses of the shape table's dimension reorderings: `permute`
//! and `transpose` (both dialects: Paddle's permutation, torch's two swapped dims).

use crate::error::{Error, Result};
use crate::op_defs::shape::fns::known;
use crate::op_defs::shape_meta::{Dim, DimSubject, ShapeArgs, ShapeSaved};
use crate::tensor::Tensor;
use smallvec::{smallvec, SmallVec};

/// A dimension order (inline up to 8 dimensions: no allocation per call).
type Order = SmallVec<[usize; 8]>;

/// `perm` normalized against the `d.len()` dimensions and checked to be a permutation of
/// them (an out-of-range entry is an IndexError, as for every axis).
fn perm_axes(op: &str, d: &[Dim], perm: &[isize], cx: DimSubject<'_>) -> Result<Order> {
    let n = d.len();
    let axes = perm
        .iter()
        .map(|&p| cx.axis(op, p, n))
        .collect::<Result<Order>>()?;
    let mut seen: SmallVec<[bool; 8]> = smallvec![false; n];
    // (every axis is < n.max(1) here; a 0-d tensor's axis 0 fails the length check)
    let is_perm = axes.len() == n && axes.iter().all(|&k| !std::mem::replace(&mut seen[k], true));
    if !is_perm {
        return Err(Error::value(format!(
            "{op}: cannot permute the dimensions of {} by {perm:?}: not a permutation of its \
             {n} dimensions",
            cx.describe(d)
        )));
    }
    Ok(axes)
}

/// The order of the input's dimensions in the result of `op` (`permute` or
/// `transpose`): the permutation, or the identity with the pair swapped.
fn order(op: &str, d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Order> {
    let n = d.len();
    let Some((d0, d1)) = a.pair else {
        return perm_axes(op, d, a.perm.as_deref().unwrap_or(&[]), cx);
    };
    let mut p: Order = (0..n).collect();
    if n < 2 && d0 == d1 {
        return Ok(p); // nothing to swap (any dim, as before the table)
    }
    let (i, j) = (cx.axis(op, d0, n)?, cx.axis(op, d1, n)?);
    if n > 0 {
        p.swap(i, j); // (dims 0 and -1 of a 0-d tensor both name the tensor itself)
    }
    Ok(p)
}

/// The result shape of a reordering.
fn reordered(op: &str, d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    Ok(order(op, d, a, cx)?.iter().map(|&k| d[k]).collect())
}

/// `permute`'s result shape.
pub fn permute_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    reordered("permute", d, a, cx)
}

/// `transpose`'s result shape.
pub fn transpose_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    reordered("transpose", d, a, cx)
}

/// A reordering as a view (no recording).
pub fn reorder_kernel(op: &str, x: &Tensor, a: &ShapeArgs) -> Result<Tensor> {
    let p = order(op, &known(x.shape()), a, DimSubject::Tensor)?;
    Ok(x.view_with(x.layout().permute(&p)?))
}

/// The gradient of a reordering: `g` reordered by the inverse permutation (a swap is its
/// own inverse, and keeps its node's name under double backward).
pub fn reorder_grad(op: &str, g: &Tensor, s: &ShapeSaved<'_>) -> Result<Tensor> {
    if let Some((d0, d1)) = s.args.pair {
        return g.transpose(d0, d1);
    }
    let p = order(op, &known(s.in_shape), s.args, DimSubject::Tensor)?;
    let mut inv = vec![0isize; p.len()];
    for (i, &k) in p.iter().enumerate() {
        inv[k] = i as isize;
    }
    g.permute(&inv)
}

/// `transpose`'s backward node: a swap that changes nothing (a 0-d tensor, or the same
/// dim of a 1-d one) shows `TransposeBackward`, every other reordering the entry's
/// `PermuteBackward` (as before the table).
pub fn transpose_node(a: &ShapeArgs, ndim: usize) -> Option<&'static str> {
    match a.pair {
        Some((d0, d1)) if ndim == 0 || (ndim < 2 && d0 == d1) => Some("TransposeBackward"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_defs::ShapeOp;

    const X: DimSubject<'static> = DimSubject::Var {
        name: "x",
        shape: &[None, Some(4), Some(3)],
        other: None,
    };

    #[test]
    fn reorderings_over_known_and_run_time_dimensions() {
        let d = [None, Some(4), Some(3)];
        let p = ShapeOp::Permute.shape_rule(&d, &ShapeArgs::perm(&[2, 0, -2]), X);
        assert_eq!(p.unwrap(), vec![Some(3), None, Some(4)]);
        let t = ShapeOp::Transpose.shape_rule(&d, &ShapeArgs::pair(0, -1), X);
        assert_eq!(t.unwrap(), vec![Some(3), Some(4), None]);
        let e = ShapeOp::Transpose
            .shape_rule(&d, &ShapeArgs::perm(&[0, 0, 1]), X)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("transpose: cannot permute the dimensions of 'x' with shape [-1, 4, 3]"),
            "{e}"
        );
        let e = ShapeOp::Permute
            .shape_rule(
                &[Some(2), Some(5)],
                &ShapeArgs::perm(&[1]),
                DimSubject::Tensor,
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("permute") && e.contains("[2, 5]"), "{e}");
    }

    #[test]
    fn only_no_op_swaps_show_transpose_backward() {
        assert_eq!(
            transpose_node(&ShapeArgs::pair(0, 0), 1),
            Some("TransposeBackward")
        );
        assert_eq!(
            transpose_node(&ShapeArgs::pair(0, -1), 0),
            Some("TransposeBackward")
        );
        assert_eq!(transpose_node(&ShapeArgs::pair(0, -1), 1), None);
        assert_eq!(transpose_node(&ShapeArgs::pair(0, 1), 2), None);
        assert_eq!(transpose_node(&ShapeArgs::perm(&[0]), 1), None);
    }
}
