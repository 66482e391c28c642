//! Storing a finished gradient into a leaf's `.grad`: in place when the kept gradient is
//! a dense buffer of its own, out of place under `create_graph` (so it stays differentiable).

use crate::error::Result;
use crate::tensor::Tensor;

/// True when `t` is the only view of a dense buffer nobody else holds, so it can be kept
/// as `.grad` and summed into in place later.
fn owns_dense_buffer(t: &Tensor) -> bool {
    let l = t.layout();
    t.handle_count() == 1
        && std::sync::Arc::strong_count(t.storage()) == 1
        && l.offset == 0
        && l.is_contiguous()
        && t.numel() == t.storage().len()
}

/// True when `.grad` may be updated in place: dense, no history, writable.
fn dense_grad(t: &Tensor) -> bool {
    let l = t.layout();
    !t.requires_grad()
        && l.is_contiguous()
        && l.strides.iter().all(|&s| s != 0)
        && t.storage().is_writable()
}

/// `dst += src` element by element when both are contiguous float32/float64 views of one
/// shape over different buffers (the common case of `.grad` accumulation): no temporary
/// sum and no copy back. `None` when the general path must run.
fn add_same_layout(dst: &Tensor, src: &Tensor) -> Option<Result<()>> {
    use crate::dtype::DType;
    let (ld, ls) = (dst.layout(), src.layout());
    if dst.dtype() != src.dtype()
        || ld.shape != ls.shape
        || !ld.is_contiguous()
        || !ls.is_contiguous()
        || std::sync::Arc::ptr_eq(dst.storage(), src.storage())
    {
        return None;
    }
    let n = dst.numel();
    let r = match dst.dtype() {
        DType::F32 => add_slices::<f32>(dst, src, ld.offset, ls.offset, n),
        DType::F64 => add_slices::<f64>(dst, src, ld.offset, ls.offset, n),
        _ => return None,
    };
    Some(r.map(|()| dst.storage().bump_version()))
}

fn add_slices<T>(dst: &Tensor, src: &Tensor, od: usize, os: usize, n: usize) -> Result<()>
where
    T: crate::dtype::Element + Copy + std::ops::AddAssign,
{
    let s = src.storage().read::<T>();
    let mut d = dst.storage().write::<T>()?;
    for (a, &b) in d[od..od + n].iter_mut().zip(&s[os..os + n]) {
        *a += b;
    }
    Ok(())
}

/// Stores `g` into `leaf.grad`: summed in place, or out of place under `create_graph`.
/// A kept gradient is always a dense buffer of its own (never a broadcast view), so
/// later in-place accumulation and user edits of `.grad` are element-exact.
pub(crate) fn accumulate_into_leaf(leaf: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    // The whole read-modify-write happens under the leaf's lock: backward passes run with
    // the GIL released, and concurrent passes into one leaf must not lose an update.
    let mut meta = leaf.meta();
    let new = match meta.grad.take() {
        None if create_graph => g,
        None if owns_dense_buffer(&g) => g.detach(),
        None => g.detach().contiguous_copy()?,
        Some(prev) => {
            if create_graph || !dense_grad(&prev) {
                match prev.add(&g) {
                    Ok(sum) => sum,
                    Err(e) => {
                        meta.grad = Some(prev);
                        return Err(e);
                    }
                }
            } else {
                if let Some(r) = add_same_layout(&prev, &g) {
                    meta.grad = Some(prev);
                    return r;
                }
                let r = prev.add_inplace_raw(&g);
                meta.grad = Some(prev);
                return r;
            }
        }
    };
    meta.grad = Some(new);
    Ok(())
}
