//! ferrograd: reverse-mode automatic differentiation with a Rust core.
//!
//! Layers, each depending only on the ones above it: [`error`], [`dtype`], [`layout`],
//! [`storage`] (foundations); [`kernels`] (pure compute over slices); [`tensor`] (the
//! `Tensor` handle and raw ops); [`autograd`] (grad mode, nodes, saved tensors, the
//! engine, and the differentiable ops); and, with the `python` feature, the PyO3 bindings.

#![warn(missing_docs)]

pub mod autograd;
pub mod buffer_cache;
pub mod dtype;
pub mod error;
pub mod foreign;
pub mod interrupt;
pub mod kernels;
pub mod layout;
pub mod optim;
pub mod static_graph;
pub mod storage;
pub mod storage_marks;
pub mod tensor;
pub mod threads;

#[cfg(feature = "python")]
mod python;

pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
pub use tensor::Tensor;
