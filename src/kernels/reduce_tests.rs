//! Tests of `reduce.rs` (a sibling file to keep the kernel file short): every path against
//! naive f64 loops, on contiguous, transposed, sliced and broadcast views.

use super::*;
use crate::error::ErrorKind;
use ReduceKind::*;

/// f64 reference: visit every element in row-major order and fold it into its output.
fn naive(kind: ReduceKind, l: &Layout, data: &[f64], axes: &[usize]) -> Vec<f64> {
    let n: usize = reduced_shape(&l.shape, axes).iter().product();
    let mut out = vec![[0.0, 1.0, f64::NEG_INFINITY, f64::INFINITY][kind as usize]; n];
    let mut idx = vec![0usize; l.ndim()];
    for o in l.offsets().unwrap() {
        let kept = (0..l.ndim()).filter(|d| !axes.contains(d));
        let oi = kept.fold(0, |acc, d| acc * l.shape[d] + idx[d]);
        let (a, v) = (out[oi], data[o]);
        out[oi] = match kind {
            Sum => a + v,
            Prod => a * v,
            _ if a.is_nan() || v.is_nan() => f64::NAN,
            Max => a.max(v),
            _ => a.min(v),
        };
        for d in (0..l.ndim()).rev() {
            idx[d] = (idx[d] + 1) % l.shape[d];
            if idx[d] != 0 {
                break;
            }
        }
    }
    out
}

fn close<T: Element>(got: &[T], want: &[f64], tol: f64) -> bool {
    let ok = |(x, y): (&T, &f64)| (x.to_f64() - y).abs() <= tol * (1.0 + y.abs());
    got.len() == want.len() && got.iter().zip(want).all(ok)
}

fn data(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.5 + ((i * 37) % 23) as f64 / 22.0)
        .collect()
}

#[test]
fn matches_naive_on_strided_layouts() {
    let c = Layout::contiguous(&[6, 5, 7]);
    let layouts = [
        c.clone(),
        c.permute(&[2, 0, 1]).unwrap(),         // transposed
        c.slice(0, 5, 3, -2).slice(2, 1, 5, 1), // offset, negative stride
        c.slice(2, 6, 7, -1).permute(&[1, 2, 0]).unwrap(), // reversed unit stride
        Layout::contiguous(&[3, 1, 5])
            .broadcast_to(&[2, 3, 4, 5], "t")
            .unwrap(),
        Layout::contiguous(&[4, 1, 3]),
        Layout::contiguous(&[7]),
    ];
    let d = data(210);
    let d32: Vec<f32> = d.iter().map(|&x| x as f32).collect();
    let di: Vec<i64> = d.iter().map(|&x| (x * 22.0) as i64).collect();
    let di_f: Vec<f64> = di.iter().map(|&x| x as f64).collect();
    for l in &layouts {
        for axes in (0..1usize << l.ndim()).map(|m| (0..l.ndim()).filter(move |d| m >> d & 1 == 1))
        {
            let axes: Vec<usize> = axes.collect();
            for kind in [Sum, Prod, Max, Min] {
                let want = naive(kind, l, &d, &axes);
                assert!(
                    close(&reduce(kind, &d, l, &axes).unwrap(), &want, 1e-12),
                    "{kind:?} {l:?} {axes:?}"
                );
                assert!(
                    close(&reduce(kind, &d32, l, &axes).unwrap(), &want, 1e-5),
                    "f32 {kind:?} {l:?}"
                );
            }
            assert!(close(
                &reduce(Sum, &di, l, &axes).unwrap(),
                &naive(Sum, l, &di_f, &axes),
                0.0
            ));
        }
        // argmin along each axis of integer-valued data (many ties) against a scan.
        let dt: Vec<f64> = d.iter().map(|x| (x * 4.0).floor()).collect();
        for ax in 0..l.ndim() {
            let perm: Vec<usize> = (0..l.ndim()).filter(|&i| i != ax).chain([ax]).collect();
            let vals: Vec<f64> = l
                .permute(&perm)
                .unwrap()
                .offsets()
                .unwrap()
                .iter()
                .map(|&o| dt[o])
                .collect();
            let first_min = |r: &[f64]| {
                r.iter()
                    .position(|&x| x == r.iter().cloned().fold(9.0, f64::min))
            };
            let want: Vec<i64> = vals
                .chunks(l.shape[ax])
                .map(|r| first_min(r).unwrap() as i64)
                .collect();
            assert_eq!(
                arg_reduce(ArgMin, &dt, l, Some(ax)).unwrap(),
                want,
                "{l:?} {ax}"
            );
        }
    }
}

#[test]
fn large_fast_paths_match_naive() {
    // Crosses the pairwise block, the outer tile and batch, and the threading thresholds.
    let d = data(603 * 4500);
    for (shape, axes) in [
        ([603, 4500], &[0][..]), // 4-row batches plus 3 leftover rows
        ([4500, 600], &[1]),
        ([600, 4500], &[0, 1]),
    ] {
        let l = Layout::contiguous(&shape);
        for kind in [Sum, Max] {
            assert!(close(
                &reduce(kind, &d, &l, axes).unwrap(),
                &naive(kind, &l, &d, axes),
                1e-12
            ));
        }
    }
    let t = Layout::contiguous(&[4500, 600]).permute(&[1, 0]).unwrap();
    assert!(close(
        &reduce(Sum, &d, &t, &[1]).unwrap(),
        &naive(Sum, &t, &d, &[1]),
        1e-12
    ));
    let want: Vec<i64> = (0..600)
        .map(|j| (0..23).find(|i| (i * 600 + j) * 37 % 23 == 22).unwrap() as i64)
        .collect();
    assert_eq!(
        arg_reduce(ArgMax, &d, &Layout::contiguous(&[4500, 600]), Some(0)).unwrap(),
        want
    );
}

#[test]
fn f32_sum_is_accurate_and_thread_count_independent() {
    let n = 4 << 20;
    let l = Layout::contiguous(&[n]);
    let got = reduce(Sum, &vec![0.1f32; n], &l, &[0]).unwrap()[0] as f64;
    let exact = n as f64 * 0.1f32 as f64;
    assert!((got - exact).abs() / exact < 1e-6, "{got} vs {exact}");
    let y: Vec<f32> = (0..1u64 << 20)
        .map(|i| ((i * 7919) % 1013) as f32 * 1e-3 - 0.5)
        .collect();
    let ly = Layout::contiguous(&[1 << 20]);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let serial = one.install(|| reduce(Sum, &y, &ly, &[0]).unwrap());
    assert_eq!(
        serial[0].to_bits(),
        reduce(Sum, &y, &ly, &[0]).unwrap()[0].to_bits()
    );
}

#[test]
fn zero_d_and_zero_size() {
    let s = Layout::contiguous(&[]);
    assert_eq!(reduce(Sum, &[2.5f64], &s, &[]).unwrap(), vec![2.5]);
    assert_eq!(reduce(Max, &[2.5f64], &s, &[]).unwrap(), vec![2.5]);
    assert_eq!(arg_reduce(ArgMax, &[2.5f64], &s, Some(0)).unwrap(), vec![0]);
    let e = Layout::contiguous(&[3, 0]);
    assert_eq!(reduce::<f32>(Sum, &[], &e, &[1]).unwrap(), vec![0.0; 3]);
    assert_eq!(reduce::<i64>(Prod, &[], &e, &[1]).unwrap(), vec![1; 3]);
    assert_eq!(reduce::<f32>(Sum, &[], &e, &[0, 1]).unwrap(), vec![0.0]);
    let err = reduce::<f32>(Max, &[], &e, &[1]).unwrap_err();
    assert!(err.message.contains("max") && err.kind == ErrorKind::Value);
    assert!(reduce::<f32>(Min, &[], &e, &[0]).unwrap().is_empty());
    assert!(arg_reduce::<f32>(ArgMax, &[], &e, None).is_err());
    assert!(arg_reduce::<f32>(ArgMax, &[], &e, Some(1)).is_err());
    assert_eq!(
        logical_reduce::<f32>(All, &[], &e, &[1]).unwrap(),
        vec![true; 3]
    );
    assert_eq!(
        logical_reduce::<f32>(Any, &[], &e, &[1]).unwrap(),
        vec![false; 3]
    );
}

#[test]
fn nan_and_ties() {
    let x = [1.0f32, f32::NAN, 3.0, 3.0, f32::NAN, -1.0];
    let l = Layout::contiguous(&[6]);
    assert!(reduce(Max, &x, &l, &[0]).unwrap()[0].is_nan());
    assert!(reduce(Min, &x, &l, &[0]).unwrap()[0].is_nan());
    assert_eq!(arg_reduce(ArgMax, &x, &l, None).unwrap(), vec![1]);
    assert_eq!(arg_reduce(ArgMin, &x, &l, Some(0)).unwrap(), vec![1]);
    let y = [1, 5, 5, 0, 0, 5];
    assert_eq!(arg_reduce(ArgMax, &y, &l, None).unwrap(), vec![1]);
    assert_eq!(
        arg_reduce(ArgMin, &y, &l.slice(0, 5, 6, -1), None).unwrap(),
        vec![1]
    );
    // NaN in one column only, through the outer (column tile) kernel.
    let got = reduce(
        Max,
        &[1.0, f32::NAN, 3.0, 2.0, 0.0, -1.0],
        &Layout::contiguous(&[3, 2]),
        &[0],
    )
    .unwrap();
    assert!(got[0] == 3.0 && got[1].is_nan());
}

#[test]
fn integers_wrap_and_complex_sums() {
    let l = Layout::contiguous(&[2]);
    assert_eq!(
        reduce(Sum, &[i32::MAX, 1], &l, &[0]).unwrap(),
        vec![i32::MIN]
    );
    assert_eq!(reduce(Prod, &[i64::MAX, 2], &l, &[0]).unwrap(), vec![-2]);
    let z: Vec<Complex32> = (0..40)
        .map(|i| Complex32::new(i as f32, -(i as f32) / 2.0))
        .collect();
    let lz = Layout::contiguous(&[4, 10]);
    assert_eq!(
        reduce(Sum, &z, &lz, &[1]).unwrap()[1],
        Complex32::new(145.0, -72.5)
    );
    assert_eq!(
        reduce(Sum, &z, &lz, &[0]).unwrap()[1],
        Complex32::new(64.0, -32.0)
    );
    let p = reduce(Prod, &[Complex64::new(0.0, 1.0); 2], &l, &[0]).unwrap();
    assert_eq!(p, vec![Complex64::new(-1.0, 0.0)]);
    let e = reduce(Max, &z, &lz, &[1]).unwrap_err();
    assert!(e.kind == ErrorKind::Type && e.message.contains("complex64"));
    assert!(arg_reduce(ArgMin, &z, &lz, None).is_err());
}

#[test]
fn all_any_on_strided_views() {
    let x = [1.0f64, 0.0, f64::NAN, 2.0, 3.0, 4.0];
    let l = Layout::contiguous(&[2, 3]);
    assert_eq!(
        logical_reduce(All, &x, &l, &[1]).unwrap(),
        vec![false, true]
    );
    assert_eq!(logical_reduce(Any, &x, &l, &[0]).unwrap(), vec![true; 3]);
    let t = l.permute(&[1, 0]).unwrap();
    assert_eq!(
        logical_reduce(All, &x, &t, &[1]).unwrap(),
        vec![true, false, true]
    );
    let b = Layout::contiguous(&[1, 3])
        .broadcast_to(&[4, 3], "t")
        .unwrap();
    assert_eq!(
        logical_reduce(All, &[true, false, true], &b, &[0]).unwrap(),
        vec![true, false, true]
    );
    assert_eq!(
        logical_reduce(Any, &[0i32, 0, 0], &b, &[0, 1]).unwrap(),
        vec![false]
    );
}

#[test]
fn storage_dispatch_and_bad_arguments() {
    let s = Storage::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let l = Layout::contiguous(&[2, 3]);
    let (out, shape) = reduce_storage(Sum, &s, &l, &[0]).unwrap();
    assert_eq!(
        (&*out.read::<f32>(), shape.as_slice()),
        (&[5.0f32, 7.0, 9.0][..], &[3][..])
    );
    let (idx, shape) = arg_reduce_storage(ArgMax, &s, &l, None).unwrap();
    assert_eq!((&*idx.read::<i64>(), shape.len()), (&[5i64][..], 0));
    let b = Storage::from_vec(vec![false, true, false, false, false, false]);
    let (m, _) = reduce_storage(Max, &b, &l, &[1]).unwrap();
    assert_eq!(&*m.read::<bool>(), &[true, false]);
    assert_eq!(
        logical_reduce_storage(Any, &s, &l, &[])
            .unwrap()
            .0
            .read::<bool>()
            .len(),
        6
    );
    assert!(reduce_storage(Sum, &b, &l, &[0]).is_err());
    let h = Storage::from_vec(vec![half::f16::ONE; 6]);
    assert_eq!(
        reduce_storage(Max, &h, &l, &[0]).unwrap_err().kind,
        ErrorKind::Type
    );
    assert!(
        reduce(Sum, &[1.0f32], &l, &[0]).is_err(),
        "too-small storage"
    );
    assert!(
        reduce(Sum, &[1.0f32; 6], &l, &[1, 0]).is_err(),
        "unsorted axes"
    );
    assert!(reduce(ArgMax, &[1.0f32; 6], &l, &[0]).is_err());
}

/// The 16-lane fold written out in scalars: the bits `simd`'s kernels must give.
fn lane_model(x: &[f64]) -> f64 {
    let mut acc = [0.0f64; loops::LANES];
    for (i, &v) in x.iter().enumerate() {
        acc[i % loops::LANES] += v;
    }
    let mut w = loops::LANES;
    while w > 1 {
        w /= 2;
        for i in 0..w {
            acc[i] += acc[i + w];
        }
    }
    acc[0]
}

#[test]
fn simd_sums_give_the_generic_lane_fold_bits() {
    // a wide dynamic range, so that another order of adds would round differently
    let vals = |n: usize| -> Vec<f64> {
        (0..n)
            .map(|i| (i as f64 * 0.618_033_988_7).sin() * 2f64.powi((i * 31 % 81) as i32 - 40))
            .collect()
    };
    for n in (1..=70).chain([4095, 4096, 4097]) {
        let x64 = vals(n);
        let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
        let w32: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
        if let Some(s) = simd::sum_f32(&x32) {
            assert_eq!(s.to_bits(), lane_model(&w32).to_bits(), "f32, n = {n}");
        }
        if let Some(s) = simd::sum_f64(&x64) {
            assert_eq!(s.to_bits(), lane_model(&x64).to_bits(), "f64, n = {n}");
        }
    }
    // -0.0 everywhere: every lane stays +0.0, as in the generic fold
    let z = simd::sum_f32(&[-0.0f32; 37]).unwrap_or(0.0);
    assert!(z == 0.0 && z.is_sign_positive());
    assert!(simd::sum_f64(&[1.0, f64::NAN, 2.0]).is_none_or(f64::is_nan));
}
