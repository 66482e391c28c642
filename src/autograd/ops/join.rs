//! Joining and splitting: `cat`, `stack` (copies, with slice / select gradients) and
//! `split`, `split_size`, `chunk`, `unbind` (views, outputs of one node: see `split.rs`).

use crate::autograd::{Grads, Recorder};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{normalize_dim, Layout, Shape};
use crate::storage::{try_filled_vec, Storage};
use crate::tensor::{zeros, Tensor};
use std::sync::Arc;

/// Validates the list of a join op: non-empty, no 0-d tensor; returns the first one.
fn first_of<'a>(tensors: &'a [Tensor], op: &str) -> Result<&'a Tensor> {
    let first = tensors
        .first()
        .ok_or_else(|| Error::value(format!("{op}: expected a non-empty list of tensors")))?;
    if op == "cat" {
        if let Some(i) = tensors.iter().position(|t| t.ndim() == 0) {
            return Err(Error::value(format!(
                "cat: tensor {i} is zero-dimensional and cannot be concatenated; use stack, or \
                 unsqueeze it first"
            )));
        }
    }
    Ok(first)
}

/// The join by plain copies when every tensor is contiguous and of the result's `dtype`:
/// with `outer` the product of the result's dims before the join dim (`> 0`), the result
/// is, for each outer index, each tensor's next `numel / outer` elements in turn (`cat`'s
/// slab, `stack`'s element along the new dim). A legacy `[0]` tensor `cat` leaves out
/// adds nothing. `None` where that does not hold (the views and strided copies run).
fn join_contiguous(
    tensors: &[Tensor],
    shape: &[usize],
    outer: usize,
    dtype: DType,
) -> Result<Option<Tensor>> {
    let total: usize = shape.iter().product();
    if outer == 0
        || total == 0
        || tensors
            .iter()
            .any(|t| t.dtype() != dtype || !t.is_contiguous())
    {
        return Ok(None);
    }
    let block = total / outer;
    let storage = crate::with_dtype!(dtype, T, {
        let mut v = try_filled_vec(total, <T as crate::dtype::Element>::zero())?;
        let mut start = 0;
        for t in tensors {
            // one read lock at a time (the same tensor may come twice)
            let n = t.numel() / outer;
            let s = t.storage().read::<T>();
            let src = &s[t.layout().offset..t.layout().offset + t.numel()];
            for (o, piece) in src.chunks_exact(n.max(1)).take(outer).enumerate() {
                v[o * block + start..o * block + start + n].copy_from_slice(&piece[..n]);
            }
            start += n;
        }
        Storage::from_vec(v)
    });
    Ok(Some(Tensor::from_parts(
        Arc::new(storage),
        Layout::contiguous(shape),
    )))
}

/// Allocates `shape` of the promoted dtype of all `tensors` and copies tensor `i` into
/// the view `place(out_layout, i)` (None: tensor `i` is left out, as `cat` leaves out a
/// legacy `[0]` tensor).
fn join_raw(
    tensors: &[Tensor],
    shape: &[usize],
    outer: usize,
    place: impl Fn(&Layout, usize) -> Option<Layout>,
) -> Result<Tensor> {
    let dtype = tensors
        .iter()
        .skip(1)
        .fold(tensors[0].dtype(), |d, t| DType::promote(d, t.dtype()));
    if let Some(out) = join_contiguous(tensors, shape, outer, dtype)? {
        return Ok(out);
    }
    let out = zeros(shape, dtype)?;
    for (i, t) in tensors.iter().enumerate() {
        if let Some(l) = place(out.layout(), i) {
            out.view_with(l).assign_raw(t)?;
        }
    }
    Ok(out)
}

/// PyTorch's legacy rule of `cat` (TensorShape.cpp, `cat_should_skip_tensor`): a 1-D
/// tensor of size 0 is left out of the shape checks and of the result; its dtype still
/// takes part in the promotion.
fn legacy_empty(t: &Tensor) -> bool {
    t.ndim() == 1 && t.shape()[0] == 0
}

impl Tensor {
    /// Concatenates `tensors` along `dim` (promoting dtypes); all other dims must match.
    pub fn cat(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let first = first_of(tensors, "cat")?;
        // the first tensor that is not a legacy [0] sets the shape (all are: dim 0 of [0])
        let (first, d) = match tensors.iter().find(|t| !legacy_empty(t)) {
            Some(t) => (t, normalize_dim(dim, t.ndim(), "cat")?),
            None => (first, 0),
        };
        let mut shape: Shape = first.shape_vec();
        shape[d] = 0;
        let mut spans = Vec::with_capacity(tensors.len());
        for (i, t) in tensors.iter().enumerate() {
            if legacy_empty(t) && first.ndim() != 1 {
                spans.push(None);
                continue;
            }
            let fits = t.ndim() == first.ndim()
                && (0..t.ndim()).all(|k| k == d || t.shape()[k] == first.shape()[k]);
            if !fits {
                return Err(Error::value(format!(
                    "cat: tensor {i} has shape {:?}, which does not match tensor 0's shape {:?} \
                     outside dimension {d}",
                    t.shape(),
                    first.shape()
                )));
            }
            spans.push(Some((shape[d], t.shape()[d])));
            shape[d] = shape[d]
                .checked_add(t.shape()[d])
                .ok_or_else(|| Error::memory("cat: result is too large"))?;
        }
        let outer = shape[..d].iter().product();
        let out = join_raw(tensors, &shape, outer, |l, i| {
            spans[i].map(|(start, len)| l.slice(d, start, len, 1))
        })?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let refs: Vec<&Tensor> = tensors.iter().collect();
        if let Some(rec) = Recorder::begin(&refs) {
            rec.finish("CatBackward", &out, move |g, _, needs| {
                spans
                    .iter()
                    .zip(needs)
                    .map(|(&span, &need)| {
                        Ok(match (need, span) {
                            (false, _) => None,
                            // a legacy [0] tensor left out: its (empty) gradient
                            (true, None) => Some(zeros(&[0], g.dtype())?),
                            (true, Some((start, len))) => {
                                let (a, b) = (start as isize, (start + len) as isize);
                                Some(g.slice(d as isize, Some(a), Some(b), 1)?)
                            }
                        })
                    })
                    .collect::<Result<Grads>>()
            })?;
        }
        Ok(out)
    }

    /// Stacks equally shaped `tensors` along a new dimension `dim` (`-ndim-1 ..= ndim`).
    pub fn stack(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let first = first_of(tensors, "stack")?;
        let d = normalize_dim(dim, first.ndim() + 1, "stack")?;
        if let Some((i, t)) = tensors
            .iter()
            .enumerate()
            .find(|(_, t)| t.shape() != first.shape())
        {
            return Err(Error::value(format!(
                "stack: tensor {i} has shape {:?}, but tensor 0 has shape {:?}; all tensors must \
                 have the same shape",
                t.shape(),
                first.shape()
            )));
        }
        let mut shape: Shape = first.shape_vec();
        shape.insert(d, tensors.len());
        let outer = shape[..d].iter().product();
        let out = join_raw(tensors, &shape, outer, |l, i| Some(l.select(d, i)))?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let refs: Vec<&Tensor> = tensors.iter().collect();
        if let Some(rec) = Recorder::begin(&refs) {
            rec.finish("StackBackward", &out, move |g, _, needs| {
                needs
                    .iter()
                    .enumerate()
                    .map(|(i, &need)| {
                        Ok(if need {
                            Some(g.select(d as isize, i as isize)?)
                        } else {
                            None
                        })
                    })
                    .collect::<Result<Grads>>()
            })?;
        }
        Ok(out)
    }

    /// Splits along `dim` into pieces of `sizes` (which must sum to the dim's size);
    /// each piece is a view, and all are outputs of one backward node.
    pub fn split(&self, sizes: &[usize], dim: isize) -> Result<Vec<Tensor>> {
        self.split_named(sizes, dim, "SplitWithSizesBackward")
    }

    /// [`Tensor::split`] recording the node as `name` (PyTorch names `split(int)` and
    /// `chunk` `SplitBackward0`, `split([sizes])` `SplitWithSizesBackward0`).
    fn split_named(&self, sizes: &[usize], dim: isize, name: &'static str) -> Result<Vec<Tensor>> {
        let (d, n) = self.split_dim(dim, "split")?;
        let total = sizes.iter().try_fold(0usize, |a, &s| a.checked_add(s));
        if total != Some(n) {
            return Err(Error::value(format!(
                "split: sizes {sizes:?} must sum to the size of dimension {dim}, which is {n}"
            )));
        }
        Ok(self.split_sizes_views(sizes, d, name))
    }

    /// torch `split(int)`: pieces of `size` along `dim`, the last one smaller if needed.
    pub fn split_size(&self, size: usize, dim: isize) -> Result<Vec<Tensor>> {
        let (_, n) = self.split_dim(dim, "split_size")?;
        if n == 0 {
            return self.split_named(&[0], dim, "SplitBackward");
        }
        if size == 0 {
            return Err(Error::value(format!(
                "split_size: the split size must be positive for dimension {dim} of size {n}, got 0"
            )));
        }
        let sizes: Vec<usize> = (0..n.div_ceil(size))
            .map(|k| size.min(n - k * size))
            .collect();
        self.split_named(&sizes, dim, "SplitBackward")
    }

    /// torch `chunk`: at most `chunks` pieces of `ceil(n / chunks)` along `dim`.
    pub fn chunk(&self, chunks: usize, dim: isize) -> Result<Vec<Tensor>> {
        let (_, n) = self.split_dim(dim, "chunk")?;
        if chunks == 0 {
            return Err(Error::value(
                "chunk: the number of chunks must be positive, got 0",
            ));
        }
        if n == 0 {
            let mut sizes = crate::storage::try_vec_with_capacity(chunks)?;
            sizes.resize(chunks, 0);
            return self.split_named(&sizes, dim, "SplitBackward");
        }
        self.split_size(n.div_ceil(chunks), dim)
    }

    /// Every position along `dim` as a view without that dimension; all are outputs of
    /// one backward node.
    pub fn unbind(&self, dim: isize) -> Result<Vec<Tensor>> {
        let (d, _) = self.split_dim(dim, "unbind")?;
        Ok(self.unbind_views(d))
    }

    /// Normalised `dim` and its size; a 0-d tensor cannot be split.
    fn split_dim(&self, dim: isize, op: &str) -> Result<(usize, usize)> {
        if self.ndim() == 0 {
            return Err(Error::index(format!(
                "{op}: a 0-d tensor has no dimension {dim} to split"
            )));
        }
        let d = normalize_dim(dim, self.ndim(), op)?;
        Ok((d, self.shape()[d]))
    }
}
