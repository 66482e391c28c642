//! Per-thread free lists for small blocks, in front of the system allocator.
//!
//! An autograd graph is made of many small blocks of a few sizes (a node, its boxed
//! closure, the output's `TensorImpl` and `Storage`), allocated one by one while the
//! forward pass runs and freed in one burst when the graph is dropped. glibc keeps only 7
//! freed blocks of each size in its per-thread cache; past that every free takes its slow
//! path (the block is merged with its free neighbours and sorted into a bin) and every
//! allocation of the next pass splits one out again. A 10,000-op chain paid about 800
//! instructions per op for that (docs/performance.md, issue 23 item 4).
//!
//! These lists keep freed blocks of up to [`MAX_SIZE`] bytes (alignment up to
//! [`ALIGN`]) per thread, one singly linked list per 16-byte size class, the link stored
//! in the freed block itself, up to [`THREAD_LIMIT`] bytes per thread; past that a block
//! goes back to the system allocator. Every block of a class is allocated from the system
//! with the class's full size and alignment [`ALIGN`], so any request of the class fits
//! any block of it, and a block is always released to the system with the layout it was
//! allocated with.
//!
//! What a thread holds goes back to the system allocator when the thread exits (a
//! thread-local destructor), or when [`release_thread`] is called on it. A block freed on
//! another thread than the one that allocated it simply joins that thread's lists (system
//! blocks have no thread affinity). After a `fork` the child keeps the forking thread's
//! lists, like glibc's own per-thread cache. Enabled only where thread-local destructors
//! are registered without allocating (glibc's `__cxa_thread_atexit_impl`); elsewhere
//! every call goes straight to the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};

/// Largest block size kept (bytes).
pub const MAX_SIZE: usize = 1024;
/// Largest alignment kept; every kept block has this alignment.
pub const ALIGN: usize = 16;
/// Most bytes of free blocks one thread keeps.
pub const THREAD_LIMIT: usize = 16 << 20;

const CLASSES: usize = MAX_SIZE / ALIGN;

/// True if blocks of `layout` go through the lists (decided by the layout alone, so an
/// allocation and its release always take the same path).
#[inline(always)]
pub fn handles(layout: Layout) -> bool {
    ENABLED && layout.size() <= MAX_SIZE && layout.align() <= ALIGN
}

const ENABLED: bool = cfg!(all(target_os = "linux", target_env = "gnu", not(miri)));

/// The size class of a non-zero `size` of at most [`MAX_SIZE`]: blocks of
/// `(class + 1) * ALIGN` bytes.
#[inline(always)]
fn class_of(size: usize) -> usize {
    (size.max(1) - 1) / ALIGN
}

/// The layout a block of `class` is allocated from and released to the system with.
#[inline(always)]
fn class_layout(class: usize) -> Layout {
    // SAFETY: the size is a non-zero multiple of the power-of-two alignment, far below
    // isize::MAX.
    unsafe { Layout::from_size_align_unchecked((class + 1) * ALIGN, ALIGN) }
}

struct Lists {
    /// The first free block of each class (null: none); each free block's first word
    /// points at the next.
    heads: [*mut u8; CLASSES],
    /// Bytes held in all lists.
    held: usize,
}

impl Lists {
    /// Gives every held block back to the system allocator.
    fn release(&mut self) {
        for (class, head) in self.heads.iter_mut().enumerate() {
            let layout = class_layout(class);
            let mut p = std::mem::replace(head, std::ptr::null_mut());
            while !p.is_null() {
                // SAFETY: every block in a list is a free block of `class`, allocated from
                // `System` with `class_layout(class)`, whose first word is the next link.
                unsafe {
                    let next = p.cast::<*mut u8>().read();
                    System.dealloc(p, layout);
                    p = next;
                }
            }
        }
        self.held = 0;
    }
}

impl Drop for Lists {
    fn drop(&mut self) {
        self.release();
    }
}

thread_local! {
    // (const-initialised: the first use registers the destructor and nothing else; glibc
    // registers it with its own `calloc`, never with this allocator)
    static LISTS: std::cell::UnsafeCell<Lists> = const {
        std::cell::UnsafeCell::new(Lists { heads: [std::ptr::null_mut(); CLASSES], held: 0 })
    };
}

/// Allocates a block for `layout` (which [`handles`] accepted): a kept one if the
/// thread has one of its class, else a fresh one from the system.
///
/// # Safety
/// `layout` must have a non-zero size and satisfy [`handles`].
#[inline]
pub unsafe fn alloc(layout: Layout) -> *mut u8 {
    let class = class_of(layout.size());
    let kept = LISTS
        .try_with(|l| {
            // SAFETY: only this thread touches its lists, and nothing in here allocates
            // or frees, so no other borrow of them is live (the allocator is not
            // re-entered).
            let l = unsafe { &mut *l.get() };
            let p = l.heads[class];
            if !p.is_null() {
                // SAFETY: `p` is a free block of `class` whose first word is the next link.
                l.heads[class] = unsafe { p.cast::<*mut u8>().read() };
                l.held -= (class + 1) * ALIGN;
            }
            p
        })
        .unwrap_or(std::ptr::null_mut());
    if !kept.is_null() {
        return kept;
    }
    // SAFETY: a non-zero size.
    unsafe { System.alloc(class_layout(class)) }
}

/// Releases a block allocated by [`alloc`] with `layout`: kept on this thread's list of
/// its class while the thread holds less than [`THREAD_LIMIT`], else freed.
///
/// # Safety
/// `ptr` must come from [`alloc`] with a layout of the same size class and not be used
/// afterwards.
#[inline]
pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    let class = class_of(layout.size());
    let size = (class + 1) * ALIGN;
    let kept = LISTS
        .try_with(|l| {
            // SAFETY: as in `alloc`.
            let l = unsafe { &mut *l.get() };
            if l.held + size > THREAD_LIMIT {
                return false;
            }
            // SAFETY: the caller hands over the block (at least 16 bytes, 16-aligned), so
            // its first word may hold the link.
            unsafe { ptr.cast::<*mut u8>().write(l.heads[class]) };
            l.heads[class] = ptr;
            l.held += size;
            true
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: allocated from `System` with this class's layout (see `alloc`).
        unsafe { System.dealloc(ptr, class_layout(class)) }
    }
}

/// True if blocks of `old` and of `new_size` (same alignment) share a size class, so a
/// reallocation can keep the block.
#[inline]
pub fn same_class(old: Layout, new_size: usize) -> bool {
    new_size <= MAX_SIZE && class_of(old.size()) == class_of(new_size)
}

/// Gives the calling thread's free blocks back to the system allocator.
pub fn release_thread() {
    let _ = LISTS.try_with(|l| {
        // SAFETY: as in `alloc` (releasing calls `System` directly, never this allocator).
        unsafe { (*l.get()).release() }
    });
}

/// Bytes the calling thread holds in its lists.
pub fn held_by_thread() -> usize {
    // SAFETY: as in `alloc`.
    LISTS.try_with(|l| unsafe { (*l.get()).held }).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocates through the lists, checks the block, writes it, and frees it.
    fn churn(sizes: &[usize], rounds: usize) {
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        for r in 0..rounds {
            for (i, &s) in sizes.iter().enumerate() {
                let layout = Layout::from_size_align(s, 1 << (i % 5)).unwrap();
                assert!(handles(layout) || !ENABLED);
                // SAFETY: a non-zero size of at most MAX_SIZE, alignment at most ALIGN.
                let p = unsafe { alloc(layout) };
                assert!(!p.is_null());
                assert_eq!(p.addr() % ALIGN, 0);
                let tag = (r + i) as u8;
                // SAFETY: the block holds at least `s` bytes.
                unsafe { std::ptr::write_bytes(p, tag, s) };
                live.push((p, layout, tag));
            }
            // free about half, oldest first, checking nobody else wrote them
            let keep = live.split_off(live.len() / 2);
            for (p, layout, tag) in live {
                // SAFETY: a live block of `layout` written with `tag` above.
                unsafe {
                    let bytes = std::slice::from_raw_parts(p, layout.size());
                    assert!(
                        bytes.iter().all(|&b| b == tag),
                        "a live block was overwritten"
                    );
                    dealloc(p, layout);
                }
            }
            live = keep;
        }
        for (p, layout, _) in live {
            // SAFETY: a live block of `layout`.
            unsafe { dealloc(p, layout) };
        }
    }

    #[test]
    fn blocks_are_reused_within_their_class() {
        let a = Layout::from_size_align(680, 8).unwrap();
        // the same 688-byte class
        let b = Layout::from_size_align(673, 16).unwrap();
        // SAFETY: blocks of these layouts, each released once with a layout of its class.
        unsafe {
            let p = alloc(a);
            dealloc(p, a);
            let q = alloc(b);
            assert_eq!(p, q, "the freed block of the class is handed out again");
            std::ptr::write_bytes(q, 1, 673);
            dealloc(q, b);
        }
        assert!(same_class(a, 688) && !same_class(a, 689) && !same_class(a, 672));
    }

    #[test]
    fn many_threads_hammer_the_lists_and_give_them_back_at_exit() {
        let sizes = [1, 8, 16, 17, 24, 64, 100, 296, 664, 680, 1000, 1024];
        let handles: Vec<_> = (0..8)
            .map(|t| {
                std::thread::spawn(move || {
                    churn(&sizes, 200 + t);
                    let held = held_by_thread();
                    assert!(held <= THREAD_LIMIT);
                    assert!(held > 0 || !ENABLED, "freed blocks were kept");
                    // blocks freed on another thread join that thread's lists
                    let layout = Layout::from_size_align(680, 8).unwrap();
                    // SAFETY: a non-zero size the lists handle.
                    let p = unsafe { alloc(layout) } as usize;
                    std::thread::spawn(move || {
                        // SAFETY: allocated above with `layout`, released once, here.
                        unsafe { dealloc(p as *mut u8, layout) }
                    })
                    .join()
                    .unwrap();
                    held
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap(); // each thread's lists were released by its destructor
        }
    }

    #[test]
    fn the_thread_limit_bounds_what_is_kept() {
        std::thread::spawn(|| {
            let layout = Layout::from_size_align(1024, 16).unwrap();
            let n = THREAD_LIMIT / 1024 + 100;
            // SAFETY: n blocks of `layout`, each released once.
            let blocks: Vec<_> = (0..n).map(|_| unsafe { alloc(layout) }).collect();
            for p in blocks {
                // SAFETY: as above.
                unsafe { dealloc(p, layout) };
            }
            assert!(held_by_thread() <= THREAD_LIMIT);
            if ENABLED {
                // (other small blocks this thread freed may hold part of the budget)
                assert!(held_by_thread() > THREAD_LIMIT - 1024);
            }
            release_thread();
            assert_eq!(held_by_thread(), 0);
        })
        .join()
        .unwrap();
    }
}
