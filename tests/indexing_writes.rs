//! Indexing and joining ops that write or differentiate: in-place writes through views,
//! `cat` / `stack` / `split`, gradients against central finite differences (f64),
//! second-order gradients and every dtype through the kernels (the reads:
//! tests/indexing.rs).

mod indexing_support;

use ferrograd::autograd::ops::index::IndexItem::{self, Int, NewAxis, Slice};
use ferrograd::tensor::{self, Tensor};
use ferrograd::{DType, ErrorKind};
use indexing_support::*;

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
