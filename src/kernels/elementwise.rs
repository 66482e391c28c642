//! Generic elementwise maps over strided, broadcast layouts with contiguous output.

use super::par::for_each_chunk;
pub use super::strided_assign::zip_assign;
use super::tiles::{self, Block, Tile};
use super::{Split, PAR_CHUNK, PAR_THRESHOLD};
use crate::error::Result;
use crate::interrupt::{parallel_allowed, Watch};
use crate::layout::Layout;
use crate::storage::try_vec_with_capacity;
use smallvec::SmallVec;
use std::mem::MaybeUninit;

/// Fills a new `Vec<O>` of `n` elements by `fill(start, chunk)` over disjoint chunks,
/// in parallel when large. Chunks are written before the length is set.
fn build_output<O: Send + Copy>(
    n: usize,
    fill: impl Fn(usize, &mut [MaybeUninit<O>]) + Sync + Send,
) -> Result<Vec<O>> {
    build_output_split(n, Split::CHEAP, fill)
}

/// [`build_output`] splitting the work as `split` says.
fn build_output_split<O: Send + Copy>(
    n: usize,
    split: Split,
    fill: impl Fn(usize, &mut [MaybeUninit<O>]) + Sync + Send,
) -> Result<Vec<O>> {
    let mut out = try_vec_with_capacity::<O>(n)?;
    {
        let spare = &mut out.spare_capacity_mut()[..n];
        if n >= split.min_len && rayon::current_num_threads() > 1 && parallel_allowed() {
            let watch = Watch::begin(); // Ctrl-C: skip the remaining chunks
            for_each_chunk(spare, split.chunk, &|start, c| {
                if !watch.tripped() {
                    fill(start, c)
                }
            });
            watch.check()?; // `out` still has length 0: dropping it is safe
        } else {
            fill(0, spare);
        }
    }
    // SAFETY: every element of 0..n was written by `fill` above.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// Visits rows `[row_lo, row_hi)` of `shape` (rows = all dims but the last), giving the
/// base offset of each row in each of `layouts` (all already broadcast to `shape`).
pub(super) fn for_rows<const K: usize>(
    shape: &[usize],
    layouts: [&Layout; K],
    row_lo: usize,
    row_hi: usize,
    mut f: impl FnMut([isize; K]),
) {
    let nd = shape.len();
    if row_lo >= row_hi || shape.contains(&0) {
        return;
    }
    if nd <= 1 {
        if row_lo < row_hi {
            f(layouts.map(|l| l.offset as isize));
        }
        return;
    }
    let outer = &shape[..nd - 1];
    // multi-index of row_lo
    let mut idx: SmallVec<[usize; 6]> = SmallVec::from_elem(0, nd - 1);
    let mut rem = row_lo;
    for d in (0..nd - 1).rev() {
        idx[d] = rem % outer[d];
        rem /= outer[d];
    }
    let mut base = layouts.map(|l| {
        l.offset as isize
            + idx
                .iter()
                .zip(&l.strides)
                .map(|(&i, &s)| i as isize * s)
                .sum::<isize>()
    });
    for _ in row_lo..row_hi {
        f(base);
        let mut d = nd - 1;
        while d > 0 {
            d -= 1;
            idx[d] += 1;
            for k in 0..K {
                base[k] += layouts[k].strides[d];
            }
            if idx[d] < outer[d] {
                break;
            }
            for k in 0..K {
                base[k] -= layouts[k].strides[d] * outer[d] as isize;
            }
            idx[d] = 0;
        }
    }
}

/// Runs `fill_rows(row_lo, row_hi, out_chunk)` over whole rows, in parallel when large.
fn build_by_rows<O: Send + Copy>(
    shape: &[usize],
    fill_rows: impl Fn(usize, usize, &mut [MaybeUninit<O>]) + Sync + Send,
) -> Result<Vec<O>> {
    build_by_rows_min(shape, 1, fill_rows)
}

/// [`build_by_rows`] whose parallel chunks hold at least `min_rows` rows (a multiple of
/// it): the tiled walks want whole tiles of rows per chunk.
fn build_by_rows_min<O: Send + Copy>(
    shape: &[usize],
    min_rows: usize,
    fill_rows: impl Fn(usize, usize, &mut [MaybeUninit<O>]) + Sync + Send,
) -> Result<Vec<O>> {
    let n: usize = shape.iter().product();
    let inner = shape.last().copied().unwrap_or(1).max(1);
    let rows = if n == 0 { 0 } else { n / inner };
    let mut out = try_vec_with_capacity::<O>(n)?;
    {
        let spare = &mut out.spare_capacity_mut()[..n];
        if n >= PAR_THRESHOLD && rows > 1 && rayon::current_num_threads() > 1 && parallel_allowed()
        {
            let rows_per = (PAR_CHUNK / inner).max(1).div_ceil(min_rows) * min_rows;
            let watch = Watch::begin();
            for_each_chunk(spare, rows_per * inner, &|start, c| {
                let lo = start / inner;
                if !watch.tripped() {
                    fill_rows(lo, (lo + rows_per).min(rows), c)
                }
            });
            watch.check()?;
        } else {
            fill_rows(0, rows, spare);
        }
    }
    // SAFETY: all `rows * inner == n` elements were written.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// `out = f(src)` elementwise over any layout; output contiguous in row-major order.
pub fn map_unary<T: Copy + Sync, O: Copy + Send>(
    src: &[T],
    layout: &Layout,
    f: impl Fn(T) -> O + Sync + Send,
) -> Result<Vec<O>> {
    map_unary_split(src, layout, Split::CHEAP, f)
}

/// [`map_unary`] whose contiguous case splits the work as `split` says (see [`Split`]).
pub fn map_unary_split<T: Copy + Sync, O: Copy + Send>(
    src: &[T],
    layout: &Layout,
    split: Split,
    f: impl Fn(T) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let n = layout.numel();
    if layout.is_contiguous() {
        let s = &src[layout.offset..layout.offset + n];
        return build_output_split(n, split, |start, c| {
            let end = start + c.len();
            for (o, &x) in c.iter_mut().zip(&s[start..end]) {
                o.write(f(x));
            }
        });
    }
    if n > 0 && layout.strides.iter().all(|&s| s == 0) {
        // one element broadcast to the whole shape (e.g. the gradient of `sum()`): a
        // fill, not a strided walk re-reading that element
        let at = layout.offset;
        return build_output_split(n, split, |_, c| c.fill(MaybeUninit::new(f(src[at]))));
    }
    let shape = layout.shape.clone();
    let inner = shape.last().copied().unwrap_or(1);
    let (is, _) = (layout.strides.last().copied().unwrap_or(1), ());
    if n > 0 && tiles::transposed(layout) {
        let rs = layout.strides[shape.len() - 2];
        return build_by_rows_min(&shape, tiles::TILE_ROWS, |lo, hi, out| {
            let mut tile = Tile::new();
            tiles::for_tile_blocks(&shape, [layout], lo, hi, |pos, [base], rows, cols| {
                tile.gather(
                    src,
                    Block {
                        base,
                        rs,
                        cs: is,
                        rows,
                        cols,
                    },
                );
                prefetch_next_out(out, pos, inner, rows, cols);
                for k in 0..rows {
                    let at = pos + k * inner;
                    for (o, &x) in out[at..at + cols].iter_mut().zip(tile.row(k)) {
                        o.write(f(x));
                    }
                }
            })
        });
    }
    build_by_rows(&shape, |lo, hi, out| {
        let mut pos = 0;
        for_rows(&shape, [layout], lo, hi, |[b]| {
            let row = &mut out[pos..pos + inner];
            if is == 0 {
                // a row broadcast from one element
                row.fill(MaybeUninit::new(f(src[b as usize])));
            } else {
                for (j, o) in row.iter_mut().enumerate() {
                    o.write(f(src[(b + j as isize * is) as usize]));
                }
            }
            pos += inner;
        });
    })
}

/// Like [`map_unary`], but contiguous runs go through `chunk` (a vectorised kernel over
/// slices); strided views use `f`, which must compute the same function element by element.
pub fn map_unary_chunked<T: Copy + Sync, O: Copy + Send>(
    src: &[T],
    layout: &Layout,
    chunk: impl Fn(&[T], &mut [MaybeUninit<O>]) + Sync + Send,
    f: impl Fn(T) -> O + Sync + Send,
) -> Result<Vec<O>> {
    if !layout.is_contiguous() {
        return map_unary_runs(src, layout, &chunk, f);
    }
    let n = layout.numel();
    let s = &src[layout.offset..layout.offset + n];
    // the chunked kernels are the transcendental ones
    build_output_split(n, Split::COSTLY, |start, c| {
        chunk(&s[start..start + c.len()], c)
    })
}

/// `out[j] = f(src[b + j * stride])` for every `j` of `out`. The run's last element is
/// checked to be in bounds first (a panic, as indexing would, if a layout were wrong), so
/// a positive stride walks `src` without a bounds check per element.
#[inline]
fn gather_map<T: Copy, O>(
    src: &[T],
    b: isize,
    stride: isize,
    out: &mut [MaybeUninit<O>],
    f: impl Fn(T) -> O,
) {
    let len = out.len();
    if len == 0 {
        return;
    }
    let last = b + (len as isize - 1) * stride;
    assert!(
        b >= 0 && last >= 0 && (last as usize) < src.len(),
        "internal: a strided run outside its buffer"
    );
    if stride > 0 {
        let run = src[b as usize..].iter().step_by(stride as usize);
        for (o, &x) in out.iter_mut().zip(run) {
            o.write(f(x));
        }
    } else {
        for (j, o) in out.iter_mut().enumerate() {
            o.write(f(src[(b + j as isize * stride) as usize]));
        }
    }
}

/// Prefetches the output lines of the tile after the one of `rows x cols` elements at
/// `pos` (rows `inner` apart) of a tiled walk: its rows are as far apart as the source's.
#[inline(always)]
fn prefetch_next_out<O>(
    out: &[MaybeUninit<O>],
    pos: usize,
    inner: usize,
    rows: usize,
    cols: usize,
) {
    let b = Block {
        base: pos as isize,
        rs: inner as isize,
        cs: 1,
        rows,
        cols,
    };
    b.right().prefetch(out.as_ptr(), out.len());
}

/// Elements a strided [`map_unary_chunked`] gathers into a buffer before each call of its
/// vectorised kernel.
const GATHER_RUN: usize = 256;

/// [`map_unary_chunked`] of a strided view: each run of the view (a row, or a tile's row
/// for a transposed view) is gathered into a small buffer and goes through `chunk`, so a
/// strided view gets the vectorised kernel, and the same values, as a contiguous one.
fn map_unary_runs<T: Copy + Sync, O: Copy + Send>(
    src: &[T],
    layout: &Layout,
    chunk: &(impl Fn(&[T], &mut [MaybeUninit<O>]) + Sync + Send),
    f: impl Fn(T) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let n = layout.numel();
    if n == 0 || layout.strides.iter().all(|&s| s == 0) {
        return map_unary(src, layout, f);
    }
    let shape = &layout.shape;
    let is = layout.strides.last().copied().unwrap_or(1);
    let run = |b: isize, out: &mut [MaybeUninit<O>]| {
        let mut buf = [MaybeUninit::<T>::uninit(); GATHER_RUN];
        let mut at = b;
        for piece in out.chunks_mut(GATHER_RUN) {
            gather_map(src, at, is, &mut buf[..piece.len()], |x| x);
            at += piece.len() as isize * is;
            // SAFETY: `gather_map` wrote the first `piece.len()` elements of `buf`.
            let got = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<T>(), piece.len()) };
            chunk(got, piece);
        }
    };
    let inner = shape.last().copied().unwrap_or(1);
    if tiles::transposed(layout) {
        // a tile is copied out along memory first, then each of its rows goes through
        // the vectorised kernel straight from L1
        let rs = layout.strides[shape.len() - 2];
        return build_by_rows_min(shape, tiles::TILE_ROWS, |lo, hi, out| {
            let mut tile = Tile::new();
            tiles::for_tile_blocks(shape, [layout], lo, hi, |pos, [base], rows, cols| {
                tile.gather(
                    src,
                    Block {
                        base,
                        rs,
                        cs: is,
                        rows,
                        cols,
                    },
                );
                prefetch_next_out(out, pos, inner, rows, cols);
                for k in 0..rows {
                    let at = pos + k * inner;
                    chunk(tile.row(k), &mut out[at..at + cols]);
                }
            })
        });
    }
    build_by_rows(shape, |lo, hi, out| {
        let mut pos = 0;
        for_rows(shape, [layout], lo, hi, |[b]| {
            run(b, &mut out[pos..pos + inner]);
            pos += inner;
        });
    })
}

/// `out = f(a, b)` elementwise with NumPy broadcasting to `out_shape`.
pub fn map_binary<A: Copy + Sync, B: Copy + Sync, O: Copy + Send>(
    a: &[A],
    la: &Layout,
    b: &[B],
    lb: &Layout,
    out_shape: &[usize],
    f: impl Fn(A, B) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let n: usize = out_shape.iter().product();
    // (equal shapes have equal element counts)
    let a_full = la.shape.as_slice() == out_shape;
    let b_full = lb.shape.as_slice() == out_shape;
    // Fast paths: both contiguous, or one side a single element.
    if a_full && b_full && la.is_contiguous() && lb.is_contiguous() {
        let (sa, sb) = (&a[la.offset..la.offset + n], &b[lb.offset..lb.offset + n]);
        return build_output(n, |start, c| {
            let end = start + c.len();
            for ((o, &x), &y) in c.iter_mut().zip(&sa[start..end]).zip(&sb[start..end]) {
                o.write(f(x, y));
            }
        });
    }
    if a_full && la.is_contiguous() && lb.numel() == 1 {
        let (sa, y) = (&a[la.offset..la.offset + n], b[lb.offset]);
        return build_output(n, |start, c| {
            let end = start + c.len();
            for (o, &x) in c.iter_mut().zip(&sa[start..end]) {
                o.write(f(x, y));
            }
        });
    }
    if b_full && lb.is_contiguous() && la.numel() == 1 {
        let (x, sb) = (a[la.offset], &b[lb.offset..lb.offset + n]);
        return build_output(n, |start, c| {
            let end = start + c.len();
            for (o, &y) in c.iter_mut().zip(&sb[start..end]) {
                o.write(f(x, y));
            }
        });
    }
    // General strided / broadcast path, row by row.
    let ba = la.broadcast_to(out_shape, "broadcast")?;
    let bb = lb.broadcast_to(out_shape, "broadcast")?;
    let inner = out_shape.last().copied().unwrap_or(1);
    let sa = ba.strides.last().copied().unwrap_or(1);
    let sb = bb.strides.last().copied().unwrap_or(1);
    if n > 0 && (tiles::transposed(&ba) || tiles::transposed(&bb)) {
        return build_by_rows_min(out_shape, tiles::TILE_ROWS, |lo, hi, out| {
            tiles::for_tiles(out_shape, [&ba, &bb], lo, hi, |pos, [oa, ob], len| {
                for (j, o) in out[pos..pos + len].iter_mut().enumerate() {
                    let j = j as isize;
                    o.write(f(a[(oa + j * sa) as usize], b[(ob + j * sb) as usize]));
                }
            })
        });
    }
    build_by_rows(out_shape, |lo, hi, out| {
        let mut pos = 0;
        for_rows(out_shape, [&ba, &bb], lo, hi, |[oa, ob]| {
            let row = &mut out[pos..pos + inner];
            if sa == 1 && sb == 1 {
                let (ra, rb) = (
                    &a[oa as usize..oa as usize + inner],
                    &b[ob as usize..ob as usize + inner],
                );
                for ((o, &x), &y) in row.iter_mut().zip(ra).zip(rb) {
                    o.write(f(x, y));
                }
            } else if sa == 1 && sb == 0 {
                let (ra, y) = (&a[oa as usize..oa as usize + inner], b[ob as usize]);
                for (o, &x) in row.iter_mut().zip(ra) {
                    o.write(f(x, y));
                }
            } else if sa == 0 && sb == 1 {
                let (x, rb) = (a[oa as usize], &b[ob as usize..ob as usize + inner]);
                for (o, &y) in row.iter_mut().zip(rb) {
                    o.write(f(x, y));
                }
            } else {
                for (j, o) in row.iter_mut().enumerate() {
                    let j = j as isize;
                    o.write(f(a[(oa + j * sa) as usize], b[(ob + j * sb) as usize]));
                }
            }
            pos += inner;
        });
    })
}

/// `out[i] = f(a[i], b[i], c[i])` over three contiguous slices of equal length (`where`
/// on three dense operands), threaded when large.
pub fn map_ternary<A: Copy + Sync, B: Copy + Sync, C: Copy + Sync, O: Copy + Send>(
    a: &[A],
    b: &[B],
    c: &[C],
    f: impl Fn(A, B, C) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let n = a.len();
    if b.len() != n || c.len() != n {
        return Err(crate::error::Error::runtime(
            "internal: map_ternary operands differ in length",
        ));
    }
    build_output(n, |start, out| {
        let end = start + out.len();
        let operands = a[start..end].iter().zip(&b[start..end]).zip(&c[start..end]);
        for (o, ((&x, &y), &z)) in out.iter_mut().zip(operands) {
            o.write(f(x, y, z));
        }
    })
}

/// Like [`map_binary`] with the split of a costly op, but when both operands are
/// contiguous and of the output's shape the work goes through `chunk` (a vectorised kernel
/// over equal-length slices); other layouts use `f`, which must compute the same function.
pub fn map_binary_chunked<A: Copy + Sync, B: Copy + Sync, O: Copy + Send>(
    a: &[A],
    la: &Layout,
    b: &[B],
    lb: &Layout,
    out_shape: &[usize],
    chunk: impl Fn(&[A], &[B], &mut [MaybeUninit<O>]) + Sync + Send,
    f: impl Fn(A, B) -> O + Sync + Send,
) -> Result<Vec<O>> {
    let n: usize = out_shape.iter().product();
    let full = |l: &Layout| l.numel() == n && l.shape.as_slice() == out_shape && l.is_contiguous();
    if !(full(la) && full(lb)) {
        return map_binary(a, la, b, lb, out_shape, f);
    }
    let (sa, sb) = (&a[la.offset..la.offset + n], &b[lb.offset..lb.offset + n]);
    build_output_split(n, Split::COSTLY, |start, c| {
        let end = start + c.len();
        chunk(&sa[start..end], &sb[start..end], c)
    })
}

/// A kernel over one run of a view: writes `out[j] = f(src[offset + j * stride])` for
/// every `j` of `out` (`offset` and `stride` count elements of the source).
pub type RunKernel<'a, O> = dyn Fn(isize, isize, &mut [MaybeUninit<O>]) + Sync + 'a;

/// Like [`map_unary`], with the per-element work behind a `dyn` run kernel, called once
/// per contiguous chunk (or once per row of a strided view): the splitting, threading and
/// row walking are compiled once per output type instead of once per (input type, output
/// type, closure). For kernels instantiated for many type pairs (the dtype casts);
/// each call costs one indirect call per chunk or row.
pub fn map_runs<O: Copy + Send>(layout: &Layout, run: &RunKernel<'_, O>) -> Result<Vec<O>> {
    let n = layout.numel();
    if layout.is_contiguous() {
        let off = layout.offset as isize;
        return build_output(n, |start, c| run(off + start as isize, 1, c));
    }
    let shape = &layout.shape;
    let inner = shape.last().copied().unwrap_or(1);
    let stride = layout.strides.last().copied().unwrap_or(1);
    if n > 0 && tiles::transposed(layout) {
        return build_by_rows_min(shape, tiles::TILE_ROWS, |lo, hi, out| {
            tiles::for_tiles(shape, [layout], lo, hi, |pos, [b], len| {
                run(b, stride, &mut out[pos..pos + len])
            })
        });
    }
    build_by_rows(shape, |lo, hi, out| {
        let mut pos = 0;
        for_rows(shape, [layout], lo, hi, |[b]| {
            run(b, stride, &mut out[pos..pos + inner]);
            pos += inner;
        });
    })
}
