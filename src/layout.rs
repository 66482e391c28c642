//! Shape, strides and offset of a tensor view into its storage, and the shape algebra
//! (broadcasting, permutation, reshaping, slicing) that views are built from.
//!
//! Strides are in elements and may be zero (broadcast) or negative (reversed slices).

use crate::error::{Error, Result};
use smallvec::SmallVec;

/// Dimensions of a tensor; inline for up to 6 dims.
pub type Shape = SmallVec<[usize; 6]>;
/// Strides of a tensor in elements; inline for up to 6 dims.
pub type Strides = SmallVec<[isize; 6]>;

/// Where a tensor's elements sit inside its storage.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    /// Size of each dimension.
    pub shape: Shape,
    /// Element step of each dimension.
    pub strides: Strides,
    /// Index of the first element in the storage.
    pub offset: usize,
}

impl Clone for Layout {
    /// Copies the dimension lists as slices (smallvec's generic `clone` pushes element by
    /// element: ~50 instructions per list on every op's result layout).
    fn clone(&self) -> Self {
        Layout {
            shape: Shape::from_slice(&self.shape),
            strides: Strides::from_slice(&self.strides),
            offset: self.offset,
        }
    }
}

/// Product of the dimensions; fails on overflow (huge shapes must not wrap around).
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            Error::memory(format!(
                "shape {shape:?} has more elements than fit in memory"
            ))
        })
}

/// Row-major strides of a contiguous tensor of `shape`.
///
/// A tensor with elements has a checked element count, so its strides never overflow; an
/// empty one (a 0 in its shape) may have huge other dims (`[0, 2**62, 2**62]`), whose
/// strides saturate at `isize::MAX` instead of wrapping (no element is ever addressed
/// through them). Found by the `dlpack_validate` cargo-fuzz target.
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    fn fill(shape: &[usize], strides: &mut [isize]) {
        let mut acc = 1isize;
        for (s, &d) in strides.iter_mut().zip(shape).rev() {
            *s = acc;
            acc = acc.saturating_mul(isize::try_from(d.max(1)).unwrap_or(isize::MAX));
        }
    }
    // up to 6 dims: filled in an inline buffer (smallvec's `from_elem` and indexed
    // stores cost ~60 instructions more on every op's output layout)
    if shape.len() <= 6 {
        let mut buf = [0isize; 6];
        fill(shape, &mut buf[..shape.len()]);
        return SmallVec::from_buf_and_len(buf, shape.len());
    }
    let mut strides: Strides = SmallVec::from_elem(0, shape.len());
    fill(shape, &mut strides);
    strides
}

/// The elements a strided view can reach, relative to its first element: `(lo, len)`,
/// where `lo <= 0` is the lowest reachable offset (negative strides reach backwards) and
/// `len` the number of elements from there to the highest (0 for an empty view).
pub fn element_span(shape: &[usize], strides: &[isize]) -> (isize, usize) {
    if shape.contains(&0) {
        return (0, 0);
    }
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&d, &s) in shape.iter().zip(strides) {
        let ext = (d as isize - 1) * s;
        if ext < 0 {
            lo += ext
        } else {
            hi += ext
        }
    }
    (lo, (hi - lo + 1) as usize)
}

/// NumPy broadcasting of two shapes; names the op and both shapes on failure.
pub fn broadcast_shapes(a: &[usize], b: &[usize], op: &str) -> Result<Shape> {
    if a == b {
        return Ok(Shape::from_slice(a)); // the common case, without the per-dim loop
    }
    let n = a.len().max(b.len());
    let mut out: Shape = SmallVec::from_elem(0, n);
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::value(format!(
                "{op}: shapes {a:?} and {b:?} cannot be broadcast together \
                 (dimension {i} is {da} vs {db}; sizes must match or one must be 1)"
            )));
        };
    }
    Ok(out)
}

/// Normalises a possibly negative dimension index against `ndim`.
pub fn normalize_dim(dim: isize, ndim: usize, op: &str) -> Result<usize> {
    let n = ndim.max(1) as isize;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::index(format!(
            "{op}: dimension {dim} is out of range for a tensor with {ndim} dimension(s) \
             (expected a value in [{}, {}])",
            -n,
            n - 1
        )));
    }
    Ok(d as usize)
}

/// Like [`normalize_dim`], for an op that reads `shape[dim]`: a 0-d tensor has no
/// dimension to name (where [`normalize_dim`] lets a reduction take dim 0 or -1 of it).
pub fn normalize_axis(dim: isize, ndim: usize, op: &str) -> Result<usize> {
    if ndim == 0 {
        return Err(Error::index(format!(
            "{op}: a 0-d tensor has no dimension {dim}; reshape it to 1-d first"
        )));
    }
    normalize_dim(dim, ndim, op)
}

impl Layout {
    /// Contiguous row-major layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: SmallVec::from_slice(shape),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when elements are laid out row-major without gaps (offset may be non-zero).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1isize;
        for i in (0..self.shape.len()).rev() {
            if self.shape[i] != 1 && self.strides[i] != expected {
                return false;
            }
            expected *= self.shape[i] as isize;
        }
        true
    }

    /// The first dimension whose elements all share one memory location (size above 1,
    /// stride 0: a dimension made by `expand`), if any. PyTorch's "internal overlap" test:
    /// an in-place write into such a view would give several values one element.
    pub fn broadcast_dim(&self) -> Option<usize> {
        if self.shape.contains(&0) {
            return None; // no elements, nothing shared
        }
        (0..self.shape.len()).find(|&d| self.shape[d] > 1 && self.strides[d] == 0)
    }

    /// Storage index range `[lo, hi)` this view can touch (empty views touch nothing).
    pub fn storage_span(&self) -> (usize, usize) {
        if self.numel() == 0 {
            return (self.offset, self.offset);
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let ext = (d as isize - 1) * s;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        (lo as usize, hi as usize + 1)
    }

    /// View with dims reordered by `perm` (a permutation of `0..ndim`).
    pub fn permute(&self, perm: &[usize]) -> Result<Layout> {
        let n = self.ndim();
        let mut seen: SmallVec<[bool; 8]> = SmallVec::from_elem(false, n);
        if perm.len() != n
            || perm
                .iter()
                .any(|&p| p >= n || std::mem::replace(&mut seen[p], true))
        {
            return Err(Error::value(format!(
                "permute: {perm:?} is not a permutation of the {n} dimensions of a tensor of \
                 shape {:?}",
                self.shape.as_slice()
            )));
        }
        Ok(Layout {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        })
    }

    /// View with dims `a` and `b` swapped (already normalised).
    pub fn swap_dims(&self, a: usize, b: usize) -> Layout {
        let mut l = self.clone();
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        l
    }

    /// View broadcast to `shape` (stride 0 on expanded dims); errors name `op`.
    pub fn broadcast_to(&self, shape: &[usize], op: &str) -> Result<Layout> {
        let n = shape.len();
        if n < self.ndim() {
            return Err(Error::value(format!(
                "{op}: cannot broadcast shape {:?} to {shape:?} (target has fewer dimensions)",
                self.shape.as_slice()
            )));
        }
        let lead = n - self.ndim();
        let mut strides: Strides = SmallVec::from_elem(0, n);
        for i in 0..n {
            if i < lead {
                continue;
            }
            let (d, s) = (self.shape[i - lead], self.strides[i - lead]);
            if d == shape[i] {
                strides[i] = s;
            } else if d != 1 {
                return Err(Error::value(format!(
                    "{op}: cannot broadcast shape {:?} to {shape:?} (dimension {i}: {d} vs {}; \
                     only size-1 dimensions can be expanded)",
                    self.shape.as_slice(),
                    shape[i]
                )));
            }
        }
        Ok(Layout {
            shape: SmallVec::from_slice(shape),
            strides,
            offset: self.offset,
        })
    }

    /// View of a new shape with the same elements, when the strides allow it without a
    /// copy; `None` when a copy is needed.
    pub fn reshape_view(&self, new_shape: &[usize]) -> Option<Layout> {
        // an empty tensor reads no memory: any shape of no elements is a view of it (as
        // PyTorch's `computeStride` answers), whatever its strides
        if self.numel() == 0 || self.is_contiguous() {
            return Some(Layout {
                shape: SmallVec::from_slice(new_shape),
                strides: contiguous_strides(new_shape),
                offset: self.offset,
            });
        }
        // Merge runs of old dims that are contiguous with each other, then split them.
        let old: Vec<(usize, isize)> = self
            .shape
            .iter()
            .cloned()
            .zip(self.strides.iter().cloned())
            .filter(|(d, _)| *d != 1)
            .collect();
        let mut new_strides: Strides = SmallVec::from_elem(0, new_shape.len());
        let mut oi = 0;
        let mut ni = 0;
        while ni < new_shape.len() {
            if new_shape[ni] == 1 {
                new_strides[ni] = 1;
                ni += 1;
                continue;
            }
            if oi >= old.len() {
                return None;
            }
            // take a chunk of old dims whose product equals a chunk of new dims
            let (mut op, mut np) = (old[oi].0, new_shape[ni]);
            let (o_start, n_start) = (oi, ni);
            while op != np {
                if op < np {
                    oi += 1;
                    if oi >= old.len() {
                        return None;
                    }
                    op *= old[oi].0;
                } else {
                    ni += 1;
                    if ni >= new_shape.len() {
                        return None;
                    }
                    np *= new_shape[ni];
                }
            }
            // old chunk must be contiguous within itself
            for k in o_start..oi {
                if old[k].1 != old[k + 1].1 * old[k + 1].0 as isize {
                    return None;
                }
            }
            let mut stride = old[oi].1;
            for k in (n_start..=ni).rev() {
                new_strides[k] = stride;
                stride *= new_shape[k] as isize;
            }
            oi += 1;
            ni += 1;
        }
        if oi != old.len() {
            return None;
        }
        Some(Layout {
            shape: SmallVec::from_slice(new_shape),
            strides: new_strides,
            offset: self.offset,
        })
    }

    /// View of `start..stop` by `step` along `dim` (bounds already clamped by the caller).
    pub fn slice(&self, dim: usize, start: usize, len: usize, step: isize) -> Layout {
        let mut l = self.clone();
        let new_off = self.offset as isize + start as isize * self.strides[dim];
        l.shape[dim] = len;
        l.offset = if l.numel() == 0 { 0 } else { new_off as usize };
        l.strides[dim] = self.strides[dim] * step;
        l
    }

    /// View with dimension `dim` fixed at `index` (dimension removed).
    pub fn select(&self, dim: usize, index: usize) -> Layout {
        let mut l = self.clone();
        l.shape.remove(dim);
        l.strides.remove(dim);
        // an empty view keeps offset 0: its offset may lie past the storage's end
        l.offset = if l.numel() == 0 {
            0
        } else {
            (self.offset as isize + index as isize * self.strides[dim]) as usize
        };
        l
    }

    /// View with a size-1 dimension inserted at `dim` (`0..=ndim`).
    pub fn unsqueeze(&self, dim: usize) -> Layout {
        let mut l = self.clone();
        let stride = if dim < self.ndim() {
            self.strides[dim] * self.shape[dim] as isize
        } else {
            1
        };
        l.shape.insert(dim, 1);
        l.strides.insert(dim, stride);
        l
    }

    /// View without dimension `dim`, which must have size 1.
    pub fn squeeze_dim(&self, dim: usize) -> Layout {
        let mut l = self.clone();
        l.shape.remove(dim);
        l.strides.remove(dim);
        l
    }

    /// Calls `f(base_offset, inner_stride, inner_len)` for each innermost row, in
    /// row-major order. The building block of every strided kernel.
    #[inline]
    pub fn for_each_row(&self, mut f: impl FnMut(isize, isize, usize)) {
        let nd = self.ndim();
        if nd == 0 {
            f(self.offset as isize, 1, 1);
            return;
        }
        if self.numel() == 0 {
            return;
        }
        let inner_len = self.shape[nd - 1];
        let inner_stride = self.strides[nd - 1];
        let outer = &self.shape[..nd - 1];
        let mut idx: SmallVec<[usize; 6]> = SmallVec::from_elem(0, nd - 1);
        let mut base = self.offset as isize;
        loop {
            f(base, inner_stride, inner_len);
            // increment the multi-index over the outer dims
            let mut d = nd - 1;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                idx[d] += 1;
                base += self.strides[d];
                if idx[d] < outer[d] {
                    break;
                }
                base -= self.strides[d] * outer[d] as isize;
                idx[d] = 0;
            }
        }
    }

    /// Storage offsets of every element in row-major order (for small or general paths).
    /// Fails with a memory error when the list does not fit.
    pub fn offsets(&self) -> Result<Vec<usize>> {
        let mut out = crate::storage::try_vec_with_capacity(self.numel())?;
        self.for_each_row(|base, stride, len| {
            for i in 0..len as isize {
                out.push((base + i * stride) as usize);
            }
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_span_covers_negative_and_zero_strides() {
        assert_eq!(element_span(&[2, 3], &[3, 1]), (0, 6));
        assert_eq!(element_span(&[2, 3], &[-3, 1]), (-3, 6)); // rows reversed
        assert_eq!(element_span(&[4], &[0]), (0, 1)); // broadcast
        assert_eq!(element_span(&[0, 5], &[5, 1]), (0, 0)); // empty
        assert_eq!(element_span(&[], &[]), (0, 1)); // 0-d
    }

    #[test]
    fn broadcasting_rules() {
        assert_eq!(
            broadcast_shapes(&[3, 1], &[4], "add").unwrap().as_slice(),
            &[3, 4]
        );
        assert_eq!(
            broadcast_shapes(&[], &[2, 2], "add").unwrap().as_slice(),
            &[2, 2]
        );
        let e = broadcast_shapes(&[3], &[4], "add").unwrap_err();
        assert!(e.message.contains("add") && e.message.contains("[3]"));
    }

    #[test]
    fn contiguity_and_transpose() {
        let l = Layout::contiguous(&[2, 3]);
        assert!(l.is_contiguous());
        let t = l.swap_dims(0, 1);
        assert!(!t.is_contiguous());
        assert_eq!(t.offsets().unwrap(), vec![0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn reshape_view_merges_contiguous_runs() {
        let l = Layout::contiguous(&[2, 3, 4]);
        let p = l.permute(&[1, 0, 2]).unwrap(); // [3,2,4] strides [4,12,1]
        assert!(p.reshape_view(&[3, 8]).is_none());
        let v = p.reshape_view(&[3, 2, 2, 2]).unwrap();
        assert_eq!(v.offsets().unwrap(), p.offsets().unwrap());
        assert_eq!(l.reshape_view(&[6, 4]).unwrap().strides.as_slice(), &[4, 1]);
    }

    #[test]
    fn empty_layouts_reshape_as_views() {
        // contiguous strides of [0, 0] are [1, 1], which `is_contiguous` does not accept
        let l = Layout::contiguous(&[0, 0]);
        assert_eq!(l.reshape_view(&[0]).unwrap().strides.as_slice(), &[1]);
        let t = Layout::contiguous(&[2, 0, 3]).swap_dims(0, 2);
        let v = t.reshape_view(&[3, 0, 2]).unwrap();
        assert_eq!(v.shape.as_slice(), &[3, 0, 2]);
        assert_eq!(v.strides.as_slice(), &[2, 2, 1]);
    }

    #[test]
    fn slicing_with_negative_step() {
        let l = Layout::contiguous(&[5]);
        let s = l.slice(0, 4, 5, -1);
        assert_eq!(s.offsets().unwrap(), vec![4, 3, 2, 1, 0]);
        assert_eq!(s.storage_span(), (0, 5));
    }

    #[test]
    fn broadcast_to_uses_zero_strides() {
        let l = Layout::contiguous(&[3, 1]);
        let b = l.broadcast_to(&[2, 3, 4], "expand").unwrap();
        assert_eq!(b.strides.as_slice(), &[0, 1, 0]);
        assert_eq!(b.numel(), 24);
        assert!(l.broadcast_to(&[3, 2], "expand").is_ok());
        assert!(l.broadcast_to(&[2, 2], "expand").is_err());
    }

    #[test]
    fn empty_views_start_at_offset_zero() {
        let l = Layout::contiguous(&[3, 0]);
        assert_eq!(l.select(0, 2).offset, 0);
        assert_eq!(l.slice(0, 1, 2, 1).offset, 0);
        let full = Layout::contiguous(&[3, 2]);
        assert_eq!(full.select(0, 2).offset, 4);
        assert_eq!(full.slice(0, 2, 0, 1).offset, 0);
        assert!(normalize_axis(0, 0, "t").is_err());
        assert_eq!(normalize_dim(0, 0, "t").unwrap(), 0);
    }

    #[test]
    fn numel_overflow_is_an_error() {
        assert!(checked_numel(&[usize::MAX, 2]).is_err());
    }
}
