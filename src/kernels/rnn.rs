//! Fused recurrent-layer kernels: the whole time loop of one LSTM or Elman (tanh/relu)
//! layer and direction, forward and backward through time.
//!
//! The caller has already computed the input projection of every step as one GEMM
//! (`xp = x @ W_ih^T + b_ih + b_hh`, `[T, B, G*H]`). Forward then runs, per step, one
//! GEMM `h @ W_hh^T` on the project's matmul and one pass of the gate arithmetic.
//! Backward runs the steps in reverse, one GEMM `dgates @ W_hh` per step for the
//! recurrent gradient, and accumulates `dW_hh` with one GEMM over all steps
//! (`dgates_all^T @ h_prev_all`, the previous states read in place as the states shifted
//! by one step, the first step's `h0` term added after); the gradient of `xp` is
//! `dgates_all` itself, so the caller's input projection gets its `dW_ih` in one GEMM as
//! well.
//!
//! Layouts are contiguous row-major: the states are `[S, T, B, H]` with `S = 2` for the
//! LSTM (hidden states, then cell states) and `S = 1` for an Elman network; gates are in
//! PyTorch's order (i, f, g, o).

use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernels::fastmath_gates;
use crate::kernels::gemm_into::{gemm_into, Mat, Parallelism};
use crate::kernels::matmul::matmul;
use crate::kernels::rnn_gemm::{self, PackedRhs};
use crate::kernels::rnn_step::{self, BwdIn, BwdOut, FwdIn, FwdOut, Shared};
use crate::layout::Layout;
use crate::storage::{try_filled_vec, try_vec_with_capacity};
use num_traits::Float;
use smallvec::smallvec;

/// The recurrent cell a fused layer runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Long short-term memory, gates i, f, g, o.
    Lstm,
    /// Elman network with `tanh`.
    Tanh,
    /// Elman network with `relu`.
    Relu,
    /// Gated recurrent unit, gates r, z, n (kernels in [`super::rnn_gru`]).
    Gru,
}

impl Cell {
    /// Gate blocks per hidden unit (rows of `W_hh` are `gates() * H`).
    pub fn gates(self) -> usize {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
            _ => 1,
        }
    }

    /// State tensors per step: `(h, c)` for the LSTM, `h` otherwise.
    pub fn states(self) -> usize {
        match self {
            Cell::Lstm => 2,
            _ => 1,
        }
    }
}

/// Sizes and direction of one layer run.
#[derive(Clone, Copy, Debug)]
pub struct Seq {
    /// Time steps `T` (at least 1).
    pub steps: usize,
    /// Batch size `B`.
    pub batch: usize,
    /// Hidden size `H`.
    pub hidden: usize,
    /// Run from the last step to the first.
    pub reverse: bool,
}

impl Seq {
    /// The time index of the `k`-th step processed.
    pub(crate) fn at(&self, k: usize) -> usize {
        if self.reverse {
            self.steps - 1 - k
        } else {
            k
        }
    }
    fn bh(&self) -> usize {
        self.batch * self.hidden
    }
}

/// Gradients of one layer run.
pub struct LayerGrads<T> {
    /// `d xp`, `[T, B, G*H]`.
    pub dxp: Vec<T>,
    /// `d W_hh`, `[G*H, H]`.
    pub dw: Vec<T>,
    /// `d h0`, `[B, H]`.
    pub dh0: Vec<T>,
    /// `d c0`, `[B, H]` (empty for an Elman network).
    pub dc0: Vec<T>,
}

/// The element types of the fused kernels, with their gate activations over slices.
pub trait RnnFloat: Element + Float {
    /// `dst[i] = 1 / (1 + e^-src[i])` over equal-length slices.
    fn sigmoid_into(src: &[Self], dst: &mut [Self]);
    /// `dst[i] = tanh(src[i])` over equal-length slices.
    fn tanh_into(src: &[Self], dst: &mut [Self]);
    /// `b` `[K, N]` packed for [`RnnFloat::packed_product`] (once per layer run), or
    /// `None` where this type or CPU has no packed kernel ([`rnn_gemm`]).
    fn pack_rhs(b: Mat<'_, Self>) -> Result<Option<PackedRhs<Self>>>;
    /// `dst = a @ b (+ add)` over `m` rows on an operand from [`RnnFloat::pack_rhs`]
    /// (row steps `dst_rs`, `a_rs` and `add.1`).
    fn packed_product(
        dst: &mut [Self],
        dst_rs: usize,
        a: &[Self],
        a_rs: usize,
        m: usize,
        b: &PackedRhs<Self>,
        add: Option<(&[Self], usize)>,
    ) -> Result<()>;
}

impl RnnFloat for f64 {
    fn sigmoid_into(src: &[f64], dst: &mut [f64]) {
        for (d, x) in dst.iter_mut().zip(src) {
            *d = 1.0 / (1.0 + (-x).exp());
        }
    }
    fn tanh_into(src: &[f64], dst: &mut [f64]) {
        for (d, x) in dst.iter_mut().zip(src) {
            *d = x.tanh();
        }
    }
    // float64 keeps gemm's path: the benchmarks and the packed kernel are float32
    fn pack_rhs(_: Mat<'_, f64>) -> Result<Option<PackedRhs<f64>>> {
        Ok(None)
    }
    fn packed_product(
        _: &mut [f64],
        _: usize,
        _: &[f64],
        _: usize,
        _: usize,
        _: &PackedRhs<f64>,
        _: Option<(&[f64], usize)>,
    ) -> Result<()> {
        Err(Error::runtime(
            "internal: no packed float64 recurrent kernel",
        ))
    }
}

// float32 gates run in float32 lanes (within 1-3 ulp, kernels::fastmath_gates): the
// float64-lane versions of kernels::fastmath cost about a quarter of a step's GEMM
impl RnnFloat for f32 {
    fn sigmoid_into(src: &[f32], dst: &mut [f32]) {
        fastmath_gates::sigmoid_gate_slice(src, dst);
    }
    fn tanh_into(src: &[f32], dst: &mut [f32]) {
        fastmath_gates::tanh_gate_slice(src, dst);
    }
    fn pack_rhs(b: Mat<'_, f32>) -> Result<Option<PackedRhs<f32>>> {
        rnn_gemm::pack(b)
    }
    fn packed_product(
        dst: &mut [f32],
        dst_rs: usize,
        a: &[f32],
        a_rs: usize,
        m: usize,
        b: &PackedRhs<f32>,
        add: Option<(&[f32], usize)>,
    ) -> Result<()> {
        rnn_gemm::product(dst, dst_rs, a, a_rs, m, b, add)
    }
}

/// `W^T` `[H, G*H]` (contiguous) of `W` `[G*H, H]`: transposed once per layer run, so
/// every step's `h @ W^T` reads a row-major operand that gemm uses without re-packing it
/// (through the transposed view gemm packed all of `W` on every step).
pub(crate) fn transpose_w<T: Element>(w: &[T], s: &Seq, g: usize) -> Result<Vec<T>> {
    let (rows, hd) = (g * s.hidden, s.hidden);
    let mut wt = try_filled_vec(rows * hd, <T as Element>::zero())?;
    // blocks of 32 rows keep both the reads and the writes within a few cache lines
    for r0 in (0..rows).step_by(32) {
        for p in 0..hd {
            for r in r0..(r0 + 32).min(rows) {
                wt[p * rows + r] = w[r * hd + p];
            }
        }
    }
    Ok(wt)
}

/// `h [B, H] @ W^T` from `wt = W^T` `[H, G*H]` ([`transpose_w`]): `[B, G*H]`.
pub(crate) fn h_times_wt<T: Element>(h: &[T], wt: &[T], s: &Seq, g: usize) -> Result<Vec<T>> {
    let (b, hd) = (s.batch, s.hidden);
    let lh = Layout::contiguous(&[b, hd]);
    let lw = Layout::contiguous(&[hd, g * hd]);
    matmul(h, &lh, wt, &lw)
}

/// Runs one layer over all steps. `xp` `[T, B, G*H]`, `w` (`W_hh`) `[G*H, H]`, `h0`/`c0`
/// `[B, H]` (`c0` ignored unless LSTM). Returns the states `[S, T, B, H]` and, for the
/// LSTM, the activated gates `[T, B, 4H]` backward needs (empty otherwise).
pub fn forward<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    xp: &[T],
    w: &[T],
    h0: &[T],
    c0: &[T],
) -> Result<(Vec<T>, Vec<T>)> {
    let rows = rnn_step::rows_per_task(s, cell.gates());
    forward_in_blocks(cell, s, xp, w, h0, c0, rows)
}

/// [`forward`] with each step's batch cut into blocks of `rows` rows (one task each).
pub(crate) fn forward_in_blocks<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    xp: &[T],
    w: &[T],
    h0: &[T],
    c0: &[T],
    rows: usize,
) -> Result<(Vec<T>, Vec<T>)> {
    if cell == Cell::Gru {
        return Err(Error::runtime("internal: the GRU runs in kernels::rnn_gru"));
    }
    let (g, hd, bh) = (cell.gates(), s.hidden, s.bh());
    let tbh = s
        .steps
        .checked_mul(bh)
        .ok_or_else(|| Error::value("rnn: size overflows"))?;
    // not zero-filled (12 MB per layer run in the benchmark's LSTM): every step writes
    // all of its rows of both, and their lengths are set after the last step
    let out_len = tbh * cell.states();
    let acts_len = if cell == Cell::Lstm { tbh * g } else { 0 };
    let mut out = try_vec_with_capacity::<T>(out_len)?;
    let mut acts = try_vec_with_capacity::<T>(acts_len)?;
    // W_hh^T packed once for every step (float32 on AVX2), else transposed once for gemm
    let packed = T::pack_rhs(Mat::row_major(w, 0, g * hd, hd).t())?;
    let wt = if packed.is_some() {
        Vec::new()
    } else {
        transpose_w(w, s, g)?
    };
    let mut pre = try_filled_vec(s.batch * g * hd, <T as Element>::zero())?;
    let lstm = cell == Cell::Lstm;
    // every step's reads and writes go through this one pointer into `out`, `out` is not
    // touched otherwise until the loop ends
    let (op, ap) = (out.as_mut_ptr(), acts.as_mut_ptr());
    let pp = Shared(pre.as_mut_ptr());
    for k in 0..s.steps {
        let t = s.at(k);
        // SAFETY: the previous step's rows (`p != t`) are only read, step t's rows are
        // written, each block of batch rows by one task (`over_rows`); all lie in `out`
        // (`S * T * B * H` elements) and `acts` (`T * B * G*H`, LSTM only).
        let (h_prev, c_prev): (&[T], &[T]) = if k == 0 {
            (h0, if lstm { c0 } else { &[] })
        } else {
            let p = s.at(k - 1);
            unsafe {
                (
                    std::slice::from_raw_parts(op.add(p * bh), bh),
                    if lstm {
                        std::slice::from_raw_parts(op.add(tbh + p * bh), bh)
                    } else {
                        &[]
                    },
                )
            }
        };
        let inp = FwdIn {
            h_prev,
            c_prev,
            x: &xp[t * bh * g..(t + 1) * bh * g],
            wt: &wt,
            packed: packed.as_ref(),
        };
        let dst = unsafe {
            FwdOut {
                h: Shared(op.add(t * bh)),
                c: Shared(if lstm { op.add(tbh + t * bh) } else { op }),
                acts: Shared(if lstm { ap.add(t * bh * g) } else { ap }),
                pre: pp,
            }
        };
        // SAFETY: see above; `pre` is scratch of `B * G*H`, each task its own rows.
        rnn_step::over_rows(s.batch, rows, &|r0, nr| unsafe {
            rnn_step::forward_rows(cell, s, &inp, &dst, r0, nr)
        })?;
    }
    // SAFETY: the loop visited every step `t` once, and `forward_rows` wrote every row of
    // step t of `out` (h, and c for the LSTM) and of `acts` (LSTM) over the whole batch;
    // the capacities are these lengths. An error above returned before this point.
    unsafe {
        out.set_len(out_len);
        acts.set_len(acts_len);
    }
    Ok((out, acts))
}

/// Backward through time of [`forward`]: `gout` is the gradient of the states
/// `[S, T, B, H]`, `out`/`acts` what forward returned.
#[allow(clippy::too_many_arguments)]
pub fn backward<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    w: &[T],
    h0: &[T],
    c0: &[T],
    out: &[T],
    acts: &[T],
    gout: &[T],
) -> Result<LayerGrads<T>> {
    let rows = rnn_step::rows_per_task(s, cell.gates());
    backward_in_blocks(cell, s, w, h0, c0, out, acts, gout, rows)
}

/// [`backward`] with each step's batch cut into blocks of `rows` rows (one task each).
#[allow(clippy::too_many_arguments)]
pub(crate) fn backward_in_blocks<T: RnnFloat>(
    cell: Cell,
    s: &Seq,
    w: &[T],
    h0: &[T],
    c0: &[T],
    out: &[T],
    acts: &[T],
    gout: &[T],
    rows: usize,
) -> Result<LayerGrads<T>> {
    if cell == Cell::Gru {
        return Err(Error::runtime("internal: the GRU runs in kernels::rnn_gru"));
    }
    let (g, hd, bh, steps) = (cell.gates(), s.hidden, s.bh(), s.steps);
    let tbh = steps * bh;
    let (hs, cs) = out.split_at(tbh);
    let (gh, gc) = gout.split_at(tbh);
    let lstm = cell == Cell::Lstm;
    // not zero-filled: every step writes all of its rows (length set after the loop)
    let mut dxp = try_vec_with_capacity::<T>(tbh * g)?;
    // the recurrent gradient, read from one buffer and written to the other each step
    let mut dh = try_filled_vec(bh, <T as Element>::zero())?;
    let mut dh_next = try_filled_vec(bh, <T as Element>::zero())?;
    let mut dc = try_filled_vec(if lstm { bh } else { 0 }, <T as Element>::zero())?;
    // W_hh `[G*H, H]` packed once for every step's `dgates @ W_hh` (float32 on AVX2)
    let packed = T::pack_rhs(Mat::row_major(w, 0, g * hd, hd))?;
    for k in (0..steps).rev() {
        let t = s.at(k);
        let c_prev: &[T] = if !lstm {
            &[]
        } else if k == 0 {
            c0
        } else {
            let p = s.at(k - 1);
            &cs[p * bh..(p + 1) * bh]
        };
        let inp = BwdIn {
            gh: &gh[t * bh..(t + 1) * bh],
            gc: if lstm { &gc[t * bh..(t + 1) * bh] } else { &[] },
            dh: &dh,
            h: &hs[t * bh..(t + 1) * bh],
            c: if lstm { &cs[t * bh..(t + 1) * bh] } else { &[] },
            c_prev,
            acts: if lstm {
                &acts[t * bh * g..(t + 1) * bh * g]
            } else {
                &[]
            },
            w,
            packed: packed.as_ref(),
        };
        let dst = BwdOut {
            // SAFETY: `t * B * G*H` is inside the capacity of `tbh * G` elements
            d: Shared(unsafe { dxp.as_mut_ptr().add(t * bh * g) }),
            dc: Shared(dc.as_mut_ptr()),
            dh_next: Shared(dh_next.as_mut_ptr()),
        };
        // SAFETY: step t's rows of `dxp` (`B * G*H` from `t * B * G*H`), `dc` and
        // `dh_next` (`B * H` each) are written, each block of batch rows by one task;
        // `inp` reads other buffers only (`dh` is not `dh_next`).
        rnn_step::over_rows(s.batch, rows, &|r0, nr| unsafe {
            rnn_step::backward_rows(cell, s, &inp, &dst, r0, nr)
        })?;
        std::mem::swap(&mut dh, &mut dh_next);
    }
    // SAFETY: the loop visited every step `t` once and `backward_rows` wrote every row of
    // step t of `dxp` over the whole batch; the capacity is this length.
    unsafe { dxp.set_len(tbh * g) };
    let dw = dw_hh(s, g, &dxp, hs, h0)?;
    Ok(LayerGrads {
        dxp,
        dw,
        dh0: dh,
        dc0: dc,
    })
}

/// `dW_hh = sum over steps of dgates_t^T @ h_prev_t` (`dxp` `[T, B, G*H]`, the states
/// `hs` `[T, B, H]`), `[G*H, H]`. The previous state of every step but the first one
/// processed is the state of the step before it, so `hs` shifted by one step is read in
/// place: one GEMM over `T - 1` steps (no `[T, B, H]` copy of the previous states), plus
/// the first step's `dgates^T @ h0` added to it.
fn dw_hh<T: RnnFloat>(s: &Seq, g: usize, dxp: &[T], hs: &[T], h0: &[T]) -> Result<Vec<T>> {
    let (hd, bh, steps) = (s.hidden, s.bh(), s.steps);
    let gh = g * hd;
    // forward: steps 1.. with the states of 0..T-1; reverse: 0..T-1 with those of 1..
    let (first, d_from, h_from) = if s.reverse {
        (steps - 1, 0, bh)
    } else {
        (0, bh * g, 0)
    };
    let rows = (steps - 1) * s.batch;
    let mut dw = if rows == 0 {
        try_filled_vec(gh * hd, <T as Element>::zero())?
    } else {
        let mut ldt = Layout::contiguous(&[gh, rows]);
        ldt.strides = smallvec![1, gh as isize];
        let d = &dxp[d_from..d_from + rows * gh];
        let h = &hs[h_from..h_from + rows * hd];
        matmul(d, &ldt, h, &Layout::contiguous(&[rows, hd]))?
    };
    let d0 = Mat::row_major(dxp, first * bh * g, s.batch, gh).t();
    let h0m = Mat::row_major(h0, 0, s.batch, hd);
    gemm_into(&mut dw, hd, d0, h0m, true, Parallelism::None)?;
    Ok(dw)
}

#[cfg(test)]
#[path = "rnn_tests.rs"]
mod tests;
