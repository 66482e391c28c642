//! Typed, reference-counted element buffers with a version counter.
//!
//! A [`Storage`] is shared by every view of a tensor (`Arc<Storage>`). Its memory is either
//! owned by Rust (a `Vec<T>`) or borrowed from a foreign owner (a NumPy array) that is kept
//! alive for as long as the storage lives. Access goes through a reader/writer lock so that
//! kernels running with the GIL released never race with an in-place write. Every in-place
//! write bumps a version counter, which saved tensors compare against at backward time.
//!
//! The version counter belongs to a tensor *family* (a tensor, its views and `detach()`es,
//! PyTorch's rule), not to the memory: PyTorch's `x.data` is the same memory with a counter
//! of its own. The common family's counter lives here, inline (no allocation per tensor);
//! a tensor with a counter of its own carries it (`crate::tensor::Tensor::version`).

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::any::Any;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

enum Owner {
    /// Memory of a `Vec<T>` with this capacity; rebuilt and dropped with the storage.
    Rust { capacity: usize },
    /// Memory owned by another object (e.g. a NumPy array) kept alive here.
    Foreign(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
    /// The memory of the storage in `Storage::root`, read as another dtype (an alias).
    Alias,
}

/// A contiguous buffer of `len` elements of one dtype.
pub struct Storage {
    ptr: *mut u8,
    len: usize,
    dtype: DType,
    owner: Owner,
    writable: bool,
    lock: RwLock<()>,
    /// The version counter of the tensors over this memory that have none of their own.
    version: AtomicU64,
    /// Set once that counter became shared with a tensor over other memory (PyTorch's
    /// `x.data = y`: `x` keeps its counter, and the views of `x` taken before follow it);
    /// from then on it replaces `version`.
    family: OnceLock<Arc<AtomicU64>>,
    /// Writes by tensors with a counter of their own (not counted in `version`), so that
    /// [`Storage::memory_version`] sees every change of the memory.
    other_writes: AtomicU64,
    /// Live saved-for-backward slots over this memory (see `storage_marks`).
    saved: AtomicUsize,
    /// Live writable exports of this memory to other libraries (buffer protocol, DLPack).
    writable_exports: AtomicUsize,
    /// Allocated inside inference mode: the memory of an inference tensor.
    inference: bool,
    /// For an alias (see [`Storage::reinterpret`]): the storage whose memory this one
    /// reads as the complex/real counterpart dtype. Its lock, version counter and
    /// writability are the root's, so the two are one memory to every reader and writer.
    root: Option<Arc<Storage>>,
    /// For a root: its alias while one lives (one per root, so that two tensors of one
    /// dtype over one memory always share one `Arc<Storage>`: the kernels' "same buffer"
    /// checks compare those).
    alias: parking_lot::Mutex<std::sync::Weak<Storage>>,
    /// For a root: set once an alias was made (a lock-free skip for the common case).
    has_alias: std::sync::atomic::AtomicBool,
}

// SAFETY: the buffer is only reached through the lock-guarded accessors below, and the
// foreign owner is itself Send + Sync.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

/// Allocates a `Vec<T>` of `n` copies of `fill`, reporting an allocation that cannot fit
/// as a `MemoryError` instead of aborting the process.
pub fn try_filled_vec<T: Clone>(n: usize, fill: T) -> Result<Vec<T>> {
    let mut v = try_vec_with_capacity::<T>(n)?;
    v.resize(n, fill);
    Ok(v)
}

/// Allocates an empty `Vec<T>` with room for `n` elements, or a `MemoryError`.
pub fn try_vec_with_capacity<T>(n: usize) -> Result<Vec<T>> {
    // (a large block comes from the buffer cache when it holds one of this exact layout:
    // the global allocator is `buffer_cache::CachingAlloc`)
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    let layout = match std::alloc::Layout::array::<T>(n) {
        Ok(l) if l.size() > 0 => l,
        Ok(_) => return Ok(Vec::new()), // nothing to allocate (n == 0)
        Err(_) => return Err(out_of_memory(n, bytes)),
    };
    // The block is requested directly rather than through `Vec::try_reserve_exact`, whose
    // generic growth path (`finish_grow`: layout checks, a `realloc` branch, an error
    // enum) cost ~60 instructions per tensor on top of the allocator itself.
    // SAFETY: `layout` has a non-zero size.
    let ptr = unsafe { std::alloc::alloc(layout) } as *mut T;
    if ptr.is_null() {
        return Err(out_of_memory(n, bytes));
    }
    advise_huge_pages(ptr as *mut u8, bytes);
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `n` values of
    // `T`, which is what a `Vec<T>` of capacity `n` owns; its length 0 reads nothing.
    Ok(unsafe { Vec::from_raw_parts(ptr, 0, n) })
}

/// The `MemoryError` for a buffer of `n` elements (`bytes` bytes) that cannot be had.
#[cold]
fn out_of_memory(n: usize, bytes: usize) -> Error {
    Error::memory(format!(
        "cannot allocate {n} elements ({bytes} bytes): not enough memory"
    ))
}

/// Asks the kernel to back a large fresh buffer with transparent huge pages (as NumPy
/// does): filling 64 MB then takes ~30 page faults instead of ~16,000, which is most of
/// the time of a large elementwise op on machines where THP is "madvise"-only.
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        if bytes < 4 * HUGE {
            return;
        }
        let start = (ptr as usize).div_ceil(HUGE) * HUGE;
        let end = (ptr as usize + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside memory this Vec owns; MADV_HUGEPAGE only
            // changes how untouched pages get backed, never their contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

impl Storage {
    /// Takes ownership of `v`.
    pub fn from_vec<T: Element>(v: Vec<T>) -> Storage {
        let mut v = std::mem::ManuallyDrop::new(v);
        Storage {
            ptr: v.as_mut_ptr() as *mut u8,
            len: v.len(),
            dtype: T::DTYPE,
            owner: Owner::Rust {
                capacity: v.capacity(),
            },
            writable: true,
            lock: RwLock::new(()),
            version: AtomicU64::new(0),
            family: OnceLock::new(),
            other_writes: AtomicU64::new(0),
            saved: AtomicUsize::new(0),
            writable_exports: AtomicUsize::new(0),
            inference: crate::inference::is_inference_mode(),
            root: None,
            alias: parking_lot::Mutex::new(std::sync::Weak::new()),
            has_alias: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// A zero-filled storage of `len` elements of `dtype`.
    pub fn zeros(dtype: DType, len: usize) -> Result<Storage> {
        crate::with_dtype!(dtype, T, {
            Ok(Storage::from_vec(try_filled_vec(len, T::zero())?))
        })
    }

    /// Wraps memory owned by `owner`.
    ///
    /// # Safety
    /// `ptr` must point to `len` initialised, properly aligned elements of `dtype` that
    /// stay valid while `owner` lives; if `writable`, nothing else may alias them mutably.
    pub unsafe fn from_foreign(
        ptr: *mut u8,
        len: usize,
        dtype: DType,
        owner: Box<dyn Any + Send + Sync>,
        writable: bool,
    ) -> Storage {
        Storage {
            ptr,
            len,
            dtype,
            owner: Owner::Foreign(owner),
            writable,
            lock: RwLock::new(()),
            version: AtomicU64::new(0),
            family: OnceLock::new(),
            other_writes: AtomicU64::new(0),
            saved: AtomicUsize::new(0),
            writable_exports: AtomicUsize::new(0),
            inference: crate::inference::is_inference_mode(),
            root: None,
            alias: parking_lot::Mutex::new(std::sync::Weak::new()),
            has_alias: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether this memory was allocated inside inference mode (an inference tensor's).
    pub fn is_inference(&self) -> bool {
        self.root().inference
    }

    /// The storage that owns this memory: itself, or an alias's root.
    #[inline]
    fn root(&self) -> &Storage {
        self.root.as_deref().unwrap_or(self)
    }

    /// True for an alias (see [`Storage::reinterpret`]): this memory is also another
    /// storage's, read as the counterpart dtype; holding the only handle to an alias does
    /// not make the memory private.
    pub fn is_alias(&self) -> bool {
        self.root.is_some()
    }

    /// Whether `a` and `b` are the same memory (the same storage, or a storage and its
    /// alias).
    pub fn same_memory(a: &Storage, b: &Storage) -> bool {
        std::ptr::eq(a.root(), b.root())
    }

    /// `f` of the other storage over this memory (an alias's root, or a root's live
    /// alias); false when there is none.
    fn linked_any(&self, f: impl Fn(&Storage) -> bool) -> bool {
        if let Some(r) = &self.root {
            return f(r);
        }
        if !self.has_alias.load(Ordering::Acquire) {
            return false;
        }
        let alias = self.alias.lock().upgrade();
        alias.is_some_and(|a| f(&a))
    }

    /// This memory read as the counterpart dtype (complex64 <-> float32, complex128 <->
    /// float64: `Complex<T>` is laid out as `[T; 2]`): a storage of twice as many real
    /// elements, or half as many complex ones (a trailing odd real element is left out).
    /// It shares this storage's lock, version counter and writability; an alias of an
    /// alias is its root, and a root has at most one alias alive at a time.
    pub fn reinterpret(self: &Arc<Self>) -> Result<Arc<Storage>> {
        if let Some(r) = &self.root {
            return Ok(r.clone());
        }
        let (dtype, len) = match self.dtype {
            DType::C64 | DType::C128 => (self.dtype.to_real(), self.len * 2),
            DType::F32 | DType::F64 => (self.dtype.to_complex(), self.len / 2),
            d => {
                return Err(Error::runtime(format!(
                    "internal: {d} memory has no complex/real counterpart to be read as"
                )))
            }
        };
        let mut slot = self.alias.lock();
        if let Some(a) = slot.upgrade() {
            return Ok(a);
        }
        let alias = Arc::new(Storage {
            ptr: self.ptr,
            len,
            dtype,
            owner: Owner::Alias,
            writable: self.writable,
            lock: RwLock::new(()),
            version: AtomicU64::new(0),
            family: OnceLock::new(),
            other_writes: AtomicU64::new(0),
            saved: AtomicUsize::new(0),
            writable_exports: AtomicUsize::new(0),
            inference: self.inference,
            root: Some(self.clone()),
            alias: parking_lot::Mutex::new(std::sync::Weak::new()),
            has_alias: std::sync::atomic::AtomicBool::new(false),
        });
        *slot = Arc::downgrade(&alias);
        self.has_alias.store(true, Ordering::Release);
        Ok(alias)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the storage holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element dtype.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Address of the first element (for interop and identity checks).
    pub fn data_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// False for read-only foreign memory; in-place writes then raise.
    pub fn is_writable(&self) -> bool {
        self.root().writable
    }

    /// The version of the tensors over this memory without a counter of their own: the
    /// number of in-place writes they made. Autograd asks the tensor
    /// ([`crate::tensor::Tensor::version`]), which knows whose counter it uses.
    #[inline]
    pub fn version(&self) -> u64 {
        let s = self.root();
        match s.family.get() {
            Some(c) => c.load(Ordering::Acquire),
            None => s.version.load(Ordering::Acquire),
        }
    }

    /// Records one in-place write by a tensor without a counter of its own (see
    /// [`crate::tensor::Tensor::bump_version`], the entry point).
    #[inline]
    pub fn bump_version(&self) {
        let s = self.root();
        match s.family.get() {
            Some(c) => {
                c.fetch_add(1, Ordering::AcqRel);
            }
            None => {
                s.version.fetch_add(1, Ordering::AcqRel);
                if let Some(c) = s.family.get() {
                    // shared meanwhile: its copy may predate this write; a version only
                    // has to change, so counting it twice is harmless
                    c.fetch_add(1, Ordering::AcqRel);
                }
            }
        }
    }

    /// Records one in-place write by a tensor with a counter of its own (which it bumps).
    pub(crate) fn note_other_write(&self) {
        self.root().other_writes.fetch_add(1, Ordering::AcqRel);
    }

    /// Changes whenever the memory is written, through any tensor (for caches keyed by
    /// the memory's contents, not by a tensor family).
    pub fn memory_version(&self) -> u64 {
        self.version()
            .wrapping_add(self.root().other_writes.load(Ordering::Acquire))
    }

    /// The counter of the tensors over this memory without one of their own, as a shared
    /// counter (made on the first call, starting at the current version): they keep using
    /// it, and a tensor over other memory may now share it.
    pub(crate) fn shared_version(&self) -> Arc<AtomicU64> {
        let s = self.root();
        s.family
            .get_or_init(|| Arc::new(AtomicU64::new(s.version.load(Ordering::Acquire))))
            .clone()
    }

    /// True while a node holds this memory saved for backward.
    pub fn is_saved_for_backward(&self) -> bool {
        // (each storage counts its own marks: a mark outlives neither; an alias's memory
        // is saved when either storage over it is)
        let saved = |s: &Storage| s.saved.load(Ordering::Acquire) > 0;
        saved(self) || self.linked_any(saved)
    }

    /// True while another library may write this memory: a live writable export, or
    /// writable foreign memory (`from_numpy`, `from_dlpack`), whose owner can always write.
    pub fn has_writable_aliases(&self) -> bool {
        let r = self.root();
        let exported = |s: &Storage| s.writable_exports.load(Ordering::Acquire) > 0;
        (r.writable && matches!(r.owner, Owner::Foreign(_)))
            || exported(self)
            || self.linked_any(exported)
    }

    /// Counter updates for [`crate::storage_marks`] (`saved` when `saved`, else exports).
    pub(crate) fn add_mark(&self, saved: bool, delta: isize) {
        let c = if saved {
            &self.saved
        } else {
            &self.writable_exports
        };
        if delta > 0 {
            c.fetch_add(1, Ordering::AcqRel);
        } else {
            c.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Shared access to the elements as `&[T]`; panics if `T` is not this dtype (a bug).
    pub fn read<T: Element>(&self) -> ReadGuard<'_, T> {
        assert_eq!(
            T::DTYPE,
            self.dtype,
            "storage read with the wrong element type"
        );
        let guard = self.root().lock.read_recursive();
        // SAFETY: dtype checked; len elements valid while self lives; shared lock held.
        let slice = unsafe { std::slice::from_raw_parts(self.ptr as *const T, self.len) };
        ReadGuard {
            _guard: guard,
            slice,
        }
    }

    /// Exclusive access to the elements; errors on read-only memory. Does not bump the
    /// version: callers that write user-visible data call [`Storage::bump_version`].
    pub fn write<T: Element>(&self) -> Result<WriteGuard<'_, T>> {
        assert_eq!(
            T::DTYPE,
            self.dtype,
            "storage write with the wrong element type"
        );
        if !self.is_writable() {
            return Err(Error::value(
                "cannot write into a tensor whose memory is read-only (it was created from a \
                 read-only NumPy array); copy it first with .clone()",
            ));
        }
        let guard = self.root().lock.write();
        // SAFETY: dtype checked; exclusive lock held for the guard's lifetime.
        let slice = unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut T, self.len) };
        Ok(WriteGuard {
            _guard: guard,
            slice,
        })
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if let Owner::Rust { capacity } = self.owner {
            crate::with_dtype!(self.dtype, T, {
                // (the global allocator offers a large block to the buffer cache, or
                // returns its pages to the kernel, before freeing it)
                // SAFETY: ptr/len/capacity came from a Vec<T> in from_vec.
                drop(unsafe { Vec::from_raw_parts(self.ptr as *mut T, self.len, capacity) });
            })
        }
    }
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Storage({} x {}, version {})",
            self.len,
            self.dtype,
            self.version()
        )
    }
}

/// Shared view of a storage's elements, holding its read lock.
pub struct ReadGuard<'a, T> {
    _guard: RwLockReadGuard<'a, ()>,
    slice: &'a [T],
}

impl<T> Deref for ReadGuard<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

/// Exclusive view of a storage's elements, holding its write lock.
pub struct WriteGuard<'a, T> {
    _guard: RwLockWriteGuard<'a, ()>,
    slice: &'a mut [T],
}

impl<T> Deref for WriteGuard<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T> DerefMut for WriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.slice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec_round_trip_and_version() {
        let s = Storage::from_vec(vec![1.0f32, 2.0, 3.0]);
        assert_eq!(&*s.read::<f32>(), &[1.0, 2.0, 3.0]);
        s.write::<f32>().unwrap()[1] = 5.0;
        s.bump_version();
        assert_eq!(s.version(), 1);
        assert_eq!(s.read::<f32>()[1], 5.0);
    }

    #[test]
    fn a_shared_counter_starts_at_the_version_and_replaces_it() {
        let s = Storage::from_vec(vec![1.0f32]);
        s.bump_version();
        let c = s.shared_version();
        assert_eq!(c.load(Ordering::Acquire), 1);
        s.bump_version();
        c.fetch_add(1, Ordering::AcqRel);
        assert_eq!(s.version(), 3);
        assert!(Arc::ptr_eq(&c, &s.shared_version()));
        let m = s.memory_version();
        s.note_other_write();
        assert_eq!((s.version(), s.memory_version()), (3, m + 1));
    }

    #[test]
    fn an_alias_reads_complex_memory_as_its_parts() {
        use num_complex::Complex64;
        let z = Arc::new(Storage::from_vec(vec![
            Complex64::new(1.0, 2.0),
            Complex64::new(3.0, -1.0),
        ]));
        let r = z.reinterpret().unwrap();
        assert_eq!((r.dtype(), r.len(), r.is_alias()), (DType::F64, 4, true));
        assert_eq!(&*r.read::<f64>(), &[1.0, 2.0, 3.0, -1.0]);
        // one alias per root, and the alias of an alias is the root
        assert!(Arc::ptr_eq(&r, &z.reinterpret().unwrap()));
        assert!(Arc::ptr_eq(&z, &r.reinterpret().unwrap()));
        assert!(Storage::same_memory(&z, &r));
        // writes through either reach the other; one version counter
        r.write::<f64>().unwrap()[3] = 7.0;
        r.bump_version();
        assert_eq!(z.read::<Complex64>()[1], Complex64::new(3.0, 7.0));
        assert_eq!((z.version(), r.version()), (1, 1));
        z.bump_version();
        assert_eq!(r.version(), 2);
        // a saved mark on either is seen from both
        r.add_mark(true, 1);
        assert!(z.is_saved_for_backward() && r.is_saved_for_backward());
        r.add_mark(true, -1);
        assert!(!z.is_saved_for_backward());
    }

    #[test]
    fn an_alias_reads_real_memory_as_complex() {
        use num_complex::Complex32;
        let x = Arc::new(Storage::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0]));
        let c = x.reinterpret().unwrap();
        assert_eq!((c.dtype(), c.len()), (DType::C64, 2));
        assert_eq!(c.read::<Complex32>()[1], Complex32::new(3.0, 4.0));
        drop(c);
        // a new alias once the old one is gone
        assert_eq!(x.reinterpret().unwrap().len(), 2);
        assert!(!Storage::same_memory(
            &x,
            &Storage::from_vec(vec![1.0f32, 2.0])
        ));
        assert!(Arc::new(Storage::from_vec(vec![1i64]))
            .reinterpret()
            .is_err());
    }

    #[test]
    fn impossible_allocation_is_an_error() {
        let e = Storage::zeros(DType::F64, usize::MAX / 4).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Memory);
    }
}
