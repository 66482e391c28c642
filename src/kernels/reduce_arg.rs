//! Fast paths of argmax / argmin on row-major (contiguous) input, threaded when large.
//!
//! * Over a contiguous run (the last dim, or the whole tensor): the extremum first, with
//!   the vectorised lane fold of `max`/`min` (NaN propagates), then the first index that
//!   holds it (the first NaN when it is NaN). That index is exactly the one the serial
//!   "strictly better replaces" scan returns, ties included (`-0.0 == 0.0` is a tie).
//!   The whole tensor is cut into blocks whose extrema are found in parallel; only the
//!   first block holding the overall extremum is searched.
//! * Over a dim with a contiguous inner part (dim 0, a middle dim): a tile of running
//!   best values and indices is updated by whole input rows with branch-free selects, so
//!   memory is read sequentially and the loop vectorises.

use super::loops::{lanes, PAR_MIN};
use super::{is_nan, Extremum, ReduceElem};
use crate::kernels::par::for_each_chunk;

/// Elements per block of the whole-tensor search.
const BLOCK: usize = 1 << 16;
/// Output columns per task of the strided (inner > 1) kernel.
const TILE: usize = 1024;

/// `x` is strictly better than `b` (NaN beats every number, and a later NaN does not
/// beat an earlier one): the rule that makes the first occurrence win.
#[inline(always)]
fn better<T: ReduceElem, const MAX: bool>(x: T, b: T) -> bool {
    let beyond = if MAX {
        x.key() > b.key()
    } else {
        x.key() < b.key()
    };
    beyond | (is_nan(x) & !is_nan(b))
}

/// The max (min) of a non-empty run; NaN propagates.
#[inline]
fn extremum<T: ReduceElem, const MAX: bool>(x: &[T]) -> T {
    lanes::<T, Extremum<MAX>>(x)
}

/// The first index of `x` holding `best` (the first NaN when `best` is NaN).
fn first_at<T: ReduceElem>(x: &[T], best: T) -> Option<usize> {
    if is_nan(best) {
        first_where(x, |v| is_nan(v))
    } else {
        first_where(x, |v| v.key() == best.key())
    }
}

/// The first index where `hit` holds: whole 16-element chunks are tested branch-free (a
/// vectorised compare and or), then the chunk with a hit is searched.
#[inline(always)]
fn first_where<T: ReduceElem>(x: &[T], hit: impl Fn(T) -> bool) -> Option<usize> {
    let chunks = x.chunks_exact(16);
    let tail_at = x.len() - chunks.remainder().len();
    for (c, vals) in chunks.enumerate() {
        if vals.iter().fold(false, |a, &v| a | hit(v)) {
            return vals.iter().position(|&v| hit(v)).map(|p| c * 16 + p);
        }
    }
    x[tail_at..]
        .iter()
        .position(|&v| hit(v))
        .map(|p| tail_at + p)
}

/// Index of the first max (min) of a non-empty contiguous run.
fn arg_run<T: ReduceElem, const MAX: bool>(x: &[T]) -> i64 {
    first_at(x, extremum::<T, MAX>(x)).unwrap_or(0) as i64
}

/// Argmax (argmin) of a non-empty contiguous run, blocked and threaded when `par`.
pub(super) fn arg_all<T: ReduceElem, const MAX: bool>(x: &[T], par: bool) -> i64 {
    let mut ext: Vec<T> = x.chunks(BLOCK).map(|b| b[0]).collect();
    let one = |i: usize, e: &mut [T]| {
        e[0] = extremum::<T, MAX>(&x[i * BLOCK..((i + 1) * BLOCK).min(x.len())]);
    };
    if par {
        for_each_chunk(&mut ext, 1, &one);
    } else {
        (0..ext.len()).for_each(|i| one(i, &mut ext[i..i + 1]));
    }
    let best = extremum::<T, MAX>(&ext);
    // the first block whose extremum is the overall one holds its first occurrence
    let blk = first_at(&ext, best).unwrap_or(0);
    let start = blk * BLOCK;
    let block = &x[start..(start + BLOCK).min(x.len())];
    (start + first_at(block, best).unwrap_or(0)) as i64
}

/// Argmax (argmin) over the middle dim of contiguous `x` seen as `[outer, n, inner]`
/// (`n >= 1`), into `out` of `outer * inner` elements.
pub(super) fn arg_dim<T: ReduceElem, const MAX: bool>(
    x: &[T],
    n: usize,
    inner: usize,
    out: &mut [i64],
    par: bool,
) {
    if inner == 1 {
        // rows of n: a task per ~64K elements read
        let grain = ((1 << 16) / n).max(1);
        let rows = |c: usize, o: &mut [i64]| {
            for (k, r) in o.iter_mut().enumerate() {
                let at = (c + k) * n;
                *r = arg_run::<T, MAX>(&x[at..at + n]);
            }
        };
        if par {
            for_each_chunk(out, grain, &rows);
        } else {
            out.chunks_mut(grain)
                .enumerate()
                .for_each(|(i, o)| rows(i * grain, o));
        }
        return;
    }
    // one task per (outer index, tile of inner columns); indices of the element's width
    // (u32 for 4-byte types) keep the compare-and-select loop in one vector shape
    let narrow = std::mem::size_of::<T>() == 4 && n <= u32::MAX as usize;
    let tile = |o: usize, j0: usize, idx: &mut [i64]| {
        let at = o * n * inner + j0;
        if narrow {
            best_rows::<T, u32, MAX>(x, at, n, inner, idx, |i| i as u32);
        } else {
            best_rows::<T, u64, MAX>(x, at, n, inner, idx, |i| i as u64);
        }
    };
    let row = |start: usize, r: &mut [i64]| {
        let o = start / inner;
        if par && inner > TILE {
            for_each_chunk(r, TILE, &|j0, c| tile(o, j0, c));
        } else {
            r.chunks_mut(TILE)
                .enumerate()
                .for_each(|(t, c)| tile(o, t * TILE, c));
        }
    };
    if par {
        for_each_chunk(out, inner, &row);
    } else {
        out.chunks_mut(inner)
            .enumerate()
            .for_each(|(o, r)| row(o * inner, r));
    }
}

/// For each column `j < idx.len()`, the first row `i < n` of the best
/// `x[at + i * inner + j]`, by running best values and indices (type `I`) updated with
/// branch-free selects one whole row at a time.
fn best_rows<T: ReduceElem, I: Copy + Into<u64>, const MAX: bool>(
    x: &[T],
    at: usize,
    n: usize,
    inner: usize,
    idx: &mut [i64],
    index: impl Fn(usize) -> I,
) {
    let w = idx.len();
    let mut best: Vec<T> = x[at..at + w].to_vec();
    let mut k: Vec<I> = vec![index(0); w];
    for i in 1..n {
        let row = &x[at + i * inner..at + i * inner + w];
        let iv = index(i);
        for ((b, k), &v) in best.iter_mut().zip(k.iter_mut()).zip(row) {
            let t = better::<T, MAX>(v, *b);
            *b = if t { v } else { *b };
            *k = if t { iv } else { *k };
        }
    }
    for (o, &k) in idx.iter_mut().zip(&k) {
        *o = k.into() as i64;
    }
}

/// Whether a reduction reading `n` elements runs threaded.
pub(super) fn par_for(n: usize) -> bool {
    n >= PAR_MIN && crate::interrupt::parallel_allowed()
}
