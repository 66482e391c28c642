//! ferrograd: reverse-mode automatic differentiation with a Rust core.
//!
//! Layers, each depending only on the ones above it: [`error`], [`dtype`], [`layout`],
//! [`storage`], [`storage_marks`], [`buffer_cache`], [`threads`], [`interrupt`],
//! [`inference`], [`foreign`] (foundations: errors, dtypes, layouts, storage with
//! versions and marks, the buffer cache, the thread pool, Ctrl-C, inference mode, checks
//! of foreign memory); [`kernels`]
//! (pure compute over slices); [`op_defs`] (each op family's declaration table, which the
//! kernels, the differentiable ops and the bindings expand); [`tensor`] (the `Tensor`
//! handle and raw ops); [`profiler`] (the op profiler's observer, which the bindings, the
//! differentiable ops and the engine report to); [`autograd`] (grad mode, nodes, saved
//! tensors, the engine, and the differentiable ops); [`optim`] (fused optimizer updates); [`static_graph`] (programs:
//! op kinds, shape inference, fusion, the executor); and, with the `python` feature, the
//! PyO3 bindings. The behaviour contract is `docs/semantics.md`.

#![warn(missing_docs)]

pub mod autograd;
pub mod buffer_cache;
pub mod dtype;
pub mod error;
pub mod foreign;
pub mod inference;
pub mod interrupt;
pub mod kernels;
pub mod layout;
pub mod op_defs;
pub mod optim;
pub mod profiler;
pub mod rare_list;
pub mod small_blocks;
pub mod static_graph;
pub mod storage;
pub mod storage_marks;
pub mod tensor;
pub mod threads;

#[cfg(feature = "python")]
mod python;

/// Large blocks (tensor storage and scratch alike) are recycled through the buffer cache.
#[global_allocator]
static GLOBAL: buffer_cache::CachingAlloc = buffer_cache::CachingAlloc;

pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
pub use tensor::Tensor;
