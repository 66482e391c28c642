//! `x.view(dtype)`: the same bytes read as another dtype (PyTorch's and Paddle's
//! `view(dtype)`), as a new buffer. A storage holds one dtype, so the result cannot share
//! memory with `x` (PyTorch's does); its values are PyTorch's, bit for bit.

use super::Tensor;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::try_vec_with_capacity;

/// The raw bytes of `t`'s elements in row-major order.
fn bytes_of(t: &Tensor) -> Result<Vec<u8>> {
    let n = t.numel();
    let size = t.dtype().size();
    let total = n
        .checked_mul(size)
        .ok_or_else(|| Error::value("view(dtype): the tensor is too large"))?;
    let mut out: Vec<u8> = try_vec_with_capacity(total)?;
    crate::with_dtype!(t.dtype(), T, {
        let vals = crate::kernels::copy::gather::<T>(&t.storage().read::<T>(), t.layout())?;
        // SAFETY: every dtype's element type is plain data of `size` bytes (bool is one
        // byte, 0 or 1), `vals` holds `n` of them and `out` has room for `total` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(vals.as_ptr().cast::<u8>(), out.as_mut_ptr(), total);
            out.set_len(total);
        }
    });
    Ok(out)
}

impl Tensor {
    /// The bytes of this tensor read as `dtype`, in a new buffer (no history: the
    /// result is not differentiable, as PyTorch's is not across dtypes). With a wider
    /// `dtype` the last dimension shrinks by the size ratio (its size must be divisible by
    /// it), with a narrower one it grows; a 0-d tensor needs the same size. A byte read
    /// as `bool` is True when non-zero.
    pub fn view_dtype(&self, dtype: DType) -> Result<Tensor> {
        let (from, to) = (self.dtype().size(), dtype.size());
        let mut shape = self.shape().to_vec();
        if from != to {
            let Some(last) = shape.last_mut() else {
                return Err(Error::runtime(format!(
                    "view(dtype): a 0-d tensor of {} ({from} bytes) cannot be viewed as {dtype} \
                     ({to} bytes); only dtypes of the same size can",
                    self.dtype()
                )));
            };
            let bytes = *last * from;
            if bytes % to != 0 {
                return Err(Error::runtime(format!(
                    "view(dtype): the last dimension ({} elements of {}, {bytes} bytes) must \
                     be a multiple of {dtype}'s {to} bytes",
                    *last,
                    self.dtype()
                )));
            }
            *last = bytes / to;
        }
        let bytes = bytes_of(self)?;
        if dtype == DType::Bool {
            let v: Vec<bool> = bytes.iter().map(|&b| b != 0).collect();
            return Tensor::from_vec(v, &shape);
        }
        crate::with_dtype!(dtype, U, {
            let n = bytes.len() / to;
            let mut v: Vec<U> = try_vec_with_capacity(n)?;
            // SAFETY: `U` is plain data of `to` bytes for which every bit pattern is a
            // value (bool was handled above); `bytes` holds `n * to` bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), n * to);
                v.set_len(n);
            }
            Tensor::from_vec(v, &shape)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bits_as_int() {
        let t = Tensor::from_vec(vec![1.0f32, -0.0, f32::NAN], &[3]).unwrap();
        let v = t.view_dtype(DType::I32).unwrap();
        let got: Vec<i32> = v.storage().read::<i32>().to_vec();
        assert_eq!(got, vec![1065353216, i32::MIN, f32::NAN.to_bits() as i32]);
    }

    #[test]
    fn sizes_change_the_last_dim() {
        let t = Tensor::from_vec(vec![1.0f64, 2.0], &[1, 2]).unwrap();
        let v = t.view_dtype(DType::I16).unwrap();
        assert_eq!(v.shape(), &[1, 8]);
        let back = v.view_dtype(DType::F64).unwrap();
        assert_eq!(back.storage().read::<f64>().to_vec(), vec![1.0, 2.0]);
        assert!(Tensor::from_vec(vec![1u8; 3], &[3])
            .unwrap()
            .view_dtype(DType::I16)
            .is_err());
        assert!(Tensor::scalar(1.0f32).view_dtype(DType::F64).is_err());
    }
}
