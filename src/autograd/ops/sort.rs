//! Sorting, top-k and selection along a dimension (`sort`, `argsort`, `topk`,
//! `kthvalue`, `median`, `mode`) and `searchsorted`.
//!
//! The kernels find positions; when a graph is needed the values are then a `gather` of
//! the input at those positions, so their gradient (a scatter of the output gradient to
//! the selected positions) and its own derivatives come from `gather`. Without a graph
//! the kernels hand back the values directly.

use crate::autograd::is_grad_enabled;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::sort::{self as kso, Pick};
use crate::layout::normalize_dim;
use crate::tensor::Tensor;

/// The dtype a kernel runs in for input dtype `d` (exact for every real dtype).
fn key_dtype(d: DType, op: &str) -> Result<DType> {
    Ok(match d {
        DType::F64 => DType::F64,
        DType::F32 | DType::F16 | DType::BF16 => DType::F32,
        DType::I64 => DType::I64,
        DType::I32 | DType::I16 | DType::I8 | DType::U8 | DType::Bool => DType::I32,
        _ => {
            return Err(Error::type_err(format!(
                "{op}: {d} tensors have no order; sort a real tensor (e.g. x.abs() or x.real())"
            )))
        }
    })
}

/// `x` cast to `compute` and made contiguous with `dim` moved last (a 0-d `x` becomes
/// one row of one element).
fn rows_of(x: &Tensor, dim: usize, compute: DType) -> Result<Tensor> {
    let moved = if x.ndim() == 0 {
        x.reshape_raw(&[1])?
    } else {
        x.view_with(x.layout().swap_dims(dim, x.ndim() - 1))
    };
    moved.cast_raw(compute)?.contiguous_raw()
}

/// Moves the last dimension of a kernel result back to `dim` (0-d inputs: back to 0-d).
fn unmove(t: Tensor, x: &Tensor, dim: usize) -> Result<Tensor> {
    if x.ndim() == 0 {
        return t.reshape_raw(&[]);
    }
    Ok(t.view_with(t.layout().swap_dims(dim, x.ndim() - 1)))
}

/// Whether the values of `x` need a graph (then they are gathered, not copied).
fn needs_graph(x: &Tensor) -> bool {
    is_grad_enabled() && x.requires_grad() && x.dtype().is_differentiable()
}

/// `x.gather(dim, idx)`, also for a 0-d `x` (and a 0-d `idx`).
fn gather_values(x: &Tensor, dim: usize, idx: &Tensor) -> Result<Tensor> {
    if x.ndim() == 0 {
        let i = idx.reshape_raw(&[1])?;
        return x.reshape(&[1])?.gather(0, &i)?.reshape(&[]);
    }
    x.gather(dim as isize, idx)
}

/// Runs `$body` with `$T` the kernel element type of the contiguous `$xc` (dtype
/// `$compute`, one of f32 / f64 / i32 / i64) and `$s` its elements.
macro_rules! with_keys {
    ($compute:expr, $xc:expr, $T:ident, $s:ident, $body:block) => {{
        let off = $xc.layout().offset;
        let n_el = $xc.numel();
        match $compute {
            DType::F32 => {
                type $T = f32;
                let g = $xc.storage().read::<f32>();
                let $s = &g[off..off + n_el];
                $body
            }
            DType::F64 => {
                type $T = f64;
                let g = $xc.storage().read::<f64>();
                let $s = &g[off..off + n_el];
                $body
            }
            DType::I32 => {
                type $T = i32;
                let g = $xc.storage().read::<i32>();
                let $s = &g[off..off + n_el];
                $body
            }
            _ => {
                type $T = i64;
                let g = $xc.storage().read::<i64>();
                let $s = &g[off..off + n_el];
                $body
            }
        }
    }};
}

impl Tensor {
    /// The `k` smallest (`descending`: largest) elements along `dim` in order, with their
    /// int64 positions; `k = None` sorts the whole dimension. Equal elements keep their
    /// order (stable); NaN counts as the largest value. `want_values = false` skips the
    /// values (argsort).
    pub fn sort_topk(
        &self,
        dim: isize,
        k: Option<usize>,
        descending: bool,
        want_values: bool,
        op: &str,
    ) -> Result<(Option<Tensor>, Tensor)> {
        let d = normalize_dim(dim, self.ndim(), op)?;
        let compute = key_dtype(self.dtype(), op)?;
        let xc = rows_of(self, d, compute)?;
        let n = *xc.shape().last().unwrap_or(&1);
        let k = k.unwrap_or(n);
        if k > n {
            return Err(Error::value(format!(
                "{op}: k = {k} is larger than the size {n} of dimension {dim}"
            )));
        }
        let graph = want_values && needs_graph(self);
        let mut shape = xc.shape_vec();
        if let Some(last) = shape.last_mut() {
            *last = k;
        }
        let (idx, vals) = with_keys!(compute, xc, T, s, {
            let (i, v) = kso::sort_rows::<T>(s, n, k, descending, want_values && !graph, op)?;
            let v = match v {
                Some(v) => Some(Tensor::from_vec(v, &shape)?),
                None => None,
            };
            (i, v)
        });
        let idx = unmove(Tensor::from_vec(idx, &shape)?, self, d)?;
        let values = if graph {
            Some(gather_values(self, d, &idx)?)
        } else {
            match vals {
                Some(v) => Some(unmove(v.cast_raw(self.dtype())?, self, d)?),
                None => None,
            }
        };
        Ok((values, idx))
    }

    /// One element per line along `dim` chosen by `pick` (k-th smallest, median, mode):
    /// `(values, int64 positions)`, with `dim` kept as size 1 when `keepdim`.
    pub fn select_along(
        &self,
        dim: isize,
        pick: Pick,
        keepdim: bool,
        op: &str,
    ) -> Result<(Tensor, Tensor)> {
        let d = normalize_dim(dim, self.ndim(), op)?;
        let compute = key_dtype(self.dtype(), op)?;
        let xc = rows_of(self, d, compute)?;
        let n = *xc.shape().last().unwrap_or(&1);
        if let Pick::Kth(k) = pick {
            if k >= n {
                return Err(Error::value(format!(
                    "{op}: k = {} is out of range for a dimension of size {n} (expected 1 <= k <= {n})",
                    k + 1
                )));
            }
        }
        let graph = needs_graph(self);
        let mut shape = xc.shape_vec();
        if let Some(last) = shape.last_mut() {
            *last = 1;
        }
        let (idx, vals) = with_keys!(compute, xc, T, s, {
            let i = kso::select_rows::<T>(s, n, pick, op)?;
            let v = if graph {
                None
            } else {
                Some(Tensor::from_vec(kso::take_rows(s, n, &i, 1)?, &shape)?)
            };
            (i, v)
        });
        let idx = unmove(Tensor::from_vec(idx, &shape)?, self, d)?;
        let values = if graph {
            gather_values(self, d, &idx)?
        } else {
            unmove(vals.expect("values").cast_raw(self.dtype())?, self, d)?
        };
        if keepdim || self.ndim() == 0 {
            return Ok((values, idx));
        }
        let dims = [d as isize];
        Ok((
            values.squeeze(Some(&dims[..]))?,
            idx.reshape_raw(&without(idx.shape(), d))?,
        ))
    }

    /// For every element of `values`, its insertion point in `self` (sorted along the
    /// last dimension): the first position whose element is `>=` it (`right`: `>`).
    /// `self` is 1-D (shared by all values) or has the values' leading dimensions.
    pub fn searchsorted(&self, values: &Tensor, right: bool) -> Result<Tensor> {
        let op = "searchsorted";
        let common = DType::promote(self.dtype(), values.dtype());
        let compute = key_dtype(common, op)?;
        let n = *self.shape().last().unwrap_or(&1);
        let shared = self.ndim() <= 1;
        if !shared
            && (values.ndim() != self.ndim()
                || values.shape()[..values.ndim() - 1] != self.shape()[..self.ndim() - 1])
        {
            return Err(Error::value(format!(
                "{op}: the sorted sequence has shape {:?} and the values {:?}; all but the \
                 last dimension must match (or pass a 1-D sorted sequence)",
                self.shape(),
                values.shape()
            )));
        }
        let seq = self.cast_raw(compute)?.contiguous_raw()?;
        let vals = values.cast_raw(compute)?.contiguous_raw()?;
        let rows = if shared { 1 } else { self.numel() / n.max(1) };
        let (off_v, nv) = (vals.layout().offset, vals.numel());
        let out = with_keys!(compute, seq, T, s, {
            let g = vals.storage().read::<T>();
            kso::search_sorted::<T>(s, n, &g[off_v..off_v + nv], rows, right)?
        });
        Tensor::from_vec(out, values.shape())
    }
}

/// `shape` without dimension `d`.
fn without(shape: &[usize], d: usize) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != d)
        .map(|(_, &s)| s)
        .collect()
}
