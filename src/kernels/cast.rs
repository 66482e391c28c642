//! Dtype conversion of a strided view into a new contiguous buffer.

use super::elementwise::map_unary;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;

/// Converts `layout`'s elements of `src` to `to`, contiguous. Between bool and the integers
/// the conversion goes through i64 and wraps like PyTorch and NumPy (`int64 300 -> uint8`
/// is 44); floats to integers truncate toward zero, then wrap; other real-to-real
/// conversions go through f64 (exact for every real dtype here); complex to real keeps
/// the real part.
pub fn cast_storage(src: &Storage, layout: &Layout, to: DType) -> Result<Storage> {
    crate::with_dtype!(src.dtype(), S, {
        let data = src.read::<S>();
        crate::with_dtype!(to, D, {
            Ok(Storage::from_vec(cast_slice::<S, D>(&data, layout)?))
        })
    })
}

fn cast_slice<S: Element, D: Element>(src: &[S], layout: &Layout) -> Result<Vec<D>> {
    if S::DTYPE.is_complex() || D::DTYPE.is_complex() {
        map_unary(src, layout, |x: S| D::from_c128(x.to_c128()))
    } else if is_exact_int(S::DTYPE) && is_exact_int(D::DTYPE) {
        if D::DTYPE == DType::Bool {
            map_unary(src, layout, |x: S| D::from_i64((x.to_i64() != 0) as i64))
        } else {
            map_unary(src, layout, |x: S| D::from_i64(x.to_i64()))
        }
    } else if D::DTYPE == DType::Bool {
        map_unary(src, layout, |x: S| {
            D::from_f64(if x.to_f64() != 0.0 { 1.0 } else { 0.0 })
        })
    } else {
        map_unary(src, layout, |x: S| D::from_f64(x.to_f64()))
    }
}

/// Bool and the integer dtypes: exact through i64.
fn is_exact_int(d: DType) -> bool {
    d == DType::Bool || d.is_int()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cast<S: Element, D: Element>(v: Vec<S>) -> Vec<D> {
        let n = v.len();
        let s = Storage::from_vec(v);
        let out = cast_storage(&s, &Layout::contiguous(&[n]), D::DTYPE).unwrap();
        let guard = out.read::<D>();
        guard.to_vec()
    }

    #[test]
    fn int_casts_wrap() {
        assert_eq!(
            cast::<i64, u8>(vec![300, -1, 255, 256]),
            vec![44, 255, 255, 0]
        );
        assert_eq!(cast::<i32, i8>(vec![128, -129, 127]), vec![-128, 127, 127]);
        assert_eq!(
            cast::<i64, i32>(vec![1 << 40, (1 << 31) + 5]),
            vec![0, i32::MIN + 5]
        );
        assert_eq!(cast::<u8, i8>(vec![200]), vec![-56]);
        assert_eq!(cast::<i8, u8>(vec![-56]), vec![200]);
        assert_eq!(cast::<i16, bool>(vec![256, 0]), vec![true, false]);
        assert_eq!(cast::<i64, i64>(vec![i64::MAX]), vec![i64::MAX]);
    }

    #[test]
    fn float_to_narrow_truncates_then_wraps() {
        assert_eq!(
            cast::<f64, u8>(vec![300.0, -1.0, 2.9, -2.9]),
            vec![44, 255, 2, 254]
        );
        assert_eq!(cast::<f32, i16>(vec![40000.0, -0.5]), vec![-25536, 0]);
        assert_eq!(cast::<u8, f32>(vec![255]), vec![255.0]);
    }
}
