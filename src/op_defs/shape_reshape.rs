//! The rule of the shape table's `reshape`: the target shape with one `-1` inferred,
//! over dimensions a static program may know only at run time. Every size from the
//! caller goes through checked arithmetic (a huge target is an error, never a wrapped
//! product).

use crate::error::{Error, Result};
use crate::op_defs::shape_meta::{Dim, DimSubject, ShapeArgs};

/// `reshape`'s result shape: the target (`shape`) with its `-1` (at most one) inferred
/// from the input's element count (unknown when that count is known only at run time),
/// and a `0` meaning the input's size at that position (Paddle's rule) unless the input
/// is empty.
pub fn reshape_rule(d: &[Dim], a: &ShapeArgs, cx: DimSubject<'_>) -> Result<Vec<Dim>> {
    let given = a.shape.as_deref().unwrap_or(&[]);
    // Paddle's 0: "copy the input's size at this position". PyTorch reads a 0 as a size of
    // zero, which fits only an empty input, so the two never disagree where PyTorch has an
    // answer: a 0 is copied unless the input is known to be empty.
    let copied: Vec<isize>;
    let target: &[isize] = if given.contains(&0) && !d.contains(&Some(0)) {
        copied = (given.iter().enumerate())
            .map(|(i, &t)| match (t, d.get(i)) {
                (0, Some(Some(n))) => isize::try_from(*n).unwrap_or(isize::MAX),
                _ => t,
            })
            .collect();
        &copied
    } else {
        given
    };
    let mut infer = None;
    let mut fixed = 1usize;
    for (i, &t) in target.iter().enumerate() {
        if t == -1 {
            if infer.replace(i).is_some() {
                return Err(Error::value(format!(
                    "reshape: only one dimension can be -1, got {given:?}"
                )));
            }
        } else {
            let t = usize::try_from(t).map_err(|_| {
                Error::value(format!("reshape: invalid dimension {t} in {given:?}"))
            })?;
            fixed = fixed
                .checked_mul(t)
                .ok_or_else(|| Error::value(format!("reshape: shape {given:?} is too large")))?;
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
            "reshape: cannot reshape {} ({numel} elements) into shape {given:?}",
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
        // Paddle's 0 copies the input's size there (where PyTorch has no answer)
        assert_eq!(
            rule(&known(&[2, 3, 4]), &[0, -1], t).unwrap(),
            known(&[2, 12])
        );
        assert_eq!(rule(&known(&[4, 5]), &[0, 0], t).unwrap(), known(&[4, 5]));
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
        assert!(e(&x, &[0, 5], t).contains("[0, 5]")); // (the 0 reads 2: 10 elements)
        assert!(e(&known(&[0, 3]), &[0, -1], t).contains("[0, -1]")); // empty: 0 is a size
        assert!(e(&x, &[1 << 40, 1 << 40], t).contains("too large"));
        assert!(e(&x, &[isize::MAX, 3], t).contains("too large"));
        assert!(e(&x, &[isize::MAX], t).contains("24 elements"));
        let d = [None, Some(4), Some(3)];
        assert!(e(&d, &[isize::MAX, -1, 3], X).contains("too large"));
        assert!(e(&[Some(5), Some(3)], &[7, -1], X).contains("'x' with shape [-1, 4, 3]"));
    }
}
