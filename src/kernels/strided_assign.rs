//! In-place writes into a strided view: `dst[view] = f(dst[view], src)` (`copy_`, `+=`,
//! `view[...] = value`), split across the rayon pool when the view is large and no two
//! of its elements share memory.

use super::elementwise::for_rows;
use super::par::for_each_task;
use super::tiles::{self, Block, Tile, TILE_ROWS};
use super::{PAR_CHUNK, PAR_THRESHOLD};
use crate::error::Result;
use crate::interrupt::parallel_allowed;
use crate::layout::Layout;

/// The destination buffer, shared by the tasks of one write; each task writes only the
/// elements of its own rows, which are distinct when the view's elements are.
struct Dst<T>(*mut T, usize);

// SAFETY: the tasks reach the buffer only through `read`/`write` at offsets of their own
// rows of a view whose elements are distinct (checked before the pointer is shared), so no
// element is touched by two threads; `T: Send` as for `par_chunks_mut`.
unsafe impl<T: Send> Sync for Dst<T> {}

impl<T: Copy> Dst<T> {
    /// `dst[i] = f(dst[i])`.
    ///
    /// # Safety
    /// `i` is inside the buffer and no other thread touches element `i` meanwhile.
    #[inline(always)]
    unsafe fn update(&self, i: isize, f: impl FnOnce(T) -> T) {
        let p = self.0.offset(i);
        p.write(f(p.read()));
    }
}

/// `dst[view] = f(dst[view], src)` in place, `src` broadcast to the view's shape.
/// `dst` and `src` must not alias (callers copy `src` first when they share storage).
///
/// A view whose elements are distinct is written in parallel above [`PAR_THRESHOLD`]
/// elements, by rows (whole tiles of rows for a transposed view or source); every element
/// gets the same single `f` as the serial walk, so results do not depend on the split. A
/// view that repeats elements (an expanded destination) is written serially in the
/// order it always was, so the last write to a shared element wins as before.
pub fn zip_assign<T: Copy + Sync + Send, S: Copy + Sync>(
    dst: &mut [T],
    ld: &Layout,
    src: &[S],
    ls: &Layout,
    f: impl Fn(T, S) -> T + Sync + Send,
) -> Result<()> {
    let shape = ld.shape.clone();
    let bs = ls.broadcast_to(&shape, "assign")?;
    let inner = shape.last().copied().unwrap_or(1);
    let n = ld.numel();
    if n == 0 {
        return Ok(());
    }
    if ld.is_contiguous() && bs.is_contiguous() && bs.numel() == n {
        let d = &mut dst[ld.offset..ld.offset + n];
        let s = &src[bs.offset..bs.offset + n];
        if n >= PAR_THRESHOLD && parallel_allowed() {
            super::par::for_each_chunk(d, PAR_CHUNK, &|start, dc| {
                let sc = &s[start..start + dc.len()];
                for (o, &x) in dc.iter_mut().zip(sc) {
                    *o = f(*o, x);
                }
            });
        } else {
            for (o, &x) in d.iter_mut().zip(s) {
                *o = f(*o, x);
            }
        }
        return Ok(());
    }
    let sd = ld.strides.last().copied().unwrap_or(1);
    let ss = bs.strides.last().copied().unwrap_or(1);
    let rows = n / inner.max(1);
    let tiled = tiles::transposed(ld) || tiles::transposed(&bs);
    if !tiles::distinct_elements(ld) {
        serial_walk(dst, ld, src, &bs, tiled, &f);
        return Ok(());
    }
    let dlen = dst.len();
    let out = Dst(dst.as_mut_ptr(), dlen);
    let nd = shape.len();
    let walk = |lo: usize, hi: usize| {
        if tiled {
            let (rd, rs) = (ld.strides[nd - 2], bs.strides[nd - 2]);
            let mut tile = Tile::new();
            tiles::for_tile_blocks(&shape, [ld, &bs], lo, hi, |_, [od, os], rows, cols| {
                tile.gather(
                    src,
                    Block {
                        base: os,
                        rs,
                        cs: ss,
                        rows,
                        cols,
                    },
                );
                let db = Block {
                    base: od,
                    rs: rd,
                    cs: sd,
                    rows,
                    cols,
                };
                db.check(out.1);
                db.right().prefetch(out.0.cast_const(), out.1);
                // write along the destination's memory: column by column when transposed
                if db.by_columns() {
                    for j in 0..cols {
                        for k in 0..rows {
                            let x = tile.row(k)[j];
                            // SAFETY: `db.check` put the tile inside `dst`; this task
                            // alone writes its rows, and the view's elements are distinct.
                            unsafe { out.update(db.at(k, j), |o| f(o, x)) };
                        }
                    }
                } else {
                    for k in 0..rows {
                        for (j, &x) in tile.row(k).iter().enumerate() {
                            // SAFETY: as above.
                            unsafe { out.update(db.at(k, j), |o| f(o, x)) };
                        }
                    }
                }
            });
        } else {
            for_rows(&shape, [ld, &bs], lo, hi, |[od, os]| {
                let last = od + (inner as isize - 1) * sd;
                assert!(
                    od >= 0 && (od as usize) < out.1 && last >= 0 && (last as usize) < out.1,
                    "internal: a strided run outside its buffer"
                );
                for j in 0..inner as isize {
                    let x = src[(os + j * ss) as usize];
                    // SAFETY: the run's first and last elements are inside `dst` (checked
                    // above, so all between are); rows are distinct and this task's own.
                    unsafe { out.update(od + j * sd, |o| f(o, x)) };
                }
            });
        }
    };
    if n >= PAR_THRESHOLD && rows > 1 && rayon::current_num_threads() > 1 && parallel_allowed() {
        let mut rows_per = (PAR_CHUNK / inner.max(1)).max(1);
        if tiled {
            rows_per = rows_per.div_ceil(TILE_ROWS) * TILE_ROWS;
        }
        for_each_task(rows.div_ceil(rows_per), &|i| {
            let lo = i * rows_per;
            walk(lo, (lo + rows_per).min(rows));
        });
    } else {
        walk(0, rows);
    }
    Ok(())
}

/// The serial walk for a destination that repeats elements, in the order (rows, or tile
/// rows) in which such writes have always been made.
fn serial_walk<T: Copy, S: Copy>(
    dst: &mut [T],
    ld: &Layout,
    src: &[S],
    bs: &Layout,
    tiled: bool,
    f: &impl Fn(T, S) -> T,
) {
    let shape = &ld.shape;
    let inner = shape.last().copied().unwrap_or(1);
    let rows = ld.numel() / inner.max(1);
    let sd = ld.strides.last().copied().unwrap_or(1);
    let ss = bs.strides.last().copied().unwrap_or(1);
    let mut run = |od: isize, os: isize, len: usize| {
        for j in 0..len as isize {
            let di = (od + j * sd) as usize;
            dst[di] = f(dst[di], src[(os + j * ss) as usize]);
        }
    };
    if tiled {
        tiles::for_tiles(shape, [ld, bs], 0, rows, |_, [od, os], len| {
            run(od, os, len)
        });
    } else {
        for_rows(shape, [ld, bs], 0, rows, |[od, os]| run(od, os, inner));
    }
}
