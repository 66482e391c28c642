//! Matrix product with NumPy/PyTorch `matmul` semantics over strided views.
//!
//! Operands are a storage slice plus a [`Layout`] (any strides, offsets and broadcast
//! zero strides). Floating and complex types go through the `gemm` crate, which takes row
//! and column strides directly, so transposed or sliced matrices need no copy as long as
//! one of their two matrix dims has unit stride. Integers and bool use a row-wise
//! i-k-j loop (integers wrap on overflow, bool is or-of-ands), as do tiny float matrices
//! where gemm's dispatch costs more than the arithmetic. Batch dims broadcast; each batch
//! reads its matrices through per-batch offsets, never through a materialised copy.

use super::gemm_split::{gemm_tiled, GemmArgs};
use super::par::for_each_chunk;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::interrupt::{parallel_allowed, Watch};
use crate::layout::{broadcast_shapes, checked_numel, Layout, Shape, Strides};
use crate::storage::{try_filled_vec, try_vec_with_capacity, Storage};
use num_complex::{Complex32, Complex64};
use smallvec::smallvec;
use std::any::TypeId;
use std::borrow::Cow;
use std::mem::MaybeUninit;

/// Per-matrix work (m*n*k) from which gemm may use several threads.
const GEMM_PAR_WORK: usize = 128 * 128 * 128;
/// Total work from which batches (or loop rows) are spread over rayon threads.
const PAR_WORK: usize = 1 << 17;
/// Per-matrix work up to which the plain loop beats gemm for float/complex types.
const TINY_WORK: usize = 7 * 7 * 7;

/// Output shape of matmul for operand shapes `a` and `b` with NumPy/PyTorch semantics:
/// 1-D x 1-D -> [] (dot); 1-D a is promoted to [1,k] and the 1 removed after; 1-D b is
/// [k,1] and the 1 removed; N-D: batch dims broadcast (NumPy rules), last two are
/// [m,k] x [k,n] -> [m,n]. Errors (Error::value) name `matmul`, both shapes, and the
/// mismatching inner sizes; 0-d operands are an error.
pub fn matmul_shape(a: &[usize], b: &[usize]) -> Result<Shape> {
    if a.is_empty() || b.is_empty() {
        return Err(Error::value(format!(
            "matmul: both operands need at least 1 dimension, got shapes {a:?} and {b:?}"
        )));
    }
    let (na, nb) = (a.len(), b.len());
    let ka = a[na - 1];
    let (kb, kb_dim) = if nb == 1 {
        (b[0], "only")
    } else {
        (b[nb - 2], "second-to-last")
    };
    if ka != kb {
        return Err(Error::value(format!(
            "matmul: shapes {a:?} and {b:?} are not aligned: the last dimension of the first \
             operand has size {ka} but the {kb_dim} dimension of the second has size {kb}"
        )));
    }
    let batch_a = &a[..na.saturating_sub(2)];
    let batch_b = &b[..nb.saturating_sub(2)];
    let mut out = broadcast_shapes(batch_a, batch_b, "matmul").map_err(|_| {
        Error::value(format!(
            "matmul: shapes {a:?} and {b:?} have batch dimensions {batch_a:?} and {batch_b:?} \
             that cannot be broadcast together"
        ))
    })?;
    if na >= 2 {
        out.push(a[na - 2]);
    }
    if nb >= 2 {
        out.push(b[nb - 1]);
    }
    checked_numel(&out)?;
    Ok(out)
}

/// Matrix product of two tensors of the same element type T given as storage slice + layout
/// (any strides, offsets, broadcast zero strides), returning a contiguous row-major Vec<T> of
/// shape `matmul_shape(...)`.
///
/// Supports f32, f64, complex64, complex128 (through `gemm`), i32, i64 (wrapping) and bool
/// (or of ands); half types are a `TypeError` (the caller computes them in f32).
pub fn matmul<T: Element>(a: &[T], la: &Layout, b: &[T], lb: &Layout) -> Result<Vec<T>> {
    let out_shape = matmul_shape(&la.shape, &lb.shape)?;
    check_span(a.len(), la, "first")?;
    check_span(b.len(), lb, "second")?;
    let use_gemm = same::<T, f32>() || same::<T, f64>();
    let use_gemm = use_gemm || same::<T, Complex32>() || same::<T, Complex64>();
    if !(use_gemm || same::<T, i32>() || same::<T, i64>() || same::<T, bool>()) {
        return Err(Error::type_err(format!(
            "matmul: dtype {} is not supported here; cast float16/bfloat16 operands to float32",
            T::DTYPE
        )));
    }
    let numel = checked_numel(&out_shape)?;
    // Operands as matrices: a 1-D `a` is a row [1,k], a 1-D `b` a column [k,1].
    let (pa, pb) = (promote(la, true), promote(lb, false));
    let (m, k) = (pa.shape[pa.ndim() - 2], pa.shape[pa.ndim() - 1]);
    let n = pb.shape[pb.ndim() - 1];
    if numel == 0 || k == 0 {
        // nothing to compute: empty, or a sum over nothing (zeros)
        return try_filled_vec(numel, T::zero());
    }
    let tiny = m.saturating_mul(n).saturating_mul(k) <= TINY_WORK;
    let kernel_gemm = use_gemm && !tiny;
    // gemm wants a unit stride in one matrix dim; the loop reads b along rows, which is
    // only worth a copy when b is too big for the strided reads to stay in cache.
    let gemm_copy = |rs: isize, cs: isize| kernel_gemm && rs.abs() != 1 && cs.abs() != 1;
    let (a, pa) = contiguous_if(a, pa, gemm_copy)?;
    let big_b = k.saturating_mul(n) > 4096;
    let (b, pb) = contiguous_if(b, pb, |rs, cs| {
        gemm_copy(rs, cs) || (!kernel_gemm && cs != 1 && big_b)
    })?;
    let plan = Plan::new(&pa, &pb, m, k, n);
    if kernel_gemm {
        // gemm overwrites its output (it is told not to read it): no zero fill needed
        let mut out = try_vec_with_capacity::<T>(numel)?;
        let watch = crate::interrupt::Watch::begin();
        let block = rows_per_call(m, k, n, watch.is_active());
        run_gemm(
            &a,
            &b,
            &mut out.spare_capacity_mut()[..numel],
            &plan,
            watch,
            block,
        );
        // Ctrl-C between batches or row blocks: some outputs are unwritten; `out` still has length 0
        watch.check()?;
        // SAFETY: run_gemm wrote all m*n outputs of every batch, numel in all.
        unsafe { out.set_len(numel) };
        return Ok(out);
    }
    let mut out = try_filled_vec(numel, T::zero())?;
    // exactly one of these matches T (checked above)
    let _ = loop_as::<T, i64>(&a, &b, &mut out, &plan)
        || loop_as::<T, i32>(&a, &b, &mut out, &plan)
        || loop_as::<T, bool>(&a, &b, &mut out, &plan)
        || loop_as::<T, f32>(&a, &b, &mut out, &plan)
        || loop_as::<T, f64>(&a, &b, &mut out, &plan)
        || loop_as::<T, Complex32>(&a, &b, &mut out, &plan)
        || loop_as::<T, Complex64>(&a, &b, &mut out, &plan);
    Ok(out)
}

/// Runs `matmul` for a dtype chosen at run time over untyped storages: `with_dtype!`-style
/// dispatch; returns a new Storage.
///
/// Both storages must share one dtype; half types must be cast to float32 first.
pub fn matmul_storage(
    a: &Storage,
    la: &Layout,
    b: &Storage,
    lb: &Layout,
) -> Result<(Storage, Shape)> {
    let (da, db) = (a.dtype(), b.dtype());
    if da != db {
        return Err(Error::type_err(format!(
            "matmul: both operands must have the same dtype, got {da} and {db}"
        )));
    }
    // half dtypes reach `matmul`, which rejects them with a hint to cast to float32
    let shape = matmul_shape(&la.shape, &lb.shape)?;
    crate::with_dtype!(da, T, {
        let (ra, rb) = (a.read::<T>(), b.read::<T>());
        let v = matmul::<T>(&ra, la, &rb, lb)?;
        Ok((Storage::from_vec(v), shape))
    })
}

/// Errors when `l` reaches outside a storage of `len` elements (would be UB in gemm).
fn check_span(len: usize, l: &Layout, which: &str) -> Result<()> {
    let (lo, hi) = l.storage_span();
    if l.numel() > 0 && (lo > hi || hi > len) {
        return Err(Error::runtime(format!(
            "matmul: the {which} operand's layout {l:?} reaches outside its storage of {len} \
             elements"
        )));
    }
    Ok(())
}

/// Views a 1-D operand as a matrix (`[1,k]` for a, `[k,1]` for b); then gives size-1
/// matrix dims a stride that marks the other dim's layout (row-major when it has unit
/// stride), so gemm takes its fast paths and no copy is made for a merely odd stride.
fn promote(l: &Layout, is_a: bool) -> Layout {
    let mut l = l.clone();
    if l.ndim() == 1 {
        let s = l.strides[0];
        (l.shape, l.strides) = if is_a {
            (smallvec![1, l.shape[0]], smallvec![0, s])
        } else {
            (smallvec![l.shape[0], 1], smallvec![s, 0])
        };
    }
    let nd = l.ndim();
    let (r, c) = (l.shape[nd - 2], l.shape[nd - 1]);
    let fill = |s: isize, len: usize| if s == 1 { len as isize } else { 1 };
    if r == 1 {
        l.strides[nd - 2] = fill(l.strides[nd - 1], c);
    }
    if c == 1 {
        l.strides[nd - 1] = fill(l.strides[nd - 2], r);
    }
    l
}

/// Returns the operand unchanged, or a contiguous copy of it when `need(rs, cs)` says its
/// matrix strides suit the kernel badly.
fn contiguous_if<'a, T: Copy>(
    data: &'a [T],
    l: Layout,
    need: impl Fn(isize, isize) -> bool,
) -> Result<(Cow<'a, [T]>, Layout)> {
    let nd = l.ndim();
    if !need(l.strides[nd - 2], l.strides[nd - 1]) {
        return Ok((Cow::Borrowed(data), l));
    }
    let mut v = try_vec_with_capacity(l.numel())?;
    l.for_each_row(|base, stride, len| {
        v.extend((0..len as isize).map(|i| data[(base + i * stride) as usize]));
    });
    Ok((Cow::Owned(v), promote(&Layout::contiguous(&l.shape), true)))
}

/// True when `T` and `U` are the same type.
fn same<T: 'static, U: 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<U>()
}

/// Runs the loop kernel with `T` viewed as `U`; false (doing nothing) when they differ.
fn loop_as<T: 'static, U: MulAdd + 'static>(a: &[T], b: &[T], out: &mut [T], p: &Plan) -> bool {
    if !same::<T, U>() {
        return false;
    }
    // SAFETY: T and U are the same type.
    let (a, b, out) = unsafe {
        (
            std::slice::from_raw_parts(a.as_ptr().cast::<U>(), a.len()),
            std::slice::from_raw_parts(b.as_ptr().cast::<U>(), b.len()),
            std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<U>(), out.len()),
        )
    };
    run_loop(a, b, out, p);
    true
}

/// Matrix sizes, matrix strides and broadcast batch strides of both operands.
struct Plan {
    m: usize,
    k: usize,
    n: usize,
    /// Row and column strides of a's and b's matrices.
    a_rs: isize,
    a_cs: isize,
    b_rs: isize,
    b_cs: isize,
    /// Broadcast batch shape and each operand's stride per batch dim (0 where broadcast).
    batch: Shape,
    a_bs: Strides,
    b_bs: Strides,
    a_off: isize,
    b_off: isize,
}

impl Plan {
    fn new(pa: &Layout, pb: &Layout, m: usize, k: usize, n: usize) -> Plan {
        let (na, nb) = (pa.ndim() - 2, pb.ndim() - 2);
        let nbatch = na.max(nb);
        let mut batch: Shape = smallvec![1; nbatch];
        let (mut a_bs, mut b_bs): (Strides, Strides) = (smallvec![0; nbatch], smallvec![0; nbatch]);
        for (l, nd, bs) in [(pa, na, &mut a_bs), (pb, nb, &mut b_bs)] {
            for i in 0..nd {
                let j = nbatch - nd + i;
                if l.shape[i] != 1 {
                    batch[j] = l.shape[i]; // shapes were validated by matmul_shape
                    bs[j] = l.strides[i];
                }
            }
        }
        Plan {
            m,
            k,
            n,
            a_rs: pa.strides[na],
            a_cs: pa.strides[na + 1],
            b_rs: pb.strides[nb],
            b_cs: pb.strides[nb + 1],
            batch,
            a_bs,
            b_bs,
            a_off: pa.offset as isize,
            b_off: pb.offset as isize,
        }
    }

    /// Storage offsets of a's and b's matrices for flat batch index `idx`.
    #[inline]
    fn offsets(&self, mut idx: usize) -> (isize, isize) {
        let (mut oa, mut ob) = (self.a_off, self.b_off);
        for d in (0..self.batch.len()).rev() {
            let i = (idx % self.batch[d]) as isize;
            idx /= self.batch[d];
            oa += i * self.a_bs[d];
            ob += i * self.b_bs[d];
        }
        (oa, ob)
    }
}

/// Work (m*n*k) per gemm call above which one matrix product is cut into row blocks, so
/// that Ctrl-C is noticed between blocks (~10-40 ms of work each at full speed).
const BLOCK_WORK: usize = 1 << 31;
/// Fewest output rows in a block: below this gemm's re-packing of `b` per call would show.
const MIN_BLOCK_ROWS: usize = 512;

/// Output rows per gemm call for an `m x k` by `k x n` product: all of them unless the
/// product is big enough to be worth interrupting part-way.
fn rows_per_call(m: usize, k: usize, n: usize, interruptible: bool) -> usize {
    let per_row = n.saturating_mul(k).max(1);
    if !interruptible || m.saturating_mul(per_row) <= BLOCK_WORK {
        return m.max(1);
    }
    let rows = BLOCK_WORK.div_ceil(per_row).max(MIN_BLOCK_ROWS);
    // equal blocks: no small tail block at the end
    let blocks = m.div_ceil(rows);
    m.div_ceil(blocks)
}

/// Computes every batch through `gemm` (T is f32, f64, Complex32 or Complex64), `block`
/// output rows per gemm call (see [`rows_per_call`]); stops between calls once `watch`
/// trips (the caller then drops the partly written output). `out` may be uninitialised:
/// gemm only writes it.
fn run_gemm<T: Element>(
    a: &[T],
    b: &[T],
    out: &mut [MaybeUninit<T>],
    p: &Plan,
    watch: Watch,
    block: usize,
) {
    let (m, k, n) = (p.m, p.k, p.n);
    let work = m.saturating_mul(n).saturating_mul(k);
    // rows `r0..r0 + o.len() / n` of batch `bi`
    let rows = |o: &mut [MaybeUninit<T>], bi: usize, r0: usize, parallel: bool| {
        if watch.tripped() {
            return;
        }
        let (oa, ob) = p.offsets(bi);
        let oa = oa + r0 as isize * p.a_rs;
        let args = GemmArgs {
            m: o.len() / n,
            n,
            k,
            dst: o.as_mut_ptr().cast::<T>(),
            dst_cs: 1,
            dst_rs: n as isize,
            read_dst: false, // overwrite `o` without reading it (it may be uninitialised)
            lhs: a.as_ptr().wrapping_offset(oa),
            lhs_cs: p.a_cs,
            lhs_rs: p.a_rs,
            rhs: b.as_ptr().wrapping_offset(ob),
            rhs_cs: p.b_cs,
            rhs_rs: p.b_rs,
            alpha: T::zero(),
            beta: T::one(),
        };
        // SAFETY: check_span proved every element of both views lies inside `a` and `b`;
        // rows r0.. of a's matrix are inside it, and `o` holds exactly those rows of this
        // batch's m*n row-major outputs.
        unsafe { gemm_tiled(args, parallel) }
    };
    let nbatch = out.len() / (m * n);
    let parallel = parallel_allowed();
    if parallel && nbatch > 1 && work < GEMM_PAR_WORK && work.saturating_mul(nbatch) >= PAR_WORK {
        // many small matrices: one batch per rayon task, gemm itself single-threaded
        for_each_chunk(out, m * n, &|start, o| rows(o, start / (m * n), 0, false));
    } else {
        let par = parallel && work >= GEMM_PAR_WORK;
        for (bi, o) in out.chunks_mut(m * n).enumerate() {
            for (i, ob) in o.chunks_mut(block * n).enumerate() {
                rows(ob, bi, i * block, par);
            }
        }
    }
}

/// Scalar multiply-accumulate for the loop kernel.
trait MulAdd: Copy + Send + Sync {
    /// `acc + a * b` (wrapping for integers, `acc | (a & b)` for bool).
    fn mul_add(acc: Self, a: Self, b: Self) -> Self;
}

macro_rules! impl_mul_add {
    ($($t:ty => |$acc:ident, $a:ident, $b:ident| $e:expr;)*) => {$(
        impl MulAdd for $t {
            #[inline(always)]
            fn mul_add($acc: Self, $a: Self, $b: Self) -> Self {
                $e
            }
        }
    )*};
}

impl_mul_add! {
    i32 => |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    i64 => |acc, a, b| acc.wrapping_add(a.wrapping_mul(b));
    bool => |acc, a, b| acc | (a & b);
    f32 => |acc, a, b| acc + a * b;
    f64 => |acc, a, b| acc + a * b;
    Complex32 => |acc, a, b| acc + a * b;
    Complex64 => |acc, a, b| acc + a * b;
}

/// Computes all output rows with an i-k-j loop, blocked over k so that the block of b
/// rows in use stays in cache across a group of output rows; groups go to rayon when the
/// work is large.
fn run_loop<U: MulAdd>(a: &[U], b: &[U], out: &mut [U], p: &Plan) {
    let (m, k, n) = (p.m, p.k, p.n);
    let kb = ((64 << 10) / (n * std::mem::size_of::<U>()).max(1)).clamp(1, k);
    let rows = |r0: usize, chunk: &mut [U]| {
        for k0 in (0..k).step_by(kb) {
            for (r, o) in (r0..).zip(chunk.chunks_mut(n)) {
                let (oa, ob) = p.offsets(r / m);
                let a_row = oa + (r % m) as isize * p.a_rs;
                for kk in k0 as isize..(k0 + kb).min(k) as isize {
                    let av = a[(a_row + kk * p.a_cs) as usize];
                    let b_row = ob + kk * p.b_rs;
                    if p.b_cs == 1 {
                        // contiguous b row: a zip the compiler vectorises
                        let br = &b[b_row as usize..b_row as usize + n];
                        for (o, &bv) in o.iter_mut().zip(br) {
                            *o = U::mul_add(*o, av, bv);
                        }
                    } else {
                        for (j, o) in o.iter_mut().enumerate() {
                            *o = U::mul_add(*o, av, b[(b_row + j as isize * p.b_cs) as usize]);
                        }
                    }
                }
            }
        }
    };
    let total_rows = out.len() / n;
    if out.len().saturating_mul(k) >= PAR_WORK && total_rows > 1 && parallel_allowed() {
        let group = (total_rows / (4 * rayon::current_num_threads())).clamp(1, 64);
        for_each_chunk(out, group * n, &|start, chunk| rows(start / n, chunk));
    } else {
        rows(0, out);
    }
}

#[cfg(test)]
#[path = "matmul_tests.rs"]
mod tests;
