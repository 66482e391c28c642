//! Fuzzes indexing: a small tensor of a fuzzed shape (0-d and 0-size included, a strided
//! or offset view sometimes) indexed by a fuzzed key of ints, slices, new axes, ellipses
//! and int/bool index tensors, read (`index`) and written (`index_put_`). Every key must
//! give a tensor or an `Err`; the result is read back in full (catches bad views).
#![no_main]

use ferrograd::autograd::ops::index::IndexItem;
use ferrograd::{DType, Tensor};
use libfuzzer_sys::fuzz_target;

struct Bytes<'a>(&'a [u8], usize);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        let b = self.0.get(self.1).copied().unwrap_or(0);
        self.1 += 1;
        b
    }
    fn more(&self) -> bool {
        self.1 < self.0.len()
    }
    /// Small signed values mostly, extremes sometimes.
    fn int(&mut self) -> isize {
        match self.next() {
            250 => isize::MAX,
            251 => isize::MIN,
            252 => 1 << 40,
            253 => -(1 << 40),
            b => (b % 13) as isize - 6,
        }
    }
}

fn base(b: &mut Bytes) -> Option<Tensor> {
    let ndim = (b.next() % 4) as usize;
    let shape: Vec<usize> = (0..ndim).map(|_| (b.next() % 4) as usize).collect();
    let n: usize = shape.iter().product();
    let t = Tensor::from_vec((0..n).map(|i| i as f32).collect::<Vec<f32>>(), &shape).ok()?;
    Some(match b.next() % 3 {
        // a transposed view, or a view with a storage offset (possibly empty)
        1 if ndim >= 2 => t.transpose(0, 1).ok()?,
        2 if ndim >= 1 => t.slice(0, Some(1), None, 1).ok()?,
        _ => t,
    })
}

fn item(b: &mut Bytes) -> Option<IndexItem> {
    Some(match b.next() % 6 {
        0 => IndexItem::Int(b.int()),
        1 => {
            let start = (b.next() & 1 == 1).then(|| b.int());
            let stop = (b.next() & 1 == 1).then(|| b.int());
            IndexItem::Slice(start, stop, b.int())
        }
        2 => IndexItem::NewAxis,
        3 => IndexItem::Ellipsis,
        4 => {
            let n = (b.next() % 4) as usize;
            let v: Vec<i64> = (0..n).map(|_| b.int() as i64).collect();
            IndexItem::Tensor(Tensor::from_vec(v, &[n]).ok()?)
        }
        _ => {
            let n = (b.next() % 4) as usize;
            let v: Vec<bool> = (0..n).map(|_| b.next() & 1 == 1).collect();
            IndexItem::Tensor(Tensor::from_vec(v, &[n]).ok()?)
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data, 0);
    let Some(t) = base(&mut b) else { return };
    let mut key = Vec::new();
    while b.more() && key.len() < 6 {
        match item(&mut b) {
            Some(i) => key.push(i),
            None => return,
        }
    }
    if let Ok(out) = t.index(&key) {
        let v = out.to_vec::<f32>().expect("an indexing result reads back");
        assert_eq!(v.len(), out.numel());
    }
    let target = t.contiguous().unwrap_or(t);
    let value = Tensor::from_vec(vec![7.0f32], &[1]).unwrap();
    let _ = target.index_put_(&key, &value);
    let _ = target.to_dtype(DType::F64);
});
