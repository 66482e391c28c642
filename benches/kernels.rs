//! Criterion benchmarks of ferrograd's kernels and autograd engine (see benches/README.md).
//!
//! Kernel benches run inside dedicated rayon pools of 1 and 2 threads, so the reported
//! ids end in `/1t` or `/2t`. Autograd benches run on the main thread: their tensors are
//! one element each, far below every parallel threshold.
//!
//! Run everything with `cargo bench --bench kernels`, or a subset with a filter, e.g.
//! `cargo bench --bench kernels -- matmul`.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use ferrograd::autograd::engine::{self, BackwardOptions};
use ferrograd::tensor::{self, Tensor};
use ferrograd::DType;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::hint::black_box;
use std::time::Duration;

/// Thread counts every kernel bench is run at.
const THREADS: [usize; 2] = [1, 2];

/// One rayon pool per entry of [`THREADS`].
fn pools() -> Vec<(usize, ThreadPool)> {
    THREADS
        .iter()
        .map(|&n| {
            let pool = ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("building a rayon pool");
            (n, pool)
        })
        .collect()
}

/// Settings for benches whose single iteration takes milliseconds or more: few samples,
/// one iteration count per sample, short warm-up.
fn configure_large(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
}

/// Settings for benches of microseconds per iteration.
fn configure_small(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

fn randn(shape: &[usize], dtype: DType) -> Tensor {
    tensor::randn(shape, dtype).expect("randn")
}

/// `a * b + a` on float32 vectors of 1K and 16M elements. Throughput counts the bytes
/// the two ops read and write (2 reads + 1 write each): `6 * 4 * n`.
fn bench_mul_add(c: &mut Criterion) {
    let pools = pools();
    for (label, n) in [("1K", 1usize << 10), ("16M", 1usize << 24)] {
        let mut group = c.benchmark_group(format!("mul_add_f32/{label}"));
        if n >= 1 << 20 {
            configure_large(&mut group);
        } else {
            configure_small(&mut group);
        }
        group.throughput(Throughput::BytesDecimal((6 * 4 * n) as u64));
        let a = randn(&[n], DType::F32);
        let b = randn(&[n], DType::F32);
        for (threads, pool) in &pools {
            group.bench_function(
                BenchmarkId::from_parameter(format!("{threads}t")),
                |bench| {
                    pool.install(|| {
                        bench.iter(|| black_box(a.mul(&b).unwrap().add(&a).unwrap()));
                    })
                },
            );
        }
        group.finish();
    }
}

/// Sums of a [4096, 4096] float32 matrix: over everything, over axis 0 (down columns) and
/// over axis 1 (along rows). Throughput counts the bytes read: `4 * 4096 * 4096`.
fn bench_sum(c: &mut Criterion) {
    const N: usize = 4096;
    let pools = pools();
    let x = randn(&[N, N], DType::F32);
    let mut group = c.benchmark_group("sum_f32_4096x4096");
    configure_large(&mut group);
    group.throughput(Throughput::BytesDecimal((4 * N * N) as u64));
    let cases: [(&str, Option<&[isize]>); 3] =
        [("all", None), ("axis0", Some(&[0])), ("axis1", Some(&[1]))];
    for (name, axes) in cases {
        for (threads, pool) in &pools {
            group.bench_function(BenchmarkId::new(name, format!("{threads}t")), |bench| {
                pool.install(|| bench.iter(|| black_box(x.sum(axes, false).unwrap())))
            });
        }
    }
    group.finish();
}

/// Square matrix products. Throughput is reported in "elements" equal to the
/// floating-point operations of one product, `2 * n^3`, so elem/s reads as FLOP/s.
fn bench_matmul(c: &mut Criterion) {
    let pools = pools();
    for n in [64usize, 1024] {
        let mut group = c.benchmark_group(format!("matmul/{n}x{n}"));
        if n >= 512 {
            configure_large(&mut group);
        } else {
            configure_small(&mut group);
        }
        group.throughput(Throughput::Elements(2 * (n as u64).pow(3)));
        for (dtype, dname) in [(DType::F32, "f32"), (DType::F64, "f64")] {
            let a = randn(&[n, n], dtype);
            let b = randn(&[n, n], dtype);
            for (threads, pool) in &pools {
                group.bench_function(BenchmarkId::new(dname, format!("{threads}t")), |bench| {
                    pool.install(|| bench.iter(|| black_box(a.matmul(&b).unwrap())))
                });
            }
        }
        group.finish();
    }
}

/// A one-element float32 leaf that requires grad.
fn leaf(v: f32) -> Tensor {
    let t = Tensor::from_vec(vec![v], &[1]).expect("from_vec");
    t.set_requires_grad(true).expect("requires_grad");
    t
}

/// Backward from a scalar root with gradient 1, freeing the graph.
fn backward(y: &Tensor) {
    let g = y.ones_like().expect("ones_like");
    engine::backward(std::slice::from_ref(y), vec![g], BackwardOptions::default())
        .expect("backward");
}

/// Per-op overhead of the engine: builds `(a * b + a).sum()` on one-element leaves and
/// runs backward (gradients accumulate into `a.grad` and `b.grad` across iterations),
/// then a 10,000-op chain `y = y + 1` followed by backward.
fn bench_autograd(c: &mut Criterion) {
    let mut group = c.benchmark_group("autograd");
    configure_small(&mut group);

    let a = leaf(1.5);
    let b = leaf(-0.5);
    group.bench_function("small_graph_fwd_bwd", |bench| {
        bench.iter(|| {
            let y = a
                .mul(&b)
                .unwrap()
                .add(&a)
                .unwrap()
                .sum(None, false)
                .unwrap();
            backward(&y);
            black_box(y)
        })
    });

    const CHAIN: usize = 10_000;
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(CHAIN as u64));
    let x = leaf(1.0);
    group.bench_function("chain_10k_fwd_bwd", |bench| {
        bench.iter(|| {
            let mut y = x.clone();
            for _ in 0..CHAIN {
                y = y.add_scalar(1.0).unwrap();
            }
            backward(&y);
            black_box(y)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_mul_add,
    bench_sum,
    bench_matmul,
    bench_autograd
);
criterion_main!(benches);
