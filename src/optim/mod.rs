//! Optimizer update kernels: one call updates every parameter (and its state buffers) in
//! place, with no graph recorded, bumping each written tensor's version counter like any
//! in-place op.
//!
//! Layers: [`lanes`] (element types seen as real lanes, and the chunked rayon driver),
//! [`sgd`], [`adam`], [`rmsprop`], [`adagrad`], [`adadelta`] and [`adamax`] (the
//! per-element update rules over slices), [`step`] and [`more_steps`] (the
//! tensor-level entry points that validate, lock, dispatch on dtype and bump versions).
//! Complex parameters are updated as pairs of real lanes, which is what PyTorch does
//! (`view_as_real`): SGD is the same either way, and Adam's moments are per component.

pub mod adadelta;
pub mod adagrad;
pub mod adam;
pub mod adamax;
pub mod lanes;
pub mod more_steps;
pub mod rmsprop;
pub mod sgd;
pub mod step;

pub use adadelta::AdadeltaConfig;
pub use adagrad::AdagradConfig;
pub use adam::{AdamConfig, AdamUpdate};
pub use adamax::AdamaxConfig;
pub use more_steps::{adadelta_step, adagrad_step, adamax_step, rmsprop_step};
pub use rmsprop::RmspropConfig;
pub use sgd::{SgdConfig, SgdUpdate};
pub use step::{adam_step, sgd_step, step_with, ParamState};
