//! Checks the metadata of memory that another library hands over (a DLPack capsule):
//! shape, strides, byte offset and data pointer, with checked arithmetic, before any
//! element is read. Pure Rust (no Python), so the fuzz targets in `fuzz/` drive it directly.

use crate::error::{Error, Result};
use crate::layout::{Layout, Strides};
use smallvec::SmallVec;

/// Where a validated foreign tensor's elements lie.
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignView {
    /// Layout over the span that starts at [`ForeignView::base`] (offset = first element).
    pub layout: Layout,
    /// Address of the lowest reachable element (for an empty view: the data address when
    /// it is non-null and aligned, else a dangling aligned address; nothing is read).
    pub base: usize,
    /// Elements from `base` to the highest reachable one (0 for an empty view).
    pub len: usize,
}

/// A non-null address aligned for every element type (itemsizes 1 to 16 divide it).
const DANGLING: usize = 64;

fn bad(op: &str, what: String) -> Error {
    Error::value(format!("{op}: {what}"))
}

/// Validates a foreign view of `shape` / `strides` (in elements; `None` = row-major) over
/// elements of `itemsize` bytes at `data + byte_offset`. Every size and address computed on
/// the way is checked: negative dims, strides whose extent wraps, spans beyond the address
/// space, a NULL or misaligned data pointer for a non-empty view are errors naming the fault.
pub fn validate(
    op: &str,
    shape: &[i64],
    strides: Option<&[i64]>,
    itemsize: usize,
    data: usize,
    byte_offset: u64,
) -> Result<ForeignView> {
    validate_aligned(op, shape, strides, itemsize, itemsize, data, byte_offset)
}

/// [`validate`] with the element type's own alignment `align` (a complex element is two
/// floats, aligned to one: 4 bytes for complex64, as NumPy and PyTorch take it).
pub fn validate_aligned(
    op: &str,
    shape: &[i64],
    strides: Option<&[i64]>,
    itemsize: usize,
    align: usize,
    data: usize,
    byte_offset: u64,
) -> Result<ForeignView> {
    if itemsize == 0 || align == 0 {
        return Err(bad(op, "the element size is 0 bytes".into()));
    }
    if let Some(s) = strides {
        if s.len() != shape.len() {
            return Err(bad(
                op,
                format!("{} strides for {} dimensions", s.len(), shape.len()),
            ));
        }
    }
    let mut dims: SmallVec<[usize; 6]> = SmallVec::with_capacity(shape.len());
    for &d in shape {
        let d = usize::try_from(d)
            .map_err(|_| bad(op, format!("negative dimension {d} in shape {shape:?}")))?;
        dims.push(d);
    }
    let numel = crate::layout::checked_numel(&dims)?;
    let numel_bytes = numel
        .checked_mul(itemsize)
        .filter(|&b| b <= isize::MAX as usize);
    if numel_bytes.is_none() {
        return Err(Error::memory(format!(
            "{op}: shape {shape:?} of {itemsize}-byte elements is larger than the address space"
        )));
    }
    let strides: Strides = match strides {
        Some(s) => s.iter().map(|&x| x as isize).collect(),
        None => crate::layout::contiguous_strides(&dims),
    };
    if numel == 0 {
        // nothing is ever read: no pointer checks
        return Ok(ForeignView {
            layout: Layout {
                shape: dims.iter().copied().collect(),
                strides,
                offset: 0,
            },
            // a slice of 0 elements still needs a non-null, aligned pointer
            base: if data != 0 && data.is_multiple_of(itemsize) {
                data
            } else {
                DANGLING
            },
            len: 0,
        });
    }
    if data == 0 {
        return Err(bad(
            op,
            format!("the data pointer is NULL but the shape {shape:?} is not empty"),
        ));
    }
    // i128 cannot overflow here: each term is below 2^64 * 2^63 and there are few of them
    // before the range checks below (ndim is at most a few thousand in practice; checked).
    let (mut lo, mut hi) = (0i128, 0i128);
    for (&d, &s) in dims.iter().zip(&strides) {
        let ext = (d as i128 - 1) * s as i128;
        if ext < 0 {
            lo += ext;
        } else {
            hi += ext;
        }
        if lo < -(isize::MAX as i128) || hi > isize::MAX as i128 {
            return Err(bad(
                op,
                format!("strides {strides:?} with shape {shape:?} reach beyond the address space"),
            ));
        }
    }
    let len = hi - lo + 1;
    let start = data as i128 + byte_offset as i128;
    let base = start + lo * itemsize as i128;
    let end = start + (hi + 1) * itemsize as i128;
    if len * itemsize as i128 > isize::MAX as i128 || base < 1 || end > isize::MAX as i128 {
        return Err(bad(
            op,
            format!(
                "strides {strides:?} with shape {shape:?} and byte offset {byte_offset} reach \
                 beyond the address space"
            ),
        ));
    }
    if start % align as i128 != 0 {
        return Err(bad(
            op,
            "the data pointer is not aligned to the element size; make the producer's \
             array contiguous first"
                .into(),
        ));
    }
    Ok(ForeignView {
        layout: Layout {
            shape: dims.iter().copied().collect(),
            strides,
            offset: (-lo) as usize,
        },
        base: base as usize,
        len: len as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_row_major_and_negative_strides() {
        let v = validate("t", &[2, 3], None, 4, 4096, 0).unwrap();
        assert_eq!((v.base, v.len, v.layout.offset), (4096, 6, 0));
        let v = validate("t", &[3], Some(&[-1]), 8, 4096, 16).unwrap();
        assert_eq!((v.base, v.len, v.layout.offset), (4096, 3, 2));
    }

    #[test]
    fn refuses_wrapping_and_null() {
        let wrap = validate("t", &[4, 4], Some(&[1 << 61, 1 << 61]), 4, 4096, 0);
        assert!(wrap.is_err());
        assert!(validate("t", &[3], Some(&[1 << 62]), 4, 4096, 0).is_err());
        assert!(validate("t", &[i64::MAX, 2], None, 4, 4096, 0).is_err());
        assert!(validate("t", &[2], None, 4, 0, 0).is_err());
        assert!(validate("t", &[-1], None, 4, 4096, 0).is_err());
        assert!(validate("t", &[2], None, 4, 4096, u64::MAX).is_err());
        assert!(validate("t", &[2], Some(&[1, 1]), 4, 4096, 0).is_err());
        // empty: no pointer checks
        assert_eq!(validate("t", &[0, 5], None, 4, 0, 0).unwrap().len, 0);
    }

    #[test]
    fn empty_with_huge_dims_and_no_strides_does_not_overflow() {
        // found by the dlpack_validate cargo-fuzz target: the contiguous strides of
        // [0, 2^62, 2^62] overflowed (a panic with overflow checks, a wrap without)
        let v = validate("t", &[0, 1 << 62, 1 << 62], None, 4, 4096, 0).unwrap();
        assert_eq!(v.len, 0);
        assert!(v.layout.strides.iter().all(|&s| s > 0));
    }
}
