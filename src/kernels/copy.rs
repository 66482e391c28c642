//! Copies between layouts: gather a strided view into a contiguous buffer, and write a
//! broadcast source into a strided destination.

use super::elementwise::{map_unary, zip_assign};
use crate::error::Result;
use crate::layout::Layout;

/// Contiguous row-major copy of the elements `layout` selects from `src`.
pub fn gather<T: Copy + Sync + Send>(src: &[T], layout: &Layout) -> Result<Vec<T>> {
    map_unary(src, layout, |x| x)
}

/// Writes `src` (broadcast to the destination view's shape) into `dst` at `ld`.
pub fn assign<T: Copy + Sync + Send>(
    dst: &mut [T],
    ld: &Layout,
    src: &[T],
    ls: &Layout,
) -> Result<()> {
    zip_assign(dst, ld, src, ls, |_, s| s)
}
