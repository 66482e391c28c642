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

/// Views between a complex tensor and its real parts: one memory read as two dtypes
/// (`Storage::reinterpret`), with strides and offsets in units of each view's own dtype.
impl Tensor {
    /// A tensor over `storage` (this tensor's memory read as another dtype) with `layout`,
    /// sharing this tensor's version counter; no history.
    fn view_reinterpreted(&self, layout: Layout) -> Result<Tensor> {
        let storage = self.storage().reinterpret()?;
        Ok(Tensor::with_counter(
            storage,
            layout,
            self.0.counter.clone(),
        ))
    }

    /// This complex tensor's layout over its memory read as real numbers: every stride
    /// and the offset doubled (a complex element is two reals, real part first).
    fn doubled_layout(&self) -> Layout {
        let l = self.layout();
        Layout {
            shape: l.shape.clone(),
            strides: l.strides.iter().map(|&s| s * 2).collect(),
            offset: l.offset * 2,
        }
    }

    /// PyTorch's `view_as_real` without history: shape `shape + [2]` (real, imaginary),
    /// the real dtype, over this complex tensor's memory (a view: writes reach `self`).
    pub fn view_as_real_raw(&self) -> Result<Tensor> {
        self.expect_complex("view_as_real")?;
        let mut l = self.doubled_layout();
        l.shape.push(2);
        l.strides.push(1);
        self.view_reinterpreted(l)
    }

    /// The real (`imag == false`) or imaginary part of this complex tensor as a view of
    /// its memory (PyTorch's `real` / `imag`: `select(view_as_real(z), -1, 0 or 1)`).
    pub fn part_view_raw(&self, imag: bool) -> Result<Tensor> {
        self.expect_complex(if imag { "imag" } else { "real" })?;
        let mut l = self.doubled_layout();
        l.offset += usize::from(imag);
        self.view_reinterpreted(l)
    }

    /// PyTorch's `view_as_complex` without history: a float32/float64 tensor whose last
    /// dimension has size 2 and stride 1, and whose offset and other strides are even
    /// (but for dimensions of size one), read as complex numbers of shape `shape[..-1]`
    /// (a view). Refused otherwise, in PyTorch's words.
    pub fn view_as_complex_raw(&self) -> Result<Tensor> {
        let refuse = |msg: String| Err(Error::runtime(msg));
        if !matches!(self.dtype(), DType::F32 | DType::F64) {
            return refuse(format!(
                "view_as_complex is only supported for float and double tensors, but got a \
                 tensor of scalar type: {}",
                self.dtype()
            ));
        }
        let l = self.layout();
        let Some((&last, rest)) = l.shape.split_last() else {
            return refuse("Input tensor must have one or more dimensions".into());
        };
        if last != 2 {
            return refuse(format!(
                "Tensor must have a last dimension of size 2 (got shape {:?})",
                self.shape()
            ));
        }
        let (&last_stride, rest_strides) = l.strides.split_last().unwrap_or((&0, &[]));
        if last_stride != 1 {
            return refuse(
                "Tensor must have a last dimension with stride 1 (call .contiguous() first)".into(),
            );
        }
        if rest
            .iter()
            .zip(rest_strides)
            .any(|(&n, &s)| n != 1 && s % 2 != 0)
        {
            return refuse(
                "Tensor must have a stride divisible by 2 for all but last dimension (call \
                 .contiguous() first)"
                    .into(),
            );
        }
        if !l.offset.is_multiple_of(2) {
            return refuse(
                "Tensor must have a storage_offset divisible by 2 (call .clone() first)".into(),
            );
        }
        let layout = Layout {
            shape: rest.iter().copied().collect(),
            strides: rest_strides.iter().map(|&s| s / 2).collect(),
            offset: l.offset / 2,
        };
        self.view_reinterpreted(layout)
    }

    /// Errors unless this tensor is complex64 or complex128 (`op` names the caller).
    fn expect_complex(&self, op: &str) -> Result<()> {
        if self.dtype().is_complex() {
            return Ok(());
        }
        Err(Error::runtime(format!(
            "{op}: expected a complex tensor (complex64 or complex128), got {}",
            self.dtype()
        )))
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    #[test]
    fn parts_and_pairs_are_views_in_their_own_units() {
        let z = Tensor::from_vec(
            vec![Complex64::new(1.0, 2.0), Complex64::new(3.0, 4.0)],
            &[2],
        )
        .unwrap();
        let im = z.part_view_raw(true).unwrap();
        assert_eq!((im.dtype(), im.layout().offset), (DType::F64, 1));
        assert_eq!(im.layout().strides.as_slice(), &[2]);
        assert_eq!(im.to_vec::<f64>().unwrap(), vec![2.0, 4.0]);
        let pairs = z.view_as_real_raw().unwrap();
        assert_eq!(pairs.shape(), &[2, 2]);
        let back = pairs.view_as_complex_raw().unwrap();
        assert!(Arc::ptr_eq(back.storage(), z.storage()));
        assert_eq!(back.to_vec::<Complex64>().unwrap(), z.to_vec().unwrap());
    }

    #[test]
    fn view_as_complex_refuses_odd_layouts() {
        let x = Tensor::from_vec((0..12).map(f64::from).collect(), &[3, 4]).unwrap();
        let odd_offset = x.slice(1, Some(1), Some(3), 1).unwrap();
        let e = odd_offset.view_as_complex_raw().unwrap_err().to_string();
        assert!(e.contains("storage_offset divisible by 2"), "{e}");
        let e = x.view_as_complex_raw().unwrap_err().to_string();
        assert!(e.contains("last dimension of size 2"), "{e}");
        let ok = x
            .slice(1, Some(2), Some(4), 1)
            .unwrap()
            .view_as_complex_raw();
        assert_eq!(ok.unwrap().to_vec::<Complex64>().unwrap()[2].re, 10.0);
    }
}
