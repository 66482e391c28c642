//! The Python `Tensor` class and its methods, one file per family; `class.rs` holds the
//! struct and is a leaf that the rest of the bindings build on.

/// The fused attention op behind `F.scaled_dot_product_attention`.
pub(crate) mod attention;
pub(crate) mod autograd_methods;
/// The fused batch-norm op behind `F.batch_norm` and the `BatchNorm*` layers.
pub(crate) mod batch_norm;
pub(crate) mod class;
pub(crate) mod complex;
/// The fused convolution op behind `nn.functional.conv1d/2d/3d`.
pub(crate) mod conv;
pub(crate) mod conversions;
/// Fused network ops behind `nn.functional` (layer_norm, losses, dropout, linear).
pub(crate) mod fused;
/// 2-D grid sampling's kernels behind `nn.functional.grid_sample`.
pub(crate) mod grid_sample;
/// Python object identity of `_base` and saved inputs.
pub(crate) mod identity;
/// Parsing an index key (`x[key]`) into index items.
pub(crate) mod index_key;
pub(crate) mod indexing;
pub(crate) mod linalg;
pub(crate) mod math;
/// uint8 / int8 / int16 conversions (`byte`, `char`, `short`).
pub(crate) mod narrow;
pub(crate) mod reduce;
/// `x.data = y` and the in-place view ops: re-pointing a Python tensor.
pub(crate) mod repoint;
pub(crate) mod repr;
/// The fused recurrent layer op behind `nn.LSTM` / `GRU` / `RNN`.
pub(crate) mod rnn;
pub(crate) mod scan;
pub(crate) mod scatter;
pub(crate) mod shape;
pub(crate) mod sliding_window;
pub(crate) mod sparse_grad;
/// The core of `as_strided`, a view of the memory with any sizes and strides.
pub(crate) mod strided;
/// The unary ops' `Tensor` methods, with their extra keyword (`round(decimals=)`).
pub(crate) mod unary;
pub(crate) mod vector_products;
