//! Op declarations: each op family lists its ops once, in a table that every layer
//! (kernels, autograd, static graphs, Python bindings) derives its code from.
//!
//! This module turns the tables into the op enums and their metadata; the kernels
//! ([`crate::kernels::unary`]), the differentiable ops ([`crate::autograd`]) and the
//! bindings each expand the same table into their own `match`. See
//! `docs/contributing.md` for the recipe of adding an op.
//!
//! Why `macro_rules!` tables plus a small Python generator, rather than a trait object
//! per op, a build script or a proc-macro crate: every layer needs a `match` over all
//! ops of a family with the per-op code *inlined* (kernel closures inside monomorphic
//! loops, formulas inside the recorded closure), which a callback macro gives with no
//! dynamic dispatch, no build step and no extra crate; `#[pymethods]` needs the methods
//! spelled out, which the same expansion does. Python files (module functions, stubs,
//! static `Variable` methods) cannot be written by a Rust macro, so
//! `scripts/gen_op_bindings.py` writes those blocks from the tables the extension
//! exports, and `tests/python/test_op_registry.py` fails when they are stale.

pub mod binary;
mod binary_meta;
pub mod reduce;
mod reduce_meta;
pub mod shape;
mod shape_meta;
pub mod unary;
/// The second half of the unary op table (see [`unary`]).
pub mod unary_math;

pub(crate) use binary::for_each_binary_op;
pub use binary_meta::{py_name, BinaryDType, BinaryOp, SaveWhen};
#[cfg(feature = "python")]
pub(crate) use reduce_meta::param;
pub use reduce_meta::{
    AxesKind, Param, ReduceArgs, ReduceDType, ReduceSave, ReduceSaved, Reduction,
};
#[cfg(feature = "python")]
pub(crate) use shape_meta::shape_param_of;
pub use shape_meta::{
    fmt_dims, Dim, DimSubject, ShapeArgs, ShapeOp, ShapeParam, ShapeSaved, ViewKind,
};
pub(crate) use unary::for_each_unary_op;

/// How a unary op's result dtype follows from its input's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DTypeRule {
    /// The input's dtype.
    Same,
    /// A floating dtype: integers and bools compute in the default float dtype.
    Float,
    /// Always bool.
    Bool,
    /// The input's dtype, except complex gives its real counterpart (`abs`).
    Modulus,
    /// The input's dtype, for integer and bool input only (floating or complex input is a
    /// `TypeError`): the bitwise ops.
    Integral,
}

/// What a unary op's backward needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saves {
    /// Its input `x`.
    Input,
    /// Its output `y = op(x)`.
    Output,
    /// Nothing (the formula uses only the incoming gradient).
    Nothing,
    /// No formula: the gradient is zero (piecewise-constant ops such as `floor`).
    ZeroGrad,
    /// Not differentiable (a non-float result).
    NoGrad,
}

macro_rules! declare_unary_ops {
    ($($v:ident {
        methods: [$($m:ident),+], functional: [$($f:ident),*], extra: [$($ex:ident)?],
        doc: $doc:literal,
        dtype: $dtype:ident, cost: $cost:ident,
        real: $real:expr, fast_f32: [$($fast:ident, $fast1:ident)?],
        int: [$($int:expr)?], complex: [$($cplx:expr)?], boolean: [$($b:expr)?],
        saves: $saves:ident, grad: [$($grad:expr)?], node: $node:literal,
    })*) => {
        /// A unary elementwise operation (declared in [`unary`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryOp {
            $(
                #[doc = $doc]
                $v,
            )*
        }

        impl UnaryOp {
            /// Every unary op, in declaration order.
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$v),*];

            /// User-facing op name (its first method name).
            pub fn name(self) -> &'static str {
                match self {
                    $(UnaryOp::$v => first_name!($($m),+),)*
                }
            }

            /// All `Tensor` method names (also module functions) of the op.
            pub fn method_names(self) -> &'static [&'static str] {
                match self {
                    $(UnaryOp::$v => &[$(stringify!($m)),+],)*
                }
            }

            /// The op's names in `nn.functional` (often none).
            pub fn functional_names(self) -> &'static [&'static str] {
                match self {
                    $(UnaryOp::$v => &[$(stringify!($f)),*],)*
                }
            }

            /// The one more keyword the methods take (`decimals` for `round`), if any.
            pub fn extra_keyword(self) -> Option<&'static str> {
                match self {
                    $(UnaryOp::$v => None$(.or(Some(stringify!($ex))))?,)*
                }
            }

            /// The one-line description shown by `help()` and the stubs.
            pub fn doc(self) -> &'static str {
                match self {
                    $(UnaryOp::$v => $doc,)*
                }
            }

            /// How the result dtype follows from the input dtype.
            pub fn dtype_rule(self) -> DTypeRule {
                match self {
                    $(UnaryOp::$v => DTypeRule::$dtype,)*
                }
            }

            /// What the backward needs (or that there is no formula).
            pub fn saves(self) -> Saves {
                match self {
                    $(UnaryOp::$v => Saves::$saves,)*
                }
            }

            /// The backward node's name.
            pub fn node_name(self) -> &'static str {
                match self {
                    $(UnaryOp::$v => $node,)*
                }
            }

            /// Ops whose result is floating even for integer input (`exp(int) -> float32`).
            pub fn is_float_only(self) -> bool {
                self.dtype_rule() == DTypeRule::Float
            }

            /// Whether a non-zero gradient flows back through the op.
            pub fn has_gradient(self) -> bool {
                !matches!(self.saves(), Saves::ZeroGrad | Saves::NoGrad)
            }

            /// The op whose first method name is `name`, or any of its aliases.
            pub fn from_name(name: &str) -> Option<UnaryOp> {
                UnaryOp::ALL
                    .iter()
                    .copied()
                    .find(|op| op.method_names().contains(&name))
            }
        }
    };
}

/// The first of a list of identifiers, as a string.
macro_rules! first_name {
    ($first:ident $(, $rest:ident)*) => {
        stringify!($first)
    };
}
#[allow(unused_imports)] // used by the expansion below
use first_name;

for_each_unary_op!(declare_unary_ops);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &op in UnaryOp::ALL {
            for name in op.method_names() {
                assert!(seen.insert(*name), "{name} declared twice");
                assert_eq!(UnaryOp::from_name(name), Some(op));
            }
            assert_eq!(op.method_names()[0], op.name());
        }
    }

    #[test]
    fn only_round_declares_an_extra_keyword() {
        for &op in UnaryOp::ALL {
            let want = (op == UnaryOp::Round).then_some("decimals");
            assert_eq!(op.extra_keyword(), want, "{}", op.name());
        }
    }

    #[test]
    fn ops_with_a_formula_save_something_or_nothing() {
        for &op in UnaryOp::ALL {
            // (integral ops have integer results: never differentiable either)
            let no_grad = matches!(op.dtype_rule(), DTypeRule::Bool | DTypeRule::Integral);
            assert_eq!(no_grad, op.saves() == Saves::NoGrad, "{}", op.name());
        }
    }
}
