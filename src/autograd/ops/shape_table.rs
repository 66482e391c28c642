//! The shape ops' recording: one generic driver ([`ShapeOp::apply`]) that runs an
//! entry's rule and raw kernel, marks the result as a view of its input, and records the
//! entry's inverse as its backward (all from [`crate::op_defs::shape`]).

use crate::autograd::Recorder;
use crate::error::{Error, Result};
use crate::layout::Shape;
#[allow(unused_imports)] // used by the table's closures
use crate::op_defs::shape::fns::*;
use crate::op_defs::{DimSubject, ShapeArgs, ShapeOp, ShapeSaved, ViewKind};
use crate::tensor::Tensor;
use smallvec::smallvec;
use std::sync::Arc;

/// The raw kernels and inverse formulas of the shape ops, expanded from their
/// declarations in [`crate::op_defs::shape`].
macro_rules! shape_kernels_and_grads {
    ($($v:ident {
        name: $m:ident,
        doc: $doc:literal,
        arity: $arity:literal,
        varargs: [$($va:ident)?], params: [$($p:ident),*], keywords: [$($k:ident),*],
        signature: $sig:tt,
        view: $view:ident,
        rule: $rule:expr,
        static_rule: [$($static_rule:expr)?],
        kernel: $kernel:expr,
        grad: $grad:expr,
        node: $node:literal $(or $node_fn:path)?,
    })*) => {
        impl ShapeOp {
            /// The layout change to `out` (a view, or a copy for `WhenPossible`),
            /// recording nothing.
            fn kernel(self, x: &Tensor, a: &ShapeArgs, out: &[usize]) -> Result<Tensor> {
                match self {
                    $(ShapeOp::$v => kernel(x, a, out, $kernel),)*
                }
            }

            /// The input's gradient: the entry's inverse op.
            fn grad(self, g: &Tensor, s: &ShapeSaved<'_>) -> Result<Tensor> {
                match self {
                    $(ShapeOp::$v => formula(g, s, $grad),)*
                }
            }
        }
    };
}

/// Gives a table's kernel closure its parameter types.
fn kernel(
    x: &Tensor,
    a: &ShapeArgs,
    out: &[usize],
    f: impl FnOnce(&Tensor, &ShapeArgs, &[usize]) -> Result<Tensor>,
) -> Result<Tensor> {
    f(x, a, out)
}

/// Gives a table's gradient closure its parameter types.
fn formula(
    g: &Tensor,
    s: &ShapeSaved<'_>,
    f: impl FnOnce(&Tensor, &ShapeSaved<'_>) -> Result<Tensor>,
) -> Result<Tensor> {
    f(g, s)
}

crate::op_defs::shape::for_each_shape_op!(shape_kernels_and_grads);

impl ShapeOp {
    /// The eager op on `x`: the entry's rule (and its argument checks), its kernel, the
    /// view marking (`mark_view_of`, for in-place version checks: always, or when the
    /// kernel kept the storage) and, when `x` requires grad, one node named by the entry's
    /// `node` column whose backward is the entry's inverse.
    pub fn apply(self, x: &Tensor, args: &ShapeArgs) -> Result<Tensor> {
        let _profiled = crate::profiler::op(|| self.name(), &[x]);
        let dims = self.shape_rule(&known(x.shape()), args, DimSubject::Tensor)?;
        let out_shape = dims
            .iter()
            .map(|d| d.ok_or_else(|| Error::runtime(format!("{}: unknown dimension", self.name()))))
            .collect::<Result<Shape>>()?;
        let view = self.view_kind();
        if view == ViewKind::WhenPossible && out_shape.as_slice() == x.shape() {
            return Ok(x.alias_view(x.layout().clone(), "ViewBackward"));
        }
        let out = self.kernel(x, args, &out_shape)?;
        debug_assert_eq!(out.shape(), out_shape.as_slice());
        if view == ViewKind::Always || Arc::ptr_eq(out.storage(), x.storage()) {
            out.mark_view_of(x);
        }
        if let Some(rec) = Recorder::begin(&[x]) {
            let node = self.node_for(args, x.ndim());
            let in_shape = x.shape_vec();
            let args = args.clone();
            rec.finish(node, &out, move |g, _, _| {
                let s = ShapeSaved {
                    in_shape: &in_shape,
                    args: &args,
                };
                Ok(smallvec![Some(self.grad(g, &s)?)])
            })?;
        }
        Ok(out)
    }
}
