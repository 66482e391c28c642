//! The reductions, each declared once.
//!
//! **Adding a reduction is an entry in [`for_each_reduce_op!`] (plus, if it needs one, a
//! helper in [`fns`]) — this file only.** From the entry the build derives the
//! [`Reduction`](crate::op_defs::Reduction) variant and its metadata, the `Tensor` methods
//! (their Python signature, the keyword aliases, the resolution of torch's and Paddle's
//! positional orders and the argument checks, all generic: `src/python/tensor/reduce.rs`),
//! the result dtype rule that static programs infer with (and a core test checks against
//! the eager result for every dtype), static-graph recording, parsing, shape inference and
//! execution (`ExtOp::TableReduce`), and, through `scripts/gen_op_bindings.py`, the module
//! functions of both dialects, `__all__`, the static `Variable` methods and the stubs.
//!
//! Entry columns (all required; `[]` means "none"):
//! - `name`: the `Tensor` method, also the module function in both dialects, the name in
//!   errors and static programs (an alias is an entry of its own: `amax`).
//! - `doc`: one line, for the method, the function, the `Variable` method and the stub.
//! - `params`: the Python signature's positional-or-keyword parameters, in order;
//!   `keywords`: the keyword-only ones (the other dialect's spellings: `dim`, `keepdims`).
//!   Parameter names come from a fixed vocabulary, each with one role: `axis`/`dim` (the
//!   axes), `keepdim`/`keepdims`, `dtype`, `unbiased`/`correction` (the divisor
//!   correction), `name` (Paddle's, ignored). When two spellings of a role are given, the
//!   first in the signature wins.
//! - `other_order`: the other dialect's positional order when it differs from `params`
//!   (torch's `sum(dim, keepdim, dtype)` against Paddle's `sum(axis, dtype, keepdim)`), or
//!   `[]`. A call is read in that order when its values fit the other order's roles and
//!   not the signature's (a dtype where `keepdim` stands, a bool where `dtype` stands).
//! - `dtype`: the result dtype from the (cast) input dtype, a
//!   [`ReduceDType`](crate::op_defs::ReduceDType).
//! - `axes`: `Many` (an int, a list or None for all) or `One` (one axis or None for the
//!   flattened input: `argmax`).
//! - `kernel`: `|x, ax, keepdim| ...` the forward of a primitive reduction: the raw call
//!   (recording nothing) of the kernel in `src/kernels/reduce.rs` (`reduce_raw` with its
//!   `ReduceOp` fold, `arg_reduce`, `logical_reduce_raw`) over the normalized axes `ax`,
//!   on `x` already cast (`dtype=`) and, for a `Float` rule, already floating.
//! - `saves`: what the primitive's backward keeps: `Input` and/or `Output` (or `[]`).
//! - `grad`: `|g, s| ...` the input's gradient from the incoming gradient `g` and a
//!   [`ReduceSaved`](crate::op_defs::ReduceSaved) `s` (`s.x()`, `s.out()`, `s.unreduce(g)`,
//!   `s.keep(t)`, `s.count()`, `s.axes`, `s.shape`), written with differentiable tensor
//!   ops so double backward works; `[]` for an op without gradient (bool or index result).
//!   The engine-facing recording is generic (`src/autograd/ops/reduce.rs`): this entry is
//!   the one place that says how the op computes and differentiates.
//! - `compose`: instead of `kernel`/`saves`/`grad`, a composite: `|x, a| ...` the
//!   reduction of `x` with the parsed [`ReduceArgs`](crate::op_defs::ReduceArgs) `a`,
//!   written with the crate's differentiable ops, so its gradient (and double backward)
//!   comes from the ops it is made of (`var`, `std`, `nansum`, `nanmean`). An entry has
//!   exactly one of `kernel` and `compose` (anything else does not compile).
//! - `node`: the backward node the result's `grad_fn` shows (`""` when not differentiable).
//!   A test checks it for every entry.

/// Helpers of the entries: kernels, gradient formulas and composites.
#[path = "reduce_fns.rs"]
pub mod fns;

/// Calls `$consumer! { entries }` with every reduction's declaration (see the module docs
/// for the columns). Closures may use [`fns`], `ReduceOp` and `crate::tensor` items
/// (consumers glob-import them).
macro_rules! for_each_reduce_op {
    ($consumer:ident) => {
        $consumer! {
            Sum {
                name: sum,
                doc: "Sum over `axis`/`dim` (all by default); torch's `sum(dim, keepdim, dtype)` or Paddle's `sum(axis, dtype, keepdim)` positionally.",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims],
                other_order: [axis, dtype, keepdim, name],
                dtype: IntToI64, axes: Many,
                kernel: [|x, ax, keep| x.reduce_raw(ReduceOp::Sum, ax, keep)],
                saves: [], grad: [|g, s| s.unreduce(g)],
                compose: [],
                node: "SumBackward",
            }
            Mean {
                name: mean,
                doc: "Mean over `axis`/`dim` (all by default; integers give the default float).",
                params: [axis, keepdim, name], keywords: [dim, keepdims, dtype], other_order: [],
                dtype: Float, axes: Many,
                kernel: [|x, ax, keep| mean_values(x, ax, keep)],
                saves: [], grad: [|g, s| s.unreduce(&g.div_conj(&g.scalar_like(s.count() as f64))?)],
                compose: [],
                node: "MeanBackward",
            }
            Prod {
                name: prod,
                doc: "Product over `axis`/`dim` (all by default).",
                params: [axis, keepdim, name], keywords: [dim, keepdims, dtype], other_order: [],
                dtype: IntToI64, axes: Many,
                kernel: [|x, ax, keep| x.reduce_raw(ReduceOp::Prod, ax, keep)],
                saves: [Input], grad: [|g, s| prod_grad(g, s)],
                compose: [],
                node: "ProdBackward",
            }
            Max {
                name: max,
                doc: "Maximum over `axis`/`dim`: the values (Paddle); PyTorch's `(values, indices)` for one `dim=`, or one dimension in code that imports ferrograd as `torch` (python/ferrograd/_shared_spellings.py).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                kernel: [|x, ax, keep| x.reduce_raw(ReduceOp::Max, ax, keep)],
                saves: [Input, Output], grad: [|g, s| ties_share_grad(g, s)],
                compose: [],
                node: "MaxBackward",
            }
            Min {
                name: min,
                doc: "Minimum over `axis`/`dim`: the values (Paddle); PyTorch's `(values, indices)` for one `dim=`, or one dimension in code that imports ferrograd as `torch` (python/ferrograd/_shared_spellings.py).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                kernel: [|x, ax, keep| x.reduce_raw(ReduceOp::Min, ax, keep)],
                saves: [Input, Output], grad: [|g, s| ties_share_grad(g, s)],
                compose: [],
                node: "MinBackward",
            }
            Amax {
                name: amax,
                doc: "Maximum over `axis`/`dim` (same as `max`; ties share the gradient).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                kernel: [|x, ax, keep| x.reduce_raw(ReduceOp::Max, ax, keep)],
                saves: [Input, Output], grad: [|g, s| ties_share_grad(g, s)],
                compose: [],
                node: "MaxBackward",
            }
            Amin {
                name: amin,
                doc: "Minimum over `axis`/`dim` (same as `min`; ties share the gradient).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                kernel: [|x, ax, keep| x.reduce_raw(ReduceOp::Min, ax, keep)],
                saves: [Input, Output], grad: [|g, s| ties_share_grad(g, s)],
                compose: [],
                node: "MinBackward",
            }
            Argmax {
                name: argmax,
                doc: "Index of the maximum along `axis` (flattened when None), int64.",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims], other_order: [],
                dtype: Index, axes: One,
                kernel: [|x, ax, keep| arg_reduce(x, ReduceOp::ArgMax, ax, keep)],
                saves: [], grad: [],
                compose: [],
                node: "",
            }
            Argmin {
                name: argmin,
                doc: "Index of the minimum along `axis` (flattened when None), int64.",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims], other_order: [],
                dtype: Index, axes: One,
                kernel: [|x, ax, keep| arg_reduce(x, ReduceOp::ArgMin, ax, keep)],
                saves: [], grad: [],
                compose: [],
                node: "",
            }
            Var {
                name: var,
                doc: "Variance over `axis`/`dim` (`unbiased=True` divides by N-1; `correction` overrides).",
                params: [axis, unbiased, keepdim, name], keywords: [dim, keepdims, correction],
                other_order: [],
                dtype: Float, axes: Many,
                kernel: [], saves: [], grad: [],
                compose: [|x, a| x.var(a.axes(), a.correction, a.keepdim)],
                node: "DivBackward",
            }
            Std {
                name: std,
                doc: "Standard deviation over `axis`/`dim` (same arguments as `var`).",
                params: [axis, unbiased, keepdim, name], keywords: [dim, keepdims, correction],
                other_order: [],
                dtype: Float, axes: Many,
                kernel: [], saves: [], grad: [],
                compose: [|x, a| x.std(a.axes(), a.correction, a.keepdim)],
                node: "SqrtBackward",
            }
            Logsumexp {
                name: logsumexp,
                doc: "`log(sum(exp(x)))` over `axis`/`dim`, stable.",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Float, axes: Many,
                kernel: [|x, ax, keep| x.logsumexp_raw(ax, keep)],
                saves: [Input, Output],
                // d/dx log sum exp(x) = exp(x - y), broadcast over the reduced dims
                grad: [|g, s| s.keep(g)?.mul(&s.x()?.sub(&s.keep(s.out()?)?)?.exp()?)],
                compose: [],
                node: "LogsumexpBackward",
            }
            All {
                name: all,
                doc: "True where all elements along `axis` are non-zero.",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Bool, axes: Many,
                kernel: [|x, ax, keep| x.logical_reduce_raw(ReduceOp::All, ax, keep)],
                saves: [], grad: [],
                compose: [],
                node: "",
            }
            Any {
                name: any,
                doc: "True where any element along `axis` is non-zero.",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Bool, axes: Many,
                kernel: [|x, ax, keep| x.logical_reduce_raw(ReduceOp::Any, ax, keep)],
                saves: [], grad: [],
                compose: [],
                node: "",
            }
            CountNonzero {
                name: count_nonzero,
                doc: "Number of non-zero elements (int64) over `axis`/`dim` (all by default).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Index, axes: Many,
                kernel: [|x, ax, keep| count_nonzero(x, ax, keep)],
                saves: [], grad: [],
                compose: [],
                node: "",
            }
            Nansum {
                name: nansum,
                doc: "Sum over `axis`/`dim` treating NaN as zero (NaN positions get no gradient).",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims],
                other_order: [axis, dtype, keepdim, name],
                dtype: IntToI64, axes: Many,
                kernel: [], saves: [], grad: [],
                compose: [|x, a| nan_to_zero(&a.cast(x)?)?.sum(a.axes(), a.keepdim)],
                node: "SumBackward",
            }
            Nanmean {
                name: nanmean,
                doc: "Mean over `axis`/`dim` of the non-NaN elements (NaN where all are NaN).",
                params: [axis, keepdim, name], keywords: [dim, keepdims, dtype], other_order: [],
                dtype: Float, axes: Many,
                kernel: [], saves: [], grad: [],
                compose: [|x, a| nanmean(&a.cast(x)?, a.axes(), a.keepdim)],
                node: "DivBackward",
            }
        }
    };
}
pub(crate) use for_each_reduce_op;
