//! The rule of the shape table's `reshape`: the target shape with one `-1` inferred,
//! over dimensions a static program may know only at run time. Every size from the
//! caller goes through checked arithmetic (a huge target is an error, never a wrapped
//! product).

use crate::error::{Error, Result};
use crate::op_defs::shape_meta::{Dim, DimSubject, ShapeArgs};

/// `reshape`'s result shape: the target (`shape`) with its `-1` (at most one) inferred
/// from the input's element count; unknown when that count is known only at run time.
pub fn reshape_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    let target = a.shape.as_deref().unwrap_or(&[]);
    let mut infer = None;
    let mut fixed = 1usize;
    for (i, &t) in target.iter().enumerate() {
        if t == -1 {
            if infer.replace(i).is_some() {
                return Err(Error::value(format!(
                    "reshape: only one dimension can be -1, got {target:?}"
                )));
            }
        } else {
            let t = usize::try_from(t).map_err(|_| {
                Error::value(format!("reshape: invalid dimension {t} in {target:?}"))
            })?;
            fixed = fixed
                .checked_mul(t)
                .ok_or_else(|| Error::value(format!("reshape: shape {target:?} is too large")))?;
        }
    }
    let mut out: Vec<Dim> = target.iter().map(|&t| usize::try_from(t).ok()).collect();
    // the input's element count: None while a dimension is known only at run time (or
    // while the recorded shape is too large to count: the run checks it)
    let mut numel = Some(1usize);
    for &x in d {
        numel = match (numel, x) {
            (Some(p), Some(x)) => p.checked_mul(x),
            _ => None,
        };
    }
    let Some(numel) = numel else {
        return Ok(out);
    };
    let fits = match infer {
        Some(k) if fixed != 0 && numel % fixed == 0 => {
            out[k] = Some(numel / fixed);
            true
        }
        Some(_) => false,
        None => fixed == numel,
    };
    if !fits {
        return Err(Error::value(format!(
            "reshape: cannot reshape {} ({numel} elements) into shape {target:?}",
            cx.describe(d)
        )));
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
        shape: &[None, Some(4), Some(3)],
        other: None,
    };

    fn rule(d: &[Dim], t: &[isize], cx: DimSubject<'_>) -> Result<Vec<Dim>> {
        ShapeOp::Reshape.shape_rule(d, &ShapeArgs::shape(t), cx)
    }

    #[test]
    fn infers_minus_one_when_the_count_is_known() {
        let t = DimSubject::Tensor;
        assert_eq!(
            rule(&known(&[2, 3, 4]), &[4, -1], t).unwrap(),
            known(&[4, 6])
        );
        assert_eq!(rule(&known(&[2, 3, 4]), &[24], t).unwrap(), known(&[24]));
        assert_eq!(rule(&known(&[0, 3]), &[3, 0], t).unwrap(), known(&[3, 0]));
        let d = [None, Some(4), Some(3)];
        assert_eq!(rule(&d, &[-1, 12], X).unwrap(), vec![None, Some(12)]);
        assert_eq!(rule(&d, &[2, 6], X).unwrap(), vec![Some(2), Some(6)]);
    }

    #[test]
    fn bad_targets_are_errors_without_overflow() {
        let t = DimSubject::Tensor;
        let e = |d: &[Dim], s: &[isize], cx| rule(d, s, cx).unwrap_err().to_string();
        let x = known(&[2, 3, 4]);
        assert!(e(&x, &[5, -1], t).contains("a tensor of shape [2, 3, 4] (24 elements)"));
        assert!(e(&x, &[-1, -1], t).contains("only one dimension can be -1"));
        assert!(e(&x, &[2, -3, 4], t).contains("invalid dimension -3"));
        assert!(e(&x, &[0, -1], t).contains("[0, -1]"));
        assert!(e(&x, &[1 << 40, 1 << 40], t).contains("too large"));
        assert!(e(&x, &[isize::MAX, 3], t).contains("too large"));
        assert!(e(&x, &[isize::MAX], t).contains("24 elements"));
        let d = [None, Some(4), Some(3)];
        assert!(e(&d, &[isize::MAX, -1, 3], X).contains("too large"));
        assert!(e(&[Some(5), Some(3)], &[7, -1], X).contains("'x' with shape [-1, 4, 3]"));
    }
}
