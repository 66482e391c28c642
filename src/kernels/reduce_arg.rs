//! argmax / argmin ([`arg_reduce`]): the strided fallback, and the fast paths on row-major
//! (contiguous) input, threaded when large.
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

use super::loops::{lanes, reduced_shape, PAR_MIN};
use super::{
    beyond, check_args, empty_err, is_nan, unordered_err, Extremum, ReduceElem, ReduceKind,
};
use crate::error::{Error, Result};
use crate::kernels::par::for_each_chunk;
use crate::layout::Layout;
use crate::storage::{try_filled_vec, try_vec_with_capacity};

/// ArgMax/ArgMin over ONE axis (or over the flattened tensor when `axis` is None), returning
/// i64 indices; the first occurrence wins on ties; NaN counts as the maximum (and minimum)
/// like torch; an empty reduction is an error.
pub fn arg_reduce<T: ReduceElem>(
    kind: ReduceKind,
    src: &[T],
    layout: &Layout,
    axis: Option<usize>,
) -> Result<Vec<i64>> {
    let (op, is_max) = (kind.name(), kind == ReduceKind::ArgMax);
    if !matches!(kind, ReduceKind::ArgMax | ReduceKind::ArgMin) {
        return Err(Error::value(format!(
            "arg_reduce: '{op}' is not argmax/argmin"
        )));
    }
    if !T::ORDERED {
        return Err(unordered_err::<T>(op));
    }
    let axis = axis.filter(|_| layout.ndim() > 0); // dim 0 of a 0-d tensor: the flat form
    check_args(op, src, layout, axis.as_slice())?;
    // Strictly better only, so the first occurrence wins; a NaN beats every number.
    let better = |x: T, b: T| beyond(is_max, x, b) || (is_nan(x) && !is_nan(b));
    // row-major input: the vectorised, threaded kernels of `reduce_arg.rs`
    let n_all = layout.numel();
    let dense =
        (layout.is_contiguous() && n_all > 0).then(|| &src[layout.offset..layout.offset + n_all]);
    let Some(ax) = axis else {
        if let Some(x) = dense {
            let par = par_for(n_all);
            let i = if is_max {
                arg_all::<T, true>(x, par)
            } else {
                arg_all::<T, false>(x, par)
            };
            return Ok(vec![i]);
        }
        if layout.numel() == 0 {
            return Err(empty_err(op, layout));
        }
        let (mut best, mut idx, mut pos) = (src[layout.offset], 0, 0);
        layout.for_each_row(|b, s, len| {
            for v in (0..len as isize).map(|i| src[(b + i * s) as usize]) {
                if better(v, best) {
                    (best, idx) = (v, pos);
                }
                pos += 1;
            }
        });
        return Ok(vec![idx]);
    };
    let out_n: usize = reduced_shape(&layout.shape, &[ax]).iter().product();
    let (nd, n) = (layout.ndim(), layout.shape[ax]);
    if out_n == 0 {
        return Ok(Vec::new());
    } else if n == 0 {
        return Err(empty_err(op, layout));
    }
    if let Some(x) = dense {
        let inner: usize = layout.shape[ax + 1..].iter().product();
        let mut out = try_filled_vec(out_n, 0i64)?;
        let par = par_for(n_all);
        if is_max {
            arg_dim::<T, true>(x, n, inner, &mut out, par);
        } else {
            arg_dim::<T, false>(x, n, inner, &mut out, par);
        }
        return Ok(out);
    }
    let perm: Vec<usize> = (0..nd).filter(|&d| d != ax).chain([ax]).collect();
    let moved = layout.permute(&perm)?;
    let s = moved.strides[nd - 1];
    let mut out = try_vec_with_capacity(out_n)?;
    moved.select(nd - 1, 0).for_each_row(|b, ks, len| {
        let at = |i: usize, j: usize| src[(b + i as isize * s + j as isize * ks) as usize];
        let start = out.len();
        out.resize(start + len, 0i64);
        let idx = &mut out[start..];
        if ks.abs() >= s.abs() {
            for (j, o) in idx.iter_mut().enumerate() {
                let mut best = at(0, j);
                for i in 1..n {
                    if better(at(i, j), best) {
                        (best, *o) = (at(i, j), i as i64);
                    }
                }
            }
            return;
        }
        // The kept dim varies faster: walk the axis outermost to read memory row by row.
        let mut best: Vec<T> = (0..len).map(|j| at(0, j)).collect();
        for i in 1..n {
            for (j, (bv, o)) in best.iter_mut().zip(idx.iter_mut()).enumerate() {
                if better(at(i, j), *bv) {
                    (*bv, *o) = (at(i, j), i as i64);
                }
            }
        }
    });
    Ok(out)
}

/// Elements per block of the whole-tensor search.
const BLOCK: usize = 1 << 16;
/// Output columns per task of the column (inner > 1) kernel: rows of 16 KB float32 are
/// read whole, one sequential stream.
const TILE: usize = 4096;

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
    // tasks of (outer index, column tile, row range); indices of the element's width (u32
    // for 4-byte types) keep the compare-and-select loop in one vector shape
    let narrow = std::mem::size_of::<T>() == 4 && n <= u32::MAX as usize;
    let split = ColSplit::new(x.len() / (n * inner), n, inner, TILE);
    let parts = split.run(par, &|t| {
        let (at, w, rows) = split.task(t);
        if narrow {
            best_rows::<T, u32, MAX>(x, at, rows, inner, w, |i| i as u32)
        } else {
            best_rows::<T, u64, MAX>(x, at, rows, inner, w, |i| i as u64)
        }
    });
    // the row ranges of a unit merged in order: a later range wins only when strictly
    // better, so the first occurrence stays
    for (u, unit) in parts.chunks(split.parts).enumerate() {
        let (mut best, mut idx) = unit[0].clone();
        for (b, k) in &unit[1..] {
            for (((bv, kv), &v), &i) in best.iter_mut().zip(idx.iter_mut()).zip(b).zip(k) {
                if better::<T, MAX>(v, *bv) {
                    (*bv, *kv) = (v, i);
                }
            }
        }
        let o = split.out_at(u);
        out[o..o + idx.len()].copy_from_slice(&idx);
    }
}

/// How the column kernels (argmax / var over a dim that is not the innermost) cut
/// `[outer, n, inner]` into tasks: units of (outer index, tile of at most `tile`
/// columns), each cut into `parts` ranges of rows so that a few units still fill the
/// threads. The cut depends on the shape alone, so results do not depend on threading.
pub(super) struct ColSplit {
    outer: usize,
    n: usize,
    inner: usize,
    tile: usize,
    tiles: usize,
    /// Row ranges per unit.
    pub(super) parts: usize,
}

impl ColSplit {
    /// The cut of `[outer, n, inner]` with column tiles of `tile`.
    pub(super) fn new(outer: usize, n: usize, inner: usize, tile: usize) -> ColSplit {
        let tiles = inner.div_ceil(tile);
        let units = outer * tiles;
        // about 16 tasks when the units are few, rows of at least 64 each
        let parts = if units >= 16 {
            1
        } else {
            (16 / units).min(n.div_ceil(64)).max(1)
        };
        ColSplit {
            outer,
            n,
            inner,
            tile,
            tiles,
            parts,
        }
    }

    /// Task `t`'s first element, column count and row range (`i` counted in the unit).
    pub(super) fn task(&self, t: usize) -> (usize, usize, std::ops::Range<usize>) {
        let (u, p) = (t / self.parts, t % self.parts);
        let (o, tile) = (u / self.tiles, u % self.tiles);
        let j0 = tile * self.tile;
        let w = self.tile.min(self.inner - j0);
        let rows = p * self.n / self.parts..(p + 1) * self.n / self.parts;
        (o * self.n * self.inner + j0, w, rows)
    }

    /// Where unit `u`'s outputs start in the `[outer, inner]` output.
    pub(super) fn out_at(&self, u: usize) -> usize {
        (u / self.tiles) * self.inner + (u % self.tiles) * self.tile
    }

    /// Runs every task (on the pool when `par`), results in task order.
    pub(super) fn run<R: Send>(&self, par: bool, f: &(dyn Fn(usize) -> R + Sync)) -> Vec<R> {
        let total = self.outer * self.tiles * self.parts;
        let mut res: Vec<Option<R>> = (0..total).map(|_| None).collect();
        if par {
            for_each_chunk(&mut res, 1, &|t, r| r[0] = Some(f(t)));
        } else {
            res.iter_mut()
                .enumerate()
                .for_each(|(t, r)| *r = Some(f(t)));
        }
        res.into_iter()
            .map(|r| r.expect("every column task ran"))
            .collect()
    }
}

/// For each column `j < w`, the best `x[at + i * inner + j]` over `rows` and the first
/// row holding it, by running best values and indices (type `I`) updated with
/// branch-free selects one whole row at a time.
fn best_rows<T: ReduceElem, I: Copy + Into<u64>, const MAX: bool>(
    x: &[T],
    at: usize,
    rows: std::ops::Range<usize>,
    inner: usize,
    w: usize,
    index: impl Fn(usize) -> I,
) -> (Vec<T>, Vec<i64>) {
    let i0 = rows.start;
    let mut best: Vec<T> = x[at + i0 * inner..at + i0 * inner + w].to_vec();
    let mut k: Vec<I> = vec![index(i0); w];
    for i in rows.skip(1) {
        let row = &x[at + i * inner..at + i * inner + w];
        let iv = index(i);
        for ((b, k), &v) in best.iter_mut().zip(k.iter_mut()).zip(row) {
            let t = better::<T, MAX>(v, *b);
            *b = if t { v } else { *b };
            *k = if t { iv } else { *k };
        }
    }
    (best, k.into_iter().map(|k| k.into() as i64).collect())
}

/// Whether a reduction reading `n` elements runs threaded.
pub(super) fn par_for(n: usize) -> bool {
    n >= PAR_MIN && crate::interrupt::parallel_allowed()
}
