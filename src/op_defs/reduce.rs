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
//! - `run`: `|x, a| ...` the reduction of tensor `x` with the parsed
//!   [`ReduceArgs`](crate::op_defs::ReduceArgs) `a`, written with the crate's
//!   differentiable ops: the kernels (`src/kernels/reduce.rs`, generic over one `Fold` per
//!   op) and the backward formulas (`src/autograd/ops/reduce.rs`) sit behind those calls,
//!   and a composite (`mean`, `var`, `nansum`) gets its gradient — and double backward —
//!   from the ops it is made of.
//! - `node`: the backward node the result's `grad_fn` shows (`""` when not differentiable).
//!   A test checks it for every entry.

/// Helpers of the composite entries.
#[path = "reduce_fns.rs"]
pub mod fns;

/// Calls `$consumer! { entries }` with every reduction's declaration (see the module docs
/// for the columns). Closures may use [`fns`] and `crate::tensor` items (consumers
/// glob-import both).
macro_rules! for_each_reduce_op {
    ($consumer:ident) => {
        $consumer! {
            Sum {
                name: sum,
                doc: "Sum over `axis`/`dim` (all by default); torch's `sum(dim, keepdim, dtype)` or Paddle's `sum(axis, dtype, keepdim)` positionally.",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims],
                other_order: [axis, dtype, keepdim, name],
                dtype: IntToI64, axes: Many,
                run: |x, a| a.cast(x)?.sum(a.axes(), a.keepdim),
                node: "SumBackward",
            }
            Mean {
                name: mean,
                doc: "Mean over `axis`/`dim` (all by default; integers give the default float).",
                params: [axis, keepdim, name], keywords: [dim, keepdims, dtype], other_order: [],
                dtype: Float, axes: Many,
                run: |x, a| a.cast(x)?.mean(a.axes(), a.keepdim),
                node: "DivBackward",
            }
            Prod {
                name: prod,
                doc: "Product over `axis`/`dim` (all by default).",
                params: [axis, keepdim, name], keywords: [dim, keepdims, dtype], other_order: [],
                dtype: IntToI64, axes: Many,
                run: |x, a| a.cast(x)?.prod(a.axes(), a.keepdim),
                node: "ProdBackward",
            }
            Max {
                name: max,
                doc: "Maximum over `axis`/`dim` (values only; see `argmax` for indices).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                run: |x, a| x.amax_amin(a.axes(), a.keepdim, true),
                node: "MaxBackward",
            }
            Min {
                name: min,
                doc: "Minimum over `axis`/`dim` (values only; see `argmin` for indices).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                run: |x, a| x.amax_amin(a.axes(), a.keepdim, false),
                node: "MinBackward",
            }
            Amax {
                name: amax,
                doc: "Maximum over `axis`/`dim` (same as `max`; ties share the gradient).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                run: |x, a| x.amax_amin(a.axes(), a.keepdim, true),
                node: "MaxBackward",
            }
            Amin {
                name: amin,
                doc: "Minimum over `axis`/`dim` (same as `min`; ties share the gradient).",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Same, axes: Many,
                run: |x, a| x.amax_amin(a.axes(), a.keepdim, false),
                node: "MinBackward",
            }
            Argmax {
                name: argmax,
                doc: "Index of the maximum along `axis` (flattened when None), int64.",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims], other_order: [],
                dtype: Index, axes: One,
                run: |x, a| x.argmax_argmin(a.axis()?, a.keepdim, true),
                node: "",
            }
            Argmin {
                name: argmin,
                doc: "Index of the minimum along `axis` (flattened when None), int64.",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims], other_order: [],
                dtype: Index, axes: One,
                run: |x, a| x.argmax_argmin(a.axis()?, a.keepdim, false),
                node: "",
            }
            Var {
                name: var,
                doc: "Variance over `axis`/`dim` (`unbiased=True` divides by N-1; `correction` overrides).",
                params: [axis, unbiased, keepdim, name], keywords: [dim, keepdims, correction],
                other_order: [],
                dtype: Float, axes: Many,
                run: |x, a| x.var(a.axes(), a.correction, a.keepdim),
                node: "DivBackward",
            }
            Std {
                name: std,
                doc: "Standard deviation over `axis`/`dim` (same arguments as `var`).",
                params: [axis, unbiased, keepdim, name], keywords: [dim, keepdims, correction],
                other_order: [],
                dtype: Float, axes: Many,
                run: |x, a| x.std(a.axes(), a.correction, a.keepdim),
                node: "SqrtBackward",
            }
            Logsumexp {
                name: logsumexp,
                doc: "`log(sum(exp(x)))` over `axis`/`dim`, stable.",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Float, axes: Many,
                run: |x, a| x.logsumexp(a.axes(), a.keepdim),
                node: "LogsumexpBackward",
            }
            All {
                name: all,
                doc: "True where all elements along `axis` are non-zero.",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Bool, axes: Many,
                run: |x, a| x.all_any(a.axes(), a.keepdim, true),
                node: "",
            }
            Any {
                name: any,
                doc: "True where any element along `axis` is non-zero.",
                params: [axis, keepdim, name], keywords: [dim, keepdims], other_order: [],
                dtype: Bool, axes: Many,
                run: |x, a| x.all_any(a.axes(), a.keepdim, false),
                node: "",
            }
            Nansum {
                name: nansum,
                doc: "Sum over `axis`/`dim` treating NaN as zero (NaN positions get no gradient).",
                params: [axis, keepdim, dtype, name], keywords: [dim, keepdims],
                other_order: [axis, dtype, keepdim, name],
                dtype: IntToI64, axes: Many,
                run: |x, a| nan_to_zero(&a.cast(x)?)?.sum(a.axes(), a.keepdim),
                node: "SumBackward",
            }
            Nanmean {
                name: nanmean,
                doc: "Mean over `axis`/`dim` of the non-NaN elements (NaN where all are NaN).",
                params: [axis, keepdim, name], keywords: [dim, keepdims, dtype], other_order: [],
                dtype: Float, axes: Many,
                run: |x, a| nanmean(&a.cast(x)?, a.axes(), a.keepdim),
                node: "DivBackward",
            }
        }
    };
}
pub(crate) use for_each_reduce_op;
