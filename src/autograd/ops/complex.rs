//! Complex ops with gradients under PyTorch's convention: the gradient of a real loss `L`
//! with respect to `z = x + iy` is `dL/dx + i dL/dy`, so a holomorphic `y = f(z)` passes
//! back `grad_y * conj(f'(z))`. Every formula that multiplies by a derivative goes
//! through [`Tensor::mul_conj`].

use super::saved;
use crate::autograd::Recorder;
use crate::error::Result;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use smallvec::smallvec;

impl Tensor {
    /// `self * conj(d)`: the chain-rule step for a derivative `d` (plain `mul` for real).
    pub fn mul_conj(&self, d: &Tensor) -> Result<Tensor> {
        if d.dtype().is_complex() {
            self.mul(&d.conj()?)
        } else {
            self.mul(d)
        }
    }

    /// `self / conj(d)` (plain `div` for real).
    pub fn div_conj(&self, d: &Tensor) -> Result<Tensor> {
        if d.dtype().is_complex() {
            self.div(&d.conj()?)
        } else {
            self.div(d)
        }
    }

    /// Complex conjugate; the tensor itself for real dtypes. Gradient: `conj(grad)`.
    pub fn conj(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return Ok(self.clone());
        }
        let out = self.conj_raw()?;
        if let Some(rec) = Recorder::begin(&[self]) {
            rec.finish("ConjBackward", &out, |g, _, _| {
                Ok(smallvec![Some(g.conj()?)])
            })?;
        }
        Ok(out)
    }

    /// Real part (the tensor itself for real dtypes): for a complex tensor a view of its
    /// memory (PyTorch's; writes through it reach `self`). Gradient: `grad + 0i`.
    pub fn real(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return Ok(self.clone());
        }
        let out = self.part_view_raw(false)?;
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let dtype = self.dtype();
            rec.finish("RealBackward", &out, move |g, _, _| {
                Ok(smallvec![Some(g.to_dtype(dtype)?)])
            })?;
        }
        Ok(out)
    }

    /// Imaginary part (zeros for real dtypes): for a complex tensor a view of its memory
    /// (PyTorch's; writes through it reach `self`). Gradient: `i * grad`.
    pub fn imag(&self) -> Result<Tensor> {
        if !self.dtype().is_complex() {
            return self.imag_raw();
        }
        let out = self.part_view_raw(true)?;
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            let dtype = self.dtype();
            rec.finish("ImagBackward", &out, move |g, _, _| {
                let i = crate::tensor::full_complex(&[], num_complex::Complex64::i(), dtype)?;
                Ok(smallvec![Some(g.to_dtype(dtype)?.mul(&i)?)])
            })?;
        }
        Ok(out)
    }

    /// PyTorch's `view_as_real`: this complex tensor as real numbers of shape
    /// `shape + [2]` (real, imaginary), a view of its memory. Gradient: the complex
    /// tensor whose parts are the gradient's two last-axis slices.
    pub fn view_as_real(&self) -> Result<Tensor> {
        let out = self.view_as_real_raw()?;
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            rec.finish("ViewAsRealBackward", &out, |g, _, _| {
                Ok(smallvec![Some(complex_of_pairs(g)?)])
            })?;
        }
        Ok(out)
    }

    /// PyTorch's `view_as_complex`: a float tensor whose last dimension is (real,
    /// imaginary) pairs as complex numbers, a view of its memory (see
    /// [`Tensor::view_as_complex_raw`] for the layouts refused). Gradient: the gradient's
    /// real and imaginary parts stacked on a new last axis.
    pub fn view_as_complex(&self) -> Result<Tensor> {
        let out = self.view_as_complex_raw()?;
        out.mark_view_of(self);
        if let Some(rec) = Recorder::begin(&[self]) {
            rec.finish("ViewAsComplexBackward", &out, |g, _, _| {
                Ok(smallvec![Some(pairs_of_complex(g)?)])
            })?;
        }
        Ok(out)
    }

    /// Phase angle. Gradient: `grad * i z / |z|^2` for complex (0 at `z = 0`), zero for
    /// real inputs.
    pub fn angle(&self) -> Result<Tensor> {
        let out = self.angle_raw()?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[self]) else {
            return Ok(out);
        };
        if !self.dtype().is_complex() {
            rec.finish("AngleBackward", &out, |g, _, _| {
                Ok(smallvec![Some(g.zeros_like()?)])
            })?;
            return Ok(out);
        }
        rec.save(self);
        rec.finish("AngleBackward", &out, |g, s, _| {
            let z = saved(s, 0, "AngleBackward")?;
            let abs2 = z.mul(&z.conj()?)?; // |z|^2 as a complex value
            let zero = z.binary_raw(&z.scalar_like(0.0), BinaryOp::Eq)?;
            let safe = Tensor::where_(&zero, &abs2.ones_like()?, &abs2)?;
            let i = crate::tensor::full_complex(&[], num_complex::Complex64::i(), z.dtype())?;
            let grad = g.to_dtype(z.dtype())?.mul(&i)?.mul(z)?.div(&safe)?;
            Ok(smallvec![Some(Tensor::where_(
                &zero,
                &grad.zeros_like()?,
                &grad
            )?)])
        })?;
        Ok(out)
    }

    /// `re + i * im` (float32 pair to complex64, float64 pair to complex128).
    /// Gradients: the real and imaginary parts of `grad`.
    pub fn complex(re: &Tensor, im: &Tensor) -> Result<Tensor> {
        let out = Tensor::complex_raw(re, im)?;
        if let Some(rec) = Recorder::begin(&[re, im]) {
            rec.finish("ComplexBackward", &out, |g, _, n| {
                let gr = if n[0] { Some(g.real()?) } else { None };
                let gi = if n[1] { Some(g.imag()?) } else { None };
                Ok(smallvec![gr, gi])
            })?;
        }
        Ok(out)
    }
}

/// `g[..., 0] + i g[..., 1]` for a real `g` whose last axis has size 2 (differentiable,
/// a new tensor): the gradient of `view_as_real`.
pub(crate) fn complex_of_pairs(g: &Tensor) -> Result<Tensor> {
    let g = if g.dtype().is_complex() {
        g.real()?
    } else {
        g.clone()
    };
    Tensor::complex(&g.select(-1, 0)?, &g.select(-1, 1)?)
}

/// `stack([re(g), im(g)], -1)` for a complex `g` (differentiable, a new tensor): the
/// gradient of `view_as_complex`.
pub(crate) fn pairs_of_complex(g: &Tensor) -> Result<Tensor> {
    if !g.dtype().is_complex() {
        let zero = g.zeros_like()?;
        return Tensor::stack(&[g.clone(), zero], -1);
    }
    Tensor::stack(&[g.real()?, g.imag()?], -1)
}

/// The gradient of `abs`: `g * sign(v)` for real `v`; for complex `v`, `g * v / |v|` (0
/// where `v` is 0) written with differentiable ops, because `sgn(z)` varies with `z`: the
/// `Sign` op's gradient is 0, which is right for real inputs only, and a second-order
/// gradient through a complex `abs` lost the term from `d sgn(z) / dz`.
pub(super) fn abs_grad(g: &Tensor, v: &Tensor) -> Result<Tensor> {
    if !v.dtype().is_complex() {
        return g.mul(&v.unary(UnaryOp::Sign)?);
    }
    let modulus = v.unary(UnaryOp::Abs)?;
    let zero = modulus.binary_raw(&modulus.scalar_like(0.0), BinaryOp::Eq)?;
    let safe = Tensor::where_(&zero, &modulus.ones_like()?, &modulus)?;
    g.mul(&v.div(&safe)?)
}
