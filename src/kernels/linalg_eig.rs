//! The general (non-symmetric) eigendecomposition of real matrices with `faer`: complex
//! eigenvalues and eigenvectors. Same layout rules as [`crate::kernels::linalg`].

use crate::error::{Error, Result};
use crate::kernels::linalg::{alloc, batch_note, mat_at, size3, LinalgFloat};
use faer::linalg::solvers::Eigen;
use num_complex::Complex;

/// Eigenvalues and, with `vectors`, eigenvectors (columns, each of unit 2-norm with its
/// largest-modulus component real and positive) of `batch` real `n x n` matrices. Inputs
/// holding NaN or inf are an error (the iteration would not converge), as in PyTorch.
#[allow(clippy::type_complexity)]
pub fn eig<T: LinalgFloat>(
    a: &[T],
    batch: usize,
    n: usize,
    vectors: bool,
) -> Result<(Vec<Complex<T>>, Vec<Complex<T>>)> {
    let op = if vectors {
        "linalg.eig"
    } else {
        "linalg.eigvals"
    };
    let mut w = alloc(size3(batch, n, 1, op)?, op)?;
    let nv = if vectors { size3(batch, n, n, op)? } else { 0 };
    let mut v = alloc(nv, op)?;
    if n == 0 {
        return Ok((w, v));
    }
    for b in 0..batch {
        let x = mat_at(a, b, n, n);
        let block = &a[b * n * n..(b + 1) * n * n];
        if block.iter().any(|e| !e.to_f64().is_finite()) {
            return Err(Error::runtime(format!(
                "{op}: the input{} holds NaN or inf, so the eigenvalue algorithm cannot \
                 converge",
                batch_note(b)
            )));
        }
        let fail = || {
            Error::runtime(format!(
                "{op}: the eigenvalue algorithm did not converge for the input{}",
                batch_note(b)
            ))
        };
        if !vectors {
            w.extend(x.eigenvalues().map_err(|_| fail())?);
            continue;
        }
        let e = Eigen::new_from_real(x).map_err(|_| fail())?;
        let s = e.S().column_vector();
        w.extend((0..n).map(|i| *s.get(i)));
        let u = e.U();
        // normalize each column: unit norm, largest component real and positive
        let mut cols: Vec<Vec<Complex<T>>> = Vec::with_capacity(n);
        for j in 0..n {
            let col: Vec<Complex<T>> = (0..n).map(|i| *u.get(i, j)).collect();
            let norm = col
                .iter()
                .map(|c| c.re.to_f64().powi(2) + c.im.to_f64().powi(2))
                .sum::<f64>()
                .sqrt();
            let big = col
                .iter()
                .copied()
                .max_by(|p, q| {
                    let mp = p.re.to_f64().hypot(p.im.to_f64());
                    let mq = q.re.to_f64().hypot(q.im.to_f64());
                    mp.partial_cmp(&mq).unwrap_or(std::cmp::Ordering::Equal)
                })
                .unwrap_or(Complex::new(T::from_f64(1.0), T::from_f64(0.0)));
            let modulus = big.re.to_f64().hypot(big.im.to_f64());
            // multiply by conj(big) / (|big| * norm)
            let (pr, pi) = if modulus > 0.0 && norm > 0.0 {
                (
                    big.re.to_f64() / (modulus * norm),
                    -big.im.to_f64() / (modulus * norm),
                )
            } else {
                (1.0, 0.0)
            };
            let phase = Complex::new(T::from_f64(pr), T::from_f64(pi));
            cols.push(col.into_iter().map(|c| c * phase).collect());
        }
        for i in 0..n {
            v.extend(cols.iter().map(|c| c[i]));
        }
    }
    Ok((w, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_has_conjugate_eigenvalues() {
        let (w, v) = eig(&[0.0f64, -1.0, 1.0, 0.0], 1, 2, true).unwrap();
        let mut im: Vec<f64> = w.iter().map(|c| c.im).collect();
        im.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert!((im[0] + 1.0).abs() < 1e-12 && (im[1] - 1.0).abs() < 1e-12);
        assert!(w.iter().all(|c| c.re.abs() < 1e-12));
        // A v = w v for each column
        let a = [0.0, -1.0, 1.0, 0.0];
        for j in 0..2 {
            for i in 0..2 {
                let av = v[j] * a[i * 2] + v[2 + j] * a[i * 2 + 1];
                assert!((av - w[j] * v[i * 2 + j]).norm() < 1e-12);
            }
        }
        assert!(eig(&[f64::NAN, 0.0, 0.0, 1.0], 1, 2, false).is_err());
    }
}
