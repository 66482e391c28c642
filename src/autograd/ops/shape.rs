//! Differentiable views and copies: reshape, expand, permute, transpose, squeeze,
//! unsqueeze, clone, contiguous.

use crate::autograd::Recorder;
use crate::error::{Error, Result};
use crate::layout::{normalize_dim, Shape};
use crate::tensor::shape::infer_shape;
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

fn as_isize(shape: &[usize]) -> Vec<isize> {
    shape.iter().map(|&d| d as isize).collect()
}

impl Tensor {
    /// Same elements in `shape` (one `-1` inferred); a view when possible.
    pub fn reshape(&self, shape: &[isize]) -> Result<Tensor> {
        let target = infer_shape(shape, self.numel(), "reshape")?;
        if target.as_slice() == self.shape() {
            return Ok(self.alias_view(self.layout().clone(), "ViewBackward"));
        }
        let out = self.reshape_raw(&target)?;
        if Arc::ptr_eq(out.storage(), self.storage()) {
            out.mark_view_of(self);
        }
        if let Some(rec) = Recorder::begin(&[self]) {
            let back = as_isize(self.shape());
            rec.finish("ReshapeBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(g.reshape(&back)?)])
            })?;
        }
        Ok(out)
    }

    /// A view sharing storage with an identity gradient (used for no-op views).
    fn alias_view(&self, layout: crate::layout::Layout, name: &'static str) -> Tensor {
        let out = self.view_with(layout);
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let _ = rec.finish(name, &out, |g, _, _| Ok(smallvec![Some(g.clone())]));
        }
        out
    }

    /// Broadcast view to `shape`; the gradient is summed back by the engine.
    pub fn expand(&self, shape: &[usize]) -> Result<Tensor> {
        let out = self.expand_raw(shape)?;
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let back = self.shape_vec();
            rec.finish("ExpandBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(g.sum_to(&back)?)])
            })?;
        }
        Ok(out)
    }

    /// Dims reordered by `perm` (negative dims allowed).
    pub fn permute(&self, perm: &[isize]) -> Result<Tensor> {
        let p: Vec<usize> = perm
            .iter()
            .map(|&d| normalize_dim(d, self.ndim(), "permute"))
            .collect::<Result<_>>()?;
        let out = self.view_with(self.layout().permute(&p)?);
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let mut inv = vec![0isize; p.len()];
            for (i, &d) in p.iter().enumerate() {
                inv[d] = i as isize;
            }
            rec.finish("PermuteBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(g.permute(&inv)?)])
            })?;
        }
        Ok(out)
    }

    /// Swaps two dims (torch's `transpose(d0, d1)`).
    pub fn transpose(&self, d0: isize, d1: isize) -> Result<Tensor> {
        let n = self.ndim();
        if n < 2 && d0 == d1 {
            return Ok(self.alias_view(self.layout().clone(), "TransposeBackward"));
        }
        let (a, b) = (
            normalize_dim(d0, n, "transpose")?,
            normalize_dim(d1, n, "transpose")?,
        );
        if n == 0 {
            // dims 0 and -1 of a 0-d tensor both name the tensor itself (as in PyTorch)
            return Ok(self.alias_view(self.layout().clone(), "TransposeBackward"));
        }
        let mut perm: Vec<isize> = (0..n as isize).collect();
        perm.swap(a, b);
        self.permute(&perm)
    }

    /// Inserts a size-1 dim at `dim` (`-ndim-1 ..= ndim`).
    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        let d = normalize_dim(dim, self.ndim() + 1, "unsqueeze")?;
        let out = self.view_with(self.layout().unsqueeze(d));
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let back = as_isize(self.shape());
            rec.finish("UnsqueezeBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(g.reshape(&back)?)])
            })?;
        }
        Ok(out)
    }

    /// Removes size-1 dims: all of them (`None`) or those listed (non-1 listed dims are
    /// left alone, as in PyTorch and Paddle).
    pub fn squeeze(&self, dims: Option<&[isize]>) -> Result<Tensor> {
        let n = self.ndim();
        let mut drop: Vec<usize> = match dims {
            None => (0..n).filter(|&i| self.shape()[i] == 1).collect(),
            Some(ds) => ds
                .iter()
                .map(|&d| normalize_dim(d, n, "squeeze"))
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .filter(|&i| n > 0 && self.shape()[i] == 1)
                .collect(),
        };
        drop.sort_unstable();
        drop.dedup();
        let target: Shape = (0..n)
            .filter(|i| !drop.contains(i))
            .map(|i| self.shape()[i])
            .collect();
        let mut layout = self.layout().clone();
        for &d in drop.iter().rev() {
            layout = layout.squeeze_dim(d);
        }
        let out = self.view_with(layout);
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let back = as_isize(self.shape());
            rec.finish("SqueezeBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(g.reshape(&back)?)])
            })?;
        }
        debug_assert_eq!(out.shape(), target.as_slice());
        Ok(out)
    }

    /// Flattens dims `start..=end` into one.
    pub fn flatten(&self, start: isize, end: isize) -> Result<Tensor> {
        if self.ndim() == 0 {
            return self.reshape(&[1]);
        }
        let (s, e) = (
            normalize_dim(start, self.ndim(), "flatten")?,
            normalize_dim(end, self.ndim(), "flatten")?,
        );
        if s > e {
            return Err(Error::value(format!(
                "flatten: start dim {start} comes after end dim {end}"
            )));
        }
        let mut shape: Vec<isize> = as_isize(&self.shape()[..s]);
        shape.push(self.shape()[s..=e].iter().product::<usize>() as isize);
        shape.extend(as_isize(&self.shape()[e + 1..]));
        self.reshape(&shape)
    }

    /// A copy with its own storage; the gradient passes through.
    pub fn clone_tensor(&self) -> Result<Tensor> {
        let out = self.contiguous_copy()?;
        if let Some(rec) = Recorder::begin(&[self]) {
            rec.finish("CloneBackward", &out, |g, _, _| {
                Ok(smallvec![Some(g.clone())])
            })?;
        }
        Ok(out)
    }

    /// Itself if contiguous, else a differentiable contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.clone_tensor()
        }
    }
}
