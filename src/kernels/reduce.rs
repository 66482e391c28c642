//! Reductions (sum, prod, max, min, argmax, argmin, all, any) over axes of a strided tensor.
//!
//! The output is contiguous with the reduced axes removed. Each reduction first
//! canonicalises the view: size-1 dims are dropped, reduced dims get non-negative strides and
//! are ordered largest stride first, and neighbouring dims that walk memory as one are merged.
//! Then one of two loops runs:
//!
//! * **inner**: each output element folds its own reduced sub-tensor; unit-stride rows go
//!   through a blocked pairwise kernel (16 independent lanes, which the compiler vectorises;
//!   float32/float64 sums: the explicit AVX2 kernels of `reduce_simd.rs`, same bits),
//!   split with `rayon::join` on long rows. Split points depend only on the row length, so
//!   results are bit-identical whatever the thread count.
//! * **outer**: when the last kept dim has the smallest stride (a sum over axis 0 of a
//!   row-major matrix), a tile of output accumulators is updated by whole input row
//!   segments, so memory is read sequentially instead of gathered per output element.
//!
//! f32 and complex64 sums and products accumulate in f64; integers wrap.

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::{Layout, Shape};
use crate::storage::{try_filled_vec, Storage};
use num_complex::{Complex32, Complex64};
use std::num::Wrapping;
use std::ops::{Add, Mul};

#[path = "reduce_arg.rs"]
mod arg;
pub use arg::arg_reduce;
#[path = "reduce_loops.rs"]
mod loops;
#[path = "reduce_simd.rs"]
mod simd;
#[path = "reduce_var.rs"]
pub mod var;
pub use loops::reduced_shape;
use loops::{inner, outer, plan};

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    /// Sum (0 when empty).
    Sum,
    /// Product (1 when empty).
    Prod,
    /// Largest element; NaN propagates.
    Max,
    /// Smallest element; NaN propagates.
    Min,
    /// Index of the first largest element (NaN counts as largest).
    ArgMax,
    /// Index of the first smallest element (NaN counts as smallest).
    ArgMin,
    /// Every element is non-zero.
    All,
    /// Some element is non-zero.
    Any,
}

impl ReduceKind {
    /// Op name used in error messages (`"sum"`, `"argmax"`, ...).
    pub fn name(self) -> &'static str {
        [
            "sum", "prod", "max", "min", "argmax", "argmin", "all", "any",
        ][self as usize]
    }
}

/// Element types the arithmetic reductions run on: i32, i64, f32, f64, complex64, complex128.
pub trait ReduceElem: Element {
    /// Sum/product accumulator: f64 for f32, complex128 for complex64, wrapping integers.
    type Acc: Copy + Send + Sync + Add<Output = Self::Acc> + Mul<Output = Self::Acc>;
    /// What max/min compare: the value for real types, `()` for complex (unordered).
    type Key: PartialOrd;
    /// False for complex types: max/min/argmax/argmin refuse them.
    const ORDERED: bool;
    /// Widens an element into the accumulator.
    fn to_acc(self) -> Self::Acc;
    /// Narrows an accumulator back to the element type.
    fn from_acc(a: Self::Acc) -> Self;
    /// The comparison key; a key unequal to itself is a NaN.
    fn key(self) -> Self::Key;
    /// The sum lane fold of a contiguous run (`loops::lanes` of `Arith<false>`, same
    /// bits) by a hand-vectorised kernel, where this type and the CPU have one.
    #[inline(always)]
    fn sum_lanes(_x: &[Self]) -> Option<Self::Acc> {
        None
    }
}

macro_rules! reduce_elem {
    ($t:ty, $acc:ty, $key:ty, $ord:expr, $to:expr, $from:expr, $keyf:expr $(, $lanes:path)?) => {
        impl ReduceElem for $t {
            type Acc = $acc;
            type Key = $key;
            const ORDERED: bool = $ord;
            #[inline(always)]
            fn to_acc(self) -> $acc {
                ($to)(self)
            }
            fn from_acc(a: $acc) -> Self {
                ($from)(a)
            }
            fn key(self) -> $key {
                ($keyf)(self)
            }
            $(
                #[inline(always)]
                fn sum_lanes(x: &[Self]) -> Option<$acc> {
                    $lanes(x)
                }
            )?
        }
    };
}

type C64 = Complex32;
type C128 = Complex64;
reduce_elem! { i32, Wrapping<i32>, i32, true, Wrapping, |a: Wrapping<i32>| a.0, |x| x }
reduce_elem! { i64, Wrapping<i64>, i64, true, Wrapping, |a: Wrapping<i64>| a.0, |x| x }
reduce_elem! { f32, f64, f32, true, |x: f32| x as f64, |a: f64| a as f32, |x| x, simd::sum_f32 }
reduce_elem! { f64, f64, f64, true, |x| x, |a| a, |x| x, simd::sum_f64 }
reduce_elem! {
    C64, C128, (), false,
    |x: C64| C128::new(x.re as f64, x.im as f64),
    |a: C128| C64::new(a.re as f32, a.im as f32),
    |_| ()
}
reduce_elem! { C128, C128, (), false, |x| x, |a| a, |_| () }

#[inline(always)]
#[allow(clippy::eq_op)]
fn is_nan<T: ReduceElem>(x: T) -> bool {
    x.key() != x.key()
}

/// `x > y` for a max, `x < y` for a min (false whenever a NaN is involved).
#[inline(always)]
fn beyond<T: ReduceElem>(max: bool, x: T, y: T) -> bool {
    if max {
        x.key() > y.key()
    } else {
        x.key() < y.key()
    }
}

/// A reduction as a fold over lifted elements. The kernels are written once against this
/// trait and monomorphised per (op, element type), so inner loops inline to plain arithmetic.
trait Fold<T: Element> {
    type A: Copy + Send + Sync;
    type Out: Copy + Send + Sync + Default;
    /// Folding an element twice changes nothing: broadcast reduced dims can be skipped.
    const IDEMPOTENT: bool;
    /// The fold of nothing; `None` when the op has no identity (max/min).
    fn identity() -> Option<Self::A>;
    fn lift(x: T) -> Self::A;
    fn merge(a: Self::A, b: Self::A) -> Self::A;
    fn finish(a: Self::A) -> Self::Out;
    /// Accumulator start. `first` is an element of the reduction: starting there is right
    /// for the ops without identity, which are all idempotent.
    #[inline(always)]
    fn start(first: T) -> Self::A {
        Self::identity().unwrap_or_else(|| Self::lift(first))
    }
    #[inline(always)]
    fn step(a: Self::A, x: T) -> Self::A {
        Self::merge(a, Self::lift(x))
    }
    /// `loops::lanes` of a contiguous run by a hand-vectorised kernel with the same bits,
    /// where this op, the element type and the CPU have one (`None`: the generic loop).
    #[inline(always)]
    fn fast_lanes(_x: &[T]) -> Option<Self::A> {
        None
    }
}

/// The sum of a contiguous run exactly as the `sum` reduction folds it (the same
/// blocked pairwise tree, accumulator type and final rounding), so fused kernels that
/// reduce rows themselves give bit-identical results to the composed ops.
pub fn sum_run<T: ReduceElem>(x: &[T]) -> T {
    type S = Arith<false>;
    let zero = <S as Fold<T>>::identity().unwrap_or_else(|| T::zero().to_acc());
    // as the row fold of `loops::inner`: short rows in order, long ones pairwise
    let acc = if x.len() >= 2 * loops::LANES {
        <S as Fold<T>>::merge(
            zero,
            loops::pairwise::<T, S>(x, crate::interrupt::Watch::begin()),
        )
    } else {
        x.iter().fold(zero, |a, &v| <S as Fold<T>>::step(a, v))
    };
    <S as Fold<T>>::finish(acc)
}

/// The sum of `x` folded in order from zero with the `sum` reduction's accumulator type
/// and final rounding: how its outer kernel adds a strided reduced dim, one reduced index
/// at a time (fused kernels that sum strided rows match it bit for bit).
pub fn sum_in_order<T: ReduceElem>(x: impl IntoIterator<Item = T>) -> T {
    type S = Arith<false>;
    let zero = <S as Fold<T>>::identity().unwrap_or_else(|| T::zero().to_acc());
    <S as Fold<T>>::finish(x.into_iter().fold(zero, <S as Fold<T>>::step))
}

/// Sum of squares, the radicand of the 2-norm: each float32/float64 element squared and
/// added in float64 (a float32 square is exact there), in one pass over the input instead
/// of a `x * x` tensor and its sum.
struct SumSquares;

macro_rules! sum_squares_fold {
    ($t:ty) => {
        impl Fold<$t> for SumSquares {
            type A = f64;
            type Out = $t;
            const IDEMPOTENT: bool = false;
            fn identity() -> Option<f64> {
                Some(0.0)
            }
            #[inline(always)]
            fn lift(x: $t) -> f64 {
                let a = x as f64;
                a * a
            }
            #[inline(always)]
            fn merge(a: f64, b: f64) -> f64 {
                a + b
            }
            fn finish(a: f64) -> $t {
                a as $t
            }
        }
    };
}
sum_squares_fold!(f32);
sum_squares_fold!(f64);

/// `sum(x * x)` over `axes` of a float32/float64 storage in one pass (float64 squares and
/// accumulators, the pairwise tree of `sum`); the output shape as [`reduce_storage`]'s.
/// For float64 the values are those of `(x * x).sum(axes)` bit for bit.
pub fn sum_squares_storage(
    src: &Storage,
    layout: &Layout,
    axes: &[usize],
) -> Result<(Storage, Shape)> {
    const OP: &str = "sum_squares";
    let out = match src.dtype() {
        DType::F32 => Storage::from_vec(reduce_with::<f32, SumSquares>(
            OP,
            &src.read(),
            layout,
            axes,
        )?),
        DType::F64 => Storage::from_vec(reduce_with::<f64, SumSquares>(
            OP,
            &src.read(),
            layout,
            axes,
        )?),
        d => {
            return Err(Error::type_err(format!(
                "{OP}: only float32 and float64 tensors, got {d}"
            )))
        }
    };
    Ok((out, reduced_shape(&layout.shape, axes)))
}

/// Sum, or product when `MUL`.
struct Arith<const MUL: bool>;
/// Max, or min when not `MAX`.
struct Extremum<const MAX: bool>;
/// All, or any when not `ALL`.
struct Logical<const ALL: bool>;

impl<T: ReduceElem, const MUL: bool> Fold<T> for Arith<MUL> {
    type A = T::Acc;
    type Out = T;
    const IDEMPOTENT: bool = false;
    fn identity() -> Option<T::Acc> {
        Some(if MUL { T::one() } else { T::zero() }.to_acc())
    }
    #[inline(always)]
    fn lift(x: T) -> T::Acc {
        x.to_acc()
    }
    #[inline(always)]
    fn merge(a: T::Acc, b: T::Acc) -> T::Acc {
        if MUL {
            a * b
        } else {
            a + b
        }
    }
    fn finish(a: T::Acc) -> T {
        T::from_acc(a)
    }
    #[inline(always)]
    fn fast_lanes(x: &[T]) -> Option<T::Acc> {
        if MUL {
            None
        } else {
            T::sum_lanes(x)
        }
    }
}

impl<T: ReduceElem, const MAX: bool> Fold<T> for Extremum<MAX> {
    type A = T;
    type Out = T;
    const IDEMPOTENT: bool = true;
    fn identity() -> Option<T> {
        None
    }
    #[inline(always)]
    fn lift(x: T) -> T {
        x
    }
    // `b` wins when strictly beyond `a` or NaN, and nothing beats a NaN: NaN propagates.
    #[inline(always)]
    fn merge(a: T, b: T) -> T {
        let beyond = if MAX {
            b.key() > a.key()
        } else {
            b.key() < a.key()
        };
        if beyond || is_nan(b) {
            b
        } else {
            a
        }
    }
    fn finish(a: T) -> T {
        a
    }
}

impl<T: Element, const ALL: bool> Fold<T> for Logical<ALL> {
    type A = bool;
    type Out = bool;
    const IDEMPOTENT: bool = true;
    fn identity() -> Option<bool> {
        Some(ALL)
    }
    fn lift(x: T) -> bool {
        x != T::zero()
    }
    // Non-short-circuit `&` / `|` keep the lane loop branch-free.
    fn merge(a: bool, b: bool) -> bool {
        if ALL {
            a & b
        } else {
            a | b
        }
    }
    fn finish(a: bool) -> bool {
        a
    }
}

/// Checks that `axes` are sorted, unique and in range, and that `src` holds the whole view.
fn check_args<T>(op: &str, src: &[T], layout: &Layout, axes: &[usize]) -> Result<()> {
    let nd = layout.ndim();
    if axes.windows(2).any(|w| w[0] >= w[1]) || axes.last().is_some_and(|&a| a >= nd) {
        return Err(Error::index(format!(
            "{op}: axes {axes:?} must be sorted, unique and below the tensor's {nd} dimension(s)"
        )));
    }
    if layout.numel() > 0 && layout.storage_span().1 > src.len() {
        return Err(Error::value(format!(
            "{op}: a view of shape {:?} reaches past its storage of {} elements",
            layout.shape.as_slice(),
            src.len()
        )));
    }
    Ok(())
}

fn empty_err(op: &str, layout: &Layout) -> Error {
    Error::value(format!(
        "{op}: cannot reduce over a zero-size dimension of a tensor of shape {:?} \
         (the operation has no identity)",
        layout.shape.as_slice()
    ))
}

/// The row length when a small reduction needs no plan: a contiguous `layout` reduced over
/// its last dims (a full reduction, or a last-dim one), rows of at least two elements and
/// too little work for threads. The plan would merge the reduced dims into one unit-stride
/// dim and run the inner kernel, which folds each row as [`fold_rows`] does.
fn trailing_rows(layout: &Layout, axes: &[usize]) -> Option<usize> {
    let nd = layout.ndim();
    let first = *axes.first()?;
    let trailing = axes.len() == nd - first; // sorted and unique: exactly first..nd
    let small = layout.numel() < loops::PAR_MIN;
    if !(trailing && small && layout.is_contiguous()) {
        return None;
    }
    let len: usize = layout.shape[first..].iter().product();
    (len >= 2).then_some(len)
}

/// The inner kernel's folds of consecutive `len`-element rows of `src`, `rows` of them
/// (one reduced unit-stride dim: short rows in order, long ones pairwise).
fn fold_rows<T: Element, F: Fold<T>>(src: &[T], len: usize, rows: usize) -> Result<Vec<F::Out>> {
    let watch = crate::interrupt::Watch::begin();
    let mut out = crate::storage::try_vec_with_capacity(rows)?;
    for row in src[..rows * len].chunks_exact(len) {
        let acc = F::start(row[0]);
        let acc = if len >= 2 * loops::LANES {
            F::merge(acc, loops::pairwise::<T, F>(row, watch))
        } else {
            row.iter().fold(acc, |a, &v| F::step(a, v))
        };
        out.push(F::finish(acc));
    }
    watch.check()?;
    Ok(out)
}

fn reduce_with<T: Element, F: Fold<T>>(
    op: &str,
    src: &[T],
    layout: &Layout,
    axes: &[usize],
) -> Result<Vec<F::Out>> {
    check_args(op, src, layout, axes)?;
    let out_n: usize = reduced_shape(&layout.shape, axes).iter().product();
    if out_n == 0 {
        return Ok(Vec::new());
    }
    if axes.iter().any(|&a| layout.shape[a] == 0) {
        // As numpy: an error only when some output would have to come from nothing.
        let v = F::identity().ok_or_else(|| empty_err(op, layout))?;
        return try_filled_vec(out_n, F::finish(v));
    }
    if let Some(len) = trailing_rows(layout, axes) {
        return fold_rows::<T, F>(&src[layout.offset..], len, out_n);
    }
    let p = plan(layout, axes, F::IDEMPOTENT);
    let mut out = try_filled_vec(out_n, F::Out::default())?;
    let watch = crate::interrupt::Watch::begin(); // Ctrl-C stops a long reduction
    match p.kept.last() {
        Some(&(_, sk)) if p.red.strides.last().is_none_or(|&r| sk.abs() < r) => {
            outer::<T, F>(src, &p, &mut out, watch)
        }
        _ => inner::<T, F>(src, &p, &mut out, watch),
    }
    watch.check()?;
    Ok(out)
}

fn unordered_err<T: Element>(op: &str) -> Error {
    Error::type_err(format!(
        "{op}: not supported for {} tensors (complex numbers are unordered)",
        T::DTYPE
    ))
}

/// Sum / Prod / Max / Min of `src` seen through `layout` over `axes` (normalised, sorted,
/// unique; empty = no reduction; all axes = full reduction to a 0-d output). Output element
/// type = input type T. Max/Min propagate NaN and fail on an empty reduction; Sum of empty
/// is 0, Prod of empty is 1.
pub fn reduce<T: ReduceElem>(
    kind: ReduceKind,
    src: &[T],
    layout: &Layout,
    axes: &[usize],
) -> Result<Vec<T>> {
    let op = kind.name();
    match kind {
        ReduceKind::Sum => reduce_with::<T, Arith<false>>(op, src, layout, axes),
        ReduceKind::Prod => reduce_with::<T, Arith<true>>(op, src, layout, axes),
        ReduceKind::Max | ReduceKind::Min if !T::ORDERED => Err(unordered_err::<T>(op)),
        ReduceKind::Max => reduce_with::<T, Extremum<true>>(op, src, layout, axes),
        ReduceKind::Min => reduce_with::<T, Extremum<false>>(op, src, layout, axes),
        _ => Err(Error::value(format!(
            "reduce: '{op}' is not a sum/prod/max/min reduction"
        ))),
    }
}

/// All/Any over `axes` of any element type (truthiness: `!= zero`, so NaN is true),
/// returning bool. All of nothing is true, Any of nothing is false.
pub fn logical_reduce<T: Element>(
    kind: ReduceKind,
    src: &[T],
    layout: &Layout,
    axes: &[usize],
) -> Result<Vec<bool>> {
    match kind {
        ReduceKind::All => reduce_with::<T, Logical<true>>("all", src, layout, axes),
        ReduceKind::Any => reduce_with::<T, Logical<false>>("any", src, layout, axes),
        k => Err(Error::value(format!(
            "logical_reduce: '{}' is not all/any",
            k.name()
        ))),
    }
}

/// Runs `$body` with `$T` bound to the [`ReduceElem`] type of `$dtype`, or evaluates
/// `$other` for bool and the half types.
macro_rules! with_reduce_elem {
    ($dtype:expr, $T:ident, $body:block, $other:expr) => {
        with_reduce_elem!(@ $dtype, $T, $body, $other,
            I32 i32, I64 i64, F32 f32, F64 f64, C64 Complex32, C128 Complex64)
    };
    (@ $dtype:expr, $T:ident, $body:block, $other:expr, $($d:ident $t:ty),*) => {
        match $dtype { $(DType::$d => { type $T = $t; $body })* _ => $other }
    };
}

fn must_cast(kind: ReduceKind, dtype: DType) -> Error {
    Error::type_err(format!(
        "{}: {dtype} tensors must be cast before this kernel (bool to int64, float16/bfloat16 \
         to float32)",
        kind.name()
    ))
}

/// Dispatches [`reduce`] on the storage's dtype; returns a new storage of the same dtype and
/// the output shape. Max/Min of bool run directly (as any/all); other bool and half-type
/// reductions are a type error: the caller casts first.
pub fn reduce_storage(
    kind: ReduceKind,
    src: &Storage,
    layout: &Layout,
    axes: &[usize],
) -> Result<(Storage, Shape)> {
    let dtype = src.dtype();
    let out = with_reduce_elem! { dtype, T, {
        Storage::from_vec(reduce(kind, &src.read::<T>(), layout, axes)?)
    }, {
        let logical = match (dtype, kind) {
            (DType::Bool, ReduceKind::Max) => ReduceKind::Any,
            (DType::Bool, ReduceKind::Min) => ReduceKind::All,
            _ => return Err(must_cast(kind, dtype)),
        };
        Storage::from_vec(logical_reduce(logical, &src.read::<bool>(), layout, axes)?)
    }};
    Ok((out, reduced_shape(&layout.shape, axes)))
}

/// Dispatches [`arg_reduce`] on the storage's dtype; returns an int64 storage and the output
/// shape (`[]` for the flattened form). Bool and half types must be cast first.
pub fn arg_reduce_storage(
    kind: ReduceKind,
    src: &Storage,
    layout: &Layout,
    axis: Option<usize>,
) -> Result<(Storage, Shape)> {
    let v = with_reduce_elem! { src.dtype(), T, {
        arg_reduce(kind, &src.read::<T>(), layout, axis)?
    }, {
        return Err(must_cast(kind, src.dtype()));
    }};
    let shape = match axis.filter(|_| layout.ndim() > 0) {
        Some(ax) => reduced_shape(&layout.shape, &[ax]),
        None => Shape::new(),
    };
    Ok((Storage::from_vec(v), shape))
}

/// Dispatches [`logical_reduce`] on the storage's dtype (any of the nine); returns a bool
/// storage and the output shape.
pub fn logical_reduce_storage(
    kind: ReduceKind,
    src: &Storage,
    layout: &Layout,
    axes: &[usize],
) -> Result<(Storage, Shape)> {
    let v = crate::with_dtype!(src.dtype(), T, {
        logical_reduce(kind, &src.read::<T>(), layout, axes)?
    });
    Ok((Storage::from_vec(v), reduced_shape(&layout.shape, axes)))
}

#[cfg(test)]
#[path = "reduce_tests.rs"]
mod tests;
