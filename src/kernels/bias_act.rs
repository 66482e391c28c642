//! The tail of a fused linear layer: `out[i, j] = act(out[i, j] + bias[j])`, in place
//! over the row-major matrix a matmul just wrote, in one pass and without a new buffer.
//!
//! Each element goes through exactly the arithmetic of the separate ops (the broadcast
//! add, then the activation kernel the unary op uses), so the fused result is bit-identical
//! to `act(x @ w + b)` computed op by op.

use super::fastmath::{sigmoid_f32, tanh_f32};
use super::par::for_each_chunk;
use super::Split;
use crate::interrupt::{parallel_allowed, Watch};

/// The activations a fused linear layer can apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// No activation: `x @ w + b`.
    Identity,
    /// `tanh`.
    Tanh,
    /// The logistic sigmoid.
    Sigmoid,
    /// `max(x, 0)`.
    Relu,
}

/// Element types the fused tail supports, with the activation functions the unary
/// kernels use for them.
pub trait BiasActElement: Copy + Send + Sync + std::ops::Add<Output = Self> {
    /// `act(x)`, as the unary kernel computes it for this type.
    fn activate(act: Activation, x: Self) -> Self;
}

impl BiasActElement for f32 {
    #[inline(always)]
    fn activate(act: Activation, x: f32) -> f32 {
        match act {
            Activation::Identity => x,
            Activation::Tanh => tanh_f32(x),
            Activation::Sigmoid => sigmoid_f32(x),
            Activation::Relu => {
                if x > 0.0 {
                    x
                } else {
                    0.0
                }
            }
        }
    }
}

impl BiasActElement for f64 {
    #[inline(always)]
    fn activate(act: Activation, x: f64) -> f64 {
        match act {
            Activation::Identity => x,
            Activation::Tanh => x.tanh(),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Relu => {
                if x > 0.0 {
                    x
                } else {
                    0.0
                }
            }
        }
    }
}

#[inline(always)]
fn rows_body<T: BiasActElement>(rows: &mut [T], bias: Option<&[T]>, f: impl Fn(T) -> T) {
    match bias {
        Some(b) => {
            for row in rows.chunks_exact_mut(b.len()) {
                for (o, &bj) in row.iter_mut().zip(b) {
                    *o = f(*o + bj);
                }
            }
        }
        None => {
            for o in rows.iter_mut() {
                *o = f(*o);
            }
        }
    }
}

/// One block of whole rows; the loop is compiled for AVX2 and AVX-512 too and the widest
/// the CPU runs is chosen at run time (the same operations in the same order: same bits).
#[inline(always)]
fn rows_with<T: BiasActElement>(rows: &mut [T], bias: Option<&[T]>, f: impl Fn(T) -> T) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn wider<T: BiasActElement>(rows: &mut [T], bias: Option<&[T]>, f: impl Fn(T) -> T) {
            rows_body(rows, bias, f)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn wide<T: BiasActElement>(rows: &mut [T], bias: Option<&[T]>, f: impl Fn(T) -> T) {
            rows_body(rows, bias, f)
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            return unsafe { wider(rows, bias, f) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { wide(rows, bias, f) };
        }
    }
    rows_body(rows, bias, f)
}

/// One block of whole rows, with the activation chosen once outside the loop (a branch
/// per element would keep the loop from vectorising).
fn rows_in_place<T: BiasActElement>(rows: &mut [T], bias: Option<&[T]>, act: Activation) {
    match act {
        Activation::Identity => rows_with(rows, bias, |x| x),
        Activation::Tanh => rows_with(rows, bias, |x| T::activate(Activation::Tanh, x)),
        Activation::Sigmoid => rows_with(rows, bias, |x| T::activate(Activation::Sigmoid, x)),
        Activation::Relu => rows_with(rows, bias, |x| T::activate(Activation::Relu, x)),
    }
}

/// `out[i, j] = act(out[i, j] + bias[j])` over a row-major matrix of rows of length `n`
/// (`bias`, when given, has `n` elements), split across threads when large.
pub fn bias_act_in_place<T: BiasActElement>(
    out: &mut [T],
    n: usize,
    bias: Option<&[T]>,
    act: Activation,
) -> crate::Result<()> {
    if n == 0 || out.is_empty() {
        return Ok(());
    }
    debug_assert!(out.len().is_multiple_of(n) && bias.is_none_or(|b| b.len() == n));
    let split = if act == Activation::Identity || act == Activation::Relu {
        Split::CHEAP
    } else {
        Split::COSTLY
    };
    if out.len() >= split.min_len && rayon::current_num_threads() > 1 && parallel_allowed() {
        let rows_per_task = (split.chunk / n).max(1);
        let watch = Watch::begin(); // Ctrl-C: skip the remaining blocks
        for_each_chunk(out, rows_per_task * n, &|_, block| {
            if !watch.tripped() {
                rows_in_place(block, bias, act)
            }
        });
        return watch.check();
    }
    rows_in_place(out, bias, act);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_separate_add_then_activation_bit_for_bit() {
        let (m, n) = (37, 300); // crosses the threading threshold for the costly activations
        let base: Vec<f32> = (0..m * n)
            .map(|i| ((i * 7919) % 2001) as f32 / 97.0 - 10.0)
            .collect();
        let bias: Vec<f32> = (0..n).map(|j| (j as f32 - 150.0) / 33.0).collect();
        for act in [
            Activation::Identity,
            Activation::Tanh,
            Activation::Sigmoid,
            Activation::Relu,
        ] {
            let mut fused = base.clone();
            bias_act_in_place(&mut fused, n, Some(&bias), act).unwrap();
            for (i, &got) in fused.iter().enumerate() {
                let want = f32::activate(act, base[i] + bias[i % n]);
                assert_eq!(got.to_bits(), want.to_bits(), "{act:?} at {i}");
            }
            let mut plain: Vec<f64> = base.iter().map(|&v| v as f64).collect();
            bias_act_in_place(&mut plain, n, None, act).unwrap();
            for (i, &got) in plain.iter().enumerate() {
                assert_eq!(got.to_bits(), f64::activate(act, base[i] as f64).to_bits());
            }
        }
    }
}
