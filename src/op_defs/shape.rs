//! The shape and view ops, each declared once.
//!
//! **A shape op is an entry in [`for_each_shape_op!`] (plus its rule and kernel in
//! [`fns`]).** From the entry the build derives the [`ShapeOp`](crate::op_defs::ShapeOp)
//! variant and its metadata, the `Tensor` method with the entry's signature (every
//! parameter defaults to None; one generic parser, `src/python/shape_args.rs`, reads the
//! roles), the recording (one generic driver, `ShapeOp::apply` in
//! `src/autograd/ops/shape_table.rs`: the rule, the raw kernel, the view marking and
//! one node whose backward is the `grad` column), and static-graph support (the same
//! parser for the attributes, inference with the same rule over dimensions that may be
//! known only at run time, execution through the same driver: `ExtOp::TableShape`).
//!
//! Entry columns (all required; `[]` means "none"):
//! - `name`: the `Tensor` method, the module function in both dialects, the name in
//!   errors and static programs.
//! - `doc`: one line.
//! - `arity`: the number of tensor inputs. `2`: the second is the tensor of the
//!   `other`/`y` role, whose shape the rule reads (`ShapeArgs::like`; `expand_as`); a
//!   static program records it as the op's second input (its shape may be known only at
//!   run time), and it gets no gradient.
//! - `varargs`: `[args]` for an op taking its dimensions as `*args` (`permute(1, 0)`;
//!   then `params` is empty): they play the `perm` role (or, for an op with `dim0`/`dim1`
//!   roles, two of them are the pair to swap); `[shape]`: the target shape (`reshape`);
//!   `[sizes]`: the target shape with `-1` keeping a dimension, also given as the
//!   `shape`/`size` keywords (`expand`). Ints or one sequence (or 1-d tensor). A static
//!   program passes them as the attribute of the same name (or of the keyword).
//! - `params`: the positional-or-keyword parameters in order; `keywords`: the
//!   keyword-only ones (the other dialect's spellings). Names come from a vocabulary,
//!   each with one role ([`ShapeParam`](crate::op_defs::ShapeParam)): `axis`/`dim`,
//!   `start_axis`/`start_dim`, `stop_axis`/`end_dim`, `perm`/`dims`, `dim0`, `dim1`,
//!   `shape`/`size` (a target shape), `other`/`y` (the second input of an entry of arity
//!   2), `name` (Paddle's, ignored; a str or None). When two spellings of a role are given, the first in the
//!   signature wins.
//! - `signature`: the Python signature `help()` and `inspect` show, with each role's
//!   default (the parameters themselves default to None, and the parser applies the
//!   default; a test checks that the names agree with `params` and `keywords`).
//! - `view`: `Always` (the result is always a view of the input) or `WhenPossible` (a
//!   view when the strides allow, else a copy; the input's own shape is a no-op view
//!   recorded as `ViewBackward`).
//! - `rule`: `|dims, args, subject| ...` the result shape from the input's dimensions
//!   (`Option<usize>`: `None` is a dimension a static program knows only at run time;
//!   eager calls pass only `Some`), and the argument checks; errors go through the
//!   [`DimSubject`](crate::op_defs::DimSubject), which words them for a tensor or for a
//!   named static variable. One rule serves the eager op and static inference.
//! - `static_rule`: optional, `|dims, args, subject| ...` the arguments a static program
//!   records, resolved against the variable's recorded shape when the program is built
//!   (`squeeze`: the dimensions known to be 1, so the rank never depends on the feed).
//! - `kernel`: `|x, args, out_shape| ...` the raw layout change (records nothing): a view
//!   over the same storage, or a copy for `WhenPossible`.
//! - `grad`: `|g, s| ...` the input's gradient: the inverse op from the same arguments
//!   ([`ShapeSaved`](crate::op_defs::ShapeSaved): `s.in_shape`, `s.args`), written with
//!   differentiable ops so double backward works.
//! - `node`: the backward node `grad_fn` shows; `"Name" or f`: `f(args, ndim)` may pick
//!   another for some calls (`transpose`'s no-op swaps).

/// Rules and kernels of the entries.
#[path = "shape_fns.rs"]
pub mod fns;

/// Rules and kernels of the reorderings (`permute`, `transpose`), re-exported by [`fns`].
#[path = "shape_permute.rs"]
pub mod permute;

/// The rule of `reshape`, re-exported by [`fns`].
#[path = "shape_reshape.rs"]
pub mod reshape;

/// The rule of the broadcasts (`expand`, `broadcast_to`, `expand_as`), re-exported by
/// [`fns`].
#[path = "shape_expand.rs"]
pub mod expand;

/// Calls `$consumer! { entries }` with every shape op's declaration (see the module docs
/// for the columns). Closures may use [`fns`] (consumers glob-import it).
macro_rules! for_each_shape_op {
    ($consumer:ident) => {
        $consumer! {
            Squeeze {
                name: squeeze,
                doc: "Removes size-1 dims: all of them, or those in `axis`/`dim` (a listed dim that is not 1 is left alone).",
                arity: 1,
                varargs: [], params: [axis, name], keywords: [dim],
                signature: "($self, axis=None, name=None, *, dim=None)",
                view: Always,
                rule: |d, a, cx| squeeze_rule(d, a, cx),
                static_rule: [|d, a, cx| squeeze_pin(d, a, cx)],
                kernel: |x, a, _out| squeeze_kernel(x, a),
                grad: |g, s| g.reshape(&s.in_shape_isize()),
                node: "SqueezeBackward",
            }
            Unsqueeze {
                name: unsqueeze,
                doc: "Inserts size-1 dims at `axis`/`dim` (an int or a list; positions in the result).",
                arity: 1,
                varargs: [], params: [axis, name], keywords: [dim],
                signature: "($self, axis=None, name=None, *, dim=None)",
                view: Always,
                rule: |d, a, cx| unsqueeze_rule(d, a, cx),
                static_rule: [],
                kernel: |x, a, _out| unsqueeze_kernel(x, a),
                grad: |g, s| g.reshape(&s.in_shape_isize()),
                node: "UnsqueezeBackward",
            }
            Flatten {
                name: flatten,
                doc: "Flattens dims `start_axis..=stop_axis` (torch `start_dim..=end_dim`) into one.",
                arity: 1,
                varargs: [], params: [start_axis, stop_axis, name], keywords: [start_dim, end_dim],
                signature: "($self, start_axis=0, stop_axis=-1, name=None, *, start_dim=None, end_dim=None)",
                view: WhenPossible,
                rule: |d, a, cx| flatten_rule(d, a, cx),
                static_rule: [],
                kernel: |x, _a, out| x.reshape_raw(out),
                grad: |g, s| g.reshape(&s.in_shape_isize()),
                node: "ReshapeBackward",
            }
            Reshape {
                name: reshape,
                doc: "Same elements in a new shape (one dim may be -1): `reshape(2, 3)`, `reshape([2, 3])` or `reshape(shape=[2, 3])`.",
                arity: 1,
                varargs: [sizes], params: [], keywords: [shape, name],
                signature: "($self, *sizes, shape=None, name=None)",
                view: WhenPossible,
                rule: |d, a, cx| reshape_rule(d, a, cx),
                static_rule: [],
                kernel: |x, _a, out| x.reshape_raw(out),
                grad: |g, s| g.reshape(&s.in_shape_isize()),
                node: "ReshapeBackward",
            }
            Permute {
                name: permute,
                doc: "Reorders dims (`permute(1, 0)`, `permute([1, 0])` or torch's `permute(dims=[1, 0])`).",
                arity: 1,
                varargs: [args], params: [], keywords: [dims],
                signature: "($self, *args, dims=None)",
                view: Always,
                rule: |d, a, cx| permute_rule(d, a, cx),
                static_rule: [],
                kernel: |x, a, _out| reorder_kernel("permute", x, a),
                grad: |g, s| reorder_grad("permute", g, s),
                node: "PermuteBackward",
            }
            Transpose {
                name: transpose,
                doc: "`transpose(perm)` (Paddle: a full permutation, also `perm=`) or `transpose(d0, d1)` (torch, also `dim0=`, `dim1=`).",
                arity: 1,
                varargs: [args], params: [], keywords: [perm, dim0, dim1, name],
                signature: "($self, *args, perm=None, dim0=None, dim1=None, name=None)",
                view: Always,
                rule: |d, a, cx| transpose_rule(d, a, cx),
                static_rule: [],
                kernel: |x, a, _out| reorder_kernel("transpose", x, a),
                grad: |g, s| reorder_grad("transpose", g, s),
                node: "PermuteBackward" or transpose_node,
            }
            Expand {
                name: expand,
                doc: "Broadcast view to a shape (`expand(2, -1, 3)`, `expand([2, -1, 3])`, Paddle's `shape=`); -1 keeps a dimension.",
                arity: 1,
                varargs: [sizes], params: [], keywords: [shape, size, name],
                signature: "($self, *sizes, shape=None, size=None, name=None)",
                view: Always,
                rule: |d, a, cx| expand_rule("expand", d, a, cx),
                static_rule: [],
                kernel: |x, _a, out| x.expand_raw(out),
                grad: |g, s| g.sum_to(s.in_shape),
                node: "ExpandBackward",
            }
            BroadcastTo {
                name: broadcast_to,
                doc: "Broadcast view to `shape` (torch: `size`); -1 keeps a dimension.",
                arity: 1,
                varargs: [], params: [shape, name], keywords: [size],
                signature: "($self, shape=None, name=None, *, size=None)",
                view: Always,
                rule: |d, a, cx| expand_rule("broadcast_to", d, a, cx),
                static_rule: [],
                kernel: |x, _a, out| x.expand_raw(out),
                grad: |g, s| g.sum_to(s.in_shape),
                node: "ExpandBackward",
            }
            ExpandAs {
                name: expand_as,
                doc: "Broadcast view to the shape of `other` (Paddle: `y`).",
                arity: 2,
                varargs: [], params: [other, name], keywords: [y],
                signature: "($self, other=None, name=None, *, y=None)",
                view: Always,
                rule: |d, a, cx| expand_rule("expand_as", d, a, cx),
                static_rule: [],
                kernel: |x, _a, out| x.expand_raw(out),
                grad: |g, s| g.sum_to(s.in_shape),
                node: "ExpandBackward",
            }
        }
    };
}
pub(crate) use for_each_shape_op;
