//! Scans along one dimension: cumulative sum / product, log-cumsum-exp, and running
//! max / min with their indices. Inputs are contiguous buffers seen as `[outer, n, inner]`
//! (the scanned dimension in the middle); outputs have the same shape.
//!
//! Lines are independent, so outer blocks run on rayon threads once the tensor is large;
//! a block with `inner > 1` is scanned a whole `inner` row at a time (vectorisable).

use super::par::{for_each_chunk, for_each_chunk2};
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

/// A tensor of `shape` seen as `[outer, n, inner]` around dimension `dim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lines {
    /// Product of the dimensions before `dim`.
    pub outer: usize,
    /// Length of `dim`.
    pub n: usize,
    /// Product of the dimensions after `dim`.
    pub inner: usize,
}

impl Lines {
    /// The `[outer, n, inner]` view of `shape` around `dim` (`dim < shape.len()`, or a 0-d
    /// shape seen as one line of one element).
    pub fn of(shape: &[usize], dim: usize) -> Lines {
        if shape.is_empty() {
            return Lines {
                outer: 1,
                n: 1,
                inner: 1,
            };
        }
        Lines {
            outer: shape[..dim].iter().product(),
            n: shape[dim],
            inner: shape[dim + 1..].iter().product(),
        }
    }

    /// Elements in one outer block (`n * inner`).
    pub fn block(&self) -> usize {
        self.n * self.inner
    }

    /// Total element count.
    pub fn numel(&self) -> usize {
        self.outer * self.block()
    }
}

/// Element count from which outer blocks are scanned in parallel.
const PAR_MIN: usize = 1 << 15;

/// A running accumulation: `acc = step(acc, x)`, stored as `out = store(acc)`.
/// `A` is the accumulator type (e.g. f64 for f32 inputs), `T` the element type.
pub trait Accum<T>: Sync {
    /// The accumulator type.
    type A: Copy;
    /// The accumulator after the first element `x`.
    fn first(&self, x: T) -> Self::A;
    /// The accumulator after adding `x` to `acc`.
    fn step(&self, acc: Self::A, x: T) -> Self::A;
    /// The stored output for accumulator `acc`.
    fn store(&self, acc: Self::A) -> T;
}

/// Runs `op` along every line of `src` (forward, or from the end when `reverse`).
pub fn scan<T, F>(src: &[T], lines: Lines, reverse: bool, op: &F) -> Result<Vec<T>>
where
    T: Copy + Default + Send + Sync,
    F: Accum<T>,
{
    let total = lines.numel();
    if src.len() != total {
        return Err(Error::runtime("internal: scan input length mismatch"));
    }
    let mut out = try_filled_vec(total, T::default())?;
    if total == 0 {
        return Ok(out);
    }
    let block = lines.block();
    let run = |(src_b, out_b): (&[T], &mut [T])| scan_block(src_b, out_b, lines, reverse, op);
    if total >= PAR_MIN && lines.outer > 1 {
        for_each_chunk(&mut out, block, &|start, out_b| {
            run((&src[start..start + out_b.len()], out_b))
        });
    } else {
        src.chunks(block).zip(out.chunks_mut(block)).for_each(run);
    }
    Ok(out)
}

/// One outer block: `n` rows of `inner` elements.
fn scan_block<T: Copy, F: Accum<T>>(src: &[T], out: &mut [T], l: Lines, reverse: bool, op: &F) {
    let (n, inner) = (l.n, l.inner);
    if inner == 1 {
        if reverse {
            let mut acc = op.first(src[n - 1]);
            out[n - 1] = op.store(acc);
            for i in (0..n - 1).rev() {
                acc = op.step(acc, src[i]);
                out[i] = op.store(acc);
            }
        } else {
            let mut acc = op.first(src[0]);
            out[0] = op.store(acc);
            for i in 1..n {
                acc = op.step(acc, src[i]);
                out[i] = op.store(acc);
            }
        }
        return;
    }
    // row-at-a-time: the accumulators of a whole row live in `accs`
    let order: Vec<usize> = if reverse {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    let first = order[0];
    let mut accs: Vec<F::A> = src[first * inner..(first + 1) * inner]
        .iter()
        .map(|&x| op.first(x))
        .collect();
    for (o, &a) in out[first * inner..(first + 1) * inner]
        .iter_mut()
        .zip(&accs)
    {
        *o = op.store(a);
    }
    for &i in &order[1..] {
        let row = &src[i * inner..(i + 1) * inner];
        let orow = &mut out[i * inner..(i + 1) * inner];
        for ((a, &x), o) in accs.iter_mut().zip(row).zip(orow.iter_mut()) {
            *a = op.step(*a, x);
            *o = op.store(*a);
        }
    }
}

/// Cumulative sum with an accumulator of type `A` (f64 for f32: fewer rounding errors at
/// the same memory traffic); its `Accum` impls, one per [`SumElem`] type, are in
/// `scan_blocked`, which also holds the blocked scan for long lines.
///
/// [`SumElem`]: super::scan_blocked::SumElem
pub struct CumSum;
/// Cumulative product.
pub struct CumProd;
/// `log(cumsum(exp(x)))` computed stably (a running log-add-exp).
pub struct LogCumSumExp;

macro_rules! float_accums {
    ($t:ty, $a:ty) => {
        impl Accum<$t> for CumProd {
            type A = $a;
            #[inline(always)]
            fn first(&self, x: $t) -> $a {
                x as $a
            }
            #[inline(always)]
            fn step(&self, acc: $a, x: $t) -> $a {
                acc * x as $a
            }
            #[inline(always)]
            fn store(&self, acc: $a) -> $t {
                acc as $t
            }
        }
        impl Accum<$t> for LogCumSumExp {
            type A = $a;
            #[inline(always)]
            fn first(&self, x: $t) -> $a {
                x as $a
            }
            #[inline(always)]
            fn step(&self, acc: $a, x: $t) -> $a {
                let x = x as $a;
                let (hi, lo) = if acc >= x { (acc, x) } else { (x, acc) };
                if hi.is_nan() || lo.is_nan() {
                    <$a>::NAN
                } else if lo == <$a>::NEG_INFINITY || hi == <$a>::INFINITY {
                    // -inf adds nothing (also -inf + -inf), +inf absorbs everything (also
                    // inf + inf): no inf - inf = NaN below
                    hi
                } else {
                    hi + (lo - hi).exp().ln_1p()
                }
            }
            #[inline(always)]
            fn store(&self, acc: $a) -> $t {
                acc as $t
            }
        }
    };
}
float_accums!(f32, f64);
float_accums!(f64, f64);

impl Accum<i64> for CumProd {
    type A = i64;
    #[inline(always)]
    fn first(&self, x: i64) -> i64 {
        x
    }
    #[inline(always)]
    fn step(&self, acc: i64, x: i64) -> i64 {
        acc.wrapping_mul(x)
    }
    #[inline(always)]
    fn store(&self, acc: i64) -> i64 {
        acc
    }
}

/// An element with the order running max / min use: NaN wins (it propagates, as in
/// PyTorch and NumPy's `maximum.accumulate`).
pub trait RunningOrd: Copy + Send + Sync + Default {
    /// Whether `x` replaces the running extreme `cur` (ties replace: the last index wins).
    fn replaces(x: Self, cur: Self, is_max: bool) -> bool;
}

macro_rules! running_ord_float {
    ($t:ty) => {
        impl RunningOrd for $t {
            #[inline(always)]
            fn replaces(x: $t, cur: $t, is_max: bool) -> bool {
                x.is_nan() || (if is_max { x >= cur } else { x <= cur })
            }
        }
    };
}
macro_rules! running_ord_int {
    ($t:ty) => {
        impl RunningOrd for $t {
            #[inline(always)]
            fn replaces(x: $t, cur: $t, is_max: bool) -> bool {
                if is_max {
                    x >= cur
                } else {
                    x <= cur
                }
            }
        }
    };
}
running_ord_float!(f32);
running_ord_float!(f64);
running_ord_int!(i32);
running_ord_int!(i64);

/// Running max (`is_max`) or min along every line: `(values, indices)` where `indices`
/// is the position along the line of the element each value came from.
pub fn cum_extreme<T: RunningOrd>(
    src: &[T],
    lines: Lines,
    is_max: bool,
) -> Result<(Vec<T>, Vec<i64>)> {
    let total = lines.numel();
    if src.len() != total {
        return Err(Error::runtime("internal: cummax input length mismatch"));
    }
    let mut vals = try_filled_vec(total, T::default())?;
    let mut idx = try_filled_vec(total, 0i64)?;
    if total == 0 {
        return Ok((vals, idx));
    }
    let (n, inner) = (lines.n, lines.inner);
    let block = lines.block();
    let run = |((s, v), ix): ((&[T], &mut [T]), &mut [i64])| {
        for j in 0..inner {
            let mut cur = s[j];
            let mut at = 0i64;
            for i in 0..n {
                let x = s[i * inner + j];
                if i == 0 || T::replaces(x, cur, is_max) {
                    cur = x;
                    at = i as i64;
                }
                v[i * inner + j] = cur;
                ix[i * inner + j] = at;
            }
        }
    };
    if total >= PAR_MIN && lines.outer > 1 {
        for_each_chunk2(&mut vals, &mut idx, block, &|start, v, ix| {
            run(((&src[start..start + v.len()], v), ix))
        });
    } else {
        src.chunks(block)
            .zip(vals.chunks_mut(block))
            .zip(idx.chunks_mut(block))
            .for_each(run);
    }
    Ok((vals, idx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumsum_forward_and_reverse() {
        let l = Lines::of(&[2, 3], 1);
        let x = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(
            scan(&x, l, false, &CumSum).unwrap(),
            vec![1.0, 3.0, 6.0, 4.0, 9.0, 15.0]
        );
        assert_eq!(
            scan(&x, l, true, &CumSum).unwrap(),
            vec![6.0, 5.0, 3.0, 15.0, 11.0, 6.0]
        );
        let l0 = Lines::of(&[2, 3], 0);
        assert_eq!(
            scan(&x, l0, false, &CumSum).unwrap(),
            vec![1.0, 2.0, 3.0, 5.0, 7.0, 9.0]
        );
    }

    #[test]
    fn logcumsumexp_handles_minus_infinity() {
        let l = Lines::of(&[3], 0);
        let x = [f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0];
        let y = scan(&x, l, false, &LogCumSumExp).unwrap();
        assert_eq!(y[0], f64::NEG_INFINITY);
        assert_eq!(y[1], f64::NEG_INFINITY);
        assert_eq!(y[2], 0.0);
    }

    #[test]
    fn logcumsumexp_of_plus_infinities_is_plus_infinity() {
        let l = Lines::of(&[4], 0);
        let x = [1.0, f64::INFINITY, f64::INFINITY, 2.0];
        let y = scan(&x, l, false, &LogCumSumExp).unwrap();
        assert_eq!(y, vec![1.0, f64::INFINITY, f64::INFINITY, f64::INFINITY]);
    }

    #[test]
    fn cummax_ties_take_the_last_index_and_nan_sticks() {
        let l = Lines::of(&[5], 0);
        let x = [1.0f32, 1.0, 0.0, f32::NAN, 2.0];
        let (v, i) = cum_extreme(&x, l, true).unwrap();
        assert_eq!(i, vec![0, 1, 1, 3, 3]);
        assert!(v[4].is_nan());
    }
}
