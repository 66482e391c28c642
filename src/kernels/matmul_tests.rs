//! Tests of the matmul kernel against a naive triple loop.
use super::*;
use crate::error::ErrorKind;

/// Deterministic values in [-2, 2] in steps of 0.1.
fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
        ((s >> 33) % 41) as f64 / 10.0 - 2.0
    };
    (0..n).map(|_| next()).collect()
}

fn c(shape: &[usize]) -> Layout {
    Layout::contiguous(shape)
}

fn lay(shape: &[usize], strides: &[isize], offset: usize) -> Layout {
    let (shape, strides) = (shape.into(), strides.into());
    Layout {
        shape,
        strides,
        offset,
    }
}

/// Naive f64 triple loop: promotes with `unsqueeze`, broadcasts with `broadcast_to`.
fn reference(a: &[f64], la: &Layout, b: &[f64], lb: &Layout) -> Vec<f64> {
    let (pa, pb) = match (la.ndim(), lb.ndim()) {
        (1, 1) => (la.unsqueeze(0), lb.unsqueeze(1)),
        (1, _) => (la.unsqueeze(0), lb.clone()),
        (_, 1) => (la.clone(), lb.unsqueeze(1)),
        _ => (la.clone(), lb.clone()),
    };
    let (na, nb) = (pa.ndim() - 2, pb.ndim() - 2);
    let (m, k, n) = (pa.shape[na], pa.shape[na + 1], pb.shape[nb + 1]);
    let batch = broadcast_shapes(&pa.shape[..na], &pb.shape[..nb], "t").unwrap();
    let full = |l: &Layout, r, c| {
        let shape: Shape = batch.iter().copied().chain([r, c]).collect();
        l.broadcast_to(&shape, "t").unwrap().offsets().unwrap()
    };
    let (oa, ob) = (full(&pa, m, k), full(&pb, k, n));
    let mut out = vec![0.0; batch.iter().product::<usize>() * m * n];
    for (r, o) in out.iter_mut().enumerate() {
        let (bi, i, j) = (r / (m * n), r / n % m, r % n);
        for q in 0..k {
            *o += a[oa[(bi * m + i) * k + q]] * b[ob[(bi * k + q) * n + j]];
        }
    }
    out
}

/// Checks f64, f32 and i64 (values scaled by 10) results against the reference.
fn check(a: &[f64], la: &Layout, b: &[f64], lb: &Layout, shape: &[usize]) {
    assert_eq!(
        matmul_shape(&la.shape, &lb.shape).unwrap().as_slice(),
        shape
    );
    let want = reference(a, la, b, lb);
    let close = |got: Vec<f64>, scale: f64, tol: f64| {
        assert_eq!(got.len(), want.len());
        let bad = got
            .iter()
            .zip(&want)
            .find(|(g, w)| (*g - *w * scale).abs() > tol);
        assert!(bad.is_none(), "{bad:?} in {la:?} @ {lb:?}");
    };
    close(matmul(a, la, b, lb).unwrap(), 1.0, 1e-9);
    let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let got = matmul(&f(a), la, &f(b), lb).unwrap();
    close(got.into_iter().map(f64::from).collect(), 1.0, 1e-3);
    let i = |v: &[f64]| {
        v.iter()
            .map(|&x| (x * 10.0).round() as i64)
            .collect::<Vec<_>>()
    };
    let got = matmul(&i(a), la, &i(b), lb).unwrap();
    close(got.into_iter().map(|x| x as f64).collect(), 100.0, 1e-6);
}

/// Under Miri (which interprets every instruction of gemm's SIMD loops) only products
/// of operands with at most a few thousand elements run; valgrind covers the large ones.
fn miri_too_big(operand_elements: usize) -> bool {
    cfg!(miri) && operand_elements > 4000
}

#[test]
fn contiguous_and_broadcast_shapes() {
    let cases: [(&[usize], &[usize], &[usize]); 10] = [
        (&[3, 4], &[4, 5], &[3, 5]),
        (&[128, 128], &[128, 130], &[128, 130]), // multi-threaded gemm
        (&[64, 150], &[150, 80], &[64, 80]),     // k-blocked loop for i64
        (&[7], &[7], &[]),
        (&[4], &[4, 6], &[6]),
        (&[20, 30], &[30], &[20]),
        (&[2, 1, 3, 4], &[5, 4, 2], &[2, 5, 3, 2]),
        (&[3, 30, 20], &[20], &[3, 30]),
        (&[9], &[2, 9, 20], &[2, 20]),
        (&[1, 1], &[1, 1], &[1, 1]),
    ];
    for (i, (sa, sb, so)) in cases.into_iter().enumerate() {
        if miri_too_big(c(sa).numel() + c(sb).numel()) {
            continue;
        }
        let (a, b) = (
            data(c(sa).numel(), i as u64),
            data(c(sb).numel(), 99 + i as u64),
        );
        check(&a, &c(sa), &b, &c(sb), so);
    }
}

#[test]
fn strided_views() {
    let (a, b) = (data(20000, 1), data(20000, 2));
    for (m, k, n) in [(3, 4, 2), (30, 17, 25), (5, 70, 90)] {
        let (ki, ni) = (k as isize, n as isize);
        // transposed operands (strides swapped)
        let (lat, lbt) = (c(&[k, m]).swap_dims(0, 1), c(&[n, k]).swap_dims(0, 1));
        check(&a, &lat, &b, &lbt, &[m, n]);
        // offsets and non-unit strides in both dims (a copy for gemm)
        let las = lay(&[m, k], &[2 * ki + 1, 2], 5);
        let lbs = lay(&[k, n], &[3, 3 * ki], 7);
        check(&a, &las, &b, &lbs, &[m, n]);
        // padded rows, and reversed columns (negative stride)
        let lap = lay(&[m, k], &[ki + 3, 1], 2);
        check(&a, &lap, &b, &lay(&[k, n], &[ni, -1], n - 1), &[m, n]);
        // strided 1-D operands
        check(&a, &lay(&[k], &[3], 1), &b, &lbs, &[n]);
        check(&a, &las, &b, &lay(&[k], &[-2], 2 * k), &[m]);
    }
    // zero strides: an expanded batch dim and a matrix whose rows are all one row
    let (la, lb) = (
        lay(&[4, 9, 10], &[0, 10, 1], 0),
        lay(&[4, 10, 12], &[12, 0, 1], 1),
    );
    check(&a, &la, &b, &lb, &[4, 9, 12]);
    // many small batches (parallel batch path) with a transposed rhs
    if miri_too_big(600 * 112) {
        return;
    }
    let lb = c(&[600, 8, 8]).swap_dims(1, 2);
    let (a, b) = (data(600 * 48, 3), data(600 * 64, 4));
    check(&a, &c(&[600, 6, 8]), &b, &lb, &[600, 6, 8]);
}

#[test]
fn zero_sizes() {
    let v = data(10, 1);
    let mm = |sa: &[usize], sb: &[usize]| matmul(&v, &c(sa), &v, &c(sb)).unwrap();
    assert_eq!(mm(&[2, 0], &[0, 3]), vec![0.0; 6]);
    assert_eq!(mm(&[0], &[0]), vec![0.0]);
    assert!(mm(&[0, 4], &[4, 2]).is_empty());
    assert!(mm(&[0, 2, 3], &[3, 1]).is_empty());
    assert_eq!(
        matmul_shape(&[0, 2, 3], &[3, 1]).unwrap().as_slice(),
        &[0, 2, 1]
    );
}

#[test]
fn integer_bool_and_complex() {
    let a = [i32::MAX, 2, 3, 4];
    let w = |x: i32, y: i32, z: i32, t: i32| x.wrapping_mul(y).wrapping_add(z.wrapping_mul(t));
    let want = [
        w(a[0], a[0], 2, 3),
        w(a[0], 2, 2, 4),
        w(3, a[0], 4, 3),
        w(3, 2, 4, 4),
    ];
    assert_eq!(matmul(&a, &c(&[2, 2]), &a, &c(&[2, 2])).unwrap(), want);
    let t = [true, false, false, false, true, true];
    let f = [false, true, true, false, false, false];
    let r = matmul(&t, &c(&[2, 3]), &f, &c(&[3, 2])).unwrap();
    assert_eq!(r, [false, true, true, false]);
    let (re, im) = (data(264, 5), data(264, 6));
    let z = |(&r, &i): (&f64, &f64)| Complex32::new(r as f32, i as f32);
    let v: Vec<Complex32> = re.iter().zip(&im).map(z).collect();
    // [2,24] @ transposed [24,9] (gemm) and [2,2] @ [2,1] (loop)
    for (m, k, n) in [(2, 24, 9), (2, 2, 1)] {
        let lb = lay(&[k, n], &[1, k as isize], 48);
        let got = matmul(&v, &c(&[m, k]), &v, &lb).unwrap();
        for (r, g) in got.iter().enumerate() {
            let (i, j) = (r / n, r % n);
            let prod = |q: usize| v[i * k + q].to_c128() * v[48 + j * k + q].to_c128();
            let w: Complex64 = (0..k).map(prod).sum();
            assert!((g.to_c128() - w).norm() < 1e-3, "{g} vs {w}");
        }
    }
}

#[test]
fn storage_dispatch() {
    let s = Storage::from_vec(vec![1i64, 2, 3, 4, 5, 6]);
    let (out, shape) = matmul_storage(&s, &c(&[2, 3]), &s, &c(&[3, 2])).unwrap();
    assert_eq!(shape.as_slice(), &[2, 2]);
    assert_eq!(&*out.read::<i64>(), &[22, 28, 49, 64]);
    let f = Storage::from_vec(vec![1.0f32; 6]);
    let e = matmul_storage(&s, &c(&[6]), &f, &c(&[6])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Type);
    let h = Storage::from_vec(vec![half::f16::ONE; 6]);
    let e = matmul_storage(&h, &c(&[6]), &h, &c(&[6])).unwrap_err();
    assert!(e.message.contains("float32"));
}

#[test]
fn shape_errors() {
    let e = matmul_shape(&[2, 3], &[4, 5]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Value);
    for part in ["matmul", "[2, 3]", "[4, 5]", "size 3", "size 4"] {
        assert!(e.message.contains(part), "{}", e.message);
    }
    assert!(matmul_shape(&[], &[3]).is_err() && matmul_shape(&[3], &[4]).is_err());
    let e = matmul_shape(&[2, 3, 4], &[5, 4, 2]).unwrap_err();
    assert!(e.message.contains("[2, 3, 4]") && e.message.contains("broadcast"));
    let e = matmul(&[1.0f32; 4], &c(&[3, 2]), &[1.0f32; 4], &c(&[2])).unwrap_err();
    assert!(e.message.contains("outside"));
}

/// Release timing: `cargo test --release -- --ignored --nocapture timing`.
#[test]
#[ignore]
fn timing() {
    fn time<T: Element>(s: &[usize], reps: usize) -> f64 {
        let v: Vec<T> = data(c(s).numel(), 7).into_iter().map(T::from_f64).collect();
        let t = std::time::Instant::now();
        for _ in 0..reps {
            std::hint::black_box(matmul(&v, &c(s), &v, &c(s)).unwrap());
        }
        t.elapsed().as_secs_f64() / reps as f64 * 1e6
    }
    for (s, reps) in [(&[1024, 1024][..], 5), (&[64, 64], 5000), (&[4, 4], 100000)] {
        let (f, d) = (time::<f32>(s, reps), time::<f64>(s, reps));
        println!("{s:?}: f32 {f:.2} us, f64 {d:.2} us");
    }
    let (b, i) = (
        time::<f32>(&[4096, 8, 8], 200),
        time::<i32>(&[1024, 1024], 2),
    );
    println!("[4096, 8, 8] f32: {b:.1} us; [1024, 1024] i32: {i:.1} us");
}

#[test]
fn row_blocks_give_the_same_product() {
    // a transposed view and a batch of two: every block offset goes through the strides
    let (m, k, n) = (23, 9, 11);
    let (a, b) = (data(2 * m * k, 3), data(2 * k * n, 4));
    let la = lay(&[2, m, k], &[(m * k) as isize, 1, m as isize], 0);
    let lb = c(&[2, k, n]);
    let want = reference(&a, &la, &b, &lb);
    let plan = Plan::new(&promote(&la, true), &promote(&lb, false), m, k, n);
    for block in [1, 5, 7, m - 1, m] {
        // NaN where gemm did not write: an unwritten row would show
        let mut out = vec![std::mem::MaybeUninit::new(f64::NAN); 2 * m * n];
        run_gemm(&a, &b, &mut out, &plan, Watch::begin(), block);
        // SAFETY: every element was initialised above (and overwritten by gemm).
        let out: Vec<f64> = out.iter().map(|x| unsafe { x.assume_init() }).collect();
        let worst = out
            .iter()
            .zip(&want)
            .map(|(g, w)| (g - w).abs())
            .fold(0.0, |acc: f64, d| {
                if d.is_nan() {
                    f64::INFINITY
                } else {
                    acc.max(d)
                }
            });
        assert!(worst < 1e-9, "block {block}: off by {worst}");
    }
}

#[test]
fn only_large_interruptible_products_are_cut_into_blocks() {
    assert_eq!(
        rows_per_call(1024, 1024, 1024, true),
        1024,
        "1024^3 is one call"
    );
    assert_eq!(
        rows_per_call(6000, 6000, 6000, false),
        6000,
        "nothing to watch for"
    );
    let rows = rows_per_call(6000, 6000, 6000, true);
    // 12 equal blocks of 500 rows: at least the minimum before equalising, no tiny tail
    assert_eq!(rows, 500);
    assert!(rows * 6000 * 6000 >= BLOCK_WORK);
    assert_eq!(rows_per_call(0, 5, 5, true), 1);
}
