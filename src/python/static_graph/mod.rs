//! The Python side of static graphs (`ferrograd.static`): the program being recorded
//! (`program.rs`), op names and attributes parsed into the core's op kinds
//! (`op_kinds.rs`, `ext_op_attrs.rs`), the scope and executor that run a program
//! (`executor.rs`), Python callbacks inside a program (`py_func.rs`), and the module functions that
//! record when given a static Variable (`dispatch.rs`).

/// Module functions that dispatch on their argument's type (a Variable records).
pub(crate) mod dispatch;
pub(crate) mod executor;
pub(crate) mod ext_op_attrs;
pub(crate) mod op_kinds;
pub(crate) mod program;
pub(crate) mod py_func;
