//! Cumulative sum along long lines as a blocked scan (issue 23).
//!
//! The serial scan of [`super::scan`] adds one element per step to one accumulator, so a
//! long line runs at the latency of a dependent add (4 cycles for f64 on x86), on one
//! core. Here a line is cut into segments of [`SEG`] elements:
//! 1. each segment's total is summed with several independent accumulators (at
//!    throughput: vectorised, memory-bound);
//! 2. the segment offsets are the running sum of those totals (a short serial loop);
//! 3. [`LANES`] consecutive segments (a *group*) are scanned together, each from its
//!    offset, as independent interleaved chains.
//!
//! Passes 1 and 3 run on the rayon pool for a long line. Segments are fixed in the line
//! (whole segments from its physical start, the elements after the last whole group
//! scanned serially), so the result does not depend on the thread count. Floats differ
//! from the serial scan only by the association of the accumulator (f64) additions; the
//! accumulators start from -0.0, the exact identity of IEEE addition, so a line of -0.0
//! still sums to -0.0 and NaN / inf propagate as in the serial scan. Integers wrap, and
//! wrapping addition is associative, so their result is bit-identical to the serial one.

use super::par::{build_blocks, for_each_chunk};
use super::scan::{scan, Accum, CumSum, Lines};
use crate::error::Result;
use crate::storage::try_filled_vec;

/// Elements per segment (one chain of pass 3).
pub const SEG: usize = 512;
/// Segments scanned together in pass 3: independent add chains in flight at once.
pub const LANES: usize = 8;
/// Elements per group of [`LANES`] segments.
pub const GROUP: usize = SEG * LANES;
/// Line length from which the blocked scan is used (shorter lines: the serial scan).
pub const BLOCKED_MIN: usize = GROUP;
/// Line length from which one line's passes run on the rayon pool.
const PAR_LINE_MIN: usize = 1 << 16;
/// Element count from which whole lines are scanned in parallel (as in the serial scan).
const PAR_MIN: usize = 1 << 15;
/// Elements per pool task (a whole number of groups).
const TASK: usize = 32 * GROUP;

/// An element whose cumulative sum may be computed in segments: `A` is the accumulator
/// (f64 for f32, wrapping i64 for i64) and `add` is associative up to float rounding.
pub trait SumElem: Copy + Default + Send + Sync {
    /// The accumulator type.
    type A: Copy + Send + Sync;
    /// The identity of `add` (-0.0 for floats: `-0.0 + x` is `x` bit for bit).
    const ZERO: Self::A;
    /// `x` as an accumulator.
    fn widen(self) -> Self::A;
    /// The sum of two accumulators.
    fn add(a: Self::A, b: Self::A) -> Self::A;
    /// The stored output for accumulator `a`.
    fn narrow(a: Self::A) -> Self;
}

macro_rules! float_sum {
    ($t:ty) => {
        impl SumElem for $t {
            type A = f64;
            const ZERO: f64 = -0.0;
            #[inline(always)]
            fn widen(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn add(a: f64, b: f64) -> f64 {
                a + b
            }
            #[inline(always)]
            fn narrow(a: f64) -> $t {
                a as $t
            }
        }
    };
}
float_sum!(f32);
float_sum!(f64);

impl SumElem for i64 {
    type A = i64;
    const ZERO: i64 = 0;
    #[inline(always)]
    fn widen(self) -> i64 {
        self
    }
    #[inline(always)]
    fn add(a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn narrow(a: i64) -> i64 {
        a
    }
}

impl<T: SumElem> Accum<T> for CumSum {
    type A = T::A;
    #[inline(always)]
    fn first(&self, x: T) -> T::A {
        x.widen()
    }
    #[inline(always)]
    fn step(&self, acc: T::A, x: T) -> T::A {
        T::add(acc, x.widen())
    }
    #[inline(always)]
    fn store(&self, acc: T::A) -> T {
        T::narrow(acc)
    }
}

/// Cumulative sum along every line of `src` (from the end when `reverse`): blocked on
/// lines of at least [`BLOCKED_MIN`] elements, otherwise the serial [`scan`].
pub fn cumsum<T: SumElem>(src: &[T], lines: Lines, reverse: bool) -> Result<Vec<T>> {
    if lines.inner != 1 || lines.n < BLOCKED_MIN || src.len() != lines.numel() {
        return scan(src, lines, reverse, &CumSum);
    }
    let n = lines.n;
    if lines.outer == 1 {
        // one line: both passes on the pool, the output written by the tasks as it is
        // zeroed (no serial zero-fill of the whole output first)
        let par = n >= PAR_LINE_MIN;
        let plan = Plan::new(src, reverse, par);
        let (out, _) = build_blocks(n, n.div_ceil(TASK), TASK, T::default(), par, &|i, f| {
            write_range(src, f.next(TASK), i * TASK, &plan, reverse);
            Ok(())
        })?;
        return Ok(out);
    }
    let mut out = try_filled_vec(src.len(), T::default())?;
    let line = |start: usize, o: &mut [T]| {
        let s = &src[start..start + n];
        write_range(s, o, 0, &Plan::new(s, reverse, false), reverse);
    };
    if src.len() >= PAR_MIN {
        for_each_chunk(&mut out, n, &line);
    } else {
        out.chunks_mut(n)
            .enumerate()
            .for_each(|(i, o)| line(i * n, o));
    }
    Ok(out)
}

/// The offsets of one line: where each whole segment's chain starts, and where the rest
/// (the elements after the last whole group) starts.
struct Plan<A> {
    /// `off[k]`: the accumulator before segment `k` (in scan order).
    off: Vec<A>,
    /// The accumulator before the rest (forward; in reverse the rest comes first and
    /// starts from the identity).
    rest: A,
}

impl<A: Copy + Send + Sync> Plan<A> {
    /// Passes 1 and 2 over `src` (on the pool when `par`).
    fn new<T: SumElem<A = A>>(src: &[T], reverse: bool, par: bool) -> Plan<A> {
        let body = src.len() / GROUP * GROUP;
        let mut off = vec![T::ZERO; body / SEG];
        let totals = |first: usize, t: &mut [A]| {
            for (k, t) in t.iter_mut().enumerate() {
                let s = (first + k) * SEG;
                *t = total(&src[s..s + SEG]);
            }
        };
        let per_task = TASK / SEG;
        if par {
            for_each_chunk(&mut off, per_task, &totals);
        } else {
            totals(0, &mut off);
        }
        // the running sum of the totals, in scan order
        let mut acc = T::ZERO;
        if reverse {
            acc = T::add(acc, total(&src[body..]));
            for o in off.iter_mut().rev() {
                let t = *o;
                *o = acc;
                acc = T::add(acc, t);
            }
        } else {
            for o in off.iter_mut() {
                let t = *o;
                *o = acc;
                acc = T::add(acc, t);
            }
        }
        Plan { off, rest: acc }
    }
}

/// The sum of `x` with independent accumulators (vectorisable), combined in a fixed order.
fn total<T: SumElem>(x: &[T]) -> T::A {
    const K: usize = 16;
    let mut a = [T::ZERO; K];
    let mut chunks = x.chunks_exact(K);
    for c in &mut chunks {
        for j in 0..K {
            a[j] = T::add(a[j], c[j].widen());
        }
    }
    let mut width = K;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            a[j] = T::add(a[j], a[j + width]);
        }
    }
    chunks
        .remainder()
        .iter()
        .fold(a[0], |s, &v| T::add(s, v.widen()))
}

/// Pass 3 for the elements `start..start + out.len()` of the line `src` (`start` a
/// multiple of [`GROUP`]): whole groups with their segments' offsets, then the rest.
fn write_range<T: SumElem>(src: &[T], out: &mut [T], start: usize, plan: &Plan<T::A>, rev: bool) {
    let body = plan.off.len() * SEG;
    let src = &src[start..start + out.len()];
    let groups = (body.saturating_sub(start) / GROUP).min(out.len() / GROUP);
    let (og, orest) = out.split_at_mut(groups * GROUP);
    let (sg, srest) = src.split_at(groups * GROUP);
    for (q, (s, o)) in sg
        .chunks_exact(GROUP)
        .zip(og.chunks_exact_mut(GROUP))
        .enumerate()
    {
        let k = (start + q * GROUP) / SEG;
        let off: &[T::A; LANES] = plan.off[k..k + LANES]
            .try_into()
            .expect("a group has LANES segments");
        if rev {
            group::<T, true>(s, o, off);
        } else {
            group::<T, false>(s, o, off);
        }
    }
    if orest.is_empty() {
        return;
    }
    // the rest: after the body in scan order (forward), or before it (reverse)
    let mut acc = if rev { T::ZERO } else { plan.rest };
    if rev {
        for (o, &x) in orest.iter_mut().zip(srest).rev() {
            acc = T::add(acc, x.widen());
            *o = T::narrow(acc);
        }
    } else {
        for (o, &x) in orest.iter_mut().zip(srest) {
            acc = T::add(acc, x.widen());
            *o = T::narrow(acc);
        }
    }
}

/// Scans the [`LANES`] segments of one group (`src`, `out`: [`GROUP`] elements) as
/// interleaved chains, segment `j` starting from `off[j]` (from its end when `REV`).
#[inline(always)]
fn group<T: SumElem, const REV: bool>(src: &[T], out: &mut [T], off: &[T::A; LANES]) {
    let (src, out) = (&src[..GROUP], &mut out[..GROUP]);
    let mut acc = *off;
    for i in 0..SEG {
        let i = if REV { SEG - 1 - i } else { i };
        for (j, a) in acc.iter_mut().enumerate() {
            let p = j * SEG + i;
            *a = T::add(*a, src[p].widen());
            out[p] = T::narrow(*a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line lengths around every threshold and segment boundary.
    fn lengths() -> Vec<usize> {
        let mut v = vec![1, SEG - 1, SEG, SEG + 1, GROUP - 1, GROUP, GROUP + 1];
        v.extend([GROUP + SEG, 2 * GROUP - 1, 3 * GROUP + 7, TASK - 1, TASK]);
        v.extend([
            TASK + GROUP + 3,
            PAR_LINE_MIN + 1,
            2 * TASK + 5,
            (1 << 20) + 3,
        ]);
        v
    }

    /// A deterministic pseudo-random sequence (no rand dependency in unit tests).
    fn noise(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
            .collect()
    }

    #[test]
    fn integers_match_the_serial_scan_bit_for_bit() {
        // large values so that the sums wrap around many times
        for n in lengths() {
            let x: Vec<i64> = noise(n, n as u64).into_iter().map(|v| v as i64).collect();
            for rev in [false, true] {
                let l = Lines::of(&[n], 0);
                let want = scan(&x, l, rev, &CumSum).unwrap();
                assert_eq!(cumsum(&x, l, rev).unwrap(), want, "n = {n}, reverse {rev}");
            }
        }
    }

    #[test]
    fn floats_match_the_serial_scan_up_to_association() {
        for n in lengths() {
            let x: Vec<f64> = noise(n, 7 + n as u64)
                .into_iter()
                .map(|v| (v >> 11) as f64 / (1u64 << 53) as f64 - 0.25)
                .collect();
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            for rev in [false, true] {
                let l = Lines::of(&[n], 0);
                let want = scan(&x, l, rev, &CumSum).unwrap();
                let got = cumsum(&x, l, rev).unwrap();
                let want32 = scan(&x32, l, rev, &CumSum).unwrap();
                let got32 = cumsum(&x32, l, rev).unwrap();
                // the running magnitude bounds the error of either association
                let mut mag = 0.0f64;
                let order: Vec<usize> = if rev {
                    (0..n).rev().collect()
                } else {
                    (0..n).collect()
                };
                for &i in &order {
                    mag += x[i].abs();
                    let tol = 1e-12 * mag.max(1.0);
                    assert!(
                        (got[i] - want[i]).abs() <= tol,
                        "f64 n {n} rev {rev} at {i}"
                    );
                    let d = (got32[i] as f64 - want32[i] as f64).abs();
                    assert!(d <= 1e-6 * mag.max(1.0), "f32 n {n} rev {rev} at {i}");
                }
            }
        }
    }

    #[test]
    fn several_lines_negative_zero_nan_and_inf() {
        // 3 lines of GROUP + 5: each line blocked, all lines in one call
        let n = GROUP + 5;
        let x: Vec<i64> = noise(3 * n, 3).into_iter().map(|v| v as i64).collect();
        let l = Lines::of(&[3, n], 1);
        for rev in [false, true] {
            assert_eq!(
                cumsum(&x, l, rev).unwrap(),
                scan(&x, l, rev, &CumSum).unwrap()
            );
        }
        // a line of -0.0 sums to -0.0 everywhere, as the serial scan does
        let z = vec![-0.0f32; 2 * GROUP + 1];
        for rev in [false, true] {
            let y = cumsum(&z, Lines::of(&[z.len()], 0), rev).unwrap();
            assert!(y.iter().all(|v| *v == 0.0 && v.is_sign_negative()));
        }
        // +inf from its position on, NaN after a later -inf, in either direction
        let mut w = vec![1.0f32; 3 * GROUP];
        w[GROUP + 3] = f32::INFINITY;
        w[2 * GROUP + 100] = f32::NEG_INFINITY;
        let l = Lines::of(&[w.len()], 0);
        for rev in [false, true] {
            let got = cumsum(&w, l, rev).unwrap();
            let want = scan(&w, l, rev, &CumSum).unwrap();
            for (i, (g, e)) in got.iter().zip(&want).enumerate() {
                let same = (g.is_nan() && e.is_nan()) || g == e;
                assert!(same, "rev {rev} at {i}: {g} vs {e}");
            }
        }
    }

    #[test]
    fn short_lines_and_inner_rows_take_the_serial_scan() {
        let x: Vec<f64> = (0..12).map(f64::from).collect();
        let l = Lines::of(&[3, 4], 0);
        assert_eq!(
            cumsum(&x, l, true).unwrap(),
            scan(&x, l, true, &CumSum).unwrap()
        );
        assert!(cumsum(&x, Lines::of(&[5], 0), false).is_err());
        assert!(cumsum::<f32>(&[], Lines::of(&[0], 0), false)
            .unwrap()
            .is_empty());
    }
}
