//! NumPy / PyTorch `__getitem__` ([`Tensor::index`]) and `__setitem__`
//! ([`Tensor::index_put_`]): an index expression is resolved into a basic view (slices,
//! selects, new axes) plus advanced indices on that view, which become linear indices
//! for a differentiable take or put (see the `index` module for the primitives).

use super::index::{
    apply_steps, put_linear, slice_bounds, view_scatter, IndexItem, Linear, Steps, ViewStep,
};
use crate::autograd::is_grad_enabled;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::index as kx;
use crate::layout::{broadcast_shapes, checked_numel, contiguous_strides, Layout, Shape};
use crate::tensor::{zeros, Tensor};
use std::sync::Arc;

/// Parsed `__getitem__` / `__setitem__` index: a basic view plus advanced indices on it.
struct Plan {
    steps: Vec<ViewStep>,
    /// Shape of the basic view.
    vshape: Shape,
    /// `(view dim, dim of the original tensor for messages, int64 index)`.
    adv: Vec<(usize, usize, Tensor)>,
    /// An Ellipsis sits between two advanced indices: NumPy then treats them as apart
    /// (result dims first) even when the Ellipsis spans no dimension.
    adv_apart: bool,
}

impl Tensor {
    /// NumPy / PyTorch `self[items]`. Basic items (ints, slices, new axes, ellipsis) give a
    /// view; tensor items index by NumPy's advanced-indexing rules (index tensors broadcast
    /// together; a bool mask stands for its nonzero coordinates; with any tensor present,
    /// ints count as advanced too; the broadcast dims replace the indexed dims in place
    /// when those are adjacent, else they come first) and give a copy.
    pub fn index(&self, items: &[IndexItem]) -> Result<Tensor> {
        if let [IndexItem::Tensor(mask)] = items {
            if mask.dtype() == DType::Bool && mask.ndim() > 0 && mask.shape() == self.shape() {
                // a mask of the whole shape: the blocked compaction, not coordinate lists
                return self.mask_take(mask, "IndexBackward");
            }
        }
        let plan = self.plan_index(items, "index")?;
        if plan.adv.is_empty() {
            return self.view_steps(plan.steps.into(), "IndexBackward");
        }
        // purely advanced indices need no intermediate view node
        let view = if plan.steps.is_empty() {
            self.clone()
        } else {
            self.view_steps(plan.steps.clone().into(), "IndexBackward")?
        };
        let map = Arc::new(advanced_linear(&plan, "index")?);
        view.take_linear(&map, "IndexBackward")
    }

    /// NumPy / PyTorch `self[items] = value`, in place: `value` is broadcast to the indexed
    /// shape and cast to this dtype; with repeated advanced indices the last write wins.
    /// Differentiable in `self` (the written region gets no gradient) and in `value`.
    pub fn index_put_(&self, items: &[IndexItem], value: &Tensor) -> Result<()> {
        const OP: &str = "__setitem__";
        self.check_inplace(OP)?;
        let plan = self.plan_index(items, OP)?;
        let steps: Steps = plan.steps.clone().into();
        let map = if plan.adv.is_empty() {
            None
        } else {
            Some(Arc::new(advanced_linear(&plan, OP)?))
        };
        let target = map
            .as_ref()
            .map_or(plan.vshape.clone(), |m| m.out_shape.clone());
        let tracked = is_grad_enabled()
            && self.dtype().is_differentiable()
            && (self.requires_grad() || value.requires_grad());
        if !tracked {
            let v = fit_value(value, &target, self.dtype(), false)?;
            let view = self.view_with(apply_steps(self.layout(), &steps));
            if value.numel() > 1 {
                // one value (`x[i] = 2.0`) is a fill, fine for elements sharing memory;
                // several would race for them (PyTorch refuses it too)
                view.check_no_internal_overlap(OP)?;
            }
            let Some(m) = map else {
                return view.assign_raw(&v); // bumps the version
            };
            crate::with_dtype!(self.dtype(), T, {
                // the values are copied out first: `value` may share this storage
                let vals = crate::kernels::copy::gather::<T>(&v.storage().read::<T>(), v.layout())?;
                let mut w = self.storage().write::<T>()?;
                kx::put(&mut w, view.layout(), &m.lin, &vals, false, OP)?;
            });
            self.bump_version();
            return Ok(());
        }
        // Out of place: result = where(written, value scattered into place, self).
        let v = fit_value(value, &target, self.dtype(), true)?;
        let mask = zeros(self.shape(), DType::Bool)?;
        let mask_view = mask.view_with(apply_steps(mask.layout(), &steps));
        let inner = match &map {
            None => {
                mask_view.assign_raw(&Tensor::scalar(true))?;
                v
            }
            Some(m) => {
                let trues = vec![true; m.lin.len()];
                let mut w = mask.storage().write::<bool>()?;
                kx::put(&mut w, mask_view.layout(), &m.lin, &trues, false, OP)?;
                put_linear(&v, m)?
            }
        };
        let scattered = view_scatter(&inner, self.shape(), &steps, "IndexBackward")?;
        let result = Tensor::where_(&mask, &scattered, self)?;
        self.apply_inplace(OP, &result)
    }

    /// Resolves `items` against this tensor's shape (errors name `op`).
    fn plan_index(&self, items: &[IndexItem], op: &str) -> Result<Plan> {
        let has_tensor = items.iter().any(|it| matches!(it, IndexItem::Tensor(_)));
        let mut consumed = 0usize;
        let mut ellipses = 0usize;
        for it in items {
            match it {
                IndexItem::Int(_) | IndexItem::Slice(..) => consumed += 1,
                IndexItem::Tensor(t) if t.dtype() == DType::Bool => consumed += t.ndim(),
                IndexItem::Tensor(_) => consumed += 1,
                IndexItem::NewAxis => {}
                IndexItem::Ellipsis => ellipses += 1,
            }
        }
        let ndim = self.ndim();
        if ellipses > 1 {
            return Err(Error::index(format!(
                "{op}: an index can only have a single ellipsis ('...'), got {ellipses}"
            )));
        }
        if consumed > ndim {
            return Err(Error::index(format!(
                "{op}: too many indices for a tensor of dimension {ndim} (shape {:?}): the \
                 index uses {consumed}",
                self.shape()
            )));
        }
        let is_adv = |it: &IndexItem| {
            matches!(it, IndexItem::Tensor(_)) || (has_tensor && matches!(it, IndexItem::Int(_)))
        };
        let first_adv = items.iter().position(is_adv);
        let last_adv = items.iter().rposition(is_adv);
        let ellipsis_at = items
            .iter()
            .position(|it| matches!(it, IndexItem::Ellipsis));
        let adv_apart = matches!((first_adv, ellipsis_at, last_adv),
            (Some(f), Some(e), Some(l)) if f < e && e < l);
        let mut plan = Plan {
            steps: Vec::new(),
            vshape: self.shape_vec(),
            adv: Vec::new(),
            adv_apart,
        };
        let (mut cur, mut src) = (0usize, 0usize); // dim in the view, dim in self
        for it in items {
            let size = plan.vshape.get(cur).copied().unwrap_or(0);
            match it {
                IndexItem::Ellipsis => {
                    cur += ndim - consumed;
                    src += ndim - consumed;
                }
                IndexItem::NewAxis => {
                    plan.steps.push(ViewStep::Unsqueeze { dim: cur });
                    plan.vshape.insert(cur, 1);
                    cur += 1;
                }
                IndexItem::Slice(a, b, step) => {
                    let (start, len, step) = slice_bounds(size, *a, *b, *step, op)?;
                    plan.steps.push(ViewStep::Slice {
                        dim: cur,
                        start,
                        len,
                        step,
                    });
                    plan.vshape[cur] = len;
                    cur += 1;
                    src += 1;
                }
                IndexItem::Int(i) if !has_tensor => {
                    let k = kx::wrap_index(*i as i64, size).ok_or_else(|| {
                        Error::index(format!(
                            "{op}: index {i} is out of bounds for dimension {src} with size {size}"
                        ))
                    })?;
                    plan.steps.push(ViewStep::Select { dim: cur, index: k });
                    plan.vshape.remove(cur);
                    src += 1;
                }
                IndexItem::Int(i) => {
                    plan.adv.push((cur, src, Tensor::scalar(*i as i64)));
                    cur += 1;
                    src += 1;
                }
                IndexItem::Tensor(t) if t.dtype() == DType::Bool && t.ndim() == 0 => {
                    // NumPy: a 0-d mask adds a dim of length 1 (true) or 0 (false)
                    let keep = t.to_vec::<bool>()?.first().copied().unwrap_or(false);
                    plan.steps.push(ViewStep::Unsqueeze { dim: cur });
                    plan.vshape.insert(cur, 1);
                    let idx: Vec<i64> = if keep { vec![0] } else { vec![] };
                    let n = idx.len();
                    plan.adv.push((cur, src, Tensor::from_vec(idx, &[n])?));
                    cur += 1;
                }
                IndexItem::Tensor(t) if t.dtype() == DType::Bool => {
                    let k = t.ndim();
                    if plan.vshape.get(cur..cur + k) != Some(t.shape()) {
                        let indexed: Vec<usize> =
                            plan.vshape.iter().skip(cur).take(k).copied().collect();
                        return Err(Error::index(format!(
                            "{op}: the boolean mask of shape {:?} does not match the indexed \
                             shape {indexed:?} (dimensions {src}..{} of a tensor of shape {:?})",
                            t.shape(),
                            src + k,
                            self.shape()
                        )));
                    }
                    let (coords, n) = kx::nonzero(&t.storage().read::<bool>(), t.layout())?;
                    for j in 0..k {
                        let col: Vec<i64> = coords.iter().skip(j).step_by(k).copied().collect();
                        plan.adv
                            .push((cur + j, src + j, Tensor::from_vec(col, &[n])?));
                    }
                    cur += k;
                    src += k;
                }
                IndexItem::Tensor(t) if t.dtype().is_int() => {
                    plan.adv.push((cur, src, t.cast_raw(DType::I64)?));
                    cur += 1;
                    src += 1;
                }
                IndexItem::Tensor(t) => {
                    return Err(Error::index(format!(
                        "{op}: tensors used as indices must be integer (int32/int64) or bool, \
                         got {}",
                        t.dtype()
                    )));
                }
            }
        }
        Ok(plan)
    }
}

/// Linear indices into the basic view of `plan` for its advanced indices (NumPy rules).
fn advanced_linear(plan: &Plan, op: &str) -> Result<Linear> {
    let shapes: Vec<&[usize]> = plan.adv.iter().map(|(_, _, t)| t.shape()).collect();
    let mut b: Shape = Shape::new();
    for s in &shapes {
        b = broadcast_shapes(&b, s, op).map_err(|_| {
            Error::index(format!(
                "{op}: shape mismatch: index tensors of shapes {shapes:?} cannot be broadcast \
                 together"
            ))
        })?;
    }
    let vs = &plan.vshape;
    let cs = contiguous_strides(vs);
    let adv_n = checked_numel(&b)?;
    let mut adv_off = crate::storage::try_vec_with_capacity(adv_n)?;
    adv_off.resize(adv_n, 0usize);
    for (dim, src, t) in &plan.adv {
        let size = vs[*dim];
        // An integer (0-d) index is checked even when a broadcast to an empty shape drops
        // it; index arrays only where an element is used — NumPy and PyTorch both give
        // `zeros(0, 0)[empty_mask, 0]` an IndexError but `zeros(0, 0)[empty_mask, [0]]`
        // an empty result.
        let scalar_oob = if t.ndim() == 0 {
            t.to_vec::<i64>()?
                .first()
                .copied()
                .filter(|&i| kx::wrap_index(i, size).is_none())
        } else {
            None
        };
        if let Some(i) = scalar_oob {
            return Err(Error::index(format!(
                "{op}: index {i} is out of bounds for dimension {src} with size {size}"
            )));
        }
        let vals = t.expand_raw(&b)?.to_vec::<i64>()?;
        for (o, &i) in adv_off.iter_mut().zip(&vals) {
            let k = kx::wrap_index(i, size).ok_or_else(|| {
                Error::index(format!(
                    "{op}: index {i} is out of bounds for dimension {src} with size {size}"
                ))
            })?;
            *o += k * cs[*dim] as usize;
        }
    }
    let dims: Vec<usize> = plan.adv.iter().map(|(d, _, _)| *d).collect();
    let adjacent = !plan.adv_apart && dims.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..vs.len()).filter(|d| !dims.contains(d)).collect();
    let split = if adjacent {
        rest.iter().take_while(|&&d| d < dims[0]).count()
    } else {
        0
    };
    let (pre, post) = rest.split_at(split);
    let offsets_of = |ds: &[usize]| {
        Layout {
            shape: ds.iter().map(|&d| vs[d]).collect(),
            strides: ds.iter().map(|&d| cs[d]).collect(),
            offset: 0,
        }
        .offsets()
    };
    let (pre_off, post_off) = (offsets_of(pre)?, offsets_of(post)?);
    let mut out_shape: Shape = pre.iter().map(|&d| vs[d]).collect();
    out_shape.extend_from_slice(&b);
    out_shape.extend(post.iter().map(|&d| vs[d]));
    let mut lin = crate::storage::try_vec_with_capacity(checked_numel(&out_shape)?)?;
    for &p in &pre_off {
        for &a in &adv_off {
            lin.extend(post_off.iter().map(|&q| p + a + q));
        }
    }
    Ok(Linear {
        lin,
        in_shape: vs.clone(),
        out_shape,
    })
}

/// `value` made to fit an indexed region of `target` shape and `dtype`: leading size-1
/// dims beyond the target's rank dropped (as NumPy allows), then broadcast.
fn fit_value(
    value: &Tensor,
    target: &[usize],
    dtype: DType,
    differentiable: bool,
) -> Result<Tensor> {
    let extra = value.ndim().saturating_sub(target.len());
    let bad = || {
        Error::value(format!(
            "__setitem__: cannot assign a value of shape {:?} to an indexed region of shape \
             {target:?}",
            value.shape()
        ))
    };
    if value.shape()[..extra].iter().any(|&d| d != 1) {
        return Err(bad());
    }
    let kept: Vec<usize> = value.shape()[extra..].to_vec();
    Layout::contiguous(&kept)
        .broadcast_to(target, "__setitem__")
        .map_err(|_| bad())?;
    if differentiable {
        let v = value.to_dtype(dtype)?;
        let v = if extra > 0 {
            v.reshape(&kept.iter().map(|&d| d as isize).collect::<Vec<_>>())?
        } else {
            v
        };
        v.expand(target)
    } else {
        value
            .cast_raw(dtype)?
            .reshape_raw(&kept)?
            .expand_raw(target)
    }
}
