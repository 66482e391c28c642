//! The fused LSTM / Elman layers ([`super::rnn`]) on two or more threads, each thread
//! owning a range of hidden units for the whole sequence.
//!
//! Cutting each step's batch over threads (as [`super::rnn_step`] does) makes every
//! thread read the whole packed `W_hh` (1 MB at hidden 256) on every step. Here thread
//! `c` owns hidden units `u0..u1` and packs only the columns of `W_hh^T` those units need
//! (rows `q*H + u` of `W_hh` for each gate `q`, gate-major: i, f, g, o of its units) for
//! forward, and columns `u0..u1` of `W_hh` for backward: half the operand per thread at
//! two threads, which stays in its core's L2 across steps. The gate arithmetic of a
//! hidden unit needs only that unit's gates, so one barrier per step remains:
//!
//! * forward step `t`: `pre_c = h_{t-1} @ W_hh^T[:, own columns]` (all of `h_{t-1}`),
//!   then the gates of the own units write `h_t`, `c_t` and the activated gates there;
//! * backward step `t`: `dh[:, own units] = dgates_{t+1} @ W_hh[:, own units]` (all of
//!   `dgates_{t+1}`), then the gate gradients of the own units at step `t`.
//!
//! The pool runs the chunks by [`rayon::broadcast`], chunk `i` on pool thread `i`, so a
//! thread keeps its panels across steps. Each output is the same sum in the same order
//! as on one thread ([`super::rnn_gemm::product`]'s per-element FMA chain, then `+ x`):
//! the results are bit-identical to the batch split's.

use super::gemm_into::Mat;
use super::rnn::{dw_hh, Cell, LayerGrads, RnnFloat, Seq};
use super::rnn_gemm::PackedRhs;
use super::rnn_step::{Shared, STEP_PAR_WORK};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

/// How many unit ranges a layer run is cut into: the pool's threads when two or more may
/// run and the step is large, else 1 (the caller then keeps the batch split).
pub(crate) fn unit_chunks(s: &Seq, g: usize) -> usize {
    let threads = if crate::interrupt::parallel_allowed() {
        rayon::current_num_threads()
    } else {
        1
    };
    let work = s
        .batch
        .saturating_mul(g * s.hidden)
        .saturating_mul(s.hidden);
    if threads < 2 || s.hidden < 2 || work < STEP_PAR_WORK {
        return 1;
    }
    threads.min(s.hidden)
}

/// Hidden units `u0..u1` of chunk `c` of `chunks` (nearly equal, in order).
fn units(hd: usize, chunks: usize, c: usize) -> (usize, usize) {
    (c * hd / chunks, (c + 1) * hd / chunks)
}

/// Runs `f(c)` for every chunk `c < chunks`: inline for one, else chunk `c` on pool
/// thread `c % threads` (a fixed thread per chunk, step after step). Returns the first
/// error a chunk reported.
fn run_chunks(chunks: usize, f: &(dyn Fn(usize) -> Result<()> + Sync)) -> Result<()> {
    if chunks <= 1 {
        return f(0);
    }
    let err: parking_lot::Mutex<Option<Error>> = parking_lot::Mutex::new(None);
    rayon::broadcast(|ctx| {
        let mut c = ctx.index();
        while c < chunks {
            if let Err(e) = f(c) {
                err.lock().get_or_insert(e);
            }
            c += ctx.num_threads();
        }
    });
    match err.into_inner() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// [`super::rnn::forward`] with the hidden units cut into `chunks` ranges (clamped to
/// `1..=H`), one task each per step. `None` when this type or CPU has no packed kernel.
pub(crate) fn forward_in_units<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    xp: &[T],
    w: &[T],
    h0: &[T],
    c0: &[T],
    chunks: usize,
) -> Result<Option<(Vec<T>, Vec<T>)>> {
    if cell == Cell::Gru {
        return Err(Error::runtime("internal: the GRU runs in kernels::rnn_gru"));
    }
    let (g, hd, batch) = (cell.gates(), s.hidden, s.batch);
    if hd == 0 {
        return Ok(None);
    }
    let chunks = chunks.clamp(1, hd);
    let (bh, gh) = (batch * hd, g * hd);
    let tbh = s
        .steps
        .checked_mul(bh)
        .ok_or_else(|| Error::value("rnn: size overflows"))?;
    let zero = <T as Element>::zero();
    // chunk c's columns of W_hh^T: rows q*H + u of W_hh, gate-major
    let mut packs: Vec<PackedRhs<T>> = Vec::with_capacity(chunks);
    for c in 0..chunks {
        let (u0, u1) = units(hd, chunks, c);
        let nu = u1 - u0;
        let mut wc = try_filled_vec(g * nu * hd, zero)?;
        for q in 0..g {
            for j in 0..nu {
                let src = (q * hd + u0 + j) * hd;
                wc[(q * nu + j) * hd..(q * nu + j + 1) * hd].copy_from_slice(&w[src..src + hd]);
            }
        }
        match T::pack_rhs(Mat::row_major(&wc, 0, g * nu, hd).t())? {
            Some(p) => packs.push(p),
            None => return Ok(None),
        }
    }
    let lstm = cell == Cell::Lstm;
    let mut out = try_filled_vec(tbh * cell.states(), zero)?;
    let mut acts = try_filled_vec(if lstm { tbh * g } else { 0 }, zero)?;
    // chunk c's products, [B, G*nu] from B*G*u0
    let mut pre = try_filled_vec(batch * gh, zero)?;
    let (op, ap, pp) = (
        Shared(out.as_mut_ptr()),
        Shared(acts.as_mut_ptr()),
        Shared(pre.as_mut_ptr()),
    );
    for k in 0..s.steps {
        let t = s.at(k);
        let prev = (k > 0).then(|| s.at(k - 1));
        let x = &xp[t * bh * g..(t + 1) * bh * g];
        // SAFETY: each chunk writes only its own units' elements of step t's rows of
        // `out` and `acts` (per-row slices) and its own region of `pre`; it reads the
        // previous step's states (`p != t`), which no chunk writes during this step.
        run_chunks(chunks, &|c| unsafe {
            let (u0, u1) = units(hd, chunks, c);
            let nu = u1 - u0;
            let gn = g * nu;
            let pre = pp.rows(batch * g * u0, batch * gn);
            let (h_prev, c_prev): (&[T], &[T]) = match prev {
                None => (h0, c0),
                Some(p) => (
                    op.read(p * bh, bh),
                    if lstm { op.read(tbh + p * bh, bh) } else { &[] },
                ),
            };
            T::packed_product(pre, gn, h_prev, hd, batch, &packs[c], None)?;
            for b in 0..batch {
                let pr = &mut pre[b * gn..(b + 1) * gn];
                for q in 0..g {
                    let xr = &x[b * gh + q * hd + u0..b * gh + q * hd + u1];
                    for (pv, xv) in pr[q * nu..(q + 1) * nu].iter_mut().zip(xr) {
                        *pv = *pv + *xv;
                    }
                }
                let h = op.rows(t * bh + b * hd + u0, nu);
                match cell {
                    Cell::Lstm => {
                        let ar = t * bh * g + b * gh + u0;
                        let ai = ap.rows(ar, nu);
                        let af = ap.rows(ar + hd, nu);
                        let ag = ap.rows(ar + 2 * hd, nu);
                        let ao = ap.rows(ar + 3 * hd, nu);
                        T::sigmoid_into(&pr[..nu], ai);
                        T::sigmoid_into(&pr[nu..2 * nu], af);
                        T::tanh_into(&pr[2 * nu..3 * nu], ag);
                        T::sigmoid_into(&pr[3 * nu..], ao);
                        let cp = &c_prev[b * hd + u0..b * hd + u1];
                        let cr = op.rows(tbh + t * bh + b * hd + u0, nu);
                        for j in 0..nu {
                            cr[j] = af[j] * cp[j] + ai[j] * ag[j];
                        }
                        T::tanh_into(cr, h);
                        for (hv, o) in h.iter_mut().zip(ao.iter()) {
                            *hv = *o * *hv;
                        }
                    }
                    Cell::Tanh => T::tanh_into(pr, h),
                    _ => {
                        for (e, p) in h.iter_mut().zip(pr.iter()) {
                            *e = if *p > zero { *p } else { zero };
                        }
                    }
                }
            }
            Ok(())
        })?;
    }
    Ok(Some((out, acts)))
}

/// [`super::rnn::backward`] with the hidden units cut into `chunks` ranges (clamped to
/// `1..=H`). `None` when this type or CPU has no packed kernel.
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward_in_units<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    w: &[T],
    h0: &[T],
    c0: &[T],
    out: &[T],
    acts: &[T],
    gout: &[T],
    chunks: usize,
) -> Result<Option<LayerGrads<T>>> {
    if cell == Cell::Gru {
        return Err(Error::runtime("internal: the GRU runs in kernels::rnn_gru"));
    }
    let (g, hd, batch, steps) = (cell.gates(), s.hidden, s.batch, s.steps);
    if hd == 0 || steps == 0 {
        return Ok(None);
    }
    let chunks = chunks.clamp(1, hd);
    let (bh, gh) = (batch * hd, g * hd);
    let tbh = steps * bh;
    let zero = <T as Element>::zero();
    let one = <T as Element>::one();
    // chunk c's columns u0..u1 of W_hh [G*H, H]
    let mut packs: Vec<PackedRhs<T>> = Vec::with_capacity(chunks);
    for c in 0..chunks {
        let (u0, u1) = units(hd, chunks, c);
        let view = Mat {
            data: w,
            off: u0,
            rows: gh,
            cols: u1 - u0,
            rs: hd as isize,
            cs: 1,
        };
        match T::pack_rhs(view)? {
            Some(p) => packs.push(p),
            None => return Ok(None),
        }
    }
    let (hs, cs) = out.split_at(tbh);
    let (gh_all, gc_all) = gout.split_at(tbh);
    let lstm = cell == Cell::Lstm;
    let mut dxp = try_filled_vec(tbh * g, zero)?;
    // the recurrent gradient of chunk c's units, [B, nu] from B*u0 (zero before the last
    // step: nothing flows back into it)
    let mut dhl = try_filled_vec(bh, zero)?;
    let mut dc = try_filled_vec(if lstm { bh } else { 0 }, zero)?;
    let (dp, hp, cp) = (
        Shared(dxp.as_mut_ptr()),
        Shared(dhl.as_mut_ptr()),
        Shared(dc.as_mut_ptr()),
    );
    for k in (0..steps).rev() {
        let t = s.at(k);
        let later = (k + 1 < steps).then(|| s.at(k + 1));
        let c_prev: &[T] = if !lstm {
            &[]
        } else if k == 0 {
            c0
        } else {
            let p = s.at(k - 1);
            &cs[p * bh..(p + 1) * bh]
        };
        // SAFETY: each chunk writes its own region of `dhl`, its own units' elements of
        // `dc` and of step t's rows of `dxp` (per-row slices); it reads all of the later
        // step's rows of `dxp`, which no chunk writes during this step.
        run_chunks(chunks, &|c| unsafe {
            let (u0, u1) = units(hd, chunks, c);
            let nu = u1 - u0;
            let dh = hp.rows(batch * u0, batch * nu);
            if let Some(tn) = later {
                let dn = dp.read(tn * bh * g, bh * g);
                T::packed_product(dh, nu, dn, gh, batch, &packs[c], None)?;
            }
            let mut tanh_c = try_filled_vec(if lstm { nu } else { 0 }, zero)?;
            for b in 0..batch {
                let e0 = t * bh + b * hd + u0;
                let dr = t * bh * g + b * gh + u0;
                let dhb = &dh[b * nu..(b + 1) * nu];
                let ghb = &gh_all[e0..e0 + nu];
                if lstm {
                    let a = &acts[t * bh * g + b * gh..t * bh * g + (b + 1) * gh];
                    T::tanh_into(&cs[e0..e0 + nu], &mut tanh_c);
                    let dcb = cp.rows(b * hd + u0, nu);
                    let (di, df) = (dp.rows(dr, nu), dp.rows(dr + hd, nu));
                    let (dg, dout) = (dp.rows(dr + 2 * hd, nu), dp.rows(dr + 3 * hd, nu));
                    for j in 0..nu {
                        let u = u0 + j;
                        let dh_t = ghb[j] + dhb[j];
                        let mut dc_t = gc_all[e0 + j] + dcb[j];
                        let tc = tanh_c[j];
                        let (i, f) = (a[u], a[hd + u]);
                        let (gg, o) = (a[2 * hd + u], a[3 * hd + u]);
                        dc_t = dc_t + dh_t * o * (one - tc * tc);
                        dcb[j] = dc_t * f;
                        di[j] = dc_t * gg * i * (one - i);
                        df[j] = dc_t * c_prev[b * hd + u] * f * (one - f);
                        dg[j] = dc_t * i * (one - gg * gg);
                        dout[j] = dh_t * tc * o * (one - o);
                    }
                } else {
                    let d = dp.rows(dr, nu);
                    for j in 0..nu {
                        let dh_t = ghb[j] + dhb[j];
                        let h = hs[e0 + j];
                        d[j] = if cell == Cell::Tanh {
                            dh_t * (one - h * h)
                        } else if h > zero {
                            dh_t
                        } else {
                            zero
                        };
                    }
                }
            }
            Ok(())
        })?;
    }
    // dh0 = dgates of the first step @ W_hh, chunk by chunk, then back to [B, H]
    let t0 = s.at(0);
    run_chunks(chunks, &|c| unsafe {
        // SAFETY: each chunk writes its own region of `dhl`; `dxp` is only read
        let (u0, u1) = units(hd, chunks, c);
        let nu = u1 - u0;
        let dh = hp.rows(batch * u0, batch * nu);
        let d0 = dp.read(t0 * bh * g, bh * g);
        T::packed_product(dh, nu, d0, gh, batch, &packs[c], None)
    })?;
    let mut dh0 = try_filled_vec(bh, zero)?;
    for c in 0..chunks {
        let (u0, u1) = units(hd, chunks, c);
        let nu = u1 - u0;
        for b in 0..batch {
            let src = batch * u0 + b * nu;
            dh0[b * hd + u0..b * hd + u1].copy_from_slice(&dhl[src..src + nu]);
        }
    }
    let dw = dw_hh(s, g, hs, h0, &dxp)?;
    Ok(Some(LayerGrads {
        dxp,
        dw,
        dh0,
        dc0: dc,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::rnn::{backward_in_blocks, forward_in_blocks};

    fn vals(n: usize, seed: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (((i * 37 + seed * 11) % 29) as f32 - 14.0) / 9.0)
            .collect()
    }

    #[test]
    fn unit_ranges_match_the_batch_split_bit_for_bit() {
        // batch 1, odd hidden sizes, hidden below chunks * 16 (short panels), more
        // chunks than pool threads, uneven unit ranges, both directions, all three cells
        let cases = [
            (3, 1, 5, 2),
            (4, 3, 7, 3),
            (2, 5, 20, 2),
            (3, 6, 33, 2),
            (2, 7, 3, 3),
            (2, 32, 64, 2),
            (2, 2, 9, 5),
        ];
        for &(steps, batch, hidden, chunks) in &cases {
            for cell in [Cell::Lstm, Cell::Tanh, Cell::Relu] {
                for reverse in [false, true] {
                    let s = Seq {
                        steps,
                        batch,
                        hidden,
                        reverse,
                    };
                    let (g, bh) = (cell.gates(), batch * hidden);
                    let xp = vals(steps * bh * g, 1);
                    let w: Vec<f32> = vals(g * hidden * hidden, 2)
                        .iter()
                        .map(|v| v * 0.3)
                        .collect();
                    let (h0, c0) = (vals(bh, 3), vals(bh, 4));
                    let want = forward_in_blocks(cell, &s, &xp, &w, &h0, &c0, batch).unwrap();
                    let got = forward_in_units(cell, &s, &xp, &w, &h0, &c0, chunks).unwrap();
                    let what = format!("{cell:?} {steps}x{batch}x{hidden}/{chunks} {reverse}");
                    let Some(got) = got else {
                        // no AVX2/FMA: the packed kernel (and so this path) is absent
                        assert!(!crate::kernels::rnn_gemm::available(), "{what}");
                        continue;
                    };
                    assert_eq!(got.0, want.0, "{what}: states");
                    assert_eq!(got.1, want.1, "{what}: acts");
                    let r = vals(want.0.len(), 5);
                    let (o, a) = (&want.0, &want.1);
                    let bw = backward_in_blocks(cell, &s, &w, &h0, &c0, o, a, &r, batch);
                    let bw = bw.unwrap();
                    let bu = backward_in_units(cell, &s, &w, &h0, &c0, o, a, &r, chunks);
                    let bu = bu.unwrap().unwrap();
                    assert_eq!(bu.dxp, bw.dxp, "{what}: dxp");
                    assert_eq!(bu.dw, bw.dw, "{what}: dw");
                    assert_eq!(bu.dh0, bw.dh0, "{what}: dh0");
                    assert_eq!(bu.dc0, bw.dc0, "{what}: dc0");
                }
            }
        }
    }

    #[test]
    fn unit_ranges_cover_every_unit_once() {
        for (hd, chunks) in [(1, 1), (5, 2), (7, 3), (256, 2), (9, 9)] {
            let mut next = 0;
            for c in 0..chunks {
                let (u0, u1) = units(hd, chunks, c);
                assert_eq!(u0, next);
                assert!(u1 > u0, "{hd}/{chunks}: chunk {c} empty");
                next = u1;
            }
            assert_eq!(next, hd);
        }
    }
}
