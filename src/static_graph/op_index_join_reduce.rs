//! The indexing, joining/splitting (stack, split, unbind), selection (gather,
//! index_select, where), reduction and shape-table ops of static programs ([`ExtOp`]):
//! their attributes, names, and how each runs over the crate's differentiable tensor ops.
//! Their build-time inference is in [`super::infer_index_join_reduce`].

use crate::autograd::ops::index::IndexItem;
use crate::error::{Error, Result};
use crate::op_defs::{Dim, ReduceArgs, Reduction, ShapeArgs, ShapeOp};
use crate::tensor::Tensor;

/// One item of a recorded `x[...]` index. Tensor indices are variables: each
/// [`IndexSpec::Var`] takes the op's next input after `x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexSpec {
    /// An integer (negative wraps).
    Int(isize),
    /// `start:stop:step` (Python semantics, negative steps allowed).
    Slice(Option<isize>, Option<isize>, isize),
    /// `None`: a new size-1 dimension.
    NewAxis,
    /// `...`.
    Ellipsis,
    /// An integer or bool index variable (the op's next input).
    Var,
}

/// A reduction with the shape rule of `sum` (axes, keepdim).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExtReduce {
    /// Product.
    Prod,
    /// `log(sum(exp(x)))`.
    LogSumExp,
    /// True where all elements are non-zero (bool, no gradient).
    All,
    /// True where any element is non-zero (bool, no gradient).
    Any,
    /// Variance with a correction (1 = unbiased).
    Var(f64),
    /// Standard deviation with a correction.
    Std(f64),
}

impl ExtReduce {
    /// The reduction's entry in the table (`src/op_defs/reduce.rs`), which gives its
    /// dtype rule.
    pub fn reduction(self) -> Reduction {
        match self {
            ExtReduce::Prod => Reduction::Prod,
            ExtReduce::LogSumExp => Reduction::Logsumexp,
            ExtReduce::All => Reduction::All,
            ExtReduce::Any => Reduction::Any,
            ExtReduce::Var(_) => Reduction::Var,
            ExtReduce::Std(_) => Reduction::Std,
        }
    }
}

/// The ops of this module, one variant per eager function family.
#[derive(Clone, Debug)]
pub enum ExtOp {
    /// `x[items]`; inputs are `x` then one variable per [`IndexSpec::Var`].
    Index(Vec<IndexSpec>),
    /// Stacks its inputs along a new axis.
    Stack(isize),
    /// Splits along `axis` into sections; `None` is "the rest" (at most one). One
    /// output per section.
    Split {
        /// Axis split.
        axis: isize,
        /// Section sizes.
        sections: Vec<Option<usize>>,
    },
    /// Every position along an axis (the axis removed); one output per position.
    Unbind {
        /// Axis unbound.
        axis: isize,
        /// Its size (known when building: it is the number of outputs).
        count: usize,
    },
    /// torch `gather(dim, index)` / Paddle `take_along_axis`; inputs `x, index`.
    Gather(isize),
    /// `index_select(index, axis)`; inputs `x, index` (1-D).
    IndexSelect(isize),
    /// `where(cond, x, y)`; inputs `cond, x, y`, broadcast together.
    Where,
    /// `argmax` / `argmin` along an axis (None = flattened), int64, no gradient.
    ArgReduce {
        /// Axis, or None for the flattened input.
        axis: Option<isize>,
        /// Keep the reduced dimension as size 1.
        keepdim: bool,
        /// argmax (true) or argmin.
        max: bool,
    },
    /// A reduction over `axes` (None = all).
    Reduce {
        /// Which reduction.
        kind: ExtReduce,
        /// Axes, None for all.
        axes: Option<Vec<isize>>,
        /// Keep reduced dimensions as size 1.
        keepdim: bool,
    },
    /// Any reduction of the table in `src/op_defs/reduce.rs`, with its parsed arguments
    /// (what Python programs record; `Reduce`/`ArgReduce` stay for Rust callers).
    TableReduce {
        /// Which reduction.
        op: Reduction,
        /// Its axes, keepdim, dtype and correction.
        args: ReduceArgs,
    },
    /// Any op of the shape table in `src/op_defs/shape.rs`, with its arguments as
    /// recorded (after the entry's `static_rule`: `squeeze`'s dimensions are pinned when
    /// the program is built). An entry of arity 2 (`expand_as`) reads the shape of its
    /// second input.
    TableShape {
        /// Which shape op.
        op: ShapeOp,
        /// Its arguments.
        args: ShapeArgs,
    },
}

impl ExtOp {
    /// The op's user-facing name (the eager function of the same meaning).
    pub fn name(&self) -> &'static str {
        match self {
            ExtOp::Index(_) => "getitem",
            ExtOp::Stack(_) => "stack",
            ExtOp::Split { .. } => "split",
            ExtOp::Unbind { .. } => "unbind",
            ExtOp::Gather(_) => "gather",
            ExtOp::IndexSelect(_) => "index_select",
            ExtOp::Where => "where",
            ExtOp::ArgReduce { max: true, .. } => "argmax",
            ExtOp::ArgReduce { max: false, .. } => "argmin",
            ExtOp::Reduce { kind, .. } => match kind {
                ExtReduce::Prod => "prod",
                ExtReduce::LogSumExp => "logsumexp",
                ExtReduce::All => "all",
                ExtReduce::Any => "any",
                ExtReduce::Var(_) => "var",
                ExtReduce::Std(_) => "std",
            },
            ExtOp::TableReduce { op, .. } => op.name(),
            ExtOp::TableShape { op, .. } => op.name(),
        }
    }

    /// Number of outputs (several for split and unbind).
    pub fn n_outputs(&self) -> usize {
        match self {
            ExtOp::Split { sections, .. } => sections.len(),
            ExtOp::Unbind { count, .. } => *count,
            _ => 1,
        }
    }

    /// Whether a gradient flows from the outputs to the inputs (index inputs and
    /// conditions never get one: they are integer or bool).
    pub fn passes_grad(&self) -> bool {
        if let ExtOp::TableReduce { op, .. } = self {
            return op.has_gradient();
        }
        !matches!(
            self,
            ExtOp::ArgReduce { .. }
                | ExtOp::Reduce {
                    kind: ExtReduce::All | ExtReduce::Any,
                    ..
                }
        )
    }

    /// Runs the op with the crate's differentiable ops; returns one tensor per output.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let name = self.name();
        let n_outputs = self.n_outputs();
        let x = inputs
            .first()
            .ok_or_else(|| Error::runtime(format!("{name}: missing input")))?;
        let second = || {
            inputs
                .get(1)
                .ok_or_else(|| Error::runtime(format!("{name}: missing input")))
        };
        let one = |t: Result<Tensor>| t.map(|t| vec![t]);
        let outs = match self {
            ExtOp::Index(items) => {
                let mut vars = inputs[1..].iter();
                let resolved = items
                    .iter()
                    .map(|it| {
                        Ok(match it {
                            IndexSpec::Int(i) => IndexItem::Int(*i),
                            IndexSpec::Slice(a, b, s) => IndexItem::Slice(*a, *b, *s),
                            IndexSpec::NewAxis => IndexItem::NewAxis,
                            IndexSpec::Ellipsis => IndexItem::Ellipsis,
                            IndexSpec::Var => IndexItem::Tensor(
                                vars.next()
                                    .ok_or_else(|| {
                                        Error::runtime("getitem: missing index variable")
                                    })?
                                    .clone(),
                            ),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                vec![x.index(&resolved)?]
            }
            ExtOp::Stack(axis) => vec![Tensor::stack(inputs, *axis)?],
            ExtOp::Split { axis, sections } => {
                let sizes = resolve_sections(x, *axis, sections)?;
                x.split(&sizes, *axis)?
            }
            ExtOp::Unbind { axis, .. } => x.unbind(*axis)?,
            ExtOp::Gather(d) => one(x.gather(*d, second()?))?,
            ExtOp::IndexSelect(d) => one(x.index_select(*d, second()?))?,
            ExtOp::Where => {
                let y = inputs
                    .get(2)
                    .ok_or_else(|| Error::runtime("where: missing input"))?;
                // Paddle's `where` promotes a 0-d operand as a tensor (as `infer` says)
                one(Tensor::where_ranked(
                    x,
                    second()?,
                    y,
                    crate::dtype::ZeroDimRule::Plain,
                ))?
            }
            ExtOp::TableReduce { op, args } => one(op.run(x, args))?,
            ExtOp::ArgReduce { axis, keepdim, max } => one(x.argmax_argmin(*axis, *keepdim, *max))?,
            ExtOp::Reduce {
                kind,
                axes,
                keepdim,
            } => {
                let ax = axes.as_deref();
                one(match kind {
                    ExtReduce::Prod => x.prod(ax, *keepdim),
                    ExtReduce::LogSumExp => x.logsumexp(ax, *keepdim),
                    ExtReduce::All => x.all_any(ax, *keepdim, true),
                    ExtReduce::Any => x.all_any(ax, *keepdim, false),
                    ExtReduce::Var(c) => x.var(ax, *c, *keepdim),
                    ExtReduce::Std(c) => x.std(ax, *c, *keepdim),
                })?
            }
            ExtOp::TableShape { op, args } if op.arity() == 2 => {
                let like: Vec<Dim> = second()?.shape().iter().map(|&d| Some(d)).collect();
                one(op.apply(
                    x,
                    &ShapeArgs {
                        like: Some(like),
                        ..args.clone()
                    },
                ))?
            }
            ExtOp::TableShape { op, args } => one(op.apply(x, args))?,
        };
        if outs.len() != n_outputs {
            return Err(Error::value(format!(
                "{name}: produced {} outputs at run time, but the program recorded {n_outputs}; \
                 the size of the split dimension must match the one known when building",
                outs.len()
            )));
        }
        Ok(outs)
    }
}

/// Section sizes of a split at run time (`None` = the rest of the dimension).
fn resolve_sections(x: &Tensor, axis: isize, sections: &[Option<usize>]) -> Result<Vec<usize>> {
    let d = crate::layout::normalize_axis(axis, x.ndim(), "split")?;
    let total = x.shape()[d];
    let known: usize = sections.iter().flatten().sum();
    let rest = total.checked_sub(known).ok_or_else(|| {
        Error::value(format!(
            "split: the sections {sections:?} add up to more than the size {total} of dimension {axis}"
        ))
    })?;
    Ok(sections.iter().map(|s| s.unwrap_or(rest)).collect())
}
