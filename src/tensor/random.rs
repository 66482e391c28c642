//! Random number generators and the samplers that draw from them.
//!
//! A [`Generator`] is a xoshiro256** state behind a mutex, seeded through splitmix64 (the
//! seeding its authors recommend). [`DEFAULT_GENERATOR`] is the process-wide one behind
//! `ferrograd.seed` / `manual_seed`, `rand`, `randn`, `randint` and dropout; Python's
//! `ferrograd.Generator()` objects are further, independent instances. Every sampler takes
//! an optional generator (`None`: the default one) and holds its lock for the whole draw,
//! so a draw's values are a contiguous stretch of that generator's stream and a seed
//! reproduces them exactly.

use super::Tensor;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::storage::try_vec_with_capacity;
use parking_lot::Mutex;

/// xoshiro256** state (four words, never all zero).
#[derive(Clone, Copy, Debug)]
pub struct Rng([u64; 4]);

impl Rng {
    /// The state splitmix64 expands `seed` into (four non-zero words).
    pub const fn from_seed(seed: u64) -> Rng {
        let mut z = seed;
        let mut s = [0u64; 4];
        let mut i = 0;
        while i < 4 {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            s[i] = x ^ (x >> 31);
            i += 1;
        }
        Rng(s)
    }
    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
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
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Standard normal (Box-Muller, the cosine half).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
    /// Uniform integer in `[0, span)` (`span > 0`); the modulo bias is below 2^-40 for
    /// any span under 2^24 and never above `span / 2^64`.
    #[inline]
    pub fn below(&mut self, span: u64) -> u64 {
        self.next_u64() % span
    }
}

/// The seed the default generator starts from when nobody seeds it.
pub const DEFAULT_SEED: u64 = 0x5EED_F3E2_06AD_0001;

#[derive(Clone, Copy, Debug)]
struct GenState {
    rng: Rng,
    initial_seed: u64,
}

/// A random generator: a xoshiro256** stream plus the seed it was last seeded with.
#[derive(Debug)]
pub struct Generator {
    state: Mutex<GenState>,
}

/// The process-wide generator (`ferrograd.default_generator`).
pub static DEFAULT_GENERATOR: Generator = Generator::new(DEFAULT_SEED);

impl Generator {
    /// A generator seeded with `seed`.
    pub const fn new(seed: u64) -> Generator {
        Generator {
            state: Mutex::new(GenState {
                rng: Rng::from_seed(seed),
                initial_seed: seed,
            }),
        }
    }
    /// Restarts the stream from `seed`.
    pub fn manual_seed(&self, seed: u64) {
        *self.state.lock() = GenState {
            rng: Rng::from_seed(seed),
            initial_seed: seed,
        };
    }
    /// The seed last given to [`Generator::manual_seed`] (or at creation).
    pub fn initial_seed(&self) -> u64 {
        self.state.lock().initial_seed
    }
    /// The four state words followed by the initial seed, for [`Generator::set_state`].
    pub fn state(&self) -> [u64; 5] {
        let s = *self.state.lock();
        [
            s.rng.0[0],
            s.rng.0[1],
            s.rng.0[2],
            s.rng.0[3],
            s.initial_seed,
        ]
    }
    /// Restores a state from [`Generator::state`]; without the fifth word the initial
    /// seed is kept. The all-zero state (from which xoshiro never leaves) is rejected.
    pub fn set_state(&self, words: &[u64]) -> Result<()> {
        if words.len() != 4 && words.len() != 5 {
            return Err(Error::value(format!(
                "set_state: a generator state has 5 words (4 of state and the seed), got {}; \
                 pass a state returned by get_state() / get_rng_state()",
                words.len()
            )));
        }
        if words[..4] == [0; 4] {
            return Err(Error::value(
                "set_state: the all-zero state is not a valid generator state; pass a state \
                 returned by get_state() / get_rng_state()",
            ));
        }
        let mut g = self.state.lock();
        g.rng = Rng([words[0], words[1], words[2], words[3]]);
        if let Some(&seed) = words.get(4) {
            g.initial_seed = seed;
        }
        Ok(())
    }
    /// Runs `f` with the stream locked (one draw's values stay contiguous).
    pub fn with<R>(&self, f: impl FnOnce(&mut Rng) -> R) -> R {
        f(&mut self.state.lock().rng)
    }
}

/// `g`, or the default generator.
pub fn resolve(g: Option<&Generator>) -> &Generator {
    g.unwrap_or(&DEFAULT_GENERATOR)
}

fn float_only(op: &str, dtype: DType) -> Result<()> {
    if dtype.is_float() {
        Ok(())
    } else {
        Err(Error::type_err(format!(
            "{op}: dtype must be floating (float16, bfloat16, float32 or float64), got {dtype}"
        )))
    }
}

/// Fills a new tensor of `shape` and `dtype` with `draw(rng)` (converted from f64).
fn sample(
    shape: &[usize],
    dtype: DType,
    g: Option<&Generator>,
    mut draw: impl FnMut(&mut Rng) -> f64,
) -> Result<Tensor> {
    let n = checked_numel(shape)?;
    crate::with_dtype!(dtype, T, {
        let mut v = try_vec_with_capacity::<T>(n)?;
        resolve(g).with(|r| v.extend((0..n).map(|_| T::from_f64(draw(r)))));
        Tensor::from_vec(v, shape)
    })
}

/// Uniform samples in `[low, high)` of a floating `dtype` (complex: each part). A value
/// that rounds up to `high` in a narrow dtype is drawn again, so `high` itself never
/// occurs.
pub fn uniform(
    shape: &[usize],
    low: f64,
    high: f64,
    dtype: DType,
    g: Option<&Generator>,
) -> Result<Tensor> {
    if !(low.is_finite() && high.is_finite() && low <= high) {
        return Err(Error::value(format!(
            "uniform: expects finite bounds with low <= high, got low={low}, high={high}"
        )));
    }
    if dtype.is_complex() {
        // PyTorch's complex uniform: the real and imaginary parts each in [low, high)
        let re = uniform(shape, low, high, dtype.to_real(), g)?;
        let im = uniform(shape, low, high, dtype.to_real(), g)?;
        return Tensor::complex_raw(&re, &im);
    }
    float_only("uniform", dtype)?;
    let n = checked_numel(shape)?;
    crate::with_dtype!(dtype, T, {
        let mut v = try_vec_with_capacity::<T>(n)?;
        let span = high - low;
        resolve(g).with(|r| {
            v.extend((0..n).map(|_| loop {
                let x = T::from_f64(low + span * r.uniform());
                if x.to_f64() < high || low == high {
                    break x;
                }
            }))
        });
        Tensor::from_vec(v, shape)
    })
}

/// Normal samples with `mean` and standard deviation `std` (>= 0); complex: PyTorch's
/// complex normal (each part with `std / sqrt(2)`).
pub fn normal(
    shape: &[usize],
    mean: f64,
    std: f64,
    dtype: DType,
    g: Option<&Generator>,
) -> Result<Tensor> {
    if !(std >= 0.0 && std.is_finite() && mean.is_finite()) {
        return Err(Error::value(format!(
            "normal: expects a finite mean and a finite std >= 0, got mean={mean}, std={std}"
        )));
    }
    if dtype.is_complex() {
        // PyTorch's complex normal: each part normal with std / sqrt(2), so that
        // E|z - mean|^2 = std^2 (the mean goes to the real part)
        let part = std / std::f64::consts::SQRT_2;
        let re = normal(shape, mean, part, dtype.to_real(), g)?;
        let im = normal(shape, 0.0, part, dtype.to_real(), g)?;
        return Tensor::complex_raw(&re, &im);
    }
    float_only("normal", dtype)?;
    if mean == 0.0 && std == 1.0 {
        return sample(shape, dtype, g, |r| r.normal());
    }
    sample(shape, dtype, g, |r| mean + std * r.normal())
}

/// Exponential samples with rate `lambd` (> 0): `-ln(1 - u) / lambd`.
pub fn exponential(
    shape: &[usize],
    lambd: f64,
    dtype: DType,
    g: Option<&Generator>,
) -> Result<Tensor> {
    float_only("exponential_", dtype)?;
    if !(lambd > 0.0 && lambd.is_finite()) {
        return Err(Error::value(format!(
            "exponential_: expects a finite rate lambd > 0, got {lambd}"
        )));
    }
    sample(shape, dtype, g, |r| -(1.0 - r.uniform()).ln() / lambd)
}

/// Integers uniform in `[low, high)`, stored as `dtype`.
pub fn randint_with(
    low: i64,
    high: i64,
    shape: &[usize],
    dtype: DType,
    g: Option<&Generator>,
) -> Result<Tensor> {
    if high <= low {
        return Err(Error::value(format!(
            "randint: high ({high}) must be greater than low ({low})"
        )));
    }
    if dtype.is_complex() {
        return Err(Error::type_err(format!(
            "randint: dtype must be an integer or floating dtype, got {dtype}"
        )));
    }
    if let Some((lo, hi)) = int_range(dtype) {
        if low < lo || high - 1 > hi {
            return Err(Error::value(format!(
                "randint: the range [{low}, {high}) does not fit in {dtype}, which holds \
                 {lo}..={hi}; use a wider dtype or a smaller range"
            )));
        }
    }
    // the span of any i64 range fits in u64
    let span = (i128::from(high) - i128::from(low)) as u64;
    let n = checked_numel(shape)?;
    crate::with_dtype!(dtype, T, {
        let mut v = try_vec_with_capacity::<T>(n)?;
        // through i64, not f64: int64 values above 2^53 keep their low bits
        resolve(g).with(|r| {
            v.extend(
                (0..n).map(|_| T::from_i64((i128::from(low) + i128::from(r.below(span))) as i64)),
            )
        });
        Tensor::from_vec(v, shape)
    })
}

/// The smallest and largest value of an integer (or bool) dtype narrower than int64.
fn int_range(dtype: DType) -> Option<(i64, i64)> {
    Some(match dtype {
        DType::Bool => (0, 1),
        DType::U8 => (0, u8::MAX.into()),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => return None,
    })
}

/// 0/1 samples, 1 with probability `p[i]` (each in `[0, 1]`), of `p`'s shape and dtype.
pub fn bernoulli_tensor(p: &Tensor, g: Option<&Generator>) -> Result<Tensor> {
    let dtype = p.dtype();
    if dtype.is_complex() {
        return Err(Error::type_err(
            "bernoulli: the probabilities must be a real tensor, got a complex one",
        ));
    }
    let probs = p.cast_raw(DType::F64)?.to_vec::<f64>()?;
    if let Some(bad) = probs.iter().find(|q| !(0.0..=1.0).contains(*q)) {
        return Err(Error::value(format!(
            "bernoulli: every probability must be in [0, 1], found {bad}"
        )));
    }
    let n = probs.len();
    crate::with_dtype!(dtype, T, {
        let mut v = try_vec_with_capacity::<T>(n)?;
        resolve(g).with(|r| {
            v.extend(
                probs
                    .iter()
                    .map(|&q| if r.uniform() < q { T::one() } else { T::zero() }),
            )
        });
        Tensor::from_vec(v, p.shape())
    })
}

/// 0/1 samples of `shape`, 1 with probability `p` in `[0, 1]`.
pub fn bernoulli_scalar(
    shape: &[usize],
    p: f64,
    dtype: DType,
    g: Option<&Generator>,
) -> Result<Tensor> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::value(format!(
            "bernoulli: p must be a probability in [0, 1], got {p}"
        )));
    }
    if dtype.is_complex() {
        return Err(Error::type_err(format!(
            "bernoulli: dtype must be real, got {dtype}"
        )));
    }
    sample(shape, dtype, g, |r| if r.uniform() < p { 1.0 } else { 0.0 })
}

/// A random permutation of `0..n` (Fisher-Yates), stored as `dtype`.
pub fn randperm(n: usize, dtype: DType, g: Option<&Generator>) -> Result<Tensor> {
    if dtype.is_complex() || dtype == DType::Bool {
        return Err(Error::type_err(format!(
            "randperm: dtype must be an integer or floating dtype, got {dtype}"
        )));
    }
    let limit = match dtype {
        DType::U8 => u8::MAX as usize,
        DType::I8 => i8::MAX as usize,
        DType::I16 => i16::MAX as usize,
        DType::I32 => i32::MAX as usize,
        DType::F16 => 2048,
        DType::BF16 => 256,
        DType::F32 => 1 << 24,
        _ => usize::MAX,
    };
    if n > limit.saturating_add(1) {
        return Err(Error::value(format!(
            "randperm: n = {n} is too large for dtype {dtype}, which holds the integers \
             exactly only up to {limit}; use int64"
        )));
    }
    let mut idx = try_vec_with_capacity::<u64>(n)?;
    idx.extend(0..n as u64);
    resolve(g).with(|r| {
        for i in (1..n).rev() {
            let j = r.below(i as u64 + 1) as usize;
            idx.swap(i, j);
        }
    });
    crate::with_dtype!(dtype, T, {
        let mut v = try_vec_with_capacity::<T>(n)?;
        v.extend(idx.iter().map(|&i| T::from_f64(i as f64)));
        Tensor::from_vec(v, &[n])
    })
}

/// `num_samples` category indices per row of `probs` (1-D: one row; 2-D: one draw per
/// row), each category chosen with probability proportional to its weight. Without
/// replacement a category is drawn at most once per row (weighted sampling by
/// exponential keys: the categories with the smallest `E_i / w_i`, in that order, are
/// distributed as successive draws without replacement). Returns int64.
pub fn multinomial(
    probs: &Tensor,
    num_samples: usize,
    replacement: bool,
    g: Option<&Generator>,
) -> Result<Tensor> {
    if !probs.dtype().is_float() {
        return Err(Error::type_err(format!(
            "multinomial: the probabilities must be a floating tensor, got {}",
            probs.dtype()
        )));
    }
    let (rows, cols) = match probs.shape() {
        [c] => (1, *c),
        [r, c] => (*r, *c),
        s => {
            return Err(Error::value(format!(
                "multinomial: expects a 1-D or 2-D tensor of probabilities, got shape {s:?}"
            )))
        }
    };
    if cols == 0 {
        return Err(Error::value(
            "multinomial: the distribution has no categories (size 0 in the last dim)",
        ));
    }
    if num_samples == 0 {
        return Err(Error::value("multinomial: num_samples must be positive"));
    }
    if !replacement && num_samples > cols {
        return Err(Error::value(format!(
            "multinomial: cannot draw {num_samples} samples without replacement from \
             {cols} categories; pass replacement=True or fewer samples"
        )));
    }
    let w = probs.cast_raw(DType::F64)?.to_vec::<f64>()?;
    if let Some(bad) = w.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        return Err(Error::value(format!(
            "multinomial: probabilities must be finite and non-negative, found {bad}"
        )));
    }
    let total = rows
        .checked_mul(num_samples)
        .ok_or_else(|| Error::memory("multinomial: the result size overflows"))?;
    let mut out = try_vec_with_capacity::<i64>(total)?;
    let mut cdf = try_vec_with_capacity::<f64>(cols)?;
    let mut keys = try_vec_with_capacity::<(f64, usize)>(cols)?;
    let gen = resolve(g);
    for (row_i, row) in w.chunks(cols).enumerate() {
        let nonzero = row.iter().filter(|x| **x > 0.0).count();
        if nonzero == 0 {
            return Err(Error::value(format!(
                "multinomial: row {row_i} has no positive probability (its weights sum to 0)"
            )));
        }
        if !replacement && nonzero < num_samples {
            return Err(Error::value(format!(
                "multinomial: row {row_i} has only {nonzero} categories with positive \
                 probability, fewer than the {num_samples} samples asked for without \
                 replacement"
            )));
        }
        if replacement {
            cdf.clear();
            let mut acc = 0.0;
            for &x in row {
                acc += x;
                cdf.push(acc);
            }
            let last = row.iter().rposition(|x| *x > 0.0).unwrap_or(cols - 1);
            gen.with(|r| {
                for _ in 0..num_samples {
                    let target = r.uniform() * acc;
                    let i = cdf.partition_point(|c| *c <= target).min(last);
                    out.push(i as i64);
                }
            });
        } else {
            keys.clear();
            gen.with(|r| {
                for (i, &x) in row.iter().enumerate() {
                    let e = -(1.0 - r.uniform()).ln();
                    let k = if x > 0.0 { e / x } else { f64::INFINITY };
                    keys.push((k, i));
                }
            });
            let by_key = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0);
            if num_samples < cols {
                keys.select_nth_unstable_by(num_samples - 1, by_key);
            }
            keys[..num_samples].sort_unstable_by(by_key);
            out.extend(keys[..num_samples].iter().map(|&(_, i)| i as i64));
        }
    }
    let shape: Vec<usize> = if probs.ndim() == 1 {
        vec![num_samples]
    } else {
        vec![rows, num_samples]
    };
    Tensor::from_vec(out, &shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_generators_repeat_and_differ() {
        let a = Generator::new(7);
        let b = Generator::new(7);
        let x = uniform(&[100], 0.0, 1.0, DType::F64, Some(&a)).unwrap();
        let y = uniform(&[100], 0.0, 1.0, DType::F64, Some(&b)).unwrap();
        assert_eq!(x.to_vec::<f64>().unwrap(), y.to_vec::<f64>().unwrap());
        let z = uniform(&[100], 0.0, 1.0, DType::F64, Some(&a)).unwrap();
        assert_ne!(x.to_vec::<f64>().unwrap(), z.to_vec::<f64>().unwrap());
    }

    #[test]
    fn state_round_trips() {
        let g = Generator::new(3);
        let s = g.state();
        let a = normal(&[10], 0.0, 1.0, DType::F64, Some(&g)).unwrap();
        g.set_state(&s).unwrap();
        let b = normal(&[10], 0.0, 1.0, DType::F64, Some(&g)).unwrap();
        assert_eq!(a.to_vec::<f64>().unwrap(), b.to_vec::<f64>().unwrap());
        assert!(g.set_state(&[0, 0, 0, 0]).is_err());
        assert_eq!(g.initial_seed(), 3);
    }

    #[test]
    fn randperm_is_a_permutation() {
        let g = Generator::new(1);
        let mut v = randperm(1000, DType::I64, Some(&g))
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<i64>>());
    }

    #[test]
    fn multinomial_without_replacement_draws_distinct_positive_categories() {
        let g = Generator::new(5);
        let p = Tensor::from_vec(vec![0.0f64, 1.0, 2.0, 0.0, 3.0], &[5]).unwrap();
        for _ in 0..50 {
            let mut v = multinomial(&p, 3, false, Some(&g))
                .unwrap()
                .to_vec::<i64>()
                .unwrap();
            v.sort_unstable();
            assert_eq!(v, vec![1, 2, 4]);
        }
        assert!(multinomial(&p, 4, false, Some(&g)).is_err());
        let w = multinomial(&p, 1000, true, Some(&g))
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        assert!(w.iter().all(|i| [1, 2, 4].contains(i)));
    }

    #[test]
    fn uniform_f32_never_reaches_high() {
        let g = Generator::new(9);
        let t = uniform(&[100_000], 0.0, 1.0, DType::F16, Some(&g)).unwrap();
        let v = t.cast_raw(DType::F64).unwrap().to_vec::<f64>().unwrap();
        assert!(v.iter().all(|x| (0.0..1.0).contains(x)));
    }
}
