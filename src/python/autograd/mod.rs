//! The Python side of the autograd engine (anomaly mode in `anomaly.rs`): `backward` / `grad` and grad mode as module
//! functions (`backward.rs`; `GradientEdge` arguments in `grad_edges.rs`, batched
//! gradients in `grad_batched.rs`), graph nodes and gradient hooks (`node.rs`), saved-tensor
//! pack/unpack hooks (`saved_hooks.rs`) and their context manager (`hooks_context.rs`), a node's saved tensors by name
//! (`saved_by_name.rs`), post-accumulate hooks (`post_accumulate.rs`), and the details where the peers
//! define alike-spelled things differently (`dropin.rs`).

pub(crate) mod anomaly;
pub(crate) mod autocast;
pub(crate) mod backward;
pub(crate) mod dropin;
pub(crate) mod grad_batched;
pub(crate) mod grad_edges;
pub(crate) mod hooks_context;
pub(crate) mod node;
pub(crate) mod node_hooks;
pub(crate) mod post_accumulate;
pub(crate) mod saved_by_name;
pub(crate) mod saved_hooks;
