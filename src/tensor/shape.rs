//! Raw (non-recording) views and copies: reshape, permute, expand, slicing, and the
//! in-place writes the rest of the crate builds on.

use super::Tensor;
use crate::error::{Error, Result};
use crate::layout::{checked_numel, Layout, Shape};
use std::sync::Arc;

/// Resolves a requested shape with at most one `-1` against `numel`.
pub fn infer_shape(requested: &[isize], numel: usize, op: &str) -> Result<Shape> {
    let mut infer = None;
    let mut known = 1usize;
    for (i, &d) in requested.iter().enumerate() {
        if d == -1 {
            if infer.replace(i).is_some() {
                return Err(Error::value(format!(
                    "{op}: only one dimension can be -1, got {requested:?}"
                )));
            }
        } else if d < 0 {
            return Err(Error::value(format!(
                "{op}: invalid dimension {d} in {requested:?}"
            )));
        } else {
            known = known
                .checked_mul(d as usize)
                .ok_or_else(|| Error::value(format!("{op}: shape {requested:?} is too large")))?;
        }
    }
    let mut out: Shape = requested.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = infer {
        if known == 0 || !numel.is_multiple_of(known) {
            return Err(Error::value(format!(
                "{op}: cannot reshape a tensor of {numel} elements into shape {requested:?}"
            )));
        }
        out[i] = numel / known;
    } else if known != numel {
        return Err(Error::value(format!(
            "{op}: cannot reshape a tensor of {numel} elements into shape {requested:?} \
             ({known} elements)"
        )));
    }
    Ok(out)
}

impl Tensor {
    /// A contiguous copy (always a new buffer).
    pub fn contiguous_copy(&self) -> Result<Tensor> {
        let s = crate::with_dtype!(self.dtype(), T, {
            crate::storage::Storage::from_vec(crate::kernels::copy::gather::<T>(
                &self.storage().read::<T>(),
                self.layout(),
            )?)
        });
        Ok(Tensor::from_parts(
            Arc::new(s),
            Layout::contiguous(self.shape()),
        ))
    }

    /// Itself when contiguous, else a contiguous copy.
    pub fn contiguous_raw(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.contiguous_copy()
        }
    }

    /// Same elements in `shape` (a view when the strides allow, else a copy).
    pub fn reshape_raw(&self, shape: &[usize]) -> Result<Tensor> {
        let n = checked_numel(shape)?;
        if n != self.numel() {
            return Err(Error::value(format!(
                "reshape: cannot reshape a tensor of shape {:?} ({} elements) into {shape:?} ({n} elements)",
                self.shape(),
                self.numel()
            )));
        }
        match self.layout().reshape_view(shape) {
            Some(l) => Ok(self.view_with(l)),
            None => Ok(self.contiguous_copy()?.view_with(Layout::contiguous(shape))),
        }
    }

    /// Broadcast view to `shape`.
    pub fn expand_raw(&self, shape: &[usize]) -> Result<Tensor> {
        Ok(self.view_with(self.layout().broadcast_to(shape, "expand")?))
    }

    /// `self += other` into this tensor's own memory (no autograd, bumps the version).
    /// `other` is broadcast to this shape and cast to this dtype.
    pub fn add_inplace_raw(&self, other: &Tensor) -> Result<()> {
        let sum = self.binary_raw(other, super::BinaryOp::Add)?;
        self.assign_raw(&sum)
    }

    /// Copies `src` (broadcast, cast) into this view's elements and bumps the version.
    pub fn assign_raw(&self, src: &Tensor) -> Result<()> {
        crate::layout::broadcast_shapes(src.shape(), self.shape(), "copy_")
            .ok()
            .filter(|s| s.as_slice() == self.shape())
            .ok_or_else(|| {
                Error::value(format!(
                    "copy_: cannot write a tensor of shape {:?} into one of shape {:?}",
                    src.shape(),
                    self.shape()
                ))
            })?;
        let mut src = src.cast_raw(self.dtype())?;
        if crate::storage::Storage::same_memory(src.storage(), self.storage()) {
            src = src.contiguous_copy()?; // never read and write one buffer at once
        }
        crate::with_dtype!(self.dtype(), T, {
            let s = src.storage().read::<T>();
            let mut d = self.storage().write::<T>()?;
            crate::kernels::copy::assign::<T>(&mut d, self.layout(), &s, src.layout())?;
        });
        self.bump_version();
        Ok(())
    }
}
