//! RAII marks that record, on a [`Storage`], who else holds its memory: saved-for-backward
//! slots and writable exports to other libraries.
//!
//! Together they make the NumPy-interop rule hold (docs/reliability.md, "NumPy interop and
//! aliasing"): memory that a node saved for backward is exported read-only, and a save made
//! while a writable export is alive keeps a copy, so a write through another library's
//! alias can never change a gradient unnoticed.

use crate::storage::Storage;
use std::sync::{Arc, Weak};

/// Counts one saved-for-backward slot over a storage while alive. Holds the storage weakly,
/// so packed saves (which let their memory go) can carry one too.
pub struct SavedMark(Weak<Storage>);

impl SavedMark {
    /// Marks `s` as saved until the mark is dropped.
    pub fn new(s: &Arc<Storage>) -> SavedMark {
        s.add_mark(true, 1);
        SavedMark(Arc::downgrade(s))
    }

    /// Whether `s` is the marked storage. (No upgrade of the weak link, which would cost
    /// two locked instructions: the link keeps the storage's allocation from being reused,
    /// so a live storage at the same address is the marked one.)
    pub fn marks(&self, s: &Arc<Storage>) -> bool {
        std::ptr::eq(self.0.as_ptr(), Arc::as_ptr(s))
    }
}

impl Drop for SavedMark {
    fn drop(&mut self) {
        if let Some(s) = self.0.upgrade() {
            s.add_mark(true, -1);
        }
    }
}

/// Counts one saved-for-backward slot over `s`, for a holder that keeps `s` alive itself
/// and calls [`unmark_saved`] on it exactly once when it lets go (a live save holds the
/// tensor: a [`SavedMark`]'s weak link would cost more than the count itself).
pub fn mark_saved(s: &Storage) {
    s.add_mark(true, 1);
}

/// Gives back a count taken by [`mark_saved`].
pub fn unmark_saved(s: &Storage) {
    s.add_mark(true, -1);
}

/// Counts one writable export of a storage (and keeps it alive) while alive.
pub struct WritableExport(Arc<Storage>);

impl WritableExport {
    /// Marks `s` as exported writable until the mark is dropped.
    pub fn new(s: &Arc<Storage>) -> WritableExport {
        s.add_mark(false, 1);
        WritableExport(s.clone())
    }
}

impl Drop for WritableExport {
    fn drop(&mut self) {
        self.0.add_mark(false, -1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_count_while_alive() {
        let s = Arc::new(Storage::from_vec(vec![1.0f32, 2.0]));
        assert!(!s.is_saved_for_backward() && !s.has_writable_aliases());
        let (a, b) = (SavedMark::new(&s), SavedMark::new(&s));
        let e = WritableExport::new(&s);
        assert!(s.is_saved_for_backward() && s.has_writable_aliases());
        assert!(a.marks(&s) && !a.marks(&Arc::new(Storage::from_vec(vec![1.0f32]))));
        drop(a);
        assert!(s.is_saved_for_backward());
        drop((b, e));
        assert!(!s.is_saved_for_backward() && !s.has_writable_aliases());
    }
}
