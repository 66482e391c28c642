//! Differentiable indexing: slices and selects (views), `index_select`, `gather`,
//! `take_flat`, `nonzero`, `masked_select`, and the [`IndexItem`]s of `__getitem__` /
//! `__setitem__` (implemented in the `getitem` module on top of the primitives here).
//!
//! Two pairs of primitives carry all the gradients, each pair being the other's backward
//! so that every formula is itself differentiable (second order works):
//! - a *basic view* (a list of steps: slice / select / unsqueeze) and its
//!   *view scatter* (zeros of the base shape with a tensor written into the view);
//! - a *take* at row-major linear indices and its *put-add* into zeros.

use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::index as kx;
use crate::kernels::index_rows as rows;
use crate::layout::{broadcast_shapes, checked_numel, normalize_dim, Layout, Shape};
use crate::tensor::{zeros, Tensor};
use smallvec::smallvec;
use std::sync::Arc;

/// One entry of an index expression `x[a, b, ...]`.
#[derive(Clone, Debug)]
pub enum IndexItem {
    /// An integer: picks one position and removes the dimension (negative wraps).
    Int(isize),
    /// `start:stop:step` with Python semantics (`None` = open end; step may be negative).
    Slice(Option<isize>, Option<isize>, isize),
    /// `None` / `np.newaxis`: inserts a size-1 dimension.
    NewAxis,
    /// `...`: as many full slices as the other items leave unindexed.
    Ellipsis,
    /// An int32/int64 tensor (advanced indexing) or a bool mask over as many dims as it has.
    Tensor(Tensor),
}

/// One step of a basic view, with dims and bounds already resolved.
#[derive(Clone, Copy, Debug)]
pub(super) enum ViewStep {
    Slice {
        dim: usize,
        start: usize,
        len: usize,
        step: isize,
    },
    Select {
        dim: usize,
        index: usize,
    },
    Unsqueeze {
        dim: usize,
    },
}

pub(super) type Steps = Arc<[ViewStep]>;

pub(super) fn apply_steps(layout: &Layout, steps: &[ViewStep]) -> Layout {
    steps.iter().fold(layout.clone(), |l, s| match *s {
        ViewStep::Slice {
            dim,
            start,
            len,
            step,
        } => l.slice(dim, start, len, step),
        ViewStep::Select { dim, index } => l.select(dim, index),
        ViewStep::Unsqueeze { dim } => l.unsqueeze(dim),
    })
}

/// Python's `slice(start, stop, step).indices(size)`, returned as `(start, len, step)`.
/// Out-of-range bounds clamp; a step of zero is a `ValueError` naming `op`.
pub fn slice_bounds(
    size: usize,
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    op: &str,
) -> Result<(usize, usize, isize)> {
    if step == 0 {
        return Err(Error::value(format!("{op}: slice step cannot be zero")));
    }
    let n = size as isize;
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let clamp = |v: Option<isize>, default: isize| match v {
        None => default,
        Some(v) if v < 0 => v.saturating_add(n).max(lo),
        Some(v) => v.min(hi),
    };
    let (a, b) = if step > 0 {
        (clamp(start, lo), clamp(stop, hi))
    } else {
        (clamp(start, hi), clamp(stop, lo))
    };
    let span = if step > 0 { b - a } else { a - b };
    let len = if span > 0 {
        (span as usize - 1) / step.unsigned_abs() + 1
    } else {
        0
    };
    // A step only matters with two or more elements; normalising it avoids stride overflow.
    Ok(if len == 0 {
        (0, 0, 1)
    } else {
        (a as usize, len, if len == 1 { 1 } else { step })
    })
}

/// Row-major linear indices of an advanced index: the read positions of a take from a
/// tensor of `in_shape`, producing `out_shape`.
pub(super) struct Linear {
    pub(super) lin: Vec<usize>,
    pub(super) in_shape: Shape,
    pub(super) out_shape: Shape,
}

/// TypeError unless `index` has an integer dtype.
fn check_int(index: &Tensor, op: &str) -> Result<()> {
    if !index.dtype().is_int() {
        return Err(Error::type_err(format!(
            "{op}: the index must be an int32 or int64 tensor, got {}",
            index.dtype()
        )));
    }
    Ok(())
}

/// The values of an index tensor as int64 (TypeError unless int32/int64).
fn int_values(index: &Tensor, op: &str) -> Result<Vec<i64>> {
    check_int(index, op)?;
    index.cast_raw(DType::I64)?.to_vec::<i64>()
}

/// `gather` on the row kernel: reads an int32 / int64 index in place (row-major), other
/// integer dtypes through an int64 copy. Needs `rows::gather_fits`.
fn gather_fast(src: &Tensor, d: usize, index: &Tensor, neg: kx::NegIndex<'_>) -> Result<Tensor> {
    let index = index.contiguous_raw()?;
    let (off, n) = (index.layout().offset, index.numel());
    let ishape = index.shape();
    let internal = || Error::runtime("internal: gather: the index view reaches past its buffer");
    Ok(crate::with_dtype!(src.dtype(), T, {
        let s = src.storage().read::<T>();
        let v = match index.dtype() {
            DType::I64 => {
                let g = index.storage().read::<i64>();
                let ix = g.get(off..off + n).ok_or_else(internal)?;
                rows::gather_rows(&s, src.layout(), d, ix, ishape, "gather", neg)?
            }
            DType::I32 => {
                let g = index.storage().read::<i32>();
                let ix = g.get(off..off + n).ok_or_else(internal)?;
                rows::gather_rows(&s, src.layout(), d, ix, ishape, "gather", neg)?
            }
            _ => {
                let ix = index.cast_raw(DType::I64)?.to_vec::<i64>()?;
                rows::gather_rows(&s, src.layout(), d, &ix, ishape, "gather", neg)?
            }
        };
        Tensor::from_vec(v, ishape)?
    }))
}

/// Zeros of `shape` with `src` written into the view `steps` selects; backward: the view.
pub(super) fn view_scatter(
    src: &Tensor,
    shape: &[usize],
    steps: &Steps,
    view_name: &'static str,
) -> Result<Tensor> {
    let out = zeros(shape, src.dtype())?;
    out.view_with(apply_steps(out.layout(), steps))
        .assign_raw(src)?;
    if let Some(rec) = Recorder::begin(&[src]) {
        let steps = steps.clone();
        rec.finish("ViewScatterBackward", &out, move |g, _, _| {
            Ok(smallvec![Some(g.view_steps(steps.clone(), view_name)?)])
        })?;
    }
    Ok(out)
}

/// Zeros of `map.in_shape` with `src` added at `map.lin`; backward: a take.
pub(super) fn put_add_linear(src: &Tensor, map: &Arc<Linear>) -> Result<Tensor> {
    let out = zeros(&map.in_shape, src.dtype())?;
    let src_b = src.expand_raw(&map.out_shape)?;
    crate::with_dtype!(src.dtype(), T, {
        let vals = crate::kernels::copy::gather::<T>(&src_b.storage().read::<T>(), src_b.layout())?;
        let mut w = out.storage().write::<T>()?;
        kx::put(
            &mut w,
            out.layout(),
            &map.lin,
            &vals,
            true,
            "index backward",
        )?;
    });
    if let Some(rec) = Recorder::begin(&[src]) {
        let map = map.clone();
        rec.finish("PutAddBackward", &out, move |g, _, _| {
            Ok(smallvec![Some(g.take_linear(&map, "TakeBackward")?)])
        })?;
    }
    Ok(out)
}

/// Zeros of `map.in_shape` with `src` written at `map.lin` (last duplicate wins);
/// backward: a take, zeroed at the writes that were overwritten.
pub(super) fn put_linear(src: &Tensor, map: &Arc<Linear>) -> Result<Tensor> {
    let out = zeros(&map.in_shape, src.dtype())?;
    let src_b = src.expand_raw(&map.out_shape)?;
    crate::with_dtype!(src.dtype(), T, {
        let vals = crate::kernels::copy::gather::<T>(&src_b.storage().read::<T>(), src_b.layout())?;
        let mut w = out.storage().write::<T>()?;
        kx::put(&mut w, out.layout(), &map.lin, &vals, false, "__setitem__")?;
    });
    if let Some(rec) = Recorder::begin(&[src]) {
        let winners = kx::last_writers(&map.lin, checked_numel(&map.in_shape)?)?;
        let lost = winners.iter().any(|w| !w);
        let mask = if lost {
            Some(Tensor::from_vec(winners, &map.out_shape)?)
        } else {
            None
        };
        let map = map.clone();
        rec.finish("IndexPutBackward", &out, move |g, _, _| {
            let t = g.take_linear(&map, "TakeBackward")?;
            Ok(smallvec![Some(match &mask {
                Some(m) => Tensor::where_(m, &t, &t.zeros_like()?)?,
                None => t,
            })])
        })?;
    }
    Ok(out)
}

impl Tensor {
    /// A view through `steps`; backward scatters the gradient into zeros.
    pub(super) fn view_steps(&self, steps: Steps, name: &'static str) -> Result<Tensor> {
        let out = self.view_with(apply_steps(self.layout(), &steps));
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let shape = self.shape_vec();
            rec.finish(name, &out, move |g, _, _| {
                Ok(smallvec![Some(view_scatter(g, &shape, &steps, name)?)])
            })?;
        }
        Ok(out)
    }

    /// Reads elements at `map.lin` (this tensor has `map.in_shape`); backward: put-add.
    pub(super) fn take_linear(&self, map: &Arc<Linear>, name: &'static str) -> Result<Tensor> {
        let out = crate::with_dtype!(self.dtype(), T, {
            let v = kx::take(&self.storage().read::<T>(), self.layout(), &map.lin, name)?;
            Tensor::from_vec(v, &map.out_shape)?
        });
        self.record_take(out, || Ok(map.clone()), name)
    }

    /// Records `out`, computed from `self` as a take, with the put-add backward of the
    /// linear map `map` builds; the map is only built when a graph is recorded.
    fn record_take(
        &self,
        out: Tensor,
        map: impl FnOnce() -> Result<Arc<Linear>>,
        name: &'static str,
    ) -> Result<Tensor> {
        if let Some(rec) = Recorder::begin(&[self]) {
            let map = map()?;
            rec.finish(name, &out, move |g, _, _| {
                Ok(smallvec![Some(put_add_linear(g, &map)?)])
            })?;
        }
        Ok(out)
    }

    /// Normalises `dim` for a view op; a 0-d tensor has no dimension to index.
    fn index_dim(&self, dim: isize, op: &str) -> Result<usize> {
        if self.ndim() == 0 {
            return Err(Error::index(format!(
                "{op}: a 0-d tensor has no dimension {dim} to index"
            )));
        }
        normalize_dim(dim, self.ndim(), op)
    }

    /// `self[start:stop:step]` along `dim` (Python slice semantics, negative steps
    /// allowed); a view sharing storage.
    pub fn slice(
        &self,
        dim: isize,
        start: Option<isize>,
        stop: Option<isize>,
        step: isize,
    ) -> Result<Tensor> {
        let d = self.index_dim(dim, "slice")?;
        let (start, len, step) = slice_bounds(self.shape()[d], start, stop, step, "slice")?;
        self.view_steps(
            Arc::new([ViewStep::Slice {
                dim: d,
                start,
                len,
                step,
            }]),
            "SliceBackward",
        )
    }

    /// `self[..., index, ...]` at `dim` (negative wraps): a view without that dimension.
    pub fn select(&self, dim: isize, index: isize) -> Result<Tensor> {
        let d = self.index_dim(dim, "select")?;
        let size = self.shape()[d];
        let i = kx::wrap_index(index as i64, size).ok_or_else(|| {
            Error::index(format!(
                "select: index {index} is out of range for dimension {dim} with size {size}"
            ))
        })?;
        self.view_steps(
            Arc::new([ViewStep::Select { dim: d, index: i }]),
            "SelectBackward",
        )
    }

    /// Picks the entries `index` (1-D int tensor, negative wraps) along `dim`.
    pub fn index_select(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        self.index_select_neg(dim, index, kx::NegIndex::Wrap)
    }

    /// [`Tensor::index_select`] with `neg` saying what an index below 0 means (PyTorch
    /// code's `index_select` refuses it); checked in the kernel's own pass over the index.
    pub fn index_select_neg(
        &self,
        dim: isize,
        index: &Tensor,
        neg: kx::NegIndex<'_>,
    ) -> Result<Tensor> {
        let d = self.index_dim(dim, "index_select")?;
        if index.ndim() > 1 {
            return Err(Error::value(format!(
                "index_select: the index must be 1-D, got shape {:?}",
                index.shape()
            )));
        }
        let idx = int_values(index, "index_select")?;
        let wrapped = rows::wrap_select_indices(&idx, self.shape()[d], d, "index_select", neg)?;
        let mut out_shape = self.shape_vec();
        out_shape[d] = idx.len();
        let out = crate::with_dtype!(self.dtype(), T, {
            let s = self.storage().read::<T>();
            let v = rows::select_rows(&s, self.layout(), d, &wrapped, "index_select")?;
            Tensor::from_vec(v, &out_shape)?
        });
        self.record_take(
            out,
            || {
                Ok(Arc::new(Linear {
                    lin: kx::select_linear(self.shape(), d, &idx, "index_select")?,
                    in_shape: self.shape_vec(),
                    out_shape,
                }))
            },
            "IndexSelectBackward",
        )
    }

    /// `torch.gather` / `paddle.take_along_axis`: `out[m] = self[m with m[dim] = index[m]]`;
    /// the output has the index's shape.
    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        self.gather_neg(dim, index, kx::NegIndex::Wrap)
    }

    /// [`Tensor::gather`] with `neg` saying what an index below 0 means (PyTorch code's
    /// `gather` refuses it); checked in the kernel's own pass over the index.
    pub fn gather_neg(&self, dim: isize, index: &Tensor, neg: kx::NegIndex<'_>) -> Result<Tensor> {
        let d = normalize_dim(dim, self.ndim(), "gather")?;
        check_int(index, "gather")?;
        // (the backward's map: the index was checked by the forward, so `neg` changes
        // nothing there; on the general path the map is the forward's check)
        let linear = || -> Result<Arc<Linear>> {
            let idx = int_values(index, "gather")?;
            Ok(Arc::new(Linear {
                lin: kx::gather_linear(self.shape(), d, &idx, index.shape(), "gather", neg)?,
                in_shape: self.shape_vec(),
                out_shape: index.shape_vec(),
            }))
        };
        if !rows::gather_fits(self.shape(), d, index.shape()) {
            // 0-d sources and mismatched shapes: the general path (and its errors)
            return self.take_linear(&linear()?, "GatherBackward");
        }
        let out = gather_fast(self, d, index, neg)?;
        self.record_take(out, linear, "GatherBackward")
    }

    /// Elements at row-major positions `linear_index` (int tensor of any shape, negative
    /// wraps); the output has the index's shape.
    pub fn take_flat(&self, linear_index: &Tensor) -> Result<Tensor> {
        let idx = int_values(linear_index, "take_flat")?;
        let lin = kx::flat_linear(&idx, self.numel(), "take_flat")?;
        let map = Arc::new(Linear {
            lin,
            in_shape: self.shape_vec(),
            out_shape: linear_index.shape_vec(),
        });
        self.take_linear(&map, "TakeBackward")
    }

    /// Coordinates of the non-zero elements, row-major: int64 of shape `[count, ndim]`.
    pub fn nonzero(&self) -> Result<Tensor> {
        let (coords, n) = crate::with_dtype!(self.dtype(), T, {
            kx::nonzero(&self.storage().read::<T>(), self.layout())?
        });
        Tensor::from_vec(coords, &[n, self.ndim()])
    }

    /// The elements where the bool `mask` (broadcast with `self`) is true, as a 1-D tensor.
    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        if mask.dtype() != DType::Bool {
            return Err(Error::type_err(format!(
                "masked_select: the mask must be bool, got {}",
                mask.dtype()
            )));
        }
        let shape = broadcast_shapes(self.shape(), mask.shape(), "masked_select")?;
        if self.shape() == &shape[..] {
            self.mask_take(mask, "MaskedSelectBackward")
        } else {
            // the expand node sums the gradient back to this shape
            self.expand(&shape)?.mask_take(mask, "MaskedSelectBackward")
        }
    }

    /// The elements of `self` where the bool `mask`, broadcast to this shape, is true, in
    /// row-major order (1-D); the blocked two-pass compaction of
    /// [`crate::kernels::select_mask`]. The backward's index list is only built when a
    /// graph is recorded.
    pub(super) fn mask_take(&self, mask: &Tensor, name: &'static str) -> Result<Tensor> {
        let n = self.numel();
        // both operands row-major and dense (copies only when strided or broadcast)
        let m = mask.expand_raw(self.shape())?.contiguous_raw()?;
        let x = self.contiguous_raw()?;
        let internal =
            || Error::runtime(format!("internal: {name}: a view reaches past its buffer"));
        let mg = m.storage().read::<bool>();
        let mo = m.layout().offset;
        let bits = mg.get(mo..mo + n).ok_or_else(internal)?;
        let out = crate::with_dtype!(self.dtype(), T, {
            let s = x.storage().read::<T>();
            let xo = x.layout().offset;
            let vals = s.get(xo..xo + n).ok_or_else(internal)?;
            let v = crate::kernels::select_mask::masked_values(vals, bits)?;
            let len = v.len();
            Tensor::from_vec(v, &[len])?
        });
        let out_shape = out.shape().into();
        self.record_take(
            out,
            || {
                Ok(Arc::new(Linear {
                    lin: crate::kernels::select_mask::mask_positions(bits)?,
                    in_shape: self.shape_vec(),
                    out_shape,
                }))
            },
            name,
        )
    }
}
