//! Writes through views of tensors that take part in autograd (PyTorch's `CopySlices`).
//!
//! A view shares its base's memory, so an in-place op on the view changes the base too.
//! The base (the root of the view chain) gets a new history: a `CopySlices` node whose
//! backward passes the gradient through where the view did not write and sends the
//! gradient of the viewed region to the in-place op's result. The view's own history
//! becomes a read of the base's new history (`AsStridedBackward`).
//!
//! Every other view of the same base notices the write by the storage version (shared by
//! all views): its history is regenerated from the base the next time it is used
//! ([`regenerate_view`], called from `Tensor::grad_fn` / `gradient_edge`).
//!
//! Both formulas use the take / put-add pair of `index`, so they are differentiable again.

use super::index::{put_add_linear, Linear};
use crate::autograd::grad_mode::GradModeGuard;
use crate::autograd::node::NodeRef;
use crate::autograd::retain::move_retained;
use crate::autograd::Recorder;
use crate::error::{Error, Result};
use crate::storage::{try_filled_vec, try_vec_with_capacity};
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

/// Set in the id of a tensor hook that PyTorch code registered on a view (see
/// [`drop_view_hooks`]). Hook ids count up from 1 and Paddle's `retain_grads()` ids from
/// `1 << 63` (`autograd::retain`), so neither ever carries this bit on its own.
pub const VIEW_HOOK_BIT: u64 = 1 << 62;

/// Whether `id` names a hook registered with [`VIEW_HOOK_BIT`].
fn is_view_hook(id: u64) -> bool {
    id & VIEW_HOOK_BIT != 0 && id < crate::autograd::retain::RETAIN_ID_BASE
}

/// PyTorch's rule for tensor hooks on a view written in place: they belong to the
/// history the view had when they were registered, which PyTorch's `CopySlices` leaves
/// out of the write's path, so they are not called for the gradient of the write (only
/// hooks registered on the view afterwards are). Here the write's path still runs
/// through that history (`old`, output `nr`), so the hooks PyTorch code registered there
/// (and on the views of views in between, down to the base's history `stop`) are
/// removed from it. Hooks of Paddle code stay: Paddle calls them.
fn drop_view_hooks(old: &NodeRef, nr: usize, stop: Option<&NodeRef>) {
    old.base()
        .pre_hooks()
        .retain(|(slot, id, _)| *slot != nr || !is_view_hook(*id));
    // a view of a view: the chain of one-input view nodes down to the base's history
    // (bounded: a chain is as long as the views were nested)
    let mut at = old.clone();
    for _ in 0..64 {
        let next = match at.base().edges.as_slice() {
            [crate::autograd::Edge::Node { node, input_nr }] => (node.clone(), *input_nr),
            _ => return,
        };
        if stop.is_none_or(|s| s.id() == next.0.id()) {
            return;
        }
        next.0
            .base()
            .pre_hooks()
            .retain(|(slot, id, _)| *slot != next.1 || !is_view_hook(*id));
        at = next.0;
    }
}

/// Row-major indices into `base` of `view`'s elements (both over one storage).
fn positions_in_base(base: &Tensor, view: &Tensor) -> Result<Arc<Linear>> {
    let offsets = view.layout().offsets()?;
    let mut lin = try_vec_with_capacity(offsets.len())?;
    let bl = base.layout();
    if bl.is_contiguous() {
        // the common case: a position is its distance from the base's first element
        for off in offsets {
            let i = off
                .checked_sub(bl.offset)
                .filter(|&i| i < base.numel())
                .ok_or_else(outside_base)?;
            lin.push(i);
        }
    } else {
        let (lo, hi) = bl.storage_span();
        let mut at = try_filled_vec(hi - lo, usize::MAX)?;
        for (i, off) in bl.offsets()?.into_iter().enumerate() {
            let slot = &mut at[off - lo];
            if *slot != usize::MAX {
                return Err(Error::runtime(
                    "in-place write through a view: the view's base has several elements in \
                     one memory location (an expanded tensor), so the write cannot be tracked; \
                     clone() the base before taking the view",
                ));
            }
            *slot = i;
        }
        for off in offsets {
            let i = off
                .checked_sub(lo)
                .and_then(|k| at.get(k).copied())
                .filter(|&i| i != usize::MAX)
                .ok_or_else(outside_base)?;
            lin.push(i);
        }
    }
    Ok(Arc::new(Linear {
        lin,
        in_shape: base.shape_vec(),
        out_shape: view.shape_vec(),
    }))
}

fn outside_base() -> Error {
    Error::runtime(
        "in-place write through a view: the view reaches memory outside its base tensor, so \
         the write cannot be tracked; clone() the view and write into the copy",
    )
}

/// How a view reads its base's memory when their dtypes differ (`z.real`,
/// `view_as_real`, `view_as_complex` and views of them: one memory read as complex
/// numbers and as their real parts).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Same dtype: positions are in the base's elements.
    Same,
    /// A real view of a complex base: positions are in `view_as_real(base)`'s elements.
    RealOfComplex,
    /// A complex view of a real base: `view_as_real(view)`'s positions in the base.
    ComplexOfReal,
}

impl Reading {
    fn of(view: &Tensor, base: &Tensor) -> Reading {
        match (view.dtype().is_complex(), base.dtype().is_complex()) {
            (false, true) => Reading::RealOfComplex,
            (true, false) => Reading::ComplexOfReal,
            _ => Reading::Same,
        }
    }

    /// The map from `view`'s elements (as read here) to `base`'s (as read here).
    fn positions(self, base: &Tensor, view: &Tensor) -> Result<Arc<Linear>> {
        match self {
            Reading::Same => positions_in_base(base, view),
            Reading::RealOfComplex => positions_in_base(&base.view_as_real_raw()?, view),
            Reading::ComplexOfReal => positions_in_base(base, &view.view_as_real_raw()?),
        }
    }

    /// The base's gradient `g` in the units the map counts in (real parts for a complex
    /// base read as real numbers).
    fn in_units(self, g: &Tensor) -> Result<Tensor> {
        match self {
            Reading::RealOfComplex => super::complex::pairs_of_complex(g),
            _ => Ok(g.clone()),
        }
    }

    /// The base's gradient from one in the map's units (see [`Reading::in_units`]).
    fn base_grad(self, g: Tensor) -> Result<Tensor> {
        match self {
            Reading::RealOfComplex => super::complex::complex_of_pairs(&g),
            _ => Ok(g),
        }
    }

    /// The view's gradient from one in the map's units (pairs for a complex view).
    fn view_grad(self, g: Tensor) -> Result<Tensor> {
        match self {
            Reading::ComplexOfReal => super::complex::complex_of_pairs(&g),
            _ => Ok(g),
        }
    }

    /// The base's gradient for the view's gradient `g` read at `map`.
    fn grad(self, g: &Tensor, map: &Arc<Linear>) -> Result<Tensor> {
        match self {
            Reading::Same => put_add_linear(g, map),
            Reading::RealOfComplex => super::complex::complex_of_pairs(&put_add_linear(g, map)?),
            Reading::ComplexOfReal => put_add_linear(&super::complex::pairs_of_complex(g)?, map),
        }
    }
}

/// Gives `view` the history "a read of `base` at `map`" (replacing `old`, its previous
/// history, also for `retain_grad()`). A map that could not be built becomes a node that
/// raises its error in backward: the old history would give a wrong gradient.
fn set_view_history(
    view: &Tensor,
    base: &Tensor,
    map: Result<Arc<Linear>>,
    old: Option<(NodeRef, usize)>,
) -> Result<()> {
    let reading = Reading::of(view, base);
    // a view's history is regenerated whatever the grad mode, as in PyTorch
    let _grad = GradModeGuard::new(true);
    let tmp = view.detach();
    if let Some(rec) = Recorder::begin(&[base]) {
        match map {
            Ok(map) => rec.finish("AsStridedBackward", &tmp, move |g, _, _| {
                Ok(smallvec![Some(reading.grad(g, &map)?)])
            })?,
            Err(e) => {
                let msg = e.to_string();
                rec.finish("AsStridedBackward", &tmp, move |_, _, _| {
                    Err(Error::runtime(msg.clone()))
                })?
            }
        }
        if let Some(node) = tmp.grad_fn() {
            view.set_grad_fn(node, 0);
        }
    }
    if let Some((old, nr)) = old {
        move_retained(view, &old, nr);
    }
    Ok(())
}

/// Brings a view's history in step with its base after the base's memory was written
/// (by an in-place op on the base or on another view of it).
pub(crate) fn regenerate_view(view: &Tensor) {
    let (base, old) = {
        let m = view.meta();
        (
            m.view_base.clone(),
            m.grad_fn.clone().map(|n| (n, m.output_nr)),
        )
    };
    let Some(base) = base else { return };
    // first, so that nothing below sees the view as stale again
    view.meta().view_version = view.version();
    if base.is_inference() || !base.requires_grad() {
        return;
    }
    let map = Reading::of(view, &base).positions(&base, view);
    // Building an identity-like node with a fresh zero-size tensor cannot fail other than
    // by a saved-tensor hook, and this node saves nothing.
    let _ = set_view_history(view, &base, map, old);
}

/// `view = result` in place, where `view` is a view of `base` (the root) and the write
/// is tracked: rebases `base` onto a `CopySlices` node and `view` onto a read of it.
pub(crate) fn write_through_view(view: &Tensor, base: &Tensor, result: &Tensor) -> Result<()> {
    // (for a view reading the base's memory as another dtype, the map and the mask are
    // in real units: over `view_as_real(base)`, or from `view_as_real(view)`)
    let reading = Reading::of(view, base);
    let map = reading.positions(base, view)?;
    let n: usize = map.in_shape.iter().product();
    let winners = crate::kernels::index::last_writers(&map.lin, n)?;
    if winners.iter().any(|w| !w) {
        return Err(Error::runtime(
            "unsupported operation: more than one element of the written-to tensor refers to \
             a single memory location (an expanded view); clone() the tensor before the \
             in-place operation",
        ));
    }
    let mut keep = try_filled_vec(n, true)?;
    for &i in &map.lin {
        keep[i] = false;
    }
    let keep = Tensor::from_vec(keep, &map.in_shape)?;
    let old_base = base.grad_fn().map(|node| (node, base.output_nr()));
    let old_view = {
        let m = view.meta();
        m.grad_fn.clone().map(|node| (node, m.output_nr))
    };
    if let Some(written) = view.meta().view_spill.clone() {
        // the view's `as_strided` nodes now pass the gradient of memory outside their
        // inputs to the root, as PyTorch's CopySlices does (autograd::ops::as_strided)
        written.store(true, std::sync::atomic::Ordering::Release);
    }
    // the edges are taken before the write: the base's history is the one before it
    let rec = Recorder::begin(&[base, result]);
    view.assign_raw(result)?;
    if let Some(rec) = rec {
        let tmp = base.detach();
        let at = map.clone();
        rec.finish("CopySlices", &tmp, move |g, _, needs| {
            let g = &reading.in_units(g)?;
            let rest = match needs[0] {
                true => Some(reading.base_grad(Tensor::where_(&keep, g, &g.zeros_like()?)?)?),
                false => None,
            };
            let written = match needs[1] {
                true => Some(reading.view_grad(g.take_linear(&at, "AsStridedBackward")?)?),
                false => None,
            };
            Ok(smallvec![rest, written])
        })?;
        if let Some(node) = tmp.grad_fn() {
            base.set_grad_fn(node, 0);
        }
        if let Some((old, nr)) = old_base.clone() {
            // retain_grad() follows the base to its new version (PyTorch)
            move_retained(base, &old, nr);
        }
    }
    view.meta().view_version = view.version();
    if let Some((old, nr)) = &old_view {
        drop_view_hooks(old, *nr, old_base.as_ref().map(|(n, _)| n));
    }
    set_view_history(view, base, Ok(map), old_view)
}

#[cfg(test)]
mod tests {
    use crate::autograd::engine::{backward, BackwardOptions};
    use crate::tensor::{BinaryOp, Tensor};

    fn leaf(v: Vec<f64>, shape: &[usize]) -> Tensor {
        let t = Tensor::from_vec(v, shape).unwrap();
        t.set_requires_grad(true).unwrap();
        t
    }

    fn run(out: &Tensor) {
        let seed = out.ones_like().unwrap();
        backward(
            std::slice::from_ref(out),
            vec![seed],
            BackwardOptions::default(),
        )
        .unwrap();
    }

    #[test]
    fn a_write_through_a_view_rebases_the_base() {
        let a = leaf(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]);
        let b = a.clone_tensor().unwrap();
        let row = b.select(0, 0).unwrap();
        let two = Tensor::scalar(2.0f64);
        row.binary_(&two, BinaryOp::Mul, "mul_").unwrap();
        assert_eq!(b.grad_fn().unwrap().name(), "CopySlices");
        run(&b.sum(None, false).unwrap());
        let g = a.grad().unwrap().to_vec::<f64>().unwrap();
        assert_eq!(g, vec![2.0, 2.0, 1.0, 1.0]);
    }

    #[test]
    fn another_view_follows_a_write_into_the_base() {
        let a = leaf(vec![1.0, 2.0, 3.0], &[3]);
        let b = a.clone_tensor().unwrap();
        let v = b.slice(0, Some(0), Some(2), 1).unwrap();
        let three = Tensor::scalar(3.0f64);
        b.binary_(&three, BinaryOp::Mul, "mul_").unwrap();
        // v's history is regenerated from b's new one when it is next used
        run(&v.sum(None, false).unwrap());
        let g = a.grad().unwrap().to_vec::<f64>().unwrap();
        assert_eq!(g, vec![3.0, 3.0, 0.0]);
    }

    #[test]
    fn a_write_drops_only_the_view_hooks_marked_for_it() {
        use super::VIEW_HOOK_BIT;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        let a = leaf(vec![1.0, 2.0], &[2]);
        let b = a.clone_tensor().unwrap();
        let v = b.slice(0, Some(0), Some(1), 1).unwrap();
        let calls = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let node = v.grad_fn().unwrap();
        for (k, id) in [(0, 1 | VIEW_HOOK_BIT), (1, 2)] {
            let c = calls.clone();
            let hook: crate::autograd::GradHook = Arc::new(move |_| {
                c[k].fetch_add(1, Ordering::Relaxed);
                Ok(None)
            });
            node.base().pre_hooks().push((v.output_nr(), id, hook));
        }
        v.binary_(&Tensor::scalar(2.0f64), BinaryOp::Mul, "mul_")
            .unwrap();
        run(&v.sum(None, false).unwrap());
        // the marked hook (PyTorch code's) is gone; the other still sees the old value's
        assert_eq!(calls[0].load(Ordering::Relaxed), 0);
        assert_eq!(calls[1].load(Ordering::Relaxed), 1);
        assert_eq!(a.grad().unwrap().to_vec::<f64>().unwrap(), vec![2.0, 0.0]);
    }

    #[test]
    fn a_view_of_a_leaf_is_refused() {
        let a = leaf(vec![1.0, 2.0], &[2]);
        let v = a.slice(0, Some(1), None, 1).unwrap();
        let err = v
            .binary_(&Tensor::scalar(2.0f64), BinaryOp::Mul, "mul_")
            .unwrap_err();
        assert!(err.to_string().contains("view of a leaf Variable"));
    }
}
