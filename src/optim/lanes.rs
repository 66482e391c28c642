//! Element types as real lanes for the optimizer kernels, and the driver that splits a
//! large update across rayon threads (small ones run inline: no thread overhead).

use crate::dtype::Element;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Elements below this many lanes are updated on the calling thread.
pub const PAR_MIN_LANES: usize = 1 << 16;

/// The arithmetic type an update is computed in (`f32` or `f64`).
pub trait Acc:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Converts a hyper-parameter.
    fn from_f64(v: f64) -> Self;
    /// Square root.
    fn sqrt(self) -> Self;
}

impl Acc for f32 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

impl Acc for f64 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

/// A real storage lane: loaded into its [`Acc`] type, updated, stored back (half types
/// are computed in f32 and rounded once per step).
pub trait Lane: Copy + Send + Sync + 'static {
    /// The arithmetic type.
    type A: Acc;
    /// Widens to the arithmetic type.
    fn load(self) -> Self::A;
    /// Narrows back to the storage type.
    fn store(a: Self::A) -> Self;
}

macro_rules! lane {
    ($t:ty, $a:ty, |$x:ident| $load:expr, |$y:ident| $store:expr) => {
        impl Lane for $t {
            type A = $a;
            #[inline]
            fn load(self) -> $a {
                let $x = self;
                $load
            }
            #[inline]
            fn store($y: $a) -> $t {
                $store
            }
        }
    };
}
lane!(f32, f32, |x| x, |y| y);
lane!(f64, f64, |x| x, |y| y);
lane!(f16, f32, |x| x.to_f32(), |y| f16::from_f32(y));
lane!(bf16, f32, |x| x.to_f32(), |y| bf16::from_f32(y));

/// A storage element type seen as `WIDTH` consecutive real lanes of type `L`.
///
/// # Safety
/// `Self` must have the size and alignment-compatible layout of `[L; WIDTH]`.
pub unsafe trait AsLanes: Element {
    /// The lane type.
    type L: Lane;
    /// Lanes per element (2 for complex).
    const WIDTH: usize;
}

// SAFETY: a real type is one lane of itself; `Complex<T>` is `#[repr(C)] { re: T, im: T }`.
unsafe impl AsLanes for f32 {
    type L = f32;
    const WIDTH: usize = 1;
}
unsafe impl AsLanes for f64 {
    type L = f64;
    const WIDTH: usize = 1;
}
unsafe impl AsLanes for f16 {
    type L = f16;
    const WIDTH: usize = 1;
}
unsafe impl AsLanes for bf16 {
    type L = bf16;
    const WIDTH: usize = 1;
}
unsafe impl AsLanes for Complex32 {
    type L = f32;
    const WIDTH: usize = 2;
}
unsafe impl AsLanes for Complex64 {
    type L = f64;
    const WIDTH: usize = 2;
}

/// `s` viewed as its real lanes.
pub fn lanes_mut<T: AsLanes>(s: &mut [T]) -> &mut [T::L] {
    // SAFETY: AsLanes guarantees T is WIDTH packed lanes of L.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr() as *mut T::L, s.len() * T::WIDTH) }
}

/// `s` viewed as its real lanes.
pub fn lanes<T: AsLanes>(s: &[T]) -> &[T::L] {
    // SAFETY: as in `lanes_mut`.
    unsafe { std::slice::from_raw_parts(s.as_ptr() as *const T::L, s.len() * T::WIDTH) }
}

/// An elementwise update rule over a parameter, its gradient, and its state buffers
/// (all the same length).
pub trait Update: Sync {
    /// Updates `p` (and `state`) in place from `g`.
    fn apply<L: Lane>(&self, p: &mut [L], g: &[L], state: &mut [&mut [L]]);
}

/// Runs `u` over the slices, split across rayon threads when they are large.
pub fn run_update<L: Lane, U: Update>(u: &U, p: &mut [L], g: &[L], state: &mut [&mut [L]]) {
    debug_assert!(g.len() == p.len() && state.iter().all(|s| s.len() == p.len()));
    if p.len() < 2 * PAR_MIN_LANES || rayon::current_num_threads() < 2 {
        u.apply(p, g, state);
        return;
    }
    let mid = p.len() / 2;
    let (pl, pr) = p.split_at_mut(mid);
    let (gl, gr) = g.split_at(mid);
    let (mut sl, mut sr): (Vec<&mut [L]>, Vec<&mut [L]>) = state
        .iter_mut()
        .map(|s| std::mem::take(s).split_at_mut(mid))
        .unzip();
    rayon::join(
        || run_update(u, pl, gl, &mut sl),
        || run_update(u, pr, gr, &mut sr),
    );
}
