//! The [`Reduction`] enum and its metadata, expanded from the reduction table
//! ([`for_each_reduce_op!`](super::reduce)), with the parsed arguments every reduction
//! takes ([`ReduceArgs`]) and the result dtype rules ([`ReduceDType`]).

use crate::dtype::DType;
use crate::error::{Error, Result};
#[allow(unused_imports)] // used by the table's closures
use crate::op_defs::reduce::fns::*;
#[allow(unused_imports)] // used by the table's closures
use crate::tensor::{ReduceOp, Tensor};

/// How a reduction's result dtype follows from its (cast) input dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceDType {
    /// Bool and integers give int64 (no overflow at the first carry); others keep theirs.
    IntToI64,
    /// The input's dtype.
    Same,
    /// A floating dtype: bool and integers give the default float.
    Float,
    /// Always bool.
    Bool,
    /// Always int64 (indices).
    Index,
}

impl ReduceDType {
    /// The result dtype for input dtype `d`.
    pub fn apply(self, d: DType) -> DType {
        match self {
            ReduceDType::IntToI64 if d == DType::Bool || d.is_int() => DType::I64,
            ReduceDType::IntToI64 | ReduceDType::Same => d,
            ReduceDType::Float => d.to_floating(),
            ReduceDType::Bool => DType::Bool,
            ReduceDType::Index => DType::I64,
        }
    }
}

/// The parameter vocabulary of the reductions' Python signatures (each name has one
/// role; a table entry naming another parameter does not compile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Paddle's axes.
    Axis,
    /// torch's axes.
    Dim,
    /// Keep reduced dims.
    Keepdim,
    /// NumPy's spelling of `keepdim`.
    Keepdims,
    /// Cast the input first.
    Dtype,
    /// `var`/`std`: divide by N-1 (True) or N.
    Unbiased,
    /// `var`/`std`: the divisor is N - correction (overrides `unbiased`).
    Correction,
    /// Paddle's op name (ignored).
    Name,
}

impl Param {
    /// Every parameter, in discriminant order.
    pub const ALL: [Param; 8] = [
        Param::Axis,
        Param::Dim,
        Param::Keepdim,
        Param::Keepdims,
        Param::Dtype,
        Param::Unbiased,
        Param::Correction,
        Param::Name,
    ];

    /// The Python name.
    pub fn name(self) -> &'static str {
        [
            "axis",
            "dim",
            "keepdim",
            "keepdims",
            "dtype",
            "unbiased",
            "correction",
            "name",
        ][self as usize]
    }
}

/// The [`Param`] spelled `$p`.
macro_rules! param {
    (axis) => {
        $crate::op_defs::Param::Axis
    };
    (dim) => {
        $crate::op_defs::Param::Dim
    };
    (keepdim) => {
        $crate::op_defs::Param::Keepdim
    };
    (keepdims) => {
        $crate::op_defs::Param::Keepdims
    };
    (dtype) => {
        $crate::op_defs::Param::Dtype
    };
    (unbiased) => {
        $crate::op_defs::Param::Unbiased
    };
    (correction) => {
        $crate::op_defs::Param::Correction
    };
    (name) => {
        $crate::op_defs::Param::Name
    };
}
// re-exported for the bindings' argument parser (python feature only: unused otherwise)
#[cfg(feature = "python")]
pub(crate) use param;

/// Which axes a reduction takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxesKind {
    /// An int, a list of ints, or None for all.
    Many,
    /// One int, or None for the flattened input (`argmax`).
    One,
}

/// The arguments of one reduction call, parsed (the same for every reduction; each op
/// reads what it declares).
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceArgs {
    /// Axes (negative wrap), None for all.
    pub axes: Option<Vec<isize>>,
    /// Keep reduced dimensions as size 1.
    pub keepdim: bool,
    /// Cast the input to this dtype first (`sum(dtype=...)`).
    pub dtype: Option<DType>,
    /// Divisor correction of `var`/`std` (1 = unbiased, the default).
    pub correction: f64,
    /// The op's name, for errors.
    pub op: &'static str,
}

impl ReduceArgs {
    /// No axes (all), no keepdim, no cast, correction 1.
    pub fn new(op: &'static str) -> ReduceArgs {
        ReduceArgs {
            axes: None,
            keepdim: false,
            dtype: None,
            correction: 1.0,
            op,
        }
    }

    /// The axes as the tensor ops take them.
    pub fn axes(&self) -> Option<&[isize]> {
        self.axes.as_deref()
    }

    /// The one axis of an [`AxesKind::One`] op (None = flattened); a list of several is a
    /// `TypeError`.
    pub fn axis(&self) -> Result<Option<isize>> {
        match self.axes.as_deref() {
            None => Ok(None),
            Some([a]) => Ok(Some(*a)),
            Some(more) => Err(Error::type_err(format!(
                "{}(): axis must be an int or None, got {more:?}",
                self.op
            ))),
        }
    }

    /// `x` cast to the requested dtype (itself when none was asked for).
    pub fn cast(&self, x: &Tensor) -> Result<Tensor> {
        match self.dtype {
            Some(d) if d != x.dtype() => x.to_dtype(d),
            _ => Ok(x.clone()),
        }
    }
}

macro_rules! declare_reduce_ops {
    ($($v:ident {
        name: $m:ident,
        doc: $doc:literal,
        params: [$($p:ident),*], keywords: [$($k:ident),*],
        other_order: [$($o:ident),*],
        dtype: $dtype:ident, axes: $axes:ident,
        kernel: [$($kernel:expr)?], saves: [$($save:ident),*], grad: [$($grad:expr)?],
        compose: [$($compose:expr)?],
        node: $node:literal,
    })*) => {
        /// A reduction (declared in [`reduce`](super::reduce)).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Reduction {
            $(
                #[doc = $doc]
                $v,
            )*
        }

        impl Reduction {
            /// Every reduction, in declaration order.
            pub const ALL: &'static [Reduction] = &[$(Reduction::$v),*];

            /// The op's name: its `Tensor` method and module function.
            pub fn name(self) -> &'static str {
                match self {
                    $(Reduction::$v => stringify!($m),)*
                }
            }

            /// The one-line description shown by `help()` and the stubs.
            pub fn doc(self) -> &'static str {
                match self {
                    $(Reduction::$v => $doc,)*
                }
            }

            /// The positional-or-keyword parameters of the Python signature, in order.
            pub fn params(self) -> &'static [Param] {
                match self {
                    $(Reduction::$v => &[$(param!($p)),*],)*
                }
            }

            /// The keyword-only parameters (the other dialect's spellings).
            pub fn keywords(self) -> &'static [Param] {
                match self {
                    $(Reduction::$v => &[$(param!($k)),*],)*
                }
            }

            /// The other dialect's positional order, or empty when it is `params`.
            pub fn other_order(self) -> &'static [Param] {
                match self {
                    $(Reduction::$v => &[$(param!($o)),*],)*
                }
            }

            /// How the result dtype follows from the (cast) input dtype.
            pub fn dtype_rule(self) -> ReduceDType {
                match self {
                    $(Reduction::$v => ReduceDType::$dtype,)*
                }
            }

            /// Which axes the op takes.
            pub fn axes_kind(self) -> AxesKind {
                match self {
                    $(Reduction::$v => AxesKind::$axes,)*
                }
            }

            /// The backward node of the result (empty when not differentiable).
            pub fn node_name(self) -> &'static str {
                match self {
                    $(Reduction::$v => $node,)*
                }
            }

            /// Whether a gradient flows back (bool and index results have none).
            pub fn has_gradient(self) -> bool {
                !matches!(self.dtype_rule(), ReduceDType::Bool | ReduceDType::Index)
            }

            /// The result dtype for input dtype `d` and the call's arguments: an explicit
            /// `dtype=` of an `IntToI64` op (sum, prod, nansum) is the result's, as both
            /// peers' (`x.sum(dtype=int32)` is int32, wrapping as int32 arithmetic).
            pub fn result_dtype(self, d: DType, args: &ReduceArgs) -> DType {
                match (self.dtype_rule(), args.dtype) {
                    (ReduceDType::IntToI64, Some(asked)) => asked,
                    (rule, asked) => rule.apply(asked.unwrap_or(d)),
                }
            }

            /// What the backward of a primitive keeps (empty for composites and ops
            /// without gradient).
            pub fn saves(self) -> &'static [ReduceSave] {
                match self {
                    $(Reduction::$v => &[$(ReduceSave::$save),*],)*
                }
            }

            /// Whether the entry is a composite (a `compose` column) rather than a
            /// primitive (a `kernel`).
            pub fn is_composite(self) -> bool {
                match self {
                    $(Reduction::$v => run_entry!(is_composite [$($kernel)?] [$($compose)?]),)*
                }
            }

            /// Runs the reduction on `x` (recording its backward when `x` requires grad):
            /// a primitive through [`Reduction::apply`], a composite through its
            /// `compose` column.
            pub fn run(self, x: &Tensor, args: &ReduceArgs) -> Result<Tensor> {
                let out = match self {
                    $(Reduction::$v => {
                        run_entry!(run self, x, args, [$($kernel)?] [$($compose)?])
                    })*
                }?;
                // an integer sum accumulates in int64 and is then narrowed to the asked
                // dtype: the same bits as accumulating in it (two's complement wraps
                // alike; bool: any non-zero)
                let mut want = self.result_dtype(x.dtype(), args);
                // var / std of complex input are real (PyTorch's)
                if matches!(self, Reduction::Var | Reduction::Std) && want.is_complex() {
                    want = want.to_real();
                }
                if out.dtype() == want {
                    Ok(out)
                } else {
                    out.to_dtype(want)
                }
            }

            /// The op called `name`.
            pub fn from_name(name: &str) -> Option<Reduction> {
                match name {
                    $(stringify!($m) => Some(Reduction::$v),)*
                    _ => None,
                }
            }
        }
    };
}

/// The `run` (and `is_composite`) arm of one entry: exactly one of `kernel` and
/// `compose` (any other combination matches no rule, so it does not compile).
macro_rules! run_entry {
    (is_composite [$kernel:expr] []) => {
        false
    };
    (is_composite [] [$compose:expr]) => {
        true
    };
    (run $op:ident, $x:ident, $args:ident, [$kernel:expr] []) => {
        $op.run_primitive($x, $args)
    };
    (run $op:ident, $x:ident, $args:ident, [] [$compose:expr]) => {{
        let f: fn(&Tensor, &ReduceArgs) -> Result<Tensor> = $compose;
        f($x, $args)
    }};
}
#[allow(unused_imports)] // used by the expansion below
use run_entry;

super::reduce::for_each_reduce_op!(declare_reduce_ops);

/// A tensor a primitive reduction's backward keeps (its `saves` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceSave {
    /// The input (after the `dtype=` cast and the `Float` rule's conversion).
    Input,
    /// The result.
    Output,
}

/// What a reduction's gradient formula (its `grad` column) reads: the saved tensors, the
/// input's shape and the reduced axes.
pub struct ReduceSaved<'a> {
    /// The saved slots, in the order of the `saves` column.
    pub(crate) saved: &'a [Option<Tensor>],
    /// The `saves` column.
    pub(crate) saves: &'static [ReduceSave],
    /// The input's shape.
    pub shape: &'a [usize],
    /// The reduced axes: sorted, unique, non-negative.
    pub axes: &'a [usize],
    /// Whether the result kept the reduced dimensions.
    pub keepdim: bool,
    /// The node's name, for errors.
    pub(crate) node: &'static str,
}

impl ReduceSaved<'_> {
    fn slot(&self, which: ReduceSave) -> Result<&Tensor> {
        self.saves
            .iter()
            .position(|&s| s == which)
            .and_then(|i| self.saved.get(i)?.as_ref())
            .ok_or_else(|| {
                Error::runtime(format!(
                    "internal: {} has no saved {which:?} (its entry's `saves`)",
                    self.node
                ))
            })
    }

    /// The saved input.
    pub fn x(&self) -> Result<&Tensor> {
        self.slot(ReduceSave::Input)
    }

    /// The saved result.
    pub fn out(&self) -> Result<&Tensor> {
        self.slot(ReduceSave::Output)
    }

    /// The reduced axes as the tensor ops take them.
    pub fn axes_isize(&self) -> Vec<isize> {
        self.axes.iter().map(|&a| a as isize).collect()
    }

    /// How many input elements each result element reduces.
    pub fn count(&self) -> usize {
        self.axes.iter().map(|&a| self.shape[a]).product()
    }

    /// `t` (shaped like the result) with the reduced dimensions kept as size 1.
    pub fn keep(&self, t: &Tensor) -> Result<Tensor> {
        if self.keepdim {
            return Ok(t.clone());
        }
        let kept: Vec<isize> = self
            .shape
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                if self.axes.contains(&i) {
                    1
                } else {
                    d as isize
                }
            })
            .collect();
        t.reshape(&kept)
    }

    /// `g` (shaped like the result) broadcast back to the input's shape (a view; no copy).
    pub fn unreduce(&self, g: &Tensor) -> Result<Tensor> {
        // (when nothing is recorded, the usual case in backward, as one view: `keep`'s
        // reshape and `expand` each went through the shape ops' generic driver, ~3k
        // instructions for a 1-element gradient)
        if !crate::autograd::is_grad_enabled() || !g.requires_grad() {
            if let Some(out) = self.broadcast_view(g) {
                return Ok(out);
            }
        }
        self.keep(g)?.expand(self.shape)
    }

    /// `unreduce`'s result made directly: `g`'s layout with the reduced dimensions put
    /// back (stride 0) and size-1 ones broadcast, marked as a view of `g` like the
    /// composed ops' result. `None` when `g` does not fit (the composed ops raise).
    fn broadcast_view(&self, g: &Tensor) -> Option<Tensor> {
        let gl = g.layout();
        let mut strides = crate::layout::Strides::new();
        let mut k = 0; // g's dimension matching the input's dimension `i`
        for (i, &d) in self.shape.iter().enumerate() {
            if !self.keepdim && self.axes.contains(&i) {
                strides.push(0);
                continue;
            }
            let (gd, gs) = (*gl.shape.get(k)?, gl.strides[k]);
            k += 1;
            strides.push(if gd == d {
                gs
            } else if gd == 1 {
                0
            } else {
                return None;
            });
        }
        if k != gl.shape.len() {
            return None;
        }
        let layout = crate::layout::Layout {
            shape: crate::layout::Shape::from_slice(self.shape),
            strides,
            offset: gl.offset,
        };
        let out = g.view_with(layout);
        out.mark_view_of(g);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &op in Reduction::ALL {
            assert!(seen.insert(op.name()), "{} declared twice", op.name());
            assert_eq!(Reduction::from_name(op.name()), Some(op));
        }
    }

    #[test]
    fn other_orders_permute_the_signature() {
        for &op in Reduction::ALL {
            let mut a: Vec<_> = op.other_order().iter().map(|p| *p as usize).collect();
            if a.is_empty() {
                continue;
            }
            let mut b: Vec<_> = op.params().iter().map(|p| *p as usize).collect();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{}", op.name());
        }
    }

    #[test]
    fn only_primitives_with_a_gradient_save_tensors() {
        for &op in Reduction::ALL {
            if op.is_composite() || !op.has_gradient() {
                assert!(op.saves().is_empty(), "{}", op.name());
            }
        }
    }

    #[test]
    fn the_dtype_rule_is_what_the_eager_op_returns() {
        use crate::dtype::DType::*;
        for &op in Reduction::ALL {
            for d in [Bool, U8, I8, I32, I64, F16, BF16, F32, F64] {
                let x = crate::tensor::zeros(&[2, 3], d).unwrap();
                let args = ReduceArgs::new(op.name());
                let y = op.run(&x, &args).unwrap();
                assert_eq!(y.dtype(), op.result_dtype(d, &args), "{} of {d}", op.name());
                let keep = ReduceArgs {
                    axes: Some(vec![-1]),
                    keepdim: true,
                    ..args
                };
                assert_eq!(op.run(&x, &keep).unwrap().shape(), &[2, 1], "{}", op.name());
            }
        }
    }
}
