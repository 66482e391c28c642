//! TEMPORARY naive stand-in until the real reduction kernels land (helper is writing them).
use crate::dtype::Element;
use crate::error::Result;
use crate::layout::{Layout, Shape};
use crate::storage::Storage;
/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind { Sum, Prod, Max, Min, ArgMax, ArgMin, All, Any }
fn naive<T: Element>(kind: ReduceKind, src: &[T], layout: &Layout, axes: &[usize]) -> (Vec<T>, Shape) {
    let shape: Shape = layout.shape.iter().enumerate().filter(|(i, _)| !axes.contains(i)).map(|(_, &d)| d).collect();
    let n: usize = shape.iter().product();
    let mut acc = vec![0f64; n];
    if kind == ReduceKind::Prod { acc.iter_mut().for_each(|a| *a = 1.0); }
    let nd = layout.shape.len();
    let total = layout.numel();
    for flat in 0..total {
        let mut rem = flat; let mut off = layout.offset as isize; let mut o = 0usize; let mut ostride = 1usize;
        let mut idx = vec![0usize; nd];
        for d in (0..nd).rev() { idx[d] = rem % layout.shape[d]; rem /= layout.shape[d]; }
        for d in 0..nd { off += idx[d] as isize * layout.strides[d]; }
        for d in (0..nd).rev() { if !axes.contains(&d) { o += idx[d] * ostride; ostride *= layout.shape[d]; } }
        let v = src[off as usize].to_f64();
        match kind { ReduceKind::Prod => acc[o] *= v, _ => acc[o] += v }
    }
    (acc.into_iter().map(T::from_f64).collect(), shape)
}
/// placeholder
pub fn reduce_storage(kind: ReduceKind, src: &Storage, layout: &Layout, axes: &[usize]) -> Result<(Storage, Shape)> {
    crate::with_dtype!(src.dtype(), T, { let (v, s) = naive::<T>(kind, &src.read::<T>(), layout, axes); Ok((Storage::from_vec(v), s)) })
}
/// placeholder
pub fn arg_reduce_storage(_k: ReduceKind, _src: &Storage, _l: &Layout, _a: Option<usize>) -> Result<(Storage, Shape)> { Err(crate::error::Error::not_implemented("argmax")) }
/// placeholder
pub fn logical_reduce_storage(_k: ReduceKind, _src: &Storage, _l: &Layout, _a: &[usize]) -> Result<(Storage, Shape)> { Err(crate::error::Error::not_implemented("all")) }
