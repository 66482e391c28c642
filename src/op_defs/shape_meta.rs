//! The shape/view ops' metadata, expanded from their declarations in
//! [`crate::op_defs::shape`]: the [`ShapeOp`] enum, its parsed arguments ([`ShapeArgs`]),
//! the parameter vocabulary ([`ShapeParam`]) and the subject errors name ([`DimSubject`]).

use crate::error::{Error, Result};
use crate::layout::normalize_dim;
#[allow(unused_imports)] // used by the table's closures
use crate::op_defs::shape::fns::*;

/// One dimension as the shape rules see it: known (`Some`) or known only at run time
/// (`None`, static programs only; eager shapes are always known).
pub type Dim = Option<usize>;

/// Whether a shape op's result shares its input's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// Always a view (`squeeze`, `unsqueeze`, `permute`, `expand`).
    Always,
    /// A view when the strides allow it, else a copy (`reshape`, `flatten`); a result of
    /// the input's own shape is a no-op view recorded as `ViewBackward`.
    WhenPossible,
}

/// The parameter vocabulary of the shape ops' signatures; each name has one role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeParam {
    /// Paddle's axis (or axes) argument.
    Axis,
    /// Torch's spelling of `Axis`.
    Dim,
    /// Paddle's first flattened axis.
    StartAxis,
    /// Torch's spelling of `StartAxis`.
    StartDim,
    /// Paddle's last flattened axis.
    StopAxis,
    /// Torch's spelling of `StopAxis`.
    EndDim,
    /// Paddle's op name (ignored).
    Name,
    /// Paddle's permutation (`transpose(perm)`).
    Perm,
    /// Torch's spelling of `Perm` (`permute(dims=...)`).
    Dims,
    /// Torch's first swapped dimension (`transpose(dim0, dim1)`).
    Dim0,
    /// Torch's second swapped dimension.
    Dim1,
    /// Paddle's target shape (`expand(x, shape=...)`, `broadcast_to(x, shape)`).
    Shape,
    /// Torch's spelling of `Shape` (`broadcast_to(x, size)`, `expand(size=...)`).
    Size,
    /// Torch's second tensor, whose shape is the target (`expand_as(other)`).
    Other,
    /// Paddle's spelling of `Other` (`expand_as(x, y)`).
    Y,
}

impl ShapeParam {
    /// Every parameter name of the vocabulary.
    pub const ALL: [ShapeParam; 15] = [
        ShapeParam::Axis,
        ShapeParam::Dim,
        ShapeParam::StartAxis,
        ShapeParam::StartDim,
        ShapeParam::StopAxis,
        ShapeParam::EndDim,
        ShapeParam::Name,
        ShapeParam::Perm,
        ShapeParam::Dims,
        ShapeParam::Dim0,
        ShapeParam::Dim1,
        ShapeParam::Shape,
        ShapeParam::Size,
        ShapeParam::Other,
        ShapeParam::Y,
    ];

    /// The Python parameter name.
    pub fn name(self) -> &'static str {
        match self {
            ShapeParam::Axis => "axis",
            ShapeParam::Dim => "dim",
            ShapeParam::StartAxis => "start_axis",
            ShapeParam::StartDim => "start_dim",
            ShapeParam::StopAxis => "stop_axis",
            ShapeParam::EndDim => "end_dim",
            ShapeParam::Name => "name",
            ShapeParam::Perm => "perm",
            ShapeParam::Dims => "dims",
            ShapeParam::Dim0 => "dim0",
            ShapeParam::Dim1 => "dim1",
            ShapeParam::Shape => "shape",
            ShapeParam::Size => "size",
            ShapeParam::Other => "other",
            ShapeParam::Y => "y",
        }
    }
}

/// The parsed arguments of one shape-op call (each op reads the fields of its roles).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapeArgs {
    /// `axis`/`dim`: None, or the axes listed.
    pub axes: Option<Vec<isize>>,
    /// `start_axis`/`start_dim` (default 0).
    pub start: isize,
    /// `stop_axis`/`end_dim` (default -1).
    pub stop: isize,
    /// `perm`/`dims` (or the varargs of `permute`, one of `transpose`): the order of the
    /// input's dimensions in the result.
    pub perm: Option<Vec<isize>>,
    /// `dim0`, `dim1` (or two varargs of `transpose`): two dimensions to swap.
    pub pair: Option<(isize, isize)>,
    /// `*shape` (`reshape`: the target shape, one `-1` inferred), or `*sizes`/`shape`/
    /// `size` (`expand`, `broadcast_to`: the target shape, `-1` keeps a dimension).
    pub shape: Option<Vec<isize>>,
    /// The shape of an entry's second input (`expand_as`'s `other`/`y`): filled from the
    /// tensor by the eager parser, from the second input by a static program (its recorded
    /// shape when building, the value's when running), never recorded as an attribute.
    pub like: Option<Vec<Dim>>,
    /// Set by a static program's build-time resolution (`static_rule`): the axes were
    /// checked against the recorded shape, and a value whose shape no longer fits them is
    /// an error at run time instead of a result of another rank.
    pub pinned: bool,
}

impl ShapeArgs {
    /// Arguments with every role at its default.
    pub fn new() -> ShapeArgs {
        ShapeArgs {
            axes: None,
            start: 0,
            stop: -1,
            perm: None,
            pair: None,
            shape: None,
            like: None,
            pinned: false,
        }
    }

    /// Arguments naming `axes`.
    pub fn axes(axes: Option<&[isize]>) -> ShapeArgs {
        ShapeArgs {
            axes: axes.map(<[isize]>::to_vec),
            ..ShapeArgs::new()
        }
    }

    /// Arguments naming the permutation `perm`.
    pub fn perm(perm: &[isize]) -> ShapeArgs {
        ShapeArgs {
            perm: Some(perm.to_vec()),
            ..ShapeArgs::new()
        }
    }

    /// Arguments naming two dimensions to swap.
    pub fn pair(d0: isize, d1: isize) -> ShapeArgs {
        ShapeArgs {
            pair: Some((d0, d1)),
            ..ShapeArgs::new()
        }
    }

    /// Arguments naming the target shape of `reshape`.
    pub fn shape(shape: &[isize]) -> ShapeArgs {
        ShapeArgs {
            shape: Some(shape.to_vec()),
            ..ShapeArgs::new()
        }
    }

    /// Arguments whose target is the shape `like` of a second input (`expand_as`).
    pub fn like(like: &[Dim]) -> ShapeArgs {
        ShapeArgs {
            like: Some(like.to_vec()),
            ..ShapeArgs::new()
        }
    }

    /// Arguments with the flattened range `start..=stop`.
    pub fn range(start: isize, stop: isize) -> ShapeArgs {
        ShapeArgs {
            start,
            stop,
            ..ShapeArgs::new()
        }
    }
}

/// What a shape op's backward reads: the input's shape and the call's arguments.
#[derive(Clone, Copy, Debug)]
pub struct ShapeSaved<'a> {
    /// The input's shape.
    pub in_shape: &'a [usize],
    /// The arguments of the call.
    pub args: &'a ShapeArgs,
}

impl ShapeSaved<'_> {
    /// The input's shape as a `reshape` target.
    pub fn in_shape_isize(&self) -> Vec<isize> {
        self.in_shape.iter().map(|&d| d as isize).collect()
    }
}

/// Gives a table's rule closure its parameter types.
fn rule<R>(
    d: &[Dim],
    a: &ShapeArgs,
    cx: DimSubject<'_>,
    f: impl FnOnce(&[Dim], &ShapeArgs, DimSubject<'_>) -> Result<R>,
) -> Result<R> {
    f(d, a, cx)
}

/// What a shape rule's errors name: an eager tensor, or a static program's variable
/// (whose name and recorded shape the message shows).
#[derive(Clone, Copy, Debug)]
pub enum DimSubject<'a> {
    /// An eager tensor.
    Tensor,
    /// A static variable.
    Var {
        /// Its name.
        name: &'a str,
        /// Its recorded shape.
        shape: &'a [Dim],
        /// The name of the op's second input, for an entry of arity 2 (`expand_as`).
        other: Option<&'a str>,
    },
}

/// `[2, -1, 3]`: a shape with run-time dimensions shown as -1.
pub fn fmt_dims(shape: &[Dim]) -> String {
    let parts: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("-1".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

impl DimSubject<'_> {
    /// `axis` normalized against `ndim` dimensions (0-d counts as 1), or an IndexError
    /// naming the op and the axis.
    pub fn axis(self, op: &str, axis: isize, ndim: usize) -> Result<usize> {
        match self {
            DimSubject::Tensor => normalize_dim(axis, ndim, op),
            DimSubject::Var { name, shape, .. } => {
                let n = ndim.max(1) as isize;
                let a = if axis < 0 { axis + n } else { axis };
                if a < 0 || a >= n {
                    return Err(Error::index(format!(
                        "{op}: axis {axis} is out of range for a variable of {ndim} dimensions \
                         ('{name}' with shape {})",
                        fmt_dims(shape)
                    )));
                }
                Ok(a as usize)
            }
        }
    }

    /// `" for 'x' with shape [..]"` for a variable, nothing for a tensor.
    pub fn suffix(self) -> String {
        match self {
            DimSubject::Tensor => String::new(),
            DimSubject::Var { name, shape, .. } => {
                format!(" for '{name}' with shape {}", fmt_dims(shape))
            }
        }
    }

    /// `a tensor of shape [2, 3]` or `'x' with shape [-1, 3]`: the subject of shape `d`.
    pub fn describe(self, d: &[Dim]) -> String {
        match self {
            DimSubject::Tensor => format!("a tensor of shape {}", fmt_dims(d)),
            DimSubject::Var { name, shape, .. } => {
                format!("'{name}' with shape {}", fmt_dims(shape))
            }
        }
    }

    /// `" of 'y'"`: the second input's name for a variable (`expand_as`), else nothing.
    pub fn other_suffix(self) -> String {
        match self {
            DimSubject::Var { other: Some(o), .. } => format!(" of '{o}'"),
            _ => String::new(),
        }
    }

    /// Whether errors name a static variable.
    pub fn is_static(self) -> bool {
        matches!(self, DimSubject::Var { .. })
    }
}

/// Expands the shape table into [`ShapeOp`] and its metadata.
macro_rules! declare_shape_ops {
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
        /// A shape/view op (declared in [`crate::op_defs::shape`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ShapeOp {
            $(
                #[doc = $doc]
                $v,
            )*
        }

        impl ShapeOp {
            /// Every shape op, in declaration order.
            pub const ALL: &'static [ShapeOp] = &[$(ShapeOp::$v),*];

            /// The `Tensor` method, module function (both dialects) and static op name.
            pub fn name(self) -> &'static str {
                match self {
                    $(ShapeOp::$v => stringify!($m),)*
                }
            }

            /// The one-line description.
            pub fn doc(self) -> &'static str {
                match self {
                    $(ShapeOp::$v => $doc,)*
                }
            }

            /// The number of tensor inputs: 1, or 2 for an entry whose second input
            /// (the `other`/`y` role) gives the target shape (`expand_as`).
            pub fn arity(self) -> usize {
                match self {
                    $(ShapeOp::$v => $arity,)*
                }
            }

            /// The positional-or-keyword parameters, in order.
            pub fn params(self) -> &'static [ShapeParam] {
                match self {
                    $(ShapeOp::$v => {
                        const P: &[ShapeParam] = &[$(shape_param_of(stringify!($p))),*];
                        P
                    })*
                }
            }

            /// The keyword-only parameters (the other dialect's spellings).
            pub fn keywords(self) -> &'static [ShapeParam] {
                match self {
                    $(ShapeOp::$v => {
                        const K: &[ShapeParam] = &[$(shape_param_of(stringify!($k))),*];
                        K
                    })*
                }
            }

            /// Whether the result is always a view or only when the strides allow.
            pub fn view_kind(self) -> ViewKind {
                match self {
                    $(ShapeOp::$v => ViewKind::$view,)*
                }
            }

            /// The backward node the result's `grad_fn` usually shows (see
            /// [`ShapeOp::node_for`]).
            pub fn node_name(self) -> &'static str {
                match self {
                    $(ShapeOp::$v => $node,)*
                }
            }

            /// The backward node of a call with `args` on an input of `ndim` dimensions:
            /// the entry's `or` function's pick (`transpose`'s no-op swaps), else
            /// [`ShapeOp::node_name`].
            pub fn node_for(self, args: &ShapeArgs, ndim: usize) -> &'static str {
                let pick: Option<&'static str> = match self {
                    $($(ShapeOp::$v => $node_fn(args, ndim),)?)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                };
                let _ = (args, ndim);
                pick.unwrap_or_else(|| self.node_name())
            }

            /// The Python signature `help()` and `inspect` show (each role's default).
            pub fn signature(self) -> &'static str {
                match self {
                    $(ShapeOp::$v => $sig,)*
                }
            }

            /// The name of the varargs parameter (`permute(*args)`), if the op takes one.
            pub fn varargs(self) -> Option<&'static str> {
                match self {
                    $($(ShapeOp::$v => Some(stringify!($va)),)?)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            /// Whether the entry has a static-only rule (resolving its arguments against
            /// a variable's recorded shape when the program is built).
            pub fn has_static_rule(self) -> bool {
                match self {
                    $($(ShapeOp::$v => { let _ = stringify!($static_rule); true })?)*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }

            /// The result shape of the op over `dims` (`None`: known only at run time),
            /// with errors worded for `cx`: the entry's `rule`.
            pub fn shape_rule(
                self,
                dims: &[Dim],
                args: &ShapeArgs,
                cx: DimSubject<'_>,
            ) -> Result<Vec<Dim>> {
                match self {
                    $(ShapeOp::$v => rule(dims, args, cx, $rule),)*
                }
            }

            /// The arguments a static program records for a variable of shape `dims`:
            /// the entry's `static_rule`, or `args` unchanged.
            pub fn static_args(
                self,
                dims: &[Dim],
                args: &ShapeArgs,
                cx: DimSubject<'_>,
            ) -> Result<ShapeArgs> {
                match self {
                    $($(ShapeOp::$v => rule(dims, args, cx, $static_rule),)?)*
                    #[allow(unreachable_patterns)]
                    _ => Ok(args.clone()),
                }
            }

            /// The op called `name`.
            pub fn from_name(name: &str) -> Option<ShapeOp> {
                ShapeOp::ALL.iter().copied().find(|op| op.name() == name)
            }
        }
    };
}

/// A vocabulary name's [`ShapeParam`] (in a `const` context; an unknown name in a table
/// entry fails the build).
pub(crate) const fn shape_param_of(name: &str) -> ShapeParam {
    match name.as_bytes() {
        b"axis" => ShapeParam::Axis,
        b"dim" => ShapeParam::Dim,
        b"start_axis" => ShapeParam::StartAxis,
        b"start_dim" => ShapeParam::StartDim,
        b"stop_axis" => ShapeParam::StopAxis,
        b"end_dim" => ShapeParam::EndDim,
        b"name" => ShapeParam::Name,
        b"perm" => ShapeParam::Perm,
        b"dims" => ShapeParam::Dims,
        b"dim0" => ShapeParam::Dim0,
        b"dim1" => ShapeParam::Dim1,
        b"shape" => ShapeParam::Shape,
        b"size" => ShapeParam::Size,
        b"other" => ShapeParam::Other,
        b"y" => ShapeParam::Y,
        _ => panic!("unknown shape-op parameter name"),
    }
}

crate::op_defs::shape::for_each_shape_op!(declare_shape_ops);
