//! The generator state can be read and restored: draws after a restore repeat exactly
//! (what activation checkpointing relies on to replay dropout masks). One test, as the
//! generator is process-wide and tests run in parallel.

use ferrograd::tensor;
use ferrograd::DType;

fn draw() -> Vec<f64> {
    tensor::rand(&[64], DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

#[test]
fn restoring_the_state_repeats_the_draws_and_zero_is_rejected() {
    tensor::manual_seed(7);
    let state = tensor::rng_state();
    let (a, b) = (draw(), draw());
    tensor::set_rng_state(state).unwrap();
    assert_eq!(a, draw());
    assert_eq!(b, draw());
    assert_ne!(a, b);

    let before = tensor::rng_state();
    assert!(tensor::set_rng_state([0; 4]).is_err());
    assert_eq!(tensor::rng_state(), before);
}
