//! Generic argument parsing of the shape ops (`src/op_defs/shape.rs`): one parser for
//! every shape op's `Tensor` method and for the attributes its static recording passes,
//! driven by each op's declared signature.

use crate::op_defs::{ShapeArgs, ShapeOp, ShapeParam};
use crate::python::args::{parse_axes, parse_shape};
use crate::python::tensor::class::PyTensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

/// The number of parameter names of the vocabulary.
const N: usize = ShapeParam::ALL.len();

/// The values of one shape-op call, indexed by [`ShapeParam`] (None: not given or None),
/// and the `*args` of an op that takes them.
#[derive(Clone, Copy, Default)]
pub struct ShapeSlots<'a, 'py>(
    pub [Option<&'a Bound<'py, PyAny>>; N],
    pub Option<&'a Bound<'py, PyTuple>>,
);

/// `v` as an int, or a TypeError naming the op and the parameter.
fn int_of(op: ShapeOp, param: &str, v: &Bound<'_, PyAny>) -> PyResult<isize> {
    v.extract::<isize>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{}(): {param} must be an int, got {}",
            op.name(),
            v.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

/// Whether `op`'s varargs are a target shape (`reshape(*shape)`, `expand(*sizes)`)
/// rather than dimensions to reorder (`permute(*args)`).
fn shape_varargs(op: ShapeOp) -> bool {
    matches!(op.varargs(), Some("shape" | "sizes"))
}

/// A permutation given as one value (a list, a tuple, a 1-d tensor).
fn one_perm(v: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    parse_shape(&PyTuple::new(v.py(), [v])?)
}

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
            Some((p, v)) => int_of(op, p.name(), v),
        }
    }

    /// The `perm` and `pair` roles of a reordering: from the `*args` (a permutation as
    /// ints or one sequence; for an op with `dim0`/`dim1` roles two of them are the pair),
    /// `perm`/`dims`, or `dim0` and `dim1`. Mixing the forms is a TypeError.
    #[allow(clippy::type_complexity)]
    fn reorder(&self, op: ShapeOp) -> PyResult<(Option<Vec<isize>>, Option<(isize, isize)>)> {
        let name = op.name();
        if shape_varargs(op) {
            return Ok((None, None)); // (`reshape`'s, `expand`'s varargs: a target shape)
        }
        let perm = self.role(op, &[ShapeParam::Perm, ShapeParam::Dims]);
        let (d0, d1) = (
            self.role(op, &[ShapeParam::Dim0]),
            self.role(op, &[ShapeParam::Dim1]),
        );
        let takes_pair = op.keywords().contains(&ShapeParam::Dim1);
        // (a static program's attributes may leave out `args`: none given)
        let n = self.1.map_or(0, |t| t.len());
        let item = |i: usize| -> PyResult<Bound<'py, PyAny>> {
            match self.1 {
                Some(t) => t.get_item(i),
                None => Err(PyTypeError::new_err("missing argument")),
            }
        };
        if !takes_pair {
            return match perm {
                Some(_) if n > 0 => Err(PyTypeError::new_err(format!(
                    "{name}() takes the dims positionally or as {}=, not both",
                    perm.map_or("dims", |(p, _)| p.name())
                ))),
                Some((_, v)) => Ok((Some(one_perm(v)?), None)),
                None => Ok((self.1.map(parse_shape).transpose()?, None)),
            };
        }
        let pair = |a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>| -> PyResult<_> {
            Ok((None, Some((int_of(op, "dim0", a)?, int_of(op, "dim1", b)?))))
        };
        match (perm, d0, d1, n) {
            (Some((_, p)), None, None, 0) => return Ok((Some(one_perm(p)?), None)),
            (None, Some((_, a)), Some((_, b)), 0) => return pair(a, b),
            (None, None, Some((_, b)), 1) => return pair(&item(0)?, b),
            (None, None, None, _) => {}
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{name}() takes perm= (Paddle) or dim0=, dim1= (torch), not a mix of \
                     positional and keyword dims"
                )))
            }
        }
        match n {
            2 => pair(&item(0)?, &item(1)?),
            1 => Ok((self.1.map(parse_shape).transpose()?, None)),
            _ => Err(PyTypeError::new_err(format!(
                "{name}() takes a permutation (Paddle) or two dims (torch)"
            ))),
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
        let (perm, pair) = self.reorder(op)?;
        if let Some((_, v)) = self.role(op, &[ShapeParam::Name]) {
            if !v.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err(format!(
                    "{}(): name must be a str or None, got {}",
                    op.name(),
                    v.repr().map(|r| r.to_string()).unwrap_or_default()
                )));
            }
        }
        Ok(ShapeArgs {
            axes,
            start: self.int(op, &[ShapeParam::StartAxis, ShapeParam::StartDim], 0)?,
            stop: self.int(op, &[ShapeParam::StopAxis, ShapeParam::EndDim], -1)?,
            perm,
            pair,
            shape: self.shape(op)?,
            like: self.like(op)?,
            pinned: false,
        })
    }

    /// The target shape: the varargs of an op whose varargs are a shape, or the
    /// `shape`/`size` role (giving both is a TypeError).
    fn shape(&self, op: ShapeOp) -> PyResult<Option<Vec<isize>>> {
        let keyword = self.role(op, &[ShapeParam::Shape, ShapeParam::Size]);
        let varargs = self.1.filter(|_| shape_varargs(op));
        match (varargs, keyword) {
            (Some(t), Some((p, _))) if !t.is_empty() => Err(PyTypeError::new_err(format!(
                "{}() takes the sizes positionally or as {}=, not both",
                op.name(),
                p.name()
            ))),
            (_, Some((_, v))) => Ok(Some(one_perm(v)?)),
            (Some(t), None) => Ok(Some(parse_shape(t)?)),
            (None, None) => Ok(None),
        }
    }

    /// The shape of the tensor of the `other`/`y` role (`expand_as`), as known dims.
    fn like(&self, op: ShapeOp) -> PyResult<Option<Vec<crate::op_defs::Dim>>> {
        let Some((p, v)) = self.role(op, &[ShapeParam::Other, ShapeParam::Y]) else {
            return Ok(None);
        };
        let t = v.cast::<PyTensor>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{}(): {} must be a Tensor, got {}",
                op.name(),
                p.name(),
                v.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        Ok(Some(
            t.get().inner().shape().iter().map(|&d| Some(d)).collect(),
        ))
    }
}

/// The arguments of shape op `op` from a static op's attribute dict (the same names as
/// the method's parameters; a sequence named like the varargs, `args`, `shape` or
/// `sizes`, for the varargs of an op that takes them). The tensor of an entry of arity 2
/// is the op's second input, not an attribute.
pub fn from_attrs(op: ShapeOp, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<ShapeArgs> {
    let mut values: [Option<Bound<'_, PyAny>>; N] = Default::default();
    let mut varargs = None;
    if let Some(d) = attrs {
        for (v, p) in values.iter_mut().zip(ShapeParam::ALL) {
            *v = d.get_item(p.name())?.filter(|v| !v.is_none());
        }
        let named = op.varargs().map(|n| d.get_item(n)).transpose()?.flatten();
        if let (Some(name), Some(v)) = (op.varargs(), named) {
            let items = v.try_iter()?.collect::<PyResult<Vec<_>>>().map_err(|_| {
                PyTypeError::new_err(format!("{}(): {name} must be a sequence", op.name()))
            })?;
            varargs = Some(PyTuple::new(d.py(), items)?);
        }
    }
    let mut slots = ShapeSlots::default();
    for (s, v) in slots.0.iter_mut().zip(&values) {
        *s = v.as_ref();
    }
    slots.1 = varargs.as_ref();
    slots.parse(op)
}
