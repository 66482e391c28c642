//! The DLPack ABI as ferrograd speaks it: device and flag constants, capsule names, the
//! `#[repr(C)]` structs of `dlpack.h` (legacy and versioned), and the dtype mapping.

use crate::dtype::DType;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use std::ffi::{c_void, CStr};

/// `kDLCPU`: ordinary host memory.
pub(super) const DL_CPU: i32 = 1;
/// `kDLCUDAHost`: pinned host memory, readable by the CPU like ordinary memory.
pub(super) const DL_CUDA_HOST: i32 = 3;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
pub(super) const FLAG_READ_ONLY: u64 = 1;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`.
pub(super) const FLAG_IS_COPIED: u64 = 2;
/// The DLPack ABI version this module speaks (1.0; 1.1 only added dtype codes).
pub(super) const VERSION: (u32, u32) = (1, 0);

/// Capsule names: unconsumed legacy and versioned capsules, and the names a consumer
/// gives them once it has taken ownership.
pub(super) const NAME_LEGACY: &CStr = c"dltensor";
pub(super) const NAME_VERSIONED: &CStr = c"dltensor_versioned";
pub(super) const NAME_USED_LEGACY: &CStr = c"used_dltensor";
pub(super) const NAME_USED_VERSIONED: &CStr = c"used_dltensor_versioned";

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct DLDevice {
    pub(super) device_type: i32,
    pub(super) device_id: i32,
}

/// `DLDataType`: type code, bits per lane, lanes.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct DLDataType {
    pub(super) code: u8,
    pub(super) bits: u8,
    pub(super) lanes: u16,
}

/// `DLTensor`: a strided view of memory (shape and strides in elements).
#[repr(C)]
pub(super) struct DLTensor {
    pub(super) data: *mut c_void,
    pub(super) device: DLDevice,
    pub(super) ndim: i32,
    pub(super) dtype: DLDataType,
    pub(super) shape: *mut i64,
    pub(super) strides: *mut i64,
    pub(super) byte_offset: u64,
}

/// `DLManagedTensor` (legacy, unversioned).
#[repr(C)]
pub(super) struct DLManagedTensor {
    pub(super) dl_tensor: DLTensor,
    pub(super) manager_ctx: *mut c_void,
    pub(super) deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct DLPackVersion {
    pub(super) major: u32,
    pub(super) minor: u32,
}

/// `DLManagedTensorVersioned` (DLPack ≥ 1.0).
#[repr(C)]
pub(super) struct DLManagedTensorVersioned {
    pub(super) version: DLPackVersion,
    pub(super) manager_ctx: *mut c_void,
    pub(super) deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub(super) flags: u64,
    pub(super) dl_tensor: DLTensor,
}

/// DLPack type code and bit width of a dtype.
pub(super) fn dl_dtype(d: DType) -> DLDataType {
    let (code, bits) = match d {
        DType::Bool => (6, 8),
        DType::U8 => (1, 8),
        DType::I8 => (0, 8),
        DType::I16 => (0, 16),
        DType::I32 => (0, 32),
        DType::I64 => (0, 64),
        DType::F16 => (2, 16),
        DType::BF16 => (4, 16),
        DType::F32 => (2, 32),
        DType::F64 => (2, 64),
        DType::C64 => (5, 64),
        DType::C128 => (5, 128),
    };
    DLDataType {
        code,
        bits,
        lanes: 1,
    }
}

/// The dtype of a DLPack type, or a TypeError naming it.
pub(super) fn dtype_of(t: DLDataType) -> PyResult<DType> {
    Ok(match (t.code, t.bits, t.lanes) {
        (6, 8, 1) => DType::Bool,
        (1, 8, 1) => DType::U8,
        (0, 8, 1) => DType::I8,
        (0, 16, 1) => DType::I16,
        (0, 32, 1) => DType::I32,
        (0, 64, 1) => DType::I64,
        (2, 16, 1) => DType::F16,
        (4, 16, 1) => DType::BF16,
        (2, 32, 1) => DType::F32,
        (2, 64, 1) => DType::F64,
        (5, 64, 1) => DType::C64,
        (5, 128, 1) => DType::C128,
        (code, bits, lanes) => {
            return Err(PyTypeError::new_err(format!(
                "from_dlpack: unsupported DLPack dtype (code {code}, {bits} bits, {lanes} \
                 lanes); ferrograd supports bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, \
                 float64, complex64 and complex128 — convert it on the producer side first"
            )))
        }
    })
}
