//! Type-erased parallel loops: rayon's splitting machinery compiled once for all kernels.
//!
//! A rayon parallel iterator is generic over the closure it runs, so every kernel that
//! calls `par_chunks_mut(..).for_each(closure)` directly compiles its own copy of rayon's
//! bridge, join and job code (tens of KB of machine code each). With one copy per
//! elementwise closure that was about half of the extension's machine code and a like
//! share of its build time (docs/performance.md, "Build time"). Here the per-task work
//! is a `&dyn Fn`, called once per task (a chunk of thousands of elements), so the
//! indirect call costs nothing measurable, and the kernel's own loop stays monomorphic
//! and inlined inside its closure.

use crate::error::{Error, Result};
use crate::storage::try_vec_with_capacity;
use parking_lot::Mutex;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Runs `task(i)` for every `i` in `0..tasks` on the rayon pool (any order, any thread).
pub fn for_each_task(tasks: usize, task: &(dyn Fn(usize) + Sync)) {
    (0..tasks).into_par_iter().for_each(task);
}

/// A raw pointer that may cross threads: the tasks that use it touch disjoint elements.
struct SharedPtr<T>(*mut T);

// SAFETY: `for_each_chunk` hands each task a disjoint sub-slice of one `&mut [T]`, which
// is what `par_chunks_mut` does for `T: Send`.
unsafe impl<T: Send> Sync for SharedPtr<T> {}

impl<T> SharedPtr<T> {
    /// The pointer (a method, so that closures capture the whole `Sync` wrapper).
    fn get(&self) -> *mut T {
        self.0
    }
}

/// Splits `out` into chunks of `chunk` elements (the last may be shorter) and runs
/// `f(start, chunk)` on each in parallel, `start` being the chunk's index in `out`:
/// `par_chunks_mut(chunk).enumerate().for_each(..)` without a per-closure copy of rayon.
pub fn for_each_chunk<T: Send>(out: &mut [T], chunk: usize, f: &(dyn Fn(usize, &mut [T]) + Sync)) {
    let len = out.len();
    let chunk = chunk.max(1);
    let base = SharedPtr(out.as_mut_ptr());
    for_each_task(len.div_ceil(chunk), &|i| {
        let start = i * chunk;
        let n = chunk.min(len - start);
        // SAFETY: task i alone gets `start..start + n`, inside `out`, which stays mutably
        // borrowed (so unaliased) until every task has returned.
        let c = unsafe { std::slice::from_raw_parts_mut(base.get().add(start), n) };
        f(start, c)
    });
}

/// The task of [`for_each_chunk2`]: `(start, a_chunk, b_chunk)`.
pub type Chunk2Task<'a, A, B> = dyn Fn(usize, &mut [A], &mut [B]) + Sync + 'a;

/// [`for_each_chunk`] over two slices of one length, cut at the same places:
/// `f(start, a_chunk, b_chunk)`.
pub fn for_each_chunk2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    chunk: usize,
    f: &Chunk2Task<'_, A, B>,
) {
    assert_eq!(
        a.len(),
        b.len(),
        "for_each_chunk2: slices of different lengths"
    );
    let (pa, pb) = (SharedPtr(a.as_mut_ptr()), SharedPtr(b.as_mut_ptr()));
    let len = a.len();
    let chunk = chunk.max(1);
    for_each_task(len.div_ceil(chunk), &|i| {
        let start = i * chunk;
        let n = chunk.min(len - start);
        // SAFETY: as in `for_each_chunk`, for each of the two slices.
        let (ca, cb) = unsafe {
            (
                std::slice::from_raw_parts_mut(pa.get().add(start), n),
                std::slice::from_raw_parts_mut(pb.get().add(start), n),
            )
        };
        f(start, ca, cb)
    });
}

/// `rayon::join` of two closures returning results: both run, possibly in parallel;
/// rayon's join code is compiled once (the closures are `dyn`), not once per caller.
pub fn join<RA: Send, RB: Send>(
    a: impl FnOnce() -> RA + Send,
    b: impl FnOnce() -> RB + Send,
) -> (RA, RB) {
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut ra, mut rb) = (None, None);
    join_erased(&mut || ra = a.take().map(|f| f()), &mut || {
        rb = b.take().map(|f| f())
    });
    // both closures ran to completion (a panic in either propagates out of join_erased)
    (
        ra.expect("join: first task ran"),
        rb.expect("join: second task ran"),
    )
}

fn join_erased(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    rayon::join(a, b);
}

/// The not-yet-written part of one block of a vector being built by [`build_blocks`]:
/// [`Fresh::next`] hands out the next elements, zeroed, as a plain slice. Zeroing a
/// piece just before the kernel overwrites it costs a cache-hot write instead of a
/// serial pass over the whole output ahead of the kernel, and no element is ever
/// left uninitialised: what a task does not take is zeroed when it returns.
pub struct Fresh<'a, T: Copy> {
    rest: &'a mut [MaybeUninit<T>],
    zero: T,
}

impl<'a, T: Copy> Fresh<'a, T> {
    /// Elements not handed out yet.
    pub fn len(&self) -> usize {
        self.rest.len()
    }

    /// Whether every element was handed out.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The next `len` elements (fewer at the end of the block), set to the zero value.
    pub fn next(&mut self, len: usize) -> &'a mut [T] {
        let rest = std::mem::take(&mut self.rest);
        let (head, tail) = rest.split_at_mut(len.min(rest.len()));
        self.rest = tail;
        head.fill(MaybeUninit::new(self.zero));
        // SAFETY: every element of `head` was just written; `MaybeUninit<T>` has `T`'s
        // layout.
        unsafe { &mut *(head as *mut [MaybeUninit<T>] as *mut [T]) }
    }
}

impl<T: Copy> Drop for Fresh<'_, T> {
    fn drop(&mut self) {
        let zero = self.zero;
        self.rest.fill(MaybeUninit::new(zero));
    }
}

/// Builds a vector of `len` elements in `blocks` tasks: task `i` writes elements
/// `i*block_len..min((i+1)*block_len, len)` through a [`Fresh`] (zeroed pieces on
/// demand) and returns a result of its own; the results come back in block order, so
/// that reductions over them do not depend on scheduling. The tasks run on the pool
/// when `parallel` (each on any thread), else in order on this thread. `len` may be
/// zero (blocks with no output of their own, e.g. weight gradients only). The first
/// error (by block index) is returned.
pub fn build_blocks<T: Copy + Send + Sync, P: Send>(
    len: usize,
    blocks: usize,
    block_len: usize,
    zero: T,
    parallel: bool,
    task: &(dyn Fn(usize, &mut Fresh<'_, T>) -> Result<P> + Sync),
) -> Result<(Vec<T>, Vec<P>)> {
    let covered = blocks.checked_mul(block_len).filter(|&c| c >= len);
    if covered.is_none() {
        return Err(Error::runtime(
            "internal: build_blocks does not cover the output",
        ));
    }
    let mut out = try_vec_with_capacity::<T>(len)?;
    let slots: Vec<Mutex<Option<Result<P>>>> = (0..blocks).map(|_| Mutex::new(None)).collect();
    {
        let spare = &mut out.spare_capacity_mut()[..len];
        let base = SharedPtr(spare.as_mut_ptr());
        let run = |i: usize| {
            let start = (i * block_len).min(len);
            let n = block_len.min(len - start);
            // SAFETY: block i alone gets `start..start + n`, inside `spare`, which stays
            // mutably borrowed until every task has returned.
            let rest = unsafe { std::slice::from_raw_parts_mut(base.get().add(start), n) };
            let mut fresh = Fresh { rest, zero };
            let r = task(i, &mut fresh);
            drop(fresh); // zeroes what the task left
            *slots[i].lock() = Some(r);
        };
        if parallel && blocks > 1 {
            for_each_task(blocks, &run);
        } else {
            (0..blocks).for_each(run);
        }
    }
    // SAFETY: each block's `Fresh` wrote every element of its range (what the task did
    // not take on drop), and the blocks cover `0..len`.
    unsafe { out.set_len(len) };
    let mut parts = Vec::with_capacity(blocks);
    for slot in slots {
        match slot.into_inner() {
            Some(r) => parts.push(r?),
            None => return Err(Error::runtime("internal: a build_blocks task did not run")),
        }
    }
    Ok((out, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_task_runs_once() {
        let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        for_each_task(hits.len(), &|i| {
            hits[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        for_each_task(0, &|_| panic!("no task expected"));
    }

    #[test]
    fn chunks_cover_the_slice_in_order() {
        let mut v = vec![0usize; 10_007];
        for_each_chunk(&mut v, 1000, &|start, c| {
            assert!(c.len() == 1000 || start == 10_000 && c.len() == 7);
            for (j, x) in c.iter_mut().enumerate() {
                *x = start + j;
            }
        });
        assert!(v.iter().enumerate().all(|(i, &x)| i == x));
        let mut empty: Vec<u8> = Vec::new();
        for_each_chunk(&mut empty, 16, &|_, _| panic!("no chunk expected"));
    }

    #[test]
    fn chunk_pairs_line_up() {
        let mut a = vec![0usize; 5000];
        let mut b = vec![0i8; 5000];
        for_each_chunk2(&mut a, &mut b, 64, &|start, ca, cb| {
            assert_eq!(ca.len(), cb.len());
            for j in 0..ca.len() {
                ca[j] = start + j;
                cb[j] = ((start + j) % 7) as i8;
            }
        });
        assert!((0..5000).all(|i| a[i] == i && b[i] == (i % 7) as i8));
    }

    #[test]
    fn join_returns_both_results() {
        let v: Vec<u64> = (1..=100_000).collect();
        let (l, r) = v.split_at(50_000);
        let (a, b) = join(|| l.iter().sum::<u64>(), || r.iter().max().copied());
        assert_eq!((a, b), (1_250_025_000, Some(100_000)));
    }

    #[test]
    fn blocks_build_the_whole_vector_in_order() {
        // 10 elements in blocks of 4: the last block short; a task that takes less
        // than its block leaves zeros; results come back in block order
        for parallel in [false, true] {
            let (v, parts) = build_blocks(10, 3, 4, 0u32, parallel, &|i, f| {
                let first = f.next(2);
                first.iter_mut().for_each(|x| *x = i as u32 + 1);
                Ok(i * 10 + f.len())
            })
            .unwrap();
            assert_eq!(v, [1, 1, 0, 0, 2, 2, 0, 0, 3, 3]);
            assert_eq!(parts, [2, 12, 20]);
        }
        // no output of their own: the blocks still run
        let (v, parts) = build_blocks(0, 4, 0, 0.0f32, true, &|i, f| {
            assert!(f.is_empty() && f.next(3).is_empty());
            Ok(i)
        })
        .unwrap();
        assert!(v.is_empty());
        assert_eq!(parts, [0, 1, 2, 3]);
    }

    #[test]
    fn blocks_report_the_first_error_and_a_short_cover() {
        let r = build_blocks(8, 4, 2, 0i8, true, &|i, _| {
            if i % 2 == 1 {
                Err(Error::value(format!("block {i}")))
            } else {
                Ok(())
            }
        });
        assert!(r.unwrap_err().to_string().contains("block 1"));
        assert!(build_blocks(9, 2, 4, 0i8, false, &|_, _| Ok(())).is_err());
    }
}
