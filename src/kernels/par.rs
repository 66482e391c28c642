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

use rayon::prelude::*;

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
}
