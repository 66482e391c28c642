//! The loops behind the reductions of [`super`]: canonicalising a view into a [`Plan`]
//! (merged dims, reduced dims largest stride first), the blocked pairwise fold of
//! contiguous runs, and the inner and outer kernels that walk a plan.

use super::Fold;
use crate::dtype::Element;
use crate::interrupt::Watch;
use crate::layout::{Layout, Shape};
/// Independent accumulators in the contiguous kernel (breaks the add dependency chain).
pub(super) const LANES: usize = 16;
/// Leaf size of the pairwise tree.
pub(super) const BLOCK: usize = 4096;
/// Elements read above which a reduction is split across rayon threads.
pub(super) const PAR_MIN: usize = 1 << 18;
/// Output accumulators the outer kernel updates per input row segment.
pub(super) const TILE: usize = 4096;

/// Output shape with `axes` removed (axes are already normalised, sorted, unique).
pub fn reduced_shape(shape: &[usize], axes: &[usize]) -> Shape {
    shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !axes.contains(i))
        .map(|(_, &d)| d)
        .collect()
}

/// Folds a non-empty contiguous run with `LANES` accumulators merged as a tree (float
/// sums: by `super::simd`'s kernels where the CPU has them, with the same bits).
pub(super) fn lanes<T: Element, F: Fold<T>>(x: &[T]) -> F::A {
    if let Some(a) = F::fast_lanes(x) {
        return a;
    }
    let mut acc = [F::start(x[0]); LANES];
    let chunks = x.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = F::step(*a, v);
        }
    }
    for (a, &v) in acc.iter_mut().zip(tail) {
        *a = F::step(*a, v);
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        let (lo, hi) = acc.split_at_mut(w);
        for (a, &b) in lo.iter_mut().zip(hi.iter()) {
            *a = F::merge(*a, b);
        }
    }
    acc[0]
}

/// Pairwise fold of a non-empty contiguous run: rounding error grows with log(n), not n.
pub(super) fn pairwise<T: Element, F: Fold<T>>(x: &[T], watch: Watch) -> F::A {
    if x.len() <= BLOCK {
        return lanes::<T, F>(x);
    }
    if watch.tripped() {
        // Ctrl-C: stop descending; the caller discards the result and reports it
        return lanes::<T, F>(&x[..BLOCK]);
    }
    // The split depends on the length alone, so the tree (and the rounding) is the same
    // however many threads run it.
    let (l, r) = x.split_at((x.len() / BLOCK).div_ceil(2) * BLOCK);
    let (a, b) = if x.len() >= PAR_MIN && crate::interrupt::parallel_allowed() {
        crate::kernels::par::join(|| pairwise::<T, F>(l, watch), || pairwise::<T, F>(r, watch))
    } else {
        (pairwise::<T, F>(l, watch), pairwise::<T, F>(r, watch))
    };
    F::merge(a, b)
}

/// Storage offset of row-major index `i` over `dims` (size, stride), relative to the view.
pub(super) fn unravel(dims: &[(usize, isize)], mut i: usize) -> isize {
    let mut off = 0;
    for &(n, s) in dims.iter().rev() {
        off += (i % n) as isize * s;
        i /= n;
    }
    off
}

/// Merges neighbouring (size, stride) dims that step through memory as one dim.
pub(super) fn merge_dims(mut dims: Vec<(usize, isize)>) -> Vec<(usize, isize)> {
    // in place (`w` dims written so far): no second vector per reduction
    let mut w = 0;
    for r in 0..dims.len() {
        let (n, s) = dims[r];
        if w > 0 && dims[w - 1].1 == s * n as isize {
            dims[w - 1] = (dims[w - 1].0 * n, s);
        } else {
            dims[w] = (n, s);
            w += 1;
        }
    }
    dims.truncate(w);
    dims
}

/// Canonical form of a non-empty reduction.
pub(super) struct Plan {
    /// Kept dims (size, stride) in output order.
    pub(super) kept: Vec<(usize, isize)>,
    /// Reduced sub-tensor at offset 0: non-negative strides, largest first.
    pub(super) red: Layout,
    /// Storage offset of element zero once reversed reduced dims are flipped.
    offset: isize,
    /// Elements read in total (decides on threading).
    work: usize,
}

/// Canonicalises a reduction of `layout` over `axes` into a [`Plan`]. `idempotent`
/// (max/min/all/any) lets a broadcast (stride-0) reduced dim be dropped: folding the same
/// value again changes nothing.
pub(super) fn plan(layout: &Layout, axes: &[usize], idempotent: bool) -> Plan {
    let mut offset = layout.offset as isize;
    // (sized up front: a first push into an empty vector takes the slower growth path)
    let n_red = axes.len().min(layout.ndim());
    let (mut kept, mut red) = (
        Vec::with_capacity(layout.ndim() - n_red),
        Vec::with_capacity(n_red),
    );
    for (d, (&n, &s)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        if n == 1 || (s == 0 && idempotent && axes.contains(&d)) {
            continue; // contributes nothing new
        } else if !axes.contains(&d) {
            kept.push((n, s));
        } else if s < 0 {
            // Reduction order is free: walk reversed dims forwards.
            offset += (n as isize - 1) * s;
            red.push((n, -s));
        } else {
            red.push((n, s));
        }
    }
    red.sort_by_key(|d| std::cmp::Reverse(d.1));
    let red = merge_dims(red);
    Plan {
        kept: merge_dims(kept),
        red: Layout {
            shape: red.iter().map(|d| d.0).collect(),
            strides: red.iter().map(|d| d.1).collect(),
            offset: 0,
        },
        offset,
        work: layout.numel(),
    }
}

/// Runs `f(index, chunk)` over the `size`-element chunks of `out`, on rayon when `par`.
/// Every chunk is computed by one call in a fixed order, so threading never changes results.
pub(super) fn chunked<O: Send>(
    out: &mut [O],
    size: usize,
    par: bool,
    watch: Watch,
    f: impl Fn(usize, &mut [O]) + Sync,
) {
    // after Ctrl-C the remaining chunks are skipped (the caller reports the interrupt)
    let run = |i: usize, c: &mut [O]| {
        if !watch.tripped() {
            f(i, c)
        }
    };
    if par {
        // `size` is at least 1 (chunks of an output row)
        let size = size.max(1);
        crate::kernels::par::for_each_chunk(out, size, &|start, c| run(start / size, c));
    } else {
        out.chunks_mut(size)
            .enumerate()
            .for_each(|(i, c)| run(i, c));
    }
}

/// Inner kernel: each output element folds its own reduced sub-tensor.
pub(super) fn inner<T: Element, F: Fold<T>>(src: &[T], p: &Plan, out: &mut [F::Out], watch: Watch) {
    let row = |acc: F::A, b: usize, s: isize, len: usize| {
        if s == 1 && len >= 2 * LANES {
            F::merge(acc, pairwise::<T, F>(&src[b..b + len], watch))
        } else {
            (0..len).fold(acc, |a, i| F::step(a, src[b + i * s as usize]))
        }
    };
    let fold_at = |base: isize| {
        let mut acc = F::start(src[base as usize]);
        if let ([len], [s]) = (&p.red.shape[..], &p.red.strides[..]) {
            acc = row(acc, base as usize, *s, *len); // one reduced dim: skip the row walker
        } else {
            p.red
                .for_each_row(|b, s, len| acc = row(acc, (base + b) as usize, s, len));
        }
        F::finish(acc)
    };
    // Tasks of about 64K elements read.
    let grain = ((1 << 16) / (p.work / out.len()).max(1)).max(1);
    let par = p.work >= PAR_MIN && crate::interrupt::parallel_allowed();
    chunked(out, grain, par, watch, |c, chunk| {
        for (k, o) in chunk.iter_mut().enumerate() {
            *o = fold_at(p.offset + unravel(&p.kept, c * grain + k));
        }
    });
}

/// Folds the `acc.len()`-element input rows starting at `offs` (elements `sk` apart) into
/// `acc`. Four unit-stride rows go in one pass, loading and storing `acc` once. Long
/// unit-stride rows run in an AVX2 build where the CPU has it (the baseline SSE2 build
/// widens and adds two float32 values an instruction, AVX2 four); both builds do the same
/// operations on each element in the same order, so they give the same bits.
#[inline]
pub(super) fn add_rows<T: Element, F: Fold<T>>(
    src: &[T],
    acc: &mut [F::A],
    offs: &[isize],
    sk: isize,
) {
    #[cfg(target_arch = "x86_64")]
    if sk == 1 && acc.len() >= 64 {
        #[target_feature(enable = "avx2")]
        unsafe fn wide<T: Element, F: Fold<T>>(s: &[T], a: &mut [F::A], o: &[isize]) {
            add_rows_body::<T, F>(s, a, o, 1)
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { wide::<T, F>(src, acc, offs) };
        }
    }
    add_rows_body::<T, F>(src, acc, offs, sk)
}

/// The loops of [`add_rows`], inlined into each of its builds.
#[inline(always)]
fn add_rows_body<T: Element, F: Fold<T>>(src: &[T], acc: &mut [F::A], offs: &[isize], sk: isize) {
    let n = acc.len();
    let seg = |off: isize| &src[off as usize..off as usize + n];
    match *offs {
        [r0, r1, r2, r3] if sk == 1 => {
            let rows = acc.iter_mut().zip(seg(r0)).zip(seg(r1)).zip(seg(r2));
            for ((((a, &x0), &x1), &x2), &x3) in rows.zip(seg(r3)) {
                *a = F::step(F::step(F::step(F::step(*a, x0), x1), x2), x3);
            }
        }
        _ if sk == 1 => {
            for &off in offs {
                acc.iter_mut()
                    .zip(seg(off))
                    .for_each(|(a, &v)| *a = F::step(*a, v));
            }
        }
        _ => {
            for &off in offs {
                for (j, a) in acc.iter_mut().enumerate() {
                    *a = F::step(*a, src[(off + j as isize * sk) as usize]);
                }
            }
        }
    }
}

/// Outer kernel: the last kept dim (length `m`, stride `sk`) has the smallest stride, so a
/// tile of outputs is updated by whole input row segments, one reduced index at a time.
/// Long rows are cut into tiles of `TILE` (narrower when few rows must feed the threads);
/// very short rows are grouped into one task.
pub(super) fn outer<T: Element, F: Fold<T>>(src: &[T], p: &Plan, out: &mut [F::Out], watch: Watch) {
    let (m, sk) = *p.kept.last().expect("outer kernel needs a kept dim");
    let lead = &p.kept[..p.kept.len() - 1];
    let par = p.work >= PAR_MIN && crate::interrupt::parallel_allowed();
    // With few output rows (a sum over dim 0 of a matrix), rows are cut into narrower
    // tiles so that every thread gets some; each output still adds its inputs in the
    // same order, so the tiling never changes results.
    let width = if par && out.len() / m < 4 && m >= 1024 {
        (m.div_ceil(4).next_multiple_of(64)).clamp(512, TILE)
    } else {
        TILE
    };
    let job = |o: usize, t: usize, chunk: &mut [F::Out]| {
        let n = chunk.len().min(m);
        let tile = (t * width) as isize * sk;
        let bases: Vec<isize> = (0..chunk.len() / n)
            .map(|k| p.offset + unravel(lead, o + k) + tile)
            .collect();
        let row = |b: isize| (0..n).map(move |j| F::start(src[(b + j as isize * sk) as usize]));
        let mut acc: Vec<F::A> = bases.iter().flat_map(|&b| row(b)).collect();
        // Four rows per pass only pays on long segments; short ones stay one stream that
        // the prefetcher can follow.
        let batch = if bases.len() == 1 && n >= 1024 { 4 } else { 1 };
        let (mut pend, mut np) = ([0isize; 4], 0);
        p.red.for_each_row(|b, s, len| {
            for r in (0..len as isize).map(|i| b + i * s) {
                if bases.len() > 1 {
                    for (a, &base) in acc.chunks_mut(n).zip(&bases) {
                        add_rows::<T, F>(src, a, &[base + r], sk);
                    }
                    continue;
                }
                (pend[np], np) = (bases[0] + r, np + 1);
                if np == batch {
                    add_rows::<T, F>(src, &mut acc, &pend[..np], sk);
                    np = 0;
                }
            }
        });
        add_rows::<T, F>(src, &mut acc, &pend[..np], sk);
        chunk
            .iter_mut()
            .zip(&acc)
            .for_each(|(o, &a)| *o = F::finish(a));
    };
    if m > width {
        chunked(out, m, par, watch, |o, row| {
            chunked(row, width, par, watch, |t, c| job(o, t, c))
        });
    } else {
        // Grouping saves per-row overhead on very short rows; longer rows stay one task
        // each, so every task reads one sequential stream.
        let group = if m < 64 { TILE / m } else { 1 };
        chunked(out, group * m, par, watch, |i, c| job(i * group, 0, c));
    }
}
