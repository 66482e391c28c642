//! Raw (non-recording) complex helpers: conjugate, imaginary part, and building a complex
//! tensor from real and imaginary parts.

use super::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::elementwise::map_unary;
use crate::layout::{broadcast_shapes, Layout};
use crate::storage::Storage;
use num_complex::{Complex32, Complex64};
use std::sync::Arc;

impl Tensor {
    fn complex_map<F32, F64, O32, O64>(&self, f32_: F32, f64_: F64) -> Result<Tensor>
    where
        F32: Fn(Complex32) -> O32 + Sync + Send,
        F64: Fn(Complex64) -> O64 + Sync + Send,
        O32: crate::dtype::Element,
        O64: crate::dtype::Element,
    {
        let s = match self.dtype() {
            DType::C64 => Storage::from_vec(map_unary(
                &self.storage().read::<Complex32>(),
                self.layout(),
                f32_,
            )?),
            DType::C128 => Storage::from_vec(map_unary(
                &self.storage().read::<Complex64>(),
                self.layout(),
                f64_,
            )?),
            d => {
                return Err(Error::runtime(format!(
                    "internal: complex helper called on {d}"
                )))
            }
        };
        Ok(Tensor::from_parts(
            Arc::new(s),
            Layout::contiguous(self.shape()),
        ))
    }

    /// Complex conjugate (a copy); the tensor itself for real dtypes.
    pub fn conj_raw(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return Ok(self.clone());
        }
        self.complex_map(|z| z.conj(), |z| z.conj())
    }

    /// Imaginary part as the real dtype; zeros for real tensors.
    pub fn imag_raw(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return crate::tensor::zeros(self.shape(), self.dtype());
        }
        self.complex_map(|z| z.im, |z| z.im)
    }

    /// Real part as the real dtype (the tensor itself for real dtypes).
    pub fn real_raw(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return Ok(self.clone());
        }
        self.complex_map(|z| z.re, |z| z.re)
    }

    /// `re + i * im` with broadcasting; both must be float32 or both float64.
    pub fn complex_raw(re: &Tensor, im: &Tensor) -> Result<Tensor> {
        let dtype = match (re.dtype(), im.dtype()) {
            (DType::F32, DType::F32) => DType::C64,
            (DType::F64, DType::F64) => DType::C128,
            (a, b) => {
                return Err(Error::type_err(format!(
                    "complex: expects real and imag of the same dtype, float32 or float64, \
                     got {a} and {b}; cast them first, e.g. .astype('float32')"
                )))
            }
        };
        let shape = broadcast_shapes(re.shape(), im.shape(), "complex")?;
        let (r, m) = (re.expand_raw(&shape)?, im.expand_raw(&shape)?);
        // the parts are paired, not computed as `re + im * 1j` (where `inf * 0` made the
        // real part NaN: complex(0, inf) was nan+infj)
        match dtype {
            DType::C64 => zip_parts::<f32>(&r, &m, &shape),
            _ => zip_parts::<f64>(&r, &m, &shape),
        }
    }
}

/// The complex tensor of shape `shape` whose parts are `re` and `im` (both `T`, both of
/// that shape).
fn zip_parts<T>(re: &Tensor, im: &Tensor, shape: &[usize]) -> Result<Tensor>
where
    T: crate::dtype::Element + Copy + Send + Sync,
    num_complex::Complex<T>: crate::dtype::Element,
{
    let a = crate::kernels::copy::gather::<T>(&re.storage().read::<T>(), re.layout())?;
    let b = crate::kernels::copy::gather::<T>(&im.storage().read::<T>(), im.layout())?;
    let mut v = crate::storage::try_vec_with_capacity(a.len())?;
    v.extend(
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| num_complex::Complex::new(x, y)),
    );
    Tensor::from_vec(v, shape)
}

impl Tensor {
    /// Argument (phase) in radians: `atan2(im, re)` for complex; `pi` for negative and `0`
    /// for other real values (NaN stays NaN). Integers give the default float.
    pub fn angle_raw(&self) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return self.complex_map(|z| z.arg(), |z| z.arg());
        }
        let x = self.cast_raw(self.dtype().to_floating())?;
        let zero = x.scalar_like(0.0);
        let neg = x.binary_raw(&zero, super::BinaryOp::Lt)?;
        let pi = x.scalar_like(std::f64::consts::PI);
        let nan = x.binary_raw(&x, super::BinaryOp::Ne)?;
        Tensor::where_raw(&nan, &x, &Tensor::where_raw(&neg, &pi, &zero)?)
    }
}
