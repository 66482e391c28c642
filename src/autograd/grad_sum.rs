//! Summing gradients in place: two gradients that meet at one input of a node (the
//! engine's input buffers), and a gradient added into a leaf's kept `.grad`
//! (`leaf_grad`). A sum written into a buffer that only the pass holds saves a tensor
//! per sum (PyTorch's `InputBuffer::accumulate` does the same).

use crate::error::Result;
use crate::tensor::Tensor;

/// True when `t` is the only view of a dense buffer nobody else holds, so it can be kept
/// as `.grad` and summed into in place later.
pub(super) fn owns_dense_buffer(t: &Tensor) -> bool {
    let l = t.layout();
    t.handle_count() == 1
        && std::sync::Arc::strong_count(t.storage()) == 1
        && !t.storage().is_alias() // (its memory is also its root's)
        && l.offset == 0
        && l.is_contiguous()
        && t.numel() == t.storage().len()
}

/// True when `.grad` may be updated in place: dense, no history, writable.
pub(super) fn dense_grad(t: &Tensor) -> bool {
    let l = t.layout();
    !t.requires_grad()
        && l.is_contiguous()
        && l.strides.iter().all(|&s| s != 0)
        && t.storage().is_writable()
}

/// `dst += src` element by element when both are contiguous float32/float64 views of one
/// shape over different buffers (the common case of `.grad` accumulation): no temporary
/// sum and no copy back. `None` when the general path must run.
pub(super) fn add_same_layout(dst: &Tensor, src: &Tensor) -> Option<Result<()>> {
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
    Some(r.map(|()| dst.bump_version()))
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

/// `prev + g` for two gradients that meet at one input: written into whichever of the
/// two is a dense buffer that nothing but this pass holds (no other handle, weak or
/// strong, to it or its memory), else a new tensor. The same value either way: only
/// float32/float64 tensors of one shape and dtype are summed in place, and IEEE addition
/// is commutative.
pub(super) fn sum_gradients(prev: Tensor, g: Tensor) -> Result<Tensor> {
    // (a gradient that carries a sparse form, `has_ext_grad`, is summed densely by
    // `add`, which drops that form: it is never written into)
    if prev.dtype() == g.dtype()
        && prev.shape() == g.shape()
        && !prev.requires_grad()
        && !g.requires_grad()
        && !prev.has_ext_grad()
        && !g.has_ext_grad()
    {
        for (dst, src) in [(&prev, &g), (&g, &prev)] {
            if held_only_here(dst) {
                if let Some(r) = add_same_layout(dst, src) {
                    r?;
                    return Ok(dst.clone());
                }
            }
        }
    }
    prev.add(&g)
}

/// True when the handle `t` is the only way to its dense, writable memory: no other
/// handle to the tensor (strong or weak), none to its storage, no export or saved mark.
fn held_only_here(t: &Tensor) -> bool {
    t.is_unshared()
        && owns_dense_buffer(t)
        && std::sync::Arc::weak_count(t.storage()) == 0
        && t.storage().is_writable()
        && !t.storage().is_saved_for_backward()
        && !t.storage().has_writable_aliases()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64]) -> Tensor {
        Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap()
    }

    /// A buffer only the pass holds takes the sum in place; one that anything else can
    /// still read (another handle, a view of its memory, a weak handle) is never written.
    #[test]
    fn sums_in_place_only_into_memory_nobody_else_reads() {
        // both exclusive: the first operand takes the sum
        let (a, b) = (t(&[1.0, 2.0]), t(&[10.0, 20.0]));
        let pa = std::sync::Arc::as_ptr(a.storage());
        let s = sum_gradients(a, b).unwrap();
        assert_eq!(s.to_vec::<f64>().unwrap(), vec![11.0, 22.0]);
        assert_eq!(
            std::sync::Arc::as_ptr(s.storage()),
            pa,
            "not summed in place"
        );

        // prev held elsewhere: the sum goes into g; the other holder still reads 1, 2
        let a = t(&[1.0, 2.0]);
        let keep = a.clone();
        let b = t(&[10.0, 20.0]);
        let pb = std::sync::Arc::as_ptr(b.storage());
        let s = sum_gradients(a, b).unwrap();
        assert_eq!(s.to_vec::<f64>().unwrap(), vec![11.0, 22.0]);
        assert_eq!(std::sync::Arc::as_ptr(s.storage()), pb);
        assert_eq!(keep.to_vec::<f64>().unwrap(), vec![1.0, 2.0]);

        // both shared (a view of one's memory, a weak handle to the other): a new tensor
        let (a, b) = (t(&[1.0, 2.0]), t(&[10.0, 20.0]));
        let view = a.detach();
        let _weak = b.downgrade();
        let pb = std::sync::Arc::as_ptr(b.storage());
        let s = sum_gradients(a, b).unwrap();
        assert_eq!(s.to_vec::<f64>().unwrap(), vec![11.0, 22.0]);
        assert_eq!(view.to_vec::<f64>().unwrap(), vec![1.0, 2.0]);
        assert_ne!(
            std::sync::Arc::as_ptr(s.storage()),
            pb,
            "written through a weak handle's tensor"
        );
        assert!(!std::sync::Arc::ptr_eq(s.storage(), view.storage()));
    }
}
