//! Scatter-reduce kernels: combining values into a contiguous buffer at row-major linear
//! indices with `prod`, `amax` or `amin` (the `sum` and overwrite cases are
//! [`crate::kernels::index::put`]).
//!
//! The linear indices come from [`crate::kernels::index::gather_linear`] and are already
//! validated; the kernel still checks each one, so a bad index is an error, never a panic.

use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernels::index::{gather_linear, NegIndex};
use half::{bf16, f16};

/// Row-major linear indices into a tensor of `shape` for a scatter / gather along `dim`
/// with an `index` of `index_shape` (see [`gather_linear`], which this matches). When the
/// index has the tensor's shape outside `dim` (the common case) the positions are
/// computed with three plain loops instead of a multi-index per element. `neg`: what an
/// index below 0 means.
pub fn scatter_linear(
    shape: &[usize],
    dim: usize,
    index: &[i64],
    index_shape: &[usize],
    op: &str,
    neg: NegIndex<'_>,
) -> Result<Vec<usize>> {
    let fast = !shape.is_empty()
        && index_shape.len() == shape.len()
        && (0..shape.len()).all(|d| d == dim || index_shape[d] == shape[d])
        && index.len() == index_shape.iter().product::<usize>();
    if !fast {
        return gather_linear(shape, dim, index, index_shape, op, neg);
    }
    let size = shape[dim];
    let inner: usize = shape[dim + 1..].iter().product();
    let outer: usize = shape[..dim].iter().product();
    let k = index_shape[dim];
    let mut lin = crate::storage::try_vec_with_capacity(index.len())?;
    let mut p = 0usize;
    for o in 0..outer {
        for _ in 0..k {
            for i in 0..inner {
                let v = index[p];
                let w = neg.wrap(v, size).ok_or_else(|| {
                    neg.error(v, dim, size, || {
                        Error::index(format!(
                            "{op}: index {v} is out of bounds for dimension {dim} with size {size}"
                        ))
                    })
                })?;
                lin.push((o * size + w) * inner + i);
                p += 1;
            }
        }
    }
    Ok(lin)
}

/// How values landing on the same element combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    /// Product.
    Prod,
    /// Maximum (NaN wins, as in PyTorch).
    Amax,
    /// Minimum (NaN wins, as in PyTorch).
    Amin,
}

impl ScatterReduce {
    /// Parses PyTorch / Paddle spellings (`prod`, `multiply`, `mul`, `amax`, `amin`).
    pub fn parse(name: &str, op: &str) -> Result<ScatterReduce> {
        Ok(match name {
            "prod" | "multiply" | "mul" => ScatterReduce::Prod,
            "amax" => ScatterReduce::Amax,
            "amin" => ScatterReduce::Amin,
            other => {
                return Err(Error::value(format!(
                    "{op}: reduce must be one of 'prod', 'amax', 'amin', got '{other}'"
                )))
            }
        })
    }
}

/// A real element type with the operations a scatter-reduce needs.
pub trait ScatterElem: Element + PartialOrd {
    /// The product of two elements (wrapping for integers).
    fn times(self, other: Self) -> Self;
    /// The smallest value (`-inf` for floats): the identity of `amax`.
    fn lowest() -> Self;
    /// The largest value (`+inf` for floats): the identity of `amin`.
    fn highest() -> Self;
}

macro_rules! impl_scatter_elem {
    ($($t:ty => $mul:expr, $lo:expr, $hi:expr);* $(;)?) => {
        $(impl ScatterElem for $t {
            #[inline(always)]
            fn times(self, other: Self) -> Self {
                ($mul)(self, other)
            }
            #[inline(always)]
            fn lowest() -> Self {
                $lo
            }
            #[inline(always)]
            fn highest() -> Self {
                $hi
            }
        })*
    };
}

impl_scatter_elem!(
    i32 => |a: i32, b: i32| a.wrapping_mul(b), i32::MIN, i32::MAX;
    i64 => |a: i64, b: i64| a.wrapping_mul(b), i64::MIN, i64::MAX;
    f32 => |a: f32, b: f32| a * b, f32::NEG_INFINITY, f32::INFINITY;
    f64 => |a: f64, b: f64| a * b, f64::NEG_INFINITY, f64::INFINITY;
    f16 => |a: f16, b: f16| f16::from_f32(a.to_f32() * b.to_f32()), f16::NEG_INFINITY, f16::INFINITY;
    bf16 => |a: bf16, b: bf16| bf16::from_f32(a.to_f32() * b.to_f32()), bf16::NEG_INFINITY, bf16::INFINITY;
);

/// Combines `vals[p]` into `dst[lin[p]]` with `reduce`; `dst` is a contiguous buffer.
/// Without `include_self` the targeted elements start from the reduction's identity
/// (their old values take no part); elements no index targets keep their values.
pub fn scatter_reduce<T: ScatterElem>(
    dst: &mut [T],
    lin: &[usize],
    vals: &[T],
    reduce: ScatterReduce,
    include_self: bool,
    op: &str,
) -> Result<()> {
    if vals.len() != lin.len() {
        return Err(Error::value(format!(
            "{op}: {} values for {} indices; they must match",
            vals.len(),
            lin.len()
        )));
    }
    let n = dst.len();
    if let Some(&l) = lin.iter().find(|&&l| l >= n) {
        return Err(Error::index(format!(
            "{op}: linear index {l} is out of range for a tensor of {n} element(s)"
        )));
    }
    if !include_self {
        let identity = match reduce {
            ScatterReduce::Prod => T::one(),
            ScatterReduce::Amax => T::lowest(),
            ScatterReduce::Amin => T::highest(),
        };
        for &l in lin {
            dst[l] = identity;
        }
    }
    // `b != b` is true only for NaN: a NaN value wins a max / min, as in PyTorch
    #[allow(clippy::eq_op)]
    match reduce {
        ScatterReduce::Prod => lin.iter().zip(vals).for_each(|(&l, &v)| {
            dst[l] = dst[l].times(v);
        }),
        ScatterReduce::Amax => lin.iter().zip(vals).for_each(|(&l, &v)| {
            if v > dst[l] || v != v {
                dst[l] = v;
            }
        }),
        ScatterReduce::Amin => lin.iter().zip(vals).for_each(|(&l, &v)| {
            if v < dst[l] || v != v {
                dst[l] = v;
            }
        }),
    }
    Ok(())
}

/// `x` with `value` where `mask` is true: `out[i] = if mask[i] { value } else { x[i] }`
/// over equal-length row-major slices; one pass, split across threads when large.
pub fn masked_fill<T: Element>(x: &[T], mask: &[bool], value: T) -> Result<Vec<T>> {
    if x.len() != mask.len() {
        return Err(Error::value(format!(
            "masked_fill: {} mask entries for {} elements",
            mask.len(),
            x.len()
        )));
    }
    let n = x.len();
    // writes into the reserved capacity (no reallocation, no zero fill first)
    let mut out = crate::storage::try_vec_with_capacity(n)?;
    let fill = |start: usize, c: &mut [std::mem::MaybeUninit<T>]| {
        let end = start + c.len();
        for ((o, &v), &m) in c.iter_mut().zip(&x[start..end]).zip(&mask[start..end]) {
            o.write(if m { value } else { v });
        }
    };
    let spare = &mut out.spare_capacity_mut()[..n];
    if n >= super::PAR_THRESHOLD {
        super::par::for_each_chunk(spare, super::PAR_CHUNK, &fill);
    } else {
        fill(0, spare);
    }
    // SAFETY: every element of 0..n was written above.
    unsafe { out.set_len(n) };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prod_amax_amin_with_and_without_self() {
        let mut d = vec![2.0f64, 3.0, 4.0];
        scatter_reduce(
            &mut d,
            &[0, 0, 2],
            &[5.0, 7.0, -1.0],
            ScatterReduce::Prod,
            true,
            "t",
        )
        .unwrap();
        assert_eq!(d, vec![70.0, 3.0, -4.0]);
        let mut d = vec![2.0f64, 3.0, 4.0];
        scatter_reduce(
            &mut d,
            &[0, 0, 2],
            &[5.0, 7.0, -1.0],
            ScatterReduce::Prod,
            false,
            "t",
        )
        .unwrap();
        assert_eq!(d, vec![35.0, 3.0, -1.0]);
        let mut d = vec![2i64, 3, 4];
        scatter_reduce(&mut d, &[1, 1], &[-5, 1], ScatterReduce::Amax, true, "t").unwrap();
        assert_eq!(d, vec![2, 3, 4]);
        scatter_reduce(&mut d, &[1, 1], &[-5, 1], ScatterReduce::Amax, false, "t").unwrap();
        assert_eq!(d, vec![2, 1, 4]);
        scatter_reduce(&mut d, &[2], &[-9], ScatterReduce::Amin, true, "t").unwrap();
        assert_eq!(d, vec![2, 1, -9]);
    }

    #[test]
    fn fast_linear_indices_match_the_general_ones() {
        let shape = [2, 3, 4];
        for dim in 0..3 {
            let mut ishape = shape;
            ishape[dim] = 5;
            let n: usize = ishape.iter().product();
            let idx: Vec<i64> = (0..n as i64).map(|i| (i * 7) % 3 - 1).collect();
            let wrap = NegIndex::Wrap;
            assert_eq!(
                scatter_linear(&shape, dim, &idx, &ishape, "t", wrap).unwrap(),
                gather_linear(&shape, dim, &idx, &ishape, "t", wrap).unwrap()
            );
            // refusing, both paths name the first negative index (row-major)
            let refuse = NegIndex::Refuse("scatter_add_");
            let first = idx.iter().find(|&&v| v < 0).unwrap();
            for e in [
                scatter_linear(&shape, dim, &idx, &ishape, "t", refuse).unwrap_err(),
                gather_linear(&shape, dim, &idx, &ishape, "t", refuse).unwrap_err(),
            ] {
                let want = format!("scatter_add_: index {first} is out of bounds for dimension");
                assert!(e.message.starts_with(&want), "{}", e.message);
            }
        }
        let e = scatter_linear(&[3], 0, &[0, 3], &[2], "t", NegIndex::Wrap).unwrap_err();
        assert!(e
            .message
            .contains("index 3 is out of bounds for dimension 0 with size 3"));
    }

    #[test]
    fn masked_fill_small_and_large() {
        let x: Vec<f32> = (0..70_000).map(|i| i as f32).collect();
        let m: Vec<bool> = (0..70_000).map(|i| i % 3 == 0).collect();
        let out = masked_fill(&x, &m, -1.0).unwrap();
        assert!(out
            .iter()
            .enumerate()
            .all(|(i, &v)| v == if i % 3 == 0 { -1.0 } else { i as f32 }));
        assert_eq!(
            masked_fill(&x[..4], &m[..4], 9.0).unwrap(),
            vec![9.0, 1.0, 2.0, 9.0]
        );
        assert!(masked_fill(&x[..4], &m[..3], 9.0).is_err());
    }

    #[test]
    fn nan_wins_and_bad_indices_are_errors() {
        let mut d = vec![1.0f32, f32::NAN];
        scatter_reduce(
            &mut d,
            &[0, 1],
            &[f32::NAN, 5.0],
            ScatterReduce::Amax,
            true,
            "t",
        )
        .unwrap();
        assert!(d[0].is_nan() && d[1].is_nan());
        let e = scatter_reduce(&mut d, &[2], &[1.0], ScatterReduce::Amin, true, "t").unwrap_err();
        assert!(e.message.contains("linear index 2"));
        assert!(ScatterReduce::parse("mean", "t").is_err());
        assert_eq!(
            ScatterReduce::parse("multiply", "t").unwrap(),
            ScatterReduce::Prod
        );
    }
}
