//! Tests of the unit-stride kernels (the shifted gemm and the direct kernel on the padded
//! grid) against a naive convolution: forward, input, weight and bias gradients over
//! padding (uneven, "same", none), dilation, groups, 1-D/2-D/3-D and odd sizes that
//! leave remainders in the 32-column blocks; and the geometries they decline.

use super::*;
use crate::kernels::conv::Window;
use crate::kernels::conv_direct as kd;

/// A deterministic pseudo-random vector in [-1, 1).
fn vals(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

struct Case {
    n: usize,
    c: usize,
    o: usize,
    groups: usize,
    spatial: Vec<usize>,
    kernel: Vec<usize>,
    dilation: Vec<usize>,
    lo: Vec<isize>,
    hi: Vec<isize>,
}

impl Case {
    fn dims(&self) -> ConvDims {
        let nd = self.spatial.len();
        let win = Window {
            kernel: self.kernel.clone(),
            stride: vec![1; nd],
            dilation: self.dilation.clone(),
            pad_lo: self.lo.clone(),
            pad_hi: self.hi.clone(),
        };
        ConvDims::new(
            "t",
            (self.n, self.c, self.o),
            self.groups,
            &self.spatial,
            &win,
        )
        .unwrap()
    }
}

/// Every (output index, input index or None for padding, weight index) of a unit-stride
/// convolution, as a naive loop.
fn triples(d: &ConvDims, mut f: impl FnMut(usize, Option<usize>, usize)) {
    let nd = d.win.stride.len();
    let pad3 = |v: &[usize], fill: usize| {
        let mut r = [fill; 3];
        r[3 - nd..].copy_from_slice(v);
        r
    };
    let s = d.geo.spatial;
    let k = d.geo.kernel;
    let o3 = d.geo.out;
    let dl = pad3(&d.win.dilation, 1);
    let mut lo = [0isize; 3];
    lo[3 - nd..].copy_from_slice(&d.win.pad_lo);
    let (cg, og) = (d.cg(), d.og());
    for n in 0..d.n {
        for oc in 0..d.o {
            let gi = oc / og;
            for ci in 0..cg {
                for p in 0..o3[0] * o3[1] * o3[2] {
                    let op = [p / (o3[1] * o3[2]), p / o3[2] % o3[1], p % o3[2]];
                    for t in 0..d.kk {
                        let tk = [t / (k[1] * k[2]), t / k[2] % k[1], t % k[2]];
                        let mut inside = true;
                        let mut idx = 0usize;
                        for a in 0..3 {
                            let i = (op[a] + tk[a] * dl[a]) as isize - lo[a];
                            inside &= i >= 0 && i < s[a] as isize;
                            idx = idx * s[a] + i.max(0) as usize;
                        }
                        let out = (n * d.o + oc) * d.l + p;
                        let inp = ((n * d.c + gi * cg + ci) * d.plane + idx, inside);
                        f(out, inp.1.then_some(inp.0), (oc * cg + ci) * d.kk + t);
                    }
                }
            }
        }
    }
}

fn close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
            "{what}[{i}]: {a} vs {b}"
        );
    }
}

fn check(case: Case, want_shift: bool) {
    let d = case.dims();
    let x = vals(d.n * d.c * d.plane, 1);
    let w = vals(d.o * d.cg() * d.kk, 2);
    let b = vals(d.o, 3);
    let gy = vals(d.n * d.o * d.l, 4);
    let mut out = vec![0.0; d.n * d.o * d.l];
    for (oi, v) in out.iter_mut().enumerate() {
        *v = b[oi / d.l % d.o];
    }
    let (mut dx, mut dw) = (vec![0.0; x.len()], vec![0.0; w.len()]);
    triples(&d, |o, i, wi| {
        if let Some(i) = i {
            out[o] += w[wi] * x[i];
            dx[i] += w[wi] * gy[o];
            dw[wi] += x[i] * gy[o];
        }
    });
    let mut db = vec![0.0; d.o];
    for (oi, v) in gy.iter().enumerate() {
        db[oi / d.l % d.o] += v;
    }
    // the shifted gemm
    let plan = plan(&d, true);
    assert_eq!(plan.is_some(), want_shift, "shift plan");
    if let Some(plan) = plan {
        close(
            &forward(&x, &w, Some(&b), &d, &plan).unwrap(),
            &out,
            "shift out",
        );
        let g = backward(&x, &w, &gy, &d, &plan, (true, true, true)).unwrap();
        close(&g.dx.unwrap(), &dx, "shift dx");
        close(&g.dw.unwrap(), &dw, "shift dw");
        close(&g.db.unwrap(), &db, "shift db");
        let g = backward(&x, &w, &gy, &d, &plan, (false, true, false)).unwrap();
        assert!(g.dx.is_none() && g.db.is_none());
        close(&g.dw.unwrap(), &dw, "shift dw alone");
        check_f32(&d, &plan, [&x, &w, &b, &gy], [&out, &dx, &dw, &db]);
    }
    // the direct kernel (on the padded grid where the pads are non-negative)
    if d.win.pad_lo.iter().chain(&d.win.pad_hi).all(|&p| p >= 0) {
        close(
            &kd::forward(&x, &w, Some(&b), &d).unwrap(),
            &out,
            "direct out",
        );
        close(&kd::input_grad(&w, &gy, &d).unwrap(), &dx, "direct dx");
        let (gw, gb) = kd::weight_grad(&x, &gy, &d, true).unwrap();
        close(&gw, &dw, "direct dw");
        close(&gb.unwrap(), &db, "direct db");
    }
}

/// The shifted path in float32 (the packed-panel kernel where the CPU has AVX2/FMA)
/// against the float64 reference, within float32 rounding of sums of up to `terms`.
fn check_f32(d: &ConvDims, plan: &ShiftPlan, inputs: [&[f64]; 4], want: [&[f64]; 4]) {
    let [x, w, b, gy] = inputs.map(|v| v.iter().map(|&a| a as f32).collect::<Vec<f32>>());
    let near = |got: &[f32], want: &[f64], terms: usize, what: &str| {
        assert_eq!(got.len(), want.len(), "{what}: length");
        let tol = 4e-7 * (terms as f64).max(1.0);
        for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
            assert!(
                (a as f64 - b).abs() <= tol * (1.0 + b.abs()),
                "{what}[{i}]: {a} vs {b}"
            );
        }
    };
    let [out, dx, dw, db] = want;
    let taps = d.cg() * d.kk + 1;
    near(
        &forward(&x, &w, Some(&b), d, plan).unwrap(),
        out,
        taps,
        "f32 out",
    );
    let g = backward(&x, &w, &gy, d, plan, (true, true, true)).unwrap();
    near(&g.dx.unwrap(), dx, d.og() * d.kk, "f32 dx");
    near(&g.dw.unwrap(), dw, d.n * d.l, "f32 dw");
    near(&g.db.unwrap(), db, d.n * d.l, "f32 db");
    let g = backward(&x, &w, &gy, d, plan, (true, false, false)).unwrap();
    near(&g.dx.unwrap(), dx, d.og() * d.kk, "f32 dx alone");
    let g = backward(&x, &w, &gy, d, plan, (false, true, false)).unwrap();
    near(&g.dw.unwrap(), dw, d.n * d.l, "f32 dw alone");
}

#[test]
fn float32_packed_panels() {
    // output channels past and short of the 6-row blocks (13, 14, 8 per group), rows of
    // exactly two 16-wide panels (32) and with a short last panel (37, 17, 19), batch 1,
    // groups, dilation, "same" and no padding
    check(
        case(1, (5, 13, 1), &[5, 37], &[3, 3], &[1, 1], &[1, 1], &[1, 1]),
        true,
    );
    check(
        case(3, (7, 14, 1), &[6, 32], &[3, 3], &[1, 1], &[1, 1], &[1, 1]),
        true,
    );
    check(
        case(2, (12, 16, 2), &[9, 17], &[3, 3], &[1, 1], &[0, 0], &[0, 0]),
        true,
    );
    check(
        case(2, (5, 7, 1), &[10, 19], &[3, 3], &[2, 2], &[2, 2], &[2, 2]),
        true,
    );
}

#[allow(clippy::too_many_arguments)]
fn case(
    n: usize,
    (c, o, groups): (usize, usize, usize),
    spatial: &[usize],
    kernel: &[usize],
    dilation: &[usize],
    lo: &[isize],
    hi: &[isize],
) -> Case {
    Case {
        n,
        c,
        o,
        groups,
        spatial: spatial.to_vec(),
        kernel: kernel.to_vec(),
        dilation: dilation.to_vec(),
        lo: lo.to_vec(),
        hi: hi.to_vec(),
    }
}

#[test]
fn same_padding_3x3_odd_sizes() {
    // 37 columns and 7 x 37 outputs: remainders in every 32-column block
    check(
        case(3, (3, 4, 1), &[7, 37], &[3, 3], &[1, 1], &[1, 1], &[1, 1]),
        true,
    );
    check(
        case(2, (2, 5, 1), &[5, 6], &[3, 3], &[1, 1], &[1, 1], &[1, 1]),
        true,
    );
}

#[test]
fn uneven_and_no_padding_and_rectangular_kernels() {
    check(
        case(2, (3, 2, 1), &[6, 9], &[2, 3], &[1, 1], &[1, 0], &[0, 2]),
        true,
    );
    check(
        case(1, (2, 3, 1), &[5, 8], &[3, 2], &[1, 1], &[0, 0], &[0, 0]),
        true,
    );
    check(
        case(2, (1, 1, 1), &[4, 40], &[1, 5], &[1, 1], &[0, 2], &[0, 2]),
        true,
    );
}

#[test]
fn dilation_in_every_dim() {
    check(
        case(2, (2, 3, 1), &[9, 11], &[3, 3], &[2, 3], &[2, 3], &[2, 3]),
        true,
    );
    check(
        case(1, (2, 2, 1), &[9, 10], &[3, 2], &[2, 2], &[1, 0], &[3, 2]),
        true,
    );
}

#[test]
fn groups_depthwise_and_channel_multipliers() {
    check(
        case(2, (4, 6, 2), &[6, 7], &[3, 3], &[1, 1], &[1, 1], &[1, 1]),
        true,
    );
    check(
        case(3, (4, 4, 4), &[9, 33], &[3, 3], &[1, 1], &[1, 1], &[1, 1]),
        true,
    );
    check(
        case(2, (3, 6, 3), &[5, 5], &[3, 3], &[1, 2], &[1, 2], &[1, 2]),
        true,
    );
}

#[test]
fn one_and_three_spatial_dims() {
    check(case(2, (3, 4, 1), &[45], &[5], &[1], &[2], &[2]), true);
    check(case(2, (4, 4, 4), &[11], &[5], &[2], &[4], &[4]), true);
    let c3 = case(
        2,
        (2, 3, 1),
        &[3, 4, 5],
        &[2, 3, 2],
        &[1, 1, 2],
        &[1, 0, 1],
        &[0, 1, 1],
    );
    check(c3, true);
}

#[test]
fn geometries_the_shifted_path_declines() {
    // a pad past dilation*(kernel-1): the input gradient would need cropping
    check(
        case(1, (2, 2, 1), &[5, 6], &[3, 3], &[1, 1], &[3, 1], &[1, 1]),
        false,
    );
    // negative padding (a crop)
    check(
        case(1, (2, 2, 1), &[5, 6], &[3, 3], &[1, 1], &[-1, 0], &[0, 0]),
        false,
    );
    // a 1x1 kernel (the input is its own column matrix on the im2col path)
    check(
        case(1, (2, 2, 1), &[5, 6], &[1, 1], &[1, 1], &[0, 0], &[0, 0]),
        false,
    );
}
