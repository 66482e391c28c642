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

use parking_lot::Mutex;
use std::alloc::Layout;

/// Smallest buffer worth caching: smaller ones are served by the allocator's own free lists.
pub const MIN_BYTES: usize = 1 << 20;
/// Default bound on the bytes held by the cache.
pub const DEFAULT_LIMIT: usize = 256 << 20;

struct Entry {
    ptr: usize,
    layout: Layout,
}

struct Cache {
    /// Oldest first.
    entries: Vec<Entry>,
    held: usize,
    limit: Option<usize>,
    hits: u64,
    misses: u64,
}

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
        unsafe { std::alloc::dealloc(e.ptr as *mut u8, e.layout) };
    }
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
            Some(e.ptr as *mut u8)
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
    if layout.size() < MIN_BYTES {
        return false;
    }
    let freed = {
        let mut c = CACHE.lock();
        let limit = c.limit();
        if layout.size() > limit {
            return false;
        }
        let freed = c.shrink_to(limit - layout.size());
        c.entries.push(Entry {
            ptr: ptr as usize,
            layout,
        });
        c.held += layout.size();
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
    let freed = CACHE.lock().shrink_to(0);
    release(freed);
}

/// What the cache holds now: (bytes, buffers, hits, misses).
pub fn stats() -> (usize, usize, u64, u64) {
    let c = CACHE.lock();
    (c.held, c.entries.len(), c.hits, c.misses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_exact_layouts_and_respects_the_limit() {
        // A size no other test allocates, so buffers other tests free into the shared
        // cache meanwhile can never be handed out here.
        let layout = Layout::from_size_align(MIN_BYTES * 2 + 24, 8).unwrap();
        let previous = set_limit(MIN_BYTES * 5);
        // SAFETY (whole test): buffers are allocated with `layout` and given back, taken
        // or freed with that same layout, each exactly once.
        let a = unsafe { std::alloc::alloc(layout) };
        assert!(unsafe { give(a, layout) });
        let other = Layout::from_size_align(MIN_BYTES * 2 + 24, 4).unwrap();
        assert_eq!(take(other), None, "alignment must match");
        assert_eq!(take(layout), Some(a));
        // three such buffers do not fit a 5 MiB limit: the oldest is freed
        let bufs: Vec<_> = (0..3)
            .map(|_| unsafe { std::alloc::alloc(layout) })
            .collect();
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
            std::alloc::dealloc(a, layout);
            std::alloc::dealloc(bufs[1], layout);
            std::alloc::dealloc(bufs[2], layout);
        }
        set_limit(0);
        assert_eq!(stats().1, 0);
        set_limit(previous);
    }
}
