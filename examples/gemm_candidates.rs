//! The matrix-product candidates of issue #23 side by side on this machine, in one
//! process: the `gemm` crate on one thread, the `gemm` crate with its own rayon
//! threading, ferrograd's entry point (`kernels::gemm_split::gemm_tiled`: per-thread
//! tiles for short-sided products and large `a @ b.T` with few rows, gemm's threading
//! otherwise) on the pool and on one thread, `faer`'s matmul (one thread: ferrograd
//! builds faer without its rayon feature), and two single-threaded gemm calls on the
//! output's column or row halves on `rayon::join` (how per-thread tiles compare with the
//! crate's threading for a shape). `GEMM_LAYOUT=NT` and `GEMM_CANDIDATES=0,4` select
//! shapes and candidates (0-6, in the order printed).
//!
//! `cargo run --release --example gemm_candidates [rounds]` prints GFLOP/s, the best of
//! `rounds` calls (default 30) per candidate, the candidates interleaved call by call so
//! that a busy machine slows them alike. `benches/gemm_candidates.py` prints NumPy's
//! (OpenBLAS) and PyTorch's figures for the same shapes.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use ferrograd::kernels::gemm_split::{gemm_tiled, GemmArgs};
use std::time::Instant;

/// `(m, k, n, layout)` (576 x 1024 x 64 NT: a convolution's weight gradient): `NN` is `a @ b`, `NT` is `a @ b^T`, `TN` is `a^T @ b`.
const SHAPES: &[(usize, usize, usize, &str)] = &[
    (64, 64, 64, "NN"),
    (1024, 1024, 1024, "NN"),
    (256, 1024, 1024, "NN"),
    (256, 1024, 1024, "NT"),
    (1024, 256, 1024, "TN"),
    (128, 784, 256, "NN"),
    (784, 128, 256, "TN"),
    (128, 256, 784, "NT"),
    (576, 1024, 64, "NT"),
    (128, 256, 10, "NN"),
    (32, 256, 1024, "NN"),
    (64, 1024, 4096, "NN"),
];

/// One product `dst = a @ b` with `a` and `b` read through the layout's strides.
struct Case<T> {
    m: usize,
    k: usize,
    n: usize,
    a: Vec<T>,
    b: Vec<T>,
    a_t: bool,
    b_t: bool,
    dst: Vec<T>,
}

macro_rules! candidates {
    ($t:ty, $name:literal) => {
        impl Case<$t> {
            fn new(m: usize, k: usize, n: usize, layout: &str) -> Self {
                let fill = |len: usize| (0..len).map(|i| ((i * 37 % 101) as $t) * 0.01).collect();
                Case {
                    m,
                    k,
                    n,
                    a: fill(m * k),
                    b: fill(k * n),
                    a_t: layout == "TN",
                    b_t: layout == "NT",
                    dst: vec![0.0; m * n],
                }
            }

            /// (col step, row step) of a (stored [k, m] when transposed) and b.
            fn steps(&self) -> ((isize, isize), (isize, isize)) {
                let (m, k, n) = (self.m as isize, self.k as isize, self.n as isize);
                let a = if self.a_t { (m, 1) } else { (1, k) };
                let b = if self.b_t { (k, 1) } else { (1, n) };
                (a, b)
            }

            fn run_gemm(&mut self, tiled: Option<bool>, par: gemm::Parallelism) {
                let ((a_cs, a_rs), (b_cs, b_rs)) = self.steps();
                let args = GemmArgs {
                    m: self.m,
                    n: self.n,
                    k: self.k,
                    dst: self.dst.as_mut_ptr(),
                    dst_cs: 1,
                    dst_rs: self.n as isize,
                    read_dst: false,
                    lhs: self.a.as_ptr(),
                    lhs_cs: a_cs,
                    lhs_rs: a_rs,
                    rhs: self.b.as_ptr(),
                    rhs_cs: b_cs,
                    rhs_rs: b_rs,
                    alpha: 0.0,
                    beta: 1.0,
                };
                // SAFETY: the buffers hold exactly the views' elements.
                unsafe {
                    match tiled {
                        Some(parallel) => gemm_tiled(args, parallel),
                        None => gemm::gemm(
                            args.m,
                            args.n,
                            args.k,
                            args.dst,
                            1,
                            args.dst_rs,
                            false,
                            args.lhs,
                            a_cs,
                            a_rs,
                            args.rhs,
                            b_cs,
                            b_rs,
                            0.0,
                            1.0,
                            false,
                            false,
                            false,
                            par,
                        ),
                    }
                }
            }

            /// Experiment: two single-threaded gemm calls on halves of the output
            /// (`by_cols`: column halves), on rayon::join.
            fn run_halves(&mut self, by_cols: bool) {
                let ((a_cs, a_rs), (b_cs, b_rs)) = self.steps();
                let (m, n, k) = (self.m, self.n, self.k);
                let dst = self.dst.as_mut_ptr() as usize;
                let (a, b) = (self.a.as_ptr() as usize, self.b.as_ptr() as usize);
                let half = |lo: usize, hi: usize| {
                    let (r0, r1, c0, c1) = if by_cols {
                        (0, m, lo, hi)
                    } else {
                        (lo, hi, 0, n)
                    };
                    // SAFETY: disjoint output halves of buffers sized for the product.
                    unsafe {
                        gemm::gemm(
                            r1 - r0,
                            c1 - c0,
                            k,
                            (dst as *mut $t).add(r0 * n + c0),
                            1,
                            n as isize,
                            false,
                            (a as *const $t).offset(r0 as isize * a_rs),
                            a_cs,
                            a_rs,
                            (b as *const $t).offset(c0 as isize * b_cs),
                            b_cs,
                            b_rs,
                            0.0,
                            1.0,
                            false,
                            false,
                            false,
                            gemm::Parallelism::None,
                        )
                    }
                };
                let side = if by_cols { n } else { m };
                let mid = (side / 2).div_ceil(64) * 64;
                rayon::join(|| half(0, mid), || half(mid, side));
            }

            fn run_faer(&mut self) {
                let (m, k, n) = (self.m, self.k, self.n);
                let a = if self.a_t {
                    MatRef::from_row_major_slice(&self.a, k, m).transpose()
                } else {
                    MatRef::from_row_major_slice(&self.a, m, k)
                };
                let b = if self.b_t {
                    MatRef::from_row_major_slice(&self.b, n, k).transpose()
                } else {
                    MatRef::from_row_major_slice(&self.b, k, n)
                };
                let dst = MatMut::from_row_major_slice_mut(&mut self.dst, m, n);
                matmul(dst, Accum::Replace, a, b, 1.0, Par::Seq);
            }

            fn report(m: usize, k: usize, n: usize, layout: &str, rounds: usize) {
                let mut c = Self::new(m, k, n, layout);
                let names = [
                    "gemm 1 thread",
                    "gemm rayon",
                    "ferrograd",
                    "faer 1 thread",
                    "ferrograd 1 thread",
                    "halves by cols",
                    "halves by rows",
                ];
                let mut best = [f64::INFINITY; 7];
                // GEMM_CANDIDATES=0,4 runs only those candidates
                let only: Option<Vec<usize>> = std::env::var("GEMM_CANDIDATES")
                    .ok()
                    .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect());
                for _ in 0..rounds {
                    for (i, b) in best.iter_mut().enumerate() {
                        if only.as_ref().is_some_and(|o| !o.contains(&i)) {
                            continue;
                        }
                        let t = Instant::now();
                        match i {
                            0 => c.run_gemm(None, gemm::Parallelism::None),
                            1 => c.run_gemm(None, gemm::Parallelism::Rayon(0)),
                            2 => c.run_gemm(Some(true), gemm::Parallelism::None),
                            3 => c.run_faer(),
                            4 => c.run_gemm(Some(false), gemm::Parallelism::None),
                            5 => c.run_halves(true),
                            _ => c.run_halves(false),
                        }
                        *b = b.min(t.elapsed().as_secs_f64());
                    }
                }
                let flop = 2.0 * (m * k * n) as f64;
                let cells: Vec<String> = names
                    .iter()
                    .zip(best)
                    .map(|(nm, s)| format!("{nm} {:.1}", flop / s / 1e9))
                    .collect();
                println!("{} {m}x{k}x{n} {layout}: {}", $name, cells.join(", "));
            }
        }
    };
}

candidates!(f32, "f32");
candidates!(f64, "f64");

fn main() {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    println!(
        "GFLOP/s, best of {rounds} interleaved calls; rayon threads: {}",
        rayon::current_num_threads()
    );
    // GEMM_LAYOUT=NT keeps only that layout's shapes
    let keep = std::env::var("GEMM_LAYOUT").ok();
    for &(m, k, n, layout) in SHAPES {
        if keep.as_deref().is_some_and(|l| l != layout) {
            continue;
        }
        Case::<f32>::report(m, k, n, layout, rounds);
    }
    for &(m, k, n, layout) in &SHAPES[..3] {
        Case::<f64>::report(m, k, n, layout, rounds);
    }
}
