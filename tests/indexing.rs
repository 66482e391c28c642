//! Indexing ops that read: values against hand-computed results, NumPy indexing rules,
//! views, and error messages (the writes, joins and gradients: tests/indexing_writes.rs).

mod indexing_support;

use ferrograd::autograd::ops::index::IndexItem::{self, Ellipsis, Int, NewAxis, Slice};
use ferrograd::tensor::Tensor;
use ferrograd::ErrorKind;
use indexing_support::*;

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
