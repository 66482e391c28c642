//! Sorting and selection along the last dimension of a contiguous buffer seen as rows:
//! argsort (with the sorted values), top-k, k-th smallest, medians, the mode, and binary
//! search (`searchsorted`).
//!
//! Every element maps to an unsigned integer key whose order is NumPy's / PyTorch's order
//! of the values: NaN after +inf (all NaNs equal), -0.0 equal to +0.0. Keys are sorted
//! together with the element's position, so equal values keep their original order: every
//! sort here is stable, at the speed of `sort_unstable` on plain integers (32-bit keys and
//! 32-bit positions share one u64; 64-bit keys sort as `(u64, u32)` pairs).

use super::par::for_each_chunk;
use crate::error::{Error, Result};
use crate::storage::{try_filled_vec, try_vec_with_capacity};
use rayon::prelude::*;

/// A value with a total-order integer key (see the module doc).
pub trait SortKey: Copy + Send + Sync + Default {
    /// Whether keys need 64 bits (else they fit in the low 32).
    const WIDE: bool;
    /// The order-preserving key.
    fn key(self) -> u64;
    /// Whether the value is a NaN.
    fn is_nan_value(self) -> bool;
}

impl SortKey for f32 {
    const WIDE: bool = false;
    #[inline(always)]
    fn key(self) -> u64 {
        // selects, not branches: vectorisable (`few_of_row`'s chunk test)
        let b = if self == 0.0 { 0 } else { self.to_bits() };
        let k = if b >> 31 == 1 { !b } else { b | 1 << 31 };
        (if self.is_nan() { u32::MAX } else { k }) as u64
    }
    fn is_nan_value(self) -> bool {
        self.is_nan()
    }
}

impl SortKey for f64 {
    const WIDE: bool = true;
    #[inline(always)]
    fn key(self) -> u64 {
        let b = if self == 0.0 { 0 } else { self.to_bits() };
        let k = if b >> 63 == 1 { !b } else { b | 1 << 63 };
        if self.is_nan() {
            u64::MAX
        } else {
            k
        }
    }
    fn is_nan_value(self) -> bool {
        self.is_nan()
    }
}

impl SortKey for i32 {
    const WIDE: bool = false;
    #[inline(always)]
    fn key(self) -> u64 {
        (self as u32 ^ 0x8000_0000) as u64
    }
    fn is_nan_value(self) -> bool {
        false
    }
}

impl SortKey for i64 {
    const WIDE: bool = true;
    #[inline(always)]
    fn key(self) -> u64 {
        self as u64 ^ (1 << 63)
    }
    fn is_nan_value(self) -> bool {
        false
    }
}

/// Row count × length from which rows run on rayon threads (or one long row sorts in
/// parallel).
const PAR_MIN: usize = 1 << 15;

/// Refuses rows too long for 32-bit positions.
fn check_len(n: usize, op: &str) -> Result<()> {
    if n > u32::MAX as usize {
        return Err(Error::value(format!(
            "{op}: a dimension of {n} elements is longer than the 2^32 - 1 supported"
        )));
    }
    Ok(())
}

/// The key of `x` in the requested direction (descending flips it: NaN comes first).
#[inline(always)]
fn dkey<T: SortKey>(x: T, descending: bool) -> u64 {
    let k = x.key();
    match (descending, T::WIDE) {
        (false, _) => k,
        (true, true) => !k,
        (true, false) => u32::MAX as u64 - k,
    }
}

/// The positions of `row` in sorted order, written to `order` (`order.len() <= row.len()`:
/// only the first `order.len()` are kept; `select` partitions first instead of sorting
/// the whole row).
fn order_row<T: SortKey>(row: &[T], descending: bool, order: &mut [i64], par: bool) {
    let k = order.len();
    if k == 0 {
        return;
    }
    let n = row.len();
    let partial = k < n;
    if partial && few_pays(k, n) && few_of_row(row, descending, order) {
        return;
    }
    if T::WIDE {
        let mut v: Vec<(u64, u32)> = row
            .iter()
            .enumerate()
            .map(|(i, &x)| (dkey(x, descending), i as u32))
            .collect();
        if partial {
            // the k kept are no longer in position order: sort whole items (key, position)
            v.select_nth_unstable(k - 1);
            v.truncate(k);
            v.sort_unstable();
        } else {
            sort_keys(&mut v, |p| p.0, 0, par);
        }
        for (o, &(_, i)) in order.iter_mut().zip(&v) {
            *o = i as i64;
        }
    } else {
        let mut v: Vec<u64> = row
            .iter()
            .enumerate()
            .map(|(i, &x)| (dkey(x, descending) << 32) | i as u64)
            .collect();
        if partial {
            // the k kept are no longer in position order: sort whole items (key, position)
            v.select_nth_unstable(k - 1);
            v.truncate(k);
            v.sort_unstable();
        } else {
            sort_keys(&mut v, |&p| p, 32, par);
        }
        for (o, &p) in order.iter_mut().zip(&v) {
            *o = (p & 0xffff_ffff) as i64;
        }
    }
}

/// Top-`k` counts up to which a row is first scanned once ([`few_of_row`]), keeping its
/// best `k` items sorted (an insertion costs up to `k` moves; random rows insert about
/// `k ln(n/k)` times), instead of copied whole and partitioned.
const FEW: usize = 256;

/// Whether [`few_of_row`] is worth trying for the top `k` of `n`: a random row moves
/// about `k/2` items per insertion, `k ln(n/k)` times; tried where that is at most `n/2`
/// (top 10 of 4096, top 100 or 256 of a million; not top 32 of 4096).
fn few_pays(k: usize, n: usize) -> bool {
    k <= FEW && (k * k) as f64 * (n as f64 / k as f64).ln() <= n as f64
}

/// Elements per chunk of [`few_of_row`]'s scan.
const CHUNK: usize = 16;

/// The positions of the first `order.len()` (1 to [`FEW`], less than the row) elements of
/// `row` in sorted order: the best `k` (key, position) items are kept sorted while the
/// row is scanned [`CHUNK`] elements at a time; a branch-free test marks the elements of
/// a chunk whose key is below the worst kept one (an equal key at a later position never
/// beats it), and only those are looked at one by one: on most rows a few dozen. Gives up
/// (false; the caller partitions instead) once the insertions have moved as many items as
/// the row holds, as on a row sorted against the requested order. The scan is compiled
/// for AVX2 and AVX-512 too, chosen once per row.
fn few_of_row<T: SortKey>(row: &[T], descending: bool, order: &mut [i64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
        unsafe fn wider<T: SortKey>(row: &[T], descending: bool, order: &mut [i64]) -> bool {
            few_of_row_body(row, descending, order)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn wide<T: SortKey>(row: &[T], descending: bool, order: &mut [i64]) -> bool {
            few_of_row_body(row, descending, order)
        }
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            // SAFETY: the CPU supports these AVX-512 subsets (checked just above).
            return unsafe { wider(row, descending, order) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { wide(row, descending, order) };
        }
    }
    few_of_row_body(row, descending, order)
}

/// [`few_of_row`]'s loop, inlined into each of its builds.
#[inline(always)]
fn few_of_row_body<T: SortKey>(row: &[T], descending: bool, order: &mut [i64]) -> bool {
    let k = order.len();
    // items moved by insertions before giving up (random rows move about
    // `k/2 * k ln(n/k)`, far less for the usual short k)
    let mut budget = row.len();
    let mut best: Vec<(u64, u32)> = Vec::with_capacity(k);
    for (i, &x) in row[..k].iter().enumerate() {
        let item = (dkey(x, descending), i as u32);
        let at = best.partition_point(|b| *b < item);
        best.insert(at, item);
    }
    let mut worst = best[k - 1];
    for (c, chunk) in row[k..].chunks(CHUNK).enumerate() {
        // bit j: chunk[j]'s key is below the worst kept one
        let mut mask = 0u32;
        for (j, &x) in chunk.iter().enumerate() {
            mask |= u32::from(dkey(x, descending) < worst.0) << j;
        }
        let base = k + c * CHUNK;
        while mask != 0 {
            let j = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let item = (dkey(chunk[j], descending), (base + j) as u32);
            // the worst may have improved since the chunk was marked
            if item < worst {
                best.pop();
                let at = best.partition_point(|b| *b < item);
                let Some(left) = budget.checked_sub(best.len() - at) else {
                    return false;
                };
                budget = left;
                best.insert(at, item);
                worst = best[k - 1];
            }
        }
    }
    for (o, &(_, i)) in order.iter_mut().zip(&best) {
        *o = i as i64;
    }
    true
}

/// Rows from this length on sort by radix (below, a comparison sort is quicker).
const RADIX_MIN: usize = 512;

/// Sorts `v` (keys paired with positions in ascending position order) by `key(x) >>
/// lo_bit`, ties kept in order: a stable LSD radix sort for long rows, `sort_unstable`
/// (on the whole item, which includes the position) for short ones or when the scratch
/// buffer cannot be had.
fn sort_keys<T: Copy + Default + Ord + Send>(
    v: &mut Vec<T>,
    key: impl Fn(&T) -> u64,
    lo_bit: u32,
    par: bool,
) {
    if v.len() < RADIX_MIN || radix_sort(v, key, lo_bit).is_err() {
        if par {
            v.par_sort_unstable();
        } else {
            v.sort_unstable();
        }
    }
}

/// Stable LSD radix sort of `v` by bits `lo_bit..64` of `key`, 8 bits a pass (11 for
/// rows of 64K items and more, where the larger histograms pay off); passes in which every
/// item has the same digit are skipped. Errs (leaving `v` untouched) only when the scratch
/// buffer cannot be allocated.
fn radix_sort<T: Copy + Default>(
    v: &mut Vec<T>,
    key: impl Fn(&T) -> u64,
    lo_bit: u32,
) -> Result<()> {
    let n = v.len();
    let bits: u32 = if n >= 1 << 16 { 11 } else { 8 };
    let width = 1usize << bits;
    let passes: Vec<(u32, u32)> = (lo_bit..64)
        .step_by(bits as usize)
        .map(|shift| (shift, bits.min(64 - shift)))
        .collect();
    // all histograms in one read of the data
    let mut counts = vec![0usize; passes.len() * width];
    for x in v.iter() {
        let k = key(x);
        for (c, &(shift, b)) in counts.chunks_mut(width).zip(&passes) {
            c[((k >> shift) & ((1 << b) - 1)) as usize] += 1;
        }
    }
    let mut buf = try_filled_vec(n, T::default())?;
    let mut in_v = true;
    for (c, &(shift, b)) in counts.chunks_mut(width).zip(&passes) {
        if c.contains(&n) {
            continue;
        }
        let mut sum = 0;
        for k in c.iter_mut() {
            let here = *k;
            *k = sum;
            sum += here;
        }
        let (src, dst) = if in_v {
            (&v[..], &mut buf[..])
        } else {
            (&buf[..], &mut v[..])
        };
        let mask = (1u64 << b) - 1;
        for x in src {
            let d = ((key(x) >> shift) & mask) as usize;
            dst[c[d]] = *x;
            c[d] += 1;
        }
        in_v = !in_v;
    }
    if !in_v {
        std::mem::swap(v, &mut buf);
    }
    Ok(())
}

/// Sorted (or top-`k`) positions of every row of length `n` in `src`: `k` positions per
/// row, in ascending order of value (descending when `descending`), ties in their original
/// order. Also returns the values at those positions when `with_values`.
pub fn sort_rows<T: SortKey>(
    src: &[T],
    n: usize,
    k: usize,
    descending: bool,
    with_values: bool,
    op: &str,
) -> Result<(Vec<i64>, Option<Vec<T>>)> {
    check_len(n, op)?;
    let rows = src.len().checked_div(n).unwrap_or(0);
    let mut idx = try_filled_vec(rows * k, 0i64)?;
    if rows * k > 0 {
        let one_long_row = rows == 1 && n >= PAR_MIN;
        let run = |(row, o): (&[T], &mut [i64])| order_row(row, descending, o, one_long_row);
        if rows > 1 && rows * n >= PAR_MIN {
            for_each_chunk(&mut idx, k, &|start, o| {
                let r = start / k;
                run((&src[r * n..(r + 1) * n], o))
            });
        } else {
            src.chunks(n).zip(idx.chunks_mut(k)).for_each(run);
        }
    }
    let values = if with_values {
        Some(take_rows(src, n, &idx, k)?)
    } else {
        None
    };
    Ok((idx, values))
}

/// `out[r, j] = src[r, idx[r, j]]` for rows of length `n` in `src` and `k` in `idx`.
pub fn take_rows<T: Copy + Default>(src: &[T], n: usize, idx: &[i64], k: usize) -> Result<Vec<T>> {
    let mut out = try_vec_with_capacity(idx.len())?;
    if k > 0 {
        for (r, ix) in idx.chunks(k).enumerate() {
            let row = &src[r * n..(r + 1) * n];
            out.extend(ix.iter().map(|&i| row[i as usize]));
        }
    }
    Ok(out)
}

/// Which element of a row `select_rows` picks.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    /// The `k`-th smallest (0-based; NaN counts as the largest).
    Kth(usize),
    /// The median: the lower middle element (`high` = the upper one); a row holding a NaN
    /// gives its first NaN (`ignore_nan` = false) or the median of the other elements.
    Median {
        /// Upper instead of lower middle element (even lengths).
        high: bool,
        /// Skip NaNs (`nanmedian`); a row of only NaNs gives its first element.
        ignore_nan: bool,
    },
    /// The most frequent value (the smallest of equally frequent ones), at the last
    /// position holding it.
    Mode,
}

/// The position of one element per row of length `n` (`n > 0`), chosen by `pick`.
pub fn select_rows<T: SortKey>(src: &[T], n: usize, pick: Pick, op: &str) -> Result<Vec<i64>> {
    check_len(n, op)?;
    if n == 0 {
        return Err(Error::value(format!(
            "{op}: cannot select from an empty dimension"
        )));
    }
    let rows = src.len() / n;
    let mut idx = try_filled_vec(rows, 0i64)?;
    let run = |(row, o): (&[T], &mut i64)| *o = select_row(row, pick);
    if rows > 1 && rows * n >= PAR_MIN {
        for_each_chunk(&mut idx, 1, &|r, o| {
            run((&src[r * n..(r + 1) * n], &mut o[0]))
        });
    } else {
        src.chunks(n).zip(idx.iter_mut()).for_each(run);
    }
    Ok(idx)
}

/// One row of [`select_rows`].
fn select_row<T: SortKey>(row: &[T], pick: Pick) -> i64 {
    let n = row.len();
    let kth = |k: usize| -> i64 {
        let mut v: Vec<(u64, u32)> = row
            .iter()
            .enumerate()
            .map(|(i, &x)| (x.key(), i as u32))
            .collect();
        v.select_nth_unstable(k);
        v[k].1 as i64
    };
    match pick {
        Pick::Kth(k) => kth(k),
        Pick::Median { high, ignore_nan } => {
            let nans = row.iter().filter(|x| x.is_nan_value()).count();
            let first_nan = || row.iter().position(|x| x.is_nan_value()).unwrap_or(0) as i64;
            if nans > 0 && (!ignore_nan || nans == n) {
                return first_nan();
            }
            let m = n - nans;
            kth(if high { m / 2 } else { (m - 1) / 2 })
        }
        Pick::Mode => {
            let mut v: Vec<(u64, u32)> = row
                .iter()
                .enumerate()
                .map(|(i, &x)| (x.key(), i as u32))
                .collect();
            v.sort_unstable();
            let (mut best_len, mut best_at) = (0usize, 0u32);
            let mut start = 0;
            for i in 1..=n {
                if i == n || v[i].0 != v[start].0 {
                    if i - start > best_len {
                        best_len = i - start;
                        best_at = v[i - 1].1;
                    }
                    start = i;
                }
            }
            best_at as i64
        }
    }
}

/// For every value, its insertion point in the sorted row of `seq` it belongs to: the
/// first position whose element is `>=` the value (`right`: `>`), in the module's order
/// (NaN largest). `seq` holds `rows` rows of length `n`; `values` holds `rows` rows of
/// length `m`, or any number of values for one shared row (`rows == 1`).
pub fn search_sorted<T: SortKey>(
    seq: &[T],
    n: usize,
    values: &[T],
    rows: usize,
    right: bool,
) -> Result<Vec<i64>> {
    let m = values.len().checked_div(rows).unwrap_or(0);
    let mut out = try_filled_vec(values.len(), 0i64)?;
    if m == 0 {
        return Ok(out);
    }
    let run = |(r, (vals, o)): (usize, (&[T], &mut [i64]))| {
        let row = &seq[r * n..(r + 1) * n];
        for (&v, o) in vals.iter().zip(o.iter_mut()) {
            let kv = v.key();
            *o = if right {
                row.partition_point(|s| s.key() <= kv)
            } else {
                row.partition_point(|s| s.key() < kv)
            } as i64;
        }
    };
    if values.len() >= PAR_MIN && rows > 1 {
        for_each_chunk(&mut out, m, &|start, o| {
            run((start / m, (&values[start..start + o.len()], o)))
        });
    } else if values.len() >= PAR_MIN {
        // one shared row: split the values instead
        for_each_chunk(&mut out, 1 << 12, &|start, o| {
            run((0, (&values[start..start + o.len()], o)))
        });
    } else {
        values
            .chunks(m)
            .zip(out.chunks_mut(m))
            .enumerate()
            .for_each(run);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_like_numpy() {
        let xs = [
            f32::NEG_INFINITY,
            -2.5,
            -0.0,
            0.0,
            1e-30,
            3.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for w in xs.windows(2) {
            assert!(w[0].key() <= w[1].key(), "{:?}", w);
        }
        assert_eq!((-0.0f64).key(), 0.0f64.key());
        assert!((-1i64).key() < 0i64.key());
        assert!(i32::MIN.key() < i32::MAX.key());
    }

    #[test]
    fn sort_is_stable_and_puts_nan_last() {
        let x = [2.0f64, f64::NAN, 1.0, 2.0, -1.0];
        let (i, v) = sort_rows(&x, 5, 5, false, true, "sort").unwrap();
        assert_eq!(i, vec![4, 2, 0, 3, 1]);
        assert!(v.unwrap()[4].is_nan());
        let (i, _) = sort_rows(&x, 5, 5, true, false, "sort").unwrap();
        assert_eq!(i, vec![1, 0, 3, 2, 4]);
        let (i, _) = sort_rows(&[3.0f32, 1.0, 2.0, 5.0], 2, 1, true, false, "topk").unwrap();
        assert_eq!(i, vec![0, 1]);
    }

    #[test]
    fn radix_sort_matches_a_comparison_sort() {
        let mut state = 12345u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let x: Vec<f64> = (0..5000).map(|_| (next() % 97) as f64 - 40.0).collect();
        let (i, v) = sort_rows(&x, 5000, 5000, false, true, "sort").unwrap();
        let mut pairs: Vec<(u64, usize)> =
            x.iter().enumerate().map(|(j, v)| (v.key(), j)).collect();
        pairs.sort();
        assert_eq!(i, pairs.iter().map(|p| p.1 as i64).collect::<Vec<_>>());
        assert!(v.unwrap().windows(2).all(|w| w[0] <= w[1]));
        let y: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (j, _) = sort_rows(&y, 5000, 5000, true, false, "sort").unwrap();
        let mut q: Vec<(u64, usize)> = y.iter().enumerate().map(|(j, v)| (!v.key(), j)).collect();
        q.sort();
        assert_eq!(j, q.iter().map(|p| p.1 as i64).collect::<Vec<_>>());
    }

    #[test]
    fn medians_and_mode() {
        let x = [4.0f64, 1.0, 3.0, 2.0];
        let lo = Pick::Median {
            high: false,
            ignore_nan: false,
        };
        assert_eq!(select_rows(&x, 4, lo, "median").unwrap(), vec![3]);
        let y = [1i64, 2, 2, 1, 3];
        assert_eq!(select_rows(&y, 5, Pick::Mode, "mode").unwrap(), vec![3]);
        let z = [1.0f32, f32::NAN, 0.0];
        assert_eq!(select_rows(&z, 3, lo, "median").unwrap(), vec![1]);
    }

    #[test]
    fn search_left_and_right() {
        let s = [1.0f64, 2.0, 2.0, 3.0];
        let v = [2.0f64, 0.0, 9.0];
        assert_eq!(search_sorted(&s, 4, &v, 1, false).unwrap(), vec![1, 0, 4]);
        assert_eq!(search_sorted(&s, 4, &v, 1, true).unwrap(), vec![3, 0, 4]);
    }
}
