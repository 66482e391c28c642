//! Reverse-mode autograd: grad mode, nodes, saved tensors, the engine, and the recorder
//! that ops use to attach a backward formula to their output.

pub mod alias;
pub mod anomaly;
pub mod autocast;
pub mod callbacks;
pub mod engine;
mod evaluate;
mod formula;
pub mod grad_mode;
mod grad_sum;
mod leaf_grad;
pub mod node;
pub mod ops;
mod pass_targets;
mod reentry;
pub mod retain;
pub mod saved;
mod saved_hook_stack;
mod validate;

pub use callbacks::{queue_callback, FinalCallback, PostAccumulateHook};
pub use grad_mode::{is_grad_enabled, no_grad, set_grad_enabled, GradModeGuard};
pub use leaf_grad::{set_ext_accumulator, ExtAccumulate};
pub use node::{Edge, GradHook, InputMeta, Node, NodeBase, NodeRef};
pub use saved::SavedTensor;

use crate::error::Result;
use crate::tensor::Tensor;
use formula::Formula;
use smallvec::SmallVec;
use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::sync::{Arc, Weak};

/// Gradients returned by a backward formula, one per forward input.
pub type Grads = SmallVec<[Option<Tensor>; 2]>;

enum SaveSpec {
    Input(Tensor),
    Output,
    Nothing,
}

/// Which tensor a saved slot holds, so that it can be read by name
/// (`grad_fn._saved_self`, PyTorch's spelling): derived when the op saves it, by
/// comparing it with the op's inputs, never listed per node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedRole {
    /// Forward input `k` itself.
    Input(u8),
    /// The op's output.
    Output,
    /// Something else (an intermediate, a converted input): no name.
    Other,
}

impl SavedRole {
    /// PyTorch's attribute suffix: input 0 is `self`, input 1 `other`, input `k > 1`
    /// `input<k>`, the output `result`; `None` for an unnamed slot.
    pub fn name(self) -> Option<Cow<'static, str>> {
        match self {
            SavedRole::Input(0) => Some(Cow::Borrowed("self")),
            SavedRole::Input(1) => Some(Cow::Borrowed("other")),
            SavedRole::Input(k) => Some(Cow::Owned(format!("input{k}"))),
            SavedRole::Output => Some(Cow::Borrowed("result")),
            SavedRole::Other => None,
        }
    }
}

/// Collects what one op records: edges to its inputs and the tensors it saves.
/// Exists only when grad mode is on and some input requires grad.
pub struct Recorder {
    /// The node, built in its own heap block from the start: `begin` writes its `base`,
    /// `finish` the other fields. (Holding a `NodeBase` by value moved its ~320 bytes, and
    /// the whole recorder's ~420, through several `memcpy` calls per recorded op.)
    /// `None` once `finish` or `into_base` took it.
    node: Option<Arc<MaybeUninit<FnNode>>>,
    saves: SmallVec<[SaveSpec; 2]>,
    /// The inputs' identities (to name saved tensors) and which were saved already.
    input_ids: SmallVec<[usize; 3]>,
    claimed: u64,
    roles: SmallVec<[SavedRole; 2]>,
}

impl Recorder {
    /// Starts recording for an op over `inputs`; `None` when nothing needs a graph.
    #[inline]
    pub fn begin(inputs: &[&Tensor]) -> Option<Recorder> {
        // as in PyTorch, an op whose inputs are all inference tensors records nothing; with
        // a normal tensor among them, an inference leaf that requires grad is a leaf
        if !is_grad_enabled()
            || !inputs.iter().any(|t| t.requires_grad())
            || inputs.iter().all(|t| t.is_inference())
        {
            return None;
        }
        // one pass of pushes (three `collect`s into inline vectors cost ~100 instructions
        // each, most of it smallvec's generic `extend`)
        let mut edges = SmallVec::new();
        let mut metas = SmallVec::new();
        let mut input_ids = SmallVec::new();
        for t in inputs {
            edges.push(t.gradient_edge());
            metas.push(InputMeta {
                shape: t.shape_vec(),
                dtype: t.dtype(),
            });
            input_ids.push(t.id());
        }
        Some(Recorder::with_base(edges, metas, input_ids))
    }

    /// Starts recording for a binary op of `t` and a Python number in input slot `pos`
    /// (0: left, 1: right), as [`Recorder::begin`] with the number a 0-d `dtype` constant,
    /// without making it a tensor: its slot holds an edge to nothing and the metadata of
    /// a 0-d `dtype` input. `None` when nothing needs a graph.
    #[inline]
    pub fn begin_number(t: &Tensor, pos: usize, dtype: crate::dtype::DType) -> Option<Recorder> {
        // (a number counts as a normal tensor, as PyTorch's wrapped numbers do)
        if !is_grad_enabled() || !t.requires_grad() {
            return None;
        }
        let meta = InputMeta {
            shape: t.shape_vec(),
            dtype: t.dtype(),
        };
        let number = InputMeta {
            shape: Default::default(),
            dtype,
        };
        // no tensor has this id: the number is never claimed by a save
        let (edges, metas, input_ids) = if pos == 0 {
            (
                smallvec::smallvec![Edge::None, t.gradient_edge()],
                smallvec::smallvec![number, meta],
                smallvec::smallvec![usize::MAX, t.id()],
            )
        } else {
            (
                smallvec::smallvec![t.gradient_edge(), Edge::None],
                smallvec::smallvec![meta, number],
                smallvec::smallvec![t.id(), usize::MAX],
            )
        };
        Some(Recorder::with_base(edges, metas, input_ids))
    }

    /// A recorder whose node has `edges` and `metas` written in its heap block.
    #[inline]
    fn with_base(
        edges: SmallVec<[Edge; 2]>,
        metas: SmallVec<[InputMeta; 2]>,
        input_ids: SmallVec<[usize; 3]>,
    ) -> Recorder {
        let node = Arc::<FnNode>::new_uninit();
        // SAFETY: `node` was just made: nothing else refers to it
        let p = unsafe { crate::tensor::fresh_arc_ptr(&node) };
        // SAFETY: `p` points at the new Arc's uninitialised, unaliased FnNode; only its
        // `base` field is written here (the recorder's drop or `finish` completes it).
        unsafe { NodeBase::write_new(std::ptr::addr_of_mut!((*p).base), edges, metas) };
        Recorder {
            node: Some(node),
            saves: SmallVec::new(),
            input_ids,
            claimed: 0,
            roles: SmallVec::new(),
        }
    }

    /// The node's base (written by `begin`).
    #[inline]
    fn base(&self) -> &NodeBase {
        let node = self
            .node
            .as_ref()
            .expect("a recorder holds its node until finished");
        // SAFETY: while the recorder holds the node, its `base` field is initialised
        unsafe { &*std::ptr::addr_of!((*node.as_ptr()).base) }
    }

    /// The node base built so far, for an op that makes its own node type (edges and
    /// input metadata; what was saved is dropped).
    pub fn into_base(mut self) -> NodeBase {
        let node = self
            .node
            .take()
            .expect("a recorder holds its node until finished");
        // SAFETY: `base` is initialised; it is moved out exactly once, and the block is
        // then freed as `MaybeUninit` (nothing in it is dropped again)
        unsafe { std::ptr::read(std::ptr::addr_of!((*node.as_ptr()).base)) }
    }

    /// Whether input `i` needs a gradient.
    #[inline]
    pub fn needs(&self, i: usize) -> bool {
        self.base().edges[i].is_some()
    }

    /// Saves input tensor `t` (becomes the next entry of `saved` in backward).
    pub fn save(&mut self, t: &Tensor) {
        // the first input not yet named that is this very tensor (`a * a` saves input 0
        // and input 1, both `a`)
        let id = t.id();
        let role = (0..self.input_ids.len().min(64))
            .find(|&k| self.input_ids[k] == id && self.claimed & (1 << k) == 0)
            .map_or(SavedRole::Other, |k| {
                self.claimed |= 1 << k;
                SavedRole::Input(k as u8)
            });
        self.roles.push(role);
        self.saves.push(SaveSpec::Input(t.clone()));
    }

    /// Saves the op's output (rebuilt on unpack without a reference cycle).
    pub fn save_output(&mut self) {
        self.roles.push(SavedRole::Output);
        self.saves.push(SaveSpec::Output);
    }

    /// Saves nothing in this slot (backward sees `None`), keeping indices stable.
    pub fn save_nothing(&mut self) {
        self.roles.push(SavedRole::Other);
        self.saves.push(SaveSpec::Nothing);
    }

    /// Creates the node named `name` with formula `backward` and makes it `out`'s grad_fn.
    #[inline]
    pub fn finish<F>(self, name: &'static str, out: &Tensor, backward: F) -> Result<()>
    where
        F: Fn(&Tensor, &[Option<Tensor>], &[bool]) -> Result<Grads> + Send + Sync + 'static,
    {
        // (one copy of the node-building code for every formula, not one per closure type)
        self.finish_with(name, out, Formula::new(backward))
    }

    /// [`Recorder::finish`] with the formula stored.
    fn finish_with(mut self, name: &'static str, out: &Tensor, backward: Formula) -> Result<()> {
        let saves = std::mem::take(&mut self.saves);
        // Inputs are packed first, then outputs (hooks may raise; pack hooks see this
        // order). An output's save needs a weak link to the node that does not exist yet:
        // it gets an empty one, bound below once the node is built. (Building the node
        // inside `Arc::new_cyclic` instead moved the whole ~650-byte node through the
        // closure's return value: several `memcpy` calls per recorded op.)
        let mut slots: SmallVec<[Option<SavedTensor>; 2]> = SmallVec::new();
        let mut has_output = false;
        for (s, role) in saves.into_iter().zip(&self.roles) {
            slots.push(match (s, role) {
                // forward input `k` itself: its edge is the node's edge `k` (taken once
                // by `begin`; reading it again would lock the input's metadata)
                (SaveSpec::Input(t), SavedRole::Input(k)) => {
                    let edge = self.base().edges[*k as usize].clone();
                    Some(SavedTensor::input_with_edge(t, edge)?)
                }
                (SaveSpec::Input(t), _) => Some(SavedTensor::input(&t)?),
                (SaveSpec::Output, _) => {
                    has_output = true;
                    None
                }
                (SaveSpec::Nothing, _) => None,
            });
        }
        if has_output {
            for (slot, role) in slots.iter_mut().zip(&self.roles) {
                if *role == SavedRole::Output {
                    let unbound: Weak<dyn Node> = Weak::<FnNode>::new();
                    *slot = Some(SavedTensor::output(out, &unbound, 0)?);
                }
            }
        }
        let out_meta = InputMeta {
            shape: out.shape_vec(),
            dtype: out.dtype(),
        };
        // the rest of the node, field by field in its heap block (`Arc::new(FnNode { .. })`
        // assembles it on the stack first and copies it there)
        let roles = std::mem::take(&mut self.roles);
        let node = self
            .node
            .take()
            .expect("a recorder holds its node until finished");
        // SAFETY: the recorder held the only reference to its node since `begin`, and no
        // reference into it (`Recorder::base`'s) outlives the call that made it
        let p = unsafe { crate::tensor::fresh_arc_ptr(&node) };
        // SAFETY: `p` points at the recorder's unaliased FnNode whose `base` was written by
        // `begin`; each other field is written exactly once, nothing reads them before,
        // and `assume_init` comes after the last write.
        let node = unsafe {
            std::ptr::addr_of_mut!((*p).name).write(name);
            std::ptr::addr_of_mut!((*p).saved).write(slots);
            std::ptr::addr_of_mut!((*p).roles).write(roles);
            std::ptr::addr_of_mut!((*p).out_meta).write(out_meta);
            std::ptr::addr_of_mut!((*p).backward).write(backward);
            node.assume_init()
        };
        if has_output {
            let weak: Weak<dyn Node> = Arc::downgrade(&node) as Weak<FnNode>;
            for s in node.saved.iter().flatten() {
                s.bind_output_node(&weak);
            }
        }
        out.set_grad_fn(NodeRef::new(node), 0);
        Ok(())
    }
}

impl Drop for Recorder {
    /// A recorder dropped before `finish` (an op that failed after `begin`) drops the
    /// node's `base`, the one field written; the block is freed as `MaybeUninit`.
    fn drop(&mut self) {
        if let Some(mut node) = self.node.take() {
            if let Some(n) = Arc::get_mut(&mut node) {
                // SAFETY: `base` is initialised and dropped once; nothing else was written
                unsafe { std::ptr::drop_in_place(std::ptr::addr_of_mut!((*n.as_mut_ptr()).base)) };
            }
        }
    }
}

/// The node type of every built-in single-output op: a name, saved tensors and a formula.
pub struct FnNode {
    base: NodeBase,
    name: &'static str,
    saved: SmallVec<[Option<SavedTensor>; 2]>,
    /// One per `saved` slot: what it holds (for reading saved tensors by name).
    roles: SmallVec<[SavedRole; 2]>,
    out_meta: InputMeta,
    /// The formula, in the node itself when small (no allocation, no pointer to follow).
    backward: Formula,
}

impl Node for FnNode {
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.name)
    }
    fn base(&self) -> &NodeBase {
        &self.base
    }
    fn apply(&self, grads: Vec<Option<Tensor>>) -> Result<Vec<Option<Tensor>>> {
        self.apply_skipping(grads, 0)
    }
    fn apply_needed(
        &self,
        grads: Vec<Option<Tensor>>,
        release: bool,
        skips: u64,
    ) -> Result<Vec<Option<Tensor>>> {
        let out = self.apply_skipping(grads, skips)?;
        if release {
            self.release_saved();
        }
        Ok(out)
    }
    fn release_saved(&self) {
        for s in self.saved.iter().flatten() {
            s.release();
        }
    }
    fn output_meta(&self, i: usize) -> Option<InputMeta> {
        (i == 0).then(|| self.out_meta.clone())
    }
    fn saved_named(&self) -> Vec<(Cow<'static, str>, &SavedTensor)> {
        self.roles
            .iter()
            .zip(&self.saved)
            .filter_map(|(role, slot)| Some((role.name()?, slot.as_ref()?)))
            .collect()
    }
}

impl FnNode {
    /// `apply`, leaving out the input gradients marked in `skips` (see
    /// [`Node::apply_needed`]): the formula sees them as not needed.
    fn apply_skipping(
        &self,
        mut grads: Vec<Option<Tensor>>,
        skips: u64,
    ) -> Result<Vec<Option<Tensor>>> {
        let grad = match grads.first_mut().and_then(Option::take) {
            Some(g) => g,
            None => crate::tensor::zeros(&self.out_meta.shape, self.out_meta.dtype)?,
        };
        let mut saved: SmallVec<[Option<Tensor>; 2]> = SmallVec::new();
        // all slots in one unpack scope: Python hooks attach to the interpreter once per
        // node, not once per saved tensor
        SavedTensor::with_unpack_scope(self.saved.iter().flatten(), &mut || {
            for s in &self.saved {
                saved.push(match s {
                    Some(s) => Some(s.unpack_for_backward(self.name)?),
                    None => None,
                });
            }
            Ok(())
        })?;
        // (an input's gradient is needed if it requires grad and the pass wants it)
        // (pushed one by one: `collect` into an inline vector goes through smallvec's
        // generic `extend`, ~100 instructions per node)
        let mut needs: SmallVec<[bool; 2]> = SmallVec::new();
        for (k, e) in self.base.edges.iter().enumerate() {
            needs.push(e.is_some() && (k >= 64 || skips & (1 << k) == 0));
        }
        let out = self.backward.call(&grad, &saved, &needs)?;
        // reuse the incoming buffer's allocation for the result (one output gradient in,
        // usually one or two input gradients out)
        grads.clear();
        for g in out {
            grads.push(g);
        }
        Ok(grads)
    }
}

#[cfg(test)]
mod recorder_tests {
    use super::*;

    fn leaf() -> Tensor {
        let x = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        x.set_requires_grad(true).unwrap();
        x
    }

    /// The node a recorder builds in place holds its inputs' edges from `begin` on: a
    /// recorder dropped before `finish` (an op that failed) or turned into a base must
    /// release them, exactly once.
    #[test]
    fn an_unfinished_recorder_releases_what_its_node_held() {
        let x = leaf();
        let weak = x.downgrade();
        let rec = Recorder::begin(&[&x]).expect("x requires grad");
        assert!(rec.needs(0));
        drop(rec);
        drop(x);
        assert!(
            weak.upgrade().is_none(),
            "the dropped recorder kept its edge"
        );

        let x = leaf();
        let weak = x.downgrade();
        let base = Recorder::begin_number(&x, 1, crate::dtype::DType::F64)
            .expect("x requires grad")
            .into_base();
        assert_eq!(base.edges.len(), 2);
        assert!(base.edges[0].is_some() && !base.edges[1].is_some());
        drop(x);
        assert!(weak.upgrade().is_some(), "the base holds the edge");
        drop(base);
        assert!(weak.upgrade().is_none(), "the base's edge was kept twice");
    }

    /// A finished recorder's node is the output's `grad_fn`, with the edges from `begin`.
    #[test]
    fn a_finished_recorder_makes_the_grad_fn() {
        let x = leaf();
        let out = Tensor::from_vec(vec![3.0f64, 4.0], &[2]).unwrap();
        let mut rec = Recorder::begin(&[&x]).expect("x requires grad");
        rec.save(&x);
        rec.finish("TestBackward", &out, |g, _, _| {
            Ok(smallvec::smallvec![Some(g.clone())])
        })
        .unwrap();
        let Edge::Node { node, .. } = out.gradient_edge() else {
            panic!("the output has no grad_fn");
        };
        assert_eq!(node.name(), "TestBackward");
        assert_eq!(node.base().edges.len(), 1);
        assert_eq!(node.saved_named().len(), 1);
    }
}
