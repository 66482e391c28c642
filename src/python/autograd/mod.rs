//! The Python side of the autograd engine: `backward` / `grad` and grad mode as module
//! functions (`backward.rs`), graph nodes and gradient hooks (`node.rs`), saved-tensor
//! pack/unpack hooks (`saved_hooks.rs`) post-accumulate hooks (`post_accumulate.rs`), and the details where the peers
//! define alike-spelled things differently (`dropin.rs`).

pub(crate) mod backward;
pub(crate) mod dropin;
pub(crate) mod node;
pub(crate) mod post_accumulate;
pub(crate) mod saved_hooks;
