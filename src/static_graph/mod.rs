//! Static graphs: programs recorded once and executed many times, in Rust.
//!
//! A [`Program`] holds variables (name, dtype, shape with run-time dimensions, kind:
//! data / parameter / temp / declared / grad) and an ordered list of op records. Shapes
//! and dtypes are inferred when an op is appended ([`infer`]), so a mismatch is an error
//! while building, naming the op. An [`Executor`] compiles a program into a [`Plan`]
//! (the ops needed for the fetched variables and the side effects, variable slots, what
//! to feed, what to read from and write back to the [`Scope`]) once, caches it keyed by
//! program id, version and fetch list, and runs it over the crate's tensor ops.
//!
//! Gradients: `append_gradients` adds `<var>@GRAD` variables and a backward section.
//! Why not a symbolic backward program: the crate's engine already has a correct,
//! tested backward for every op (higher order, broadcasting, py_func callbacks), so the
//! executor records the forward part with it — only where a requested gradient needs
//! it, by marking exactly the differentiated variables as requiring grad — and asks the
//! engine for the gradients. Ops after the last backward section run without recording.
//!
//! `py_func` ops call user callbacks through the [`PyFuncCallback`] trait, implemented
//! by the bindings, so this module stays free of Python.

pub mod executor;
pub mod fusion;
pub mod infer;
pub mod infer_index;
pub mod infer_index_join_reduce;
pub mod op;
pub mod op_index_join_reduce;
pub mod optim_op;
pub mod program;
pub mod pyfunc;

pub use executor::{Executor, Plan, Scope};
pub use op::{InitKind, OpKind, ReduceKind};
pub use op_index_join_reduce::{ExtOp, ExtReduce, IndexSpec};
pub use optim_op::{OptRule, OptimizerStep};
pub use program::{fmt_shape, Dim, OpRecord, Program, VarDesc, VarKind};
pub use pyfunc::{OutSpec, PyFuncCallback, PyFuncOp};
