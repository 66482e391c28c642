//! Tensor-level entry points of the dense factorizations (`crate::kernels::linalg`): they
//! check the shapes and dtype, loop over the leading (batch) dims and build the outputs.
//! They record no graph: the Python `ferrograd.linalg` functions attach the gradients
//! (written with differentiable ops, so higher derivatives work too).

use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels::linalg as k;
use crate::kernels::linalg::LinalgFloat;
use crate::kernels::linalg_eig as ke;
use crate::kernels::linalg_lu as kl;
use crate::tensor::Tensor;
use num_complex::Complex;

/// Which factorization [`linalg_op`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinalgOp {
    /// `inv(A)`.
    Inv,
    /// `solve(A, B)` for `A X = B` (same batch shape; `B` is `[..., n, k]`).
    Solve,
    /// `(det, sign, logabsdet)`.
    Det,
    /// Lower Cholesky factor.
    Cholesky,
    /// `(Q, R)`; the flag asks for the complete `Q`.
    Qr,
    /// `(eigenvalues, eigenvectors)`; the flag reads the lower triangle.
    Eigh,
    /// `eigenvalues` only; the flag reads the lower triangle.
    Eigvalsh,
    /// `(U, S, Vh)`; the flag asks for full matrices.
    Svd,
    /// Singular values only.
    Svdvals,
    /// `(LU, pivots, info)` of a rectangular matrix (LAPACK's getrf conventions).
    LuFactor,
    /// `solve_triangular(A, B)` for a lower `A`; the flag: unit diagonal.
    SolveTril,
    /// `solve_triangular(A, B)` for an upper `A`; the flag: unit diagonal.
    SolveTriu,
    /// `(inverse, info)`: a singular matrix gives NaN and a nonzero `info`.
    InvEx,
    /// `(L, info)`: a matrix that is not positive-definite gives NaN and nonzero `info`.
    CholeskyEx,
    /// `(eigenvalues, eigenvectors)` of a general real matrix, complex.
    Eig,
    /// Eigenvalues of a general real matrix, complex.
    Eigvals,
}

impl LinalgOp {
    /// The op's name as `ferrograd.linalg` spells it (for messages).
    pub fn name(self) -> &'static str {
        match self {
            LinalgOp::Inv => "linalg.inv",
            LinalgOp::Solve => "linalg.solve",
            LinalgOp::Det => "linalg.det",
            LinalgOp::Cholesky => "linalg.cholesky",
            LinalgOp::Qr => "linalg.qr",
            LinalgOp::Eigh => "linalg.eigh",
            LinalgOp::Eigvalsh => "linalg.eigvalsh",
            LinalgOp::Svd => "linalg.svd",
            LinalgOp::Svdvals => "linalg.svdvals",
            LinalgOp::LuFactor => "linalg.lu_factor",
            LinalgOp::SolveTril | LinalgOp::SolveTriu => "linalg.solve_triangular",
            LinalgOp::InvEx => "linalg.inv_ex",
            LinalgOp::CholeskyEx => "linalg.cholesky_ex",
            LinalgOp::Eig => "linalg.eig",
            LinalgOp::Eigvals => "linalg.eigvals",
        }
    }

    /// Whether the input must be square.
    fn square(self) -> bool {
        !matches!(
            self,
            LinalgOp::Qr | LinalgOp::Svd | LinalgOp::Svdvals | LinalgOp::LuFactor
        )
    }
}

/// The leading (batch) dims, their product and the two matrix dims of `a` for `op`.
fn matrix_dims(a: &Tensor, op: LinalgOp) -> Result<(Vec<usize>, usize, usize, usize)> {
    let s = a.shape();
    if s.len() < 2 {
        return Err(Error::value(format!(
            "{}: the input must have at least 2 dimensions (a matrix or a batch of \
             matrices), got shape {s:?}",
            op.name()
        )));
    }
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    if op.square() && m != n {
        return Err(Error::value(format!(
            "{}: the input must be a batch of square matrices, got shape {s:?} ({m} x {n})",
            op.name()
        )));
    }
    let lead = s[..s.len() - 2].to_vec();
    let batch = crate::layout::checked_numel(&lead)?;
    Ok((lead, batch, m, n))
}

/// `lead ++ tail` as a shape.
fn with_lead(lead: &[usize], tail: &[usize]) -> Vec<usize> {
    lead.iter().chain(tail).copied().collect()
}

/// Runs factorization `op` on `a` (and `b` for `Solve`), returning its outputs in the
/// order [`LinalgOp`] lists them. `a` (and `b`) must be float32 or float64.
pub fn linalg_op(op: LinalgOp, a: &Tensor, b: Option<&Tensor>, flag: bool) -> Result<Vec<Tensor>> {
    match a.dtype() {
        DType::F32 => run::<f32>(op, a, b, flag),
        DType::F64 => run::<f64>(op, a, b, flag),
        other => Err(Error::type_err(format!(
            "{}: expected a float32 or float64 tensor, got {other}; convert it first \
             (e.g. x.astype('float64') or x.double())",
            op.name()
        ))),
    }
}

/// The elements of `t` (already of dtype `T`) in row-major order.
fn elems<T: Element>(t: &Tensor) -> Result<Vec<T>> {
    t.to_vec::<T>()
}

/// The column count `k` of the right-hand side `b` (`[lead..., n, k]`, `a`'s dtype) of
/// a solve with `a`, or a ValueError.
fn rhs_cols(
    op: LinalgOp,
    a: &Tensor,
    b: Option<&Tensor>,
    lead: &[usize],
    n: usize,
) -> Result<usize> {
    let name = op.name();
    let b = b.ok_or_else(|| Error::value(format!("{name}: the right-hand side is missing")))?;
    let bs = b.shape();
    if b.dtype() != a.dtype()
        || bs.len() != lead.len() + 2
        || bs[..lead.len()] != lead[..]
        || bs[lead.len()] != n
    {
        return Err(Error::value(format!(
            "{name}: A of shape {:?} needs B of shape [{}..., {n}, k] and the same dtype, \
             got {:?} ({})",
            a.shape(),
            lead.iter().map(|d| format!("{d}, ")).collect::<String>(),
            bs,
            b.dtype()
        )));
    }
    Ok(bs[bs.len() - 1])
}

fn run<T: LinalgFloat + Element>(
    op: LinalgOp,
    a: &Tensor,
    b: Option<&Tensor>,
    flag: bool,
) -> Result<Vec<Tensor>>
where
    Complex<T>: Element,
{
    let (lead, batch, m, n) = matrix_dims(a, op)?;
    let data = elems::<T>(a)?;
    let t = |v: Vec<T>, tail: &[usize]| Tensor::from_vec(v, &with_lead(&lead, tail));
    Ok(match op {
        LinalgOp::Inv => vec![t(k::inv(&data, batch, n)?, &[n, n])?],
        LinalgOp::Solve => {
            let kk = rhs_cols(op, a, b, &lead, n)?;
            let rhs = elems::<T>(b.unwrap_or(a))?;
            vec![t(k::solve(&data, &rhs, batch, n, kk)?, &[n, kk])?]
        }
        LinalgOp::SolveTril | LinalgOp::SolveTriu => {
            let kk = rhs_cols(op, a, b, &lead, n)?;
            let rhs = elems::<T>(b.unwrap_or(a))?;
            let upper = op == LinalgOp::SolveTriu;
            let x = kl::solve_triangular(&data, &rhs, batch, n, kk, upper, flag)?;
            vec![t(x, &[n, kk])?]
        }
        LinalgOp::LuFactor => {
            let (lu, piv, info) = kl::lu_factor(&data, batch, m, n)?;
            vec![
                t(lu, &[m, n])?,
                Tensor::from_vec(piv, &with_lead(&lead, &[m.min(n)]))?,
                Tensor::from_vec(info, &lead)?,
            ]
        }
        LinalgOp::InvEx | LinalgOp::CholeskyEx => {
            let (x, info) = if op == LinalgOp::InvEx {
                kl::inv_ex(&data, batch, n)?
            } else {
                kl::cholesky_ex(&data, batch, n)?
            };
            vec![t(x, &[n, n])?, Tensor::from_vec(info, &lead)?]
        }
        LinalgOp::Eig | LinalgOp::Eigvals => {
            let vectors = op == LinalgOp::Eig;
            let (w, v) = ke::eig(&data, batch, n, vectors)?;
            let mut out = vec![Tensor::from_vec(w, &with_lead(&lead, &[n]))?];
            if vectors {
                out.push(Tensor::from_vec(v, &with_lead(&lead, &[n, n]))?);
            }
            out
        }
        LinalgOp::Det => {
            let (d, s, l) = k::det(&data, batch, n)?;
            vec![t(d, &[])?, t(s, &[])?, t(l, &[])?]
        }
        LinalgOp::Cholesky => vec![t(k::cholesky(&data, batch, n)?, &[n, n])?],
        LinalgOp::Qr => {
            let kk = if flag { m } else { m.min(n) };
            let (q, r) = k::qr(&data, batch, m, n, flag)?;
            vec![t(q, &[m, kk])?, t(r, &[kk, n])?]
        }
        LinalgOp::Eigh | LinalgOp::Eigvalsh => {
            let vectors = op == LinalgOp::Eigh;
            let (w, v) = k::eigh(&data, batch, n, flag, vectors)?;
            let mut out = vec![t(w, &[n])?];
            if vectors {
                out.push(t(v, &[n, n])?);
            }
            out
        }
        LinalgOp::Svd | LinalgOp::Svdvals => {
            let vectors = op == LinalgOp::Svd;
            let kk = m.min(n);
            let (u, s, vh) = k::svd(&data, batch, m, n, flag, vectors)?;
            if vectors {
                let (ku, kv) = if flag { (m, n) } else { (kk, kk) };
                vec![t(u, &[m, ku])?, t(s, &[kk])?, t(vh, &[kv, n])?]
            } else {
                vec![t(s, &[kk])?]
            }
        }
    })
}
