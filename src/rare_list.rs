//! [`RareList`]: a `Vec` for lists that are almost always empty (hooks, retained outputs).
//!
//! Every tensor and every node carries a few such lists, and every tensor and node freed
//! dropped each of them through an out-of-line call of `Vec`'s drop (~23 instructions
//! each, four or more per recorded op). A list that never held anything owns no memory and
//! no elements, so its drop here is one inlined test of its capacity.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

/// A `Vec<T>` whose drop is skipped, inline, when it never allocated. Reads and writes go
/// through `Deref` / `DerefMut` to the `Vec`.
pub struct RareList<T>(ManuallyDrop<Vec<T>>);

impl<T> RareList<T> {
    /// An empty list (allocates nothing).
    pub const fn new() -> Self {
        RareList(ManuallyDrop::new(Vec::new()))
    }
}

impl<T> Default for RareList<T> {
    fn default() -> Self {
        RareList::new()
    }
}

impl<T: Clone> Clone for RareList<T> {
    fn clone(&self) -> Self {
        RareList(ManuallyDrop::new(self.0.to_vec()))
    }
}

impl<T> Deref for RareList<T> {
    type Target = Vec<T>;
    #[inline]
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> DerefMut for RareList<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> Drop for RareList<T> {
    #[inline(always)]
    fn drop(&mut self) {
        // (a `Vec` of non-zero-sized elements that never allocated has capacity 0 and
        // holds nothing; one of zero-sized elements reports `usize::MAX` and is dropped)
        if self.0.capacity() != 0 {
            // SAFETY: dropped once, here; the field is not used afterwards
            unsafe { ManuallyDrop::drop(&mut self.0) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// What a list held is dropped with it, once, whether it is still full, was emptied,
    /// or never held anything; zero-sized elements too.
    #[test]
    fn a_rare_list_drops_what_it_holds_once() {
        let token = Arc::new(());
        let mut full: RareList<Arc<()>> = RareList::new();
        full.push(token.clone());
        full.push(token.clone());
        let mut emptied: RareList<Arc<()>> = RareList::default();
        emptied.push(token.clone());
        emptied.clear();
        let copy = full.clone();
        assert_eq!(Arc::strong_count(&token), 5);
        drop((full, emptied, copy));
        assert_eq!(Arc::strong_count(&token), 1, "a list leaked what it held");
        let empty: RareList<Arc<()>> = RareList::new();
        assert_eq!(empty.capacity(), 0);
        drop(empty);

        struct Counted<'a>(&'a std::cell::Cell<u32>);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let n = std::cell::Cell::new(0);
        let mut counted: RareList<Counted<'_>> = RareList::new();
        counted.push(Counted(&n));
        counted.push(Counted(&n));
        drop(counted);
        assert_eq!(n.get(), 2);
        // zero-sized elements: capacity `usize::MAX` from the start, so the drop runs
        let units: RareList<()> = RareList::new();
        assert_ne!(units.capacity(), 0);
    }
}
