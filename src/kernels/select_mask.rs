//! Boolean-mask compaction, the kernel of `masked_select` and of `a[mask]` with a mask of
//! the tensor's whole shape: the elements at the mask's true positions, in row-major order.
//!
//! Two passes over blocks of [`BLOCK`] mask elements, threaded when large: the true count of
//! every block, then (with each block's output offset from the prefix sum of the counts)
//! every block copies its selected elements into its own part of the output. The copy
//! reads the mask eight bytes at a time: an all-false word is skipped, an all-true word
//! copies eight elements, and a mixed word runs a branch-free loop (write the element,
//! advance the output cursor by the mask bit) over the eight values. Blocks and their offsets depend only on the
//! mask, so the result is the same for any thread count.

use crate::error::Result;
use crate::storage::try_vec_with_capacity;
use std::mem::MaybeUninit;

/// Mask elements per block (a task of each pass).
pub const BLOCK: usize = 1 << 16;
/// Mask elements below which both passes run on the calling thread.
const PAR_MIN: usize = 1 << 18;

/// The mask as bytes (0 or 1 each).
fn bytes(mask: &[bool]) -> &[u8] {
    // SAFETY: `bool` is one byte holding 0 or 1, so every bool slice is a valid u8 slice
    // of the same length.
    unsafe { std::slice::from_raw_parts(mask.as_ptr() as *const u8, mask.len()) }
}

/// Whether the passes over `n` mask elements run on the rayon pool.
fn parallel(n: usize) -> bool {
    n >= PAR_MIN && crate::interrupt::parallel_allowed()
}

/// The number of true elements of `mask` (a vectorised byte sum, threaded when large).
pub fn count_true(mask: &[bool]) -> usize {
    block_counts(mask).iter().sum()
}

/// True count of each [`BLOCK`]-element block of `mask`.
fn block_counts(mask: &[bool]) -> Vec<usize> {
    let m = bytes(mask);
    // a block's count fits in u32 (BLOCK < 2^32), and u32 lanes vectorise well
    let count = |b: &[u8]| b.iter().map(|&x| x as u32).sum::<u32>() as usize;
    let mut counts = vec![0usize; m.len().div_ceil(BLOCK)];
    if parallel(m.len()) {
        crate::kernels::par::for_each_chunk(&mut counts, 1, &|i, c| {
            c[0] = count(&m[i * BLOCK..((i + 1) * BLOCK).min(m.len())]);
        });
    } else {
        for (c, b) in counts.iter_mut().zip(m.chunks(BLOCK)) {
            *c = count(b);
        }
    }
    counts
}

/// Where the selected elements come from: element `i`, and the eight elements from `i`.
trait Pick<T>: Sync {
    fn one(&self, i: usize) -> T;
    fn eight(&self, i: usize) -> [T; 8];
}

/// The elements of a slice.
struct Values<'a, T>(&'a [T]);

impl<T: Copy + Sync> Pick<T> for Values<'_, T> {
    #[inline(always)]
    fn one(&self, i: usize) -> T {
        self.0[i]
    }
    #[inline(always)]
    fn eight(&self, i: usize) -> [T; 8] {
        self.0[i..i + 8].try_into().expect("8 elements")
    }
}

/// The positions themselves.
struct Positions;

impl Pick<usize> for Positions {
    #[inline(always)]
    fn one(&self, i: usize) -> usize {
        i
    }
    #[inline(always)]
    fn eight(&self, i: usize) -> [usize; 8] {
        std::array::from_fn(|j| i + j)
    }
}

/// Writes element `base + i` of `pick` for every true `mask[i]`, in order, into `out`,
/// which has exactly one slot per true element (all of them get written).
#[inline(always)]
fn fill_block<T: Copy, P: Pick<T>>(mask: &[u8], base: usize, out: &mut [MaybeUninit<T>], pick: &P) {
    let mut k = 0usize;
    let words = mask.chunks_exact(8);
    let tail = words.remainder();
    let tail_at = mask.len() - tail.len();
    for (w, bits) in words.enumerate() {
        let bits: &[u8; 8] = bits.try_into().expect("8-byte chunk");
        let word = u64::from_ne_bytes(*bits);
        let at = base + w * 8;
        if word == 0 {
            continue;
        }
        let vals = pick.eight(at);
        if word == 0x0101_0101_0101_0101 {
            for (o, &v) in out[k..k + 8].iter_mut().zip(&vals) {
                *o = MaybeUninit::new(v);
            }
            k += 8;
        } else if k + 8 <= out.len() {
            // branch-free: every element is written at the cursor, which advances by the
            // mask bit; a slot written by a false element is rewritten by the true one of
            // its rank, which comes later in this block (`& 7` is a no-op: the cursor is
            // at most the element's index in the word, but drops the bounds check)
            let dst = &mut out[k..k + 8];
            let mut c = 0usize;
            for (&v, &b) in vals.iter().zip(bits) {
                dst[c & 7] = MaybeUninit::new(v);
                c += b as usize;
            }
            k += c;
        } else {
            // the block's last slots: only true elements are written
            for (&v, &b) in vals.iter().zip(bits) {
                if b != 0 {
                    out[k] = MaybeUninit::new(v);
                    k += 1;
                }
            }
        }
    }
    for (j, &b) in tail.iter().enumerate() {
        if b != 0 {
            out[k] = MaybeUninit::new(pick.one(base + tail_at + j));
            k += 1;
        }
    }
    debug_assert_eq!(k, out.len());
}

/// Element `i` of `pick` for every true `mask[i]`, in increasing `i`: the two-pass
/// blocked compaction.
fn compact_with<T: Copy + Send + Sync, P: Pick<T>>(mask: &[bool], pick: P) -> Result<Vec<T>> {
    let counts = block_counts(mask);
    let total: usize = counts.iter().sum();
    let mut out = try_vec_with_capacity::<T>(total)?;
    {
        let m = bytes(mask);
        let mut rest = &mut out.spare_capacity_mut()[..total];
        let mut pieces: Vec<&mut [MaybeUninit<T>]> = Vec::with_capacity(counts.len());
        for &c in &counts {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(c);
            pieces.push(head);
            rest = tail;
        }
        let run = |i: usize, piece: &mut [MaybeUninit<T>]| {
            let block = &m[i * BLOCK..((i + 1) * BLOCK).min(m.len())];
            fill_block(block, i * BLOCK, piece, &pick);
        };
        if parallel(m.len()) {
            crate::kernels::par::for_each_chunk(&mut pieces, 1, &|i, p| run(i, &mut *p[0]));
        } else {
            for (i, p) in pieces.iter_mut().enumerate() {
                run(i, p);
            }
        }
    }
    // SAFETY: block i's piece holds exactly its `counts[i]` slots and `fill_block` wrote
    // every one of them (slot k by the block's k-th true element); the pieces tile
    // `0..total`.
    unsafe { out.set_len(total) };
    Ok(out)
}

/// The elements of `src` where `mask` (of the same length, both row-major) is true.
pub fn masked_values<T: Copy + Send + Sync>(src: &[T], mask: &[bool]) -> Result<Vec<T>> {
    assert_eq!(src.len(), mask.len(), "masked_values: lengths differ");
    compact_with(mask, Values(src))
}

/// The positions of the true elements of `mask`, increasing.
pub fn mask_positions(mask: &[bool]) -> Result<Vec<usize>> {
    compact_with(mask, Positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(mask: &[bool]) -> Vec<usize> {
        (0..mask.len()).filter(|&i| mask[i]).collect()
    }

    #[test]
    fn compaction_matches_a_filter_across_blocks_and_words() {
        for n in [0, 1, 7, 8, 9, 63, 64, 65, BLOCK - 1, BLOCK + 3, PAR_MIN + 5] {
            // runs of all-true and all-false words, and mixed words
            let mask: Vec<bool> = (0..n)
                .map(|i| (i / 16) % 3 == 0 || (i * 7919) % 5 == 1)
                .collect();
            let want = reference(&mask);
            assert_eq!(mask_positions(&mask).unwrap(), want, "n = {n}");
            let src: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let vals = masked_values(&src, &mask).unwrap();
            assert_eq!(vals, want.iter().map(|&i| src[i]).collect::<Vec<_>>());
            assert_eq!(count_true(&mask), want.len());
        }
    }

    #[test]
    fn all_true_and_all_false() {
        let n = PAR_MIN + 13;
        assert!(mask_positions(&vec![false; n]).unwrap().is_empty());
        let all = mask_positions(&vec![true; n]).unwrap();
        assert_eq!(all, (0..n).collect::<Vec<_>>());
    }
}
