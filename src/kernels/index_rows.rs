//! Gather-type index kernels that copy straight from the source view: `index_select`
//! (and what lowers to it: embedding, nearest interpolation) and `gather` along one dim.
//!
//! The general index path (`kernels::index`) first builds a row-major linear index per
//! output element and then reads through it: 8 bytes written and read back per element,
//! plus a division per dimension to turn each linear index into a storage offset. Here
//! the output is seen as `outer x k x inner` units (`outer` = the dims before `dim`,
//! `k` = the indexed dim of the output, `inner` = the dims after it): each index is
//! checked once where it is read, the storage offset of a unit is a table look-up (the
//! `outer` part) plus `index * stride` plus the inner position, and when the inner dims
//! are dense in the source a unit of `index_select` is one `copy_from_slice`. Output
//! blocks of about 32 Ki elements run on the rayon pool (`par::build_blocks`), so the
//! first error by block is the first in row-major order, as on the general path.

use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernels::index::NegIndex;
use crate::kernels::par::{build_blocks, Fresh};
use crate::layout::Layout;
use crate::storage::try_vec_with_capacity;

/// Output elements per task (128 KiB of float32).
const BLOCK: usize = 1 << 15;
/// The most elements taken from a block's zeroed buffer at once, so that the zeroing
/// `Fresh` does stays in cache until the copy overwrites it.
const PIECE: usize = 1 << 12;

/// Storage offsets (relative to the view's offset) of the row-major elements of the
/// sub-view `shape` / `strides`; empty when the sub-view is empty.
fn offsets(shape: &[usize], strides: &[isize]) -> Result<Vec<isize>> {
    let n = shape.iter().try_fold(1usize, |a, &s| a.checked_mul(s));
    let n = n.ok_or_else(|| Error::memory("index kernel: an offset table does not fit"))?;
    let mut out = try_vec_with_capacity(n)?;
    if n == 0 {
        return Ok(out);
    }
    let mut idx = vec![0usize; shape.len()];
    let mut off = 0isize;
    for _ in 0..n {
        out.push(off);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            off += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            off -= strides[d] * shape[d] as isize;
            idx[d] = 0;
        }
    }
    Ok(out)
}

/// Whether the sub-view `shape` / `strides` is dense in row-major order (offset of
/// element `i` is `i`), size-1 dims ignored.
fn dense(shape: &[usize], strides: &[isize]) -> bool {
    let mut expected = 1isize;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n != 1 && s != expected {
            return false;
        }
        expected = expected.saturating_mul(n as isize);
    }
    true
}

/// Checks that `layout` fits inside a buffer of `len` elements.
fn check_span(layout: &Layout, len: usize, op: &str) -> Result<()> {
    let (lo, hi) = layout.storage_span();
    if layout.numel() > 0 && (hi > len || lo > hi) {
        return Err(Error::runtime(format!(
            "internal: {op}: a view of shape {:?} reaches past its buffer of {len} elements",
            layout.shape.as_slice()
        )));
    }
    Ok(())
}

/// Checked product of `dims`.
fn product(dims: &[usize], op: &str) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |a, &s| a.checked_mul(s))
        .ok_or_else(|| Error::memory(format!("{op}: the output size overflows")))
}

/// Wraps `index_select` indices into `0..size` (with `neg` = `Wrap`, a negative one counts
/// from the end); an index outside the range `neg` takes is an `IndexError` naming `op`
/// and `dim`.
pub fn wrap_select_indices(
    index: &[i64],
    size: usize,
    dim: usize,
    op: &str,
    neg: NegIndex<'_>,
) -> Result<Vec<usize>> {
    index
        .iter()
        .map(|&i| {
            neg.wrap(i, size).ok_or_else(|| {
                neg.error(i, dim, size, || {
                    Error::index(format!(
                        "{op}: index {i} is out of range for dimension {dim} with size {size}"
                    ))
                })
            })
        })
        .collect()
}

/// Blocks of whole units (`unit` elements each) of about [`BLOCK`] elements: returns
/// `(units per block, block count)`.
fn blocking(units: usize, unit: usize) -> (usize, usize) {
    let per = (BLOCK / unit.max(1)).max(1);
    (per, units.div_ceil(per))
}

/// `index_select` of the view `layout` of `src` along `dim` at `idx` (already wrapped
/// into `0..shape[dim]`): the output, row-major, of `shape` with `shape[dim] = idx.len()`.
pub fn select_rows<T: Element>(
    src: &[T],
    layout: &Layout,
    dim: usize,
    idx: &[usize],
    op: &str,
) -> Result<Vec<T>> {
    let (shape, strides) = (&layout.shape[..], &layout.strides[..]);
    let size = shape[dim];
    if idx.iter().any(|&i| i >= size) {
        return Err(Error::runtime(format!(
            "internal: {op}: an unchecked index reached the row copy"
        )));
    }
    let k = idx.len();
    let (outer, inner) = (product(&shape[..dim], op)?, product(&shape[dim + 1..], op)?);
    let units = outer
        .checked_mul(k)
        .ok_or_else(|| Error::memory(format!("{op}: the output size overflows")))?;
    let len = units
        .checked_mul(inner)
        .ok_or_else(|| Error::memory(format!("{op}: the output size overflows")))?;
    if len == 0 {
        return Ok(Vec::new());
    }
    check_span(layout, src.len(), op)?;
    let outer_off = offsets(&shape[..dim], &strides[..dim])?;
    let inner_dense = dense(&shape[dim + 1..], &strides[dim + 1..]);
    let inner_off = if inner_dense {
        Vec::new()
    } else {
        offsets(&shape[dim + 1..], &strides[dim + 1..])?
    };
    let (base, sd) = (layout.offset as isize, strides[dim]);
    let (per, blocks) = blocking(units, inner);
    let (out, _) = build_blocks(
        len,
        blocks,
        per * inner,
        T::zero(),
        len >= super::PAR_THRESHOLD,
        &|b, fresh: &mut Fresh<'_, T>| {
            let (u0, u1) = (b * per, ((b + 1) * per).min(units));
            if inner == 1 {
                // one element per unit: a tight loop over the indices of one outer row
                let mut u = u0;
                while u < u1 {
                    let (o, j0) = (u / k, u % k);
                    let j1 = k.min(j0 + (u1 - u).min(PIECE));
                    let row = base + outer_off[o];
                    let dst = fresh.next(j1 - j0);
                    for (d, &i) in dst.iter_mut().zip(&idx[j0..j1]) {
                        *d = src[(row + i as isize * sd) as usize];
                    }
                    u += j1 - j0;
                }
            } else {
                for u in u0..u1 {
                    let start = base + outer_off[u / k] + idx[u % k] as isize * sd;
                    if inner_dense {
                        let s = start as usize;
                        for piece in src[s..s + inner].chunks(PIECE) {
                            fresh.next(piece.len()).copy_from_slice(piece);
                        }
                    } else {
                        for offs in inner_off.chunks(PIECE) {
                            let dst = fresh.next(offs.len());
                            for (d, &io) in dst.iter_mut().zip(offs) {
                                *d = src[(start + io) as usize];
                            }
                        }
                    }
                }
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// Whether `gather(dim, index)` on a source of `shape` with an index of `index_shape`
/// is a case [`gather_rows`] serves: the same rank (at least 1) and an index no larger
/// than the source outside `dim`. Other shapes go to the general path, which also
/// raises their errors.
pub fn gather_fits(shape: &[usize], dim: usize, index_shape: &[usize]) -> bool {
    !shape.is_empty()
        && index_shape.len() == shape.len()
        && dim < shape.len()
        && (0..shape.len()).all(|e| e == dim || index_shape[e] <= shape[e])
}

/// `gather(dim, index)` (torch semantics) of the view `layout` of `src`: output element
/// `m` (row-major over `index_shape`) is `src[m with m[dim] = index[m]]`, negative
/// indices wrapping or refused as `neg` says; an index outside the range taken is an
/// `IndexError` naming `op` (the first in row-major order). Needs [`gather_fits`] and
/// `index` row-major.
pub fn gather_rows<T: Element, I: Copy + Into<i64> + Sync>(
    src: &[T],
    layout: &Layout,
    dim: usize,
    index: &[I],
    index_shape: &[usize],
    op: &str,
    neg: NegIndex<'_>,
) -> Result<Vec<T>> {
    let (shape, strides) = (&layout.shape[..], &layout.strides[..]);
    if !gather_fits(shape, dim, index_shape) {
        return Err(Error::runtime(format!(
            "internal: {op}: the index shape {index_shape:?} does not fit the source {shape:?}"
        )));
    }
    let len = product(index_shape, op)?;
    if index.len() != len {
        return Err(Error::value(format!(
            "{op}: {} index values do not fill an index of shape {index_shape:?}",
            index.len()
        )));
    }
    if len == 0 {
        return Ok(Vec::new());
    }
    check_span(layout, src.len(), op)?;
    let size = shape[dim];
    let n = size as i64; // a buffer's length always fits in i64
                         // added to an index below 0 before the range check (0 when refusing: it then fails)
    let shift = neg.shift(n);
    let (outer, kd) = (product(&index_shape[..dim], op)?, index_shape[dim]);
    let inner = len / (outer * kd);
    let outer_off = offsets(&index_shape[..dim], &strides[..dim])?;
    // the source's inner dims read at the index's inner positions: the identity when the
    // two agree and the source is dense there
    let inner_dense =
        index_shape[dim + 1..] == shape[dim + 1..] && dense(&shape[dim + 1..], &strides[dim + 1..]);
    let inner_off = if inner_dense {
        Vec::new()
    } else {
        offsets(&index_shape[dim + 1..], &strides[dim + 1..])?
    };
    let (base, sd) = (layout.offset as isize, strides[dim]);
    let units = outer * kd;
    let (per, blocks) = blocking(units, inner);
    let bad = |v: i64| {
        neg.error(v, dim, size, || {
            Error::index(format!(
                "{op}: index {v} is out of bounds for dimension {dim} with size {size}"
            ))
        })
    };
    let (out, _) = build_blocks(
        len,
        blocks,
        per * inner,
        T::zero(),
        len >= super::PAR_THRESHOLD,
        &|b, fresh: &mut Fresh<'_, T>| {
            let (u0, u1) = (b * per, ((b + 1) * per).min(units));
            let mut u = u0;
            // segments of units sharing one outer position (one table look-up each)
            while u < u1 {
                let o = u / kd;
                let seg_end = u1.min((o + 1) * kd).min(u + PIECE.div_ceil(inner));
                let row = base + outer_off[o];
                let ix = &index[u * inner..seg_end * inner];
                if inner == 1 {
                    // one element per unit: the common last-dim gather, a tight loop
                    let dst = fresh.next(ix.len());
                    for (d, &x) in dst.iter_mut().zip(ix) {
                        let v: i64 = x.into();
                        let w = if v < 0 { v + shift } else { v };
                        if !(0..n).contains(&w) {
                            return Err(bad(v));
                        }
                        *d = src[(row + w as isize * sd) as usize];
                    }
                } else if inner_dense {
                    for c in ix.chunks(inner) {
                        let dst = fresh.next(c.len());
                        for (i, (d, &x)) in dst.iter_mut().zip(c).enumerate() {
                            let v: i64 = x.into();
                            let w = if v < 0 { v + shift } else { v };
                            if !(0..n).contains(&w) {
                                return Err(bad(v));
                            }
                            *d = src[(row + w as isize * sd + i as isize) as usize];
                        }
                    }
                } else {
                    for c in ix.chunks(inner) {
                        let dst = fresh.next(c.len());
                        for ((d, &x), &io) in dst.iter_mut().zip(c).zip(&inner_off) {
                            let v: i64 = x.into();
                            let w = if v < 0 { v + shift } else { v };
                            if !(0..n).contains(&w) {
                                return Err(bad(v));
                            }
                            *d = src[(row + w as isize * sd + io) as usize];
                        }
                    }
                }
                u = seg_end;
            }
            Ok(())
        },
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_rows_matches_the_definition_on_strided_views() {
        let base: Vec<i64> = (0..24).collect();
        // [2, 3, 4] contiguous, and its [4, 3, 2] full transpose
        let c = Layout::contiguous(&[2, 3, 4]);
        assert_eq!(
            select_rows(&base, &c, 1, &[2, 0, 2], "s").unwrap(),
            [
                8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23, 12, 13, 14, 15, 20, 21, 22,
                23
            ]
        );
        assert_eq!(
            select_rows(&base, &c, 2, &[3, 0], "s").unwrap(),
            [3, 0, 7, 4, 11, 8, 15, 12, 19, 16, 23, 20]
        );
        let t = c.swap_dims(0, 2); // element [a, b, c] at c*12 + b*4 + a
        assert_eq!(
            select_rows(&base, &t, 0, &[1], "s").unwrap(),
            [1, 13, 5, 17, 9, 21]
        );
        assert!(select_rows(&base, &c, 0, &[2], "s").is_err());
        assert!(select_rows(&base, &c, 0, &[], "s").unwrap().is_empty());
    }

    #[test]
    fn gather_rows_matches_the_definition_and_reports_the_first_bad_index() {
        let base: Vec<f64> = (0..6).map(f64::from).collect();
        let c = Layout::contiguous(&[2, 3]);
        let g = gather_rows(
            &base,
            &c,
            1,
            &[2i64, -3, 1, 1],
            &[2, 2],
            "g",
            NegIndex::Wrap,
        )
        .unwrap();
        assert_eq!(g, [2.0, 0.0, 4.0, 4.0]);
        let g0 = gather_rows(&base, &c, 0, &[1i32, 0], &[1, 2], "g", NegIndex::Wrap).unwrap();
        assert_eq!(g0, [3.0, 1.0]);
        let e = gather_rows(
            &base,
            &c,
            1,
            &[0i64, 3, -4, 0],
            &[2, 2],
            "g",
            NegIndex::Wrap,
        );
        let e = e.unwrap_err();
        assert!(
            e.message.contains("index 3 is out of bounds"),
            "{}",
            e.message
        );
        // refusing: the first negative index in row-major order, with PyTorch's message
        let refuse = NegIndex::Refuse("take_along_dim");
        let e = gather_rows(&base, &c, 1, &[0i64, 1, -2, -1], &[2, 2], "g", refuse);
        assert!(e.unwrap_err().message.starts_with(
            "take_along_dim: index -2 is out of bounds for dimension 1 with size 3: \
                 PyTorch's take_along_dim takes indices in [0, 3)"
        ));
        let g = gather_rows(&base, &c, 1, &[2i64, 0, 1, 1], &[2, 2], "g", refuse).unwrap();
        assert_eq!(g, [2.0, 0.0, 4.0, 4.0]);
        assert!(!gather_fits(&[2, 3], 1, &[3, 1]));
        assert!(!gather_fits(&[], 0, &[]));
    }
}
