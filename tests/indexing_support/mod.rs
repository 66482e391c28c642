//! Helpers shared by the indexing integration tests (tests/indexing.rs,
//! tests/indexing_writes.rs): tensors from literals, error assertions, gradients and
//! central finite differences. Each test binary uses a subset of them.
#![allow(dead_code)]

use ferrograd::autograd::engine::{self, BackwardOptions};
use ferrograd::autograd::ops::index::IndexItem::{self, Slice};
use ferrograd::tensor::Tensor;
use ferrograd::{ErrorKind, Result};

pub fn t(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

/// `0, 1, 2, ...` as f64 in `shape`.
pub fn arange(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    t(&(0..n).map(|i| i as f64).collect::<Vec<_>>(), shape)
}

pub fn idx(v: &[i64]) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap()
}

pub fn ti(v: &[i64]) -> IndexItem {
    IndexItem::Tensor(idx(v))
}

pub fn full() -> IndexItem {
    Slice(None, None, 1)
}

pub fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

pub fn ivals(t: &Tensor) -> Vec<i64> {
    t.to_vec::<i64>().unwrap()
}

/// Asserts `r` failed with `kind` and a message containing every one of `parts`.
pub fn assert_err<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind, parts: &[&str]) {
    let e = r.unwrap_err();
    assert_eq!(e.kind, kind, "{}", e.message);
    for p in parts {
        assert!(e.message.contains(p), "{:?} not in {:?}", p, e.message);
    }
}

/// Fixed, varied weights so that `sum(y * w)` tests every output element.
pub fn weights(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    t(
        &(0..n)
            .map(|i| (i as f64 * 0.7).sin() + 0.3)
            .collect::<Vec<_>>(),
        shape,
    )
}

pub fn loss(y: &Tensor) -> Tensor {
    y.mul(&weights(y.shape()))
        .unwrap()
        .sum(None, false)
        .unwrap()
}

pub fn grads_of(l: &Tensor, xs: &[Tensor], create_graph: bool) -> Vec<Tensor> {
    let opts = BackwardOptions {
        retain_graph: create_graph,
        create_graph,
    };
    let g = engine::grad(
        std::slice::from_ref(l),
        vec![l.ones_like().unwrap()],
        xs,
        opts,
    )
    .unwrap();
    g.into_iter()
        .zip(xs)
        .map(|(g, x)| g.unwrap_or_else(|| x.zeros_like().unwrap()))
        .collect()
}

/// The gradient of `l` with respect to the single input `x`.
pub fn grad1(l: &Tensor, x: &Tensor, create_graph: bool) -> Tensor {
    grads_of(l, std::slice::from_ref(x), create_graph).remove(0)
}

/// [`fd_check`] for a one-input function.
pub fn fd1(x: &Tensor, f: impl Fn(&Tensor) -> Result<Tensor>) {
    fd_check(std::slice::from_ref(x), |xs| f(&xs[0]))
}

/// Checks the gradients of `sum(f(inputs) * w)` against central differences.
pub fn fd_check(inputs: &[Tensor], f: impl Fn(&[Tensor]) -> Result<Tensor>) {
    let leaves: Vec<Tensor> = inputs
        .iter()
        .map(|x| {
            let l = x.contiguous_copy().unwrap();
            l.set_requires_grad(true).unwrap();
            l
        })
        .collect();
    let analytic = grads_of(&loss(&f(&leaves).unwrap()), &leaves, false);
    let eps = 1e-6;
    for (k, x) in inputs.iter().enumerate() {
        let base = vals(x);
        let a = vals(&analytic[k]);
        for j in 0..base.len() {
            let at = |delta: f64| {
                let mut v = base.clone();
                v[j] += delta;
                let mut xs: Vec<Tensor> = inputs
                    .iter()
                    .map(|x| x.contiguous_copy().unwrap())
                    .collect();
                xs[k] = t(&v, x.shape());
                loss(&f(&xs).unwrap()).item_f64().unwrap()
            };
            let num = (at(eps) - at(-eps)) / (2.0 * eps);
            assert!(
                (num - a[j]).abs() < 1e-6,
                "input {k} element {j}: analytic {} vs numeric {num}",
                a[j]
            );
        }
    }
}
