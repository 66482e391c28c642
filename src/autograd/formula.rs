//! A node's backward formula, kept in the node itself when it is small.
//!
//! Every built-in op records a closure (`|grad, saved, needs| -> grads`). Boxing it cost
//! one allocation and one free per recorded op, and in backward one more pointer to
//! follow per node, to memory far from the node when the graph is large. Most formulas
//! capture a few small values (an op tag, a scalar, a dtype), so [`Formula`] stores the
//! closure in a fixed slot inside the node and calls it through a function pointer made
//! for its type; a closure that does not fit is boxed as before.
//!
//! (A crate such as `smallbox` does this for a general `dyn Trait`; its stable API needs a
//! macro to coerce each value and carries a fat pointer beside the slot. One signature is
//! all the engine needs, so two monomorphised function pointers do the job in ~60 lines.)

use super::Grads;
use crate::error::Result;
use crate::tensor::Tensor;
use std::mem::{align_of, size_of, MaybeUninit};

/// Room for a formula's captures, in words (64 bytes). The binary, number-binary and unary
/// formulas fit; counted over the math and gradcheck tests, the reductions' (120 bytes),
/// `matmul`'s (112), the shape table's (208) and view steps' (88) are boxed.
const WORDS: usize = 8;

type Slot = MaybeUninit<[usize; WORDS]>;

/// Calls the closure whose storage starts at the pointer.
type CallFn = unsafe fn(*const u8, &Tensor, &[Option<Tensor>], &[bool]) -> Result<Grads>;

/// A backward formula `(grad_output, saved, needs_input_grad) -> input grads`, stored
/// inline when it fits in [`WORDS`] words, boxed otherwise.
pub struct Formula {
    /// The closure itself, or a pointer to its box.
    slot: Slot,
    /// Calls it (the inline or the boxed way, for its concrete type).
    call: CallFn,
    /// Drops it (and frees its box when boxed).
    drop: unsafe fn(*mut u8),
}

// SAFETY: a `Formula` is only made from a closure that is `Send + Sync`
// ([`Formula::new`]'s bound), and it only ever calls it through `&self` or drops it.
unsafe impl Send for Formula {}
unsafe impl Sync for Formula {}

impl Formula {
    /// Stores `f` (inline when it fits).
    #[inline]
    pub fn new<F>(f: F) -> Formula
    where
        F: Fn(&Tensor, &[Option<Tensor>], &[bool]) -> Result<Grads> + Send + Sync + 'static,
    {
        let mut slot = Slot::uninit();
        if fits::<F>() {
            // SAFETY: the slot has room and alignment for an `F` (checked above) and is
            // written once; `call_inline` / `drop_inline` read it as that same `F`.
            unsafe { (slot.as_mut_ptr() as *mut F).write(f) };
            Formula {
                slot,
                call: call_inline::<F>,
                drop: drop_inline::<F>,
            }
        } else {
            let boxed = Box::into_raw(Box::new(f));
            // SAFETY: a pointer fits in the slot; `call_boxed` / `drop_boxed` read it back.
            unsafe { (slot.as_mut_ptr() as *mut *mut F).write(boxed) };
            Formula {
                slot,
                call: call_boxed::<F>,
                drop: drop_boxed::<F>,
            }
        }
    }

    fn slot_ptr(&self) -> *const u8 {
        self.slot.as_ptr() as *const u8
    }

    /// Runs the formula.
    #[inline]
    pub fn call(&self, grad: &Tensor, saved: &[Option<Tensor>], needs: &[bool]) -> Result<Grads> {
        // SAFETY: `call` was made for the type stored in the slot, which is initialised
        // until `drop`.
        unsafe { (self.call)(self.slot_ptr(), grad, saved, needs) }
    }
}

impl Drop for Formula {
    fn drop(&mut self) {
        // SAFETY: `drop` was made for the type in the slot; it runs once, here.
        unsafe { (self.drop)(self.slot.as_mut_ptr() as *mut u8) }
    }
}

/// Whether an `F` is stored in the slot itself.
const fn fits<F>() -> bool {
    size_of::<F>() <= size_of::<Slot>() && align_of::<F>() <= align_of::<Slot>()
}

unsafe fn call_inline<F>(
    p: *const u8,
    g: &Tensor,
    s: &[Option<Tensor>],
    n: &[bool],
) -> Result<Grads>
where
    F: Fn(&Tensor, &[Option<Tensor>], &[bool]) -> Result<Grads>,
{
    // SAFETY (caller): `p` points at an initialised `F`
    unsafe { (*(p as *const F))(g, s, n) }
}

unsafe fn drop_inline<F>(p: *mut u8) {
    // SAFETY (caller): `p` points at an initialised `F`, dropped once
    unsafe { std::ptr::drop_in_place(p as *mut F) }
}

unsafe fn call_boxed<F>(p: *const u8, g: &Tensor, s: &[Option<Tensor>], n: &[bool]) -> Result<Grads>
where
    F: Fn(&Tensor, &[Option<Tensor>], &[bool]) -> Result<Grads>,
{
    // SAFETY (caller): `p` points at the pointer `Box::into_raw` gave for an `F`
    unsafe { (**(p as *const *const F))(g, s, n) }
}

unsafe fn drop_boxed<F>(p: *mut u8) {
    // SAFETY (caller): `p` points at the pointer `Box::into_raw` gave; freed once
    unsafe { drop(Box::from_raw(*(p as *const *mut F))) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn fits_of<F>(_: &F) -> bool {
        fits::<F>()
    }

    fn one() -> Tensor {
        Tensor::from_vec(vec![1.0f64], &[1]).unwrap()
    }

    /// A small closure lives in the slot, a large or over-aligned one in a box; each is
    /// called with what it captured and dropped exactly once.
    #[test]
    fn formulas_inline_and_boxed_run_and_drop_once() {
        #[derive(Clone, Copy)]
        #[repr(align(64))]
        struct Wide(f64);

        let token = Arc::new(());
        let (k, t) = (2.0f64, token.clone());
        let small = move |g: &Tensor, _: &[Option<Tensor>], _: &[bool]| {
            let _ = &t;
            Ok(smallvec::smallvec![Some(g.mul_scalar(k)?)] as Grads)
        };
        assert!(fits_of(&small));
        let (big, t) = ([3.0f64; 16], token.clone());
        let large = move |g: &Tensor, _: &[Option<Tensor>], _: &[bool]| {
            let _ = &t;
            Ok(smallvec::smallvec![Some(g.mul_scalar(big[15])?)] as Grads)
        };
        assert!(!fits_of(&large));
        let (w, t) = (Wide(4.0), token.clone());
        let aligned = move |g: &Tensor, _: &[Option<Tensor>], _: &[bool]| {
            let (_, whole) = (&t, w); // (the whole over-aligned value, not only its field)
            Ok(smallvec::smallvec![Some(g.mul_scalar(whole.0)?)] as Grads)
        };
        assert!(!fits_of(&aligned));

        let formulas = [
            Formula::new(small),
            Formula::new(large),
            Formula::new(aligned),
        ];
        assert_eq!(Arc::strong_count(&token), 4);
        // moving the formulas (as the node's fields are moved) keeps them callable
        let moved: Vec<Formula> = formulas.into_iter().collect();
        for (f, want) in moved.iter().zip([2.0, 3.0, 4.0]) {
            let out = f.call(&one(), &[], &[true]).unwrap();
            let got = out[0].as_ref().unwrap().to_vec::<f64>().unwrap();
            assert_eq!(got, vec![want]);
        }
        drop(moved);
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "a formula leaked or dropped twice"
        );
    }
}
