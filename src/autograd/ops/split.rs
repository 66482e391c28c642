//! `split` / `unbind` as ONE backward node with several outputs, as both peers record
//! them (PyTorch `SplitBackward0` / `UnbindBackward0`, Paddle one split node): every
//! piece is a view of the input and output `i` of the node. Backward runs once for all
//! pieces; a piece that got no gradient contributes zeros, and the hooks of such a piece
//! run with `None` (the engine's rule for a node that runs without a gradient for one
//! of its outputs).

use crate::autograd::node::{InputMeta, Node, NodeBase, NodeRef};
use crate::autograd::Recorder;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::{zeros, Tensor};
use std::borrow::Cow;
use std::sync::Arc;

/// How the pieces were cut along `dim`.
enum Cut {
    /// Consecutive pieces of these sizes (they sum to the dim's size).
    Sizes(Vec<usize>),
    /// One piece per position, without the dimension.
    Unbind,
}

/// The node behind every piece of one `split` / `unbind` call.
struct SplitNode {
    base: NodeBase,
    name: &'static str,
    dim: usize,
    cut: Cut,
}

impl SplitNode {
    /// Shape of piece `i` (the input's shape, cut).
    fn piece_shape(&self, i: usize) -> Vec<usize> {
        let mut shape = self.base.inputs[0].shape.to_vec();
        match &self.cut {
            Cut::Sizes(sizes) => shape[self.dim] = sizes[i],
            Cut::Unbind => {
                shape.remove(self.dim);
            }
        }
        shape
    }
}

impl Node for SplitNode {
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.name)
    }
    fn base(&self) -> &NodeBase {
        &self.base
    }
    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        // the engine passes a node that got no gradient at all by, so some piece has one
        let dtype = self.base.inputs[0].dtype;
        let mut full = Vec::with_capacity(grads.len());
        for (i, g) in grads.into_iter().enumerate() {
            full.push(match g {
                Some(g) => g,
                None => zeros(&self.piece_shape(i), dtype)?,
            });
        }
        let d = self.dim as isize;
        let g = match self.cut {
            Cut::Sizes(_) => Tensor::cat(&full, d)?,
            Cut::Unbind => Tensor::stack(&full, d)?,
        };
        Ok(vec![Some(g)])
    }
    fn num_outputs(&self) -> usize {
        match &self.cut {
            Cut::Sizes(sizes) => sizes.len(),
            Cut::Unbind => self.base.inputs[0].shape[self.dim],
        }
    }
    fn output_meta(&self, i: usize) -> Option<InputMeta> {
        (i < self.num_outputs()).then(|| InputMeta {
            shape: self.piece_shape(i).into(),
            dtype: self.base.inputs[0].dtype,
        })
    }
}

impl Tensor {
    /// Views of `x` at `layouts`; when history is recorded, all of them outputs of one
    /// [`SplitNode`] (`cut` and `dim` say how they were cut, for backward).
    fn split_views(
        &self,
        layouts: Vec<Layout>,
        dim: usize,
        cut: impl FnOnce() -> Cut,
        name: &'static str,
    ) -> Vec<Tensor> {
        let pieces: Vec<Tensor> = layouts.into_iter().map(|l| self.view_with(l)).collect();
        for p in &pieces {
            p.mark_view_of(self);
        }
        if pieces.is_empty() || !self.dtype().is_differentiable() {
            return pieces;
        }
        let Some(rec) = Recorder::begin(&[self]) else {
            return pieces;
        };
        let node = NodeRef::new(Arc::new(SplitNode {
            base: rec.into_base(),
            name,
            dim,
            cut: cut(),
        }));
        for (i, p) in pieces.iter().enumerate() {
            p.meta().view_multi_output = true;
            p.set_grad_fn(node.clone(), i);
        }
        pieces
    }

    /// Consecutive views of `sizes` along dimension `d` (already validated).
    pub(super) fn split_sizes_views(
        &self,
        sizes: &[usize],
        d: usize,
        name: &'static str,
    ) -> Vec<Tensor> {
        let mut start = 0usize;
        let layouts = sizes
            .iter()
            .map(|&len| {
                let l = self.layout().slice(d, start, len, 1);
                start += len;
                l
            })
            .collect();
        self.split_views(layouts, d, || Cut::Sizes(sizes.to_vec()), name)
    }

    /// Every position along dimension `d` (already validated) as a view without it.
    pub(super) fn unbind_views(&self, d: usize) -> Vec<Tensor> {
        let layouts = (0..self.shape()[d])
            .map(|i| self.layout().select(d, i))
            .collect();
        self.split_views(layouts, d, || Cut::Unbind, "UnbindBackward")
    }
}
