//! Scalar kernels of `torch.special`'s orthogonal polynomials `P_n(x)` (the binary ops
//! `chebyshev_polynomial_t/u/v/w`, their shifted forms, `hermite_polynomial_h/he`,
//! `laguerre_polynomial_l`, `legendre_polynomial_p`), evaluated in f64.
//!
//! The rules follow PyTorch's kernels (aten/src/ATen/native/Math.h,
//! `chebyshev_polynomial_t_forward` and its siblings): the degree `n` is truncated toward
//! zero; `n < 0` gives 0 and `n == 0` gives 1 whatever `x`; the Chebyshev family takes its
//! closed values at `|x| == 1` and its trigonometric form `cos(n acos x)` (and the like)
//! inside (-1, 1) for degrees above 8; the Hermite polynomials are NaN above degree 512
//! (128 for float32), as PyTorch. Where PyTorch's three-term loop goes wrong this gives
//! the true value instead: a NaN or +inf degree is NaN (PyTorch casts it to an integer);
//! `x = +-inf` is the signed infinity of the leading term (PyTorch: `inf - inf = NaN`);
//! an overflow beyond the largest root is the signed infinity (PyTorch: NaN); a Chebyshev
//! degree above 2^14 outside [-1, 1] takes `cosh`/`sinh` closed forms rather than a loop
//! of `n` steps, and a Legendre or Laguerre degree above 2^20 is NaN (no loop of 1e18
//! steps).

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The backward of a polynomial (PyTorch declares both operands `non_differentiable`): a
/// clear error rather than a gradient that silently skips the op.
pub fn polynomial_no_derivative(name: &str) -> Result<Tensor> {
    Err(Error::not_implemented(format!(
        "special.{name} is not differentiable in either argument (PyTorch declares it \
         non_differentiable); detach its inputs or its result (`.detach()`) before using it \
         in a loss"
    )))
}

/// Which polynomial family a kernel evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poly {
    /// Chebyshev of the first kind `T_n`.
    ChebT,
    /// Chebyshev of the second kind `U_n`.
    ChebU,
    /// Chebyshev of the third kind `V_n`.
    ChebV,
    /// Chebyshev of the fourth kind `W_n`.
    ChebW,
    /// Physicists' Hermite `H_n`.
    HermiteH,
    /// Probabilists' Hermite `He_n`.
    HermiteHe,
    /// Laguerre `L_n`.
    Laguerre,
    /// Legendre `P_n`.
    Legendre,
}

/// Chebyshev degrees above this outside [-1, 1] use the closed `cosh`/`sinh` forms.
const CHEB_LOOP_MAX: i64 = 1 << 14;
/// Legendre and Laguerre degrees above this are NaN (no closed form; a loop per degree).
const LOOP_MAX: i64 = 1 << 20;

/// `P_n(x)` of family `kind`, or of its shifted form `P*_n(x) = P_n(2x - 1)` when
/// `shifted` (the Chebyshev families). `hermite_limit` is the degree above which the
/// Hermite polynomials are NaN (PyTorch's 512 for float64, 128 for float32).
pub fn orthogonal_polynomial(kind: Poly, shifted: bool, x: f64, n: f64, hermite_limit: i64) -> f64 {
    if n.is_nan() || n == f64::INFINITY {
        return f64::NAN;
    }
    if n < 0.0 {
        return 0.0;
    }
    // (saturating: a degree above 2^63 is i64::MAX)
    let n = n.trunc() as i64;
    if n == 0 {
        return 1.0;
    }
    let z = if shifted { x + x - 1.0 } else { x };
    if z.is_nan() {
        return z;
    }
    if z.is_infinite() {
        return signed_infinity(kind, z, n);
    }
    match kind {
        Poly::ChebT | Poly::ChebU | Poly::ChebV | Poly::ChebW => chebyshev(kind, z, n),
        Poly::HermiteH | Poly::HermiteHe if n > hermite_limit => f64::NAN,
        Poly::Laguerre if z == 0.0 => 1.0,
        Poly::Laguerre | Poly::Legendre if n > LOOP_MAX => f64::NAN,
        _ => recurrence(kind, z, n),
    }
}

/// `(-1)^n`.
fn parity(n: i64) -> f64 {
    if n % 2 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// The limit of `P_n` (`n >= 1`) at `z = +-inf`, or the value it overflowed to beyond the
/// largest root: an infinity with the sign of the leading term (Laguerre's leading
/// coefficient is `(-1)^n / n!`, the others' positive).
fn signed_infinity(kind: Poly, z: f64, n: i64) -> f64 {
    let lead = if kind == Poly::Laguerre {
        parity(n)
    } else {
        1.0
    };
    let odd_sign = if z < 0.0 { parity(n) } else { 1.0 };
    lead * odd_sign * f64::INFINITY
}

/// `P_0(z)` and `P_1(z)` of the family.
fn first_two(kind: Poly, z: f64) -> (f64, f64) {
    let p1 = match kind {
        Poly::ChebT | Poly::HermiteHe | Poly::Legendre => z,
        Poly::ChebU | Poly::HermiteH => z + z,
        Poly::ChebV => z + z - 1.0,
        Poly::ChebW => z + z + 1.0,
        Poly::Laguerre => 1.0 - z,
    };
    (1.0, p1)
}

/// Whether `z` lies beyond the largest root of `P_n` (where `|P_n|` grows with `n`, so an
/// overflow is the signed infinity): `|z| > 1` for Chebyshev and Legendre, `|z| >
/// sqrt(2n+1)` for `H_n` (`sqrt(4n+2)` for `He_n`), `z > 4n+3` or `z < 0` for Laguerre.
fn beyond_roots(kind: Poly, z: f64, n: i64) -> bool {
    let nf = n as f64;
    match kind {
        Poly::HermiteH => z.abs() > (2.0 * nf + 1.0).sqrt(),
        Poly::HermiteHe => z.abs() > (4.0 * nf + 2.0).sqrt(),
        Poly::Laguerre => z > 4.0 * nf + 3.0 || z < 0.0,
        _ => z.abs() > 1.0,
    }
}

/// `P_n(z)` by the family's three-term recurrence (`n >= 1`, `z` finite). An overflow
/// beyond the largest root is the signed infinity; elsewhere it is NaN (not
/// representable, sign unknown).
fn recurrence(kind: Poly, z: f64, n: i64) -> f64 {
    let (mut p, mut q) = first_two(kind, z);
    for k in 1..n {
        let kf = k as f64;
        let r = match kind {
            Poly::ChebT | Poly::ChebU | Poly::ChebV | Poly::ChebW => (z + z) * q - p,
            Poly::HermiteH => (z + z) * q - 2.0 * kf * p,
            Poly::HermiteHe => z * q - kf * p,
            Poly::Laguerre => ((2.0 * kf + 1.0 - z) * q - kf * p) / (kf + 1.0),
            Poly::Legendre => ((2.0 * kf + 1.0) * z * q - kf * p) / (kf + 1.0),
        };
        p = q;
        q = r;
        if !q.is_finite() {
            return if beyond_roots(kind, z, n) {
                signed_infinity(kind, z, n)
            } else {
                f64::NAN
            };
        }
    }
    q
}

/// The Chebyshev families at a finite `z`, `n >= 1`.
fn chebyshev(kind: Poly, z: f64, n: i64) -> f64 {
    let nf = n as f64;
    if z.abs() == 1.0 {
        // T_n(+-1) = (+-1)^n, U_n(+-1) = (+-1)^n (n+1), V_n(1) = 1, V_n(-1) = (-1)^n
        // (2n+1), W_n(1) = 2n+1, W_n(-1) = (-1)^n
        let s = if z < 0.0 { parity(n) } else { 1.0 };
        return match kind {
            Poly::ChebT => s,
            Poly::ChebU => s * (nf + 1.0),
            Poly::ChebV if z > 0.0 => 1.0,
            Poly::ChebV => s * (2.0 * nf + 1.0),
            Poly::ChebW if z > 0.0 => 2.0 * nf + 1.0,
            _ => s,
        };
    }
    if z.abs() < 1.0 {
        if n <= 8 {
            return recurrence(kind, z, n);
        }
        // z = cos(theta), theta in (0, pi)
        let theta = z.acos();
        let half = nf + 0.5;
        return match kind {
            Poly::ChebT => (nf * theta).cos(),
            Poly::ChebU => ((nf + 1.0) * theta).sin() / theta.sin(),
            Poly::ChebV => (half * theta).cos() / (0.5 * theta).cos(),
            _ => (half * theta).sin() / (0.5 * theta).sin(),
        };
    }
    if n <= CHEB_LOOP_MAX {
        return recurrence(kind, z, n);
    }
    // |z| > 1: z = +-cosh(a); V_n(-x) = (-1)^n W_n(x) and W_n(-x) = (-1)^n V_n(x)
    let a = z.abs().acosh();
    let s = if z < 0.0 { parity(n) } else { 1.0 };
    let half = nf + 0.5;
    let v_form = || (half * a).cosh() / (0.5 * a).cosh();
    let w_form = || (half * a).sinh() / (0.5 * a).sinh();
    s * match kind {
        Poly::ChebT => (nf * a).cosh(),
        Poly::ChebU => ((nf + 1.0) * a).sinh() / a.sinh(),
        Poly::ChebV if z > 0.0 => v_form(),
        Poly::ChebV => w_form(),
        _ if z > 0.0 => w_form(),
        _ => v_form(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_degrees_match_their_formulas() {
        let x = 0.3;
        let p = |kind, n| orthogonal_polynomial(kind, false, x, n, 512);
        assert!((p(Poly::ChebT, 3.0) - (4.0 * x * x * x - 3.0 * x)).abs() < 1e-15);
        assert!((p(Poly::HermiteH, 2.0) - (4.0 * x * x - 2.0)).abs() < 1e-15);
        assert!((p(Poly::Laguerre, 2.0) - (x * x - 4.0 * x + 2.0) / 2.0).abs() < 1e-15);
        assert!((p(Poly::Legendre, 2.0) - (3.0 * x * x - 1.0) / 2.0).abs() < 1e-15);
        // the trigonometric and recurrence forms agree
        let trig = p(Poly::ChebW, 9.0);
        assert!((trig - recurrence(Poly::ChebW, x, 9)).abs() < 1e-13);
        let (t, u) = (Poly::ChebT, Poly::ChebU);
        let big = 1 << 15;
        let z = 1.0 + 1e-9;
        let closed = orthogonal_polynomial(t, false, z, big as f64, 512);
        assert!((closed / recurrence(t, z, big) - 1.0).abs() < 1e-9);
        let closed_u = orthogonal_polynomial(u, false, -z, big as f64 + 1.0, 512);
        assert!((closed_u / recurrence(u, -z, big + 1) - 1.0).abs() < 1e-9);
        assert_eq!(orthogonal_polynomial(t, false, f64::NAN, -1.0, 512), 0.0);
        assert!(orthogonal_polynomial(t, false, 0.5, f64::NAN, 512).is_nan());
    }
}
