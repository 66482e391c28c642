//! LU factorization with LAPACK's conventions (packed `LU`, 1-based `int32` pivots,
//! `info`), triangular solves, and the `_ex` variants of `inv` / `cholesky` that report
//! failures in an `info` array instead of failing. Same layout rules as
//! [`crate::kernels::linalg`]: `batch` row-major matrices back to back in one slice,
//! outputs in freshly allocated vectors whose sizes are checked products.

use crate::error::{Error, Result};
use crate::kernels::linalg::{alloc, mat_at, push_mat, size3, LinalgFloat};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::solvers::{DenseSolveCore, PartialPivLu};
use faer::linalg::triangular_solve as tri;
use faer::{Mat, Par, Side};

/// Packed LU factorizations `P A = L U` of `batch` `m x n` matrices, as LAPACK's getrf
/// returns them: `lu` holds the strictly lower part of the unit-lower `L` (`m x k`,
/// `k = min(m, n)`) and the upper `U` (`k x n`) in one `m x n` matrix; `pivots` (`k` per
/// matrix, 1-based) say that row `i` was swapped with row `pivots[i] - 1` at step `i`;
/// `info` is 0, or the 1-based index of the first exactly zero diagonal of `U`.
pub fn lu_factor<T: LinalgFloat>(
    a: &[T],
    batch: usize,
    m: usize,
    n: usize,
) -> Result<(Vec<T>, Vec<i32>, Vec<i32>)> {
    let op = "linalg.lu_factor";
    let k = m.min(n);
    let mut lu = alloc(size3(batch, m, n, op)?, op)?;
    let mut piv = alloc(size3(batch, k, 1, op)?, op)?;
    let mut info = alloc(batch, op)?;
    if k == 0 {
        // nothing to factor (and `m` may be huge with `n == 0`: allocate nothing per row)
        lu.extend_from_slice(&a[..size3(batch, m, n, op)?]);
        info.extend(std::iter::repeat_n(0, batch));
        return Ok((lu, piv, info));
    }
    if i32::try_from(m).is_err() {
        return Err(Error::value(format!(
            "{op}: {m} rows do not fit the int32 pivots (at most {})",
            i32::MAX
        )));
    }
    for b in 0..batch {
        let x = mat_at(a, b, m, n);
        let fast = lu_faer(x.to_owned(), m, n, op)?;
        let (rows, p) = match fast {
            Some(res) => res,
            // an exactly zero pivot: faer divides by it (NaN in L); redo it as LAPACK does
            None => lu_unblocked(&a[b * m * n..(b + 1) * m * n], m, n, op)?,
        };
        let mut first_zero = 0i32;
        for i in 0..k {
            if rows[i * n + i].to_f64() == 0.0 {
                first_zero = i as i32 + 1;
                break;
            }
        }
        lu.extend_from_slice(&rows);
        piv.extend(p.iter().map(|&q| q as i32 + 1));
        info.push(first_zero);
    }
    Ok((lu, piv, info))
}

/// faer's blocked partial-pivot LU of `x` as row-major packed rows (in LAPACK's row order)
/// and 0-based sequential pivots; `None` when a pivot is exactly zero.
#[allow(clippy::type_complexity)]
fn lu_faer<T: LinalgFloat>(
    mut x: Mat<T>,
    m: usize,
    n: usize,
    op: &str,
) -> Result<Option<(Vec<T>, Vec<usize>)>> {
    let k = m.min(n);
    let (mut fwd, mut bwd) = (vec![0usize; m], vec![0usize; m]);
    let req = lu_in_place_scratch::<usize, T>(m, n, Par::Seq, Default::default());
    let mut buf = MemBuffer::try_new(req)
        .map_err(|_| Error::memory(format!("{op}: cannot allocate the LU workspace")))?;
    lu_in_place(
        x.as_mut(),
        &mut fwd,
        &mut bwd,
        Par::Seq,
        MemStack::new(&mut buf),
        Default::default(),
    );
    if (0..k).any(|i| x.get(i, i).to_f64() == 0.0) {
        return Ok(None);
    }
    // LAPACK's pivots: the swaps that, applied in order, bring row fwd[i] to position i
    let mut cur: Vec<usize> = (0..m).collect();
    let mut at: Vec<usize> = (0..m).collect();
    let mut piv = Vec::with_capacity(k);
    for (i, &want) in fwd.iter().enumerate().take(k) {
        let j = at[want];
        piv.push(j);
        cur.swap(i, j);
        at[cur[i]] = i;
        at[cur[j]] = j;
    }
    // rows past k (m > n) in the order those swaps leave them
    let mut rows = alloc(m * n, op)?;
    for &orig in &cur {
        let r = bwd[orig];
        rows.extend((0..n).map(|c| *x.get(r, c)));
    }
    Ok(Some((rows, piv)))
}

/// LAPACK getf2's unblocked LU of one row-major `m x n` matrix: a zero pivot column is
/// left as it is (no division), as LAPACK does.
fn lu_unblocked<T: LinalgFloat>(
    x: &[T],
    m: usize,
    n: usize,
    op: &str,
) -> Result<(Vec<T>, Vec<usize>)> {
    let k = m.min(n);
    let mut a = alloc(m * n, op)?;
    a.extend_from_slice(x);
    let mut piv = Vec::with_capacity(k);
    for j in 0..k {
        let mut p = j;
        let mut best = a[j * n + j].to_f64().abs();
        for i in j + 1..m {
            let v = a[i * n + j].to_f64().abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv.push(p);
        if a[p * n + j].to_f64() != 0.0 {
            if p != j {
                for c in 0..n {
                    a.swap(j * n + c, p * n + c);
                }
            }
            let d = a[j * n + j];
            for i in j + 1..m {
                a[i * n + j] /= d;
            }
        }
        for i in j + 1..m {
            let l = a[i * n + j];
            for c in j + 1..n {
                let u = a[j * n + c];
                a[i * n + c] -= l * u;
            }
        }
    }
    Ok((a, piv))
}

/// Solutions `X` of `A X = B` for `batch` triangular `n x n` `A` (`upper`, else lower;
/// only that triangle is read; `unit`: its diagonal is taken as ones) and `n x k` `B`.
/// A zero diagonal gives inf/NaN, as LAPACK's trsm (no error).
pub fn solve_triangular<T: LinalgFloat>(
    a: &[T],
    rhs: &[T],
    batch: usize,
    n: usize,
    k: usize,
    upper: bool,
    unit: bool,
) -> Result<Vec<T>> {
    let op = "linalg.solve_triangular";
    let mut out = alloc(size3(batch, n, k, op)?, op)?;
    if n == 0 || k == 0 {
        return Ok(out);
    }
    for b in 0..batch {
        let t = mat_at(a, b, n, n);
        let mut x = mat_at(rhs, b, n, k).to_owned();
        match (upper, unit) {
            (false, false) => tri::solve_lower_triangular_in_place(t, x.as_mut(), Par::Seq),
            (false, true) => tri::solve_unit_lower_triangular_in_place(t, x.as_mut(), Par::Seq),
            (true, false) => tri::solve_upper_triangular_in_place(t, x.as_mut(), Par::Seq),
            (true, true) => tri::solve_unit_upper_triangular_in_place(t, x.as_mut(), Par::Seq),
        }
        push_mat(&mut out, x.as_ref());
    }
    Ok(out)
}

/// Inverses of `batch` square matrices and per-matrix `info` (0, or the 1-based index of
/// the first zero diagonal of `U` in the LU factorization); a singular matrix's inverse
/// is filled with NaN instead of failing.
pub fn inv_ex<T: LinalgFloat>(a: &[T], batch: usize, n: usize) -> Result<(Vec<T>, Vec<i32>)> {
    let op = "linalg.inv_ex";
    let mut out = alloc(size3(batch, n, n, op)?, op)?;
    let mut info = alloc(batch, op)?;
    for b in 0..batch {
        let lu = PartialPivLu::new(mat_at(a, b, n, n));
        let u = lu.U();
        match (0..n).find(|&i| u.get(i, i).to_f64() == 0.0) {
            Some(i) => {
                info.push(i32::try_from(i + 1).unwrap_or(i32::MAX));
                out.extend(std::iter::repeat_n(T::from_f64(f64::NAN), n * n));
            }
            None => {
                info.push(0);
                push_mat(&mut out, lu.inverse().as_ref());
            }
        }
    }
    Ok((out, info))
}

/// Lower Cholesky factors of `batch` matrices (lower triangles read) and per-matrix
/// `info` (0, or the order of the first leading minor that is not positive-definite);
/// a failed matrix's factor is filled with NaN instead of failing.
pub fn cholesky_ex<T: LinalgFloat>(a: &[T], batch: usize, n: usize) -> Result<(Vec<T>, Vec<i32>)> {
    let op = "linalg.cholesky_ex";
    let mut out = alloc(size3(batch, n, n, op)?, op)?;
    let mut info = alloc(batch, op)?;
    for b in 0..batch {
        match mat_at(a, b, n, n).llt(Side::Lower) {
            Ok(llt) => {
                info.push(0);
                push_mat(&mut out, llt.L());
            }
            Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
                info.push(i32::try_from(index + 1).unwrap_or(i32::MAX));
                out.extend(std::iter::repeat_n(T::from_f64(f64::NAN), n * n));
            }
        }
    }
    Ok((out, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `P L U` rebuilt from a packed square factorization and its pivots.
    fn rebuild(lu: &[f64], piv: &[i32], n: usize) -> Vec<f64> {
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n)
                    .map(|t| {
                        let l = if t < i {
                            lu[i * n + t]
                        } else if t == i {
                            1.0
                        } else {
                            0.0
                        };
                        let u = if t <= j { lu[t * n + j] } else { 0.0 };
                        l * u
                    })
                    .sum();
            }
        }
        // undo the swaps in reverse order
        for i in (0..piv.len()).rev() {
            let p = piv[i] as usize - 1;
            for c in 0..n {
                a.swap(i * n + c, p * n + c);
            }
        }
        a
    }

    #[test]
    fn lu_factor_matches_lapack_and_rebuilds() {
        let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        let (lu, piv, info) = lu_factor(&a, 1, 3, 3).unwrap();
        assert_eq!(piv, vec![3, 3, 3]);
        assert_eq!(info, vec![0]);
        let back = rebuild(&lu, &piv, 3);
        assert!(back.iter().zip(&a).all(|(x, y)| (x - y).abs() < 1e-12));
    }

    #[test]
    fn lu_factor_of_singular_matrices_reports_info_without_nan() {
        let (lu, piv, info) = lu_factor(&[0.0f64; 9], 1, 3, 3).unwrap();
        assert_eq!((lu, piv, info), (vec![0.0; 9], vec![1, 2, 3], vec![1]));
        let a = [1.0f64, 2.0, 3.0, 2.0, 4.0, 7.0, 1.0, 2.0, 5.0];
        let (lu, piv, info) = lu_factor(&a, 1, 3, 3).unwrap();
        assert!(lu.iter().all(|x| x.is_finite()));
        assert_eq!(info, vec![2]);
        let back = rebuild(&lu, &piv, 3);
        assert!(back.iter().zip(&a).all(|(x, y)| (x - y).abs() < 1e-12));
    }

    #[test]
    fn triangular_solves_and_ex_variants() {
        // L = [[2, 0], [1, 4]] (the upper 9 is ignored)
        let l = [2.0, 9.0, 1.0, 4.0];
        let x = solve_triangular(&l, &[2.0, 9.0], 1, 2, 1, false, false).unwrap();
        assert_eq!(x, vec![1.0, 2.0]);
        let x = solve_triangular(&l, &[2.0, 9.0], 1, 2, 1, true, true).unwrap();
        assert_eq!(x, vec![2.0 - 81.0, 9.0]);
        let (inv, info) = inv_ex(&[1.0f64, 2.0, 2.0, 4.0, 2.0, 0.0, 0.0, 4.0], 2, 2).unwrap();
        assert_eq!(info, vec![2, 0]);
        assert!(inv[0].is_nan() && inv[4..] == [0.5, 0.0, 0.0, 0.25]);
        let (_, info) = cholesky_ex(&[1.0f64, 2.0, 2.0, 1.0], 1, 2).unwrap();
        assert_eq!(info, vec![2]);
    }
}
