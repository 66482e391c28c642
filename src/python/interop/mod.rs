//! Exchange with other libraries and Python values: Python/NumPy values to tensors and
//! back (`convert.rs`), NumPy's array interface and the buffer protocol (zero-copy views),
//! DLPack (both directions) and raw file output (`tofile.rs`).

pub(crate) mod array_interface;
// The buffer protocol needs CPython's limited API of 3.11; the abi3 (3.9+) wheel goes
// without it and NumPy reads tensors through `array_interface.rs` instead.
#[cfg(not(feature = "abi3"))]
pub(crate) mod buffer;
pub(crate) mod convert;
pub(crate) mod dlpack;
pub(crate) mod dlpack_abi;
pub(crate) mod tofile;
