//! Dtype conversion of a strided view into a new contiguous buffer.

use super::elementwise::map_runs;
use crate::dtype::narrow::f32_to_bf16;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;
use half::bf16;
use std::mem::MaybeUninit;

/// Converts `layout`'s elements of `src` to `to`, contiguous. Between bool and the integers
/// the conversion goes through i64 and wraps like PyTorch and NumPy (`int64 300 -> uint8`
/// is 44); floats to integers truncate toward zero, then wrap; other real-to-real
/// conversions go through f64 (exact for every real dtype here); complex to real keeps
/// the real part; to bool is "nonzero" (NaN is true, so is a complex with either part
/// nonzero).
///
/// Build cost: the 12 x 12 dtype pairs each compile only the small loop of
/// [`convert_run`]; the threading and strided walk ([`map_runs`]) are compiled once per
/// output dtype (they once were compiled for every pair, a large share of the crate's
/// machine code and build time; see docs/performance.md).
pub fn cast_storage(src: &Storage, layout: &Layout, to: DType) -> Result<Storage> {
    match (src.dtype(), to) {
        // bit-level fast paths (what `save_compressed("bfloat16")` runs on every saved
        // tensor): the generic path goes through f64 and a scalar rounding
        (DType::F32, DType::BF16) => {
            let data = src.read::<f32>();
            let data: &[f32] = &data;
            let out = map_runs(layout, &|off, stride, out: &mut [MaybeUninit<bf16>]| {
                f32_to_bf16_run(data, off, stride, out)
            })?;
            Ok(Storage::from_vec(out))
        }
        (DType::BF16, DType::F32) => {
            let data = src.read::<bf16>();
            let data: &[bf16] = &data;
            let out = map_runs(layout, &|off, stride, out: &mut [MaybeUninit<f32>]| {
                convert_run_with(data, off, stride, out, bf16_to_f32)
            })?;
            Ok(Storage::from_vec(out))
        }
        _ => crate::with_dtype!(to, D, { Ok(Storage::from_vec(cast_to::<D>(src, layout)?)) }),
    }
}

/// bfloat16 to f32: exact (bfloat16 is the top half of an f32).
#[inline(always)]
fn bf16_to_f32(x: bf16) -> f32 {
    f32::from_bits(u32::from(x.to_bits()) << 16)
}

fn f32_to_bf16_run(src: &[f32], off: isize, stride: isize, out: &mut [MaybeUninit<bf16>]) {
    convert_run_with(src, off, stride, out, f32_to_bf16)
}

/// `out[j] = f(src[off + j * stride])`; the `stride == 1` loop vectorises.
#[inline(always)]
fn convert_run_with<S: Copy, D>(
    src: &[S],
    off: isize,
    stride: isize,
    out: &mut [MaybeUninit<D>],
    f: impl Fn(S) -> D,
) {
    if stride == 1 {
        let s = &src[off as usize..off as usize + out.len()];
        for (o, &x) in out.iter_mut().zip(s) {
            o.write(f(x));
        }
    } else {
        for (j, o) in out.iter_mut().enumerate() {
            o.write(f(src[(off + j as isize * stride) as usize]));
        }
    }
}

fn cast_to<D: Element>(src: &Storage, layout: &Layout) -> Result<Vec<D>> {
    crate::with_dtype!(src.dtype(), S, {
        let data = src.read::<S>();
        let data: &[S] = &data;
        map_runs(layout, &|off, stride, out| {
            convert_run::<S, D>(data, off, stride, out)
        })
    })
}

/// `out[j] = convert(src[off + j * stride])`; the `stride == 1` loop vectorises.
fn convert_run<S: Element, D: Element>(
    src: &[S],
    off: isize,
    stride: isize,
    out: &mut [MaybeUninit<D>],
) {
    if stride == 1 {
        let s = &src[off as usize..off as usize + out.len()];
        for (o, &x) in out.iter_mut().zip(s) {
            o.write(convert::<S, D>(x));
        }
    } else {
        for (j, o) in out.iter_mut().enumerate() {
            o.write(convert::<S, D>(src[(off + j as isize * stride) as usize]));
        }
    }
}

/// One element, by the rules of [`cast_storage`]; the branches are on constants and fold
/// away in each instantiation.
#[inline(always)]
fn convert<S: Element, D: Element>(x: S) -> D {
    if D::DTYPE == DType::Bool {
        // truthiness: nonzero (NaN is true; a complex number is true when either part is)
        let nonzero = if S::DTYPE.is_complex() {
            x.to_c128() != num_complex::Complex64::new(0.0, 0.0)
        } else if is_exact_int(S::DTYPE) {
            x.to_i64() != 0
        } else {
            x.to_f64() != 0.0
        };
        D::from_i64(nonzero as i64)
    } else if S::DTYPE.is_complex() || D::DTYPE.is_complex() {
        D::from_c128(x.to_c128())
    } else if is_exact_int(S::DTYPE) {
        // exact to an integer; rounded once to a float (not through f64 first)
        D::from_i64(x.to_i64())
    } else {
        D::from_f64(x.to_f64())
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
    fn bf16_fast_paths_match_the_generic_rounding() {
        // every 16-bit high half with assorted low halves (ties, just above/below a tie),
        // NaNs and infinities included
        let mut xs = Vec::new();
        for hi in 0..=u16::MAX as u32 {
            for lo in [
                0u32,
                1,
                0x7FFF,
                0x8000,
                0x8001,
                0xFFFF,
                (hi * 7919) & 0xFFFF,
            ] {
                xs.push(f32::from_bits((hi << 16) | lo));
            }
        }
        let got: Vec<bf16> = cast(xs.clone());
        for (x, g) in xs.iter().zip(&got) {
            // half's f32 rounding is the reference (its f64 one is one unit off for some
            // values, e.g. 0x208001; dtype::narrow rounds f64 correctly)
            let want = bf16::from_f32(*x);
            if x.is_nan() {
                assert!(g.is_nan() && g.is_sign_negative() == x.is_sign_negative());
            } else {
                assert_eq!(g.to_bits(), want.to_bits(), "{x:e} ({:#x})", x.to_bits());
            }
        }
        let back: Vec<f32> = cast(got.clone());
        for (g, b) in got.iter().zip(&back) {
            assert!(b.to_bits() == g.to_f32().to_bits() || (g.is_nan() && b.is_nan()));
        }
        // strided views take the same path
        let s = Storage::from_vec(vec![1.0f32, 2.0, 3.0, 1.0 + 1.0 / 256.0]);
        let strided = Layout::contiguous(&[2, 2]).permute(&[1, 0]).unwrap();
        let out = cast_storage(&s, &strided, DType::BF16).unwrap();
        let v: Vec<f32> = out.read::<bf16>().iter().map(|b| b.to_f32()).collect();
        assert_eq!(v, vec![1.0, 3.0, 2.0, 1.0]);
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

    #[test]
    fn to_bool_is_nonzero() {
        use num_complex::Complex64 as C;
        let c = vec![C::new(0.0, 1.0), C::new(0.0, 0.0), C::new(-2.0, 0.0)];
        assert_eq!(cast::<C, bool>(c), vec![true, false, true]);
        assert_eq!(
            cast::<f32, bool>(vec![f32::NAN, 0.0, -0.0, 0.5]),
            vec![true, false, false, true]
        );
        assert_eq!(cast::<i8, bool>(vec![0, -128]), vec![false, true]);
    }

    #[test]
    fn strided_views() {
        // a 3x2 view of a 2x3 buffer (transpose), step-2 and step -2 slices
        let s = Storage::from_vec(vec![1i32, 2, 3, 4, 5, 6]);
        let t = Layout::contiguous(&[2, 3]).permute(&[1, 0]).unwrap();
        let out = cast_storage(&s, &t, DType::F64).unwrap();
        assert_eq!(
            out.read::<f64>().to_vec(),
            vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
        let every_other = Layout::contiguous(&[6]).slice(0, 1, 3, 2);
        let out = cast_storage(&s, &every_other, DType::U8).unwrap();
        assert_eq!(out.read::<u8>().to_vec(), vec![2, 4, 6]);
        let reversed = Layout::contiguous(&[6]).slice(0, 5, 3, -2);
        let out = cast_storage(&s, &reversed, DType::I64).unwrap();
        assert_eq!(out.read::<i64>().to_vec(), vec![6, 4, 2]);
    }
}
