//! Differentiable scatters along a dimension (PyTorch's `scatter` / `scatter_add`
//! semantics): `out = self` with `src[m]` written or added at `m with m[dim] = index[m]`
//! for every position `m` of `index`, plus a raw (non-differentiable) scatter-reduce
//! with `prod` / `amax` / `amin` that the Python layer composes gradients around.
//!
//! Both differentiable ops are built on the take / put-add pair of the `index` module,
//! so their backward formulas are themselves differentiable (second order works):
//! - `scatter_add`: `d self = g`, `d src = gather(g)`;
//! - `scatter` (last duplicate wins): `d self = g` zeroed where written,
//!   `d src = gather(g)` zeroed at the writes that were overwritten.
//!
//! `index` may be smaller than `src` (only `src`'s leading corner of the index's shape
//! is used, as in PyTorch); the gradient of the unused part of `src` is zero.

use super::index::{view_scatter, Linear, Steps, ViewStep};
use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::index as kx;
use crate::kernels::scatter::{masked_fill, scatter_linear, scatter_reduce, ScatterReduce};
use crate::kernels::scatter_put::{is_aligned, scatter_put};
use crate::layout::{broadcast_shapes, checked_numel, normalize_dim};
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

/// What a scatter needs: the dimension, the index as a contiguous int64 tensor and the
/// part of `src` that is used. The indices are validated when they are turned into
/// targets ([`Plan::linear`], or inside the fused kernel).
struct Plan<'a> {
    dim: usize,
    index: Tensor,
    src_region: Tensor,
    /// What an index below 0 means.
    neg: kx::NegIndex<'a>,
}

impl Plan<'_> {
    /// Calls `f` with the index values (row-major, read in place).
    fn with_index<R>(&self, op: &str, f: impl FnOnce(&[i64]) -> Result<R>) -> Result<R> {
        let all = self.index.storage().read::<i64>();
        let start = self.index.layout().offset;
        let vals = all.get(start..start + self.index.numel()).ok_or_else(|| {
            Error::runtime(format!(
                "internal: {op}: the index view reaches past its buffer"
            ))
        })?;
        f(vals)
    }

    /// Where each index position writes in `x` (row-major linear indices; `out_shape` is
    /// the index's shape); an `IndexError` for an index out of range.
    fn linear(&self, x: &Tensor, op: &str) -> Result<Arc<Linear>> {
        let lin = self.with_index(op, |vals| {
            scatter_linear(x.shape(), self.dim, vals, self.index.shape(), op, self.neg)
        })?;
        Ok(Arc::new(Linear {
            lin,
            in_shape: x.shape_vec(),
            out_shape: self.index.shape_vec(),
        }))
    }
}

/// Validates the operands of a scatter along `dim` and computes its [`Plan`].
fn plan<'a>(
    x: &Tensor,
    dim: isize,
    index: &Tensor,
    src: &Tensor,
    op: &str,
    neg: kx::NegIndex<'a>,
) -> Result<Plan<'a>> {
    if !index.dtype().is_int() {
        return Err(Error::type_err(format!(
            "{op}: the index must be an int32 or int64 tensor, got {}",
            index.dtype()
        )));
    }
    if src.dtype() != x.dtype() {
        return Err(Error::type_err(format!(
            "{op}: the source has dtype {} but the tensor has dtype {}; cast the source \
             (src.astype(x.dtype))",
            src.dtype(),
            x.dtype()
        )));
    }
    if src.ndim() != index.ndim() {
        return Err(Error::value(format!(
            "{op}: the index has {} dimension(s) ({:?}) but the source has {} ({:?}); they \
             must have the same number of dimensions",
            index.ndim(),
            index.shape(),
            src.ndim(),
            src.shape()
        )));
    }
    if let Some(d) = (0..src.ndim()).find(|&d| index.shape()[d] > src.shape()[d]) {
        return Err(Error::value(format!(
            "{op}: the index of shape {:?} is larger than the source of shape {:?} at \
             dimension {d} ({} > {})",
            index.shape(),
            src.shape(),
            index.shape()[d],
            src.shape()[d]
        )));
    }
    let d = normalize_dim(dim, x.ndim(), op)?;
    let region = (0..src.ndim()).fold(src.layout().clone(), |l, k| {
        l.slice(k, 0, index.shape()[k], 1)
    });
    Ok(Plan {
        dim: d,
        // read a contiguous int64 index in place (no copy of a large index)
        index: index.cast_raw(DType::I64)?.contiguous_raw()?,
        src_region: src.view_with(region),
        neg,
    })
}

/// `g` (shaped like the index) padded with zeros to `src_shape`: the gradient of the
/// source when the index covers only its leading corner.
fn pad_to_source(g: Tensor, src_shape: &[usize]) -> Result<Tensor> {
    if g.shape() == src_shape {
        return Ok(g);
    }
    let steps: Steps = (0..src_shape.len())
        .map(|dim| ViewStep::Slice {
            dim,
            start: 0,
            len: g.shape()[dim],
            step: 1,
        })
        .collect();
    view_scatter(&g, src_shape, &steps, "ScatterSourceBackward")
}

/// Calls `f` with the source values of the plan as one row-major slice (the source's own
/// memory when its used part is contiguous, else a compact copy).
fn with_source<T: crate::dtype::Element, R>(
    p: &Plan,
    op: &str,
    f: impl FnOnce(&[T]) -> Result<R>,
) -> Result<R> {
    let src = p.src_region.contiguous_raw()?;
    let all = src.storage().read::<T>();
    let start = src.layout().offset;
    let vals = all.get(start..start + src.numel()).ok_or_else(|| {
        Error::runtime(format!(
            "internal: {op}: the source view reaches past its buffer"
        ))
    })?;
    f(vals)
}

/// A copy of `x` with the plan's source values put (or added) at the plan's positions,
/// and the linear map of those positions when `need_map` (for a backward). An index
/// aligned with `x` outside `dim` goes through the fused kernel, which needs no map.
fn put_copy(
    x: &Tensor,
    p: &Plan,
    accumulate: bool,
    need_map: bool,
    op: &str,
) -> Result<(Tensor, Option<Arc<Linear>>)> {
    let aligned = is_aligned(x.shape(), p.dim, p.index.shape());
    // (the map first: a bad index then raises before `x` is copied)
    let map = if need_map || !aligned {
        Some(p.linear(x, op)?)
    } else {
        None
    };
    let out = x.contiguous_copy()?;
    crate::with_dtype!(x.dtype(), T, {
        let mut w = out.storage().write::<T>()?;
        with_source::<T, ()>(p, op, |vals| match &map {
            Some(m) if !aligned => kx::put(&mut w, out.layout(), &m.lin, vals, accumulate, op),
            _ => p.with_index(op, |idx| {
                let (shape, ishape) = (x.shape(), p.index.shape());
                scatter_put(
                    &mut w, shape, p.dim, idx, ishape, vals, accumulate, op, p.neg,
                )
            }),
        })?;
    });
    Ok((out, map))
}

/// The recorder of a scatter of `x` and `src` (`None` when it records no backward, so
/// needs no linear map).
fn recorder(x: &Tensor, src: &Tensor) -> Option<Recorder> {
    if x.dtype().is_differentiable() {
        Recorder::begin(&[x, src])
    } else {
        None
    }
}

impl Tensor {
    /// PyTorch's `scatter_add(dim, index, src)`: a copy of `self` with `src[m]` added at
    /// `m with m[dim] = index[m]` for every position `m` of `index` (duplicates add up).
    pub fn scatter_add(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_add_neg(dim, index, src, kx::NegIndex::Wrap)
    }

    /// [`Tensor::scatter_add`] with `neg` saying what an index below 0 means (PyTorch
    /// code's scatters refuse it); checked where each index is turned into its target.
    pub fn scatter_add_neg(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        neg: kx::NegIndex<'_>,
    ) -> Result<Tensor> {
        let p = plan(self, dim, index, src, "scatter_add", neg)?;
        let rec = recorder(self, src);
        let (out, map) = put_copy(self, &p, true, rec.is_some(), "scatter_add")?;
        if let (Some(rec), Some(map)) = (rec, map) {
            let src_shape = src.shape_vec();
            rec.finish("ScatterAddBackward", &out, move |g, _, n| {
                let gs = if n[1] {
                    let t = g.take_linear(&map, "ScatterAddSourceBackward")?;
                    Some(pad_to_source(t, &src_shape)?)
                } else {
                    None
                };
                Ok(smallvec![n[0].then(|| g.clone()), gs])
            })?;
        }
        Ok(out)
    }

    /// PyTorch's `scatter(dim, index, src)`: a copy of `self` with `src[m]` written at
    /// `m with m[dim] = index[m]`; with duplicate targets the last write (row-major order
    /// of `index`) wins, and only it receives a gradient.
    pub fn scatter(&self, dim: isize, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_neg(dim, index, src, kx::NegIndex::Wrap)
    }

    /// [`Tensor::scatter`] with `neg` saying what an index below 0 means (as
    /// [`Tensor::scatter_add_neg`]).
    pub fn scatter_neg(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        neg: kx::NegIndex<'_>,
    ) -> Result<Tensor> {
        let p = plan(self, dim, index, src, "scatter", neg)?;
        let rec = recorder(self, src);
        let (out, map) = put_copy(self, &p, false, rec.is_some(), "scatter")?;
        if let (Some(rec), Some(map)) = (rec, map) {
            let numel = checked_numel(self.shape())?;
            let mut written = crate::storage::try_filled_vec(numel, false)?;
            for &l in &map.lin {
                written[l] = true;
            }
            let written = Tensor::from_vec(written, self.shape())?;
            let winners = kx::last_writers(&map.lin, numel)?;
            let lost = winners.iter().any(|w| !w);
            let winners = if lost {
                Some(Tensor::from_vec(winners, index.shape())?)
            } else {
                None
            };
            let src_shape = src.shape_vec();
            rec.finish("ScatterBackward", &out, move |g, _, n| {
                let z = g.zeros_like()?;
                let gx = if n[0] {
                    Some(Tensor::where_(&written, &z, g)?)
                } else {
                    None
                };
                let gs = if n[1] {
                    let t = g.take_linear(&map, "ScatterSourceBackward")?;
                    let t = match &winners {
                        Some(w) => Tensor::where_(w, &t, &t.zeros_like()?)?,
                        None => t,
                    };
                    Some(pad_to_source(t, &src_shape)?)
                } else {
                    None
                };
                Ok(smallvec![gx, gs])
            })?;
        }
        Ok(out)
    }

    /// `value` (a one-element tensor of this dtype; differentiable) where the bool `mask`
    /// (broadcast to this shape) is true, `self` elsewhere. One pass over the data.
    pub fn masked_fill(&self, mask: &Tensor, value: &Tensor) -> Result<Tensor> {
        let op = "masked_fill";
        if mask.dtype() != DType::Bool {
            return Err(Error::type_err(format!(
                "{op}: the mask must be a bool tensor, got {}",
                mask.dtype()
            )));
        }
        if value.numel() != 1 || value.dtype() != self.dtype() {
            return Err(Error::value(format!(
                "{op}: the value must be one element of dtype {}, got shape {:?} and dtype {}",
                self.dtype(),
                value.shape(),
                value.dtype()
            )));
        }
        if broadcast_shapes(mask.shape(), self.shape(), op)?.as_slice() != self.shape() {
            return Err(Error::value(format!(
                "{op}: the mask of shape {:?} does not broadcast to the tensor's shape {:?}",
                mask.shape(),
                self.shape()
            )));
        }
        let m = mask.expand_raw(self.shape())?.contiguous_raw()?;
        let x = self.contiguous_raw()?;
        let out = crate::with_dtype!(self.dtype(), T, {
            let v = value.to_vec::<T>()?[0];
            let (xs, ms) = (x.storage().read::<T>(), m.storage().read::<bool>());
            let (xo, mo, n) = (x.layout().offset, m.layout().offset, x.numel());
            let (Some(xs), Some(ms)) = (xs.get(xo..xo + n), ms.get(mo..mo + n)) else {
                return Err(Error::runtime(format!(
                    "internal: {op}: a view reaches past its buffer"
                )));
            };
            Tensor::from_vec(masked_fill(xs, ms, v)?, self.shape())?
        });
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        if let Some(rec) = Recorder::begin(&[self, value]) {
            let value_shape: Vec<isize> = value.shape().iter().map(|&s| s as isize).collect();
            rec.finish("MaskedFillBackward", &out, move |g, _, n| {
                let z = g.zeros_like()?;
                let gx = if n[0] {
                    Some(Tensor::where_(&m, &z, g)?)
                } else {
                    None
                };
                let gv = if n[1] {
                    Some(
                        Tensor::where_(&m, g, &z)?
                            .sum(None, false)?
                            .reshape(&value_shape)?,
                    )
                } else {
                    None
                };
                Ok(smallvec![gx, gv])
            })?;
        }
        Ok(out)
    }

    /// Scatter-reduce with `reduce` = `prod` / `amax` / `amin` (see [`ScatterReduce`]),
    /// without recording a gradient: the Python layer builds the differentiable op
    /// around it. Real dtypes only (not bool, not complex).
    pub fn scatter_reduce_raw(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        reduce: &str,
        include_self: bool,
    ) -> Result<Tensor> {
        self.scatter_reduce_raw_neg(dim, index, src, reduce, include_self, kx::NegIndex::Wrap)
    }

    /// [`Tensor::scatter_reduce_raw`] with `neg` saying what an index below 0 means (as
    /// [`Tensor::scatter_add_neg`]).
    pub fn scatter_reduce_raw_neg(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        reduce: &str,
        include_self: bool,
        neg: kx::NegIndex<'_>,
    ) -> Result<Tensor> {
        let op = "scatter_reduce";
        if self.dtype().is_narrow_int() {
            // computed in int32 and wrapped back (amax/amin/prod are exact modulo 2^8/2^16)
            let wide = self.cast_raw(DType::I32)?;
            let src = src.cast_raw(DType::I32)?;
            let out = wide.scatter_reduce_raw_neg(dim, index, &src, reduce, include_self, neg)?;
            return out.cast_raw(self.dtype());
        }
        let r = ScatterReduce::parse(reduce, op)?;
        let p = plan(self, dim, index, src, op, neg)?;
        let map = p.linear(self, op)?;
        let out = self.contiguous_copy()?;
        macro_rules! run {
            ($T:ty) => {{
                let mut w = out.storage().write::<$T>()?;
                with_source::<$T, ()>(&p, op, |vals| {
                    scatter_reduce::<$T>(&mut w, &map.lin, vals, r, include_self, op)
                })?;
            }};
        }
        match self.dtype() {
            DType::I32 => run!(i32),
            DType::I64 => run!(i64),
            DType::F16 => run!(half::f16),
            DType::BF16 => run!(half::bf16),
            DType::F32 => run!(f32),
            DType::F64 => run!(f64),
            other => {
                return Err(Error::type_err(format!(
                    "{op}: reduce='{reduce}' needs a real int or float tensor, got {other}"
                )))
            }
        }
        Ok(out)
    }
}
