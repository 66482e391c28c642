//! Scans with their gradients: `cumsum`, `cumprod`, `logcumsumexp`, `cummax` / `cummin`.
//!
//! Every backward formula is written with differentiable ops (reverse scans, `where`,
//! `gather`), so second derivatives are exact too:
//! - cumsum: the gradient is the reverse cumsum of the output gradient;
//! - cumprod: `revcumsum(g * y) / x` before a line's first zero, the reverse cumsum of
//!   `g * cumprod(x with that zero set to 1)` at it, and 0 after it (exact with zeros);
//! - logcumsumexp: PyTorch's signed log-space formula (no overflow, no 0 * inf);
//! - cummax / cummin: the values are a `gather` of the input at the indices.

use super::saved;
use crate::autograd::{is_grad_enabled, Recorder};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::scan::{self as ks, Accum, Lines};
use crate::kernels::scan_blocked::{self as kb, SumElem};
use crate::layout::normalize_dim;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};
use smallvec::smallvec;

/// Which accumulation a raw scan runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scan {
    Sum,
    Prod,
    LogSumExp,
}

impl Scan {
    fn name(self) -> &'static str {
        match self {
            Scan::Sum => "cumsum",
            Scan::Prod => "cumprod",
            Scan::LogSumExp => "logcumsumexp",
        }
    }
}

/// Runs one accumulation over a contiguous tensor of element type `T`.
fn run<T, F>(x: &Tensor, lines: Lines, reverse: bool, op: &F) -> Result<Tensor>
where
    T: crate::dtype::Element,
    F: Accum<T>,
{
    let off = x.layout().offset;
    let data = {
        let g = x.storage().read::<T>();
        ks::scan(&g[off..off + x.numel()], lines, reverse, op)?
    };
    Tensor::from_vec(data, x.shape())
}

/// The cumulative sum of a contiguous tensor of element type `T` (blocked on long lines).
fn run_sum<T>(x: &Tensor, lines: Lines, reverse: bool) -> Result<Tensor>
where
    T: crate::dtype::Element + SumElem,
{
    let off = x.layout().offset;
    let data = {
        let g = x.storage().read::<T>();
        kb::cumsum(&g[off..off + x.numel()], lines, reverse)?
    };
    Tensor::from_vec(data, x.shape())
}

/// The scan `kind` of `x` along `dim` (no graph). Integers and bool sum / multiply in
/// int64; half types compute in float32 and round back; logcumsumexp of integers gives
/// float32.
fn scan_raw(x: &Tensor, dim: usize, kind: Scan, reverse: bool) -> Result<Tensor> {
    let d = x.dtype();
    if d.is_complex() {
        return Err(Error::type_err(format!(
            "{}: complex tensors are not supported; scan the real and imaginary parts",
            kind.name()
        )));
    }
    let compute = match (kind, d) {
        (Scan::LogSumExp, DType::F64) => DType::F64,
        (Scan::LogSumExp, _) => DType::F32,
        (_, d) if d == DType::Bool || d.is_int() => DType::I64,
        (_, DType::F64) => DType::F64,
        _ => DType::F32,
    };
    let out_dtype = if d.is_half() { d } else { compute };
    let xc = x.cast_raw(compute)?.contiguous_raw()?;
    let lines = Lines::of(x.shape(), dim);
    let out = match (compute, kind) {
        (DType::I64, Scan::Sum) => run_sum::<i64>(&xc, lines, reverse)?,
        (DType::I64, _) => run::<i64, _>(&xc, lines, reverse, &ks::CumProd)?,
        (DType::F32, Scan::Sum) => run_sum::<f32>(&xc, lines, reverse)?,
        (DType::F32, Scan::Prod) => run::<f32, _>(&xc, lines, reverse, &ks::CumProd)?,
        (DType::F32, _) => run::<f32, _>(&xc, lines, reverse, &ks::LogCumSumExp)?,
        (_, Scan::Sum) => run_sum::<f64>(&xc, lines, reverse)?,
        (_, Scan::Prod) => run::<f64, _>(&xc, lines, reverse, &ks::CumProd)?,
        (_, Scan::LogSumExp) => run::<f64, _>(&xc, lines, reverse, &ks::LogCumSumExp)?,
    };
    out.cast_raw(out_dtype)
}

/// `x` flattened to 1-D when `dim` is None (Paddle's `axis=None`), with the dim to scan.
fn resolve(x: &Tensor, dim: Option<isize>, op: &str) -> Result<(Tensor, usize)> {
    match dim {
        None => Ok((x.reshape(&[-1])?, 0)),
        Some(d) => Ok((x.clone(), normalize_dim(d, x.ndim(), op)?)),
    }
}

/// `x` cast to `dtype` first when one is given (the peers' `dtype=` argument).
fn with_dtype(x: &Tensor, dtype: Option<DType>) -> Result<Tensor> {
    match dtype {
        Some(d) if d != x.dtype() => x.to_dtype(d),
        _ => Ok(x.clone()),
    }
}

/// `out` in the asked `dtype` (an integer scan's int64 result narrowed; wrapping as the
/// narrow type's arithmetic would).
fn narrow_to(out: Tensor, dtype: Option<DType>) -> Result<Tensor> {
    match dtype {
        Some(d) if d != out.dtype() => out.to_dtype(d),
        _ => Ok(out),
    }
}

impl Tensor {
    /// Cumulative sum along `dim` (None: of the flattened tensor), after casting to
    /// `dtype` when given. Integer and bool inputs sum in int64; an explicit integer or
    /// bool `dtype` is the result's, as both peers' (narrowed from int64: the same bits
    /// as accumulating in it).
    pub fn cumsum(&self, dim: Option<isize>, dtype: Option<DType>) -> Result<Tensor> {
        let (x, d) = resolve(&with_dtype(self, dtype)?, dim, "cumsum")?;
        narrow_to(x.cumsum_dir(d, false)?, dtype)
    }

    /// Cumulative sum along `dim` from the start, or from the end when `reverse`.
    pub fn cumsum_dir(&self, dim: usize, reverse: bool) -> Result<Tensor> {
        let out = scan_raw(self, dim, Scan::Sum, reverse)?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        if let Some(rec) = Recorder::begin(&[self]) {
            let name = if reverse {
                "RevCumsumBackward"
            } else {
                "CumsumBackward"
            };
            rec.finish(name, &out, move |g, _, _| {
                Ok(smallvec![Some(g.cumsum_dir(dim, !reverse)?)])
            })?;
        }
        Ok(out)
    }

    /// Cumulative product along `dim` (None: flattened), after casting to `dtype` when
    /// given; the gradient is exact where the input holds zeros.
    pub fn cumprod(&self, dim: Option<isize>, dtype: Option<DType>) -> Result<Tensor> {
        let (x, d) = resolve(&with_dtype(self, dtype)?, dim, "cumprod")?;
        narrow_to(x.cumprod_dim(d)?, dtype)
    }

    /// Cumulative product along the normalised `dim`.
    fn cumprod_dim(&self, dim: usize) -> Result<Tensor> {
        let out = scan_raw(self, dim, Scan::Prod, false)?;
        if !out.dtype().is_differentiable() {
            return Ok(out);
        }
        if let Some(mut rec) = Recorder::begin(&[self]) {
            rec.save(self);
            rec.save_output();
            rec.finish("CumprodBackward", &out, move |g, s, _| {
                let x = saved(s, 0, "CumprodBackward")?;
                let y = saved(s, 1, "CumprodBackward")?;
                Ok(smallvec![Some(cumprod_grad(g, x, y, dim)?)])
            })?;
        }
        Ok(out)
    }

    /// `log(cumsum(exp(x)))` along `dim` (None: flattened), computed without overflow.
    pub fn logcumsumexp(&self, dim: Option<isize>, dtype: Option<DType>) -> Result<Tensor> {
        let (x, d) = resolve(&with_dtype(self, dtype)?, dim, "logcumsumexp")?;
        x.logcumsumexp_dir(d, false)
    }

    /// `logcumsumexp` along `dim` from the start, or from the end when `reverse`.
    fn logcumsumexp_dir(&self, dim: usize, reverse: bool) -> Result<Tensor> {
        let out = scan_raw(self, dim, Scan::LogSumExp, reverse)?;
        if let Some(mut rec) = Recorder::begin(&[self]) {
            rec.save(self);
            rec.save_output();
            rec.finish("LogcumsumexpBackward", &out, move |g, s, _| {
                let x = saved(s, 0, "LogcumsumexpBackward")?;
                let y = saved(s, 1, "LogcumsumexpBackward")?;
                Ok(smallvec![Some(logcumsumexp_grad(g, x, y, dim, reverse)?)])
            })?;
        }
        Ok(out)
    }

    /// Running maximum (`is_max`) or minimum along `dim` (None: flattened):
    /// `(values, int64 indices)`; ties take the later index, a NaN propagates.
    pub fn cum_extreme(&self, dim: Option<isize>, is_max: bool) -> Result<(Tensor, Tensor)> {
        let op = if is_max { "cummax" } else { "cummin" };
        let (x, d) = resolve(self, dim, op)?;
        let compute = match x.dtype() {
            DType::F64 => DType::F64,
            DType::I64 => DType::I64,
            DType::I32 | DType::I16 | DType::I8 | DType::U8 | DType::Bool => DType::I32,
            d if d.is_complex() => {
                return Err(Error::type_err(format!(
                    "{op}: complex tensors have no order"
                )))
            }
            _ => DType::F32,
        };
        let xc = x.cast_raw(compute)?.contiguous_raw()?;
        let lines = Lines::of(x.shape(), d);
        let (vals, idx) = cum_extreme_typed(&xc, compute, lines, is_max)?;
        let idx = Tensor::from_vec(idx, x.shape())?;
        let needs_graph = is_grad_enabled() && x.requires_grad();
        let values = if needs_graph && x.dtype().is_differentiable() {
            if x.ndim() == 0 {
                x.reshape(&[1])?
                    .gather(0, &idx.reshape_raw(&[1])?)?
                    .reshape(&[])?
            } else {
                x.gather(d as isize, &idx)?
            }
        } else {
            vals.cast_raw(x.dtype())?
        };
        Ok((values, idx))
    }
}

/// [`ks::cum_extreme`] over the contiguous `xc` of dtype `compute` (f32, f64, i32 or
/// i64): the values as a tensor of `xc`'s shape, and the indices.
fn cum_extreme_typed(
    xc: &Tensor,
    compute: DType,
    lines: Lines,
    is_max: bool,
) -> Result<(Tensor, Vec<i64>)> {
    let (off, n) = (xc.layout().offset, xc.numel());
    macro_rules! go {
        ($t:ty) => {{
            let g = xc.storage().read::<$t>();
            let (v, i) = ks::cum_extreme(&g[off..off + n], lines, is_max)?;
            (Tensor::from_vec(v, xc.shape())?, i)
        }};
    }
    Ok(match compute {
        DType::F32 => go!(f32),
        DType::F64 => go!(f64),
        DType::I32 => go!(i32),
        _ => go!(i64),
    })
}

/// The gradient of `y = cumprod(x)` along `dim` for output gradient `g` (see the module
/// doc; exact with zeros and differentiable again).
fn cumprod_grad(g: &Tensor, x: &Tensor, y: &Tensor, dim: usize) -> Result<Tensor> {
    if x.shape().get(dim).copied().unwrap_or(1) <= 1 {
        // lines of one element: y = x, so the gradient is g (PyTorch's shortcut); the
        // formula below divides by x, and so would its derivative (2e83 at x = 1e-100)
        return Ok(g.clone());
    }
    let xd = x.detach();
    let is_zero = xd.binary_raw(&xd.scalar_like(0.0), BinaryOp::Eq)?;
    let zeros_so_far = scan_raw(&is_zero, dim, Scan::Sum, false)?;
    let before = zeros_so_far.binary_raw(&zeros_so_far.scalar_like(0.0), BinaryOp::Eq)?;
    let gy = g.mul(y)?.cumsum_dir(dim, true)?;
    let any_zero = is_zero.all_any(None, false, false)?.item_f64()? != 0.0;
    if !any_zero {
        return gy.div(x);
    }
    if is_grad_enabled() && x.ndim() > 0 {
        // a graph of this gradient is being built: the formula below is exact in value,
        // but its 0 after a line's first zero hides the derivative in that zero
        return cumprod_grad_quadratic(g, x, dim);
    }
    let one = x.ones_like()?;
    let x_safe = Tensor::where_(&before, x, &one)?;
    let part_before = gy.div(&x_safe)?;
    let first_one = zeros_so_far.binary_raw(&zeros_so_far.scalar_like(1.0), BinaryOp::Eq)?;
    let at = first_one.binary_raw(&is_zero, BinaryOp::LogicalAnd)?;
    let x_one = Tensor::where_(&at, &one, x)?;
    let part_at = g.mul(&x_one.cumprod_dim(dim)?)?.cumsum_dir(dim, true)?;
    let zero = part_at.zeros_like()?;
    Tensor::where_(
        &before,
        &part_before,
        &Tensor::where_(&at, &part_at, &zero)?,
    )
}

/// The gradient of `cumprod(x)` along `dim` as `sum_{j >= i} g_j prod_{k <= j, k != i}
/// x_k`, built from an `[.., n, n]` block per line (row `i` is the line with `x_i` set to
/// 1): exact at zeros to every order, at `n` times the memory. Used only when the input
/// holds zeros and the gradient itself is differentiated (as PyTorch does).
fn cumprod_grad_quadratic(g: &Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
    let d = dim as isize;
    let xt = x.transpose(d, -1)?;
    let gt = g.transpose(d, -1)?;
    let n = *xt.shape().last().unwrap_or(&1);
    let eye = crate::tensor::eye(n, n, DType::Bool)?;
    let rows = Tensor::where_(&eye, &xt.scalar_like(1.0), &xt.unsqueeze(-2)?)?; // [.., i, k]
    let partial = rows.cumprod_dim(rows.ndim() - 1)?; // [.., i, j]
    let upper: Vec<bool> = (0..n * n).map(|p| p % n >= p / n).collect(); // j >= i
    let upper = Tensor::from_vec(upper, &[n, n])?;
    let terms = gt.unsqueeze(-2)?.mul(&partial)?;
    let zero = terms.scalar_like(0.0);
    Tensor::where_(&upper, &terms, &zero)?
        .sum(Some(&[-1]), false)?
        .transpose(d, -1)
}

/// The gradient of `y = logcumsumexp(x)` (scanned in direction `reverse`) for output
/// gradient `g`: `sum_{j >= i} g_j exp(x_i - y_j)`, split by the sign of `g` and summed
/// in log space by a scan in the opposite direction.
fn logcumsumexp_grad(
    g: &Tensor,
    x: &Tensor,
    y: &Tensor,
    dim: usize,
    reverse: bool,
) -> Result<Tensor> {
    let lowest = if g.dtype() == DType::F64 {
        f64::MIN
    } else {
        f32::MIN as f64
    };
    let low = g.scalar_like(lowest);
    let zero = g.scalar_like(0.0);
    let gd = g.detach();
    let pos_mask = gd.binary_raw(&zero, BinaryOp::Gt)?;
    let neg_mask = gd.binary_raw(&zero, BinaryOp::Lt)?;
    let nonzero = gd.binary_raw(&zero, BinaryOp::Ne)?;
    // log|g| with 1 in place of 0, so that no derivative of log meets a zero
    let log_abs =
        Tensor::where_(&nonzero, &g.unary(UnaryOp::Abs)?, &g.ones_like()?)?.unary(UnaryOp::Log)?;
    let part = |mask: &Tensor| -> Result<Tensor> {
        Tensor::where_(mask, &log_abs, &low)?
            .sub(y)?
            .logcumsumexp_dir(dim, !reverse)?
            .add(x)?
            .unary(UnaryOp::Exp)
    };
    part(&pos_mask)?.sub(&part(&neg_mask)?)
}
