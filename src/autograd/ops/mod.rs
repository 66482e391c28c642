//! Differentiable ops: each runs its raw kernel, then records a backward formula written
//! with differentiable ops (so every formula can itself be differentiated). One file per
//! op family. Broadcast gradients are reduced to input shapes by the engine (`sum_to`).

/// `as_strided`: a view of the memory with any sizes, strides and offset.
mod as_strided;
pub use as_strided::storage_layout;
/// Scaled dot-product attention as one node with a memory-saving backward.
pub mod attention;
/// Batch norm as one node with its closed-form backward.
pub mod batch_norm;
mod binary;
pub mod class_loss;
mod complex;
mod composed_grad;
mod conv;
pub mod conv_fused;
pub(crate) mod copy_slices;
mod fused_grad;
pub mod fused_nn;
mod getitem;
pub mod index;
mod inplace;
mod join;
mod linalg;
mod linear;
mod linear_eager;
mod reduce;
pub mod rnn;
mod scalar_binary;
mod scan;
mod scatter;
mod shape;
mod shape_table;
mod softmax;
mod sort;
mod split;
mod unary;

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The saved tensor in slot `i` of a backward formula; an internal error if absent.
pub(crate) fn saved<'a>(s: &'a [Option<Tensor>], i: usize, op: &str) -> Result<&'a Tensor> {
    s.get(i)
        .and_then(|t| t.as_ref())
        .ok_or_else(|| Error::runtime(format!("internal: {op} is missing saved tensor {i}")))
}
