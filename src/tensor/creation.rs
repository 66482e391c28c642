//! Factory functions and the seeded random generator.

use super::Tensor;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::{checked_numel, Layout};
use crate::storage::{try_filled_vec, Storage};
use num_complex::Complex64;
use parking_lot::Mutex;
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
    let n = ((end - start) / step).ceil().max(0.0);
    if n > (isize::MAX as f64) {
        return Err(Error::memory(format!(
            "arange: {n} elements do not fit in memory"
        )));
    }
    let n = n as usize;
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

/// xoshiro256** state behind `ferrograd.seed`.
struct Rng([u64; 4]);

impl Rng {
    fn from_seed(seed: u64) -> Rng {
        // splitmix64 expands the seed into four non-zero words
        let mut z = seed;
        let mut s = [0u64; 4];
        for w in &mut s {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            *w = x ^ (x >> 31);
        }
        Rng(s)
    }
    fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }
    /// Uniform in [0, 1) with 53 random bits.
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

static RNG: Mutex<Option<Rng>> = Mutex::new(None);

/// Seeds the global generator used by `rand`, `randn`, `randint` (and dropout).
pub fn manual_seed(seed: u64) {
    *RNG.lock() = Some(Rng::from_seed(seed));
}

/// The generator's current state (four xoshiro256** words), to restore it later with
/// [`set_rng_state`] (activation checkpointing replays dropout masks this way).
pub fn rng_state() -> [u64; 4] {
    with_rng(|r| r.0)
}

/// Restores a state returned by [`rng_state`]; the all-zero state (from which xoshiro
/// never leaves) is rejected.
pub fn set_rng_state(state: [u64; 4]) -> Result<()> {
    if state == [0; 4] {
        return Err(crate::error::Error::value(
            "set_rng_state: the all-zero state is not a valid generator state; pass a state \
             returned by get_rng_state()",
        ));
    }
    *RNG.lock() = Some(Rng(state));
    Ok(())
}

fn with_rng<R>(f: impl FnOnce(&mut Rng) -> R) -> R {
    let mut g = RNG.lock();
    let rng = g.get_or_insert_with(|| Rng::from_seed(0x5EED_F3E2_06AD_0001));
    f(rng)
}

/// Uniform samples in `[0, 1)`.
pub fn rand(shape: &[usize], dtype: DType) -> Result<Tensor> {
    let n = checked_numel(shape)?;
    let mut v = crate::storage::try_vec_with_capacity::<f64>(n)?;
    with_rng(|r| v.extend((0..n).map(|_| r.uniform())));
    from_f64_vec(v, shape, dtype)
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
