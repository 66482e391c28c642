//! Generic argument parsing of the reductions (`src/op_defs/reduce.rs`): one parser for
//! every reduction's `Tensor` method and for the attributes its static recording passes,
//! driven by each op's declared signature.

use crate::op_defs::{AxesKind, Param, ReduceArgs, Reduction};
use crate::python::args::{dtype_arg, is_dtype_like, keepdim_arg, parse_axes};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The values of one reduction call, indexed by [`Param`] (None: not given or None).
#[derive(Clone, Copy, Default)]
pub struct Slots<'a, 'py>(pub [Option<&'a Bound<'py, PyAny>>; 8]);

impl<'a, 'py> Slots<'a, 'py> {
    fn get(&self, p: Param) -> Option<&'a Bound<'py, PyAny>> {
        self.0[p as usize]
    }

    /// The op's arguments. A call whose values fit the other dialect's positional order
    /// (`Reduction::other_order`) and not the signature's is read in that order.
    pub fn parse(mut self, op: Reduction) -> PyResult<ReduceArgs> {
        let other = op.other_order();
        if !other.is_empty() {
            let (mut fits_other, mut misfit) = (true, false);
            for (&p, &o) in op.params().iter().zip(other) {
                if let Some(v) = self.get(p).filter(|_| p != o) {
                    fits_other &= fits(o, v);
                    misfit |= !fits(p, v);
                }
            }
            if fits_other && misfit {
                let was = self;
                for (&p, &o) in op.params().iter().zip(other) {
                    self.0[o as usize] = was.get(p);
                }
            }
        }
        let name = op.name();
        let axes = self.get(Param::Axis).or(self.get(Param::Dim));
        let axes = match op.axes_kind() {
            // an empty axis list reduces every axis, as both peers (`sum(x, axis=[])`)
            AxesKind::Many => parse_axes(axes)?.filter(|a| !a.is_empty()),
            AxesKind::One => match axes {
                None => None,
                Some(a) => Some(vec![a.extract::<isize>().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "{name}(): axis must be an int or None, got {}",
                        a.repr().map(|r| r.to_string()).unwrap_or_default()
                    ))
                })?]),
            },
        };
        let correction = match (self.get(Param::Correction), self.get(Param::Unbiased)) {
            (Some(c), _) => c.extract::<f64>().map_err(|_| {
                PyTypeError::new_err(format!("{name}(): correction must be a number, got {c}"))
            })?,
            (None, Some(u)) => match u.extract::<bool>() {
                Ok(true) => 1.0,
                Ok(false) => 0.0,
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "{name}(): unbiased must be a bool, got {u}"
                    )))
                }
            },
            (None, None) => 1.0,
        };
        let keepdim = self.get(Param::Keepdim).or(self.get(Param::Keepdims));
        Ok(ReduceArgs {
            axes,
            keepdim: keepdim_arg(keepdim, name)?,
            dtype: dtype_arg(self.get(Param::Dtype), name)?,
            correction,
            op: name,
        })
    }
}

/// Whether `v` can be the parameter `p` (for telling the dialects' orders apart).
fn fits(p: Param, v: &Bound<'_, PyAny>) -> bool {
    match p {
        Param::Keepdim | Param::Keepdims | Param::Unbiased => v.extract::<bool>().is_ok(),
        Param::Dtype => is_dtype_like(v),
        _ => true,
    }
}

/// The arguments of reduction `op` from a static op's attribute dict (the same names as
/// the method's parameters).
pub fn from_attrs(op: Reduction, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<ReduceArgs> {
    let mut values: [Option<Bound<'_, PyAny>>; 8] = Default::default();
    if let Some(d) = attrs {
        for (v, p) in values.iter_mut().zip(Param::ALL) {
            *v = d.get_item(p.name())?.filter(|v| !v.is_none());
        }
    }
    let mut slots = Slots::default();
    for (s, v) in slots.0.iter_mut().zip(&values) {
        *s = v.as_ref();
    }
    slots.parse(op)
}
