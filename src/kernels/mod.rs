//! Kernels: pure functions over element slices and layouts. They allocate only their
//! outputs, know nothing of graphs or Python, and pick contiguous fast paths, a general
//! strided path, and rayon above [`PAR_THRESHOLD`] elements.

pub mod binary;
pub mod cast;
pub mod copy;
pub mod elementwise;
pub mod fastmath;
pub mod index;
pub mod matmul;
pub mod reduce;
pub mod scalar;
pub mod unary;

/// Element count above which elementwise kernels split work across rayon threads.
pub const PAR_THRESHOLD: usize = 1 << 16;

/// Elements handed to one rayon task.
pub const PAR_CHUNK: usize = 1 << 14;
