//! Differentiable views and copies: clone, contiguous, and the crate's calls of the shape
//! table's ops (reshape, squeeze, unsqueeze, flatten, permute, transpose, expand:
//! `src/op_defs/shape.rs`, recorded by `shape_table.rs`).

use crate::autograd::Recorder;
use crate::error::Result;
use crate::op_defs::{Dim, ShapeArgs, ShapeOp};
use crate::tensor::Tensor;
use smallvec::smallvec;

impl Tensor {
    /// Same elements in `shape` (one `-1` inferred); a view when possible: the table's
    /// `reshape`.
    pub fn reshape(&self, shape: &[isize]) -> Result<Tensor> {
        ShapeOp::Reshape.apply(self, &ShapeArgs::shape(shape))
    }

    /// A view sharing storage with an identity gradient (used for no-op views).
    pub(crate) fn alias_view(&self, layout: crate::layout::Layout, name: &'static str) -> Tensor {
        let out = self.view_with(layout);
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let _ = rec.finish(name, &out, |g, _, _| Ok(smallvec![Some(g.clone())]));
        }
        out
    }

    /// Broadcast view to `shape` (new dims in front, size-1 dims expanded): the table's
    /// `expand`; the gradient sums over the broadcast dims.
    pub fn expand(&self, shape: &[usize]) -> Result<Tensor> {
        let known: Vec<Dim> = shape.iter().map(|&d| Some(d)).collect();
        ShapeOp::Expand.apply(self, &ShapeArgs::like(&known))
    }

    /// Dims reordered by `perm` (negative dims allowed): the table's `permute`.
    pub fn permute(&self, perm: &[isize]) -> Result<Tensor> {
        ShapeOp::Permute.apply(self, &ShapeArgs::perm(perm))
    }

    /// Swaps two dims (torch's `transpose(d0, d1)`): the table's `transpose`.
    pub fn transpose(&self, d0: isize, d1: isize) -> Result<Tensor> {
        ShapeOp::Transpose.apply(self, &ShapeArgs::pair(d0, d1))
    }

    /// Inserts a size-1 dim at `dim` (`-ndim-1 ..= ndim`): the table's `unsqueeze`.
    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        ShapeOp::Unsqueeze.apply(self, &ShapeArgs::axes(Some(&[dim])))
    }

    /// Removes size-1 dims: all of them (`None`) or those listed (non-1 listed dims are
    /// left alone, as in PyTorch and Paddle): the table's `squeeze`.
    pub fn squeeze(&self, dims: Option<&[isize]>) -> Result<Tensor> {
        ShapeOp::Squeeze.apply(self, &ShapeArgs::axes(dims))
    }

    /// Flattens dims `start..=end` into one: the table's `flatten`.
    pub fn flatten(&self, start: isize, end: isize) -> Result<Tensor> {
        ShapeOp::Flatten.apply(self, &ShapeArgs::range(start, end))
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
