//! Differentiable sliding-window ops, the pieces convolution and pooling are built from:
//! `unfold_window` (im2col) and `fold_window` (col2im) are each other's adjoint and so
//! each other's backward (first and second derivatives of every convolution come from
//! that pair and matmul); `max_pool_indices` picks max pooling's positions (no gradient:
//! the values are then read with a differentiable take); `unpool_put` writes values at
//! such positions (max_unpool), its backward a take.
//!
//! Convolution is composed from them in Python (`ferrograd/nn/fn_conv.py`):
//! `weight.reshape(G, O/G, C/G*K) @ unfold(x).reshape(N, G, C/G*K, L)` runs on the
//! project's gemm (`kernels::matmul`), with no second matrix-product path.

use super::index::{put_linear, Linear};
use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::conv::{self as kc, Geometry, Window};
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

/// Runs `f` on the tensor's elements as one contiguous row-major slice (borrowed when the
/// layout is contiguous, else copied).
fn with_contiguous<T: crate::dtype::Element, R>(
    t: &Tensor,
    f: impl FnOnce(&[T]) -> Result<R>,
) -> Result<R> {
    let s = t.storage().read::<T>();
    if t.layout().is_contiguous() {
        let off = t.layout().offset;
        f(&s[off..off + t.numel()])
    } else {
        let v = crate::kernels::copy::gather::<T>(&s, t.layout())?;
        drop(s);
        f(&v)
    }
}

/// Runs `$body` with `$T` the element type of a float32/float64 `$dtype` (callers check
/// the dtype first).
macro_rules! with_float {
    ($dtype:expr, $T:ident, $body:block) => {
        match $dtype {
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
            d => return Err(Error::runtime(format!("internal: float kernel on {d}"))),
        }
    };
}

/// Checks `[N, C, *spatial]` with 1..=3 spatial dims and a float32/float64 dtype.
fn check_input(t: &Tensor, op: &str, what: &str) -> Result<()> {
    if !(3..=5).contains(&t.ndim()) {
        return Err(Error::value(format!(
            "{op}: {what} must be [N, C, *spatial] with 1 to 3 spatial dims (3-D to 5-D), \
             got shape {:?}",
            t.shape()
        )));
    }
    if !matches!(t.dtype(), DType::F32 | DType::F64) {
        return Err(Error::type_err(format!(
            "{op}: {what} must be float32 or float64, got {}; cast it with .astype/.to",
            t.dtype()
        )));
    }
    Ok(())
}

impl Tensor {
    /// im2col: `self` `[N, C, *S]` → `[N, C*prod(kernel), L]` where `L` is the number of
    /// window positions; padding reads as zero. Backward: [`Tensor::fold_window`].
    pub fn unfold_window(&self, win: &Window) -> Result<Tensor> {
        check_input(self, "unfold", "the input")?;
        let g = Geometry::new("unfold", &self.shape()[2..], win)?;
        let (n, c) = (self.shape()[0], self.shape()[1]);
        let planes = n
            .checked_mul(c)
            .ok_or_else(|| Error::value("unfold: size overflows"))?;
        let rows = c
            .checked_mul(g.kernel_len())
            .ok_or_else(|| Error::value("unfold: size overflows"))?;
        let shape = [n, rows, g.out_len()?];
        let out = with_float!(self.dtype(), T, {
            let v = with_contiguous::<T, _>(self, |x| kc::unfold::<T>(x, planes, &g))?;
            Tensor::from_vec(v, &shape)?
        });
        if let Some(rec) = Recorder::begin(&[self]) {
            let (win, spatial) = (win.clone(), self.shape()[2..].to_vec());
            rec.finish("UnfoldBackward", &out, move |gr, _, _| {
                Ok(smallvec![Some(gr.fold_window(&spatial, &win)?)])
            })?;
        }
        Ok(out)
    }

    /// col2im, the adjoint of [`Tensor::unfold_window`]: `self` `[N, C*prod(kernel), L]`
    /// → `[N, C, *spatial]`, overlapping entries summed. Backward: `unfold_window`.
    pub fn fold_window(&self, spatial: &[usize], win: &Window) -> Result<Tensor> {
        let g = Geometry::new("fold", spatial, win)?;
        let (k, l) = (g.kernel_len(), g.out_len()?);
        let ok_shape =
            self.ndim() == 3 && self.shape()[1].is_multiple_of(k) && self.shape()[2] == l;
        if !ok_shape {
            return Err(Error::value(format!(
                "fold: the input must be [N, C*{k}, {l}] (C times the kernel's {k} \
                 positions, {l} window positions for output size {spatial:?}), got shape {:?}",
                self.shape()
            )));
        }
        if !matches!(self.dtype(), DType::F32 | DType::F64) {
            return Err(Error::type_err(format!(
                "fold: the input must be float32 or float64, got {}",
                self.dtype()
            )));
        }
        let (n, c) = (self.shape()[0], self.shape()[1] / k);
        let planes = n
            .checked_mul(c)
            .ok_or_else(|| Error::value("fold: size overflows"))?;
        let mut shape = vec![n, c];
        shape.extend_from_slice(spatial);
        let out = with_float!(self.dtype(), T, {
            let v = with_contiguous::<T, _>(self, |x| kc::fold::<T>(x, planes, &g))?;
            Tensor::from_vec(v, &shape)?
        });
        if let Some(rec) = Recorder::begin(&[self]) {
            let win = win.clone();
            rec.finish("FoldBackward", &out, move |gr, _, _| {
                Ok(smallvec![Some(gr.unfold_window(&win)?)])
            })?;
        }
        Ok(out)
    }

    /// Max pooling's positions: int64 `[N, C, *out]`, each the row-major index within its
    /// `[N, C]` plane of the window's largest element (PyTorch's `return_indices`).
    pub fn max_pool_indices(&self, win: &Window) -> Result<Tensor> {
        check_input(self, "max_pool", "the input")?;
        let g = Geometry::new("max_pool", &self.shape()[2..], win)?;
        let (n, c) = (self.shape()[0], self.shape()[1]);
        let planes = n
            .checked_mul(c)
            .ok_or_else(|| Error::value("max_pool: size overflows"))?;
        let mut shape = vec![n, c];
        shape.extend_from_slice(g.out_shape());
        let v = with_float!(self.dtype(), T, {
            with_contiguous::<T, _>(self, |x| kc::max_pool_indices::<T>(x, planes, &g))?
        });
        Tensor::from_vec(v, &shape)
    }

    /// Reads `self` `[N, C, *S]` at per-plane positions `index` (int `[N, C, *out]`, as
    /// from [`Tensor::max_pool_indices`]): `[N, C, *out]`. Backward: a put-add.
    pub fn take_in_planes(&self, index: &Tensor) -> Result<Tensor> {
        let map = plane_map(self.shape(), index, "take_in_planes")?;
        self.take_linear(&map, "MaxPoolBackward")
    }

    /// max_unpool: zeros of `[N, C, *size]` with `self` (`[N, C, *]`) written at the
    /// per-plane positions `index` (same shape as `self`); the last write wins where
    /// positions repeat. Backward: a take.
    pub fn unpool_put(&self, index: &Tensor, size: &[usize]) -> Result<Tensor> {
        if self.shape() != index.shape() || self.ndim() < 2 {
            return Err(Error::value(format!(
                "max_unpool: the input and the indices must have one shape [N, C, ...], got \
                 {:?} and {:?}",
                self.shape(),
                index.shape()
            )));
        }
        let mut full = self.shape()[..2].to_vec();
        full.extend_from_slice(size);
        let map = plane_map(&full, index, "max_unpool")?;
        put_linear(self, &map)
    }
}

/// The row-major linear positions in a tensor of `full` shape `[N, C, *S]` of per-plane
/// indices `index` `[N, C, ...]` (each in `0..prod(S)`, else an IndexError).
fn plane_map(full: &[usize], index: &Tensor, op: &str) -> Result<Arc<Linear>> {
    if !index.dtype().is_int() || index.ndim() < 2 || full.len() < 2 {
        return Err(Error::value(format!(
            "{op}: needs int indices [N, C, ...] into a tensor [N, C, ...], got {} indices \
             of shape {:?} for shape {full:?}",
            index.dtype(),
            index.shape()
        )));
    }
    if index.shape()[..2] != full[..2] {
        return Err(Error::value(format!(
            "{op}: the indices' first two dims {:?} differ from the tensor's {:?}",
            &index.shape()[..2],
            &full[..2]
        )));
    }
    let plane = crate::layout::checked_numel(&full[2..])?;
    let per = crate::layout::checked_numel(&index.shape()[2..])?;
    let idx = index.to_dtype(DType::I64)?.to_vec::<i64>()?;
    let mut lin = crate::storage::try_vec_with_capacity::<usize>(idx.len())?;
    for (j, &i) in idx.iter().enumerate() {
        if i < 0 || i as u64 >= plane as u64 {
            return Err(Error::index(format!(
                "{op}: index {i} is out of range for a plane of {plane} elements"
            )));
        }
        lin.push((j / per.max(1)) * plane + i as usize);
    }
    Ok(Arc::new(Linear {
        lin,
        in_shape: full.into(),
        out_shape: index.shape().into(),
    }))
}
