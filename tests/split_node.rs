//! `split` / `unbind` as one multi-output node, node hooks, and saved tensors by name,
//! driven from Rust only.

use ferrograd::autograd::engine::{self, BackwardOptions};
use ferrograd::autograd::node::NodeHooks;
use ferrograd::tensor::Tensor;
use std::sync::Arc;

fn leaf(v: &[f64], shape: &[usize]) -> Tensor {
    let t = Tensor::from_vec(v.to_vec(), shape).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn backward(t: &Tensor) {
    let g = t.ones_like().unwrap();
    engine::backward(std::slice::from_ref(t), vec![g], BackwardOptions::default()).unwrap();
}

#[test]
fn pieces_share_one_node_and_an_unused_piece_gives_zeros() {
    let x = leaf(&[1.0, 2.0, 3.0, 4.0], &[4]);
    let pieces = x.split(&[1, 3], 0).unwrap();
    let (a, b) = (&pieces[0], &pieces[1]);
    assert_eq!(a.grad_fn().unwrap().id(), b.grad_fn().unwrap().id());
    assert_eq!((a.output_nr(), b.output_nr()), (0, 1));
    assert_eq!(a.grad_fn().unwrap().num_outputs(), 2);
    backward(&b.sum(None, false).unwrap());
    assert_eq!(
        x.grad().unwrap().to_vec::<f64>().unwrap(),
        [0.0, 1.0, 1.0, 1.0]
    );
}

#[test]
fn unbind_backward_stacks_and_runs_once() {
    let x = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let rows = x.unbind(0).unwrap();
    let y = rows[0].mul_scalar(2.0).unwrap().add(&rows[1]).unwrap();
    backward(&y.sum(None, false).unwrap());
    assert_eq!(
        x.grad().unwrap().to_vec::<f64>().unwrap(),
        [2.0, 2.0, 1.0, 1.0]
    );
    assert_eq!(rows[0].grad_fn().unwrap().name(), "UnbindBackward");
}

#[test]
fn node_prehook_replaces_incoming_gradient() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = x.mul_scalar(3.0).unwrap();
    let node = y.grad_fn().unwrap();
    let mut hooks = NodeHooks::default();
    hooks.pre.push((
        1,
        Arc::new(|g: &[Option<Tensor>]| {
            Ok(Some(
                g.iter()
                    .map(|g| g.as_ref().map(|g| g.mul_scalar(10.0).unwrap()))
                    .collect(),
            ))
        }),
    ));
    *node.base().node_hooks() = Some(Box::new(hooks));
    backward(&y.sum(None, false).unwrap());
    assert_eq!(x.grad().unwrap().to_vec::<f64>().unwrap(), [30.0, 30.0]);
}

#[test]
fn saved_tensors_are_named_by_what_the_op_saved() {
    let a = leaf(&[1.0, 2.0], &[2]);
    let b = leaf(&[3.0, 4.0], &[2]);
    let y = a.mul(&b).unwrap();
    let node = y.grad_fn().unwrap();
    let names: Vec<String> = node
        .saved_named()
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    assert_eq!(names, ["self", "other"]);
    let e = a.exp().unwrap();
    let node = e.grad_fn().unwrap();
    let named = node.saved_named();
    assert_eq!(named.len(), 1);
    assert_eq!(named[0].0, "result");
    assert_eq!(
        named[0]
            .1
            .unpack("ExpBackward")
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        e.to_vec::<f64>().unwrap()
    );
}
