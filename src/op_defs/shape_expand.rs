//! The rule of the shape table's broadcasts: `expand`/`broadcast_to` (a target shape
//! whose `-1` keeps the input's dimension, which a static program may know only at run
//! time) and `expand_as` (the shape of a second input, whose dimensions may also be
//! run-time ones). The kernel is `Tensor::expand_raw` (stride 0 on the broadcast
//! dimensions) and the gradient `sum_to` the input's shape.

use crate::error::{Error, Result};
use crate::op_defs::shape_meta::{fmt_dims, Dim, DimSubject, ShapeArgs};

/// One entry of a broadcast target: `None` keeps the input's dimension (`-1`), else the
/// size wanted (itself `None` when a static program knows it only at run time).
type Want = Option<Dim>;

/// The target of a broadcast call as wanted sizes.
fn target(op: &str, a: &ShapeArgs) -> Result<Vec<Want>> {
    if let Some(like) = &a.like {
        return Ok(like.iter().map(|&t| Some(t)).collect());
    }
    let Some(shape) = &a.shape else {
        return Err(Error::type_err(if op == "expand_as" {
            "expand_as() needs the tensor whose shape is the target (other=, or Paddle's y=)"
                .to_string()
        } else {
            format!("{op}() needs the target shape (shape=, or torch's size=)")
        }));
    };
    shape
        .iter()
        .map(|&t| match t {
            -1 => Ok(None),
            t => usize::try_from(t).map(|t| Some(Some(t))).map_err(|_| {
                Error::value(format!(
                    "{op}: invalid size {t} in {shape:?} (-1 keeps an existing dimension)"
                ))
            }),
        })
        .collect::<Result<Vec<_>>>()
}

/// How errors show the target (formatted only when an error is raised: this rule runs
/// on every broadcast, including each `sum` backward).
fn shown_target(a: &ShapeArgs, cx: DimSubject<'_>) -> String {
    match (&a.like, &a.shape) {
        (Some(like), _) => format!("the shape {}{}", fmt_dims(like), cx.other_suffix()),
        (None, Some(shape)) => format!("{shape:?}"),
        (None, None) => String::new(),
    }
}

/// The result shape of broadcasting the input (dimensions `d`) to the call's target:
/// `shape` (`expand`, `broadcast_to`) or `like` (`expand_as`). New dimensions go in
/// front; an existing one must be 1 or equal the target's (checked again at run time
/// when either is known only then).
pub fn expand_rule(op: &str, d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    let want = target(op, a)?;
    let shown = || shown_target(a, cx);
    let (n, nd) = (want.len(), d.len());
    if n < nd {
        return Err(Error::value(format!(
            "{op}: cannot expand {} to {}: the target shape has fewer dimensions",
            cx.describe(d),
            shown()
        )));
    }
    let lead = n - nd;
    let mut out = Vec::with_capacity(n);
    for (i, &w) in want.iter().enumerate() {
        let own = i.checked_sub(lead).map(|k| d[k]);
        out.push(match (w, own) {
            (None, Some(own)) => own,
            (None, None) => {
                return Err(Error::value(format!(
                    "{op}: invalid size -1 in {} (-1 keeps an existing dimension, and \
                     dimension {i} is a new one)",
                    shown()
                )))
            }
            (Some(t), None | Some(None) | Some(Some(1))) => t,
            (Some(None), Some(Some(o))) => Some(o),
            (Some(Some(t)), Some(Some(o))) if o == t => Some(t),
            (Some(Some(t)), Some(Some(o))) => {
                return Err(Error::value(format!(
                    "{op}: cannot expand {} to {}: dimension {i} has size {o}, which is not \
                     1 (only size-1 dimensions can be expanded, here to {t})",
                    cx.describe(d),
                    shown()
                )))
            }
        });
    }
    // the element count must be representable (strides and offsets are isize)
    if !out.contains(&Some(0)) {
        let mut numel = 1usize;
        for &k in out.iter().flatten() {
            numel = numel
                .checked_mul(k)
                .filter(|&p| p <= isize::MAX as usize)
                .ok_or_else(|| Error::value(format!("{op}: the shape {} is too large", shown())))?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_defs::shape::fns::known;
    use crate::op_defs::ShapeOp;

    const X: DimSubject<'static> = DimSubject::Var {
        name: "x",
        shape: &[None, Some(1), Some(3)],
        other: Some("y"),
    };

    fn expand(d: &[Dim], t: &[isize], cx: DimSubject<'_>) -> Result<Vec<Dim>> {
        ShapeOp::Expand.shape_rule(d, &ShapeArgs::shape(t), cx)
    }

    #[test]
    fn minus_one_keeps_known_and_run_time_dimensions() {
        let t = DimSubject::Tensor;
        assert_eq!(
            expand(&known(&[1, 3]), &[2, -1, 3], t).unwrap(),
            known(&[2, 1, 3])
        );
        assert_eq!(
            expand(&known(&[1, 3]), &[4, 0, 3], t).unwrap(),
            known(&[4, 0, 3])
        );
        let d = [None, Some(1), Some(3)];
        assert_eq!(
            expand(&d, &[2, -1, 5, -1], X).unwrap(),
            vec![Some(2), None, Some(5), Some(3)]
        );
        // a size for a run-time dimension is taken as given (checked when the program runs)
        assert_eq!(expand(&d, &[4, 1, 3], X).unwrap(), known(&[4, 1, 3]));
    }

    #[test]
    fn expand_as_reads_the_second_inputs_dimensions() {
        let d = [None, Some(1), Some(3)];
        let like = [Some(2), None, None, Some(3)];
        let r = ShapeOp::ExpandAs.shape_rule(&d, &ShapeArgs::like(&like), X);
        assert_eq!(r.unwrap(), vec![Some(2), None, None, Some(3)]);
        let r = ShapeOp::ExpandAs.shape_rule(&known(&[5, 1]), &ShapeArgs::like(&[None, None]), X);
        assert_eq!(r.unwrap(), vec![Some(5), None]);
        let e = ShapeOp::ExpandAs
            .shape_rule(&d, &ShapeArgs::like(&[Some(2), Some(2), Some(1)]), X)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "expand_as: cannot expand 'x' with shape [-1, 1, 3] to the shape [2, 2, 1] of 'y'"
            ),
            "{e}"
        );
        let e = ShapeOp::ExpandAs
            .shape_rule(&d, &ShapeArgs::new(), X)
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs the tensor"), "{e}");
    }

    #[test]
    fn bad_targets_name_the_op_and_the_size() {
        let t = DimSubject::Tensor;
        let e = |d: &[Dim], s: &[isize]| expand(d, s, t).unwrap_err().to_string();
        let x = known(&[3, 1]);
        assert!(e(&x, &[2, 2]).contains("dimension 0 has size 3, which is not 1"));
        assert!(e(&x, &[2]).contains("fewer dimensions"));
        assert!(e(&x, &[-2, 3]).contains("invalid size -2 in [-2, 3]"));
        assert!(e(&x, &[-1, 3, 3]).contains("dimension 0 is a new one"));
        assert!(e(&x, &[1 << 40, 1 << 40, -1, 1]).contains("too large"));
        let b = ShapeOp::BroadcastTo
            .shape_rule(&x, &ShapeArgs::shape(&[4, 2, 2]), t)
            .unwrap_err()
            .to_string();
        assert!(
            b.starts_with("broadcast_to: cannot expand a tensor of shape [3, 1]"),
            "{b}"
        );
    }
}
