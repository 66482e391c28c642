//! Variance and standard deviation of float32/float64 row-major input in one read of
//! memory, threaded when large.
//!
//! The input is seen as `[outer, n, inner]` (the reduced dims are one contiguous run of
//! dims). Each block of about [`BLOCK`] elements is reduced exactly while it sits in
//! cache: its mean (float64 lanes), then the sum of squared deviations from that mean;
//! blocks are then combined with Chan's update
//! (`m2 = m2a + m2b + d² na nb / (na + nb)`, `d = mean_b - mean_a`), which keeps the
//! two-pass accuracy (no `E[x²] - E[x]²` cancellation) without a second pass over
//! memory. Block boundaries depend only on the shape, so the result is the same for any
//! thread count.

use super::arg::{par_for, ColSplit};
use crate::kernels::par::for_each_chunk;

/// Elements per cache-resident block.
const BLOCK: usize = 1 << 14;
/// Output columns per task when the reduced dims are not the innermost (rows of 16 KB
/// float32 are read whole, one sequential stream).
const TILE: usize = 4096;
/// Elements of a cache-resident chunk of rows in the column kernel.
const COL_BLOCK: usize = 1 << 16;
/// Independent float64 accumulators (breaks the add dependency chain).
const LANES: usize = 8;

/// float32 / float64, widened to float64 for the arithmetic.
pub trait VarElem: Copy + Send + Sync + 'static {
    /// The value as float64.
    fn wide(self) -> f64;
    /// A float64 result narrowed to this type.
    fn narrow(v: f64) -> Self;
}

impl VarElem for f32 {
    #[inline(always)]
    fn wide(self) -> f64 {
        self as f64
    }
    fn narrow(v: f64) -> f32 {
        v as f32
    }
}

impl VarElem for f64 {
    #[inline(always)]
    fn wide(self) -> f64 {
        self
    }
    fn narrow(v: f64) -> f64 {
        v
    }
}

/// Count, mean and sum of squared deviations of a set of values.
#[derive(Clone, Copy, Debug)]
struct Stat {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Stat {
    const EMPTY: Stat = Stat {
        n: 0.0,
        mean: 0.0,
        m2: 0.0,
    };

    /// Chan et al.'s combination of the statistics of two disjoint sets.
    #[inline(always)]
    fn merge(self, b: Stat) -> Stat {
        if self.n == 0.0 {
            return b;
        }
        let n = self.n + b.n;
        let d = b.mean - self.mean;
        let f = b.n / n;
        Stat {
            n,
            mean: self.mean + d * f,
            m2: self.m2 + b.m2 + d * d * self.n * f,
        }
    }
}

/// Sum of `f(x)` over a run in float64 lanes.
#[inline(always)]
fn lane_sum<T: VarElem>(x: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = x.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += f(v.wide());
        }
    }
    for (a, &v) in acc.iter_mut().zip(tail) {
        *a += f(v.wide());
    }
    let (lo, hi) = acc.split_at(LANES / 2);
    let mut h: [f64; LANES / 2] = std::array::from_fn(|i| lo[i] + hi[i]);
    h[0] += h[2];
    h[1] += h[3];
    h[0] + h[1]
}

/// Exact two-pass statistics of a short (cache-resident) non-empty run.
fn run_stat<T: VarElem>(x: &[T]) -> Stat {
    let n = x.len() as f64;
    let mean = lane_sum(x, |v| v) / n;
    let m2 = lane_sum(x, |v| (v - mean) * (v - mean));
    Stat { n, mean, m2 }
}

/// Pairwise merge of block statistics, in order.
fn merge_all(s: &[Stat]) -> Stat {
    match s {
        [] => Stat::EMPTY,
        [a] => *a,
        _ => {
            let (l, r) = s.split_at(s.len() / 2);
            merge_all(l).merge(merge_all(r))
        }
    }
}

/// Statistics of a non-empty contiguous run: blocks reduced (in parallel when `par`) and
/// merged pairwise.
fn long_stat<T: VarElem>(x: &[T], par: bool) -> Stat {
    if x.len() <= BLOCK {
        return run_stat(x);
    }
    let mut parts = vec![Stat::EMPTY; x.len().div_ceil(BLOCK)];
    let one = |i: usize, p: &mut [Stat]| {
        p[0] = run_stat(&x[i * BLOCK..((i + 1) * BLOCK).min(x.len())]);
    };
    if par {
        // tasks of several blocks: per-task overhead stays small
        for_each_chunk(&mut parts, 8, &|i, p| {
            for (k, s) in p.iter_mut().enumerate() {
                one(i + k, std::slice::from_mut(s));
            }
        });
    } else {
        (0..parts.len()).for_each(|i| one(i, &mut parts[i..i + 1]));
    }
    merge_all(&parts)
}

/// Count, means and sums of squared deviations of a set of columns.
#[derive(Clone)]
struct Cols {
    n: f64,
    mean: Vec<f64>,
    m2: Vec<f64>,
}

impl Cols {
    /// Chan's update with the later rows `b` (every column has the same count, so this
    /// is a vectorised pass with one division).
    fn merge(&mut self, b: &Cols) {
        let f = b.n / (self.n + b.n);
        let g = self.n * f;
        let cols = self.mean.iter_mut().zip(self.m2.iter_mut());
        for (((m, q), &bm), &bq) in cols.zip(&b.mean).zip(&b.m2) {
            let d = bm - *m;
            *m += d * f;
            *q += bq + d * d * g;
        }
        self.n += b.n;
    }
}

/// Statistics of the `w` columns of rows `x[at + i * inner + j]`, `i` in `rows`
/// (non-empty): chunks of rows that fit a block are reduced exactly in two passes
/// (column means, then squared deviations) and merged in order.
fn column_part<T: VarElem>(
    x: &[T],
    at: usize,
    rows: std::ops::Range<usize>,
    inner: usize,
    w: usize,
) -> Cols {
    let step = (COL_BLOCK / w).max(1);
    let mut acc: Option<Cols> = None;
    let mut c = Cols {
        n: 0.0,
        mean: vec![0.0; w],
        m2: vec![0.0; w],
    };
    for i0 in rows.clone().step_by(step) {
        let r = step.min(rows.end - i0);
        let row = |i: usize| &x[at + (i0 + i) * inner..at + (i0 + i) * inner + w];
        c.mean.fill(0.0);
        c.m2.fill(0.0);
        for i in 0..r {
            c.mean
                .iter_mut()
                .zip(row(i))
                .for_each(|(m, &v)| *m += v.wide());
        }
        c.n = r as f64;
        c.mean.iter_mut().for_each(|m| *m /= r as f64);
        for i in 0..r {
            for ((q, &m), &v) in c.m2.iter_mut().zip(&c.mean).zip(row(i)) {
                let d = v.wide() - m;
                *q += d * d;
            }
        }
        match &mut acc {
            None => acc = Some(c.clone()),
            Some(a) => a.merge(&c),
        }
    }
    acc.expect("a non-empty row range")
}

/// Variance (standard deviation when `sqrt`) over the middle dim of non-empty row-major
/// `x` seen as `[outer, n, inner]`, divided by `max(n - correction, 0)`; `outer * inner`
/// outputs.
pub fn var_dense<T: VarElem>(
    x: &[T],
    n: usize,
    inner: usize,
    correction: f64,
    sqrt: bool,
) -> crate::error::Result<Vec<T>> {
    let outer = x.len() / (n * inner);
    let div = (n as f64 - correction).max(0.0);
    let fin_m2 = |m2: f64| {
        let v = m2 / div;
        T::narrow(if sqrt { v.sqrt() } else { v })
    };
    let fin = |s: Stat| fin_m2(s.m2);
    let par = par_for(x.len());
    let mut out = crate::storage::try_filled_vec(outer * inner, T::narrow(0.0))?;
    if inner == 1 {
        if outer == 1 {
            out[0] = fin(long_stat(x, par));
            return Ok(out);
        }
        let grain = (BLOCK * 4 / n).max(1);
        let rows = |c: usize, o: &mut [T]| {
            for (k, r) in o.iter_mut().enumerate() {
                let at = (c + k) * n;
                *r = fin(long_stat(&x[at..at + n], false));
            }
        };
        if par {
            for_each_chunk(&mut out, grain, &rows);
        } else {
            out.chunks_mut(grain)
                .enumerate()
                .for_each(|(i, o)| rows(i * grain, o));
        }
        return Ok(out);
    }
    // tasks of (outer index, column tile, row range), merged in order per unit
    let split = ColSplit::new(outer, n, inner, TILE);
    let parts = split.run(par, &|t| {
        let (at, w, rows) = split.task(t);
        column_part(x, at, rows, inner, w)
    });
    for (u, unit) in parts.chunks(split.parts).enumerate() {
        let mut c = unit[0].clone();
        unit[1..].iter().for_each(|b| c.merge(b));
        let o = split.out_at(u);
        for (r, &q) in out[o..o + c.m2.len()].iter_mut().zip(&c.m2) {
            *r = fin_m2(q);
        }
    }
    Ok(out)
}
