//! Tests of the fused LSTM / Elman layer kernels: the transposed weight, `dW_hh`, the
//! batch split into row blocks, and backward against finite differences.
use super::*;

fn lcg(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        })
        .collect()
}

/// The sum of `out * weights`, a scalar loss for finite differences.
fn loss(cell: Cell, s: &Seq, xp: &[f64], w: &[f64], h0: &[f64], c0: &[f64], r: &[f64]) -> f64 {
    let (out, _) = forward(cell, s, xp, w, h0, c0).unwrap();
    out.iter().zip(r).map(|(a, b)| a * b).sum()
}

#[test]
fn transpose_w_is_the_transpose() {
    // row counts below, at and past the 32-row block, odd hidden sizes
    for (g, hd) in [(1, 1), (4, 3), (4, 8), (3, 11), (4, 9), (1, 70)] {
        let s = Seq {
            steps: 1,
            batch: 1,
            hidden: hd,
            reverse: false,
        };
        let w = lcg(g * hd * hd, 7);
        let wt = transpose_w(&w, &s, g).unwrap();
        for r in 0..g * hd {
            for p in 0..hd {
                assert_eq!(
                    wt[p * g * hd + r],
                    w[r * hd + p],
                    "g={g} hd={hd} r={r} p={p}"
                );
            }
        }
    }
}

#[test]
fn dw_hh_is_the_sum_over_steps_of_dgates_by_the_previous_state() {
    // one step (the h0 term alone), two, and five, in both directions, G = 4 and 1
    for (steps, g) in [(1, 4), (2, 4), (5, 4), (5, 1)] {
        for reverse in [false, true] {
            let s = Seq {
                steps,
                batch: 3,
                hidden: 2,
                reverse,
            };
            let (gh, bh) = (g * 2, 6);
            let dxp = lcg(steps * 3 * gh, 21);
            let hs = lcg(steps * bh, 22);
            let h0 = lcg(bh, 23);
            let got = dw_hh(&s, g, &dxp, &hs, &h0).unwrap();
            let mut want = vec![0.0; gh * 2];
            for k in 0..steps {
                let t = s.at(k);
                let prev = if k == 0 {
                    &h0[..]
                } else {
                    &hs[s.at(k - 1) * bh..(s.at(k - 1) + 1) * bh]
                };
                for b in 0..3 {
                    for r in 0..gh {
                        for c in 0..2 {
                            want[r * 2 + c] += dxp[(t * 3 + b) * gh + r] * prev[b * 2 + c];
                        }
                    }
                }
            }
            for (i, (x, y)) in got.iter().zip(&want).enumerate() {
                assert!((x - y).abs() < 1e-13, "T={steps} rev={reverse} [{i}]");
            }
        }
    }
}

#[test]
fn batch_blocks_match_the_whole_batch() {
    // blocks of 2 rows (2, 2, 1: the last one short) run as pool tasks; the results
    // must equal one block of the whole batch
    for cell in [Cell::Lstm, Cell::Tanh, Cell::Relu] {
        for reverse in [false, true] {
            let s = Seq {
                steps: 4,
                batch: 5,
                hidden: 3,
                reverse,
            };
            let g = cell.gates();
            let xp = lcg(4 * 5 * 3 * g, 11);
            let w = lcg(g * 3 * 3, 12);
            let (h0, c0) = (lcg(15, 13), lcg(15, 14));
            let whole = forward_in_blocks(cell, &s, &xp, &w, &h0, &c0, 5).unwrap();
            let split = forward_in_blocks(cell, &s, &xp, &w, &h0, &c0, 2).unwrap();
            let close = |a: &[f64], b: &[f64], what: &str| {
                assert_eq!(a.len(), b.len());
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    assert!((x - y).abs() < 1e-13, "{cell:?} {what}[{i}]: {x} vs {y}");
                }
            };
            close(&whole.0, &split.0, "states");
            close(&whole.1, &split.1, "acts");
            let r = lcg(whole.0.len(), 15);
            let (o, a) = (&whole.0, &whole.1);
            let gw = backward_in_blocks(cell, &s, &w, &h0, &c0, o, a, &r, 5).unwrap();
            let gs = backward_in_blocks(cell, &s, &w, &h0, &c0, o, a, &r, 2).unwrap();
            close(&gw.dxp, &gs.dxp, "dxp");
            close(&gw.dw, &gs.dw, "dw");
            close(&gw.dh0, &gs.dh0, "dh0");
            close(&gw.dc0, &gs.dc0, "dc0");
        }
    }
}

#[test]
fn backward_matches_finite_differences() {
    for cell in [Cell::Lstm, Cell::Tanh, Cell::Relu] {
        for reverse in [false, true] {
            let s = Seq {
                steps: 3,
                batch: 2,
                hidden: 3,
                reverse,
            };
            let g = cell.gates();
            let xp = lcg(3 * 2 * 3 * g, 1);
            let w = lcg(g * 3 * 3, 2);
            let h0 = lcg(6, 3);
            let c0 = lcg(6, 4);
            let (out, acts) = forward(cell, &s, &xp, &w, &h0, &c0).unwrap();
            let r = lcg(out.len(), 5);
            let gr = backward(cell, &s, &w, &h0, &c0, &out, &acts, &r).unwrap();
            let eps = 1e-6;
            // numeric check of every input, one at a time
            let num = |xp: &[f64], w: &[f64]| loss(cell, &s, xp, w, &h0, &c0, &r);
            for i in 0..xp.len() {
                let mut a = xp.clone();
                a[i] += eps;
                let mut b = xp.clone();
                b[i] -= eps;
                let fd = (num(&a, &w) - num(&b, &w)) / (2.0 * eps);
                assert!((fd - gr.dxp[i]).abs() < 1e-7, "{cell:?} dxp[{i}]");
            }
            for i in 0..w.len() {
                let mut a = w.clone();
                a[i] += eps;
                let mut b = w.clone();
                b[i] -= eps;
                let fd = (num(&xp, &a) - num(&xp, &b)) / (2.0 * eps);
                assert!((fd - gr.dw[i]).abs() < 1e-7, "{cell:?} dw[{i}]");
            }
            for i in 0..h0.len() {
                let mut a = h0.clone();
                a[i] += eps;
                let mut b = h0.clone();
                b[i] -= eps;
                let fd = (loss(cell, &s, &xp, &w, &a, &c0, &r)
                    - loss(cell, &s, &xp, &w, &b, &c0, &r))
                    / (2.0 * eps);
                assert!((fd - gr.dh0[i]).abs() < 1e-7, "{cell:?} dh0[{i}]");
                if cell == Cell::Lstm {
                    let mut a = c0.clone();
                    a[i] += eps;
                    let mut b = c0.clone();
                    b[i] -= eps;
                    let fd = (loss(cell, &s, &xp, &w, &h0, &a, &r)
                        - loss(cell, &s, &xp, &w, &h0, &b, &r))
                        / (2.0 * eps);
                    assert!((fd - gr.dc0[i]).abs() < 1e-7, "{cell:?} dc0[{i}]");
                }
            }
        }
    }
}
