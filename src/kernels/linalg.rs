//! Batched dense factorizations (LU, Cholesky, QR, symmetric eigen, SVD) computed with
//! the `faer` crate. Every function takes `batch` row-major matrices stored back to back
//! in one slice and returns its outputs the same way, in freshly allocated vectors (a
//! failed allocation is a `MemoryError`, output sizes are checked products). They know
//! nothing of tensors, graphs or Python; `crate::tensor::linalg` wraps them.
//!
//! Why faer: it is a maintained pure-Rust LAPACK replacement (no system BLAS to find at
//! build time) and it shares `gemm`/`pulp` with the matmul kernels, so it adds little to
//! the build.

use crate::error::{Error, Result};
use faer::linalg::solvers::{DenseSolveCore, PartialPivLu, Qr, SelfAdjointEigen, Solve, Svd};
use faer::traits::RealField;
use faer::{MatRef, Side};

/// Element types the factorizations run on: float32 and float64.
pub trait LinalgFloat: RealField + Copy + Send + Sync + 'static {
    /// The value as f64 (for messages and sign/log computations).
    fn to_f64(self) -> f64;
    /// The f64 `v` rounded to this type.
    fn from_f64(v: f64) -> Self;
}
impl LinalgFloat for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
impl LinalgFloat for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// `a * b * c` or a clear error when the product overflows `usize`.
pub(crate) fn size3(a: usize, b: usize, c: usize, op: &str) -> Result<usize> {
    a.checked_mul(b)
        .and_then(|x| x.checked_mul(c))
        .ok_or_else(|| Error::memory(format!("{op}: the output size overflows")))
}

/// An empty vector with room for `n` elements (MemoryError when that fails).
pub(crate) fn alloc<T>(n: usize, op: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::memory(format!("{op}: cannot allocate {n} elements")))?;
    Ok(v)
}

/// Matrix `b` of a batch of `m x n` row-major matrices.
pub(crate) fn mat_at<T: LinalgFloat>(data: &[T], b: usize, m: usize, n: usize) -> MatRef<'_, T> {
    MatRef::from_row_major_slice(&data[b * m * n..(b + 1) * m * n], m, n)
}

/// Appends `x` to `out` in row-major order.
pub(crate) fn push_mat<T: LinalgFloat>(out: &mut Vec<T>, x: MatRef<'_, T>) {
    for i in 0..x.nrows() {
        for j in 0..x.ncols() {
            out.push(*x.get(i, j));
        }
    }
}

/// The LU factorization of matrix `b`, or a singular-matrix error naming the first zero
/// pivot (as LAPACK's getrf reports it).
fn lu_nonsingular<T: LinalgFloat>(
    data: &[T],
    b: usize,
    n: usize,
    op: &str,
) -> Result<PartialPivLu<T>> {
    let lu = PartialPivLu::new(mat_at(data, b, n, n));
    let u = lu.U();
    for i in 0..n {
        if u.get(i, i).to_f64() == 0.0 {
            return Err(Error::runtime(format!(
                "{op}: the matrix{} is singular (U[{i}, {i}] of its LU factorization is \
                 exactly zero), so it has no inverse; use linalg.pinv or linalg.lstsq for \
                 singular systems",
                batch_note(b)
            )));
        }
    }
    Ok(lu)
}

/// " at batch index b" when the input is batched (b is the flat batch index).
pub(crate) fn batch_note(b: usize) -> String {
    format!(" at (flat) batch index {b}")
}

/// Inverses of `batch` square `n x n` matrices; an exactly singular one is an error.
pub fn inv<T: LinalgFloat>(a: &[T], batch: usize, n: usize) -> Result<Vec<T>> {
    let mut out = alloc(size3(batch, n, n, "linalg.inv")?, "linalg.inv")?;
    for b in 0..batch {
        let lu = lu_nonsingular(a, b, n, "linalg.inv")?;
        push_mat(&mut out, lu.inverse().as_ref());
    }
    Ok(out)
}

/// Solutions `X` of `A X = B` for `batch` pairs of `n x n` `A` and `n x k` `B`.
pub fn solve<T: LinalgFloat>(
    a: &[T],
    rhs: &[T],
    batch: usize,
    n: usize,
    k: usize,
) -> Result<Vec<T>> {
    let mut out = alloc(size3(batch, n, k, "linalg.solve")?, "linalg.solve")?;
    for b in 0..batch {
        let lu = lu_nonsingular(a, b, n, "linalg.solve")?;
        let x = lu.solve(mat_at(rhs, b, n, k));
        push_mat(&mut out, x.as_ref());
    }
    Ok(out)
}

/// `(det, sign, log|det|)` of `batch` square matrices from their LU factorizations; a
/// singular matrix gives `(0, 0, -inf)` as LAPACK-based peers do.
pub fn det<T: LinalgFloat>(a: &[T], batch: usize, n: usize) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let (mut d, mut s, mut l) = (
        alloc(batch, "linalg.det")?,
        alloc(batch, "linalg.det")?,
        alloc(batch, "linalg.det")?,
    );
    for b in 0..batch {
        let lu = PartialPivLu::new(mat_at(a, b, n, n));
        let (fwd, _) = lu.P().arrays();
        // parity of the row permutation: n minus its number of cycles
        let mut seen = vec![false; n];
        let mut transpositions = 0usize;
        for start in 0..n {
            if seen[start] {
                continue;
            }
            let mut j = start;
            let mut len = 0usize;
            while !seen[j] {
                seen[j] = true;
                j = fwd[j];
                len += 1;
            }
            transpositions += len - 1;
        }
        let mut sign = if transpositions.is_multiple_of(2) {
            1.0
        } else {
            -1.0
        };
        let (mut logabs, mut prod) = (0.0f64, T::from_f64(sign));
        let u = lu.U();
        for i in 0..n {
            let x = *u.get(i, i);
            if x.to_f64() == 0.0 {
                // a zero pivot: singular. The elimination divided by it (0 / 0) below,
                // so later pivots are NaN: stop here (det 0, sign 0, log|det| -inf)
                prod = T::from_f64(0.0);
                logabs = f64::NEG_INFINITY;
                break;
            }
            prod *= x;
            let xf = x.to_f64();
            if xf < 0.0 {
                sign = -sign;
            }
            logabs += xf.abs().ln();
        }
        if logabs == f64::NEG_INFINITY {
            sign = 0.0;
        }
        d.push(prod);
        s.push(T::from_f64(sign));
        l.push(T::from_f64(logabs));
    }
    Ok((d, s, l))
}

/// Lower Cholesky factors `L` (`A = L Lᵀ`) of `batch` symmetric positive-definite
/// matrices, reading only their lower triangles.
pub fn cholesky<T: LinalgFloat>(a: &[T], batch: usize, n: usize) -> Result<Vec<T>> {
    let mut out = alloc(size3(batch, n, n, "linalg.cholesky")?, "linalg.cholesky")?;
    for b in 0..batch {
        let llt = mat_at(a, b, n, n).llt(Side::Lower).map_err(|e| {
            let order = match e {
                faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => {
                    index + 1
                }
            };
            Error::runtime(format!(
                "linalg.cholesky: the input{} is not positive-definite (the leading minor \
                 of order {order} is not positive-definite); Cholesky needs a symmetric \
                 positive-definite matrix",
                batch_note(b)
            ))
        })?;
        push_mat(&mut out, llt.L());
    }
    Ok(out)
}

/// QR factorizations of `batch` `m x n` matrices: `Q` is `m x k` and `R` is `k x n`
/// with `k = min(m, n)` (`complete`: `k = m`). `R` is upper triangular.
pub fn qr<T: LinalgFloat>(
    a: &[T],
    batch: usize,
    m: usize,
    n: usize,
    complete: bool,
) -> Result<(Vec<T>, Vec<T>)> {
    let k = if complete { m } else { m.min(n) };
    let mut q = alloc(size3(batch, m, k, "linalg.qr")?, "linalg.qr")?;
    let mut r = alloc(size3(batch, k, n, "linalg.qr")?, "linalg.qr")?;
    for b in 0..batch {
        if m == 0 || n == 0 {
            // nothing to factor: Q is (part of) the identity, R is zero
            for i in 0..m {
                for j in 0..k {
                    q.push(if i == j {
                        T::from_f64(1.0)
                    } else {
                        T::from_f64(0.0)
                    });
                }
            }
            r.extend(std::iter::repeat_n(T::from_f64(0.0), k * n));
            continue;
        }
        let f = Qr::new(mat_at(a, b, m, n));
        if complete {
            push_mat(&mut q, f.compute_Q().as_ref());
            // faer's R has min(m, n) rows; the complete R is m x n with zero rows below
            push_mat(&mut r, f.thin_R());
            r.extend(std::iter::repeat_n(T::from_f64(0.0), (m - m.min(n)) * n));
        } else {
            push_mat(&mut q, f.compute_thin_Q().as_ref());
            push_mat(&mut r, f.thin_R());
        }
    }
    Ok((q, r))
}

/// The power-of-two exponent `e` with `A = 2^e As` and `As`'s largest magnitude in
/// `[1, 2)`, for a matrix whose largest magnitude is far from 1, else None (LAPACK's
/// `gesdd` / `syevd` scale the same way outside their safe range): without it faer's SVD
/// lost all accuracy below ~1e-154 in float64 (~1e-19 in float32) and did not converge
/// above the reciprocals, and its symmetric eigensolver did not converge on subnormal
/// matrices. A zero, NaN or infinite maximum is left alone.
fn scale_exponent<T: LinalgFloat>(x: MatRef<'_, T>) -> Option<i32> {
    let mut amax = 0.0f64;
    for j in 0..x.ncols() {
        for i in 0..x.nrows() {
            amax = amax.max(x.get(i, j).to_f64().abs());
        }
    }
    let safe = if std::mem::size_of::<T>() == 4 {
        40
    } else {
        400
    };
    let inside = amax >= 2f64.powi(-safe) && amax <= 2f64.powi(safe);
    (amax > 0.0 && amax.is_finite() && !inside).then(|| amax.log2().floor() as i32)
}

/// `v * 2^e`, exact where the result is normal (in two factors: `2^e` alone may be out of
/// range where the product is not).
fn times_pow2(v: f64, e: i32) -> f64 {
    let h = e / 2;
    v * 2f64.powi(h) * 2f64.powi(e - h)
}

/// `x / 2^e`, a copy (see [`scale_exponent`]).
fn scaled_copy<T: LinalgFloat>(x: MatRef<'_, T>, e: i32) -> faer::Mat<T> {
    faer::Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
        T::from_f64(times_pow2(x.get(i, j).to_f64(), -e))
    })
}

/// A value of the scaled problem back at the input's scale (`v * 2^e`).
fn unscale<T: LinalgFloat>(v: T, e: Option<i32>) -> T {
    e.map_or(v, |e| T::from_f64(times_pow2(v.to_f64(), e)))
}

/// Eigenvalues (ascending) and, with `vectors`, eigenvectors (as columns) of `batch`
/// symmetric `n x n` matrices, reading the `lower` (else upper) triangle.
pub fn eigh<T: LinalgFloat>(
    a: &[T],
    batch: usize,
    n: usize,
    lower: bool,
    vectors: bool,
) -> Result<(Vec<T>, Vec<T>)> {
    let side = if lower { Side::Lower } else { Side::Upper };
    let mut w = alloc(size3(batch, n, 1, "linalg.eigh")?, "linalg.eigh")?;
    let nv = if vectors {
        size3(batch, n, n, "linalg.eigh")?
    } else {
        0
    };
    let mut v = alloc(nv, "linalg.eigh")?;
    let fail = |b: usize| {
        Error::runtime(format!(
            "linalg.eigh: the eigenvalue algorithm did not converge for the input{} \
             (does it hold NaN or inf?)",
            batch_note(b)
        ))
    };
    for b in 0..batch {
        if n == 0 {
            continue;
        }
        let x = mat_at(a, b, n, n);
        let scale = scale_exponent(x);
        let xs = scale.map(|e| scaled_copy(x, e));
        let x = xs.as_ref().map_or(x, |m| m.as_ref());
        if vectors {
            let e = SelfAdjointEigen::new(x, side).map_err(|_| fail(b))?;
            let s = e.S().column_vector();
            w.extend((0..n).map(|i| unscale(*s.get(i), scale)));
            push_mat(&mut v, e.U());
        } else {
            let vals = x.self_adjoint_eigenvalues(side).map_err(|_| fail(b))?;
            w.extend(vals.into_iter().map(|v| unscale(v, scale)));
        }
    }
    Ok((w, v))
}

/// Singular value decompositions `A = U diag(S) Vh` of `batch` `m x n` matrices, singular
/// values descending. `full`: `U` is `m x m` and `Vh` `n x n`, else `m x k` and `k x n`
/// (`k = min(m, n)`). Without `vectors` only `S` is computed (the others are empty).
pub fn svd<T: LinalgFloat>(
    a: &[T],
    batch: usize,
    m: usize,
    n: usize,
    full: bool,
    vectors: bool,
) -> Result<(Vec<T>, Vec<T>, Vec<T>)> {
    let k = m.min(n);
    let (ku, kv) = if full { (m, n) } else { (k, k) };
    let mut s = alloc(size3(batch, k, 1, "linalg.svd")?, "linalg.svd")?;
    let (nu, nv) = if vectors {
        (
            size3(batch, m, ku, "linalg.svd")?,
            size3(batch, kv, n, "linalg.svd")?,
        )
    } else {
        (0, 0)
    };
    let (mut u, mut vh) = (alloc(nu, "linalg.svd")?, alloc(nv, "linalg.svd")?);
    let fail = |b: usize| {
        Error::runtime(format!(
            "linalg.svd: the SVD algorithm did not converge for the input{} \
             (does it hold NaN or inf?)",
            batch_note(b)
        ))
    };
    for b in 0..batch {
        if k == 0 {
            if vectors {
                // no singular values: the bases are (parts of) the identity
                for i in 0..m {
                    for j in 0..ku {
                        u.push(if i == j {
                            T::from_f64(1.0)
                        } else {
                            T::from_f64(0.0)
                        });
                    }
                }
                for i in 0..kv {
                    for j in 0..n {
                        vh.push(if i == j {
                            T::from_f64(1.0)
                        } else {
                            T::from_f64(0.0)
                        });
                    }
                }
            }
            continue;
        }
        let x = mat_at(a, b, m, n);
        let scale = scale_exponent(x);
        let xs = scale.map(|e| scaled_copy(x, e));
        let x = xs.as_ref().map_or(x, |m| m.as_ref());
        if !vectors {
            let vals = x.singular_values().map_err(|_| fail(b))?;
            s.extend(vals.into_iter().map(|v| unscale(v, scale)));
            continue;
        }
        let f = if full { Svd::new(x) } else { Svd::new_thin(x) }.map_err(|_| fail(b))?;
        let d = f.S().column_vector();
        s.extend((0..k).map(|i| unscale(*d.get(i), scale)));
        push_mat(&mut u, f.U());
        push_mat(&mut vh, f.V().transpose());
    }
    Ok((u, s, vh))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-10)
    }

    #[test]
    fn inverse_and_det_of_a_2x2_batch() {
        let a = [4.0, 7.0, 2.0, 6.0, 0.0, 1.0, 1.0, 0.0];
        let inv_a = inv(&a, 2, 2).unwrap();
        assert!(close(&inv_a, &[0.6, -0.7, -0.2, 0.4, 0.0, 1.0, 1.0, 0.0]));
        let (d, s, l) = det(&a, 2, 2).unwrap();
        assert!(close(&d, &[10.0, -1.0]));
        assert!(close(&s, &[1.0, -1.0]));
        assert!(close(&l, &[10f64.ln(), 0.0]));
    }

    #[test]
    fn singular_matrix_is_an_error_for_inv_and_zero_det() {
        let a = [1.0f64, 2.0, 2.0, 4.0];
        let e = inv(&a, 1, 2).unwrap_err().to_string();
        assert!(e.contains("singular"), "{e}");
        let (d, s, l) = det(&a, 1, 2).unwrap();
        assert_eq!((d[0], s[0], l[0]), (0.0, 0.0, f64::NEG_INFINITY));
    }

    #[test]
    fn a_zero_pivot_before_the_last_gives_det_zero_not_nan() {
        for a in [[0.0f64, 1.0, 0.0, 2.0], [0.0; 4]] {
            let (d, s, l) = det(&a, 1, 2).unwrap();
            assert_eq!((d[0], s[0], l[0]), (0.0, 0.0, f64::NEG_INFINITY));
        }
    }

    #[test]
    fn svd_and_eigh_of_tiny_and_huge_matrices_scale_first() {
        // singular values of [[1, 2], [3, 4]]: sqrt(15 -+ sqrt(221))
        let want = [
            (15.0f64 + 221f64.sqrt()).sqrt(),
            (15.0f64 - 221f64.sqrt()).sqrt(),
        ];
        for scale in [1e-200f64, 1e-300, 1e200, 1e300] {
            let a = [1.0 * scale, 2.0 * scale, 3.0 * scale, 4.0 * scale];
            let (_, s, _) = svd(&a, 1, 2, 2, false, false).unwrap();
            let (u, s2, vh) = svd(&a, 1, 2, 2, false, true).unwrap();
            for (got, w) in s.iter().chain(&s2).zip(want.iter().chain(&want)) {
                assert!((got / scale - w).abs() < 1e-12 * w, "{scale}: {got}");
            }
            let x: f64 = (0..2).map(|t| u[t] * s2[t] * vh[t * 2]).sum();
            assert!((x / scale - 1.0).abs() < 1e-12, "{scale}: {x}");
        }
        let (_, s, _) = svd(&[1e-25f32, 2e-25, 3e-25, 4e-25], 1, 2, 2, false, false).unwrap();
        assert!((s[0] as f64 / 1e-25 - want[0]).abs() < 1e-5 * want[0]);
        let (w, _) = eigh(
            &[1e-310f64, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            1,
            3,
            true,
            false,
        )
        .unwrap();
        assert_eq!(w, vec![0.0, 0.0, 1e-310]);
        let (w, _) = eigh(&[1e-40f32; 9], 1, 3, true, true).unwrap();
        assert!(
            (w[2] as f64 / 3e-40 - 1.0).abs() < 1e-3 && w[0].abs() < 1e-45,
            "{w:?}"
        );
    }

    #[test]
    fn cholesky_rejects_an_indefinite_matrix() {
        assert!(close(
            &cholesky(&[4.0, 2.0, 2.0, 5.0], 1, 2).unwrap(),
            &[2.0, 0.0, 1.0, 2.0]
        ));
        let e = cholesky(&[1.0f64, 2.0, 2.0, 1.0], 1, 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("order 2"), "{e}");
    }

    #[test]
    fn qr_eigh_svd_reconstruct() {
        let a = [2.0f64, 1.0, 1.0, 3.0];
        let (w, v) = eigh(&a, 1, 2, true, true).unwrap();
        // A v_j = w_j v_j for each column j
        for j in 0..2 {
            for i in 0..2 {
                let av = a[i * 2] * v[j] + a[i * 2 + 1] * v[2 + j];
                assert!((av - w[j] * v[i * 2 + j]).abs() < 1e-10);
            }
        }
        let (u, s, vh) = svd(&a, 1, 2, 2, false, true).unwrap();
        assert!(s[0] >= s[1]);
        for i in 0..2 {
            for j in 0..2 {
                let x: f64 = (0..2).map(|t| u[i * 2 + t] * s[t] * vh[t * 2 + j]).sum();
                assert!((x - a[i * 2 + j]).abs() < 1e-10);
            }
        }
        let (q, r) = qr(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], 1, 3, 2, false).unwrap();
        assert_eq!((q.len(), r.len()), (6, 4));
        assert_eq!(r[2], 0.0);
        let (q, r) = qr(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], 1, 3, 2, true).unwrap();
        assert_eq!((q.len(), r.len()), (9, 6));
        assert_eq!(&r[4..], &[0.0, 0.0]);
    }
}
