//! Indexing and joining ops: values against hand-computed results, NumPy indexing rules,
//! in-place writes through views, error messages, gradients against central finite
//! differences (f64), and second-order gradients.

use ferrograd::autograd::engine::{self, BackwardOptions};
use ferrograd::autograd::ops::index::IndexItem::{self, Ellipsis, Int, NewAxis, Slice};
use ferrograd::tensor::{self, Tensor};
use ferrograd::{DType, ErrorKind, Result};

fn t(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

/// `0, 1, 2, ...` as f64 in `shape`.
fn arange(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    t(&(0..n).map(|i| i as f64).collect::<Vec<_>>(), shape)
}

fn idx(v: &[i64]) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap()
}

fn ti(v: &[i64]) -> IndexItem {
    IndexItem::Tensor(idx(v))
}

fn full() -> IndexItem {
    Slice(None, None, 1)
}

fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

fn ivals(t: &Tensor) -> Vec<i64> {
    t.to_vec::<i64>().unwrap()
}

/// Asserts `r` failed with `kind` and a message containing every one of `parts`.
fn assert_err<T: std::fmt::Debug>(r: Result<T>, kind: ErrorKind, parts: &[&str]) {
    let e = r.unwrap_err();
    assert_eq!(e.kind, kind, "{}", e.message);
    for p in parts {
        assert!(e.message.contains(p), "{:?} not in {:?}", p, e.message);
    }
}

/// Fixed, varied weights so that `sum(y * w)` tests every output element.
fn weights(shape: &[usize]) -> Tensor {
    let n = shape.iter().product::<usize>();
    t(
        &(0..n)
            .map(|i| (i as f64 * 0.7).sin() + 0.3)
            .collect::<Vec<_>>(),
        shape,
    )
}

fn loss(y: &Tensor) -> Tensor {
    y.mul(&weights(y.shape()))
        .unwrap()
        .sum(None, false)
        .unwrap()
}

fn grads_of(l: &Tensor, xs: &[Tensor], create_graph: bool) -> Vec<Tensor> {
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
fn grad1(l: &Tensor, x: &Tensor, create_graph: bool) -> Tensor {
    grads_of(l, std::slice::from_ref(x), create_graph).remove(0)
}

/// [`fd_check`] for a one-input function.
fn fd1(x: &Tensor, f: impl Fn(&Tensor) -> Result<Tensor>) {
    fd_check(std::slice::from_ref(x), |xs| f(&xs[0]))
}

/// Checks the gradients of `sum(f(inputs) * w)` against central differences.
fn fd_check(inputs: &[Tensor], f: impl Fn(&[Tensor]) -> Result<Tensor>) {
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

#[test]
fn slice_follows_python_semantics() {
    let x = arange(&[10]);
    assert_eq!(
        vals(&x.slice(0, Some(1), Some(8), 3).unwrap()),
        vec![1.0, 4.0, 7.0]
    );
    assert_eq!(
        vals(&x.slice(0, None, None, -1).unwrap()),
        (0..10).rev().map(|i| i as f64).collect::<Vec<_>>()
    );
    assert_eq!(
        vals(&x.slice(0, Some(-2), None, -3).unwrap()),
        vec![8.0, 5.0, 2.0]
    );
    assert_eq!(
        vals(&x.slice(0, Some(-100), Some(3), 1).unwrap()),
        vec![0.0, 1.0, 2.0]
    );
    assert_eq!(
        vals(&x.slice(0, Some(8), Some(100), 1).unwrap()),
        vec![8.0, 9.0]
    );
    assert_eq!(
        vals(&x.slice(0, Some(3), Some(-100), -2).unwrap()),
        vec![3.0, 1.0]
    );
    let empty = x.slice(0, Some(5), Some(2), 1).unwrap();
    assert_eq!(empty.shape(), &[0]);
    assert_eq!(x.slice(0, Some(2), Some(5), -1).unwrap().shape(), &[0]);
    let m = arange(&[3, 4]);
    let s = m.slice(-1, Some(1), None, 2).unwrap();
    assert_eq!(s.shape(), &[3, 2]);
    assert_eq!(vals(&s), vec![1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);
    assert!(
        std::sync::Arc::ptr_eq(s.storage(), m.storage()),
        "slice must be a view"
    );
    assert_err(
        x.slice(0, None, None, 0),
        ErrorKind::Value,
        &["slice", "step", "zero"],
    );
    assert_err(x.slice(1, None, None, 1), ErrorKind::Index, &["slice", "1"]);
    assert_err(
        Tensor::scalar(1.0f64).slice(0, None, None, 1),
        ErrorKind::Index,
        &["slice", "0-d"],
    );
}

#[test]
fn select_removes_the_dimension() {
    let m = arange(&[3, 4]);
    assert_eq!(vals(&m.select(0, -1).unwrap()), vec![8.0, 9.0, 10.0, 11.0]);
    assert_eq!(vals(&m.select(1, 2).unwrap()), vec![2.0, 6.0, 10.0]);
    let s = m.select(1, 2).unwrap().select(0, 1).unwrap();
    assert_eq!(s.shape(), &[] as &[usize]);
    assert_eq!(s.item_f64().unwrap(), 6.0);
    assert_err(
        m.select(0, 5),
        ErrorKind::Index,
        &["select", "index 5", "dimension 0", "size 3"],
    );
    assert_err(
        m.select(1, -5),
        ErrorKind::Index,
        &["select", "-5", "size 4"],
    );
}

#[test]
fn index_select_gather_take_values() {
    let m = arange(&[3, 4]);
    let r = m.index_select(0, &idx(&[2, -3, 2])).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    assert_eq!(vals(&r)[..4], [8.0, 9.0, 10.0, 11.0]);
    assert_eq!(vals(&r)[4..8], [0.0, 1.0, 2.0, 3.0]);
    let i32_index = Tensor::from_vec(vec![3i32, 0], &[2]).unwrap();
    assert_eq!(
        vals(&m.index_select(1, &i32_index).unwrap()),
        vec![3.0, 0.0, 7.0, 4.0, 11.0, 8.0]
    );
    assert_eq!(m.index_select(0, &idx(&[])).unwrap().shape(), &[0, 4]);
    assert_err(
        m.index_select(0, &idx(&[7])),
        ErrorKind::Index,
        &["index_select", "index 7", "size 3"],
    );
    assert_err(
        m.index_select(0, &t(&[0.0], &[1])),
        ErrorKind::Type,
        &["index_select", "float64"],
    );

    let g = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let gi = Tensor::from_vec(vec![0i64, 0, 1, 0], &[2, 2]).unwrap();
    assert_eq!(vals(&g.gather(1, &gi).unwrap()), vec![1.0, 1.0, 4.0, 3.0]);
    let gi0 = Tensor::from_vec(vec![1i64, 0], &[1, 2]).unwrap();
    assert_eq!(vals(&g.gather(0, &gi0).unwrap()), vec![3.0, 2.0]);
    let bad = Tensor::from_vec(vec![0i64, 2], &[1, 2]).unwrap();
    assert_err(
        g.gather(1, &bad),
        ErrorKind::Index,
        &["gather", "index 2", "size 2"],
    );
    assert_err(
        g.gather(1, &idx(&[0])),
        ErrorKind::Value,
        &["gather", "dimension"],
    );

    // take_flat reads the row-major order of a transposed (non-contiguous) view
    let tr = arange(&[2, 3]).transpose(0, 1).unwrap(); // [[0,3],[1,4],[2,5]]
    let li = Tensor::from_vec(vec![1i64, 2, -1, 0], &[2, 2]).unwrap();
    let r = tr.take_flat(&li).unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(vals(&r), vec![3.0, 1.0, 5.0, 0.0]);
    assert_err(
        tr.take_flat(&idx(&[6])),
        ErrorKind::Index,
        &["take_flat", "index 6", "6 element"],
    );
}

#[test]
fn nonzero_and_masked_select() {
    let x = t(&[0.0, 1.0, 2.0, 0.0, f64::NAN, -0.0], &[2, 3]);
    let nz = x.nonzero().unwrap();
    assert_eq!(nz.shape(), &[3, 2]);
    assert_eq!(ivals(&nz), vec![0, 1, 0, 2, 1, 1]);
    assert_eq!(Tensor::scalar(3i32).nonzero().unwrap().shape(), &[1, 0]);
    let m = arange(&[2, 3]);
    let mask = Tensor::from_vec(vec![true, false, true], &[3]).unwrap();
    assert_eq!(
        vals(&m.masked_select(&mask).unwrap()),
        vec![0.0, 2.0, 3.0, 5.0]
    );
    fd1(&m, |x| x.masked_select(&mask));
}

#[test]
fn basic_index_is_a_view() {
    let x = arange(&[3, 4, 5]);
    let r = x.index(&[Int(1), Slice(None, None, 2), Int(-1)]).unwrap();
    assert_eq!(vals(&r), vec![24.0, 34.0]);
    assert!(std::sync::Arc::ptr_eq(r.storage(), x.storage()));
    let r = x.index(&[Ellipsis, NewAxis, Int(1)]).unwrap();
    assert_eq!(r.shape(), &[3, 4, 1]);
    let r = x.index(&[Int(2), Int(3), Int(4)]).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(r.item_f64().unwrap(), 59.0);
    assert_eq!(
        x.index(&[NewAxis, Slice(Some(-1), None, -1)])
            .unwrap()
            .shape(),
        &[1, 3, 4, 5]
    );
    assert_eq!(
        x.index(&[Slice(Some(2), Some(2), 1)]).unwrap().shape(),
        &[0, 4, 5]
    );
    let s = Tensor::scalar(5.0f64);
    assert_eq!(s.index(&[Ellipsis]).unwrap().item_f64().unwrap(), 5.0);
    assert_eq!(s.index(&[NewAxis]).unwrap().shape(), &[1]);
}

#[test]
fn advanced_index_follows_numpy() {
    let x = arange(&[3, 4, 5]);
    // separated advanced indices: the broadcast dim goes first -> [2, 4]
    let r = x.index(&[ti(&[0, 2]), full(), ti(&[1, 3])]).unwrap();
    assert_eq!(r.shape(), &[2, 4]);
    assert_eq!(vals(&r)[..4], [1.0, 6.0, 11.0, 16.0]);
    assert_eq!(vals(&r)[4..], [43.0, 48.0, 53.0, 58.0]);
    // adjacent advanced indices replace their dims in place -> [3, 2]
    let r = x.index(&[full(), ti(&[0, 2]), ti(&[1, -1])]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(vals(&r), vec![1.0, 14.0, 21.0, 34.0, 41.0, 54.0]);
    // broadcasting index tensors: [2,1] with [2] -> [2,2]
    let col = IndexItem::Tensor(Tensor::from_vec(vec![0i64, 2], &[2, 1]).unwrap());
    let r = x.index(&[full(), col, ti(&[1, 3])]).unwrap();
    assert_eq!(r.shape(), &[3, 2, 2]);
    assert_eq!(vals(&r)[..4], [1.0, 3.0, 11.0, 13.0]);
    // with a tensor present an int is an advanced index too (NumPy): not adjacent -> [2, 4]
    let r = x.index(&[Int(1), full(), ti(&[0, 4])]).unwrap();
    assert_eq!(r.shape(), &[2, 4]);
    assert_eq!(vals(&r)[..4], [20.0, 25.0, 30.0, 35.0]);
    // mixed with a slice before: basic view first, then the advanced take
    let r = x
        .index(&[Slice(Some(1), None, 1), ti(&[3]), Slice(None, None, -2)])
        .unwrap();
    assert_eq!(r.shape(), &[2, 1, 3]);
    assert_eq!(vals(&r), vec![39.0, 37.0, 35.0, 59.0, 57.0, 55.0]);
    // bool masks
    let m2 = arange(&[3, 4]);
    let mask = m2
        .binary_raw(&m2.scalar_like(8.5), ferrograd::tensor::BinaryOp::Gt)
        .unwrap();
    assert_eq!(
        vals(&m2.index(&[IndexItem::Tensor(mask)]).unwrap()),
        vec![9.0, 10.0, 11.0]
    );
    let rows = Tensor::from_vec(vec![true, false, true], &[3]).unwrap();
    assert_eq!(
        x.index(&[IndexItem::Tensor(rows)]).unwrap().shape(),
        &[2, 4, 5]
    );
    let cols = Tensor::from_vec(vec![false, true, true, false], &[4]).unwrap();
    let r = x.index(&[full(), IndexItem::Tensor(cols), Int(0)]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(vals(&r), vec![5.0, 10.0, 25.0, 30.0, 45.0, 50.0]);
    let yes = IndexItem::Tensor(Tensor::scalar(true));
    assert_eq!(m2.index(&[yes]).unwrap().shape(), &[1, 3, 4]);
    assert_eq!(
        m2.index(&[IndexItem::Tensor(Tensor::scalar(false))])
            .unwrap()
            .shape(),
        &[0, 3, 4]
    );
    let none = Tensor::from_vec(vec![false; 3], &[3]).unwrap();
    assert_eq!(
        m2.index(&[IndexItem::Tensor(none)]).unwrap().shape(),
        &[0, 4]
    );
}

#[test]
fn index_errors_name_the_problem() {
    let x = arange(&[3, 4]);
    assert_err(
        x.index(&[Int(0), Int(0), Int(0)]),
        ErrorKind::Index,
        &["too many indices", "dimension 2", "3"],
    );
    assert_err(
        x.index(&[Ellipsis, Ellipsis]),
        ErrorKind::Index,
        &["single ellipsis"],
    );
    assert_err(
        x.index(&[full(), Int(4)]),
        ErrorKind::Index,
        &["index 4", "dimension 1", "size 4"],
    );
    assert_err(
        x.index(&[ti(&[0, 3])]),
        ErrorKind::Index,
        &["index 3", "dimension 0", "size 3"],
    );
    assert_err(
        x.index(&[full(), ti(&[-5])]),
        ErrorKind::Index,
        &["index -5", "dimension 1", "size 4"],
    );
    let mask = Tensor::from_vec(vec![true, false], &[2]).unwrap();
    assert_err(
        x.index(&[IndexItem::Tensor(mask)]),
        ErrorKind::Index,
        &["boolean", "[2]", "[3]"],
    );
    let mask = Tensor::from_vec(vec![true; 6], &[2, 3]).unwrap();
    assert_err(
        x.index(&[IndexItem::Tensor(mask)]),
        ErrorKind::Index,
        &["[2, 3]", "[3, 4]"],
    );
    assert_err(
        x.index(&[IndexItem::Tensor(t(&[0.0], &[1]))]),
        ErrorKind::Index,
        &["float64"],
    );
    assert_err(
        x.index(&[ti(&[0, 1]), ti(&[0, 1, 2])]),
        ErrorKind::Index,
        &["shape mismatch", "[2]", "[3]"],
    );
    assert_err(
        x.index(&[Slice(None, None, 0)]),
        ErrorKind::Value,
        &["step", "zero"],
    );
}

#[test]
fn setitem_writes_through_views() {
    let base = tensor::zeros(&[4, 4], DType::F64).unwrap();
    let v = base.slice(0, Some(1), Some(3), 1).unwrap();
    let before = base.storage().version();
    v.index_put_(&[full(), Int(2)], &Tensor::scalar(7i64))
        .unwrap();
    assert!(
        base.storage().version() > before,
        "the write must bump the shared version"
    );
    let b = vals(&base);
    assert_eq!((b[6], b[10], b[2], b[14]), (7.0, 7.0, 0.0, 0.0));
    // a row from a [1, 4] value (leading 1 dropped), then a reversed slice
    base.index_put_(&[Int(0)], &t(&[1.0, 2.0, 3.0, 4.0], &[1, 4]))
        .unwrap();
    base.index_put_(
        &[Int(3), Slice(None, None, -1)],
        &t(&[1.0, 2.0, 3.0, 4.0], &[4]),
    )
    .unwrap();
    let b = vals(&base);
    assert_eq!(b[..4], [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(b[12..], [4.0, 3.0, 2.0, 1.0]);
    // advanced: duplicates, last write wins; bool mask
    let x = tensor::zeros(&[5], DType::F64).unwrap();
    let before = x.storage().version();
    x.index_put_(&[ti(&[1, 3, 1])], &t(&[10.0, 20.0, 30.0], &[3]))
        .unwrap();
    assert_eq!(vals(&x), vec![0.0, 30.0, 0.0, 20.0, 0.0]);
    assert!(x.storage().version() > before);
    let mask = x
        .binary_raw(&x.scalar_like(25.0), ferrograd::tensor::BinaryOp::Gt)
        .unwrap();
    x.index_put_(&[IndexItem::Tensor(mask)], &Tensor::scalar(-1.0f64))
        .unwrap();
    assert_eq!(vals(&x), vec![0.0, -1.0, 0.0, 20.0, 0.0]);
    // advanced into a view: the base sees it
    let col = base.select(1, 0).unwrap();
    col.index_put_(&[ti(&[0, 2])], &Tensor::scalar(9.0f64))
        .unwrap();
    assert_eq!((vals(&base)[0], vals(&base)[8]), (9.0, 9.0));
    // a value that is a view of the target itself
    let y = arange(&[4]);
    y.index_put_(&[ti(&[0, 1, 2, 3])], &y.slice(0, None, None, -1).unwrap())
        .unwrap();
    assert_eq!(vals(&y), vec![3.0, 2.0, 1.0, 0.0]);
    assert_err(
        base.index_put_(&[Int(0)], &t(&[1.0, 2.0, 3.0], &[3])),
        ErrorKind::Value,
        &["__setitem__", "[3]", "[4]"],
    );
    assert_err(
        base.index_put_(&[Int(9)], &Tensor::scalar(0.0f64)),
        ErrorKind::Index,
        &["index 9", "size 4"],
    );
    let leaf = arange(&[3]);
    leaf.set_requires_grad(true).unwrap();
    assert_err(
        leaf.index_put_(&[Int(0)], &Tensor::scalar(1.0f64)),
        ErrorKind::Usage,
        &["x[i] = value", "leaf", "clone()"],
    );
    let _guard = ferrograd::autograd::no_grad();
    leaf.index_put_(&[Int(0)], &Tensor::scalar(5.0f64)).unwrap();
    assert_eq!(vals(&leaf)[0], 5.0);
}

#[test]
fn cat_stack_and_errors() {
    let a = arange(&[2, 2]);
    let b = Tensor::from_vec(vec![7i64, 8], &[2, 1]).unwrap();
    let c = Tensor::cat(&[a.clone(), b], 1).unwrap();
    assert_eq!(c.dtype(), DType::F64);
    assert_eq!(c.shape(), &[2, 3]);
    assert_eq!(vals(&c), vec![0.0, 1.0, 7.0, 2.0, 3.0, 8.0]);
    let c = Tensor::cat(&[a.clone(), arange(&[0, 2]), a.clone()], 0).unwrap();
    assert_eq!(c.shape(), &[4, 2]);
    assert_err(Tensor::cat(&[], 0), ErrorKind::Value, &["cat", "non-empty"]);
    assert_err(
        Tensor::cat(&[a.clone(), arange(&[2, 3])], 0),
        ErrorKind::Value,
        &["cat", "tensor 1", "[2, 3]", "[2, 2]"],
    );
    assert_err(
        Tensor::cat(&[a.clone(), arange(&[2])], 0),
        ErrorKind::Value,
        &["cat", "tensor 1", "[2]"],
    );
    assert_err(
        Tensor::cat(&[Tensor::scalar(1.0f64)], 0),
        ErrorKind::Value,
        &["cat", "zero-dimensional"],
    );

    let s = Tensor::stack(&[a.clone(), a.mul_scalar(10.0).unwrap()], -1).unwrap();
    assert_eq!(s.shape(), &[2, 2, 2]);
    assert_eq!(vals(&s), vec![0.0, 0.0, 1.0, 10.0, 2.0, 20.0, 3.0, 30.0]);
    let s0 = Tensor::stack(&[Tensor::scalar(1.0f64), Tensor::scalar(2.0f64)], 0).unwrap();
    assert_eq!(vals(&s0), vec![1.0, 2.0]);
    assert_err(
        Tensor::stack(&[a.clone(), arange(&[4])], 0),
        ErrorKind::Value,
        &["stack", "tensor 1", "[4]", "[2, 2]"],
    );
    assert_err(
        Tensor::stack(&[], 0),
        ErrorKind::Value,
        &["stack", "non-empty"],
    );
}

#[test]
fn split_chunk_unbind() {
    let x = arange(&[5, 2]);
    let p = x.split(&[1, 4], 0).unwrap();
    assert_eq!(
        (p[0].shape(), p[1].shape()),
        (&[1usize, 2][..], &[4usize, 2][..])
    );
    assert!(std::sync::Arc::ptr_eq(p[1].storage(), x.storage()));
    assert_eq!(vals(&p[1])[0], 2.0);
    assert_err(
        x.split(&[1, 3], 0),
        ErrorKind::Value,
        &["split", "[1, 3]", "5"],
    );
    let shapes = |v: Vec<Tensor>| v.iter().map(|t| t.shape()[0]).collect::<Vec<_>>();
    assert_eq!(shapes(x.split_size(2, 0).unwrap()), vec![2, 2, 1]);
    assert_eq!(shapes(x.chunk(3, 0).unwrap()), vec![2, 2, 1]);
    assert_eq!(shapes(arange(&[6]).chunk(4, 0).unwrap()), vec![2, 2, 2]);
    assert_eq!(shapes(arange(&[0]).chunk(3, 0).unwrap()), vec![0, 0, 0]);
    assert_eq!(shapes(arange(&[0]).split_size(2, 0).unwrap()), vec![0]);
    assert_err(x.chunk(0, 0), ErrorKind::Value, &["chunk", "0"]);
    assert_err(
        x.split_size(0, 0),
        ErrorKind::Value,
        &["split_size", "positive"],
    );
    let u = x.unbind(1).unwrap();
    assert_eq!(u.len(), 2);
    assert_eq!(vals(&u[1]), vec![1.0, 3.0, 5.0, 7.0, 9.0]);
    assert_err(
        Tensor::scalar(1.0f64).unbind(0),
        ErrorKind::Index,
        &["unbind", "0-d"],
    );
}

#[test]
fn gradients_match_finite_differences() {
    let x = arange(&[3, 4]).mul_scalar(0.37).unwrap().sin().unwrap();
    fd1(&x, |x| x.slice(1, Some(-1), None, -2));
    fd1(&x, |x| x.select(0, -2));
    fd1(&x, |x| x.index_select(1, &idx(&[3, 0, 3, -1])));
    let gi = Tensor::from_vec(vec![0i64, 0, 2, 1, 1, 1], &[2, 3]).unwrap();
    fd1(&x, |x| x.gather(0, &gi));
    let li = Tensor::from_vec(vec![5i64, 5, 11, 0], &[2, 2]).unwrap();
    fd1(&x, |x| x.transpose(0, 1)?.take_flat(&li));
    fd1(&x, |x| x.index(&[ti(&[2, 0, 2]), Slice(None, None, -1)]));
    fd1(&x, |x| x.index(&[NewAxis, ti(&[1, 1]), ti(&[0, 3])]));
    let mask = Tensor::from_vec(vec![true, false, true, true], &[4]).unwrap();
    fd1(&x, move |x| {
        x.index(&[Slice(Some(1), None, 1), IndexItem::Tensor(mask.clone())])
    });
    let y = arange(&[3, 2]).cos().unwrap();
    fd_check(&[x.clone(), y.clone()], |x| {
        Tensor::cat(&[x[0].clone(), x[1].clone()], 1)
    });
    fd_check(&[x.clone(), x.exp().unwrap()], |x| {
        Tensor::stack(&[x[0].clone(), x[1].clone()], 1)
    });
    fd1(&x, |x| {
        let p = x.split(&[1, 3], 1)?;
        p[1].mul_scalar(2.0)?.sum_to(&[3, 1])?.add(&p[0])
    });
    fd1(&x, |x| Tensor::stack(&x.unbind(0)?, 1));
}

#[test]
fn setitem_gradients_flow_to_self_and_value() {
    let x = arange(&[3, 4]).mul_scalar(0.3).unwrap().cos().unwrap();
    let setitem = |items: Vec<IndexItem>| {
        move |xs: &[Tensor]| {
            let h = xs[0].mul_scalar(1.5)?; // a non-leaf target
            h.index_put_(&items, &xs[1])?;
            h.mul(&h)
        }
    };
    fd_check(
        &[x.clone(), t(&[0.5, -1.0, 2.0], &[3])],
        setitem(vec![full(), Int(1)]),
    );
    fd_check(
        &[x.clone(), t(&[0.25], &[1, 1])],
        setitem(vec![Slice(None, None, -2), Slice(Some(1), Some(3), 1)]),
    );
    // duplicates: the overwritten write gets no gradient
    fd_check(
        &[x.clone(), t(&[1.0, 2.0, 3.0], &[3])],
        setitem(vec![ti(&[0, 2, 0]), Int(3)]),
    );
    let mask = Tensor::from_vec(vec![true, false, false, true], &[4]).unwrap();
    fd_check(
        &[x.clone(), t(&[4.0, 5.0], &[2])],
        setitem(vec![Int(2), IndexItem::Tensor(mask)]),
    );
    // the target takes the history of the write
    let h = x.clone();
    let v = t(&[1.0], &[1]);
    v.set_requires_grad(true).unwrap();
    h.index_put_(&[Int(0), Int(0)], &v).unwrap();
    assert!(!h.is_leaf() && h.requires_grad());
    assert_eq!(
        vals(&grad1(&h.sum(None, false).unwrap(), &v, false)),
        vec![1.0]
    );
}

#[test]
fn second_order_through_slice_and_index_select() {
    let xv = [0.5, -1.0, 2.0, 1.5];
    let x = t(&xv, &[4]);
    x.set_requires_grad(true).unwrap();
    let cube = |y: Tensor| {
        y.mul(&y)
            .unwrap()
            .mul(&y)
            .unwrap()
            .sum(None, false)
            .unwrap()
    };

    // f = sum(x[3:0:-2] ** 3): g = 3x^2 on {3, 1}, gg = 6x there
    let f = cube(x.slice(0, Some(3), Some(0), -2).unwrap());
    let g = grad1(&f, &x, true);
    assert_eq!(vals(&g), vec![0.0, 3.0, 0.0, 3.0 * 2.25]);
    let gg = grad1(&g.sum(None, false).unwrap(), &x, false);
    assert_eq!(vals(&gg), vec![0.0, -6.0, 0.0, 9.0]);

    // f = sum(x[[2, 0, 2]] ** 3): counts {2: 2, 0: 1}
    let f = cube(x.index_select(0, &idx(&[2, 0, 2])).unwrap());
    let g = grad1(&f, &x, true);
    assert_eq!(vals(&g), vec![0.75, 0.0, 24.0, 0.0]);
    let gg = grad1(&g.mul(&g).unwrap().sum(None, false).unwrap(), &x, false);
    // d/dx sum(g^2) = 2 g * dg/dx with dg/dx = count * 6x
    assert_eq!(
        vals(&gg),
        vec![2.0 * 0.75 * 3.0, 0.0, 2.0 * 24.0 * 24.0, 0.0]
    );
}

#[test]
fn every_dtype_goes_through_the_kernels() {
    let as_f64 = |t: Tensor| vals(&t.cast_raw(DType::F64).unwrap());
    for d in ferrograd::dtype::ALL_DTYPES {
        let x = tensor::from_f64_vec(vec![0.0, 1.0, 0.0, 1.0], &[2, 2], d).unwrap();
        assert_eq!(
            as_f64(x.index_select(1, &idx(&[1, 0])).unwrap()),
            vec![1.0, 0.0, 1.0, 0.0]
        );
        assert_eq!(as_f64(x.take_flat(&idx(&[3, 0])).unwrap()), vec![1.0, 0.0]);
        assert_eq!(as_f64(x.index(&[ti(&[1]), Int(1)]).unwrap()), vec![1.0]);
        assert_eq!(
            as_f64(Tensor::cat(&[x.clone(), x.clone()], 0).unwrap()).len(),
            8
        );
        assert_eq!(ivals(&x.nonzero().unwrap()), vec![0, 1, 1, 1], "{d}");
        let one = tensor::from_f64_vec(vec![1.0], &[1], d).unwrap();
        x.index_put_(&[ti(&[0, 0]), ti(&[0, 0])], &one).unwrap();
        assert_eq!(as_f64(x.clone()), vec![1.0, 1.0, 0.0, 1.0], "{d}");
    }
}
