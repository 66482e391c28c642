//! Optimizer update kernels: one call updates every parameter (and its state buffers) in
//! place, with no graph recorded, bumping each written tensor's version counter like any
//! in-place op.
//!
//! Layers: [`lanes`] (element types seen as real lanes, and the chunked rayon driver),
//! [`sgd`] and [`adam`] (the per-element update rules over slices), and [`step`] (the
//! tensor-level entry points that validate, lock, dispatch on dtype and bump versions).
//! Complex parameters are updated as pairs of real lanes, which is what PyTorch does
//! (`view_as_real`): SGD is the same either way, and Adam's moments are per component.

pub mod adam;
pub mod lanes;
pub mod sgd;
pub mod step;

pub use adam::{AdamConfig, AdamUpdate};
pub use sgd::{SgdConfig, SgdUpdate};
pub use step::{adam_step, sgd_step, ParamState};
