//! Autocast (`torch.autocast`, `paddle.amp.auto_cast`): while it is on, this thread's
//! matrix products (`matmul` and the ops built on it) and `linear` run in a low-precision
//! dtype (float16 / bfloat16): their float32 / float64 inputs are cast first, with a
//! differentiable cast, so gradients flow back in the inputs' own dtypes. Other ops run
//! in the dtype of their inputs. Thread-local, like grad mode; the Python context
//! managers set and restore it.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::cell::Cell;

/// Op families autocast can run in the low dtype (a bit mask).
pub mod family {
    /// `matmul`, `mm`, `bmm` and everything computed through them (e.g. convolutions).
    pub const MATMUL: u8 = 1;
    /// `linear` (`x @ w.T + b`, one op).
    pub const LINEAR: u8 = 2;
}

thread_local! {
    static AUTOCAST: Cell<Option<(DType, u8)>> = const { Cell::new(None) };
}

/// Sets this thread's autocast: `Some((low dtype, families))` or `None` (off); returns
/// the previous setting.
pub fn set_autocast(state: Option<(DType, u8)>) -> Option<(DType, u8)> {
    AUTOCAST.with(|c| c.replace(state))
}

/// This thread's autocast setting.
pub fn autocast_state() -> Option<(DType, u8)> {
    AUTOCAST.with(|c| c.get())
}

/// The dtype an op of `fam` casts `inputs` to, when autocast is on for it and some input
/// is a wider float than the low dtype; `None` means: run as is.
#[inline]
pub fn autocast_target(fam: u8, inputs: &[&Tensor]) -> Option<DType> {
    let (low, mask) = AUTOCAST.with(|c| c.get())?;
    if mask & fam == 0 {
        return None;
    }
    inputs
        .iter()
        .any(|t| matches!(t.dtype(), DType::F32 | DType::F64))
        .then_some(low)
}

/// `t` in `low` when it is a float32 / float64 tensor (differentiable cast), else as is.
pub fn cast_for_autocast(t: &Tensor, low: DType) -> Result<Tensor> {
    match t.dtype() {
        DType::F32 | DType::F64 => t.to_dtype(low),
        _ => Ok(t.clone()),
    }
}
