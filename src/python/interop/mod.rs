//! Exchange with other libraries and Python values: Python/NumPy values to tensors and
//! back (`convert.rs`, `to_python.rs`), NumPy's array interface and the buffer protocol (zero-copy views),
//! DLPack (both directions) and raw file output (`tofile.rs`).

pub(crate) mod array_interface;
// The buffer protocol (`memoryview(tensor)`): in the limited API since CPython 3.11, the
// floor of the abi3 wheel, so every build has it.
pub(crate) mod buffer;
pub(crate) mod convert;
pub(crate) mod dlpack;
pub(crate) mod dlpack_abi;
pub(crate) mod to_python;
pub(crate) mod tofile;
