//! Dtype conversion of a strided view into a new contiguous buffer.

use super::elementwise::map_unary;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;

/// Converts `layout`'s elements of `src` to `to`, contiguous. Real-to-real conversions go
/// through f64 (exact for every real dtype here); complex to real keeps the real part.
pub fn cast_storage(src: &Storage, layout: &Layout, to: DType) -> Result<Storage> {
    crate::with_dtype!(src.dtype(), S, {
        let data = src.read::<S>();
        crate::with_dtype!(to, D, {
            Ok(Storage::from_vec(cast_slice::<S, D>(&data, layout)?))
        })
    })
}

fn cast_slice<S: Element, D: Element>(src: &[S], layout: &Layout) -> Result<Vec<D>> {
    if S::DTYPE.is_complex() || D::DTYPE.is_complex() {
        map_unary(src, layout, |x: S| D::from_c128(x.to_c128()))
    } else if D::DTYPE == DType::Bool {
        map_unary(src, layout, |x: S| {
            D::from_f64(if x.to_f64() != 0.0 { 1.0 } else { 0.0 })
        })
    } else {
        map_unary(src, layout, |x: S| D::from_f64(x.to_f64()))
    }
}
