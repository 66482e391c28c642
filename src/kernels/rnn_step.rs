//! One time step of the fused LSTM / Elman layers ([`super::rnn`]) for a block of batch
//! rows, and the split of a step's batch over the rayon pool.
//!
//! A step is a GEMM with few rows (`h [B, H] @ W_hh^T`, B = 32 in the benchmark) and the
//! gate arithmetic on its `[B, G*H]` result. Letting gemm split that small product over
//! threads left the gate loops on one thread and paid gemm's own fork-join per product;
//! here each task takes a block of batch rows and runs its rows' GEMM (single-threaded)
//! *and* their gates, one fork-join per step for both. With one thread (or a small step)
//! the whole batch runs inline as one block.

use super::gemm_into::{gemm_into, Mat, Parallelism};
use super::par::for_each_task;
use super::rnn::{Cell, RnnFloat, Seq};
use super::rnn_gemm::PackedRhs;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::storage::try_filled_vec;

/// `B * G*H * H` of one step from which its batch is split over threads.
const STEP_PAR_WORK: usize = 1 << 20;

/// A pointer the tasks of one step share; each task touches only its own rows.
#[derive(Clone, Copy)]
pub(crate) struct Shared<T>(pub(crate) *mut T);

// SAFETY: the tasks reached through `Shared` write disjoint rows and read only rows no
// task of the same step writes (the callers' SAFETY notes say which).
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// `len` elements from `off` as a mutable slice.
    ///
    /// # Safety
    /// `off..off + len` lies inside the allocation, and no other live reference reaches
    /// those elements while the slice is used.
    #[allow(clippy::mut_from_ref)]
    unsafe fn rows(&self, off: usize, len: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(off), len)
    }
}

/// Batch rows per task of one step: the whole batch when one thread runs (or the step is
/// small), else about one thread's share, at least 4 rows.
pub(crate) fn rows_per_task(s: &Seq, g: usize) -> usize {
    let threads = if crate::interrupt::parallel_allowed() {
        rayon::current_num_threads()
    } else {
        1
    };
    let work = s
        .batch
        .saturating_mul(g * s.hidden)
        .saturating_mul(s.hidden);
    if threads < 2 || s.batch < 8 || work < STEP_PAR_WORK {
        return s.batch.max(1);
    }
    s.batch.div_ceil(threads.min(s.batch / 4))
}

/// Runs `f(r0, nr)` over the batch in blocks of `rows` rows: inline when there is one
/// block, else on the pool. Returns the first error a block reported.
pub(crate) fn over_rows(
    batch: usize,
    rows: usize,
    f: &(dyn Fn(usize, usize) -> Result<()> + Sync),
) -> Result<()> {
    let rows = rows.max(1);
    let blocks = batch.div_ceil(rows);
    if blocks <= 1 {
        return f(0, batch);
    }
    let err: parking_lot::Mutex<Option<Error>> = parking_lot::Mutex::new(None);
    for_each_task(blocks, &|i| {
        let r0 = i * rows;
        if let Err(e) = f(r0, rows.min(batch - r0)) {
            err.lock().get_or_insert(e);
        }
    });
    match err.into_inner() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// What one forward step reads: the previous states `[B, H]` (`c_prev` empty unless
/// LSTM), the step's input projection `x` `[B, G*H]` and `wt = W_hh^T` `[H, G*H]`.
pub(crate) struct FwdIn<'a, T> {
    pub h_prev: &'a [T],
    pub c_prev: &'a [T],
    pub x: &'a [T],
    pub wt: &'a [T],
    /// `W_hh^T` packed for [`RnnFloat::packed_product`]; when given, `wt` is unused.
    pub packed: Option<&'a PackedRhs<T>>,
}

/// Where one forward step writes, each from its row 0: the new `h` and `c` `[B, H]`, the
/// LSTM's activated gates `[B, G*H]`, and scratch `pre` `[B, G*H]`.
pub(crate) struct FwdOut<T> {
    pub h: Shared<T>,
    pub c: Shared<T>,
    pub acts: Shared<T>,
    pub pre: Shared<T>,
}

/// The forward step for batch rows `r0..r0 + nr` (not the GRU).
///
/// # Safety
/// Every pointer of `out` addresses a buffer of the size [`FwdOut`] names; no other task
/// uses rows `r0..r0 + nr` of them, and none of them overlaps the slices of `inp`.
pub(crate) unsafe fn forward_rows<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    inp: &FwdIn<'_, T>,
    out: &FwdOut<T>,
    r0: usize,
    nr: usize,
) -> Result<()> {
    let (g, hd) = (cell.gates(), s.hidden);
    let gh = g * hd;
    let pre = out.pre.rows(r0 * gh, nr * gh);
    let x = &inp.x[r0 * gh..(r0 + nr) * gh];
    if let Some(pk) = inp.packed {
        T::packed_product(pre, gh, &inp.h_prev[r0 * hd..], hd, nr, pk, Some((x, gh)))?;
    } else {
        let lh = Mat::row_major(inp.h_prev, r0 * hd, nr, hd);
        gemm_into(
            pre,
            gh,
            lh,
            Mat::row_major(inp.wt, 0, hd, gh),
            false,
            Parallelism::None,
        )?;
        for (p, xv) in pre.iter_mut().zip(x) {
            *p = *p + *xv;
        }
    }
    let h = out.h.rows(r0 * hd, nr * hd);
    match cell {
        Cell::Lstm => {
            let a = out.acts.rows(r0 * gh, nr * gh);
            let c = out.c.rows(r0 * hd, nr * hd);
            for lr in 0..nr {
                let row = lr * gh;
                let (pr, ar) = (&pre[row..row + gh], &mut a[row..row + gh]);
                T::sigmoid_into(&pr[..2 * hd], &mut ar[..2 * hd]);
                T::tanh_into(&pr[2 * hd..3 * hd], &mut ar[2 * hd..3 * hd]);
                T::sigmoid_into(&pr[3 * hd..], &mut ar[3 * hd..]);
                let cp = &inp.c_prev[(r0 + lr) * hd..(r0 + lr + 1) * hd];
                let crow = &mut c[lr * hd..(lr + 1) * hd];
                for j in 0..hd {
                    crow[j] = ar[hd + j] * cp[j] + ar[j] * ar[2 * hd + j];
                }
                let hrow = &mut h[lr * hd..(lr + 1) * hd];
                T::tanh_into(crow, hrow);
                for (hv, o) in hrow.iter_mut().zip(&ar[3 * hd..]) {
                    *hv = *o * *hv;
                }
            }
        }
        Cell::Tanh => T::tanh_into(pre, h),
        Cell::Relu => {
            for (e, p) in h.iter_mut().zip(pre.iter()) {
                *e = if *p > <T as Element>::zero() {
                    *p
                } else {
                    <T as Element>::zero()
                };
            }
        }
        Cell::Gru => {
            return Err(Error::runtime("internal: the GRU runs in kernels::rnn_gru"));
        }
    }
    Ok(())
}

/// What one backward step reads, all `[B, ...]` at step `t`: the incoming gradients of
/// `h` and `c` (`gc` empty unless LSTM), the recurrent gradient `dh` from the later step,
/// the step's states `h`/`c`, the previous cell state `c_prev`, the LSTM's gates `acts`
/// and `W_hh` `[G*H, H]`.
pub(crate) struct BwdIn<'a, T> {
    pub gh: &'a [T],
    pub gc: &'a [T],
    pub dh: &'a [T],
    pub h: &'a [T],
    pub c: &'a [T],
    pub c_prev: &'a [T],
    pub acts: &'a [T],
    pub w: &'a [T],
    /// `W_hh` packed for [`RnnFloat::packed_product`]; when given, `w` is unused.
    pub packed: Option<&'a PackedRhs<T>>,
}

/// Where one backward step writes, each from its row 0: the gate gradients `d` `[B,
/// G*H]`, the running cell gradient `dc` `[B, H]` (read and overwritten; LSTM only) and
/// the recurrent gradient for the earlier step, `dh_next` `[B, H]`.
pub(crate) struct BwdOut<T> {
    pub d: Shared<T>,
    pub dc: Shared<T>,
    pub dh_next: Shared<T>,
}

/// One batch row of the LSTM's backward gate arithmetic, every slice one row of the
/// same length: `g = [gh, dh, gc]` (incoming gradients of h and c, recurrent gradient),
/// `st = [c_prev, tanh(c)]`, the activated gates `a = [i, f, g, o]`; `dc` is read and
/// overwritten, `d = [di, df, dg, do]` written. The loop runs in [`lstm_gate_grads_in`],
/// whose slice arguments tell the compiler that no two overlap, so it vectorises (cut
/// from shared row buffers inside the step, the same loop ran scalar).
fn lstm_gate_grads<T: RnnFloat>(
    g: [&[T]; 3],
    st: [&[T]; 2],
    a: [&[T]; 4],
    dc: &mut [T],
    d: [&mut [T]; 4],
) {
    let [gh, dh, gc] = g;
    let [cp, tc] = st;
    let [ai, af, ag, ao] = a;
    let [di, df, dg, d_o] = d;
    #[cfg(target_arch = "x86_64")]
    {
        /// [`lstm_gate_grads_in`] compiled with the target feature `$feat`.
        macro_rules! build {
            ($name:ident, $feat:literal) => {
                /// # Safety
                /// The CPU supports the function's target feature.
                #[target_feature(enable = $feat)]
                #[allow(clippy::too_many_arguments)]
                unsafe fn $name<T: RnnFloat>(
                    gh: &[T],
                    dh: &[T],
                    gc: &[T],
                    cp: &[T],
                    tc: &[T],
                    ai: &[T],
                    af: &[T],
                    ag: &[T],
                    ao: &[T],
                    dc: &mut [T],
                    di: &mut [T],
                    df: &mut [T],
                    dg: &mut [T],
                    d_o: &mut [T],
                ) {
                    lstm_gate_grads_in(gh, dh, gc, cp, tc, ai, af, ag, ao, dc, di, df, dg, d_o)
                }
            };
        }
        build!(wider, "avx512f");
        build!(wide, "avx2");
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            return unsafe { wider(gh, dh, gc, cp, tc, ai, af, ag, ao, dc, di, df, dg, d_o) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { wide(gh, dh, gc, cp, tc, ai, af, ag, ao, dc, di, df, dg, d_o) };
        }
    }
    lstm_gate_grads_in(gh, dh, gc, cp, tc, ai, af, ag, ao, dc, di, df, dg, d_o)
}

/// The loop of [`lstm_gate_grads`] over `dc.len()` units (every slice at least that
/// long: the callers cut them to one row).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn lstm_gate_grads_in<T: RnnFloat>(
    gh: &[T],
    dh: &[T],
    gc: &[T],
    cp: &[T],
    tc: &[T],
    ai: &[T],
    af: &[T],
    ag: &[T],
    ao: &[T],
    dc: &mut [T],
    di: &mut [T],
    df: &mut [T],
    dg: &mut [T],
    d_o: &mut [T],
) {
    let one = <T as Element>::one();
    let n = dc.len();
    // one length for all, so the loop below has no bounds checks
    let (gh, dh, gc, cp, tc) = (&gh[..n], &dh[..n], &gc[..n], &cp[..n], &tc[..n]);
    let (ai, af, ag, ao) = (&ai[..n], &af[..n], &ag[..n], &ao[..n]);
    let (di, df, dg, d_o) = (&mut di[..n], &mut df[..n], &mut dg[..n], &mut d_o[..n]);
    for j in 0..n {
        let dh_t = gh[j] + dh[j];
        let mut dc_t = gc[j] + dc[j];
        let t = tc[j];
        let (i, f, gg, o) = (ai[j], af[j], ag[j], ao[j]);
        dc_t = dc_t + dh_t * o * (one - t * t);
        dc[j] = dc_t * f;
        di[j] = dc_t * gg * i * (one - i);
        df[j] = dc_t * cp[j] * f * (one - f);
        dg[j] = dc_t * i * (one - gg * gg);
        d_o[j] = dh_t * t * o * (one - o);
    }
}

/// The backward step for batch rows `r0..r0 + nr` (not the GRU).
///
/// # Safety
/// As [`forward_rows`], for [`BwdOut`] and [`BwdIn`].
pub(crate) unsafe fn backward_rows<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    inp: &BwdIn<'_, T>,
    out: &BwdOut<T>,
    r0: usize,
    nr: usize,
) -> Result<()> {
    let (g, hd) = (cell.gates(), s.hidden);
    let gh = g * hd;
    let one = <T as Element>::one();
    let zero = <T as Element>::zero();
    let d = out.d.rows(r0 * gh, nr * gh);
    match cell {
        Cell::Lstm => {
            let dc = out.dc.rows(r0 * hd, nr * hd);
            let mut tanh_c = try_filled_vec(hd, zero)?;
            for lr in 0..nr {
                let bi = r0 + lr;
                let e = bi * hd..(bi + 1) * hd;
                T::tanh_into(&inp.c[e.clone()], &mut tanh_c);
                let a = &inp.acts[bi * gh..(bi + 1) * gh];
                let (ai, rest) = a.split_at(hd);
                let (af, rest) = rest.split_at(hd);
                let (ag, ao) = rest.split_at(hd);
                let drow = &mut d[lr * gh..(lr + 1) * gh];
                let (di, rest) = drow.split_at_mut(hd);
                let (df, rest) = rest.split_at_mut(hd);
                let (dg, d_o) = rest.split_at_mut(hd);
                lstm_gate_grads::<T>(
                    [&inp.gh[e.clone()], &inp.dh[e.clone()], &inp.gc[e.clone()]],
                    [&inp.c_prev[e], &tanh_c],
                    [ai, af, ag, ao],
                    &mut dc[lr * hd..(lr + 1) * hd],
                    [di, df, dg, d_o],
                );
            }
        }
        Cell::Tanh | Cell::Relu => {
            for (le, dv) in d.iter_mut().enumerate() {
                let e = r0 * hd + le;
                let dh_t = inp.gh[e] + inp.dh[e];
                let h = inp.h[e];
                *dv = if cell == Cell::Tanh {
                    dh_t * (one - h * h)
                } else if h > zero {
                    dh_t
                } else {
                    zero
                };
            }
        }
        Cell::Gru => {
            return Err(Error::runtime("internal: the GRU runs in kernels::rnn_gru"));
        }
    }
    // dh for the earlier step = dgates_t @ W_hh, these rows
    let dn = out.dh_next.rows(r0 * hd, nr * hd);
    if let Some(pk) = inp.packed {
        return T::packed_product(dn, hd, d, gh, nr, pk, None);
    }
    let dm = Mat::row_major(&*d, 0, nr, gh);
    gemm_into(
        dn,
        hd,
        dm,
        Mat::row_major(inp.w, 0, gh, hd),
        false,
        Parallelism::None,
    )
}
