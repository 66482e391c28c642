//! Matrix products with their gradients.

use super::saved;
use crate::autograd::Recorder;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

impl Tensor {
    /// Raw matmul (NumPy semantics); half types are computed in float32.
    pub fn matmul_raw(&self, other: &Tensor) -> Result<Tensor> {
        let dtype = DType::promote(self.dtype(), other.dtype());
        let compute = dtype.compute_dtype();
        let (a, b) = (self.cast_raw(compute)?, other.cast_raw(compute)?);
        let (s, shape) = crate::kernels::matmul::matmul_storage(
            a.storage(),
            a.layout(),
            b.storage(),
            b.layout(),
        )?;
        Tensor::from_parts(Arc::new(s), Layout::contiguous(&shape)).cast_raw(dtype)
    }

    /// Matrix product with broadcasting batch dims (`@`).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        use crate::autograd::autocast::{autocast_target, cast_for_autocast, family};
        let _profiled = crate::profiler::op(|| "matmul", &[self, other]);
        if let Some(low) = autocast_target(family::MATMUL, &[self, other]) {
            return cast_for_autocast(self, low)?.matmul(&cast_for_autocast(other, low)?);
        }
        if self.ndim() == 0 || other.ndim() == 0 {
            return Err(Error::value(format!(
                "matmul: both operands need at least one dimension, got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            )));
        }
        let out = self.matmul_raw(other)?;
        let Some(mut rec) = Recorder::begin(&[self, other]) else {
            return Ok(out);
        };
        // each gradient needs only the *other* operand: save what a needed gradient uses
        let (needs_a, needs_b) = (rec.needs(0), rec.needs(1));
        if needs_b {
            rec.save(self);
        } else {
            rec.save_nothing();
        }
        if needs_a {
            rec.save(other);
        } else {
            rec.save_nothing();
        }
        let (a_shape, b_shape) = (self.shape_vec(), other.shape_vec());
        rec.finish("MatmulBackward", &out, move |g, s, n| {
            let (a_1d, b_1d) = (a_shape.len() == 1, b_shape.len() == 1);
            // lift 1-D operands to matrices so one formula covers every case
            let lift_a = |a: &Tensor| if a_1d { a.unsqueeze(0) } else { Ok(a.clone()) };
            let lift_b = |b: &Tensor| if b_1d { b.unsqueeze(-1) } else { Ok(b.clone()) };
            let mut g2 = g.clone();
            if a_1d {
                g2 = g2.unsqueeze(if b_1d { 0 } else { -2 })?;
            }
            if b_1d {
                g2 = g2.unsqueeze(-1)?;
            }
            let ga = || -> Result<Option<Tensor>> {
                if !n[0] {
                    return Ok(None);
                }
                let b2 = lift_b(saved(s, 1, "MatmulBackward")?)?;
                let r = g2.matmul(&b2.transpose(-1, -2)?.conj()?)?;
                Ok(Some(if a_1d {
                    r.sum_to(&[1, a_shape[0]])?.reshape(&[-1])?
                } else {
                    r
                }))
            };
            let gb = || -> Result<Option<Tensor>> {
                if !n[1] {
                    return Ok(None);
                }
                let a2 = lift_a(saved(s, 0, "MatmulBackward")?)?;
                let r = a2.transpose(-1, -2)?.conj()?.matmul(&g2)?;
                Ok(Some(if b_1d {
                    r.sum_to(&[b_shape[0], 1])?.reshape(&[-1])?
                } else {
                    r
                }))
            };
            let (ga, gb) = super::linear::both_products(n[0] && n[1], ga, gb)?;
            Ok(smallvec![ga, gb])
        })?;
        Ok(out)
    }

    /// Inner product of two 1-D tensors.
    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 || self.shape() != other.shape() {
            return Err(Error::value(format!(
                "dot: expects two 1-D tensors of the same length, got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            )));
        }
        self.matmul(other)
    }

    /// Outer product of two 1-D tensors.
    pub fn outer(&self, other: &Tensor) -> Result<Tensor> {
        if self.ndim() != 1 || other.ndim() != 1 {
            return Err(Error::value(format!(
                "outer: expects two 1-D tensors, got shapes {:?} and {:?}",
                self.shape(),
                other.shape()
            )));
        }
        self.unsqueeze(-1)?.mul(&other.unsqueeze(0)?)
    }
}
