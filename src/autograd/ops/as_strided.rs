//! `as_strided`: a view of a tensor's memory with any sizes, strides and storage offset.
//!
//! It is its own op rather than an entry of the shape-op table (`src/op_defs/shape.rs`):
//! its result is described by the input's *storage* (the offset and strides count from
//! the start of the memory, whatever view of it the input is) and its bounds by the
//! storage's length, while the table's rules only see the input's dimensions (so that
//! static programs can run them over dimensions known at run time), and its arguments (a
//! size list, a stride list and an offset) have no roles in the table's vocabulary.
//!
//! Backward works through the memory, as PyTorch's does: the output's gradient is
//! scatter-added into a zero buffer over the memory both layouts reach (several output
//! elements may share one memory element), then read back out at the input's elements.
//! When the input itself has several elements on one memory element (an expanded
//! tensor), each gets that element's gradient divided by how many share it (PyTorch's
//! numbers). Both steps are the differentiable take / put-add pair of `index`, so double
//! backward works.
//!
//! An `as_strided` view of a view may read memory of the root outside its input's
//! elements (`y[0:1].as_strided([], [], 1)` reads `y[1]`). Read only, that memory gets no
//! gradient, as in PyTorch (the gradient is the input's). Once an in-place write through
//! the view (or a view of it) is tracked, PyTorch's `CopySlices` sends the gradient of the
//! view's old value over the *base's* geometry (torch/csrc/autograd/functions/tensor.cpp
//! `CopySlices::apply`; variable.cpp `VariableHooks::grad_fn` regenerates the view over
//! `view_info.base_`), so that memory gets its gradient. Here the write's result reads
//! the view's old history, so the node has a second input, the root's history, and
//! passes the outside memory's gradient there once the write set the view's
//! `view_spill` flag (`copy_slices::write_through_view`).

use super::index::{put_add_linear, Linear};
use crate::autograd::Recorder;
use crate::error::{Error, Result};
use crate::layout::{checked_numel, Layout, Shape, Strides};
use crate::storage::try_filled_vec;
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The memory `layout` reaches, as `[lo, hi)`, or None for an empty layout.
fn reach(layout: &Layout) -> Option<(usize, usize)> {
    (layout.numel() > 0).then(|| layout.storage_span())
}

/// The layout `as_strided` makes, checked: equal lengths, non-negative sizes, strides
/// and offset, and every element inside a storage of `storage_len` elements of
/// `itemsize` bytes (an empty view may sit anywhere, as in PyTorch).
pub fn strided_layout(
    size: &[i64],
    stride: &[i64],
    offset: i64,
    storage_len: usize,
    itemsize: usize,
) -> Result<Layout> {
    if stride.iter().any(|&s| s < 0) {
        return Err(Error::runtime(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: \
             {stride:?}"
        )));
    }
    storage_layout(size, stride, offset, storage_len, itemsize)
}

/// The layout `size` / `stride` / `offset` describe over a storage of `storage_len`
/// elements of `itemsize` bytes, checked with exact arithmetic: equal lengths,
/// non-negative sizes and offset, and every element (from the lowest a negative stride
/// reaches to the highest) inside the storage; an empty layout may sit anywhere. Negative
/// strides are allowed (NumPy's reversed views have them); `strided_layout` refuses them
/// for `as_strided`, as PyTorch does. Also the check behind loading a checkpoint's views.
pub fn storage_layout(
    size: &[i64],
    stride: &[i64],
    offset: i64,
    storage_len: usize,
    itemsize: usize,
) -> Result<Layout> {
    if size.len() != stride.len() {
        return Err(Error::runtime(format!(
            "as_strided: mismatch in length of strides and shape: {} sizes {size:?}, {} \
             strides {stride:?}",
            size.len(),
            stride.len()
        )));
    }
    if let Some(s) = size.iter().find(|&&s| s < 0) {
        return Err(Error::runtime(format!(
            "as_strided: sizes must be non-negative, got {s} in sizes {size:?}"
        )));
    }
    if offset < 0 {
        return Err(Error::runtime(format!(
            "as_strided: invalid storage offset {offset}; it must be non-negative"
        )));
    }
    let shape: Shape = size.iter().map(|&s| s as usize).collect();
    checked_numel(&shape)?;
    let too_big = || {
        Error::runtime(format!(
            "as_strided: sizes {size:?}, strides {stride:?} and storage offset {offset} \
             reach past any addressable memory"
        ))
    };
    let mut strides = Strides::with_capacity(stride.len());
    for &s in stride {
        strides.push(isize::try_from(s).map_err(|_| too_big())?);
    }
    let offset_u = usize::try_from(offset).map_err(|_| too_big())?;
    if !shape.contains(&0) {
        // the lowest and the highest element reached, in elements (i128: a product of
        // two i64 fits, the sums are checked)
        let (mut lo, mut hi) = (i128::from(offset), i128::from(offset));
        for (&d, &s) in size.iter().zip(stride) {
            let ext = i128::from(d - 1) * i128::from(s);
            let end = if ext < 0 { &mut lo } else { &mut hi };
            *end = end.checked_add(ext).ok_or_else(too_big)?;
        }
        // every element must also have a valid (isize) offset for the kernels
        let need = usize::try_from(hi + 1).map_err(|_| too_big())?;
        isize::try_from(need).map_err(|_| too_big())?;
        if lo < 0 {
            return Err(Error::runtime(format!(
                "as_strided: sizes {size:?}, strides {stride:?} and storage offset {offset} \
                 reach {} elements before the start of the storage",
                -lo
            )));
        }
        if need > storage_len {
            let bytes = need.checked_mul(itemsize).ok_or_else(too_big)?;
            return Err(Error::runtime(format!(
                "as_strided: sizes {size:?}, strides {stride:?}, storage offset {offset}, and \
                 itemsize {itemsize} requiring a storage size of {bytes} are out of bounds for \
                 storage of size {} (sizes, strides and offset count in elements from the \
                 start of the input's memory)",
                storage_len * itemsize
            )));
        }
    }
    Ok(Layout {
        shape,
        strides,
        offset: offset_u,
    })
}

/// The input's gradient of `as_strided` from the output's gradient `g`: `g` summed into
/// the memory positions it was read from, read back at the input's positions (divided
/// by the input's elements per position where they overlap).
fn strided_grad(g: &Tensor, inp: &Layout, out: &Layout) -> Result<Tensor> {
    let (Some((ilo, ihi)), Some((olo, ohi))) = (reach(inp), reach(out)) else {
        // nothing read, or nothing to read into: a zero gradient
        return crate::tensor::zeros(&inp.shape, g.dtype());
    };
    let (lo, hi) = (ilo.min(olo), ihi.max(ohi));
    let span: Shape = smallvec![hi - lo];
    let from = |l: &Layout| -> Result<Arc<Linear>> {
        let mut lin = l.offsets()?;
        lin.iter_mut().for_each(|p| *p -= lo);
        Ok(Arc::new(Linear {
            lin,
            in_shape: span.clone(),
            out_shape: l.shape.clone(),
        }))
    };
    let (out_map, in_map) = (from(out)?, from(inp)?);
    let memory = put_add_linear(g, &out_map)?;
    let gx = memory.take_linear(&in_map, "AsStridedBackward")?;
    let mut count = try_filled_vec(hi - lo, 0u32)?;
    for &p in &in_map.lin {
        count[p] += 1;
    }
    if !in_map.lin.iter().any(|&p| count[p] > 1) {
        return Ok(gx);
    }
    let share: Vec<f64> = in_map.lin.iter().map(|&p| 1.0 / count[p] as f64).collect();
    let share = Tensor::from_vec(share, &inp.shape)?.cast_raw(g.dtype())?;
    gx.mul(&share)
}

/// The output elements of an `as_strided` layout `out` over input `inp` that read memory
/// outside `inp`'s elements but inside the root's (`root`), as two maps: which elements
/// of `out` (a take from `out`'s shape) and where they sit in the root (a put into its
/// shape). None when there are none (the common case: checked in O(ndim) when `inp` is
/// dense over a span holding `out`), or when the root has several elements on one memory
/// element (an expanded root: no write through its views is tracked).
fn spill_maps(inp: &Layout, out: &Layout, root: &Layout) -> Result<Option<[Arc<Linear>; 2]>> {
    let Some((olo, ohi)) = reach(out) else {
        return Ok(None);
    };
    if let Some((ilo, ihi)) = reach(inp) {
        if inp.is_contiguous() && ilo <= olo && ohi <= ihi {
            return Ok(None);
        }
    }
    let mut inside = inp.offsets()?;
    inside.sort_unstable();
    let spilled: Vec<(usize, usize)> = (out.offsets()?.into_iter().enumerate())
        .filter(|(_, p)| inside.binary_search(p).is_err())
        .collect();
    if spilled.is_empty() {
        return Ok(None);
    }
    // memory position -> the root's row-major index, for the positions spilled
    let mut at: std::collections::HashMap<usize, usize> =
        spilled.iter().map(|&(_, p)| (p, usize::MAX)).collect();
    if root.is_contiguous() {
        // (the common root: an index is the distance from its first element)
        let n = root.numel();
        for (p, slot) in at.iter_mut() {
            if let Some(i) = p.checked_sub(root.offset).filter(|&i| i < n) {
                *slot = i;
            }
        }
    } else {
        for (i, p) in root.offsets()?.into_iter().enumerate() {
            if let Some(slot) = at.get_mut(&p) {
                if *slot != usize::MAX {
                    return Ok(None);
                }
                *slot = i;
            }
        }
    }
    let (mut take, mut put) = (Vec::new(), Vec::new());
    for (k, p) in spilled {
        // memory outside the root too has no history here: no gradient (PyTorch's)
        if let Some(&i) = at.get(&p).filter(|&&i| i != usize::MAX) {
            take.push(k);
            put.push(i);
        }
    }
    if take.is_empty() {
        return Ok(None);
    }
    let n: Shape = smallvec![take.len()];
    Ok(Some([
        Arc::new(Linear {
            lin: take,
            in_shape: out.shape.clone(),
            out_shape: n.clone(),
        }),
        Arc::new(Linear {
            lin: put,
            in_shape: root.shape.clone(),
            out_shape: n,
        }),
    ]))
}

impl Tensor {
    /// `as_strided(size, stride, offset)`: the view of this tensor's memory with those
    /// sizes and strides, starting `offset` elements from the memory's start (not from
    /// this view's first element). Shares memory and version counter with `self`;
    /// backward `AsStridedBackward` (see the module docs).
    pub fn as_strided(&self, size: &[i64], stride: &[i64], offset: i64) -> Result<Tensor> {
        let layout = strided_layout(
            size,
            stride,
            offset,
            self.storage().len(),
            self.dtype().size(),
        )?;
        let out = self.view_with(layout);
        out.mark_view_of(self);
        let (inp, outl) = (self.layout().clone(), out.layout().clone());
        // a view of a view reading root memory outside it: the root is a second input
        let root = self.meta().view_base.clone();
        // (a root read as another dtype, `z.real.as_strided(..)`, has no spill: tracked
        // writes through such views are refused, `copy_slices::write_through_view`)
        let spill = match root.filter(|r| {
            r.dtype() == self.dtype() && r.requires_grad() && crate::autograd::is_grad_enabled()
        }) {
            Some(r) => spill_maps(&inp, &outl, r.layout())?.map(|maps| (r, maps)),
            None => None,
        };
        let Some((root, [take, put])) = spill else {
            if let Some(rec) = Recorder::begin(&[self]) {
                rec.finish("AsStridedBackward", &out, move |g, _, _| {
                    Ok(smallvec![Some(strided_grad(g, &inp, &outl)?)])
                })?;
            }
            return Ok(out);
        };
        if let Some(rec) = Recorder::begin(&[self, &root]) {
            // shared with the views of `out`, set by a tracked write through any of them
            let written = out.meta().view_spill.clone();
            let written = written.unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
            out.meta().view_spill = Some(written.clone());
            rec.finish("AsStridedBackward", &out, move |g, _, needs| {
                let to_root = match needs[1] && written.load(Ordering::Acquire) {
                    true => Some(put_add_linear(
                        &g.take_linear(&take, "AsStridedBackward")?,
                        &put,
                    )?),
                    false => None,
                };
                Ok(smallvec![Some(strided_grad(g, &inp, &outl)?), to_root])
            })?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_checked_against_the_storage() {
        let l = strided_layout(&[2, 2], &[1, 3], 1, 6, 8).unwrap();
        assert_eq!(l.storage_span(), (1, 6));
        assert!(strided_layout(&[2, 2], &[3, 1], 5, 6, 4).is_err());
        assert!(strided_layout(&[2], &[-1], 1, 6, 4).is_err());
        assert!(strided_layout(&[2], &[1, 1], 0, 6, 4).is_err());
        assert!(strided_layout(&[2], &[1], -1, 6, 4).is_err());
        assert!(strided_layout(&[2], &[i64::MAX], 0, 6, 4).is_err());
        // an empty view may start past the end, as in PyTorch
        assert!(strided_layout(&[1, 0], &[2, 2], 10, 6, 4).is_ok());
        assert!(strided_layout(&[3], &[0], 5, 6, 4).is_ok());
    }

    #[test]
    fn storage_layouts_take_negative_strides_inside_the_storage() {
        // NumPy's arange(6)[::-1]: offset 5, stride -1
        let l = storage_layout(&[6], &[-1], 5, 6, 8).unwrap();
        assert_eq!(l.storage_span(), (0, 6));
        assert!(storage_layout(&[6], &[-1], 4, 6, 8).is_err());
        assert!(storage_layout(&[2, 3], &[-3, 1], 3, 6, 8).is_ok());
        assert!(storage_layout(&[2, 3], &[-3, 1], 4, 6, 8).is_err());
        assert!(storage_layout(&[3, 3], &[i64::MAX, i64::MIN], 0, 6, 8).is_err());
        assert!(storage_layout(&[0, 3], &[-100, 1], 0, 0, 8).is_ok());
    }

    #[test]
    fn spill_maps_find_the_memory_outside_the_input() {
        let root = Layout::contiguous(&[8]);
        let inp = root.slice(0, 2, 3, 1); // memory 2..5
                                          // inside the input: nothing spilled (the O(ndim) path)
        assert!(
            spill_maps(&inp, &strided_layout(&[2], &[1], 3, 8, 8).unwrap(), &root)
                .unwrap()
                .is_none()
        );
        // memory 1, 3, 5, 7: elements 0, 2 and 3 spill, at root indices 1, 5 and 7
        let out = strided_layout(&[2, 2], &[4, 2], 1, 8, 8).unwrap();
        let [take, put] = spill_maps(&inp, &out, &root).unwrap().unwrap();
        assert_eq!(take.lin, vec![0, 2, 3]);
        assert_eq!(put.lin, vec![1, 5, 7]);
        // a transposed root: row-major indices of the root, not memory positions
        let rt = Layout::contiguous(&[2, 4]).swap_dims(0, 1); // [4, 2]
        let inp = Layout::contiguous(&[2, 4]).select(0, 0); // memory 0..4
        let out = strided_layout(&[2], &[1], 4, 8, 8).unwrap(); // memory 4, 5
        let [take, put] = spill_maps(&inp, &out, &rt).unwrap().unwrap();
        assert_eq!(
            (take.lin.clone(), put.lin.clone()),
            (vec![0, 1], vec![1, 3])
        );
    }

    #[test]
    fn overlapping_outputs_sum_and_overlapping_inputs_share() {
        let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        let e = x.expand(&[3, 2]).unwrap();
        let g = Tensor::from_vec(vec![1.0f64, 10.0, 100.0, 1000.0], &[2, 2]).unwrap();
        let out = strided_layout(&[2, 2], &[1, 0], 0, 2, 8).unwrap();
        let gx = strided_grad(&g, e.layout(), &out).unwrap();
        // x0 gets 11 and x1 gets 1100, each shared by the 3 rows of the expansion
        let v = gx.to_vec::<f64>().unwrap();
        let want = [11.0 / 3.0, 1100.0 / 3.0];
        for (i, got) in v.iter().enumerate() {
            assert!((got - want[i % 2]).abs() < 1e-12, "{v:?}");
        }
    }
}
