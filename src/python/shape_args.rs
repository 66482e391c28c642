//! Generic argument parsing of the shape ops (`src/op_defs/shape.rs`): one parser for
//! every shape op's `Tensor` method and for the attributes its static recording passes,
//! driven by each op's declared signature.

use crate::op_defs::{ShapeArgs, ShapeOp, ShapeParam};
use crate::python::args::parse_axes;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The values of one shape-op call, indexed by [`ShapeParam`] (None: not given or None).
#[derive(Clone, Copy, Default)]
pub struct ShapeSlots<'a, 'py>(pub [Option<&'a Bound<'py, PyAny>>; 7]);

impl<'a, 'py> ShapeSlots<'a, 'py> {
    /// The value of the first parameter of `op`'s signature (positional, then
    /// keyword-only) that plays one of `role`'s spellings and was given.
    fn role(
        &self,
        op: ShapeOp,
        role: &[ShapeParam],
    ) -> Option<(ShapeParam, &'a Bound<'py, PyAny>)> {
        op.params()
            .iter()
            .chain(op.keywords())
            .filter(|p| role.contains(p))
            .find_map(|&p| self.0[p as usize].map(|v| (p, v)))
    }

    /// An integer role (`start_axis`/`start_dim`, ...), or `default`.
    fn int(&self, op: ShapeOp, role: &[ShapeParam], default: isize) -> PyResult<isize> {
        match self.role(op, role) {
            None => Ok(default),
            Some((p, v)) => v.extract::<isize>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{}(): {} must be an int, got {}",
                    op.name(),
                    p.name(),
                    v.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            }),
        }
    }

    /// The op's arguments.
    pub fn parse(self, op: ShapeOp) -> PyResult<ShapeArgs> {
        let axes = match self.role(op, &[ShapeParam::Axis, ShapeParam::Dim]) {
            None => None,
            Some((p, v)) => parse_axes(Some(v)).map_err(|_| {
                PyTypeError::new_err(format!(
                    "{}(): {} must be an int, a list of ints or None, got {}",
                    op.name(),
                    p.name(),
                    v.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?,
        };
        Ok(ShapeArgs {
            axes,
            start: self.int(op, &[ShapeParam::StartAxis, ShapeParam::StartDim], 0)?,
            stop: self.int(op, &[ShapeParam::StopAxis, ShapeParam::EndDim], -1)?,
            pinned: false,
        })
    }
}

/// The arguments of shape op `op` from a static op's attribute dict (the same names as
/// the method's parameters).
pub fn from_attrs(op: ShapeOp, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<ShapeArgs> {
    let mut values: [Option<Bound<'_, PyAny>>; 7] = Default::default();
    if let Some(d) = attrs {
        for (v, p) in values.iter_mut().zip(ShapeParam::ALL) {
            *v = d.get_item(p.name())?.filter(|v| !v.is_none());
        }
    }
    let mut slots = ShapeSlots::default();
    for (s, v) in slots.0.iter_mut().zip(&values) {
        *s = v.as_ref();
    }
    slots.parse(op)
}
