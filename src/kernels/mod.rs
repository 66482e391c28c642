//! Kernels: pure functions over element slices and layouts. They allocate only their
//! outputs, know nothing of graphs or Python, and pick contiguous fast paths, a general
//! strided path, and rayon above [`PAR_THRESHOLD`] elements.

/// Scaled dot-product attention: blockwise forward and recomputing backward.
pub mod attention;
/// Batch norm: statistics, normalisation and the closed-form backward.
pub mod batch_norm;
pub mod bias_act;
pub mod binary;
pub mod cast;
pub mod class_loss;
pub mod complex_elem;
pub mod complex_math;
pub mod conv;
pub mod conv_direct;
pub mod conv_gemm;
pub mod conv_grid;
pub mod conv_panel;
pub mod conv_shift;
pub mod copy;
pub mod elementwise;
pub mod fastmath;
pub mod fastmath_gates;
pub mod fused_nn;
pub mod gemm_into;
pub mod gemm_split;
pub mod grid_sample;
pub mod index;
/// `index_select` / `gather` copying straight from the source view, rows in parallel.
pub mod index_rows;
pub mod linalg;
pub mod linalg_eig;
pub mod linalg_lu;
pub mod matmul;
pub mod panel_avx512;
pub mod panel_gemm;
pub mod par;
pub mod reduce;
pub mod rnn;
pub mod rnn_gemm;
pub mod rnn_gru;
pub mod rnn_step;
pub mod scalar;
pub mod scan;
pub mod scan_blocked;
pub mod scatter;
pub mod scatter_put;
pub mod select_mask;
pub mod softmax;
pub mod sort;
pub mod strided_assign;
pub mod tiles;
pub mod unary;

/// Element count above which elementwise kernels split work across rayon threads.
pub const PAR_THRESHOLD: usize = 1 << 16;

/// Elements handed to one rayon task.
pub const PAR_CHUNK: usize = 1 << 14;

/// How an elementwise kernel splits its work across threads: from how many elements on,
/// and how many elements per task.
#[derive(Clone, Copy, Debug)]
pub struct Split {
    /// Element count from which the work is split.
    pub min_len: usize,
    /// Elements handed to one task.
    pub chunk: usize,
}

impl Split {
    /// For ops costing a few cycles per element (add, mul, compare): splitting pays only
    /// on large tensors.
    pub const CHEAP: Split = Split {
        min_len: PAR_THRESHOLD,
        chunk: PAR_CHUNK,
    };
    /// For transcendental ops (exp, log, tanh, erf: tens of cycles per element), where a
    /// second thread already pays off on a few thousand elements.
    pub const COSTLY: Split = Split {
        min_len: 1 << 13,
        chunk: 1 << 12,
    };
}
