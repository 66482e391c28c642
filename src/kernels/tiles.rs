//! Walking a strided view in square tiles, for views whose last dimension is not the one
//! that runs along memory (a transposed matrix, a batch of them, a permuted `[B, C, L]`).
//!
//! Row by row, such a view is read with a large stride: every element of an output row
//! comes from another cache line (and, at 16 KiB strides, another page), and by the time
//! the next row wants the neighbouring elements of those lines they have left the cache.
//! A 4096² `a.t().contiguous()` ran at ~0.25 GB/s that way. Walking the output in
//! tiles over the last two dimensions instead ([`TILE_ROWS`] × [`TILE_COLS`]) reads each
//! source line once per tile, while it is in L1, and writes whole runs of output elements.

use crate::layout::Layout;
use smallvec::SmallVec;
use std::mem::MaybeUninit;

/// The least length of both of the last two dimensions for a view to be walked in tiles.
pub const TILE: usize = 32;
/// Rows of a tile: consecutive rows of the view, i.e. a run of this many elements along
/// memory in a transposed source (256 bytes of float32).
pub const TILE_ROWS: usize = 64;
/// Columns of a tile: runs a whole matrix row apart. Few of them, because at a
/// power-of-two row stride they all fall in the same cache sets: for a 4096² float32
/// transpose (one core, next tile prefetched, a stand-alone loop, 2026-11-30 14:29 UTC)
/// 64 × 16 tiles took 24 ms of CPU, 32 × 32 ones 36, 16 × 16 50, 64 × 32 32, 64 × 8 30.
/// 64 × 16 elements of up to 16 bytes are 16 KiB.
pub const TILE_COLS: usize = 16;

/// True when `layout` (already broadcast to the output's shape) is read best in tiles:
/// its last two dimensions are both at least [`TILE`] long, and the one before the last
/// runs along memory with a smaller (non-zero) stride than the last.
pub fn transposed(layout: &Layout) -> bool {
    let nd = layout.shape.len();
    if nd < 2 {
        return false;
    }
    let (rows, inner) = (layout.shape[nd - 2], layout.shape[nd - 1]);
    let (s2, is) = (layout.strides[nd - 2], layout.strides[nd - 1]);
    rows >= TILE && inner >= TILE && s2 != 0 && s2.unsigned_abs() < is.unsigned_abs()
}

/// The offset of the first element of row `row` (rows = all dimensions but the last, in
/// row-major order) in `layout`.
fn row_base(layout: &Layout, row: usize) -> isize {
    let nd = layout.shape.len();
    let mut rem = row;
    let mut base = layout.offset as isize;
    for d in (0..nd - 1).rev() {
        let n = layout.shape[d];
        base += (rem % n) as isize * layout.strides[d];
        rem /= n;
    }
    base
}

/// Visits rows `[row_lo, row_hi)` of `shape` (rows = all dims but the last; `shape` has at
/// least two dimensions and no zero-length one) one tile at a time: up to [`TILE_ROWS`]
/// consecutive rows of one matrix and [`TILE_COLS`] columns of them. `f(pos, bases, rows, cols)`
/// gets a tile of `rows x cols` elements whose element `(k, j)` is output element
/// `pos + k * inner + j` (counted from the first element of row `row_lo`; `inner` is the
/// last dimension) and sits at `bases[i] + k * rs + j * cs` in `layouts[i]` (broadcast to
/// `shape`), `rs` and `cs` being that layout's last two strides.
pub fn for_tile_blocks<const K: usize>(
    shape: &[usize],
    layouts: [&Layout; K],
    row_lo: usize,
    row_hi: usize,
    mut f: impl FnMut(usize, [isize; K], usize, usize),
) {
    let nd = shape.len();
    if row_lo >= row_hi {
        return;
    }
    debug_assert!(nd >= 2 && !shape.contains(&0));
    let (rows_per_matrix, inner) = (shape[nd - 2], shape[nd - 1]);
    let col_strides: SmallVec<[isize; 4]> = layouts.iter().map(|l| l.strides[nd - 1]).collect();
    let mut r = row_lo;
    while r < row_hi {
        let g = (rows_per_matrix - r % rows_per_matrix)
            .min(TILE_ROWS)
            .min(row_hi - r);
        let base = layouts.map(|l| row_base(l, r));
        let mut j0 = 0;
        while j0 < inner {
            let len = TILE_COLS.min(inner - j0);
            let mut at = base;
            for (i, b) in at.iter_mut().enumerate() {
                *b += j0 as isize * col_strides[i];
            }
            f((r - row_lo) * inner + j0, at, g, len);
            j0 += len;
        }
        r += g;
    }
}

/// [`for_tile_blocks`] one run at a time: `f(pos, bases, len)` gets a run of `len` output
/// elements (a tile's row) at position `pos` counted from the first element of row
/// `row_lo`, and the offset of the run's first element in each of `layouts`; run element
/// `j` is at `bases[k] + j * stride` with the layout's last stride.
pub fn for_tiles<const K: usize>(
    shape: &[usize],
    layouts: [&Layout; K],
    row_lo: usize,
    row_hi: usize,
    mut f: impl FnMut(usize, [isize; K], usize),
) {
    let nd = shape.len();
    if row_lo >= row_hi {
        return;
    }
    let inner = shape[nd - 1];
    let row_strides: SmallVec<[isize; 4]> = layouts.iter().map(|l| l.strides[nd - 2]).collect();
    for_tile_blocks(shape, layouts, row_lo, row_hi, |pos, base, g, len| {
        for k in 0..g {
            let mut at = base;
            for (i, b) in at.iter_mut().enumerate() {
                *b += k as isize * row_strides[i];
            }
            f(pos + k * inner, at, len);
        }
    });
}

/// One tile of one operand: element `(k, j)`, `k < rows`, `j < cols`, sits at
/// `base + k * rs + j * cs` of its buffer.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    /// Offset of element `(0, 0)`.
    pub base: isize,
    /// Stride between the tile's rows.
    pub rs: isize,
    /// Stride between the tile's columns.
    pub cs: isize,
    /// Rows, at most [`TILE_ROWS`].
    pub rows: usize,
    /// Columns, at most [`TILE_COLS`].
    pub cols: usize,
}

impl Block {
    /// Whether memory runs along the tile's columns (`k`) rather than its rows: the
    /// element walk that reads (or writes) along memory goes column by column.
    pub fn by_columns(&self) -> bool {
        self.rs.unsigned_abs() < self.cs.unsigned_abs()
    }

    /// Offset of element `(k, j)`.
    #[inline(always)]
    pub fn at(&self, k: usize, j: usize) -> isize {
        self.base + k as isize * self.rs + j as isize * self.cs
    }

    /// The block of the same shape `cols` columns to the right: the one a tile walk
    /// visits next (except at the end of a band of rows).
    pub fn right(&self) -> Block {
        Block {
            base: self.base + self.cols as isize * self.cs,
            ..*self
        }
    }

    /// Hints the CPU to fetch the cache lines of this block of the buffer at `p` (`len`
    /// elements; lines outside it are skipped). A tile's runs lie a whole row of the matrix
    /// apart, in other pages, where the hardware prefetchers do not follow, and the few
    /// misses the core keeps in flight on its own left the transposing walks bound by
    /// memory latency: asking for the next tile's lines while the current one is worked on
    /// overlaps them.
    pub fn prefetch<T>(&self, p: *const T, len: usize) {
        let size = std::mem::size_of::<T>().max(1) as isize;
        let (runs, run_len, across, along) = if self.by_columns() {
            (self.cols, self.rows, self.cs, self.rs)
        } else {
            (self.rows, self.cols, self.rs, self.cs)
        };
        // one address per 64-byte line of each run, and the run's last element
        let step = (64 / (along.abs() * size).max(1)).max(1) as usize;
        let fetch = |off: isize| {
            if off >= 0 && (off as usize) < len {
                super::scatter_put::prefetch(p.wrapping_offset(off));
            }
        };
        for r in 0..runs {
            let start = self.base + r as isize * across;
            for i in (0..run_len).step_by(step) {
                fetch(start + i as isize * along);
            }
            fetch(start + (run_len as isize - 1) * along);
        }
    }

    /// Panics (an internal error, as an out-of-range index would) unless every element
    /// lies inside a buffer of `len` elements; the walks below rely on it.
    pub fn check(&self, len: usize) {
        assert!(
            self.rows > 0 && self.cols > 0 && self.rows <= TILE_ROWS && self.cols <= TILE_COLS,
            "internal: a tile of {} x {}",
            self.rows,
            self.cols
        );
        let (dr, dc) = (
            (self.rows - 1) as isize * self.rs,
            (self.cols - 1) as isize * self.cs,
        );
        let lo = self.base + dr.min(0) + dc.min(0);
        let hi = self.base + dr.max(0) + dc.max(0);
        assert!(
            lo >= 0 && (hi as usize) < len,
            "internal: a tile outside its buffer"
        );
    }
}

/// A tile's elements copied out of a strided view, row-major, for kernels that want
/// contiguous runs (the vectorised unary ones) or to write them in another order.
pub struct Tile<T> {
    buf: [[MaybeUninit<T>; TILE_COLS]; TILE_ROWS],
    rows: usize,
    cols: usize,
}

impl<T: Copy> Tile<T> {
    /// An empty tile (16 KiB at most, on the stack).
    pub fn new() -> Self {
        Tile {
            buf: [[MaybeUninit::uninit(); TILE_COLS]; TILE_ROWS],
            rows: 0,
            cols: 0,
        }
    }

    /// Copies block `b` of `src` into the tile, reading `src` along memory (column by
    /// column for a transposed block), so that each source line is used whole while it is
    /// in L1 rather than once per tile row: at a power-of-two row stride (16 KiB for a
    /// 4096-wide float32 matrix) the lines a tile row touches all fall in one L1 set, and a
    /// row-by-row walk missed on every element.
    pub fn gather(&mut self, src: &[T], b: Block) {
        b.check(src.len());
        let p = src.as_ptr();
        b.right().prefetch(p, src.len());
        let (rows, cols) = (b.rows, b.cols);
        if b.by_columns() {
            for j in 0..cols {
                let col = b.base + j as isize * b.cs;
                for (k, row) in self.buf[..rows].iter_mut().enumerate() {
                    // SAFETY: `b.check` put every element of the block inside `src`.
                    row[j].write(unsafe { *p.offset(col + k as isize * b.rs) });
                }
            }
        } else {
            for (k, row) in self.buf[..rows].iter_mut().enumerate() {
                let start = b.base + k as isize * b.rs;
                for (j, o) in row[..cols].iter_mut().enumerate() {
                    // SAFETY: as above.
                    o.write(unsafe { *p.offset(start + j as isize * b.cs) });
                }
            }
        }
        (self.rows, self.cols) = (rows, cols);
    }

    /// Row `k` of the last gathered block (`cols` elements).
    #[inline(always)]
    pub fn row(&self, k: usize) -> &[T] {
        let r = &self.buf[k][..self.cols];
        assert!(k < self.rows, "internal: tile row {k} not gathered");
        // SAFETY: `gather` wrote the first `cols` elements of its first `rows` rows;
        // `MaybeUninit<T>` has `T`'s layout.
        unsafe { &*(r as *const [MaybeUninit<T>] as *const [T]) }
    }
}

impl<T: Copy> Default for Tile<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// True when no two elements of `layout` share a storage offset (so disjoint parts of
/// the view can be written in parallel): sorted by stride, each dimension's step exceeds
/// the reach of all smaller ones. A broadcast (stride 0) dimension repeats elements.
pub fn distinct_elements(layout: &Layout) -> bool {
    let mut dims: SmallVec<[(usize, usize); 6]> = layout
        .shape
        .iter()
        .zip(&layout.strides)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (s.unsigned_abs(), n))
        .collect();
    dims.sort_unstable();
    let mut reach = 0usize;
    for (s, n) in dims {
        if s <= reach {
            return false;
        }
        match s.checked_mul(n - 1).and_then(|d| reach.checked_add(d)) {
            Some(r) => reach = r,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every output element is visited exactly once, at the source offset a row-major
    /// walk gives it, for a batch of transposed matrices with ragged tile edges.
    #[test]
    fn tiles_cover_each_element_once_at_its_offset() {
        let shape = [3usize, 45, 70];
        // the source is [3, 70, 45] contiguous, seen transposed in its last two dims
        let l = Layout {
            shape: shape.iter().copied().collect(),
            strides: [70 * 45, 1, 45].into_iter().collect(),
            offset: 5,
        };
        assert!(transposed(&l));
        let rows = 3 * 45;
        for (lo, hi) in [(0, rows), (7, 100), (44, 46)] {
            let mut seen = vec![None; (hi - lo) * 70];
            for_tiles(&shape, [&l], lo, hi, |pos, [b], len| {
                for j in 0..len {
                    assert!(seen[pos + j].is_none(), "visited twice");
                    seen[pos + j] = Some(b + j as isize * 45);
                }
            });
            for (p, s) in seen.iter().enumerate() {
                let row = lo + p / 70;
                let (m, i, j) = (row / 45, row % 45, p % 70);
                let want = 5 + (m * 70 * 45 + i + j * 45) as isize;
                assert_eq!(*s, Some(want), "element {p} of rows {lo}..{hi}");
            }
        }
    }

    #[test]
    fn only_views_whose_rows_run_along_memory_are_tiled() {
        let mk = |shape: &[usize], strides: &[isize]| Layout {
            shape: shape.iter().copied().collect(),
            strides: strides.iter().copied().collect(),
            offset: 0,
        };
        assert!(transposed(&mk(&[64, 64], &[1, 64])));
        assert!(!transposed(&mk(&[64, 64], &[64, 1]))); // contiguous
        assert!(!transposed(&mk(&[64, 64], &[0, 1]))); // broadcast rows
        assert!(!transposed(&mk(&[8, 64], &[1, 8]))); // too few rows to tile
        assert!(!transposed(&mk(&[64], &[2]))); // one dimension
    }

    /// A gathered tile holds element `(k, j)` at `base + k * rs + j * cs`, for a block read
    /// column by column (transposed), row by row, and with a negative stride.
    #[test]
    fn gather_copies_each_element_of_the_block() {
        let src: Vec<i32> = (0..4000).collect();
        let mut tile = Tile::new();
        for b in [
            Block {
                base: 7,
                rs: 1,
                cs: 60,
                rows: 64,
                cols: 13,
            },
            Block {
                base: 3,
                rs: 60,
                cs: 1,
                rows: 17,
                cols: 16,
            },
            Block {
                base: 3900,
                rs: -2,
                cs: -70,
                rows: 9,
                cols: 16,
            },
        ] {
            tile.gather(&src, b);
            for k in 0..b.rows {
                let want: Vec<i32> = (0..b.cols).map(|j| b.at(k, j) as i32).collect();
                assert_eq!(tile.row(k), want.as_slice(), "{b:?} row {k}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "outside its buffer")]
    fn a_block_past_the_buffer_is_refused() {
        let src = [0u8; 100];
        Tile::new().gather(
            &src,
            Block {
                base: 0,
                rs: 1,
                cs: 10,
                rows: 10,
                cols: 11,
            },
        );
    }

    #[test]
    fn distinct_elements_finds_repeated_offsets() {
        let mk = |shape: &[usize], strides: &[isize]| Layout {
            shape: shape.iter().copied().collect(),
            strides: strides.iter().copied().collect(),
            offset: 0,
        };
        assert!(distinct_elements(&mk(&[64, 64], &[1, 64])));
        assert!(distinct_elements(&mk(&[3, 64, 64], &[4096, -1, 64])));
        assert!(distinct_elements(&mk(&[1, 5, 7], &[0, 7, 1]))); // stride 0 of length 1
        assert!(!distinct_elements(&mk(&[5, 7], &[0, 1]))); // expanded
        assert!(!distinct_elements(&mk(&[4, 4], &[1, 2]))); // as_strided overlap
        assert!(distinct_elements(&mk(&[4, 4], &[1, 4])));
        assert!(distinct_elements(&mk(&[0, 4], &[0, 1]))); // empty
    }
}
