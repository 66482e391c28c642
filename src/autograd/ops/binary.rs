//! Binary arithmetic and comparison ops with their gradients.

use super::saved;
use crate::autograd::{Grads, Recorder};
use crate::error::Result;
use crate::tensor::{BinaryOp, Tensor};
use smallvec::smallvec;

impl Tensor {
    /// `self op other` with broadcasting, recording the gradient when needed.
    pub fn binary(&self, other: &Tensor, op: BinaryOp) -> Result<Tensor> {
        let out = self.binary_raw(other, op)?;
        if op.returns_bool() || !out.dtype().is_differentiable() || op == BinaryOp::FloorDiv {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[self, other]) else {
            return Ok(out);
        };
        let (na, nb) = (rec.needs(0), rec.needs(1));
        let pass = |g: &Tensor, n: bool| n.then(|| g.clone());
        match op {
            BinaryOp::Add => rec.finish("AddBackward", &out, move |g, _, n| {
                Ok(smallvec![pass(g, n[0]), pass(g, n[1])])
            })?,
            BinaryOp::Sub => rec.finish("SubBackward", &out, move |g, _, n| {
                Ok(smallvec![
                    pass(g, n[0]),
                    if n[1] { Some(g.neg()?) } else { None }
                ])
            })?,
            BinaryOp::Mul => {
                save_if(&mut rec, nb, self);
                save_if(&mut rec, na, other);
                rec.finish("MulBackward", &out, |g, s, n| {
                    let ga = if n[0] {
                        Some(g.mul_conj(saved(s, 1, "MulBackward")?)?)
                    } else {
                        None
                    };
                    let gb = if n[1] {
                        Some(g.mul_conj(saved(s, 0, "MulBackward")?)?)
                    } else {
                        None
                    };
                    Ok(smallvec![ga, gb])
                })?
            }
            BinaryOp::Div => {
                save_if(&mut rec, nb, self);
                rec.save(other);
                rec.finish("DivBackward", &out, |g, s, n| {
                    let b = saved(s, 1, "DivBackward")?;
                    let ga = if n[0] { Some(g.div_conj(b)?) } else { None };
                    let gb = if n[1] {
                        let a = saved(s, 0, "DivBackward")?;
                        Some(g.neg()?.mul_conj(a)?.div_conj(&b.mul(b)?)?)
                    } else {
                        None
                    };
                    Ok(smallvec![ga, gb])
                })?
            }
            BinaryOp::Pow => {
                rec.save(self);
                rec.save(other);
                if nb {
                    rec.save_output();
                } else {
                    rec.save_nothing();
                }
                rec.finish("PowBackward", &out, |g, s, n| {
                    let (a, b) = (saved(s, 0, "PowBackward")?, saved(s, 1, "PowBackward")?);
                    let ga = if n[0] {
                        let one = b.scalar_like(1.0);
                        Some(g.mul_conj(&b.mul(&a.pow(&b.sub(&one)?)?)?)?)
                    } else {
                        None
                    };
                    let gb = if n[1] {
                        // d/db a^b = a^b ln a; defined as 0 where a == 0 and b >= 0
                        let out = saved(s, 2, "PowBackward")?;
                        let zero = a.scalar_like(0.0);
                        let mask = a.binary_raw(&zero, BinaryOp::Eq)?.binary_raw(
                            // complex exponents: compare their real part, as PyTorch does
                            &b.real_raw()?
                                .binary_raw(&b.real_raw()?.scalar_like(0.0), BinaryOp::Ge)?,
                            BinaryOp::LogicalAnd,
                        )?;
                        let safe_a = Tensor::where_(&mask, &a.ones_like()?, a)?;
                        let full = g.mul_conj(&out.mul(&safe_a.log()?)?)?;
                        Some(Tensor::where_(&mask, &full.zeros_like()?, &full)?)
                    } else {
                        None
                    };
                    Ok(smallvec![ga, gb])
                })?
            }
            BinaryOp::Maximum | BinaryOp::Minimum => {
                rec.save(self);
                rec.save(other);
                let strict = if op == BinaryOp::Maximum {
                    BinaryOp::Gt
                } else {
                    BinaryOp::Lt
                };
                let name = if op == BinaryOp::Maximum {
                    "MaximumBackward"
                } else {
                    "MinimumBackward"
                };
                rec.finish(name, &out, move |g, s, n| {
                    let (a, b) = (saved(s, 0, name)?, saved(s, 1, name)?);
                    // ties split the gradient evenly, as PyTorch does
                    let wins = a.binary_raw(b, strict)?.to_dtype(g.dtype())?;
                    let ties = a.binary_raw(b, BinaryOp::Eq)?.to_dtype(g.dtype())?;
                    let wa = wins.add(&ties.mul(&g.scalar_like(0.5))?)?;
                    let ga = if n[0] { Some(g.mul(&wa)?) } else { None };
                    let gb = if n[1] {
                        Some(g.mul(&wa.rsub_scalar(1.0)?)?)
                    } else {
                        None
                    };
                    Ok(smallvec![ga, gb])
                })?
            }
            BinaryOp::Rem => {
                rec.save(self);
                rec.save(other);
                rec.finish("RemainderBackward", &out, |g, s, n| {
                    let ga = n[0].then(|| g.clone());
                    let gb = if n[1] {
                        let (a, b) = (
                            saved(s, 0, "RemainderBackward")?,
                            saved(s, 1, "RemainderBackward")?,
                        );
                        Some(g.neg()?.mul(&a.binary_raw(b, BinaryOp::FloorDiv)?)?)
                    } else {
                        None
                    };
                    Ok(smallvec![ga, gb])
                })?
            }
            _ => {}
        }
        Ok(out)
    }

    /// `self + other`.
    pub fn add(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Add)
    }
    /// `self - other`.
    pub fn sub(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Sub)
    }
    /// `self * other`.
    pub fn mul(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Mul)
    }
    /// `self / other` (true division).
    pub fn div(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Div)
    }
    /// `self ** other`.
    pub fn pow(&self, o: &Tensor) -> Result<Tensor> {
        self.binary(o, BinaryOp::Pow)
    }
    /// `self * v` for a real scalar `v` (in this tensor's dtype).
    pub fn mul_scalar(&self, v: f64) -> Result<Tensor> {
        self.binary_with_scalar(&self.scalar_like(v), BinaryOp::Mul, false)
    }
    /// `self + v`.
    pub fn add_scalar(&self, v: f64) -> Result<Tensor> {
        self.binary_with_scalar(&self.scalar_like(v), BinaryOp::Add, false)
    }
    /// `v - self`.
    pub fn rsub_scalar(&self, v: f64) -> Result<Tensor> {
        self.binary_with_scalar(&self.scalar_like(v), BinaryOp::Sub, true)
    }

    /// `cond ? x : y` elementwise with broadcasting; differentiable in `x` and `y`.
    pub fn where_(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        let out = Self::where_raw(cond, x, y)?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        let Some(mut rec) = Recorder::begin(&[x, y]) else {
            return Ok(out);
        };
        rec.save(cond);
        rec.finish("WhereBackward", &out, |g, s, n| {
            let c = saved(s, 0, "WhereBackward")?;
            let z = g.zeros_like()?;
            let gx = if n[0] {
                Some(Tensor::where_(c, g, &z)?)
            } else {
                None
            };
            let gy = if n[1] {
                Some(Tensor::where_(c, &z, g)?)
            } else {
                None
            };
            Ok(smallvec![gx, gy] as Grads)
        })?;
        Ok(out)
    }

    /// Raw `where`: promotes `x` and `y`, broadcasts all three.
    pub fn where_raw(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
        let dtype = crate::dtype::DType::promote(x.dtype(), y.dtype());
        let shape = crate::layout::broadcast_shapes(x.shape(), y.shape(), "where")?;
        let shape = crate::layout::broadcast_shapes(cond.shape(), &shape, "where")?;
        let c = cond
            .cast_raw(crate::dtype::DType::Bool)?
            .expand_raw(&shape)?;
        let (x, y) = (
            x.cast_raw(dtype)?.expand_raw(&shape)?,
            y.cast_raw(dtype)?.expand_raw(&shape)?,
        );
        // out = y; out[c] = x   (two contiguous passes, no per-dtype branching)
        let out = y.contiguous_copy()?;
        crate::with_dtype!(dtype, T, {
            let cs = c.storage().read::<bool>();
            let xs = x.storage().read::<T>();
            let mut os = out.storage().write::<T>()?;
            let (co, xo) = (c.layout().offsets()?, x.layout().offsets()?);
            for (i, (ci, xi)) in co.iter().zip(&xo).enumerate() {
                if cs[*ci] {
                    os[i] = xs[*xi];
                }
            }
        });
        Ok(out)
    }
}

fn save_if(rec: &mut Recorder, cond: bool, t: &Tensor) {
    if cond {
        rec.save(t)
    } else {
        rec.save_nothing()
    }
}
