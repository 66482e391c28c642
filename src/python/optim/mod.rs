//! Optimizer steps in Rust for the Python optimizers: `ParamGroupState` with the SGD and
//! Adam steps (`param_group.rs`) and the RMSprop, Adagrad, Adadelta and Adamax steps
//! (`adaptive_steps.rs`).

pub(crate) mod adaptive_steps;
pub(crate) mod param_group;
