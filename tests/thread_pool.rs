//! The kernels' pool with the calling thread as a worker (`ferrograd::threads`): kernels
//! called from that thread, from other threads, and nested, all finish with the right
//! results. Its own test binary, since it configures rayon's global pool.

use ferrograd::{DType, Tensor};
use rayon::prelude::*;

fn big_sum_check(n: usize) {
    let t = ferrograd::tensor::full(&[n], 1.0, DType::F32).unwrap();
    let y = t.exp().unwrap().sum(None, false).unwrap();
    let got = y.item_f64().unwrap();
    let want = n as f64 * std::f64::consts::E;
    assert!((got - want).abs() / want < 1e-5, "{got} vs {want}");
}

#[test]
fn caller_thread_joins_the_pool_and_kernels_run_from_any_thread() {
    std::env::remove_var("FERROGRAD_CALLER_IN_POOL");
    let joined = ferrograd::threads::init_pool_with_current_thread();
    if rayon::current_num_threads() < 2 && !joined {
        // one thread: the pool is left as rayon builds it
        big_sum_check(1 << 20);
        return;
    }
    assert!(joined && ferrograd::threads::caller_in_pool());
    assert_eq!(rayon::current_thread_index(), Some(0));
    // a second call changes nothing
    assert!(ferrograd::threads::init_pool_with_current_thread());

    // kernels on the pool's own thread, large enough to be split
    big_sum_check(1 << 20);
    // a parallel iterator run directly on the caller
    let s: u64 = (0..1_000_000u64).into_par_iter().sum();
    assert_eq!(s, 999_999 * 1_000_000 / 2);

    // other threads (outside the pool) hand their kernels to the other workers
    let handles: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| big_sum_check(1 << 19)))
        .collect();
    // meanwhile the caller keeps running its own kernels
    for _ in 0..4 {
        big_sum_check(1 << 18);
    }
    for h in handles {
        h.join().unwrap();
    }

    // a matmul large enough for gemm's own threading
    let a = ferrograd::tensor::full(&[256, 256], 0.5, DType::F64).unwrap();
    let c: Tensor = a.matmul(&a).unwrap();
    assert!(c.to_vec::<f64>().unwrap().iter().all(|&v| v == 64.0));
}
