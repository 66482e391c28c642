//! A gemm entry point for kernels that own their buffers: `dst = a @ b` or
//! `dst += a @ b` over strided matrices inside slices, on the same `gemm` crate as
//! [`crate::kernels::matmul`] (no second matrix-product path). Convolution uses it to
//! multiply into parts of its output and to accumulate weight gradients over samples
//! without temporaries.

use super::gemm_split::{gemm_tiled, GemmArgs};
use crate::dtype::Element;
use crate::error::{Error, Result};
pub use gemm::Parallelism;
use std::any::TypeId;

/// A strided matrix view into a slice: element `(i, j)` lies at `off + i*rs + j*cs`.
#[derive(Clone, Copy, Debug)]
pub struct Mat<'a, T> {
    /// The storage the view reads.
    pub data: &'a [T],
    /// Index of element `(0, 0)`.
    pub off: usize,
    /// Row count.
    pub rows: usize,
    /// Column count.
    pub cols: usize,
    /// Step between rows.
    pub rs: isize,
    /// Step between columns.
    pub cs: isize,
}

impl<'a, T> Mat<'a, T> {
    /// A row-major `rows x cols` matrix starting at `off`.
    pub fn row_major(data: &'a [T], off: usize, rows: usize, cols: usize) -> Self {
        Mat {
            data,
            off,
            rows,
            cols,
            rs: cols as isize,
            cs: 1,
        }
    }

    /// The transposed view (no copy).
    pub fn t(self) -> Self {
        Mat {
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    /// Errors unless every element of the view lies inside `data`.
    pub(crate) fn check(&self, what: &str) -> Result<()> {
        if self.rows == 0 || self.cols == 0 {
            return Ok(());
        }
        let (mut lo, mut hi) = (self.off as i128, self.off as i128);
        for (n, s) in [(self.rows, self.rs), (self.cols, self.cs)] {
            let reach = (n as i128 - 1) * s as i128;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        if lo < 0 || hi >= self.data.len() as i128 {
            return Err(Error::runtime(format!(
                "internal: gemm_into's {what} view reaches outside its storage"
            )));
        }
        Ok(())
    }

    fn ptr(&self) -> *const T {
        self.data.as_ptr().wrapping_add(self.off)
    }
}

/// `dst = a @ b` (`accumulate = false`) or `dst += a @ b` (`accumulate = true`), where
/// `dst` is row-major `[a.rows, b.cols]` with row step `dst_rs` from index 0. Only
/// float32 and float64 are supported. `par` lets gemm use the rayon pool (for one big
/// product); kernels that already split their work over threads pass
/// `Parallelism::None`.
pub fn gemm_into<T: Element>(
    dst: &mut [T],
    dst_rs: usize,
    a: Mat<'_, T>,
    b: Mat<'_, T>,
    accumulate: bool,
    par: Parallelism,
) -> Result<()> {
    let is = |id: TypeId| TypeId::of::<T>() == id;
    if !(is(TypeId::of::<f32>()) || is(TypeId::of::<f64>())) {
        return Err(Error::type_err(format!(
            "internal: gemm_into runs on float32/float64, got {}",
            T::DTYPE
        )));
    }
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k {
        return Err(Error::runtime(format!(
            "internal: gemm_into of [{m}, {k}] by [{}, {n}]",
            b.rows
        )));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let need = (m - 1)
        .checked_mul(dst_rs)
        .and_then(|v| v.checked_add(n))
        .filter(|&v| dst_rs >= n && v <= dst.len());
    if need.is_none() {
        return Err(Error::runtime(
            "internal: gemm_into's output does not fit its buffer",
        ));
    }
    if k == 0 {
        if !accumulate {
            for r in 0..m {
                dst[r * dst_rs..r * dst_rs + n].fill(T::zero());
            }
        }
        return Ok(());
    }
    a.check("first")?;
    b.check("second")?;
    let args = GemmArgs {
        m,
        n,
        k,
        dst: dst.as_mut_ptr(),
        dst_cs: 1,
        dst_rs: dst_rs as isize,
        read_dst: accumulate,
        lhs: a.ptr(),
        lhs_cs: a.cs,
        lhs_rs: a.rs,
        rhs: b.ptr(),
        rhs_cs: b.cs,
        rhs_rs: b.rs,
        alpha: if accumulate { T::one() } else { T::zero() },
        beta: T::one(),
    };
    // SAFETY: T is f32 or f64 (checked above); both views lie inside their slices
    // (checked) and the m rows of n outputs at step dst_rs lie inside `dst` (checked).
    unsafe { gemm_tiled(args, !matches!(par, Parallelism::None)) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_accumulation_match_a_loop() {
        let a: Vec<f64> = (0..6).map(|v| v as f64 + 0.5).collect(); // [2, 3]
        let b: Vec<f64> = (0..12).map(|v| (v as f64) * 0.25 - 1.0).collect(); // [3, 4]
        let mut want = [0.0; 8];
        for i in 0..2 {
            for j in 0..4 {
                want[i * 4 + j] = (0..3).map(|p| a[i * 3 + p] * b[p * 4 + j]).sum();
            }
        }
        let (ma, mb) = (Mat::row_major(&a, 0, 2, 3), Mat::row_major(&b, 0, 3, 4));
        let mut out = vec![7.0; 10]; // row step 5: the fifth column stays untouched
        gemm_into(&mut out, 5, ma, mb, false, Parallelism::None).unwrap();
        gemm_into(&mut out, 5, ma, mb, true, Parallelism::None).unwrap();
        for i in 0..2 {
            for j in 0..4 {
                assert!((out[i * 5 + j] - 2.0 * want[i * 4 + j]).abs() < 1e-12);
            }
            assert_eq!(out[i * 5 + 4], 7.0);
        }
        // a transposed view: (a^T)^T @ b is a @ b
        let at: Vec<f64> = (0..6).map(|i| a[(i % 2) * 3 + i / 2]).collect(); // [3, 2]
        let mut out2 = vec![0.0; 8];
        let mt = Mat::row_major(&at, 0, 3, 2).t();
        gemm_into(&mut out2, 4, mt, mb, false, Parallelism::None).unwrap();
        for (o, w) in out2.iter().zip(want) {
            assert!((o - w).abs() < 1e-12);
        }
    }

    #[test]
    fn out_of_bounds_views_are_errors() {
        let a = vec![1.0f32; 4];
        let mut out = vec![0.0f32; 4];
        let bad = Mat::row_major(&a, 1, 2, 2);
        let ok = Mat::row_major(&a, 0, 2, 2);
        assert!(gemm_into(&mut out, 2, bad, ok, false, Parallelism::None).is_err());
        assert!(gemm_into(&mut out[..3], 2, ok, ok, false, Parallelism::None).is_err());
        let ints = vec![1i64; 4];
        let mi = Mat::row_major(&ints, 0, 2, 2);
        let mut oi = vec![0i64; 4];
        assert!(gemm_into(&mut oi, 2, mi, mi, false, Parallelism::None).is_err());
    }
}
