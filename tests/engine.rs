//! Engine tests driven from Rust only: graphs of built-in ops, custom closure nodes,
//! a million-op chain, retain_graph, grad(), hooks and version checks.

use ferrograd::autograd::engine::{self, BackwardOptions};
use ferrograd::autograd::{Node, NodeBase, NodeRef, Recorder};
use ferrograd::tensor::{self, Tensor};
use ferrograd::DType;
use std::sync::Arc;

fn leaf(v: &[f64]) -> Tensor {
    let t = Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

fn backward(t: &Tensor, retain: bool) -> ferrograd::Result<()> {
    let g = t.ones_like()?;
    engine::backward(
        std::slice::from_ref(t),
        vec![g],
        BackwardOptions {
            retain_graph: retain,
            create_graph: false,
        },
    )
}

#[test]
fn mul_add_sum_gradients() {
    let a = leaf(&[1.0, 2.0]);
    let b = leaf(&[3.0, 4.0]);
    let y = a
        .mul(&b)
        .unwrap()
        .add(&a)
        .unwrap()
        .sum(None, false)
        .unwrap();
    backward(&y, false).unwrap();
    assert_eq!(vals(&a.grad().unwrap()), vec![4.0, 5.0]);
    assert_eq!(vals(&b.grad().unwrap()), vec![1.0, 2.0]);
    assert_eq!(y.grad_fn().unwrap().name(), "SumBackward");
}

#[test]
fn broadcasting_is_summed_back() {
    let a = leaf(&[1.0, 2.0, 3.0]);
    let b = Tensor::from_vec(vec![1.0f64; 6], &[2, 3]).unwrap();
    let y = a.mul(&b).unwrap().sum(None, false).unwrap();
    backward(&y, false).unwrap();
    assert_eq!(vals(&a.grad().unwrap()), vec![2.0, 2.0, 2.0]);
}

#[test]
fn second_backward_needs_retain_graph() {
    let a = leaf(&[1.0, 2.0]);
    let y = a.mul(&a).unwrap().sum(None, false).unwrap();
    backward(&y, false).unwrap();
    let e = backward(&y, false).unwrap_err();
    assert!(e.message.contains("retain_graph=True"), "{}", e.message);

    let y = a.mul(&a).unwrap().sum(None, false).unwrap();
    a.set_grad(None).unwrap();
    backward(&y, true).unwrap();
    backward(&y, false).unwrap();
    assert_eq!(vals(&a.grad().unwrap()), vec![4.0, 8.0]); // accumulated twice
}

#[test]
fn million_op_chain_runs_and_drops_without_recursion() {
    let x = leaf(&[1.0]);
    let mut y = x.clone();
    for _ in 0..1_000_000 {
        y = y.add_scalar(1.0).unwrap();
    }
    backward(&y, false).unwrap();
    assert_eq!(vals(&x.grad().unwrap()), vec![1.0]);
    drop(y); // would overflow the stack if drop recursed
}

#[test]
fn graph_dropped_without_backward_is_freed_iteratively() {
    let x = leaf(&[1.0]);
    let mut y = x.clone();
    for _ in 0..300_000 {
        y = y.mul_scalar(1.0).unwrap();
    }
    drop(y);
}

#[test]
fn grad_returns_only_requested_inputs_and_nonleaf_grads() {
    let x = leaf(&[1.0, 2.0]);
    let h = x.mul_scalar(2.0).unwrap();
    let z = h.mul(&h).unwrap().sum(None, false).unwrap();
    let one = z.ones_like().unwrap();
    let g = engine::grad(
        std::slice::from_ref(&z),
        vec![one],
        &[h.clone(), x.clone()],
        BackwardOptions::default(),
    )
    .unwrap();
    assert_eq!(vals(g[0].as_ref().unwrap()), vec![4.0, 8.0]);
    assert_eq!(vals(g[1].as_ref().unwrap()), vec![8.0, 16.0]);
    assert!(x.grad().is_none());
}

#[test]
fn second_order_through_create_graph() {
    let x = leaf(&[1.0, 2.0]);
    let y = x
        .mul(&x)
        .unwrap()
        .mul(&x)
        .unwrap()
        .sum(None, false)
        .unwrap();
    let opts = BackwardOptions {
        retain_graph: true,
        create_graph: true,
    };
    let g = engine::grad(
        std::slice::from_ref(&y),
        vec![y.ones_like().unwrap()],
        std::slice::from_ref(&x),
        opts,
    )
    .unwrap();
    let g = g[0].clone().unwrap();
    assert_eq!(vals(&g), vec![3.0, 12.0]);
    let s = g.sum(None, false).unwrap();
    let gg = engine::grad(
        std::slice::from_ref(&s),
        vec![s.ones_like().unwrap()],
        std::slice::from_ref(&x),
        opts,
    )
    .unwrap();
    assert_eq!(vals(gg[0].as_ref().unwrap()), vec![6.0, 12.0]);
}

#[test]
fn inplace_change_of_saved_tensor_is_detected() {
    let x = leaf(&[1.0, 2.0]);
    let h = x.mul_scalar(1.0).unwrap();
    let y = h.mul(&h).unwrap().sum(None, false).unwrap();
    {
        let _g = ferrograd::autograd::no_grad();
        h.add_inplace_raw(&h.ones_like().unwrap()).unwrap();
    }
    let e = backward(&y, false).unwrap_err();
    assert!(
        e.message.contains("MulBackward") && e.message.contains("version"),
        "{}",
        e.message
    );
}

/// A custom node written as a closure-free struct: doubles its gradient.
struct Double {
    base: NodeBase,
}
impl Node for Double {
    fn name(&self) -> std::borrow::Cow<'static, str> {
        "DoubleBackward".into()
    }
    fn base(&self) -> &NodeBase {
        &self.base
    }
    fn apply(&self, grads: Vec<Option<Tensor>>) -> ferrograd::Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(grads[0].clone().unwrap().mul_scalar(2.0)?)])
    }
}

#[test]
fn custom_node_and_closure_formula() {
    let x = leaf(&[1.0, 2.0]);
    let out = x.detach().mul_scalar(2.0).unwrap();
    let edges = [x.gradient_edge()].into_iter().collect();
    let metas = [ferrograd::autograd::InputMeta {
        shape: x.shape_vec(),
        dtype: DType::F64,
    }]
    .into_iter()
    .collect();
    out.set_grad_fn(
        NodeRef::new(Arc::new(Double {
            base: NodeBase::new(edges, metas),
        })),
        0,
    );
    // and a closure-recorded op on top
    let y = {
        let o = out.detach().mul_scalar(3.0).unwrap();
        let rec = Recorder::begin(&[&out]).unwrap();
        rec.finish("TripleBackward", &o, |g, _, _| {
            Ok(smallvec::smallvec![Some(g.mul_scalar(3.0)?)])
        })
        .unwrap();
        o
    };
    backward(&y.sum(None, false).unwrap(), false).unwrap();
    assert_eq!(vals(&x.grad().unwrap()), vec![6.0, 6.0]);
}

#[test]
fn wrong_gradient_shape_from_a_node_names_it() {
    struct Bad {
        base: NodeBase,
    }
    impl Node for Bad {
        fn name(&self) -> std::borrow::Cow<'static, str> {
            "BadBackward".into()
        }
        fn base(&self) -> &NodeBase {
            &self.base
        }
        fn apply(&self, _: Vec<Option<Tensor>>) -> ferrograd::Result<Vec<Option<Tensor>>> {
            Ok(vec![Some(tensor::ones(&[5], DType::F64)?)])
        }
    }
    let x = leaf(&[1.0, 2.0]);
    let out = x.detach();
    let edges = [x.gradient_edge()].into_iter().collect();
    let metas = [ferrograd::autograd::InputMeta {
        shape: x.shape_vec(),
        dtype: DType::F64,
    }]
    .into_iter()
    .collect();
    out.set_grad_fn(
        NodeRef::new(Arc::new(Bad {
            base: NodeBase::new(edges, metas),
        })),
        0,
    );
    let e = backward(&out, false).unwrap_err();
    assert!(
        e.message.contains("BadBackward") && e.message.contains("[5]"),
        "{}",
        e.message
    );
}

#[test]
fn post_accumulate_hooks_fire_after_grad_is_stored_in_backward_order() {
    use std::sync::Mutex;
    // y = sum(a * b) + sum(c): c's gradient is ready before a's and b's.
    let a = leaf(&[1.0, 2.0]);
    let b = leaf(&[3.0, 4.0]);
    let c = leaf(&[5.0]);
    type Log = Arc<Mutex<Vec<(&'static str, Vec<f64>)>>>;
    let seen: Log = Arc::default();
    for (name, t) in [("a", &a), ("b", &b), ("c", &c)] {
        let s = seen.clone();
        t.register_post_accumulate_grad_hook(
            1,
            Arc::new(move |t: &Tensor| {
                // the hook sees the gradient already stored
                s.lock().unwrap().push((name, vals(&t.grad().unwrap())));
                Ok(())
            }),
        )
        .unwrap();
    }
    let y = a
        .mul(&b)
        .unwrap()
        .sum(None, false)
        .unwrap()
        .add(&c.sum(None, false).unwrap())
        .unwrap();
    backward(&y, true).unwrap();
    let mut got = seen.lock().unwrap().clone();
    assert_eq!(got.len(), 3);
    got.sort_by_key(|(n, _)| *n);
    assert_eq!(got[0], ("a", vec![3.0, 4.0]));
    assert_eq!(got[1], ("b", vec![1.0, 2.0]));
    assert_eq!(got[2], ("c", vec![1.0]));
    // second pass: hooks see the accumulated sum; a removed hook no longer runs
    a.remove_post_accumulate_grad_hook(1);
    backward(&y, false).unwrap();
    let got = seen.lock().unwrap().clone();
    assert_eq!(got.len(), 5);
    assert!(got[3..].iter().all(|(n, _)| *n != "a"));
    assert!(got[3..].contains(&("b", vec![2.0, 4.0])));
}

#[test]
fn post_accumulate_hook_rejects_non_leaves_and_errors_propagate() {
    let a = leaf(&[1.0]);
    let y = a.mul(&a).unwrap();
    let hook: ferrograd::autograd::PostAccumulateHook = Arc::new(|_t: &Tensor| Ok(()));
    assert!(y
        .register_post_accumulate_grad_hook(1, hook.clone())
        .is_err());
    let plain = Tensor::from_vec(vec![1.0f64], &[1]).unwrap();
    assert!(plain.register_post_accumulate_grad_hook(1, hook).is_err());
    a.register_post_accumulate_grad_hook(
        2,
        Arc::new(|_t: &Tensor| Err(ferrograd::Error::runtime("boom from hook"))),
    )
    .unwrap();
    let err = backward(&y.sum(None, false).unwrap(), false).unwrap_err();
    assert!(err.to_string().contains("boom from hook"));
}

#[test]
fn queued_callbacks_run_once_at_the_end_of_the_pass() {
    use std::sync::Mutex;
    assert!(ferrograd::autograd::queue_callback(Box::new(|| Ok(()))).is_err());
    let a = leaf(&[1.0, 2.0]);
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let l = log.clone();
    a.register_post_accumulate_grad_hook(
        1,
        Arc::new(move |_t: &Tensor| {
            l.lock().unwrap().push("hook".into());
            let l2 = l.clone();
            ferrograd::autograd::queue_callback(Box::new(move || {
                l2.lock().unwrap().push("callback".into());
                // a callback may queue another; it runs in the same pass
                let l3 = l2.clone();
                ferrograd::autograd::queue_callback(Box::new(move || {
                    l3.lock().unwrap().push("nested".into());
                    Ok(())
                }))
            }))
        }),
    )
    .unwrap();
    let y = a.mul(&a).unwrap().sum(None, false).unwrap();
    backward(&y, false).unwrap();
    assert_eq!(*log.lock().unwrap(), vec!["hook", "callback", "nested"]);
    // outside a pass, queueing fails again (the frame was closed)
    assert!(ferrograd::autograd::queue_callback(Box::new(|| Ok(()))).is_err());
}

/// Sequence numbers are counted per thread (as in PyTorch): a graph whose nodes were made
/// on two threads, the later ones with smaller numbers, still runs each node after every
/// node that sends it a gradient.
#[test]
fn a_graph_built_on_two_threads_gets_its_gradients() {
    let x = leaf(&[1.0, 2.0]);
    // warm this thread's counter past the other thread's
    let mut warm = x.clone();
    for _ in 0..50 {
        warm = warm.mul_scalar(1.0).unwrap();
    }
    drop(warm);
    let y = {
        let x = x.clone();
        std::thread::spawn(move || x.mul_scalar(2.0).unwrap().exp().unwrap())
            .join()
            .unwrap()
    };
    // z = 3 exp(2x) + exp(2x): dz/dx = 8 exp(2x)
    let z = y
        .mul_scalar(3.0)
        .unwrap()
        .add(&y)
        .unwrap()
        .sum(None, false)
        .unwrap();
    backward(&z, false).unwrap();
    let want: Vec<f64> = [1.0f64, 2.0]
        .iter()
        .map(|v| 8.0 * (2.0 * v).exp())
        .collect();
    for (g, w) in vals(&x.grad().unwrap()).iter().zip(&want) {
        assert!((g - w).abs() < 1e-9 * w, "{g} vs {w}");
    }
}
