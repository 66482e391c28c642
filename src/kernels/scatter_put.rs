//! Fused scatter / scatter-add along a dimension for the common case where the index has
//! the tensor's shape outside that dimension (every 1-D scatter, and `scatter(dim, i, s)`
//! with `i` shaped like `x` but along `dim`).
//!
//! The general path ([`crate::kernels::scatter::scatter_linear`] then
//! [`crate::kernels::index::put`]) first writes one `usize` linear index per position
//! (128 MB for 16M positions) and reads it back in a loop whose random read-modify-writes
//! miss the cache one after another. Here each index is wrapped, checked and turned into
//! its target in the same pass that applies it, and the target of the position
//! [`AHEAD`] places further on is computed early and prefetched, so that many cache misses
//! are in flight at once (docs/performance-kernels.md, "Scatter with random indices").
//!
//! One thread: splitting the destination into ranges (each task reading the whole index
//! and applying only its own targets, which keeps the serial result bit for bit) was
//! measured and rejected: on the 2-core test machine the two tasks' random accesses ran
//! at half speed each, so the split only added the second read of the index.

use crate::error::{Error, Result};
use crate::kernels::index::{Accumulate, NegIndex};

/// How many positions ahead of the one being applied a target is computed and
/// prefetched (a power of two: the ring of pending targets is indexed modulo it).
/// Measured on 16M random float32 targets: 32 and 128 are within 4% of 64.
const AHEAD: usize = 64;

/// Whether [`scatter_put`] handles a scatter of an index of `index_shape` into a tensor of
/// `shape` along `dim`: same rank, the same sizes outside `dim`.
pub fn is_aligned(shape: &[usize], dim: usize, index_shape: &[usize]) -> bool {
    !shape.is_empty()
        && dim < shape.len()
        && index_shape.len() == shape.len()
        && (0..shape.len()).all(|d| d == dim || index_shape[d] == shape[d])
}

/// The row-major targets of the positions of an aligned index, in order, each validated.
#[derive(Clone, Copy)]
struct Targets<'a> {
    index: &'a [i64],
    /// What an index below 0 means.
    neg: NegIndex<'a>,
    dim: usize,
    /// `shape[dim]`.
    size: usize,
    /// Elements per step along `dim` (the product of the sizes after it).
    inner: usize,
    /// `index_shape[dim]`.
    k: usize,
    /// Position of the next target in `index`.
    p: usize,
    /// Row-major offset of the current outer block (`o * size * inner`).
    base: usize,
    /// Counters within the block: step along `dim` and position after it.
    kk: usize,
    i: usize,
}

impl Targets<'_> {
    /// The target of the next position; `None` (nothing advanced) when its index is out
    /// of range ([`Targets::error`] then names it).
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let w = self.neg.wrap(self.index[self.p], self.size)?;
        // cannot overflow: the target lies inside the destination (a valid slice length)
        let l = self.base + w * self.inner + self.i;
        self.p += 1;
        self.i += 1;
        if self.i == self.inner {
            self.i = 0;
            self.kk += 1;
            if self.kk == self.k {
                self.kk = 0;
                self.base += self.size * self.inner;
            }
        }
        Some(l)
    }

    /// The `IndexError` of the index at the current position.
    #[cold]
    fn error(&self, op: &str) -> Error {
        let (v, dim, size) = (self.index[self.p], self.dim, self.size);
        self.neg.error(v, dim, size, || {
            Error::index(format!(
                "{op}: index {v} is out of bounds for dimension {dim} with size {size}"
            ))
        })
    }
}

/// Hints the CPU to bring the cache line of `p` into L1 (no effect on other targets).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch never faults and has no architectural effect, whatever `p` is.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// Applies every position to `dst` in input order (`ADD`: accumulate, else overwrite).
fn apply<T: Accumulate, const ADD: bool>(
    dst: &mut [T],
    mut targets: Targets<'_>,
    vals: &[T],
    op: &str,
) -> Result<()> {
    let m = vals.len();
    // (a macro, not a closure: the closure was not inlined into the loop)
    macro_rules! next {
        () => {
            match targets.next() {
                Some(t) => t,
                None => return Err(targets.error(op)),
            }
        };
    }
    // targets lie inside `dst` by construction; the loop still indexes with a check
    let mut ring = [0usize; AHEAD];
    for slot in ring.iter_mut().take(m) {
        *slot = next!();
        prefetch(dst.as_ptr().wrapping_add(*slot));
    }
    for (p, &v) in vals.iter().enumerate() {
        let l = ring[p % AHEAD];
        if p + AHEAD < m {
            let t = next!();
            prefetch(dst.as_ptr().wrapping_add(t));
            ring[p % AHEAD] = t;
        }
        let d = &mut dst[l];
        *d = if ADD { d.accumulate(v) } else { v };
    }
    Ok(())
}

/// Scatters `vals` (row-major, shaped like the index) into the contiguous `dst` of
/// `shape` along `dim`: position `m` of the index goes to `m with m[dim] = index[m]`
/// (negative indices count from the end, or are refused, as `neg` says), adding to what is there when `accumulate`,
/// else overwriting (with duplicates, the last in input order wins). The index must be
/// aligned ([`is_aligned`]). An out-of-range index is an `IndexError` naming the first
/// one; `dst` may then be partly written (callers scatter into a fresh copy).
#[allow(clippy::too_many_arguments)]
pub fn scatter_put<T: Accumulate>(
    dst: &mut [T],
    shape: &[usize],
    dim: usize,
    index: &[i64],
    index_shape: &[usize],
    vals: &[T],
    accumulate: bool,
    op: &str,
    neg: NegIndex<'_>,
) -> Result<()> {
    let aligned = is_aligned(shape, dim, index_shape)
        && crate::layout::checked_numel(shape)? == dst.len()
        && crate::layout::checked_numel(index_shape)? == index.len();
    if !aligned {
        return Err(Error::runtime(format!(
            "internal: {op}: an index of shape {index_shape:?} ({} values) is not aligned \
             with a tensor of shape {shape:?} ({} elements) along dimension {dim}",
            index.len(),
            dst.len()
        )));
    }
    if vals.len() != index.len() {
        return Err(Error::value(format!(
            "{op}: {} values for {} indices; they must match",
            vals.len(),
            index.len()
        )));
    }
    if index.is_empty() {
        return Ok(());
    }
    let targets = Targets {
        index,
        neg,
        dim,
        size: shape[dim],
        inner: shape[dim + 1..].iter().product(),
        k: index_shape[dim],
        p: 0,
        base: 0,
        kk: 0,
        i: 0,
    };
    // two monomorphic loops: no per-element test of `accumulate`
    if accumulate {
        apply::<T, true>(dst, targets, vals, op)
    } else {
        apply::<T, false>(dst, targets, vals, op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::index::put;
    use crate::kernels::scatter::scatter_linear;
    use crate::layout::Layout;

    /// The general path: linear indices, then the serial put.
    fn reference<T: Accumulate>(
        x: &[T],
        shape: &[usize],
        dim: usize,
        index: &[i64],
        index_shape: &[usize],
        vals: &[T],
        accumulate: bool,
    ) -> Result<Vec<T>> {
        let lin = scatter_linear(shape, dim, index, index_shape, "t", NegIndex::Wrap)?;
        let mut out = x.to_vec();
        put(
            &mut out,
            &Layout::contiguous(shape),
            &lin,
            vals,
            accumulate,
            "t",
        )?;
        Ok(out)
    }

    /// A deterministic pseudo-random stream (xorshift).
    fn stream(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed | 1;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    #[test]
    fn matches_the_general_path_bit_for_bit() {
        let mut r = stream(7);
        // small and large, shapes with every dim
        for (shape, dim, k) in [
            (vec![10usize], 0usize, 25usize),
            (vec![AHEAD - 1], 0, AHEAD - 1),
            (vec![AHEAD + 1], 0, AHEAD),
            (vec![1 << 18], 0, (1 << 18) + 3),
            (vec![3, 1 << 17], 0, 5),
            (vec![1 << 17, 3], 1, 4),
            (vec![64, 8, 600], 1, 9),
            (vec![4, 5, 6], 2, 1),
        ] {
            let mut ishape = shape.clone();
            ishape[dim] = k;
            let n: usize = shape.iter().product();
            let m: usize = ishape.iter().product();
            let size = shape[dim] as u64;
            for distinct in [size, 3, 1] {
                let index: Vec<i64> = (0..m)
                    .map(|_| {
                        let v = (r() % distinct) as i64;
                        if r().is_multiple_of(4) {
                            v - size as i64 // the same element, counted from the end
                        } else {
                            v
                        }
                    })
                    .collect();
                let x: Vec<f32> = (0..n).map(|_| (r() % 1000) as f32 * 0.37).collect();
                let vals: Vec<f32> = (0..m).map(|_| (r() % 1000) as f32 * 0.013).collect();
                for accumulate in [true, false] {
                    let want =
                        reference(&x, &shape, dim, &index, &ishape, &vals, accumulate).unwrap();
                    let same = |got: &[f32]| {
                        want.iter()
                            .zip(got)
                            .all(|(a, b)| a.to_bits() == b.to_bits())
                    };
                    let mut got = x.clone();
                    let wrap = NegIndex::Wrap;
                    scatter_put(
                        &mut got, &shape, dim, &index, &ishape, &vals, accumulate, "t", wrap,
                    )
                    .unwrap();
                    assert!(
                        same(&got),
                        "{shape:?} dim {dim} k {k} {distinct} {accumulate}"
                    );
                }
            }
        }
    }

    #[test]
    fn bad_indices_name_the_first_one() {
        for n in [5usize, 3 * AHEAD] {
            let mut index = vec![0i64; n];
            index[n - 3] = n as i64;
            index[n - 1] = -(n as i64) - 1;
            let vals = vec![1.0f64; n];
            let mut dst = vec![0.0f64; n];
            let e = scatter_put(
                &mut dst,
                &[n],
                0,
                &index,
                &[n],
                &vals,
                true,
                "op",
                NegIndex::Wrap,
            );
            let e = e.unwrap_err();
            assert_eq!(
                e.message,
                format!("op: index {n} is out of bounds for dimension 0 with size {n}")
            );
        }
        let mut dst = vec![0i64; 4];
        assert!(scatter_put(
            &mut dst,
            &[4],
            0,
            &[0, 1],
            &[2],
            &[1],
            true,
            "t",
            NegIndex::Wrap
        )
        .is_err());
        assert!(scatter_put(
            &mut dst,
            &[2, 2],
            0,
            &[0, 1],
            &[1, 2],
            &[1, 1],
            true,
            "t",
            NegIndex::Wrap
        )
        .is_ok());
        // not aligned: a smaller index outside `dim` takes the general path
        assert!(scatter_put(
            &mut dst,
            &[2, 2],
            0,
            &[0],
            &[1, 1],
            &[1],
            true,
            "t",
            NegIndex::Wrap
        )
        .is_err());
        assert!(scatter_put(
            &mut dst,
            &[4],
            0,
            &[],
            &[0],
            &[],
            false,
            "t",
            NegIndex::Wrap
        )
        .is_ok());
        // position (0, j) of the [1, 2] index writes row index[j], column j
        assert_eq!(dst, vec![1, 0, 0, 1]);
    }

    #[test]
    fn refuse_mode_names_the_first_negative_index() {
        let n = 3 * AHEAD;
        let mut index: Vec<i64> = (0..n as i64).collect();
        index[AHEAD + 5] = -1; // past the first ring of prefetched targets
        index[n - 1] = -2;
        let vals = vec![1.0f32; n];
        let mut dst = vec![0.0f32; n];
        let refuse = NegIndex::Refuse("index_add_");
        let e = scatter_put(&mut dst, &[n], 0, &index, &[n], &vals, true, "op", refuse);
        let msg = e.unwrap_err().message;
        let want = format!(
            "index_add_: index -1 is out of bounds for dimension 0 with size {n}: PyTorch's \
             index_add_ takes indices in [0, {n})"
        );
        assert!(msg.starts_with(&want), "{msg}");
        // the same index wrapped: -1 lands on the last element, -2 on the one before
        let mut dst = vec![0.0f32; n];
        let wrap = NegIndex::Wrap;
        scatter_put(&mut dst, &[n], 0, &index, &[n], &vals, true, "op", wrap).unwrap();
        assert_eq!((dst[n - 1], dst[n - 2], dst[AHEAD + 5]), (1.0, 2.0, 0.0));
    }
}
