//! Tests of the sliding-window kernels: a hand-checked im2col, fold as unfold's adjoint,
//! max-pool positions, and the size errors.

use super::*;

fn win(k: &[usize], s: &[usize], d: &[usize], lo: &[isize], hi: &[isize]) -> Window {
    Window {
        kernel: k.to_vec(),
        stride: s.to_vec(),
        dilation: d.to_vec(),
        pad_lo: lo.to_vec(),
        pad_hi: hi.to_vec(),
    }
}

#[test]
fn unfold_1d_with_padding_by_hand() {
    // x = [1, 2, 3], kernel 2, stride 1, pad 1 each side -> windows [0,1] [1,2] [2,3] [3,0]
    let g = Geometry::new("t", &[3], &win(&[2], &[1], &[1], &[1], &[1])).unwrap();
    assert_eq!(g.out_shape(), &[4]);
    let cols = unfold(&[1.0f64, 2.0, 3.0], 1, &g).unwrap();
    // rows: kernel offset 0 then 1; columns: window positions
    assert_eq!(cols, vec![0.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 0.0]);
}

#[test]
fn fold_is_the_adjoint_of_unfold() {
    // <unfold(x), y> == <x, fold(y)> for a 2-D window with stride, dilation, uneven pads
    let w = win(&[2, 3], &[2, 1], &[1, 2], &[1, 0], &[0, 2]);
    let g = Geometry::new("t", &[5, 4], &w).unwrap();
    let planes = 3;
    let x: Vec<f64> = (0..planes * 20)
        .map(|i| ((i * 7) % 11) as f64 - 5.0)
        .collect();
    let cols = unfold(&x, planes, &g).unwrap();
    let y: Vec<f64> = (0..cols.len())
        .map(|i| ((i * 5) % 13) as f64 - 6.0)
        .collect();
    let back = fold(&y, planes, &g).unwrap();
    let lhs: f64 = cols.iter().zip(&y).map(|(a, b)| a * b).sum();
    let rhs: f64 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
    assert_eq!(lhs, rhs);
}

#[test]
fn max_pool_picks_first_maximum_and_skips_padding() {
    let g = Geometry::new(
        "t",
        &[2, 2],
        &win(&[2, 2], &[1, 1], &[1, 1], &[1, 1], &[0, 0]),
    )
    .unwrap();
    let x = [-3.0f32, -1.0, -1.0, -2.0];
    // windows (padded top/left) at (0,0): only x[0]; (0,1): x[0],x[1]; (1,0): x[0],x[2];
    // (1,1): all four, first maximum is x[1]
    assert_eq!(max_pool_indices(&x, 1, &g).unwrap(), vec![0, 1, 2, 1]);
}

#[test]
fn max_pool_nan_wins() {
    let g = Geometry::new("t", &[3], &win(&[3], &[1], &[1], &[0], &[0])).unwrap();
    assert_eq!(
        max_pool_indices(&[1.0f64, f64::NAN, 5.0], 1, &g).unwrap(),
        vec![1]
    );
}

#[test]
fn bad_geometry_is_a_clear_error() {
    let e = Geometry::new(
        "conv2d",
        &[2, 2],
        &win(&[3, 3], &[1, 1], &[1, 1], &[0, 0], &[0, 0]),
    );
    assert!(format!("{}", e.unwrap_err()).contains("smaller than the dilated kernel"));
    let e = Geometry::new(
        "conv2d",
        &[4, 4],
        &win(&[3, 0], &[1, 1], &[1, 1], &[0, 0], &[0, 0]),
    );
    assert!(format!("{}", e.unwrap_err()).contains("kernel_size must be positive"));
    let e = Geometry::new("conv2d", &[4, 4], &win(&[3], &[1], &[1], &[0], &[0]));
    assert!(format!("{}", e.unwrap_err()).contains("needs 2 value(s)"));
    let huge = Window {
        kernel: vec![1, 1],
        stride: vec![1, 1],
        dilation: vec![1, 1],
        pad_lo: vec![isize::MAX, 0],
        pad_hi: vec![isize::MAX, 0],
    };
    assert!(Geometry::new("conv2d", &[usize::MAX, 1], &huge).is_err());
}

#[test]
fn window_wholly_in_padding_is_an_error() {
    let g = Geometry::new("t", &[2], &win(&[1], &[1], &[1], &[1], &[0])).unwrap();
    assert!(max_pool_indices(&[1.0f64, 2.0], 1, &g).is_err());
}
