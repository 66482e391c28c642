//! Index kernels: turning user indices (gather, index_select, flat takes) into row-major
//! linear indices, and reading / writing strided views at such indices.
//!
//! Every op here is expressed over *linear* indices into the row-major order of a view:
//! a take reads `view[lin[p]]`, a put writes it. Linear indices are layout independent,
//! so one list serves both the forward read and the backward write of an op, whatever
//! the strides of the tensors involved. Every index is validated before any memory is
//! touched: a bad one is an `IndexError`, never a panic.

use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::layout::{contiguous_strides, Layout};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

/// Elementwise accumulation used by scatter-add / put-add, for every dtype.
pub trait Accumulate: Element {
    /// `self + other` (wrapping for integers, logical or for bool).
    fn accumulate(self, other: Self) -> Self;
}

macro_rules! impl_acc {
    ($($t:ty => $f:expr),* $(,)?) => {
        $(impl Accumulate for $t {
            #[inline(always)]
            fn accumulate(self, other: Self) -> Self {
                ($f)(self, other)
            }
        })*
    };
}

impl_acc!(
    bool => |a: bool, b: bool| a | b,
    u8 => |a: u8, b: u8| a.wrapping_add(b),
    i8 => |a: i8, b: i8| a.wrapping_add(b),
    i16 => |a: i16, b: i16| a.wrapping_add(b),
    i32 => |a: i32, b: i32| a.wrapping_add(b),
    i64 => |a: i64, b: i64| a.wrapping_add(b),
    f16 => |a: f16, b: f16| f16::from_f32(a.to_f32() + b.to_f32()),
    bf16 => |a: bf16, b: bf16| bf16::from_f32(a.to_f32() + b.to_f32()),
    f32 => |a: f32, b: f32| a + b,
    f64 => |a: f64, b: f64| a + b,
    Complex32 => |a: Complex32, b: Complex32| a + b,
    Complex64 => |a: Complex64, b: Complex64| a + b,
);

/// Wraps a Python-style index (negative counts from the end) into `0..size`.
#[inline]
pub fn wrap_index(i: i64, size: usize) -> Option<usize> {
    let n = i64::try_from(size).ok()?;
    let j = if i < 0 { i.checked_add(n)? } else { i };
    (0..n).contains(&j).then_some(j as usize)
}

/// What an index kernel makes of an index below 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NegIndex<'a> {
    /// Counted from the end, as Python, Paddle and ferrograd's own code do (`-1`: last).
    #[default]
    Wrap,
    /// Refused, as PyTorch's index ops do (its `gather` / `scatter` / `index_select` /
    /// `index_add` / `index_copy`): an `IndexError` naming the op given here (the one the
    /// user called, which may differ from the kernel's own name).
    Refuse(&'a str),
}

impl NegIndex<'_> {
    /// `i` as a position in `0..size`, or `None` when it is outside the range this mode
    /// takes (`[-size, size)` for `Wrap`, `[0, size)` for `Refuse`).
    #[inline(always)]
    pub fn wrap(self, i: i64, size: usize) -> Option<usize> {
        match self {
            NegIndex::Wrap => wrap_index(i, size),
            NegIndex::Refuse(_) => usize::try_from(i).ok().filter(|&j| j < size),
        }
    }

    /// What a kernel adds to an index below 0 before its range check against `0..size`
    /// (`size` when wrapping; 0 when refusing, so every negative index fails the check).
    #[inline(always)]
    pub fn shift(self, size: i64) -> i64 {
        match self {
            NegIndex::Wrap => size,
            NegIndex::Refuse(_) => 0,
        }
    }

    /// The error for an index `i` that [`NegIndex::wrap`] rejected along `dim` of size
    /// `size`: PyTorch's message for a negative one when refusing, else `other()` (the
    /// kernel's own out-of-range message).
    #[cold]
    pub fn error(self, i: i64, dim: usize, size: usize, other: impl FnOnce() -> Error) -> Error {
        match self {
            NegIndex::Refuse(op) if i < 0 => Error::index(format!(
                "{op}: index {i} is out of bounds for dimension {dim} with size {size}: \
                 PyTorch's {op} takes indices in [0, {size}) (negative ones are not counted \
                 from the end; add the size first)"
            )),
            _ => other(),
        }
    }
}

/// Calls `f(position, multi_index)` for every element of `shape` in row-major order.
fn for_each_multi_index(
    shape: &[usize],
    mut f: impl FnMut(usize, &[usize]) -> Result<()>,
) -> Result<()> {
    let n: usize = shape.iter().product();
    let mut idx = vec![0usize; shape.len()];
    for p in 0..n {
        f(p, &idx)?;
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(())
}

/// Linear indices of `index_select(dim, index)` on a tensor of `shape`: the output has
/// `shape` with `shape[dim]` replaced by `index.len()`. Negative indices wrap.
pub fn select_linear(shape: &[usize], dim: usize, index: &[i64], op: &str) -> Result<Vec<usize>> {
    let size = shape[dim];
    let idx: Vec<usize> = index
        .iter()
        .map(|&i| {
            wrap_index(i, size).ok_or_else(|| {
                Error::index(format!(
                    "{op}: index {i} is out of range for dimension {dim} with size {size}"
                ))
            })
        })
        .collect::<Result<_>>()?;
    let cs = contiguous_strides(shape);
    let mut out_shape = shape.to_vec();
    out_shape[dim] = idx.len();
    let mut lin = crate::storage::try_vec_with_capacity(out_shape.iter().product())?;
    for_each_multi_index(&out_shape, |_, m| {
        let l: isize = m
            .iter()
            .enumerate()
            .map(|(d, &k)| {
                if d == dim {
                    idx[k] as isize * cs[d]
                } else {
                    k as isize * cs[d]
                }
            })
            .sum();
        lin.push(l as usize);
        Ok(())
    })?;
    Ok(lin)
}

/// Linear indices of `gather(dim, index)` on a tensor of `shape` (torch semantics): the
/// output has `index_shape`, which must have the same rank as `shape` and no larger size
/// outside `dim`; output element `m` reads `input[m with m[dim] = index[m]]`. `neg`: what
/// an index below 0 means.
pub fn gather_linear(
    shape: &[usize],
    dim: usize,
    index: &[i64],
    index_shape: &[usize],
    op: &str,
    neg: NegIndex<'_>,
) -> Result<Vec<usize>> {
    if index_shape.len() != shape.len() {
        return Err(Error::value(format!(
            "{op}: the index has {} dimension(s) ({index_shape:?}) but the input has {} \
             ({shape:?}); they must have the same number of dimensions",
            index_shape.len(),
            shape.len()
        )));
    }
    if let Some(d) = (0..shape.len()).find(|&d| d != dim && index_shape[d] > shape[d]) {
        return Err(Error::value(format!(
            "{op}: the index of shape {index_shape:?} is larger than the input of shape \
             {shape:?} at dimension {d} ({} > {}); only dimension {dim} may differ",
            index_shape[d], shape[d]
        )));
    }
    if index.len() != index_shape.iter().product::<usize>() {
        return Err(Error::value(format!(
            "{op}: {} index values do not fill an index of shape {index_shape:?}",
            index.len()
        )));
    }
    let cs = contiguous_strides(shape);
    let size = if shape.is_empty() { 1 } else { shape[dim] };
    let mut lin = crate::storage::try_vec_with_capacity(index.len())?;
    for_each_multi_index(index_shape, |p, m| {
        let i = index[p];
        let k = neg.wrap(i, size).ok_or_else(|| {
            neg.error(i, dim, size, || {
                Error::index(format!(
                    "{op}: index {i} is out of bounds for dimension {dim} with size {size}"
                ))
            })
        })?;
        let l: isize = m
            .iter()
            .enumerate()
            .map(|(d, &j)| {
                if d == dim {
                    k as isize * cs[d]
                } else {
                    j as isize * cs[d]
                }
            })
            .sum();
        lin.push(l as usize);
        Ok(())
    })?;
    Ok(lin)
}

/// Wraps and validates flat indices into a tensor of `numel` elements.
pub fn flat_linear(index: &[i64], numel: usize, op: &str) -> Result<Vec<usize>> {
    index
        .iter()
        .map(|&i| {
            wrap_index(i, numel).ok_or_else(|| {
                Error::index(format!(
                    "{op}: index {i} is out of range for a tensor of {numel} element(s)"
                ))
            })
        })
        .collect()
}

/// Checks that every linear index addresses an element of `layout`.
fn check_linear(layout: &Layout, lin: &[usize], op: &str) -> Result<()> {
    let n = layout.numel();
    match lin.iter().find(|&&l| l >= n) {
        Some(l) => Err(Error::index(format!(
            "{op}: linear index {l} is out of range for a view of {n} element(s) (shape {:?})",
            layout.shape.as_slice()
        ))),
        None => Ok(()),
    }
}

/// Storage offset of row-major element `lin` of `layout` (already validated).
#[inline]
fn offset_of(layout: &Layout, contiguous: bool, mut lin: usize) -> usize {
    if contiguous {
        return layout.offset + lin;
    }
    let mut off = layout.offset as isize;
    for d in (0..layout.ndim()).rev() {
        let size = layout.shape[d];
        off += (lin % size) as isize * layout.strides[d];
        lin /= size;
    }
    off as usize
}

/// Checks that `layout` fits inside a buffer of `len` elements.
fn check_span(layout: &Layout, len: usize, op: &str) -> Result<()> {
    if layout.numel() > 0 && layout.storage_span().1 > len {
        return Err(Error::runtime(format!(
            "internal: {op}: a view of shape {:?} reaches past its buffer of {len} elements",
            layout.shape.as_slice()
        )));
    }
    Ok(())
}

/// Reads `src` seen through `layout` at row-major linear indices `lin`.
pub fn take<T: Copy>(src: &[T], layout: &Layout, lin: &[usize], op: &str) -> Result<Vec<T>> {
    check_linear(layout, lin, op)?;
    check_span(layout, src.len(), op)?;
    let contiguous = layout.is_contiguous();
    let mut out = crate::storage::try_vec_with_capacity(lin.len())?;
    out.extend(lin.iter().map(|&l| src[offset_of(layout, contiguous, l)]));
    Ok(out)
}

/// Writes `vals[p]` to element `lin[p]` of `dst` seen through `layout`, adding to what is
/// there when `accumulate`, else overwriting (with duplicates, the last write wins).
pub fn put<T: Accumulate>(
    dst: &mut [T],
    layout: &Layout,
    lin: &[usize],
    vals: &[T],
    accumulate: bool,
    op: &str,
) -> Result<()> {
    if vals.len() != lin.len() {
        return Err(Error::value(format!(
            "{op}: {} values for {} indices; they must match",
            vals.len(),
            lin.len()
        )));
    }
    check_linear(layout, lin, op)?;
    check_span(layout, dst.len(), op)?;
    let contiguous = layout.is_contiguous();
    for (&l, &v) in lin.iter().zip(vals) {
        let o = offset_of(layout, contiguous, l);
        dst[o] = if accumulate { dst[o].accumulate(v) } else { v };
    }
    Ok(())
}

/// For each position of `lin`, whether it is the last write to its target among `numel`
/// targets (the write that survives an overwriting put).
pub fn last_writers(lin: &[usize], numel: usize) -> Result<Vec<bool>> {
    let mut last = crate::storage::try_filled_vec(numel, usize::MAX)?;
    for (p, &l) in lin.iter().enumerate() {
        if let Some(slot) = last.get_mut(l) {
            *slot = p;
        }
    }
    Ok(lin
        .iter()
        .enumerate()
        .map(|(p, &l)| last.get(l) == Some(&p))
        .collect())
}

/// Coordinates of the non-zero elements of `src` seen through `layout`, row-major, as a
/// flat `[count * ndim]` list; returns it with the count.
pub fn nonzero<T: Element>(src: &[T], layout: &Layout) -> Result<(Vec<i64>, usize)> {
    check_span(layout, src.len(), "nonzero")?;
    let nd = layout.ndim();
    let offsets = layout.offsets()?;
    let zero = T::zero();
    // count first, so the coordinates are one fallible allocation (MemoryError, not abort)
    let hits = offsets.iter().filter(|&&o| src[o] != zero).count();
    let total = hits.checked_mul(nd).ok_or_else(|| {
        crate::error::Error::memory(format!("nonzero: {hits} x {nd} coordinates do not fit"))
    })?;
    let mut coords = crate::storage::try_vec_with_capacity(total)?;
    let mut count = 0usize;
    for_each_multi_index(&layout.shape, |p, m| {
        // NaN compares unequal to zero, so it counts as non-zero (as in NumPy)
        if src[offsets[p]] != zero {
            coords.extend(m.iter().map(|&c| c as i64));
            count += 1;
        }
        Ok(())
    })?;
    debug_assert_eq!(coords.len(), count * nd);
    Ok((coords, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_index_handles_python_negatives() {
        assert_eq!(wrap_index(-1, 3), Some(2));
        assert_eq!(wrap_index(2, 3), Some(2));
        assert_eq!(wrap_index(3, 3), None);
        assert_eq!(wrap_index(-4, 3), None);
        assert_eq!(wrap_index(i64::MIN, 3), None);
        assert_eq!(wrap_index(0, 0), None);
    }

    #[test]
    fn refuse_mode_takes_only_indices_from_zero() {
        let refuse = NegIndex::Refuse("user_op");
        assert_eq!(refuse.wrap(2, 3), Some(2));
        assert_eq!(refuse.wrap(-1, 3), None);
        assert_eq!(refuse.wrap(3, 3), None);
        assert_eq!(refuse.wrap(i64::MIN, 3), None);
        assert_eq!((refuse.shift(3), NegIndex::Wrap.shift(3)), (0, 3));
        // the same index list: wrapped, or refused with PyTorch's message naming the op
        let idx = [1, -1, 0, 1];
        let wrapped = gather_linear(&[2, 2], 1, &idx, &[2, 2], "g", NegIndex::Wrap).unwrap();
        assert_eq!(wrapped, vec![1, 1, 2, 3]);
        let e = gather_linear(&[2, 2], 1, &idx, &[2, 2], "g", refuse).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Index);
        assert!(
            e.message.starts_with(
                "user_op: index -1 is out of bounds for dimension 1 with size 2: PyTorch's \
                 user_op takes indices in [0, 2) (negative ones are not counted from the end"
            ),
            "{}",
            e.message
        );
        // an index past the end keeps the kernel's own message
        let e = gather_linear(&[2, 2], 1, &[2, 0, 0, 0], &[2, 2], "g", refuse).unwrap_err();
        assert!(
            e.message.starts_with("g: index 2 is out of bounds"),
            "{}",
            e.message
        );
    }

    #[test]
    fn take_and_put_follow_strides() {
        let base: Vec<i64> = (0..6).collect();
        let t = Layout::contiguous(&[2, 3]).swap_dims(0, 1); // [3, 2] transposed view
        assert_eq!(take(&base, &t, &[0, 1, 5], "t").unwrap(), vec![0, 3, 5]);
        let mut dst = vec![0i64; 6];
        put(&mut dst, &t, &[1, 1, 2], &[1, 2, 7], true, "p").unwrap();
        assert_eq!(dst, vec![0, 7, 0, 3, 0, 0]);
        put(&mut dst, &t, &[1, 1], &[5, 9], false, "p").unwrap();
        assert_eq!(dst[3], 9);
        assert!(take(&base, &t, &[6], "t")
            .unwrap_err()
            .message
            .contains("6"));
    }

    #[test]
    fn linear_indices_of_select_and_gather() {
        assert_eq!(
            select_linear(&[2, 3], 1, &[2, -3], "s").unwrap(),
            vec![2, 0, 5, 3]
        );
        assert_eq!(
            gather_linear(&[2, 2], 1, &[1, 1, 0, 1], &[2, 2], "g", NegIndex::Wrap).unwrap(),
            vec![1, 1, 2, 3]
        );
        assert!(select_linear(&[2, 3], 1, &[3], "s").is_err());
        assert!(gather_linear(&[2, 2], 1, &[0; 3], &[3, 1], "g", NegIndex::Wrap).is_err());
        assert_eq!(
            last_writers(&[1, 0, 1], 2).unwrap(),
            vec![false, true, true]
        );
    }

    #[test]
    fn accumulation_for_narrow_complex_and_bool() {
        let l = Layout::contiguous(&[2]);
        let mut h = vec![f16::from_f32(1.5); 2];
        put(&mut h, &l, &[0, 0], &[f16::ONE, f16::ONE], true, "p").unwrap();
        assert_eq!(h[0].to_f32(), 3.5);
        let mut c = vec![Complex64::new(0.0, 1.0); 2];
        put(
            &mut c,
            &l,
            &[1, 1],
            &[Complex64::new(1.0, 1.0); 2],
            true,
            "p",
        )
        .unwrap();
        assert_eq!(c[1], Complex64::new(2.0, 3.0));
        let mut b = vec![false; 2];
        put(&mut b, &l, &[1, 1], &[true, false], true, "p").unwrap();
        assert_eq!(b, vec![false, true]);
        let mut i = vec![i64::MAX; 2];
        put(&mut i, &l, &[0], &[1], true, "p").unwrap();
        assert_eq!(i[0], i64::MIN); // integer sums wrap instead of panicking
    }
}
