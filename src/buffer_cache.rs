//! A bounded cache of large freed element buffers.
//!
//! The system allocator returns a large freed buffer to the kernel (`munmap`), so the next
//! large tensor starts on fresh pages: every page faults and is zeroed by the kernel before
//! the kernel writes a single result, which costs about as much as the elementwise op
//! itself. Loops that allocate same-sized tensors again and again (every training step,
//! `c = a * b + a` in a loop) instead get back a buffer they freed moments ago, with its
//! pages already mapped.
//!
//! Only buffers of at least [`MIN_BYTES`] are kept, matched by exact size and alignment
//! (so a buffer is always released with the layout it was allocated with), up to a total
//! of [`limit`] bytes (default [`DEFAULT_LIMIT`], environment variable
//! `FERROGRAD_BUFFER_CACHE_BYTES`, or [`set_limit`]); the oldest are freed first. A reused
//! buffer holds stale data, exactly like a fresh `malloc`: every caller writes before it
//! reads.
//!
//! Two rules keep the cache from costing memory where memory is what the user is short of:
//! - while any [`Suspension`] lives (one per saved tensor handed to a pack hook, i.e.
//!   while a graph whose activations were moved out of RAM exists), the cache keeps
//!   nothing and gives back what it holds: a user who offloads saved activations traded
//!   speed for memory, and resident free buffers would undo that;
//! - a large buffer that leaves the cache, or that the cache declines, has its pages
//!   returned to the kernel ([`return_pages`]) before it is freed, so the allocator's heap
//!   does not keep it resident either (glibc serves large blocks from its heap once its
//!   dynamic mmap threshold has grown, and never gives back free blocks in the middle of
//!   that heap).
//!
//! The cache serves every large allocation of the crate, not only tensor storage: it is
//! the crate's global allocator's path for blocks of [`MIN_BYTES`] or more
//! ([`CachingAlloc`]). Scratch memory that never becomes a tensor (gemm's packing
//! buffers, contiguous copies of operands) used to go to glibc's heap, where small
//! allocations split the freed blocks, so every layer's matmul grew the heap by about a
//! megabyte that stayed resident: the peak of a checkpointed step at batch 256 was 28 MB
//! instead of 16 MB (docs/memory.md).

use crate::small_blocks;
use parking_lot::Mutex;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Smallest buffer worth caching: smaller ones are served by the allocator's own free lists.
pub const MIN_BYTES: usize = 1 << 20;
/// Default bound on the bytes held by the cache.
pub const DEFAULT_LIMIT: usize = 256 << 20;

/// A cached buffer: the pointer itself (not its address as an integer, so its provenance
/// survives the round trip; Miri checks this) and the layout it was allocated with.
struct Entry {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: an entry is an owned, unaliased heap buffer with no thread affinity; it only
// moves between threads under the cache's lock.
unsafe impl Send for Entry {}

struct Cache {
    /// Oldest first.
    entries: Vec<Entry>,
    held: usize,
    limit: Option<usize>,
    hits: u64,
    misses: u64,
}

/// The most buffers the cache holds at once: its entry list stays far below
/// [`MIN_BYTES`] (16,384 x 24 bytes), so growing it never re-enters the global allocator's
/// cached path while the lock is held, whatever limit the user sets.
const MAX_ENTRIES: usize = 16_384;

static CACHE: Mutex<Cache> = Mutex::new(Cache {
    entries: Vec::new(),
    held: 0,
    limit: None,
    hits: 0,
    misses: 0,
});

impl Cache {
    fn limit(&mut self) -> usize {
        *self.limit.get_or_insert_with(|| {
            std::env::var("FERROGRAD_BUFFER_CACHE_BYTES")
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(DEFAULT_LIMIT)
        })
    }

    /// Frees the oldest entries until at most `target` bytes are held.
    fn shrink_to(&mut self, target: usize) -> Vec<Entry> {
        let mut freed = Vec::new();
        while self.held > target && !self.entries.is_empty() {
            let e = self.entries.remove(0);
            self.held -= e.layout.size();
            freed.push(e);
        }
        freed
    }
}

fn release(entries: Vec<Entry>) {
    for e in entries {
        // SAFETY: every entry was allocated by the global allocator with exactly this
        // layout (see `give`) and is owned by nobody else.
        // (System, not the global allocator: that would offer the buffer to the cache again)
        unsafe {
            return_pages(e.ptr, e.layout.size());
            System.dealloc(e.ptr, e.layout);
        }
    }
}

/// Number of live [`Suspension`]s.
static SUSPENDED: AtomicUsize = AtomicUsize::new(0);

/// False only when the cache is known to be empty: set (under the lock) by every `give`
/// that stores a buffer, cleared (under the lock) by [`clear`]. Lets [`clear`] skip the
/// lock when there is nothing to free, which is the usual case when a step's first
/// packed save suspends the cache (~80 instructions per step with hooks).
static MAY_HOLD: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// False while this thread runs pack hooks whose packed form stays in RAM
    /// (see [`set_packs_suspend`]).
    static PACKS_SUSPEND: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Sets whether saves packed on this thread from now on suspend the cache, and returns
/// the previous setting (true by default). Hooks that keep what they pack in memory
/// (checkpoint handles, compressed copies) turn it off while they are active: nothing of
/// theirs left RAM, so suspending the cache would only make every large tensor of the
/// step a fresh, page-faulting allocation. Offloading hooks and user hooks keep the
/// default.
pub fn set_packs_suspend(on: bool) -> bool {
    PACKS_SUSPEND.with(|c| c.replace(on))
}

/// While one of these lives, the cache keeps no buffer. Saved tensors handed to a pack
/// hook hold one each (unless [`set_packs_suspend`] turned that off for the hook), so the
/// cache stays empty from the first such pack until the last such packed tensor of every
/// graph is released.
pub struct Suspension(bool);

impl Suspension {
    /// Suspends caching (the first suspension frees what the cache holds), unless this
    /// thread's packs do not suspend (then the suspension is inert).
    pub fn new() -> Suspension {
        if !PACKS_SUSPEND.with(|c| c.get()) {
            return Suspension(false);
        }
        if SUSPENDED.fetch_add(1, Ordering::AcqRel) == 0 {
            clear();
        }
        Suspension(true)
    }
}

impl Default for Suspension {
    fn default() -> Self {
        Suspension::new()
    }
}

impl Drop for Suspension {
    fn drop(&mut self) {
        if self.0 {
            SUSPENDED.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// True while caching is suspended.
pub fn is_suspended() -> bool {
    SUSPENDED.load(Ordering::Acquire) > 0
}

/// Number of live [`Suspension`]s (saved tensors held by pack hooks).
pub fn suspensions() -> usize {
    SUSPENDED.load(Ordering::Acquire)
}

/// Hands the whole pages inside a large buffer that is about to be freed back to the
/// kernel, so its memory leaves the process even when the allocator keeps the block in
/// its heap. Smaller buffers are left alone (the allocator's free lists reuse them soon).
///
/// # Safety
/// `ptr..ptr + bytes` must be memory the caller owns, whose contents are no longer
/// needed (it reads back as zeros afterwards) and that is freed right after.
pub unsafe fn return_pages(ptr: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        if bytes < MIN_BYTES {
            return;
        }
        const PAGE: usize = 4096;
        // only pages wholly inside the buffer: the allocator's own bookkeeping next to
        // it is never touched
        let addr = ptr.addr();
        let start_off = addr.div_ceil(PAGE) * PAGE - addr;
        let end_off = (addr + bytes) / PAGE * PAGE - addr;
        if end_off > start_off {
            // SAFETY: start_off < bytes, so the pointer stays inside the caller's buffer.
            let start = unsafe { ptr.add(start_off) };
            let len = end_off - start_off;
            // SAFETY: the caller owns the range and no longer needs its contents;
            // MADV_DONTNEED on private anonymous memory only drops pages (they read back
            // as zeros on the next touch).
            #[cfg(not(miri))]
            unsafe {
                libc::madvise(start.cast(), len, libc::MADV_DONTNEED)
            };
            // Miri cannot call madvise: give the range the same observable effect
            // SAFETY: as above, the range is the caller's.
            #[cfg(miri)]
            unsafe {
                std::ptr::write_bytes(start, 0, len)
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

/// A cached buffer of exactly `layout`, if one is held.
pub fn take(layout: Layout) -> Option<*mut u8> {
    if layout.size() < MIN_BYTES {
        return None;
    }
    let mut c = CACHE.lock();
    match c.entries.iter().rposition(|e| e.layout == layout) {
        Some(i) => {
            let e = c.entries.remove(i);
            c.held -= layout.size();
            c.hits += 1;
            Some(e.ptr)
        }
        None => {
            c.misses += 1;
            None
        }
    }
}

/// Offers a buffer about to be freed; returns true if the cache took ownership of it.
///
/// # Safety
/// `ptr` must have been allocated by the global allocator with exactly `layout`, hold no
/// values needing drop, and not be used by the caller afterwards if this returns true.
pub unsafe fn give(ptr: *mut u8, layout: Layout) -> bool {
    if layout.size() < MIN_BYTES || is_suspended() {
        return false;
    }
    let freed = {
        let mut c = CACHE.lock();
        let limit = c.limit();
        // (the entry list must never need a block of MIN_BYTES or more: this runs inside
        // the global allocator with the lock held, and such a block would re-enter `take`)
        if layout.size() > limit || c.entries.len() >= MAX_ENTRIES {
            return false;
        }
        let freed = c.shrink_to(limit - layout.size());
        c.entries.push(Entry { ptr, layout });
        c.held += layout.size();
        MAY_HOLD.store(true, Ordering::Release);
        freed
    };
    release(freed); // outside the lock: munmap can take a while
    true
}

/// Sets the most bytes the cache may hold (0 disables it, freeing what it holds) and
/// returns the previous limit.
pub fn set_limit(bytes: usize) -> usize {
    let (previous, freed) = {
        let mut c = CACHE.lock();
        let previous = c.limit();
        c.limit = Some(bytes);
        (previous, c.shrink_to(bytes))
    };
    release(freed);
    previous
}

/// The current limit in bytes.
pub fn limit() -> usize {
    CACHE.lock().limit()
}

/// Frees every cached buffer.
pub fn clear() {
    if !MAY_HOLD.load(Ordering::Acquire) {
        return;
    }
    let freed = {
        let mut c = CACHE.lock();
        let freed = c.shrink_to(0);
        MAY_HOLD.store(false, Ordering::Release);
        freed
    };
    release(freed);
}

/// What the cache holds now: (bytes, buffers, hits, misses).
pub fn stats() -> (usize, usize, u64, u64) {
    let c = CACHE.lock();
    (c.held, c.entries.len(), c.hits, c.misses)
}

/// The crate's global allocator: the system allocator, with small blocks kept on per-thread
/// free lists ([`crate::small_blocks`]) and blocks of [`MIN_BYTES`] or
/// more taken from and given back to the cache (the same rules as tensor storage: nothing
/// is kept while caching is suspended or past the limit; what is not kept has its pages
/// returned before it is freed).
pub struct CachingAlloc;

// SAFETY: every block comes from `System` with the layout it is released with: `take`
// hands out only blocks `give` received with exactly the requested layout, and `give`
// receives blocks this allocator allocated with that layout.
unsafe impl GlobalAlloc for CachingAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if small_blocks::handles(layout) {
            // SAFETY: a non-zero size (the caller's contract) the lists handle.
            return unsafe { small_blocks::alloc(layout) };
        }
        if let Some(p) = take(layout) {
            return p;
        }
        // SAFETY: forwarded with the caller's (non-zero-size) layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if small_blocks::handles(layout) {
            // SAFETY: as in `alloc`; a kept block holds stale data, so it is cleared.
            unsafe {
                let p = small_blocks::alloc(layout);
                if !p.is_null() {
                    std::ptr::write_bytes(p, 0, layout.size());
                }
                return p;
            }
        }
        // fresh pages are zero already; a cached block would have to be cleared
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator with `layout` and is not used again.
        unsafe {
            if small_blocks::handles(layout) {
                return small_blocks::dealloc(ptr, layout);
            }
            if layout.size() >= MIN_BYTES {
                if give(ptr, layout) {
                    return;
                }
                return_pages(ptr, layout.size());
            }
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let small = small_blocks::handles(layout);
        if small && small_blocks::same_class(layout, new_size) {
            return ptr; // the block already holds a whole class
        }
        // (a block of the small lists, or one that becomes one, must not go through the
        // system's realloc: the lists' blocks have their class's size, below)
        let new_small = layout.align() <= small_blocks::ALIGN && new_size <= small_blocks::MAX_SIZE;
        if !small && !new_small && layout.size() < MIN_BYTES && new_size < MIN_BYTES {
            // SAFETY: the caller's contract, forwarded.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller guarantees `new_size`, rounded up to the alignment, fits isize.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: `new_layout` has a non-zero size (the caller's contract).
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are valid for the smaller size and do not overlap; the
            // old block is released with its own layout.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // (System directly: the global allocator would itself use the cache)

    #[test]
    fn reuses_exact_layouts_and_respects_the_limit() {
        // A size no other test allocates, so buffers other tests free into the shared
        // cache meanwhile can never be handed out here.
        let layout = Layout::from_size_align(MIN_BYTES * 2 + 24, 8).unwrap();
        let previous = set_limit(MIN_BYTES * 5);
        // SAFETY (whole test): buffers are allocated with `layout` and given back, taken
        // or freed with that same layout, each exactly once.
        let a = unsafe { System.alloc(layout) };
        assert!(unsafe { give(a, layout) });
        let other = Layout::from_size_align(MIN_BYTES * 2 + 24, 4).unwrap();
        assert_eq!(take(other), None, "alignment must match");
        assert_eq!(take(layout), Some(a));
        // three such buffers do not fit a 5 MiB limit: the oldest is freed
        let bufs: Vec<_> = (0..3).map(|_| unsafe { System.alloc(layout) }).collect();
        for &b in &bufs {
            assert!(unsafe { give(b, layout) });
        }
        assert!(stats().0 <= MIN_BYTES * 5);
        assert_eq!(take(layout), Some(bufs[2]), "newest first");
        assert_eq!(take(layout), Some(bufs[1]));
        assert_eq!(take(layout), None, "the oldest was freed");
        // small buffers are never cached
        let small = Layout::from_size_align(1024, 8).unwrap();
        assert!(!unsafe { give(a, small) });
        unsafe {
            System.dealloc(a, layout);
            System.dealloc(bufs[1], layout);
            System.dealloc(bufs[2], layout);
        }
        // while a suspension lives the cache takes nothing and has given back all it held
        let c = unsafe { System.alloc(layout) };
        assert!(unsafe { give(c, layout) });
        let suspension = Suspension::new();
        assert!(is_suspended() && suspensions() >= 1);
        assert_eq!(take(layout), None, "the first suspension freed `c`");
        let d = unsafe { System.alloc(layout) };
        assert!(!unsafe { give(d, layout) });
        drop(suspension);
        assert!(unsafe { give(d, layout) }, "caching resumes"); // freed by set_limit(0)
        set_limit(0);
        assert_eq!(stats().1, 0);
        set_limit(previous);
    }

    #[test]
    fn packs_that_stay_in_memory_do_not_suspend() {
        assert!(set_packs_suspend(false), "the default is to suspend");
        let inert = Suspension::new();
        // another thread's packs still suspend
        let counted = std::thread::spawn(|| Suspension::new().0).join().unwrap();
        assert!(counted);
        assert!(!set_packs_suspend(true));
        assert!(!inert.0);
        drop(inert); // dropping an inert suspension releases nothing
        let s = Suspension::new();
        assert!(s.0);
        drop(s);
    }

    #[test]
    fn global_allocator_recycles_large_blocks() {
        // a layout no other test uses; a Vec's block goes back to the cache when dropped
        // and is handed out again (retried while another test holds a suspension, which
        // empties the cache)
        let n = MIN_BYTES / 8 + 11;
        let mut checked = false;
        for _ in 0..200 {
            let before = SUSPENDED.load(Ordering::Acquire);
            let mut v: Vec<u64> = Vec::with_capacity(n);
            v.push(1);
            let p = v.as_ptr() as *mut u8;
            drop(v);
            let w: Vec<u64> = Vec::with_capacity(n);
            let reused = w.as_ptr() as *mut u8 == p;
            drop(w);
            if before == 0 && SUSPENDED.load(Ordering::Acquire) == 0 {
                assert!(reused, "the dropped Vec's block was not cached and reused");
                checked = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(checked, "the cache stayed suspended by other tests");
        // growing across the threshold keeps the contents
        let mut g: Vec<u32> = (0..1000).collect();
        g.reserve_exact(MIN_BYTES);
        assert!(g.iter().copied().eq(0..1000));
        g.shrink_to_fit();
        assert_eq!(g.len(), 1000);
    }

    #[test]
    fn returned_pages_read_back_as_zeros() {
        let layout = Layout::from_size_align(MIN_BYTES * 3 + 100, 8).unwrap();
        // SAFETY: a fresh buffer of `layout`, written, then its pages returned and freed.
        unsafe {
            let p = System.alloc(layout);
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 0xAB, layout.size());
            return_pages(p, layout.size());
            let inner = p.add(MIN_BYTES); // a page wholly inside the buffer
            if cfg!(target_os = "linux") {
                assert_eq!(*inner, 0, "the page went back to the kernel");
            }
            System.dealloc(p, layout);
        }
    }
}
