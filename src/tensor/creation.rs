//! Factory functions and the seeded random generator.

use super::Tensor;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::{checked_numel, Layout};
use crate::storage::{try_filled_vec, Storage};
use num_complex::Complex64;
use std::sync::Arc;

/// A tensor of `shape` filled with `value` (complex; real dtypes take the real part).
pub fn full_complex(shape: &[usize], value: Complex64, dtype: DType) -> Result<Tensor> {
    let n = checked_numel(shape)?;
    let storage = crate::with_dtype!(dtype, T, {
        Storage::from_vec(try_filled_vec(n, T::from_c128(value))?)
    });
    Ok(Tensor::from_parts(
        Arc::new(storage),
        Layout::contiguous(shape),
    ))
}

/// A tensor of `shape` filled with `value`.
pub fn full(shape: &[usize], value: f64, dtype: DType) -> Result<Tensor> {
    full_complex(shape, Complex64::new(value, 0.0), dtype)
}

/// Zeros.
pub fn zeros(shape: &[usize], dtype: DType) -> Result<Tensor> {
    let n = checked_numel(shape)?;
    Ok(Tensor::from_parts(
        Arc::new(Storage::zeros(dtype, n)?),
        Layout::contiguous(shape),
    ))
}

/// Ones.
pub fn ones(shape: &[usize], dtype: DType) -> Result<Tensor> {
    full(shape, 1.0, dtype)
}

/// Values `start, start+step, ...` below `end` (above, for a negative step).
pub fn arange(start: f64, end: f64, step: f64, dtype: DType) -> Result<Tensor> {
    if step == 0.0 || !step.is_finite() || !start.is_finite() || !end.is_finite() {
        return Err(Error::value(format!(
            "arange: step must be finite and non-zero and the bounds finite (got start={start}, \
             end={end}, step={step})"
        )));
    }
    if (end - start) * step < 0.0 {
        // both peers refuse it (NumPy gives an empty array)
        return Err(Error::value(format!(
            "arange: upper bound and lower bound inconsistent with step sign (start={start}, \
             end={end}, step={step}); use a {} step",
            if step > 0.0 { "negative" } else { "positive" }
        )));
    }
    let n = ((end - start) / step).ceil().max(0.0);
    if n > (isize::MAX as f64) {
        return Err(Error::memory(format!(
            "arange: {n} elements do not fit in memory"
        )));
    }
    let n = n as usize;
    // an integer dtype takes start and step as integers first (PyTorch's rule:
    // arange(0, 2.5, 0.5, dtype=int64) is five zeros), the length from the given values
    let (start, step) = match dtype.is_float() || dtype.is_complex() {
        true => (start, step),
        false => (start.trunc(), step.trunc()),
    };
    let mut v = crate::storage::try_vec_with_capacity::<f64>(n)?;
    v.extend((0..n).map(|i| start + i as f64 * step));
    from_f64_vec(v, &[n], dtype)
}

/// `num` evenly spaced values from `start` to `end` inclusive.
pub fn linspace(start: f64, end: f64, num: usize, dtype: DType) -> Result<Tensor> {
    let mut v = crate::storage::try_vec_with_capacity::<f64>(num)?;
    if num == 1 {
        v.push(start);
    } else if num > 1 {
        let step = (end - start) / (num - 1) as f64;
        v.extend((0..num).map(|i| {
            if i == num - 1 {
                end
            } else {
                start + i as f64 * step
            }
        }));
    }
    from_f64_vec(v, &[num], dtype)
}

/// An `n x m` matrix with ones on the diagonal.
pub fn eye(n: usize, m: usize, dtype: DType) -> Result<Tensor> {
    let t = zeros(&[n, m], dtype)?;
    crate::with_dtype!(dtype, T, {
        let mut w = t.storage().write::<T>()?;
        for i in 0..n.min(m) {
            w[i * m + i] = T::one();
        }
    });
    Ok(t)
}

/// Converts f64 values into a tensor of `dtype`.
pub fn from_f64_vec(v: Vec<f64>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    crate::with_dtype!(dtype, T, {
        let mut out = crate::storage::try_vec_with_capacity::<T>(v.len())?;
        out.extend(v.into_iter().map(T::from_f64));
        Tensor::from_vec(out, shape)
    })
}

use super::random::DEFAULT_GENERATOR;

/// Seeds the global generator used by `rand`, `randn`, `randint` (and dropout).
pub fn manual_seed(seed: u64) {
    DEFAULT_GENERATOR.manual_seed(seed);
}

/// The generator's current state (four xoshiro256** words), to restore it later with
/// [`set_rng_state`] (activation checkpointing replays dropout masks this way).
pub fn rng_state() -> [u64; 4] {
    let s = DEFAULT_GENERATOR.state();
    [s[0], s[1], s[2], s[3]]
}

/// Restores a state returned by [`rng_state`]; the all-zero state (from which xoshiro
/// never leaves) is rejected.
pub fn set_rng_state(state: [u64; 4]) -> Result<()> {
    DEFAULT_GENERATOR.set_state(&state)
}

fn with_rng<R>(f: impl FnOnce(&mut super::random::Rng) -> R) -> R {
    DEFAULT_GENERATOR.with(f)
}

/// Uniform samples in `[0, 1)` (from the default generator).
pub fn rand(shape: &[usize], dtype: DType) -> Result<Tensor> {
    super::random::uniform(shape, 0.0, 1.0, dtype, None)
}

/// Standard normal samples.
pub fn randn(shape: &[usize], dtype: DType) -> Result<Tensor> {
    let n = checked_numel(shape)?;
    let mut v = crate::storage::try_vec_with_capacity::<f64>(n)?;
    with_rng(|r| v.extend((0..n).map(|_| r.normal())));
    from_f64_vec(v, shape, dtype)
}

/// Integers uniform in `[low, high)`.
pub fn randint(low: i64, high: i64, shape: &[usize], dtype: DType) -> Result<Tensor> {
    if high <= low {
        return Err(Error::value(format!(
            "randint: high ({high}) must be greater than low ({low})"
        )));
    }
    let n = checked_numel(shape)?;
    let span = (high - low) as u64;
    let mut v = crate::storage::try_vec_with_capacity::<f64>(n)?;
    with_rng(|r| v.extend((0..n).map(|_| (low + (r.next_u64() % span) as i64) as f64)));
    from_f64_vec(v, shape, dtype)
}

/// Bernoulli keep-mask (1 with probability `p_keep`) used by dropout.
pub fn bernoulli(shape: &[usize], p_keep: f64, dtype: DType) -> Result<Tensor> {
    let n = checked_numel(shape)?;
    let mut v = crate::storage::try_vec_with_capacity::<f64>(n)?;
    with_rng(|r| v.extend((0..n).map(|_| if r.uniform() < p_keep { 1.0 } else { 0.0 })));
    from_f64_vec(v, shape, dtype)
}

impl Tensor {
    /// Zeros with this tensor's shape and dtype.
    pub fn zeros_like(&self) -> Result<Tensor> {
        zeros(self.shape(), self.dtype())
    }
    /// Ones with this tensor's shape and dtype.
    pub fn ones_like(&self) -> Result<Tensor> {
        ones(self.shape(), self.dtype())
    }
    /// A 0-d tensor of this tensor's dtype holding `v`.
    pub fn scalar_like(&self, v: f64) -> Tensor {
        crate::with_dtype!(self.dtype(), T, { Tensor::scalar(T::from_f64(v)) }).mark_constant()
    }
}
